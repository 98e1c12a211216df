//===- Preconditions.cpp - What a pass expects of its input ---------------===//

#include "Preconditions.h"

#include "spyre/Dialect/Spyre/SpyreOps.h"

using namespace mlir;

namespace spyre {
namespace {

/// Fails at the first op of `module` that `bad` holds for: `pass` needs
/// `what`, the op `problem`, `before` makes it so.
LogicalResult requireNone(ModuleOp module, StringRef pass, StringRef what,
                          StringRef problem, StringRef before,
                          llvm::function_ref<bool(Operation *)> bad) {
  Operation *found = nullptr;
  module.walk([&](Operation *op) {
    if (!bad(op))
      return WalkResult::advance();
    found = op;
    return WalkResult::interrupt();
  });
  if (!found)
    return success();
  return found->emitError("'")
         << pass << "' needs " << what << ": this '" << found->getName() << "' "
         << problem << "; run " << before << " first";
}

bool hasLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return !tensor || isa_and_nonnull<LayoutAttr>(tensor.getEncoding());
}

} // namespace

LogicalResult requireComputeLevel(ModuleOp module, StringRef pass) {
  return requireNone(module, pass, "compute-level IR", "is graph-level",
                     "spyre-decompose",
                     [](Operation *op) { return isa<AtenOp>(op); });
}

LogicalResult requireLayouts(ModuleOp module, StringRef pass) {
  return requireNone(
      module, pass, "a layout on every tensor", "has a tensor without one",
      "spyre-assign-layouts", [](Operation *op) {
        if (!isa<ComputeOpInterface>(op) || op->getParentOfType<KernelOp>())
          return false;
        return !llvm::all_of(op->getOperandTypes(), hasLayout) ||
               !llvm::all_of(op->getResultTypes(), hasLayout);
      });
}

LogicalResult requireKernels(ModuleOp module, StringRef pass) {
  return requireNone(module, pass, "every compute op inside a kernel",
                     "is outside one", "spyre-form-kernels", [](Operation *op) {
                       return isa<ComputeOpInterface>(op) &&
                              !op->getParentOfType<KernelOp>();
                     });
}

} // namespace spyre
