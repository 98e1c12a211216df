//===- Pointwise.cpp - Elementwise aten ops --------------------------------===//
//
// Elementwise ops map onto `spyre.unary` / `spyre.binary`. Operands are
// converted to the result's element type first (PyTorch's type promotion has
// already decided it: the exported node's output dtype), and scalar operands
// become rank-0 splat constants, since the hardware has no immediates.
//
//===----------------------------------------------------------------------===//

#include "spyre/Transforms/Decompositions.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace spyre {
namespace {

/// A unary aten op that is exactly one SFP function.
DecomposeFn unary(UnaryKind kind) {
  return [kind](AtenOp op, const AtenArgs &args, RewriterBase &rw) {
    FailureOr<Value> x = args.tensor("self");
    if (failed(x))
      return failure();
    RankedTensorType type = resultType(op);
    Value in = castTo(rw, op.getLoc(), *x, type.getElementType());
    rw.replaceOpWithNewOp<UnaryOp>(op, type, kind, in);
    return success();
  };
}

/// `self kind (other * alpha)`, `other` a tensor or a scalar.
DecomposeFn binary(BinaryKind kind, bool hasAlpha) {
  return [kind, hasAlpha](AtenOp op, const AtenArgs &args, RewriterBase &rw) {
    RankedTensorType type = resultType(op);
    Type et = type.getElementType();
    Location loc = op.getLoc();
    FailureOr<Value> lhs = tensorOrScalar(args, "self", et, rw);
    FailureOr<Value> rhs = tensorOrScalar(args, "other", et, rw);
    if (failed(lhs) || failed(rhs))
      return failure();
    Value other = *rhs;
    if (hasAlpha) {
      FailureOr<double> alpha = args.getDouble("alpha");
      if (failed(alpha))
        return failure();
      if (*alpha != 1.0)
        other = BinaryOp::create(rw, loc, other.getType(), BinaryKind::mul,
                                 other, createSplat(rw, loc, et, *alpha));
    }
    rw.replaceOpWithNewOp<BinaryOp>(op, type, kind, *lhs, other);
    return success();
  };
}

LogicalResult decomposeGelu(AtenOp op, const AtenArgs &args,
                            RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<std::string> approximate = args.getString("approximate");
  if (failed(x) || failed(approximate))
    return failure();
  UnaryKind kind;
  if (*approximate == "none")
    kind = UnaryKind::gelu;
  else if (*approximate == "tanh")
    kind = UnaryKind::gelu_tanh;
  else
    return op.emitError("gelu approximation '")
           << *approximate << "' is not one of 'none', 'tanh'";
  RankedTensorType type = resultType(op);
  rw.replaceOpWithNewOp<UnaryOp>(
      op, type, kind, castTo(rw, op.getLoc(), *x, type.getElementType()));
  return success();
}

} // namespace

void registerPointwiseDecompositions(DecompositionRegistry &r) {
  const char *floats = "f16, bf16, f32";
  r.add({"aten.add.Tensor", "pointwise", floats,
         "`alpha` as a multiply of `other`; scalar `other` as a splat",
         binary(BinaryKind::add, true)});
  r.add({"aten.add.Scalar", "pointwise", floats, "", binary(BinaryKind::add, true)});
  r.add({"aten.sub.Tensor", "pointwise", floats, "`alpha` as for add",
         binary(BinaryKind::sub, true)});
  r.add({"aten.sub.Scalar", "pointwise", floats, "", binary(BinaryKind::sub, true)});
  r.add({"aten.mul.Tensor", "pointwise", floats, "scalar `other` as a splat",
         binary(BinaryKind::mul, false)});
  r.add({"aten.mul.Scalar", "pointwise", floats, "", binary(BinaryKind::mul, false)});
  r.add({"aten.relu.default", "pointwise", floats, "", unary(UnaryKind::relu)});
  r.add({"aten.gelu.default", "pointwise", floats,
         "`approximate` = 'none' (erf) or 'tanh'", decomposeGelu});
}

} // namespace spyre
