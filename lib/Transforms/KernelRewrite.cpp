//===- KernelRewrite.cpp - Rewriting spyre.kernel ops ---------------------===//

#include "KernelRewrite.h"

#include "spyre/Transforms/KernelPlan.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace spyre {

KernelOp rebuildKernel(KernelOp kernel, ValueRange inputs, TypeRange results,
                       ArrayRef<AffineMap> maps) {
  OpBuilder b(kernel);
  auto rebuilt =
      KernelOp::create(b, kernel.getLoc(), results, kernel.getName(), inputs);
  rebuilt.getBody().takeBody(kernel.getBody());
  for (NamedAttribute attr : kernel->getAttrs())
    rebuilt->setAttr(attr.getName(), attr.getValue());
  rebuilt.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
  return rebuilt;
}

TransposeOp onlyPermutation(KernelOp kernel) {
  Block &body = kernel.getBodyBlock();
  if (kernel.getInputs().size() != 1 || kernel.getNumResults() != 1 ||
      !llvm::hasSingleElement(body.without_terminator()))
    return {};
  auto move = dyn_cast<TransposeOp>(body.front());
  if (!move || !keepsStick(move) || move.getInput() != body.getArgument(0))
    return {};
  return move;
}

} // namespace spyre
