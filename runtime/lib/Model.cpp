//===- Model.cpp - Mapping and validating .spy files ----------------------===//
//
// Order of the checks: header (size, magic, version, region bounds,
// checksum), FlatBuffers verifier, model fields against the header, machine
// description, the weights file (format 3.0: mapped, its header and key),
// then every table (segments, tensors, programs and their instructions,
// relocations, plan), then the segments' digests. Each check runs before
// anything depends on what it checks; all arithmetic on file values is
// overflow-checked.
//
//===----------------------------------------------------------------------===//

#include "spyre/Runtime/Model.h"
#include "FileMapping.h"
#include "ReferenceReader.h"

#include "spyre/Runtime/ProgramVerifier.h"
#include "spyre/Spy/SpyFormat.h"
#include "spyre/Spy/SpyWriter.h"
#include "spyre/Spy/WeightsFile.h"
#include "spyre/Support/MathExtras.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <thread>
#include <utility>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the .spy format and the runtime assume a little-endian host");

namespace spyre::rt {

using spy::Phase;
using spy::Role;

namespace {

/// Largest alignment a file may request (segments and tensors).
constexpr uint64_t kMaxAlignment = uint64_t(1) << 30;

std::string hex64(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%016" PRIx64, v);
  return buf;
}

/// Whether the elements of a verified vector are aligned for their type.
/// The FlatBuffers verifier checks the alignment of a vector's length field
/// only; reading misaligned 64-bit elements would be undefined behaviour.
template <typename T> bool elementsAligned(const flatbuffers::Vector<T> *v) {
  return !v || v->size() == 0 ||
         reinterpret_cast<uintptr_t>(v->Data()) % alignof(T) == 0;
}

std::string str(const flatbuffers::String *s) {
  return s ? std::string(s->c_str(), s->size()) : std::string();
}

/// "tensor 3 'w0'"
std::string tensorLabel(size_t index, const std::string &name) {
  return "tensor " + std::to_string(index) +
         (name.empty() ? std::string() : " '" + name + "'");
}
std::string programLabel(size_t index, const std::string &name) {
  return "program " + std::to_string(index) +
         (name.empty() ? std::string() : " '" + name + "'");
}

/// Copies a layout vector of at most kMaxRank + 1 entries.
template <typename Vector, typename Dst>
bool copyDims(const Vector *v, Dst &dst) {
  if (!v)
    return true;
  if (v->size() > spy::kMaxRank + 1)
    return false;
  dst.assign(v->begin(), v->end());
  return true;
}

bool sameType(const TensorInfo &a, const TensorInfo &b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.layout == b.layout;
}

} // namespace

const char *roleName(Role role) {
  switch (role) {
  case Role::Input:
    return "input";
  case Role::Output:
    return "output";
  case Role::Weight:
    return "weight";
  case Role::Constant:
    return "constant";
  case Role::Workspace:
    return "workspace";
  case Role::OnChip:
    return "on-chip";
  }
  return "?";
}

const char *phaseName(Phase phase) {
  switch (phase) {
  case Phase::Load:
    return "load";
  case Phase::Bind:
    return "bind";
  case Phase::Launch:
    return "launch";
  }
  return "?";
}

Model::Model() = default;
Model::~Model() = default;

uint64_t Model::fileSize() const { return mapping_->size(); }

const uint8_t *Model::segmentData(uint32_t segment) const {
  const SegmentInfo &s = segments_[segment];
  return (s.external ? weightsData_ : dataArea_) + s.offset;
}

Status Model::open(const std::string &path, const Arch *deviceArch,
                   std::unique_ptr<Model> &out, const LoadOptions &options) {
  std::unique_ptr<FileMapping> mapping;
  Status s = FileMapping::map(path, mapping);
  if (!s.ok())
    return s;
  auto model = std::unique_ptr<Model>(new Model());
  model->mapping_ = std::move(mapping);
  try {
    s = model->validate(path, deviceArch, options);
  } catch (const std::bad_alloc &) {
    s = Status::error(StatusCode::OutOfMemory, "out of host memory");
  }
  if (!s.ok())
    return s.withContext(path);
  out = std::move(model);
  return Status::success();
}

Status Model::fromBuffer(std::vector<uint8_t> bytes, const Arch *deviceArch,
                         std::unique_ptr<Model> &out,
                         const LoadOptions &options) {
  auto model = std::unique_ptr<Model>(new Model());
  model->mapping_ = FileMapping::own(std::move(bytes));
  Status s;
  try {
    s = model->validate(std::string(), deviceArch, options);
  } catch (const std::bad_alloc &) {
    s = Status::error(StatusCode::OutOfMemory, "out of host memory");
  }
  if (!s.ok())
    return s;
  out = std::move(model);
  return Status::success();
}

/// The checks of Model::validate, one section of the file at a time in the
/// order of the comment at the top; each fills in its part of the model.
class Model::Validator {
public:
  Validator(Model &model, const std::string &path, const Arch *deviceArch,
            const LoadOptions &options)
      : model_(model), path_(path), deviceArch_(deviceArch), options_(options),
        file_(model.mapping_->data()), fileSize_(model.mapping_->size()) {}

  Status run();

private:
  // Header.
  /// "2.0": the file's format version.
  std::string theirVersion() const;
  Status checkHeader();
  Status checkVersion();
  Status checkFlatBufferRegion() const;
  Status checkDataRegion() const;

  // FlatBuffer.
  Status checkTables();

  // Machine description.
  Status resolveArch();
  Status checkDeviceArch();
  Status parseEmbeddedArch();

  // Weights file.
  /// Maps the weights file the tables name (if any) and checks that it is
  /// the one the .spy was compiled with (same key and data size).
  Status openWeightsFile();
  /// Where the weights file is: LoadOptions::weightsPath, else the name
  /// recorded, a bare one beside the .spy.
  std::string weightsFilePath(const std::string &recorded) const;

  // Segments.
  Status readSegments();
  Status checkSegment(const std::string &label, const SegmentInfo &info) const;

  // Tensors.
  Status readTensors();
  /// Role, dtype, io index and shape.
  Status readTensorType(const std::string &label, const spy::Tensor &t,
                        TensorInfo &info) const;
  /// The layout, and the size that follows from it.
  Status readTensorLayout(const std::string &label, const spy::Tensor &t,
                          TensorInfo &info) const;
  /// Alignment, and the data segment of a weight or constant (none for the
  /// other roles).
  Status checkTensorSegment(const std::string &label,
                            const TensorInfo &info) const;
  /// Records input or output tensor `index` at its io_index.
  Status registerIo(const std::string &label, uint32_t index,
                    uint32_t numTensors, const TensorInfo &info);
  Status checkWorkspacePlacement(const std::string &label,
                                 const TensorInfo &info) const;
  Status checkIoIndices() const;
  /// Outputs holding the new contents of a mutated input.
  Status checkInputAliases() const;
  /// Outputs holding the new contents of a mutated buffer (a weight).
  Status checkBufferUpdates() const;

  // Programs.
  Status readPrograms();
  Status readCodeSegment(const std::string &label, const spy::Program &p,
                         ProgramInfo &info) const;
  /// Cores, parameter slots and the per-core parameter table.
  Status readProgramParams(const std::string &label, const spy::Program &p,
                           ProgramInfo &info) const;

  // Relocations.
  Status readRelocations();
  /// Program, tensor and phase in range.
  Status checkRelocationIndices(const std::string &label,
                                const RelocationInfo &info) const;
  /// The patched field is the memAddr of an instruction that addresses
  /// device memory.
  Status checkRelocationField(const std::string &label,
                              const RelocationInfo &info) const;
  /// The phase suits the tensor's role and the addend stays inside it.
  Status checkRelocationTarget(const std::string &label,
                               const RelocationInfo &info) const;

  // Plan.
  Status readPlan();

  // Data.
  /// The digest segment is well formed and, with LoadOptions::verifyData,
  /// every other segment matches its digest.
  Status checkDigests();
  /// Segment `i`'s digest as the digest segment records it (little-endian).
  static uint64_t storedDigest(const uint8_t *digests, uint32_t i);
  /// The content digest of segment `i`, releasing its pages as it goes.
  uint64_t hashSegment(uint32_t i);
  /// The content hash of every segment but `skip`, hashed on up to
  /// `hardware_concurrency` threads (segments are independent; a 40-layer
  /// model's weights file is 16 GB).
  std::vector<uint64_t> hashSegments(uint32_t skip);
  /// What lives in segment `i` ("tensor 3 'fc1.weight'"), for messages.
  std::string segmentUsers(uint32_t i) const;

  Model &model_;
  const std::string &path_;
  const Arch *deviceArch_;
  const LoadOptions &options_;
  const uint8_t *file_;
  uint64_t fileSize_;
  spy::FileHeader header_;
  /// The verified tables (set by checkTables).
  const spy::Model *m_ = nullptr;
};

Status Model::Validator::run() {
  SPYRE_RETURN_IF_ERROR(checkHeader());
  SPYRE_RETURN_IF_ERROR(checkTables());
  SPYRE_RETURN_IF_ERROR(resolveArch());
  SPYRE_RETURN_IF_ERROR(openWeightsFile());
  SPYRE_RETURN_IF_ERROR(readSegments());
  SPYRE_RETURN_IF_ERROR(readTensors());
  SPYRE_RETURN_IF_ERROR(checkIoIndices());
  SPYRE_RETURN_IF_ERROR(checkInputAliases());
  SPYRE_RETURN_IF_ERROR(checkBufferUpdates());
  SPYRE_RETURN_IF_ERROR(readPrograms());
  SPYRE_RETURN_IF_ERROR(readRelocations());
  SPYRE_RETURN_IF_ERROR(readPlan());
  return checkDigests();
}

//===----------------------------------------------------------------------===//
// Header
//===----------------------------------------------------------------------===//

std::string Model::Validator::theirVersion() const {
  return std::to_string(header_.formatMajor) + "." +
         std::to_string(header_.formatMinor);
}

Status Model::Validator::checkHeader() {
  if (fileSize_ < sizeof(header_))
    return invalidFile("file is truncated: " + std::to_string(fileSize_) +
                       " bytes, shorter than the " +
                       std::to_string(sizeof(header_)) + "-byte .spy header");
  std::memcpy(&header_, file_, sizeof(header_));
  if (std::memcmp(header_.magic, spy::kMagic, sizeof(spy::kMagic)) != 0)
    return invalidFile("not a .spy file (bad magic)");
  SPYRE_RETURN_IF_ERROR(checkVersion());
  SPYRE_RETURN_IF_ERROR(checkFlatBufferRegion());
  SPYRE_RETURN_IF_ERROR(checkDataRegion());
  uint64_t checksum =
      spy::headerChecksum(header_, file_ + header_.flatbufferOffset);
  if (checksum != header_.checksum)
    return invalidFile("header checksum mismatch (stored " +
                       hex64(header_.checksum) + ", computed " +
                       hex64(checksum) + "): the file is corrupt");
  return Status::success();
}

Status Model::Validator::checkVersion() {
  std::string ours = std::to_string(spy::kFormatMajor) + "." +
                     std::to_string(spy::kFormatMinor);
  std::string theirs = theirVersion();
  if (header_.formatMajor < spy::kOldestFormatMajor ||
      header_.formatMajor > spy::kFormatMajor)
    return Status::error(
        StatusCode::VersionMismatch,
        "unsupported .spy format version " + theirs +
            ": this runtime reads format " + ours + " (major versions " +
            std::to_string(spy::kOldestFormatMajor) + " to " +
            std::to_string(spy::kFormatMajor) + "); recompile the model");
  if (header_.formatMajor == spy::kFormatMajor &&
      header_.formatMinor > spy::kFormatMinor)
    model_.warnings_.push_back(".spy format version " + theirs +
                               " is newer than this runtime's " + ours +
                               "; additions since " + ours + " are ignored");
  return Status::success();
}

Status Model::Validator::checkFlatBufferRegion() const {
  uint64_t fbOffset = header_.flatbufferOffset;
  uint64_t fbSize = header_.flatbufferSize;
  if (fbOffset < sizeof(header_) || fbOffset % spy::kFileAlignment != 0)
    return invalidFile("FlatBuffer offset " + std::to_string(fbOffset) +
                       " is not a multiple of " +
                       std::to_string(spy::kFileAlignment) +
                       " after the header");
  if (fbSize < 8 || fbSize >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return invalidFile("FlatBuffer size " + std::to_string(fbSize) +
                       " out of range");
  if (fbOffset > fileSize_ || fbSize > fileSize_ - fbOffset)
    return invalidFile("file is truncated: the FlatBuffer ends at byte " +
                       std::to_string(fbOffset + fbSize) + " of " +
                       std::to_string(fileSize_));
  return Status::success();
}

Status Model::Validator::checkDataRegion() const {
  uint64_t dataOffset = header_.dataOffset, dataSize = header_.dataSize;
  if (dataOffset % spy::kFileAlignment != 0 ||
      dataOffset < header_.flatbufferOffset + header_.flatbufferSize)
    return invalidFile("data area offset " + std::to_string(dataOffset) +
                       " is not aligned to " +
                       std::to_string(spy::kFileAlignment) +
                       " after the FlatBuffer");
  if (dataOffset > fileSize_ || dataSize > fileSize_ - dataOffset)
    return invalidFile("file is truncated: " + std::to_string(fileSize_) +
                       " bytes, but the data area ends at byte " +
                       (dataOffset > UINT64_MAX - dataSize
                            ? std::string("(overflow)")
                            : std::to_string(dataOffset + dataSize)));
  if (dataOffset + dataSize != fileSize_)
    return invalidFile("file has " +
                       std::to_string(fileSize_ - dataOffset - dataSize) +
                       " bytes after its data area");
  return Status::success();
}

//===----------------------------------------------------------------------===//
// FlatBuffer
//===----------------------------------------------------------------------===//

Status Model::Validator::checkTables() {
  const uint8_t *fb = file_ + header_.flatbufferOffset;
  flatbuffers::Verifier verifier(fb, size_t(header_.flatbufferSize),
                                 /*max_depth=*/64,
                                 /*max_tables=*/1u << 24);
  if (!spy::VerifyModelBuffer(verifier))
    return invalidFile("the model tables are malformed (FlatBuffers "
                       "verification failed)");
  m_ = spy::GetModel(fb);
  model_.dataArea_ = file_ + header_.dataOffset;
  model_.formatMajor_ = header_.formatMajor;
  model_.formatMinor_ = header_.formatMinor;
  model_.archHash_ = header_.archHash;
  if (m_->format_major() != header_.formatMajor ||
      m_->format_minor() != header_.formatMinor)
    return invalidFile("format version in the tables (" +
                       std::to_string(m_->format_major()) + "." +
                       std::to_string(m_->format_minor()) +
                       ") differs from the header's (" + theirVersion() + ")");
  if (m_->arch_hash() != header_.archHash)
    return invalidFile("arch hash in the tables differs from the header's");
  model_.archJson_ = str(m_->arch_json());
  if (const spy::Metadata *md = m_->metadata()) {
    ModelMetadata &out = model_.metadata_;
    out.sourceModel = str(md->source_model());
    out.compilerVersion = str(md->compiler_version());
    out.pipeline = str(md->pipeline());
    out.archName = str(md->arch_name());
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Machine description
//===----------------------------------------------------------------------===//

Status Model::Validator::resolveArch() {
  SPYRE_RETURN_IF_ERROR(deviceArch_ ? checkDeviceArch() : parseEmbeddedArch());
  model_.workspaceSize_ = m_->workspace_size();
  if (model_.workspaceSize_ > uint64_t(model_.arch_.memoryBytes))
    return invalidFile("workspace of " + std::to_string(model_.workspaceSize_) +
                       " bytes exceeds device memory (" +
                       std::to_string(model_.arch_.memoryBytes) + " bytes)");
  return Status::success();
}

Status Model::Validator::checkDeviceArch() {
  if (deviceArch_->hash() != header_.archHash) {
    const std::string &name = model_.metadata_.archName;
    std::string fileArch =
        name.empty() ? std::string("unnamed") : "'" + name + "'";
    return Status::error(StatusCode::ArchMismatch,
                         "model was compiled for machine description " +
                             fileArch + " (hash " + hex64(header_.archHash) +
                             ") but the device is '" + deviceArch_->name +
                             "' (hash " + hex64(deviceArch_->hash()) +
                             "); recompile for this device or run with --arch");
  }
  model_.arch_ = *deviceArch_;
  return Status::success();
}

Status Model::Validator::parseEmbeddedArch() {
  std::string error;
  Arch &arch = model_.arch_;
  if (!Arch::parse(model_.archJson_, arch, error))
    return invalidFile("embedded machine description is invalid: " + error);
  if (arch.hash() != header_.archHash)
    return invalidFile(
        "embedded machine description (hash " + hex64(arch.hash()) +
        ") does not match the file's arch hash " + hex64(header_.archHash));
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Weights file
//===----------------------------------------------------------------------===//

std::string
Model::Validator::weightsFilePath(const std::string &recorded) const {
  if (!options_.weightsPath.empty())
    return options_.weightsPath;
  if (recorded.find('/') != std::string::npos || path_.empty())
    return recorded;
  size_t slash = path_.rfind('/');
  return slash == std::string::npos ? recorded
                                    : path_.substr(0, slash + 1) + recorded;
}

Status Model::Validator::openWeightsFile() {
  const spy::WeightsFile *wf = m_->weights_file();
  if (!wf) {
    if (!options_.weightsPath.empty())
      model_.warnings_.push_back("weights file '" + options_.weightsPath +
                                 "' is not used: the model has its weights "
                                 "inside its .spy");
    return Status::success();
  }
  std::string recorded = str(wf->path());
  if (header_.formatMajor < 3 || recorded.empty())
    return invalidFile("the weights file record needs format 3.0 and a path");
  if (path_.empty() && options_.weightsPath.empty() &&
      recorded.find('/') == std::string::npos)
    return Status::error(StatusCode::InvalidArgument,
                         "the model names weights file '" + recorded +
                             "' beside its .spy, but was read from memory: "
                             "give its path (LoadOptions::weightsPath)");
  std::string path = weightsFilePath(recorded);
  std::string spyName =
      path_.empty() ? std::string("the model") : "'" + path_ + "'";
  Status s = FileMapping::map(path, model_.weights_);
  if (!s.ok())
    return Status::error(s.code(),
                         s.message() + " (the weights file the .spy names)");
  spy::WeightsIndex index;
  std::string error;
  if (!spy::parseWeightsIndex(model_.weights_->data(), model_.weights_->size(),
                              model_.weights_->size(), index, error))
    return invalidFile("weights file '" + path + "': " + error);
  if (index.key != wf->key() || index.dataSize != wf->data_size())
    return Status::error(
        StatusCode::InvalidFile,
        "weights file '" + path + "' (key " + hex64(index.key) + ", " +
            std::to_string(index.dataSize) + " bytes) is not the one " +
            spyName + " was compiled with (key " + hex64(wf->key()) + ", " +
            std::to_string(wf->data_size()) +
            " bytes): recompile, or pass the matching weights file");
  model_.weightsData_ = model_.weights_->data() + index.dataOffset;
  model_.weightsPath_ = path;
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Segments
//===----------------------------------------------------------------------===//

Status Model::Validator::readSegments() {
  const auto *segs = m_->segments();
  for (uint32_t i = 0; segs && i < segs->size(); ++i) {
    const spy::Segment *s = segs->Get(i);
    SegmentInfo info{s->offset(), s->size(), s->alignment(), s->external()};
    SPYRE_RETURN_IF_ERROR(checkSegment("segment " + std::to_string(i), info));
    model_.segments_.push_back(info);
  }
  return Status::success();
}

Status Model::Validator::checkSegment(const std::string &label,
                                      const SegmentInfo &info) const {
  if (info.external && !model_.weights_)
    return invalidFile(label + " is external, but the file names no weights "
                               "file");
  uint64_t dataSize =
      info.external ? m_->weights_file()->data_size() : header_.dataSize;
  if (!isPowerOfTwo(info.alignment) || info.alignment < isa::kInstBytes ||
      info.alignment > kMaxAlignment)
    return invalidFile(label + ": alignment " + std::to_string(info.alignment) +
                       " is not a power of two in [" +
                       std::to_string(isa::kInstBytes) + ", 2^30]");
  if (info.offset % info.alignment != 0)
    return invalidFile(label + ": offset " + std::to_string(info.offset) +
                       " is not aligned to " + std::to_string(info.alignment));
  if (info.offset > dataSize || info.size > dataSize - info.offset)
    return invalidFile(label + " [" + std::to_string(info.offset) + ", +" +
                       std::to_string(info.size) + ") lies outside the " +
                       std::to_string(dataSize) + "-byte data area" +
                       (info.external ? " of the weights file" : ""));
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

Status Model::Validator::readTensors() {
  const auto *ts = m_->tensors();
  for (uint32_t i = 0; ts && i < ts->size(); ++i) {
    const spy::Tensor *t = ts->Get(i);
    TensorInfo info;
    info.name = str(t->name());
    info.sourceName = str(t->source_name());
    std::string label = tensorLabel(i, info.name);
    SPYRE_RETURN_IF_ERROR(readTensorType(label, *t, info));
    SPYRE_RETURN_IF_ERROR(readTensorLayout(label, *t, info));
    info.segment = t->segment();
    info.workspaceOffset = t->workspace_offset();
    info.aliasesInput = t->aliases_input();
    info.updatesTensor = t->updates_tensor();
    SPYRE_RETURN_IF_ERROR(checkTensorSegment(label, info));
    SPYRE_RETURN_IF_ERROR(registerIo(label, i, ts->size(), info));
    SPYRE_RETURN_IF_ERROR(checkWorkspacePlacement(label, info));
    if (info.aliasesInput != -1 && info.role != Role::Output)
      return invalidFile(label + ": only outputs may alias an input");
    if (info.updatesTensor != -1 && info.role != Role::Output)
      return invalidFile(label + ": only outputs may update a buffer");
    model_.tensors_.push_back(std::move(info));
  }
  return Status::success();
}

Status Model::Validator::readTensorType(const std::string &label,
                                        const spy::Tensor &t,
                                        TensorInfo &info) const {
  if (uint8_t(t.role()) > uint8_t(Role::MAX))
    return invalidFile(label + ": invalid role " +
                       std::to_string(unsigned(t.role())));
  if (uint8_t(t.dtype()) > uint8_t(spy::DType::MAX))
    return invalidFile(label + ": invalid dtype " +
                       std::to_string(unsigned(t.dtype())));
  info.role = t.role();
  info.dtype = isa::DType(t.dtype());
  info.ioIndex = t.io_index();
  const spy::Layout *l = t.layout();
  if (!elementsAligned(t.shape()) ||
      (l && (!elementsAligned(l->padded_shape()) ||
             !elementsAligned(l->device_shape()))))
    return invalidFile(label + ": misaligned 64-bit vector");
  if (const auto *shape = t.shape()) {
    if (shape->size() > spy::kMaxRank)
      return invalidFile(label + ": rank " + std::to_string(shape->size()) +
                         " exceeds " + std::to_string(spy::kMaxRank));
    info.shape.assign(shape->begin(), shape->end());
  }
  return Status::success();
}

Status Model::Validator::readTensorLayout(const std::string &label,
                                          const spy::Tensor &t,
                                          TensorInfo &info) const {
  const spy::Layout *l = t.layout();
  if (!l)
    return invalidFile(label + ": missing layout");
  spy::TensorLayout &layout = info.layout;
  layout.stickDim = l->stick_dim();
  layout.elemsPerStick = l->elems_per_stick();
  if (!copyDims(l->dim_order(), layout.dimOrder) ||
      !copyDims(l->padded_shape(), layout.paddedShape) ||
      !copyDims(l->device_shape(), layout.deviceShape))
    return invalidFile(label + ": layout has too many dimensions");
  const Arch &arch = model_.arch_;
  std::string error;
  if (!layout.validate(info.dtype, info.shape, arch.stickBytes, error))
    return invalidFile(label + ": invalid layout: " + error);
  info.size = t.size();
  uint64_t expectedSize = layout.deviceBytes(info.dtype);
  if (info.size != expectedSize)
    return invalidFile(label + ": size " + std::to_string(info.size) +
                       " does not match its layout (" +
                       std::to_string(expectedSize) + " bytes)");
  if (info.size > uint64_t(arch.memoryBytes))
    return invalidFile(label + ": " + std::to_string(info.size) +
                       " bytes exceed device memory");
  info.alignment = t.alignment();
  return Status::success();
}

Status Model::Validator::checkTensorSegment(const std::string &label,
                                            const TensorInfo &info) const {
  if (!isPowerOfTwo(info.alignment) || info.alignment > kMaxAlignment)
    return invalidFile(label + ": alignment " + std::to_string(info.alignment) +
                       " is not a power of two up to 2^30");
  bool isData = info.role == Role::Weight || info.role == Role::Constant;
  if (!isData) {
    if (info.segment != -1)
      return invalidFile(label + ": a " + std::string(roleName(info.role)) +
                         " tensor cannot have a data segment");
    return Status::success();
  }
  const auto &segments = model_.segments_;
  if (info.segment < 0 || uint32_t(info.segment) >= segments.size())
    return invalidFile(label + ": segment " + std::to_string(info.segment) +
                       " out of range (the file has " +
                       std::to_string(segments.size()) + " segments)");
  const SegmentInfo &seg = segments[size_t(info.segment)];
  if (seg.size != info.size)
    return invalidFile(label + ": segment " + std::to_string(info.segment) +
                       " holds " + std::to_string(seg.size) + " bytes, the " +
                       roleName(info.role) + " needs exactly " +
                       std::to_string(info.size));
  return Status::success();
}

Status Model::Validator::registerIo(const std::string &label, uint32_t index,
                                    uint32_t numTensors,
                                    const TensorInfo &info) {
  bool isIo = info.role == Role::Input || info.role == Role::Output;
  if (!isIo) {
    if (info.ioIndex != -1)
      return invalidFile(label + ": a " + std::string(roleName(info.role)) +
                         " tensor cannot have an io_index");
    return Status::success();
  }
  if (info.ioIndex < 0)
    return invalidFile(label + ": " + roleName(info.role) +
                       " without an io_index");
  auto &list = info.role == Role::Input ? model_.inputs_ : model_.outputs_;
  if (uint32_t(info.ioIndex) >= numTensors)
    return invalidFile(label + ": io_index " + std::to_string(info.ioIndex) +
                       " out of range");
  if (list.size() <= size_t(info.ioIndex))
    list.resize(size_t(info.ioIndex) + 1, UINT32_MAX);
  if (list[size_t(info.ioIndex)] != UINT32_MAX)
    return invalidFile(label + ": duplicate " + roleName(info.role) +
                       " io_index " + std::to_string(info.ioIndex));
  list[size_t(info.ioIndex)] = index;
  return Status::success();
}

Status Model::Validator::checkWorkspacePlacement(const std::string &label,
                                                 const TensorInfo &info) const {
  if (info.role != Role::Workspace)
    return Status::success();
  uint64_t workspaceSize = model_.workspaceSize_;
  if (info.workspaceOffset % info.alignment != 0)
    return invalidFile(label + ": workspace offset " +
                       std::to_string(info.workspaceOffset) +
                       " is not aligned to " + std::to_string(info.alignment));
  if (info.workspaceOffset > workspaceSize ||
      info.size > workspaceSize - info.workspaceOffset)
    return invalidFile(label + ": [" + std::to_string(info.workspaceOffset) +
                       ", +" + std::to_string(info.size) +
                       ") does not fit in the " +
                       std::to_string(workspaceSize) + "-byte workspace");
  return Status::success();
}

Status Model::Validator::checkIoIndices() const {
  for (const auto *list : {&model_.inputs_, &model_.outputs_})
    for (size_t k = 0; k < list->size(); ++k)
      if ((*list)[k] == UINT32_MAX)
        return invalidFile(
            std::string(list == &model_.inputs_ ? "input" : "output") +
            " io_index " + std::to_string(k) +
            " is missing (indices must be 0..n-1)");
  return Status::success();
}

Status Model::Validator::checkInputAliases() const {
  const auto &tensors = model_.tensors_;
  const auto &inputs = model_.inputs_;
  for (uint32_t outIndex : model_.outputs_) {
    const TensorInfo &o = tensors[outIndex];
    if (o.aliasesInput == -1)
      continue;
    std::string label = tensorLabel(outIndex, o.name);
    if (o.aliasesInput < 0 || size_t(o.aliasesInput) >= inputs.size())
      return invalidFile(label + ": aliases input " +
                         std::to_string(o.aliasesInput) +
                         " out of range (the model has " +
                         std::to_string(inputs.size()) + " inputs)");
    const TensorInfo &in = tensors[inputs[size_t(o.aliasesInput)]];
    if (!sameType(in, o))
      return invalidFile(label + ": aliases input " +
                         std::to_string(o.aliasesInput) +
                         " of a different type or layout");
  }
  return Status::success();
}

Status Model::Validator::checkBufferUpdates() const {
  const auto &tensors = model_.tensors_;
  for (uint32_t outIndex : model_.outputs_) {
    const TensorInfo &o = tensors[outIndex];
    if (o.updatesTensor == -1)
      continue;
    std::string label = tensorLabel(outIndex, o.name);
    std::string target = ": updates tensor " + std::to_string(o.updatesTensor);
    if (o.updatesTensor < 0 || size_t(o.updatesTensor) >= tensors.size())
      return invalidFile(label + target + " out of range (the file has " +
                         std::to_string(tensors.size()) + " tensors)");
    if (o.aliasesInput != -1)
      return invalidFile(label + ": updates both an input and a buffer");
    const TensorInfo &buffer = tensors[size_t(o.updatesTensor)];
    if (buffer.role != Role::Weight)
      return invalidFile(label + target + ", which is not a weight (buffer)");
    if (!sameType(buffer, o))
      return invalidFile(label + target + " of a different type or layout");
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

Status Model::Validator::readPrograms() {
  const auto *ps = m_->programs();
  for (uint32_t i = 0; ps && i < ps->size(); ++i) {
    const spy::Program *p = ps->Get(i);
    ProgramInfo info;
    info.name = str(p->name());
    info.location = str(p->location());
    std::string label = programLabel(i, info.name);
    SPYRE_RETURN_IF_ERROR(readCodeSegment(label, *p, info));
    SPYRE_RETURN_IF_ERROR(readProgramParams(label, *p, info));
    std::string error;
    if (!verifyProgram(model_.segmentData(info.codeSegment), info.numInsts,
                       info.numCores, info.numParams, model_.arch_, error) ||
        !verifyRingMatching(model_.segmentData(info.codeSegment), info.numInsts,
                            info.numCores, info.numParams, info.params, error))
      return invalidFile(label + ": " + error);
    if (const spy::KernelReference *ref = p->reference()) {
      info.reference.emplace();
      if (!readKernelReference(*ref, model_.tensors_.size(), *info.reference,
                               error))
        return invalidFile(label + ": reference: " + error);
    }
    model_.programs_.push_back(std::move(info));
  }
  return Status::success();
}

Status Model::Validator::readCodeSegment(const std::string &label,
                                         const spy::Program &p,
                                         ProgramInfo &info) const {
  const auto &segments = model_.segments_;
  int32_t seg = p.code_segment();
  if (seg < 0 || uint32_t(seg) >= segments.size())
    return invalidFile(label + ": code segment " + std::to_string(seg) +
                       " out of range (the file has " +
                       std::to_string(segments.size()) + " segments)");
  info.codeSegment = uint32_t(seg);
  uint64_t codeBytes = segments[info.codeSegment].size;
  if (codeBytes % isa::kInstBytes != 0)
    return invalidFile(label + ": code segment size " +
                       std::to_string(codeBytes) + " is not a multiple of " +
                       std::to_string(isa::kInstBytes));
  if (codeBytes / isa::kInstBytes > UINT32_MAX)
    return invalidFile(label + ": too many instructions");
  info.numInsts = uint32_t(codeBytes / isa::kInstBytes);
  return Status::success();
}

Status Model::Validator::readProgramParams(const std::string &label,
                                           const spy::Program &p,
                                           ProgramInfo &info) const {
  const Arch &arch = model_.arch_;
  if (p.num_cores() < 1 || p.num_cores() > arch.cores)
    return invalidFile(label + ": num_cores " + std::to_string(p.num_cores()) +
                       " out of range (the device has " +
                       std::to_string(arch.cores) + " cores)");
  if (p.num_params() < 0 || p.num_params() >= isa::kNone)
    return invalidFile(label + ": num_params " +
                       std::to_string(p.num_params()) + " out of range [0, " +
                       std::to_string(isa::kNone - 1) + "]");
  info.numCores = uint32_t(p.num_cores());
  info.numParams = uint32_t(p.num_params());
  uint64_t expected = uint64_t(info.numCores) * info.numParams;
  uint64_t got = p.params() ? p.params()->size() : 0;
  if (got != expected)
    return invalidFile(label + ": " + std::to_string(got) +
                       " parameters, expected num_cores * num_params = " +
                       std::to_string(expected));
  if (!elementsAligned(p.params()))
    return invalidFile(label + ": misaligned parameter table");
  if (p.params())
    info.params.assign(p.params()->begin(), p.params()->end());
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Relocations
//===----------------------------------------------------------------------===//

Status Model::Validator::readRelocations() {
  const auto *rs = m_->relocations();
  if (!rs)
    return Status::success();
  if (rs->size() &&
      reinterpret_cast<uintptr_t>(rs->Data()) % alignof(spy::Relocation))
    return invalidFile("misaligned relocation table");
  std::set<std::pair<uint32_t, uint64_t>> patched;
  for (uint32_t i = 0; i < rs->size(); ++i) {
    const spy::Relocation *r = rs->Get(i);
    RelocationInfo info{r->program(), r->offset(), r->tensor(), r->addend(),
                        r->phase()};
    std::string label = "relocation " + std::to_string(i);
    SPYRE_RETURN_IF_ERROR(checkRelocationIndices(label, info));
    SPYRE_RETURN_IF_ERROR(checkRelocationField(label, info));
    SPYRE_RETURN_IF_ERROR(checkRelocationTarget(label, info));
    if (!patched.insert({info.program, info.offset}).second)
      return invalidFile(
          label + ": instruction " +
          std::to_string(info.offset / isa::kInstBytes) + " of " +
          programLabel(info.program, model_.programs_[info.program].name) +
          " is relocated twice");
    model_.relocations_.push_back(info);
  }
  return Status::success();
}

Status
Model::Validator::checkRelocationIndices(const std::string &label,
                                         const RelocationInfo &info) const {
  size_t numPrograms = model_.programs_.size();
  size_t numTensors = model_.tensors_.size();
  if (info.program >= numPrograms)
    return invalidFile(label + ": program " + std::to_string(info.program) +
                       " out of range (the file has " +
                       std::to_string(numPrograms) + " programs)");
  if (info.tensor >= numTensors)
    return invalidFile(label + ": tensor " + std::to_string(info.tensor) +
                       " out of range (the file has " +
                       std::to_string(numTensors) + " tensors)");
  if (uint8_t(info.phase) > uint8_t(Phase::MAX))
    return invalidFile(label + ": invalid phase " +
                       std::to_string(unsigned(info.phase)));
  return Status::success();
}

Status
Model::Validator::checkRelocationField(const std::string &label,
                                       const RelocationInfo &info) const {
  const ProgramInfo &prog = model_.programs_[info.program];
  uint64_t imageBytes = uint64_t(prog.numInsts) * isa::kInstBytes;
  if (info.offset % isa::kInstBytes != isa::kRelocFieldOffset ||
      info.offset >= imageBytes)
    return invalidFile(label + ": offset " + std::to_string(info.offset) +
                       " is not the memAddr field (byte " +
                       std::to_string(isa::kRelocFieldOffset) +
                       ") of an instruction of " +
                       programLabel(info.program, prog.name) + " (" +
                       std::to_string(prog.numInsts) + " instructions)");
  uint16_t opcode;
  std::memcpy(&opcode,
              model_.programImage(info.program) +
                  (info.offset - isa::kRelocFieldOffset),
              sizeof(opcode));
  if (!usesDeviceAddress(opcode))
    return invalidFile(label + ": instruction " +
                       std::to_string(info.offset / isa::kInstBytes) + " (" +
                       isa::opcodeName(opcode) +
                       ") does not address device memory");
  return Status::success();
}

Status
Model::Validator::checkRelocationTarget(const std::string &label,
                                        const RelocationInfo &info) const {
  const TensorInfo &t = model_.tensors_[info.tensor];
  if (t.role == Role::OnChip)
    return invalidFile(label + ": " + tensorLabel(info.tensor, t.name) +
                       " is kept on chip and has no device memory to "
                       "relocate to");
  Phase expected = spy::phaseForRole(t.role);
  if (info.phase != expected)
    return invalidFile(label + ": phase " + phaseName(info.phase) +
                       " is wrong for " + roleName(t.role) + " " +
                       tensorLabel(info.tensor, t.name) + " (expected " +
                       phaseName(expected) + ")");
  if (info.addend < 0 || uint64_t(info.addend) > t.size)
    return invalidFile(label + ": addend " + std::to_string(info.addend) +
                       " outside " + tensorLabel(info.tensor, t.name) + " (" +
                       std::to_string(t.size) + " bytes)");
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Plan
//===----------------------------------------------------------------------===//

Status Model::Validator::readPlan() {
  const auto *plan = m_->plan();
  size_t numPrograms = model_.programs_.size();
  for (uint32_t i = 0; plan && i < plan->size(); ++i) {
    const spy::Step *step = plan->Get(i);
    if (step->kind() != spy::StepKind::Run)
      return invalidFile("plan step " + std::to_string(i) + ": invalid kind " +
                         std::to_string(unsigned(step->kind())));
    if (step->program() >= numPrograms)
      return invalidFile("plan step " + std::to_string(i) + ": program " +
                         std::to_string(step->program()) +
                         " out of range (the file has " +
                         std::to_string(numPrograms) + " programs)");
    model_.plan_.push_back(step->program());
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

Status Model::Validator::checkDigests() {
  if (!spy::formatHasDigests(header_.formatMajor, header_.formatMinor)) {
    model_.warnings_.push_back(".spy format " + theirVersion() +
                               " has no segment digests: its data is not "
                               "verified; recompile to get them");
    return Status::success();
  }
  const std::vector<SegmentInfo> &segments = model_.segments_;
  int32_t ds = m_->digest_segment();
  uint64_t expected = segments.size() * sizeof(uint64_t);
  if (ds < 0 || uint32_t(ds) >= segments.size() ||
      segments[uint32_t(ds)].size != expected)
    return invalidFile("digest segment " + std::to_string(ds) +
                       " is missing or not " + std::to_string(expected) +
                       " bytes (one u64 per segment)");
  if (!options_.verifyData)
    return Status::success();
  const uint8_t *digests = model_.segmentData(uint32_t(ds));
  std::vector<uint64_t> hashes = hashSegments(uint32_t(ds));
  // In segment order: the first mismatch is the one reported, however the
  // threads ran.
  for (uint32_t i = 0; i < segments.size(); ++i) {
    if (int32_t(i) == ds)
      continue;
    uint64_t stored = storedDigest(digests, i);
    uint64_t actual = hashes[i];
    if (actual != stored && segments[i].external)
      return invalidFile(
          "segment " + std::to_string(i) + " (" + segmentUsers(i) +
          ") in weights file '" + model_.weightsPath_ +
          "' is not the data this .spy was compiled with: its content hash "
          "is " +
          hex64(actual) + ", the .spy records " + hex64(stored) +
          "; the weights file was changed after compilation: remove it and "
          "recompile");
    if (actual != stored)
      return invalidFile("segment " + std::to_string(i) + " (" +
                         segmentUsers(i) +
                         ") is corrupt: its content hash is " + hex64(actual) +
                         ", the file records " + hex64(stored));
  }
  return Status::success();
}

uint64_t Model::Validator::storedDigest(const uint8_t *digests, uint32_t i) {
  uint64_t stored = 0;
  for (size_t b = 0; b < sizeof(uint64_t); ++b)
    stored |= uint64_t(digests[i * sizeof(uint64_t) + b]) << (8 * b);
  return stored;
}

std::vector<uint64_t> Model::Validator::hashSegments(uint32_t skip) {
  size_t count = model_.segments_.size();
  std::vector<uint64_t> hashes(count, 0);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < count; i = next++)
      if (i != skip)
        hashes[i] = hashSegment(uint32_t(i));
  };
  size_t threads = std::min<size_t>(
      std::max(1u, std::thread::hardware_concurrency()), count);
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t)
    helpers.emplace_back(work);
  work();
  for (std::thread &h : helpers)
    h.join();
  return hashes;
}

uint64_t Model::Validator::hashSegment(uint32_t i) {
  // In pieces, each released once hashed: checking a 16 GB file does not
  // leave 16 GB resident.
  constexpr uint64_t kPiece = uint64_t(64) << 20;
  const SegmentInfo &segment = model_.segments_[i];
  const FileMapping &file =
      segment.external ? *model_.weights_ : *model_.mapping_;
  spy::SegmentDigest digest;
  const uint8_t *data = model_.segmentData(i);
  for (uint64_t at = 0; at < segment.size; at += kPiece) {
    uint64_t n = std::min(kPiece, segment.size - at);
    digest.update(data + at, size_t(n));
    file.release(uint64_t(data + at - file.data()), n);
  }
  return digest.digest();
}

std::string Model::Validator::segmentUsers(uint32_t i) const {
  std::string users;
  auto add = [&](const std::string &what) {
    users += (users.empty() ? "" : ", ") + what;
  };
  for (uint32_t t = 0; t < model_.tensors_.size(); ++t)
    if (model_.tensors_[t].segment == int32_t(i))
      add(tensorLabel(t, model_.tensors_[t].name));
  for (const ProgramInfo &p : model_.programs_)
    if (p.codeSegment == i)
      add("program '" + p.name + "'");
  return users.empty() ? "unused" : users;
}

Status Model::validate(const std::string &path, const Arch *deviceArch,
                       const LoadOptions &options) {
  return Validator(*this, path, deviceArch, options).run();
}

} // namespace spyre::rt
