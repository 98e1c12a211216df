//===- Passes.h - spyre passes ----------------------------------*- C++ -*-===//

#ifndef SPYRE_TRANSFORMS_PASSES_H
#define SPYRE_TRANSFORMS_PASSES_H

#include "spyre/Dialect/Spyre/SpyreOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace spyre {

#define GEN_PASS_DECL
#include "spyre/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "spyre/Transforms/Passes.h.inc"

/// Options of the whole pipeline (`--spyre-pipeline="..."`).
struct PipelineOptions : public mlir::PassPipelineOptions<PipelineOptions> {
  Option<std::string> archFile{
      *this, "arch",
      llvm::cl::desc("Machine description JSON (default: built-in)"),
      llvm::cl::init("")};
  Option<int64_t> maxCores{
      *this, "max-cores",
      llvm::cl::desc("Most cores one kernel may use (0: all)"),
      llvm::cl::init(0)};
  Option<int64_t> depth{*this, "depth",
                        llvm::cl::desc("Rotating buffers per streamed input"),
                        llvm::cl::init(2)};
  Option<std::string> cacheDir{
      *this, "cache-dir",
      llvm::cl::desc("Directory of schedules kept across compiles (empty: "
                     "none)"),
      llvm::cl::init("")};
  Option<bool> fusion{
      *this, "fusion",
      llvm::cl::desc("Fuse consumers into their producers' kernels (false: "
                     "the unfused baseline)"),
      llvm::cl::init(true)};
  Option<bool> onChip{
      *this, "on-chip",
      llvm::cl::desc("Keep data on chip between kernels: fold reorders "
                     "into access patterns, keep results in LX for kernels "
                     "that read them in place (false: every reorder a "
                     "kernel and every tensor through device memory, the "
                     "baseline)"),
      llvm::cl::init(true)};
  Option<bool> ring{
      *this, "ring",
      llvm::cl::desc("With on-chip: a kernel whose tiles differ from its "
                     "producer's gathers them from the producer's LX over "
                     "the ring where that is faster (false: such results "
                     "go through device memory)"),
      llvm::cl::init(true)};
};

/// Adds the whole compiler pipeline (DESIGN.md section 5) to `pm`. Shared by
/// spyre-opt (`--spyre-pipeline`) and spyre-compile.
void buildSpyrePipeline(mlir::OpPassManager &pm,
                        const PipelineOptions &options);

/// The pipeline as text, as the .spy records it (`--cache-dir` left out:
/// the output is the same bytes with and without it).
std::string spyrePipelineText(const PipelineOptions &options);

/// Registers `--spyre-pipeline`.
void registerSpyrePipeline();

} // namespace spyre

#endif // SPYRE_TRANSFORMS_PASSES_H
