//===- EmptyTensors.cpp - Zero-size tensors computed at compile time ------===//
//
// A tensor with a dim of size 0 holds nothing, so nothing needs to run to
// make it, and a value computed from empty operands (a sum over an empty
// dim, a product with K = 0) is a splat known at compile time. These
// dialect-wide canonicalization patterns replace such ops by constants and
// drop empty concat inputs, so that no kernel ever walks an empty loop and
// none is launched where nothing is computed.
//
//===----------------------------------------------------------------------===//

#include "spyre/Dialect/Spyre/SpyreDialect.h"
#include "spyre/Dialect/Spyre/SpyreOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace spyre {
namespace {

bool isEmpty(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() && type.getNumElements() == 0;
}

/// A splat of `value` (converted to the element type) of `type`.
DenseElementsAttr splatOf(RankedTensorType type, double value) {
  Type et = type.getElementType();
  if (auto ft = dyn_cast<FloatType>(et))
    return DenseElementsAttr::get(type, FloatAttr::get(ft, value));
  return DenseElementsAttr::get(
      type, IntegerAttr::get(et, APInt(et.getIntOrFloatBitWidth(),
                                       int64_t(value), /*isSigned=*/true)));
}

/// Ops computed outside kernels only: a kernel's body is fixed once formed.
bool outsideKernels(Operation *op) { return !op->getParentOfType<KernelOp>(); }

/// Any compute op or reshape with an empty result: an empty constant.
struct EmptyResult : public RewritePattern {
  EmptyResult(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rw) const override {
    if (!isa<ComputeOpInterface, ReshapeOp>(op) || op->getNumResults() != 1 ||
        !isEmpty(op->getResult(0)) || !outsideKernels(op) ||
        isa<ConstantOp>(op))
      return failure();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    rw.replaceOpWithNewOp<ConstantOp>(op, type, splatOf(type, 0));
    return success();
  }
};

/// A reduction over an empty dim: its identity (sum 0, prod 1). max, min
/// and the arg-reductions have none; PyTorch refuses them, so they never
/// reach here from an export.
struct EmptyReduction : public OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rw) const override {
    if (!isEmpty(op.getInput()) || isEmpty(op.getResult()) ||
        !outsideKernels(op))
      return failure();
    std::optional<double> identity;
    if (op.getKind() == ReduceKind::sum)
      identity = 0;
    else if (op.getKind() == ReduceKind::prod)
      identity = 1;
    if (!identity)
      return failure();
    auto type = cast<RankedTensorType>(op.getType());
    rw.replaceOpWithNewOp<ConstantOp>(op, type, splatOf(type, *identity));
    return success();
  }
};

/// A matmul with an empty contraction (K = 0): zeros.
struct EmptyContraction : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rw) const override {
    if (!(isEmpty(op.getLhs()) || isEmpty(op.getRhs())) ||
        isEmpty(op.getResult()) || !outsideKernels(op))
      return failure();
    auto type = cast<RankedTensorType>(op.getType());
    rw.replaceOpWithNewOp<ConstantOp>(op, type, splatOf(type, 0));
    return success();
  }
};

/// Empty inputs add nothing to a concatenation.
struct DropEmptyConcatInputs : public OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rw) const override {
    if (isEmpty(op.getResult()) || !outsideKernels(op) ||
        llvm::none_of(op.getInputs(), isEmpty))
      return failure();
    SmallVector<Value> inputs;
    for (Value v : op.getInputs())
      if (!isEmpty(v))
        inputs.push_back(v);
    rw.replaceOpWithNewOp<ConcatOp>(op, op.getType(), inputs, op.getDim());
    return success();
  }
};

/// Scattering nothing leaves the destination as it is.
struct EmptyScatter : public OpRewritePattern<ScatterOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterOp op,
                                PatternRewriter &rw) const override {
    if (!(isEmpty(op.getIndices()) || isEmpty(op.getSource())) ||
        !outsideKernels(op) || op.getDest().getType() != op.getType())
      return failure();
    rw.replaceOp(op, op.getDest());
    return success();
  }
};

} // namespace

void SpyreDialect::getCanonicalizationPatterns(
    RewritePatternSet &results) const {
  results.add<EmptyResult, EmptyReduction, EmptyContraction,
              DropEmptyConcatInputs, EmptyScatter>(getContext());
}

} // namespace spyre
