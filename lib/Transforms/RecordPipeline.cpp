//===- RecordPipeline.cpp - spyre-record-pipeline
//--------------------------===//

#include "spyre/Transforms/Passes.h"

namespace spyre {
#define GEN_PASS_DEF_SPYRERECORDPIPELINE
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;

namespace {
struct RecordPipelinePass
    : public spyre::impl::SpyreRecordPipelineBase<RecordPipelinePass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->setAttr("spyre.pipeline",
                            StringAttr::get(&getContext(), pipeline));
  }
};
} // namespace
