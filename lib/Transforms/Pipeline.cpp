//===- Pipeline.cpp - The spyre compiler pipeline -------------------------===//

#include "spyre/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace spyre {

void buildSpyrePipeline(OpPassManager &pm, const PipelineOptions &options) {
  SpyreAttachArchOptions arch;
  arch.arch = options.archFile;
  pm.addPass(createSpyreAttachArch(arch));
  pm.addPass(createSpyreDecompose());
  if (options.fusion) {
    // Canonicalization first: it makes repeat_kv'd heads grouped rows,
    // the form spyre-fuse-attention matches.
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    pm.addPass(createSpyreFuseAttention());
    pm.addPass(createSpyreFoldRope());
  }
  SpyreExpandAttentionOptions expand;
  expand.all = !options.fusion;
  expand.maxCores = options.maxCores;
  pm.addPass(createSpyreExpandAttention(expand));
  if (options.onChip)
    pm.addPass(createSpyreSinkTransposes());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createSpyreCollapseDims());
  pm.addPass(createSpyreAssignLayouts());
  SpyreFormKernelsOptions formKernels;
  formKernels.fuseConsumers = options.fusion;
  formKernels.maxCores = options.maxCores;
  formKernels.leavePermutes = options.onChip;
  formKernels.depth = options.depth;
  pm.addPass(createSpyreFormKernels(formKernels));
  if (options.onChip) {
    SpyreReorderOnChipOptions reorder;
    reorder.maxCores = options.maxCores;
    pm.addPass(createSpyreReorderOnChip(reorder));
  }
  SpyreScheduleCoresOptions schedule;
  schedule.maxCores = options.maxCores;
  schedule.depth = options.depth;
  schedule.cacheDir = options.cacheDir;
  schedule.resident = options.onChip;
  schedule.ring = options.ring;
  pm.addPass(createSpyreScheduleCores(schedule));
  SpyreAllocateScratchpadOptions allocate;
  allocate.resident = options.onChip;
  allocate.ring = options.ring;
  pm.addPass(createSpyreAllocateScratchpad(allocate));
  pm.addPass(createSpyreLowerToProgram());
}

std::string spyrePipelineText(const PipelineOptions &options) {
  PipelineOptions recorded;
  recorded.copyOptionValuesFrom(options);
  recorded.cacheDir = "";
  OpPassManager pm; // anchored on any op, as spyre-compile's
  buildSpyrePipeline(pm, recorded);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  return text;
}

void registerSpyrePipeline() {
  PassPipelineRegistration<PipelineOptions>(
      "spyre-pipeline",
      "The whole compiler: graph-level IR to per-core programs "
      "(DESIGN.md section 5)",
      [](OpPassManager &pm, const PipelineOptions &options) {
        buildSpyrePipeline(pm, options);
        SpyreRecordPipelineOptions record;
        record.pipeline = spyrePipelineText(options);
        pm.addPass(createSpyreRecordPipeline(record));
      });
}

} // namespace spyre
