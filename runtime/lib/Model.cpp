//===- Model.cpp - Mapping and validating .spy files ----------------------===//
//
// Order of the checks: header (size, magic, version, region bounds,
// checksum), FlatBuffers verifier, model fields against the header, machine
// description, then every table (segments, tensors, programs and their
// instructions, relocations, plan). Each check runs before anything depends
// on what it checks; all arithmetic on file values is overflow-checked.
//
//===----------------------------------------------------------------------===//

#include "spyre/Runtime/Model.h"

#include "spyre/Runtime/ProgramVerifier.h"
#include "spyre/Spy/SpyFormat.h"
#include "spyre/Spy/SpyWriter.h"
#include "spyre/Support/MathExtras.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <set>
#include <utility>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the .spy format and the runtime assume a little-endian host");

namespace spyre::rt {

using spy::Phase;
using spy::Role;

/// The bytes of a file: mapped, or owned.
class Model::Mapping {
public:
  ~Mapping() {
    if (mapped_)
      ::munmap(mapped_, size_);
  }
  static Status map(const std::string &path, std::unique_ptr<Mapping> &out) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return Status::error(StatusCode::IoError, "cannot open '" + path +
                                                    "': " +
                                                    std::strerror(errno));
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return Status::error(StatusCode::IoError,
                           "'" + path + "' is not a regular file");
    }
    auto m = std::unique_ptr<Mapping>(new Mapping());
    m->size_ = uint64_t(st.st_size);
    if (m->size_ > 0) {
      void *p = ::mmap(nullptr, m->size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        ::close(fd);
        return Status::error(StatusCode::IoError, "cannot map '" + path +
                                                      "': " +
                                                      std::strerror(errno));
      }
      m->mapped_ = p;
      m->data_ = static_cast<const uint8_t *>(p);
    }
    ::close(fd);
    out = std::move(m);
    return Status::success();
  }
  static std::unique_ptr<Mapping> own(std::vector<uint8_t> bytes) {
    auto m = std::unique_ptr<Mapping>(new Mapping());
    m->owned_ = std::move(bytes);
    m->data_ = m->owned_.data();
    m->size_ = m->owned_.size();
    return m;
  }
  const uint8_t *data() const { return data_; }
  uint64_t size() const { return size_; }

private:
  Mapping() = default;
  void *mapped_ = nullptr;
  std::vector<uint8_t> owned_;
  const uint8_t *data_ = nullptr;
  uint64_t size_ = 0;
};

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
  return dataArea_ + segments_[segment].offset;
}

Status Model::open(const std::string &path, const Arch *deviceArch,
                   std::unique_ptr<Model> &out) {
  std::unique_ptr<Mapping> mapping;
  Status s = Mapping::map(path, mapping);
  if (!s.ok())
    return s;
  auto model = std::unique_ptr<Model>(new Model());
  model->mapping_ = std::move(mapping);
  try {
    s = model->validate(deviceArch);
  } catch (const std::bad_alloc &) {
    s = Status::error(StatusCode::OutOfMemory, "out of host memory");
  }
  if (!s.ok())
    return s.withContext(path);
  out = std::move(model);
  return Status::success();
}

Status Model::fromBuffer(std::vector<uint8_t> bytes, const Arch *deviceArch,
                         std::unique_ptr<Model> &out) {
  auto model = std::unique_ptr<Model>(new Model());
  model->mapping_ = Mapping::own(std::move(bytes));
  Status s;
  try {
    s = model->validate(deviceArch);
  } catch (const std::bad_alloc &) {
    s = Status::error(StatusCode::OutOfMemory, "out of host memory");
  }
  if (!s.ok())
    return s;
  out = std::move(model);
  return Status::success();
}

Status Model::validate(const Arch *deviceArch) {
  const uint8_t *file = mapping_->data();
  uint64_t fileSize = mapping_->size();

  //===--- Header. --------------------------------------------------------===//
  spy::FileHeader header;
  if (fileSize < sizeof(header))
    return invalidFile("file is truncated: " + std::to_string(fileSize) +
                       " bytes, shorter than the " +
                       std::to_string(sizeof(header)) + "-byte .spy header");
  std::memcpy(&header, file, sizeof(header));
  if (std::memcmp(header.magic, spy::kMagic, sizeof(spy::kMagic)) != 0)
    return invalidFile("not a .spy file (bad magic)");
  std::string ours = std::to_string(spy::kFormatMajor) + "." +
                     std::to_string(spy::kFormatMinor);
  std::string theirs = std::to_string(header.formatMajor) + "." +
                       std::to_string(header.formatMinor);
  if (header.formatMajor != spy::kFormatMajor)
    return Status::error(StatusCode::VersionMismatch,
                         "unsupported .spy format version " + theirs +
                             ": this runtime reads format " + ours +
                             " (major version " +
                             std::to_string(spy::kFormatMajor) +
                             "); recompile the model");
  if (header.formatMinor > spy::kFormatMinor)
    warnings_.push_back(".spy format version " + theirs +
                        " is newer than this runtime's " + ours +
                        "; additions since " + ours + " are ignored");
  uint64_t fbOffset = header.flatbufferOffset, fbSize = header.flatbufferSize;
  if (fbOffset < sizeof(header) || fbOffset % spy::kFileAlignment != 0)
    return invalidFile("FlatBuffer offset " + std::to_string(fbOffset) +
                       " is not a multiple of " +
                       std::to_string(spy::kFileAlignment) +
                       " after the header");
  if (fbSize < 8 || fbSize >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return invalidFile("FlatBuffer size " + std::to_string(fbSize) +
                       " out of range");
  if (fbOffset > fileSize || fbSize > fileSize - fbOffset)
    return invalidFile("file is truncated: the FlatBuffer ends at byte " +
                       std::to_string(fbOffset + fbSize) + " of " +
                       std::to_string(fileSize));
  uint64_t dataOffset = header.dataOffset, dataSize = header.dataSize;
  if (dataOffset % spy::kFileAlignment != 0 || dataOffset < fbOffset + fbSize)
    return invalidFile("data area offset " + std::to_string(dataOffset) +
                       " is not aligned to " +
                       std::to_string(spy::kFileAlignment) +
                       " after the FlatBuffer");
  if (dataOffset > fileSize || dataSize > fileSize - dataOffset)
    return invalidFile("file is truncated: " + std::to_string(fileSize) +
                       " bytes, but the data area ends at byte " +
                       (dataOffset > UINT64_MAX - dataSize
                            ? std::string("(overflow)")
                            : std::to_string(dataOffset + dataSize)));
  if (dataOffset + dataSize != fileSize)
    return invalidFile("file has " +
                       std::to_string(fileSize - dataOffset - dataSize) +
                       " bytes after its data area");
  const uint8_t *fb = file + fbOffset;
  uint64_t checksum = spy::headerChecksum(header, fb);
  if (checksum != header.checksum)
    return invalidFile("header checksum mismatch (stored " +
                       hex64(header.checksum) + ", computed " +
                       hex64(checksum) + "): the file is corrupt");

  //===--- FlatBuffer. ----------------------------------------------------===//
  flatbuffers::Verifier verifier(fb, size_t(fbSize), /*max_depth=*/64,
                                 /*max_tables=*/1u << 24);
  if (!spy::VerifyModelBuffer(verifier))
    return invalidFile("the model tables are malformed (FlatBuffers "
                       "verification failed)");
  const spy::Model *m = spy::GetModel(fb);
  dataArea_ = file + dataOffset;
  formatMajor_ = header.formatMajor;
  formatMinor_ = header.formatMinor;
  archHash_ = header.archHash;
  if (m->format_major() != header.formatMajor ||
      m->format_minor() != header.formatMinor)
    return invalidFile("format version in the tables (" +
                       std::to_string(m->format_major()) + "." +
                       std::to_string(m->format_minor()) +
                       ") differs from the header's (" + theirs + ")");
  if (m->arch_hash() != header.archHash)
    return invalidFile("arch hash in the tables differs from the header's");
  archJson_ = str(m->arch_json());
  if (const spy::Metadata *md = m->metadata()) {
    metadata_.sourceModel = str(md->source_model());
    metadata_.compilerVersion = str(md->compiler_version());
    metadata_.pipeline = str(md->pipeline());
    metadata_.archName = str(md->arch_name());
  }

  //===--- Machine description. -------------------------------------------===//
  if (deviceArch) {
    if (deviceArch->hash() != header.archHash) {
      std::string fileArch = metadata_.archName.empty()
                                 ? std::string("unnamed")
                                 : "'" + metadata_.archName + "'";
      return Status::error(
          StatusCode::ArchMismatch,
          "model was compiled for machine description " + fileArch +
              " (hash " + hex64(header.archHash) +
              ") but the device is '" + deviceArch->name + "' (hash " +
              hex64(deviceArch->hash()) +
              "); recompile for this device or run with --arch");
    }
    arch_ = *deviceArch;
  } else {
    std::string error;
    if (!Arch::parse(archJson_, arch_, error))
      return invalidFile("embedded machine description is invalid: " + error);
    if (arch_.hash() != header.archHash)
      return invalidFile("embedded machine description (hash " +
                         hex64(arch_.hash()) +
                         ") does not match the file's arch hash " +
                         hex64(header.archHash));
  }
  const Arch &arch = arch_;
  workspaceSize_ = m->workspace_size();
  if (workspaceSize_ > uint64_t(arch.memoryBytes))
    return invalidFile("workspace of " + std::to_string(workspaceSize_) +
                       " bytes exceeds device memory (" +
                       std::to_string(arch.memoryBytes) + " bytes)");

  //===--- Segments. ------------------------------------------------------===//
  if (const auto *segs = m->segments()) {
    for (uint32_t i = 0; i < segs->size(); ++i) {
      const spy::Segment *s = segs->Get(i);
      std::string label = "segment " + std::to_string(i);
      SegmentInfo info{s->offset(), s->size(), s->alignment()};
      if (!isPowerOfTwo(info.alignment) || info.alignment < isa::kInstBytes ||
          info.alignment > kMaxAlignment)
        return invalidFile(label + ": alignment " +
                           std::to_string(info.alignment) +
                           " is not a power of two in [" +
                           std::to_string(isa::kInstBytes) + ", 2^30]");
      if (info.offset % info.alignment != 0)
        return invalidFile(label + ": offset " + std::to_string(info.offset) +
                           " is not aligned to " +
                           std::to_string(info.alignment));
      if (info.offset > dataSize || info.size > dataSize - info.offset)
        return invalidFile(label + " [" + std::to_string(info.offset) +
                           ", +" + std::to_string(info.size) +
                           ") lies outside the " + std::to_string(dataSize) +
                           "-byte data area");
      segments_.push_back(info);
    }
  }

  //===--- Tensors. -------------------------------------------------------===//
  if (const auto *ts = m->tensors()) {
    for (uint32_t i = 0; i < ts->size(); ++i) {
      const spy::Tensor *t = ts->Get(i);
      TensorInfo info;
      info.name = str(t->name());
      std::string label = tensorLabel(i, info.name);
      if (uint8_t(t->role()) > uint8_t(Role::MAX))
        return invalidFile(label + ": invalid role " +
                           std::to_string(unsigned(t->role())));
      if (uint8_t(t->dtype()) > uint8_t(spy::DType::MAX))
        return invalidFile(label + ": invalid dtype " +
                           std::to_string(unsigned(t->dtype())));
      info.role = t->role();
      info.dtype = isa::DType(t->dtype());
      info.ioIndex = t->io_index();
      const spy::Layout *l = t->layout();
      if (!elementsAligned(t->shape()) ||
          (l && (!elementsAligned(l->padded_shape()) ||
                 !elementsAligned(l->device_shape()))))
        return invalidFile(label + ": misaligned 64-bit vector");
      if (const auto *shape = t->shape()) {
        if (shape->size() > spy::kMaxRank)
          return invalidFile(label + ": rank " +
                             std::to_string(shape->size()) + " exceeds " +
                             std::to_string(spy::kMaxRank));
        info.shape.assign(shape->begin(), shape->end());
      }
      if (!l)
        return invalidFile(label + ": missing layout");
      info.layout.stickDim = l->stick_dim();
      info.layout.elemsPerStick = l->elems_per_stick();
      auto copyDims = [&](const auto *v, auto &dst) {
        if (!v)
          return true;
        if (v->size() > spy::kMaxRank + 1)
          return false;
        dst.assign(v->begin(), v->end());
        return true;
      };
      if (!copyDims(l->dim_order(), info.layout.dimOrder) ||
          !copyDims(l->padded_shape(), info.layout.paddedShape) ||
          !copyDims(l->device_shape(), info.layout.deviceShape))
        return invalidFile(label + ": layout has too many dimensions");
      std::string error;
      if (!info.layout.validate(info.dtype, info.shape, arch.stickBytes,
                                error))
        return invalidFile(label + ": invalid layout: " + error);
      info.size = t->size();
      uint64_t expectedSize = info.layout.deviceBytes(info.dtype);
      if (info.size != expectedSize)
        return invalidFile(label + ": size " + std::to_string(info.size) +
                           " does not match its layout (" +
                           std::to_string(expectedSize) + " bytes)");
      if (info.size > uint64_t(arch.memoryBytes))
        return invalidFile(label + ": " + std::to_string(info.size) +
                           " bytes exceed device memory");
      info.alignment = t->alignment();
      if (!isPowerOfTwo(info.alignment) || info.alignment > kMaxAlignment)
        return invalidFile(label + ": alignment " +
                           std::to_string(info.alignment) +
                           " is not a power of two up to 2^30");
      info.segment = t->segment();
      info.workspaceOffset = t->workspace_offset();
      info.aliasesInput = t->aliases_input();
      info.updatesTensor = t->updates_tensor();
      bool isData = info.role == Role::Weight || info.role == Role::Constant;
      if (isData) {
        if (info.segment < 0 || uint32_t(info.segment) >= segments_.size())
          return invalidFile(label + ": segment " +
                             std::to_string(info.segment) +
                             " out of range (the file has " +
                             std::to_string(segments_.size()) +
                             " segments)");
        const SegmentInfo &seg = segments_[size_t(info.segment)];
        if (seg.size != info.size)
          return invalidFile(label + ": segment " +
                             std::to_string(info.segment) + " holds " +
                             std::to_string(seg.size) + " bytes, the " +
                             roleName(info.role) + " needs exactly " +
                             std::to_string(info.size));
      } else if (info.segment != -1) {
        return invalidFile(label + ": a " + std::string(roleName(info.role)) +
                           " tensor cannot have a data segment");
      }
      bool isIo = info.role == Role::Input || info.role == Role::Output;
      if (isIo) {
        if (info.ioIndex < 0)
          return invalidFile(label + ": " + roleName(info.role) +
                             " without an io_index");
        auto &list = info.role == Role::Input ? inputs_ : outputs_;
        if (uint32_t(info.ioIndex) >= ts->size())
          return invalidFile(label + ": io_index " +
                             std::to_string(info.ioIndex) + " out of range");
        if (list.size() <= size_t(info.ioIndex))
          list.resize(size_t(info.ioIndex) + 1, UINT32_MAX);
        if (list[size_t(info.ioIndex)] != UINT32_MAX)
          return invalidFile(label + ": duplicate " + roleName(info.role) +
                             " io_index " + std::to_string(info.ioIndex));
        list[size_t(info.ioIndex)] = i;
      } else if (info.ioIndex != -1) {
        return invalidFile(label + ": a " + std::string(roleName(info.role)) +
                           " tensor cannot have an io_index");
      }
      if (info.role == Role::Workspace) {
        if (info.workspaceOffset % info.alignment != 0)
          return invalidFile(label + ": workspace offset " +
                             std::to_string(info.workspaceOffset) +
                             " is not aligned to " +
                             std::to_string(info.alignment));
        if (info.workspaceOffset > workspaceSize_ ||
            info.size > workspaceSize_ - info.workspaceOffset)
          return invalidFile(label + ": [" +
                             std::to_string(info.workspaceOffset) + ", +" +
                             std::to_string(info.size) +
                             ") does not fit in the " +
                             std::to_string(workspaceSize_) +
                             "-byte workspace");
      }
      if (info.aliasesInput != -1 && info.role != Role::Output)
        return invalidFile(label + ": only outputs may alias an input");
      if (info.updatesTensor != -1 && info.role != Role::Output)
        return invalidFile(label + ": only outputs may update a buffer");
      tensors_.push_back(std::move(info));
    }
  }
  for (auto *list : {&inputs_, &outputs_})
    for (size_t k = 0; k < list->size(); ++k)
      if ((*list)[k] == UINT32_MAX)
        return invalidFile(std::string(list == &inputs_ ? "input" : "output") +
                           " io_index " + std::to_string(k) +
                           " is missing (indices must be 0..n-1)");
  for (uint32_t outIndex : outputs_) {
    const TensorInfo &o = tensors_[outIndex];
    if (o.aliasesInput == -1)
      continue;
    std::string label = tensorLabel(outIndex, o.name);
    if (o.aliasesInput < 0 || size_t(o.aliasesInput) >= inputs_.size())
      return invalidFile(label + ": aliases input " +
                         std::to_string(o.aliasesInput) +
                         " out of range (the model has " +
                         std::to_string(inputs_.size()) + " inputs)");
    const TensorInfo &in = tensors_[inputs_[size_t(o.aliasesInput)]];
    if (in.dtype != o.dtype || in.shape != o.shape || in.layout != o.layout)
      return invalidFile(label + ": aliases input " +
                         std::to_string(o.aliasesInput) +
                         " of a different type or layout");
  }
  for (uint32_t outIndex : outputs_) {
    const TensorInfo &o = tensors_[outIndex];
    if (o.updatesTensor == -1)
      continue;
    std::string label = tensorLabel(outIndex, o.name);
    if (o.updatesTensor < 0 || size_t(o.updatesTensor) >= tensors_.size())
      return invalidFile(label + ": updates tensor " +
                         std::to_string(o.updatesTensor) +
                         " out of range (the file has " +
                         std::to_string(tensors_.size()) + " tensors)");
    if (o.aliasesInput != -1)
      return invalidFile(label + ": updates both an input and a buffer");
    const TensorInfo &buffer = tensors_[size_t(o.updatesTensor)];
    if (buffer.role != Role::Weight)
      return invalidFile(label + ": updates tensor " +
                         std::to_string(o.updatesTensor) +
                         ", which is not a weight (buffer)");
    if (buffer.dtype != o.dtype || buffer.shape != o.shape ||
        buffer.layout != o.layout)
      return invalidFile(label + ": updates tensor " +
                         std::to_string(o.updatesTensor) +
                         " of a different type or layout");
  }

  //===--- Programs. ------------------------------------------------------===//
  if (const auto *ps = m->programs()) {
    for (uint32_t i = 0; i < ps->size(); ++i) {
      const spy::Program *p = ps->Get(i);
      ProgramInfo info;
      info.name = str(p->name());
      info.location = str(p->location());
      std::string label = programLabel(i, info.name);
      int32_t seg = p->code_segment();
      if (seg < 0 || uint32_t(seg) >= segments_.size())
        return invalidFile(label + ": code segment " + std::to_string(seg) +
                           " out of range (the file has " +
                           std::to_string(segments_.size()) + " segments)");
      info.codeSegment = uint32_t(seg);
      uint64_t codeBytes = segments_[info.codeSegment].size;
      if (codeBytes % isa::kInstBytes != 0)
        return invalidFile(label + ": code segment size " +
                           std::to_string(codeBytes) +
                           " is not a multiple of " +
                           std::to_string(isa::kInstBytes));
      if (codeBytes / isa::kInstBytes > UINT32_MAX)
        return invalidFile(label + ": too many instructions");
      info.numInsts = uint32_t(codeBytes / isa::kInstBytes);
      if (p->num_cores() < 1 || p->num_cores() > arch.cores)
        return invalidFile(label + ": num_cores " +
                           std::to_string(p->num_cores()) +
                           " out of range (the device has " +
                           std::to_string(arch.cores) + " cores)");
      if (p->num_params() < 0 || p->num_params() >= isa::kNone)
        return invalidFile(label + ": num_params " +
                           std::to_string(p->num_params()) +
                           " out of range [0, " +
                           std::to_string(isa::kNone - 1) + "]");
      info.numCores = uint32_t(p->num_cores());
      info.numParams = uint32_t(p->num_params());
      uint64_t expected = uint64_t(info.numCores) * info.numParams;
      uint64_t got = p->params() ? p->params()->size() : 0;
      if (got != expected)
        return invalidFile(label + ": " + std::to_string(got) +
                           " parameters, expected num_cores * num_params = " +
                           std::to_string(expected));
      if (!elementsAligned(p->params()))
        return invalidFile(label + ": misaligned parameter table");
      if (p->params())
        info.params.assign(p->params()->begin(), p->params()->end());
      std::string error;
      if (!verifyProgram(segmentData(info.codeSegment), info.numInsts,
                         info.numCores, info.numParams, arch, error))
        return invalidFile(label + ": " + error);
      programs_.push_back(std::move(info));
    }
  }

  //===--- Relocations. ---------------------------------------------------===//
  if (const auto *rs = m->relocations()) {
    if (rs->size() &&
        reinterpret_cast<uintptr_t>(rs->Data()) % alignof(spy::Relocation))
      return invalidFile("misaligned relocation table");
    std::set<std::pair<uint32_t, uint64_t>> patched;
    for (uint32_t i = 0; i < rs->size(); ++i) {
      const spy::Relocation *r = rs->Get(i);
      std::string label = "relocation " + std::to_string(i);
      RelocationInfo info{r->program(), r->offset(), r->tensor(), r->addend(),
                          r->phase()};
      if (info.program >= programs_.size())
        return invalidFile(label + ": program " +
                           std::to_string(info.program) +
                           " out of range (the file has " +
                           std::to_string(programs_.size()) + " programs)");
      if (info.tensor >= tensors_.size())
        return invalidFile(label + ": tensor " + std::to_string(info.tensor) +
                           " out of range (the file has " +
                           std::to_string(tensors_.size()) + " tensors)");
      if (uint8_t(info.phase) > uint8_t(Phase::MAX))
        return invalidFile(label + ": invalid phase " +
                           std::to_string(unsigned(info.phase)));
      const ProgramInfo &prog = programs_[info.program];
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
                  programImage(info.program) +
                      (info.offset - isa::kRelocFieldOffset),
                  sizeof(opcode));
      if (!usesDeviceAddress(opcode))
        return invalidFile(label + ": instruction " +
                           std::to_string(info.offset / isa::kInstBytes) +
                           " (" + isa::opcodeName(opcode) +
                           ") does not address device memory");
      const TensorInfo &t = tensors_[info.tensor];
      Phase expected = spy::phaseForRole(t.role);
      if (info.phase != expected)
        return invalidFile(label + ": phase " + phaseName(info.phase) +
                           " is wrong for " + roleName(t.role) + " " +
                           tensorLabel(info.tensor, t.name) + " (expected " +
                           phaseName(expected) + ")");
      if (info.addend < 0 || uint64_t(info.addend) > t.size)
        return invalidFile(label + ": addend " + std::to_string(info.addend) +
                           " outside " + tensorLabel(info.tensor, t.name) +
                           " (" + std::to_string(t.size) + " bytes)");
      if (!patched.insert({info.program, info.offset}).second)
        return invalidFile(label + ": instruction " +
                           std::to_string(info.offset / isa::kInstBytes) +
                           " of " + programLabel(info.program, prog.name) +
                           " is relocated twice");
      relocations_.push_back(info);
    }
  }

  //===--- Plan. ----------------------------------------------------------===//
  if (const auto *plan = m->plan()) {
    for (uint32_t i = 0; i < plan->size(); ++i) {
      const spy::Step *step = plan->Get(i);
      if (step->kind() != spy::StepKind::Run)
        return invalidFile("plan step " + std::to_string(i) +
                           ": invalid kind " +
                           std::to_string(unsigned(step->kind())));
      if (step->program() >= programs_.size())
        return invalidFile("plan step " + std::to_string(i) + ": program " +
                           std::to_string(step->program()) +
                           " out of range (the file has " +
                           std::to_string(programs_.size()) + " programs)");
      plan_.push_back(step->program());
    }
  }
  return Status::success();
}

} // namespace spyre::rt
