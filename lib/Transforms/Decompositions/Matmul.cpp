//===- Matmul.cpp - linear, mm, addmm, bmm, matmul, baddbmm ---------------===//
//
// Every matrix product becomes one `spyre.matmul` with transposes folded
// into its flags; bias and scaling become elementwise ops that
// spyre-form-kernels fuses into the matmul's kernel as its epilogue.
//
//===----------------------------------------------------------------------===//

#include "spyre/Dialect/Spyre/ShapeUtils.h"
#include "spyre/Transforms/Decompositions.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace spyre {
namespace {

/// `a @ b` (torch semantics for ranks >= 2) with the result element type of
/// the aten op.
Value createMatmul(RewriterBase &rw, Location loc, Value a, Value b,
                   Type elementType, bool transposeRhs = false) {
  ArrayRef<int64_t> as = shapeOf(a), bs = shapeOf(b);
  SmallVector<int64_t> shape = broadcastShapes(as.drop_back(2), bs.drop_back(2))
                                   .value_or(SmallVector<int64_t>());
  shape.push_back(as[as.size() - 2]);
  shape.push_back(transposeRhs ? bs[bs.size() - 2] : bs.back());
  auto type = RankedTensorType::get(shape, elementType);
  auto op = MatmulOp::create(rw, loc, type, a, b);
  if (transposeRhs)
    op.setTransposeRhs(true);
  return op;
}

/// `x * scale` unless scale is 1.
Value scaleBy(RewriterBase &rw, Location loc, Value x, double scale) {
  if (scale == 1.0)
    return x;
  Value c = createSplat(rw, loc, elementTypeOf(x), scale);
  return BinaryOp::create(rw, loc, x.getType(), BinaryKind::mul, x, c);
}

/// `a + b` broadcast to the shape of `a` (which has the result shape).
Value addBroadcast(RewriterBase &rw, Location loc, Value a, Value b) {
  b = castTo(rw, loc, b, elementTypeOf(a));
  return BinaryOp::create(rw, loc, a.getType(), BinaryKind::add, a, b);
}

LogicalResult decomposeLinear(AtenOp op, const AtenArgs &args,
                              RewriterBase &rw) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<Value> weight = args.tensor("weight");
  if (failed(input) || failed(weight))
    return failure();
  Location loc = op.getLoc();
  Type et = resultType(op).getElementType();
  Value x = *input, w = *weight;
  if (shapeOf(w).size() == 1) {
    // linear with a vector weight: a dot product along the last dim.
    w = reshapeTo(rw, loc, w, {1, shapeOf(w)[0]});
  }
  if (shapeOf(x).size() == 1)
    x = reshapeTo(rw, loc, x, {1, shapeOf(x)[0]});
  Value y = createMatmul(rw, loc, castTo(rw, loc, x, et),
                         castTo(rw, loc, w, et), et, /*transposeRhs=*/true);
  if (Value bias = args.optionalTensor("bias"))
    y = addBroadcast(rw, loc, y, bias);
  rw.replaceOp(op, reshapeTo(rw, loc, y, resultType(op).getShape()));
  return success();
}

LogicalResult decomposeMm(AtenOp op, const AtenArgs &args, RewriterBase &rw,
                          StringRef lhsName, StringRef rhsName) {
  FailureOr<Value> a = args.tensor(lhsName);
  FailureOr<Value> b = args.tensor(rhsName);
  if (failed(a) || failed(b))
    return failure();
  Location loc = op.getLoc();
  Type et = resultType(op).getElementType();
  Value y = createMatmul(rw, loc, castTo(rw, loc, *a, et),
                         castTo(rw, loc, *b, et), et);
  rw.replaceOp(op, y);
  return success();
}

/// beta * self + alpha * (a @ b): addmm and baddbmm.
LogicalResult decomposeAddmm(AtenOp op, const AtenArgs &args, RewriterBase &rw,
                             StringRef lhsName, StringRef rhsName) {
  FailureOr<Value> self = args.tensor("self");
  FailureOr<Value> a = args.tensor(lhsName);
  FailureOr<Value> b = args.tensor(rhsName);
  FailureOr<double> alpha = args.getDouble("alpha");
  FailureOr<double> beta = args.getDouble("beta");
  if (failed(self) || failed(a) || failed(b) || failed(alpha) || failed(beta))
    return failure();
  Location loc = op.getLoc();
  Type et = resultType(op).getElementType();
  Value y = createMatmul(rw, loc, castTo(rw, loc, *a, et),
                         castTo(rw, loc, *b, et), et);
  y = scaleBy(rw, loc, y, *alpha);
  // beta == 0 ignores self entirely (even NaNs), as PyTorch documents.
  if (*beta != 0.0) {
    Value s = castTo(rw, loc, *self, et);
    s = scaleBy(rw, loc, s, *beta);
    y = addBroadcast(rw, loc, y, s);
  }
  rw.replaceOp(op, y);
  return success();
}

/// torch.matmul: 1-D operands are promoted to matrices and the added dim is
/// dropped from the result; batch dims broadcast.
LogicalResult decomposeMatmul(AtenOp op, const AtenArgs &args,
                              RewriterBase &rw) {
  FailureOr<Value> a = args.tensor("self");
  FailureOr<Value> b = args.tensor("other");
  if (failed(a) || failed(b))
    return failure();
  Location loc = op.getLoc();
  Type et = resultType(op).getElementType();
  Value x = castTo(rw, loc, *a, et), y = castTo(rw, loc, *b, et);
  if (shapeOf(x).size() == 1)
    x = reshapeTo(rw, loc, x, {1, shapeOf(x)[0]});
  if (shapeOf(y).size() == 1)
    y = reshapeTo(rw, loc, y, {shapeOf(y)[0], 1});
  Value r = createMatmul(rw, loc, x, y, et);
  rw.replaceOp(op, reshapeTo(rw, loc, r, resultType(op).getShape()));
  return success();
}

} // namespace

void registerMatmulDecompositions(DecompositionRegistry &r) {
  const char *floats = "f16, bf16, f32";
  r.add({"aten.linear.default", "matmul", floats,
         "one `spyre.matmul` with the weight transpose folded (the weight is "
         "stored K-major); bias fused as the kernel epilogue",
         decomposeLinear});
  r.add({"aten.mm.default", "matmul", floats, "",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeMm(op, a, rw, "self", "mat2");
         }});
  r.add({"aten.bmm.default", "matmul", floats, "",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeMm(op, a, rw, "self", "mat2");
         }});
  r.add({"aten.addmm.default", "matmul", floats,
         "`alpha`/`beta` scaling as elementwise multiplies (skipped when 1); "
         "`beta = 0` ignores `self`",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeAddmm(op, a, rw, "mat1", "mat2");
         }});
  r.add({"aten.baddbmm.default", "matmul", floats, "as addmm, batched",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeAddmm(op, a, rw, "batch1", "batch2");
         }});
  r.add({"aten.matmul.default", "matmul", floats,
         "1-D operands promoted to matrices; batch dims broadcast",
         decomposeMatmul});
}

} // namespace spyre
