//===- Decompose.cpp - spyre-decompose ------------------------------------===//

#include "spyre/Transforms/Decompositions.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace spyre {
#define GEN_PASS_DEF_SPYREDECOMPOSE
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {
struct DecomposePass : public spyre::impl::SpyreDecomposeBase<DecomposePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    const DecompositionRegistry &registry = getDecompositionRegistry();
    SmallVector<AtenOp> ops;
    module.walk([&](AtenOp op) { ops.push_back(op); });

    // Rewrite in program order, one op at a time: every unsupported op is
    // reported (not just the first) and nothing is retried.
    IRRewriter rewriter(&getContext());
    bool anyFailed = false;
    for (AtenOp op : ops) {
      const Decomposition *d = registry.lookup(op.getTarget());
      if (!d) {
        op.emitError("unsupported op '")
            << op.getTarget()
            << "': no decomposition onto Spyre compute ops (see "
               "docs/supported-ops.md)";
        anyFailed = true;
        continue;
      }
      rewriter.setInsertionPoint(op);
      AtenArgs args(op, lookupAtenSchema(op.getTarget()));
      if (failed(d->rewrite(op, args, rewriter)))
        anyFailed = true;
    }
    if (anyFailed)
      return signalPassFailure();

    // Fold what the decompositions left foldable: transposes into matmuls,
    // splat arithmetic, identity reshapes.
    RewritePatternSet patterns(&getContext());
    for (RegisteredOperationName name :
         getContext().getRegisteredOperationsByDialect("spyre"))
      name.getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
