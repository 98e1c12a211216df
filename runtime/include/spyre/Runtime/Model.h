//===- Model.h - A validated .spy model -------------------------*- C++ -*-===//
//
// The loader: maps a .spy file (or takes its bytes), validates all of it
// (docs/runtime.md lists every check) and exposes it as plain C++ values.
// Nothing is used before it is validated, and nothing in a malformed or
// hostile file can make the loader crash or read outside the file: every
// failure is a Status with a message naming the offending item.
//
// After open() succeeds the FlatBuffer is never touched again; only segment
// bytes (weights, constants, program images) are read from the mapping.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_MODEL_H
#define SPYRE_RUNTIME_MODEL_H

#include "spyre/Arch/Arch.h"
#include "spyre/ISA/ISA.h"
#include "spyre/Runtime/Status.h"
#include "spyre/Spy/KernelReference.h"
#include "spyre/Spy/Layout.h"
#include "spyre/Spy/spy_generated.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spyre::rt {

/// One tensor of the model.
struct TensorInfo {
  /// The unique symbol (`in0`, `cst_3`).
  std::string name;
  /// The model's name (an exported input/output name, a weight's FQN), or
  /// empty (files before format 2.1, compiler-made tensors).
  std::string sourceName;
  /// The name messages give: the model's when there is one.
  const std::string &displayName() const {
    return sourceName.empty() ? name : sourceName;
  }
  spy::Role role = spy::Role::Workspace;
  /// Position among the inputs (Input) or outputs (Output); -1 otherwise.
  int32_t ioIndex = -1;
  isa::DType dtype = isa::DType::F32;
  std::vector<int64_t> shape;
  spy::TensorLayout layout;
  /// Bytes of device memory (the device image).
  uint64_t size = 0;
  uint64_t alignment = 1;
  /// Weight/constant: the segment holding the device image; -1 otherwise.
  int32_t segment = -1;
  /// Workspace: offset inside the workspace.
  uint64_t workspaceOffset = 0;
  /// Output with the new contents of a mutated input: that input's io_index;
  /// -1 otherwise.
  int32_t aliasesInput = -1;
  /// Output with the new contents of a mutated buffer: the buffer's tensor
  /// index; -1 otherwise.
  int32_t updatesTensor = -1;
};

/// One program (kernel).
struct ProgramInfo {
  std::string name;
  std::string location;
  uint32_t codeSegment = 0;
  uint32_t numInsts = 0;
  uint32_t numCores = 1;
  uint32_t numParams = 0;
  /// numCores * numParams values, core-major.
  std::vector<int64_t> params;
  /// What the program computes (spyre-run --check), when the file says.
  std::optional<spy::KernelReferenceDesc> reference;
};

/// A data segment, relative to the file's data area.
struct SegmentInfo {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t alignment = 1;
  /// In the weights file (format 3.0), at `offset` of its data area.
  bool external = false;
};

/// A relocation: write tensorAddress + addend (u64) at byte `offset` of the
/// image of `program`, in `phase`.
struct RelocationInfo {
  uint32_t program = 0;
  uint64_t offset = 0;
  uint32_t tensor = 0;
  int64_t addend = 0;
  spy::Phase phase = spy::Phase::Load;
};

/// The metadata strings of the file.
struct ModelMetadata {
  std::string sourceModel;
  std::string compilerVersion;
  std::string pipeline;
  std::string archName;
};

/// How a model is loaded.
struct LoadOptions {
  /// Recompute the digest of every segment (format >= 2.2) and refuse a
  /// mismatch. Off (`spyre-run --no-verify`), the data is trusted as is.
  bool verifyData = true;
  /// The weights file of a model whose large weights are outside its .spy
  /// (format 3.0; `spyre-run --weights`). Empty: the file the .spy names,
  /// a bare name looked up beside the .spy.
  std::string weightsPath;
};

class FileMapping;

/// A validated, immutable .spy model.
class Model {
public:
  /// Maps and validates the file at `path`. With `deviceArch`, the file must
  /// have been compiled for it (same hash); without, the machine description
  /// embedded in the file is used (and must match the file's hash).
  static Status open(const std::string &path, const Arch *deviceArch,
                     std::unique_ptr<Model> &out,
                     const LoadOptions &options = LoadOptions());
  /// Validates a file held in memory (takes ownership of the bytes).
  static Status fromBuffer(std::vector<uint8_t> bytes, const Arch *deviceArch,
                           std::unique_ptr<Model> &out,
                           const LoadOptions &options = LoadOptions());

  ~Model();
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  uint32_t formatMajor() const { return formatMajor_; }
  uint32_t formatMinor() const { return formatMinor_; }
  uint64_t archHash() const { return archHash_; }
  /// The canonical JSON of the machine description the model was compiled
  /// for, as stored in the file.
  const std::string &archJson() const { return archJson_; }
  /// The machine description validated against.
  const Arch &arch() const { return arch_; }
  /// Non-fatal findings (e.g. a newer minor format version).
  const std::vector<std::string> &warnings() const { return warnings_; }

  const std::vector<TensorInfo> &tensors() const { return tensors_; }
  const std::vector<ProgramInfo> &programs() const { return programs_; }
  const std::vector<SegmentInfo> &segments() const { return segments_; }
  const std::vector<RelocationInfo> &relocations() const {
    return relocations_;
  }
  /// The launch plan: program indices, in order.
  const std::vector<uint32_t> &plan() const { return plan_; }
  const ModelMetadata &metadata() const { return metadata_; }
  uint64_t workspaceSize() const { return workspaceSize_; }

  /// Tensor indices of the inputs, by io_index.
  const std::vector<uint32_t> &inputs() const { return inputs_; }
  /// Tensor indices of the outputs, by io_index.
  const std::vector<uint32_t> &outputs() const { return outputs_; }

  /// The bytes of a segment (inside the mapped file).
  const uint8_t *segmentData(uint32_t segment) const;
  /// The instruction image of a program (numInsts * 128 bytes).
  const uint8_t *programImage(uint32_t program) const {
    return segmentData(programs_[program].codeSegment);
  }
  /// Total bytes of the file.
  uint64_t fileSize() const;
  /// The weights file the external segments were read from (empty: none).
  const std::string &weightsPath() const { return weightsPath_; }

private:
  class Validator;
  Model();
  /// `path`: where the .spy is (empty when read from a buffer), for the
  /// weights file it names.
  Status validate(const std::string &path, const Arch *deviceArch,
                  const LoadOptions &options);

  std::unique_ptr<FileMapping> mapping_;
  /// The weights file, when the model has one.
  std::unique_ptr<FileMapping> weights_;
  const uint8_t *weightsData_ = nullptr;
  std::string weightsPath_;
  const uint8_t *dataArea_ = nullptr;
  uint32_t formatMajor_ = 0, formatMinor_ = 0;
  uint64_t archHash_ = 0;
  std::string archJson_;
  Arch arch_;
  std::vector<std::string> warnings_;
  std::vector<TensorInfo> tensors_;
  std::vector<ProgramInfo> programs_;
  std::vector<SegmentInfo> segments_;
  std::vector<RelocationInfo> relocations_;
  std::vector<uint32_t> plan_;
  ModelMetadata metadata_;
  uint64_t workspaceSize_ = 0;
  std::vector<uint32_t> inputs_, outputs_;
};

/// Name of a role / phase for messages ("weight", "bind").
const char *roleName(spy::Role role);
const char *phaseName(spy::Phase phase);

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_MODEL_H
