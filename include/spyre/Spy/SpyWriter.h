//===- SpyWriter.h - Assembling .spy model files ----------------*- C++ -*-===//
//
// A builder for the .spy container (docs/spy-format.md): collect tensors,
// programs, relocations, the launch plan and metadata, then write header,
// FlatBuffer and data area in one pass. Plain C++ (FlatBuffers), no LLVM; the
// MLIR emitter and the runtime's tests both use it.
//
// The writer records what it is given and checks only what it needs to lay
// the file out; the runtime's loader is the validator (a writer that refused
// every inconsistency could not produce the malformed files its tests need).
// Output is deterministic: the same calls give byte-identical files.
//
// Typical use:
//
//   spyre::spy::SpyWriter w(arch);
//   uint32_t x = w.addTensor(inputDesc);
//   uint32_t wt = w.addTensor(weightDesc);
//   w.setTensorData(wt, std::move(deviceLayoutBytes));
//   uint32_t p = w.addProgram(program);
//   w.addRelocation(p, /*instIndex=*/3, x);          // phase from x's role
//   w.addStep(p);
//   if (!w.write("model.spy", error)) ...
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_SPY_SPYWRITER_H
#define SPYRE_SPY_SPYWRITER_H

#include "spyre/ISA/ISA.h"
#include "spyre/Spy/KernelReference.h"
#include "spyre/Spy/Layout.h"
#include "spyre/Spy/spy_generated.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace spyre {
struct Arch;
} // namespace spyre

namespace spyre::spy {

/// Produces `size` bytes of a data segment starting at byte `offset` into
/// `buffer`. The writer calls it with increasing offsets, in chunks (at most
/// SpyWriter::kStreamChunkBytes each), so that multi-GB weights never have
/// to be in memory at once. Returns false and sets `error` on failure.
using DataSource = std::function<bool(uint64_t offset, void *buffer,
                                      uint64_t size, std::string &error)>;

/// A tensor's data kept in the weights file (format 3.0, WeightsFile.h):
/// where its image is in that file's data area, and the SegmentDigest of
/// its bytes.
struct ExternalSegment {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t digest = 0;
};

/// Everything about one tensor except its data.
struct TensorDesc {
  std::string name;
  Role role = Role::Workspace;
  /// Position among the graph's inputs (Input) or outputs (Output), else -1.
  int32_t ioIndex = -1;
  isa::DType dtype = isa::DType::F32;
  std::vector<int64_t> shape;
  TensorLayout layout;
  /// Bytes in device memory; 0 = derive from the layout (product of
  /// deviceShape times the element size).
  uint64_t size = 0;
  /// Device memory alignment in bytes (a power of two).
  uint64_t alignment = 128;
  /// Workspace tensors: offset inside the workspace.
  uint64_t workspaceOffset = 0;
  /// Outputs holding a mutated input's new contents: its io_index, or -1.
  int32_t aliasesInput = -1;
  /// Outputs holding a mutated buffer's new contents: the buffer's tensor
  /// index, or -1.
  int32_t updatesTensor = -1;
  /// The model's name (an exported input/output name, a weight's FQN), or
  /// empty.
  std::string sourceName;
};

/// One program (the code of one kernel) with its per-core parameters.
struct ProgramDesc {
  std::string name;
  /// Source location of the kernel, for diagnostics and traces.
  std::string location;
  std::vector<isa::Inst> insts;
  int32_t numCores = 1;
  int32_t numParams = 0;
  /// numCores * numParams values, core-major.
  std::vector<int64_t> params;
  /// What the program computes (spyre-run --check), when known.
  std::optional<KernelReferenceDesc> reference;
};

/// Builds a .spy file in memory and writes it.
class SpyWriter {
public:
  /// Chunk size of DataSource calls (and of the file writes).
  static constexpr uint64_t kStreamChunkBytes = uint64_t(16) << 20;

  /// A writer for a model compiled for `arch` (its hash and canonical JSON
  /// go into the file; its name into the metadata).
  explicit SpyWriter(const Arch &arch);
  ~SpyWriter();
  SpyWriter(const SpyWriter &) = delete;
  SpyWriter &operator=(const SpyWriter &) = delete;

  /// Adds a tensor and returns its index. A zero `size` is derived from the
  /// layout.
  uint32_t addTensor(const TensorDesc &desc);
  /// Mutable access to an added tensor (to link it to a later one).
  TensorDesc &tensor(uint32_t index) { return tensors_[index]; }
  /// Sets the data (in device layout) of a weight or constant tensor.
  void setTensorData(uint32_t tensor, std::vector<uint8_t> bytes);
  /// Same, copying `size` bytes from `data`.
  void setTensorData(uint32_t tensor, const void *data, uint64_t size);
  /// Same, streamed: `source` is called at write time for `size` bytes.
  void setTensorData(uint32_t tensor, uint64_t size, DataSource source);
  /// Same, the data being in the weights file (setWeightsFile).
  void setExternalTensorData(uint32_t tensor, ExternalSegment segment);
  /// Names the weights file that holds the external data: `path` as the
  /// runtime should find it (a bare name: beside the .spy), its key and the
  /// size of its data area.
  void setWeightsFile(std::string path, uint64_t key, uint64_t dataSize);

  /// Adds a program and returns its index. Its instruction image becomes a
  /// code segment of the file.
  uint32_t addProgram(ProgramDesc desc);
  /// Mutable access to an added program (to patch instructions in place).
  ProgramDesc &program(uint32_t index) { return programs_[index]; }

  /// Relocates the memAddr field of instruction `instIndex` of `program` to
  /// the address of `tensor` plus `addend`, in the phase that the tensor's
  /// role implies (weight/constant: Load, workspace: Bind, input/output:
  /// Launch). The tensor must have been added.
  void addRelocation(uint32_t program, uint32_t instIndex, uint32_t tensor,
                     int64_t addend = 0);
  /// Adds a relocation record verbatim (byte offset into the program image
  /// and phase as given); for tools and tests.
  void addRawRelocation(uint32_t program, uint64_t offset, uint32_t tensor,
                        int64_t addend, Phase phase);

  /// Appends a step running `program` to the launch plan.
  void addStep(uint32_t program);

  /// Sets the metadata strings (the arch name comes from the Arch).
  void setMetadata(std::string sourceModel, std::string compilerVersion,
                   std::string pipeline);
  /// Bytes of the workspace that holds every workspace tensor.
  void setWorkspaceSize(uint64_t bytes) { workspaceSize_ = bytes; }
  /// Overrides the format version written (tests of version checks).
  void setFormatVersion(uint32_t major, uint32_t minor) {
    formatMajor_ = major;
    formatMinor_ = minor;
  }

  uint32_t numTensors() const { return uint32_t(tensors_.size()); }
  uint32_t numPrograms() const { return uint32_t(programs_.size()); }

  /// Writes the file to `path` (through a temporary file renamed into place).
  bool write(const std::string &path, std::string &error);
  /// Writes the file into `out`.
  bool writeToBuffer(std::vector<uint8_t> &out, std::string &error);
  /// Receives consecutive pieces of the file; false (with `error`) stops.
  using Sink =
      std::function<bool(const void *data, uint64_t size, std::string &error)>;
  /// Writes the file through `sink`.
  bool writeTo(const Sink &sink, std::string &error);

private:
  struct TensorData;
  struct SegmentPlan;
  struct DataLayout;
  class Emitter;

  /// Places code segments, then tensor data, in the data area.
  bool layOutData(DataLayout &layout, std::string &error) const;
  /// The FlatBuffer of the model, with the segments of `layout`.
  void buildTables(flatbuffers::FlatBufferBuilder &fbb,
                   const DataLayout &layout) const;
  /// Emits the bytes of one segment (`chunk` buffers streamed data).
  static bool emitSegment(const SegmentPlan &s, Emitter &out,
                          std::vector<uint8_t> &chunk, std::string &error);
  /// emitSegment, with `value` the digest of the bytes it emitted.
  static bool emitDigested(const SegmentPlan &s, Emitter &out,
                           std::vector<uint8_t> &chunk, uint64_t &value,
                           std::string &error);
  /// Emits every segment of the data area at file offset `dataOffset`, the
  /// digest segment with the digests of the segments before it.
  static bool emitDataArea(const DataLayout &layout, uint64_t dataOffset,
                           Emitter &out, std::string &error);
  struct Relocation {
    uint32_t program;
    uint64_t offset;
    uint32_t tensor;
    int64_t addend;
    Phase phase;
  };

  uint64_t archHash_;
  std::string archJson_;
  std::string archName_;
  uint32_t formatMajor_;
  uint32_t formatMinor_;
  std::vector<TensorDesc> tensors_;
  std::vector<TensorData> tensorData_;
  std::vector<ProgramDesc> programs_;
  std::vector<Relocation> relocations_;
  std::vector<uint32_t> plan_;
  std::string sourceModel_, compilerVersion_, pipeline_;
  std::string weightsPath_;
  uint64_t weightsKey_ = 0, weightsDataSize_ = 0;
  uint64_t workspaceSize_ = 0;
};

/// The relocation phase implied by a tensor role (weight/constant: Load,
/// workspace: Bind, input/output: Launch).
Phase phaseForRole(Role role);

} // namespace spyre::spy

#endif // SPYRE_SPY_SPYWRITER_H
