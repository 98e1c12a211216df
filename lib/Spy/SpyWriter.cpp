//===- SpyWriter.cpp - Assembling .spy model files ------------------------===//

#include "spyre/Spy/SpyWriter.h"

#include "spyre/Arch/Arch.h"
#include "spyre/Spy/SpyFormat.h"
#include "spyre/Spy/WeightsFile.h"
#include "spyre/Support/MathExtras.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

namespace spyre::spy {

static_assert(uint8_t(DType::F32) == uint8_t(isa::DType::F32) &&
                  uint8_t(DType::F16) == uint8_t(isa::DType::F16) &&
                  uint8_t(DType::BF16) == uint8_t(isa::DType::BF16) &&
                  uint8_t(DType::I8) == uint8_t(isa::DType::I8) &&
                  uint8_t(DType::I32) == uint8_t(isa::DType::I32) &&
                  uint8_t(DType::I64) == uint8_t(isa::DType::I64) &&
                  uint8_t(DType::Bool) == uint8_t(isa::DType::Bool) &&
                  DType::MAX == DType::Bool,
              "spy.fbs DType must match spyre::isa::DType");

namespace {

/// The FlatBuffer of a program's reference.
flatbuffers::Offset<KernelReference>
writeReference(flatbuffers::FlatBufferBuilder &fbb,
               const KernelReferenceDesc &ref) {
  auto values = [&](const std::vector<RefValueDesc> &list) {
    std::vector<flatbuffers::Offset<RefValue>> out;
    for (const RefValueDesc &v : list)
      out.push_back(CreateRefValueDirect(fbb, v.tensor, &v.shape));
    return out;
  };
  std::vector<flatbuffers::Offset<RefValue>> inputs = values(ref.inputs);
  std::vector<flatbuffers::Offset<RefValue>> results = values(ref.results);
  std::vector<flatbuffers::Offset<RefOp>> ops;
  for (const RefOpDesc &op : ref.ops)
    ops.push_back(CreateRefOpDirect(fbb, op.kind, op.code, &op.operands,
                                    DType(op.dtype), &op.shape, &op.ints,
                                    op.scale, &op.floatValues, &op.intValues,
                                    op.location.c_str(), op.node.c_str()));
  return CreateKernelReferenceDirect(fbb, &inputs, &results, &ops, &ref.yields);
}

/// Alignment of code segments: one instruction.
constexpr uint64_t kCodeAlignment = isa::kInstBytes;

/// The header of a file whose FlatBuffer is `fbb` and whose data area has
/// `dataSize` bytes.
FileHeader makeHeader(uint32_t formatMajor, uint32_t formatMinor,
                      uint64_t archHash,
                      const flatbuffers::FlatBufferBuilder &fbb,
                      uint64_t dataSize) {
  FileHeader header;
  std::memset(&header, 0, sizeof(header));
  std::memcpy(header.magic, kMagic, sizeof(kMagic));
  header.formatMajor = formatMajor;
  header.formatMinor = formatMinor;
  header.archHash = archHash;
  header.flatbufferOffset = kFileAlignment;
  header.flatbufferSize = fbb.GetSize();
  header.dataOffset =
      alignTo(header.flatbufferOffset + header.flatbufferSize, kFileAlignment);
  header.dataSize = dataSize;
  header.checksum = headerChecksum(header, fbb.GetBufferPointer());
  return header;
}

} // namespace

/// The data of one weight/constant tensor: bytes held, or a stream.
struct SpyWriter::TensorData {
  bool present = false;
  std::vector<uint8_t> bytes;
  uint64_t streamSize = 0;
  DataSource source;
  std::optional<ExternalSegment> external;
  uint64_t size() const { return source ? streamSize : bytes.size(); }
};

Phase phaseForRole(Role role) {
  switch (role) {
  case Role::Weight:
  case Role::Constant:
    return Phase::Load;
  case Role::Workspace:
  case Role::OnChip: // never relocated: no device memory
    return Phase::Bind;
  case Role::Input:
  case Role::Output:
    return Phase::Launch;
  }
  return Phase::Launch;
}

SpyWriter::SpyWriter(const Arch &arch)
    : archHash_(arch.hash()), archJson_(arch.canonicalJson()),
      archName_(arch.name), formatMajor_(kFormatMajor),
      formatMinor_(kFormatMinor) {}

SpyWriter::~SpyWriter() = default;

uint32_t SpyWriter::addTensor(const TensorDesc &desc) {
  tensors_.push_back(desc);
  TensorDesc &t = tensors_.back();
  if (t.size == 0 && !t.layout.deviceShape.empty())
    t.size = t.layout.deviceBytes(t.dtype);
  tensorData_.emplace_back();
  return uint32_t(tensors_.size() - 1);
}

void SpyWriter::setTensorData(uint32_t tensor, std::vector<uint8_t> bytes) {
  TensorData &d = tensorData_.at(tensor);
  d = TensorData();
  d.present = true;
  d.bytes = std::move(bytes);
}

void SpyWriter::setTensorData(uint32_t tensor, const void *data,
                              uint64_t size) {
  const auto *p = static_cast<const uint8_t *>(data);
  setTensorData(tensor, std::vector<uint8_t>(p, p + size));
}

void SpyWriter::setTensorData(uint32_t tensor, uint64_t size,
                              DataSource source) {
  TensorData &d = tensorData_.at(tensor);
  d = TensorData();
  d.present = true;
  d.streamSize = size;
  d.source = std::move(source);
}

void SpyWriter::setExternalTensorData(uint32_t tensor,
                                      ExternalSegment segment) {
  TensorData &d = tensorData_.at(tensor);
  d = TensorData();
  d.present = true;
  d.external = segment;
}

void SpyWriter::setWeightsFile(std::string path, uint64_t key,
                               uint64_t dataSize) {
  weightsPath_ = std::move(path);
  weightsKey_ = key;
  weightsDataSize_ = dataSize;
}

uint32_t SpyWriter::addProgram(ProgramDesc desc) {
  programs_.push_back(std::move(desc));
  return uint32_t(programs_.size() - 1);
}

void SpyWriter::addRelocation(uint32_t program, uint32_t instIndex,
                              uint32_t tensor, int64_t addend) {
  addRawRelocation(
      program, uint64_t(instIndex) * isa::kInstBytes + isa::kRelocFieldOffset,
      tensor, addend, phaseForRole(tensors_.at(tensor).role));
}

void SpyWriter::addRawRelocation(uint32_t program, uint64_t offset,
                                 uint32_t tensor, int64_t addend, Phase phase) {
  relocations_.push_back({program, offset, tensor, addend, phase});
}

void SpyWriter::addStep(uint32_t program) { plan_.push_back(program); }

void SpyWriter::setMetadata(std::string sourceModel,
                            std::string compilerVersion, std::string pipeline) {
  sourceModel_ = std::move(sourceModel);
  compilerVersion_ = std::move(compilerVersion);
  pipeline_ = std::move(pipeline);
}

bool SpyWriter::write(const std::string &path, std::string &error) {
  std::string tmp = path + ".tmp";
  std::FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    error = "cannot create '" + tmp + "'";
    return false;
  }
  bool ok = writeTo(
      [&](const void *data, uint64_t size, std::string &err) {
        if (size && std::fwrite(data, 1, size, f) != size) {
          err = "cannot write '" + tmp + "'";
          return false;
        }
        return true;
      },
      error);
  if (std::fclose(f) != 0 && ok) {
    error = "cannot write '" + tmp + "'";
    ok = false;
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot rename '" + tmp + "' to '" + path + "'";
    ok = false;
  }
  if (!ok)
    std::remove(tmp.c_str());
  return ok;
}

bool SpyWriter::writeToBuffer(std::vector<uint8_t> &out, std::string &error) {
  out.clear();
  return writeTo(
      [&](const void *data, uint64_t size, std::string &) {
        const auto *p = static_cast<const uint8_t *>(data);
        out.insert(out.end(), p, p + size);
        return true;
      },
      error);
}

/// Feeds consecutive bytes to a sink, counting them.
class SpyWriter::Emitter {
public:
  Emitter(const Sink &sink, std::string &error)
      : sink_(sink), error_(error), zeros_(kFileAlignment, 0) {}

  bool emit(const void *data, uint64_t size) {
    written_ += size;
    if (digest_)
      digest_->update(data, size_t(size));
    return sink_(data, size, error_);
  }
  /// Feeds what is emitted from now on to `digest` (null: none).
  void digestInto(SegmentDigest *digest) { digest_ = digest; }
  /// Zeros up to file offset `target`.
  bool padTo(uint64_t target) {
    while (written_ < target) {
      uint64_t n = std::min<uint64_t>(target - written_, zeros_.size());
      if (!emit(zeros_.data(), n))
        return false;
    }
    return true;
  }

private:
  const Sink &sink_;
  std::string &error_;
  std::vector<uint8_t> zeros_;
  uint64_t written_ = 0;
  SegmentDigest *digest_ = nullptr;
};

/// One segment of the data area: a program's code, a tensor's data, or
/// (last) the digests of all segments; or a tensor's data in the weights
/// file (`external`), which is not emitted.
struct SpyWriter::SegmentPlan {
  uint64_t offset, size, alignment;
  // At most one of these is set; neither: the digest segment.
  const ProgramDesc *program = nullptr;
  const TensorData *data = nullptr;
  bool external() const { return data && data->external; }
};

/// The data area: code segments, then tensor data.
struct SpyWriter::DataLayout {
  std::vector<SegmentPlan> segments;
  /// Segment of each program, and of each tensor (-1: no data).
  std::vector<int32_t> codeSegment, dataSegment;
  int32_t digestSegment = -1;
  uint64_t dataSize = 0;

  int32_t place(uint64_t size, uint64_t alignment) {
    dataSize = alignTo(dataSize, alignment);
    segments.push_back(SegmentPlan{dataSize, size, alignment});
    dataSize += size;
    return int32_t(segments.size() - 1);
  }
};

bool SpyWriter::layOutData(DataLayout &layout, std::string &error) const {
  layout.codeSegment.resize(programs_.size());
  for (size_t p = 0; p < programs_.size(); ++p) {
    layout.codeSegment[p] = layout.place(
        programs_[p].insts.size() * isa::kInstBytes, kCodeAlignment);
    layout.segments.back().program = &programs_[p];
  }
  layout.dataSegment.assign(tensors_.size(), -1);
  for (size_t t = 0; t < tensors_.size(); ++t) {
    const TensorData &d = tensorData_[t];
    if (!d.present)
      continue;
    uint64_t alignment = tensors_[t].alignment;
    if (!isPowerOfTwo(alignment)) {
      error = "tensor '" + tensors_[t].name + "': alignment " +
              std::to_string(alignment) + " is not a power of two";
      return false;
    }
    if (d.external) {
      layout.segments.push_back(SegmentPlan{d.external->offset,
                                            d.external->size, kWeightsAlignment,
                                            nullptr, &d});
      layout.dataSegment[t] = int32_t(layout.segments.size() - 1);
      continue;
    }
    layout.dataSegment[t] =
        layout.place(d.size(), std::max(alignment, kFileAlignment));
    layout.segments.back().data = &d;
  }
  if (formatHasDigests(formatMajor_, formatMinor_))
    layout.digestSegment = layout.place(
        (layout.segments.size() + 1) * sizeof(uint64_t), kCodeAlignment);
  return true;
}

void SpyWriter::buildTables(flatbuffers::FlatBufferBuilder &fbb,
                            const DataLayout &layout) const {
  std::vector<flatbuffers::Offset<Tensor>> tensorOffsets;
  for (size_t t = 0; t < tensors_.size(); ++t) {
    const TensorDesc &desc = tensors_[t];
    const TensorLayout &l = desc.layout;
    auto tensorLayout =
        CreateLayoutDirect(fbb, l.stickDim, &l.dimOrder, &l.paddedShape,
                           &l.deviceShape, l.elemsPerStick);
    tensorOffsets.push_back(CreateTensorDirect(
        fbb, desc.name.c_str(), desc.role, desc.ioIndex, DType(desc.dtype),
        &desc.shape, tensorLayout, desc.size, desc.alignment,
        layout.dataSegment[t], desc.workspaceOffset, desc.aliasesInput,
        desc.updatesTensor,
        desc.sourceName.empty() ? nullptr : desc.sourceName.c_str()));
  }
  std::vector<flatbuffers::Offset<Program>> programOffsets;
  for (size_t p = 0; p < programs_.size(); ++p) {
    const ProgramDesc &desc = programs_[p];
    programOffsets.push_back(CreateProgramDirect(
        fbb, desc.name.c_str(), layout.codeSegment[p], desc.numCores,
        desc.numParams, &desc.params, desc.location.c_str(),
        desc.reference ? writeReference(fbb, *desc.reference) : 0));
  }
  std::vector<spy::Relocation> relocations;
  for (const Relocation &r : relocations_)
    relocations.emplace_back(r.program, r.offset, r.tensor, r.addend, r.phase);
  std::vector<flatbuffers::Offset<Step>> steps;
  for (uint32_t p : plan_)
    steps.push_back(CreateStep(fbb, StepKind::Run, p));
  std::vector<flatbuffers::Offset<Segment>> segmentOffsets;
  for (const SegmentPlan &s : layout.segments)
    segmentOffsets.push_back(
        CreateSegment(fbb, s.offset, s.size, s.alignment, s.external()));
  flatbuffers::Offset<WeightsFile> weightsFile;
  if (!weightsPath_.empty())
    weightsFile = CreateWeightsFileDirect(fbb, weightsPath_.c_str(),
                                          weightsKey_, weightsDataSize_);
  auto metadata =
      CreateMetadataDirect(fbb, sourceModel_.c_str(), compilerVersion_.c_str(),
                           pipeline_.c_str(), archName_.c_str());
  auto model = CreateModelDirect(
      fbb, formatMajor_, formatMinor_, archHash_, archJson_.c_str(),
      &tensorOffsets, &programOffsets, &relocations, &steps, &segmentOffsets,
      metadata, workspaceSize_, layout.digestSegment, weightsFile);
  FinishModelBuffer(fbb, model);
}

bool SpyWriter::emitSegment(const SegmentPlan &s, Emitter &out,
                            std::vector<uint8_t> &chunk, std::string &error) {
  if (s.program)
    return out.emit(s.program->insts.data(), s.size);
  if (!s.data->source)
    return out.emit(s.data->bytes.data(), s.size);
  chunk.resize(size_t(std::min(s.size, kStreamChunkBytes)));
  for (uint64_t off = 0; off < s.size; off += kStreamChunkBytes) {
    uint64_t n = std::min(s.size - off, kStreamChunkBytes);
    std::string sourceError;
    if (!s.data->source(off, chunk.data(), n, sourceError)) {
      error = "data source failed: " + sourceError;
      return false;
    }
    if (!out.emit(chunk.data(), n))
      return false;
  }
  return true;
}

namespace {

/// Stores `value` little-endian in the 8 bytes at `dst`.
void storeLittleEndian64(uint8_t *dst, uint64_t value) {
  for (size_t b = 0; b < sizeof(uint64_t); ++b)
    dst[b] = uint8_t(value >> (8 * b));
}

} // namespace

bool SpyWriter::emitDigested(const SegmentPlan &s, Emitter &out,
                             std::vector<uint8_t> &chunk, uint64_t &value,
                             std::string &error) {
  SegmentDigest digest;
  out.digestInto(&digest);
  if (!emitSegment(s, out, chunk, error))
    return false;
  out.digestInto(nullptr);
  value = digest.digest();
  return true;
}

bool SpyWriter::emitDataArea(const DataLayout &layout, uint64_t dataOffset,
                             Emitter &out, std::string &error) {
  std::vector<uint8_t> chunk;
  // Little-endian digests, the digest segment's own entry 0.
  std::vector<uint8_t> digests(layout.segments.size() * sizeof(uint64_t), 0);
  for (size_t i = 0; i < layout.segments.size(); ++i) {
    const SegmentPlan &s = layout.segments[i];
    if (s.external()) {
      storeLittleEndian64(digests.data() + i * sizeof(uint64_t),
                          s.data->external->digest);
      continue;
    }
    if (!out.padTo(dataOffset + s.offset))
      return false;
    if (int32_t(i) == layout.digestSegment) {
      if (!out.emit(digests.data(), s.size))
        return false;
      continue;
    }
    uint64_t value;
    if (!emitDigested(s, out, chunk, value, error))
      return false;
    storeLittleEndian64(digests.data() + i * sizeof(uint64_t), value);
  }
  return true;
}

bool SpyWriter::writeTo(const Sink &sink, std::string &error) {
  DataLayout layout;
  if (!layOutData(layout, error))
    return false;
  flatbuffers::FlatBufferBuilder fbb(1 << 16);
  buildTables(fbb, layout);
  FileHeader header =
      makeHeader(formatMajor_, formatMinor_, archHash_, fbb, layout.dataSize);
  Emitter out(sink, error);
  if (!out.emit(&header, sizeof(header)) ||
      !out.padTo(header.flatbufferOffset) ||
      !out.emit(fbb.GetBufferPointer(), fbb.GetSize()) ||
      !out.padTo(header.dataOffset))
    return false;
  return emitDataArea(layout, header.dataOffset, out, error);
}

} // namespace spyre::spy
