//===- Normalization.cpp - layer_norm, rms_norm, batch_norm ---------------===//
//
// Normalizations are reductions over the normalized dims plus elementwise
// ops, computed in f32 for f16/bf16 inputs; each becomes one kernel.
// Adapter: rms_norm squares with x * x (one SFP multiply) instead of
// pow(x, 2).
//
//===----------------------------------------------------------------------===//

#include "spyre/Transforms/Decompositions.h"

#include "mlir/IR/Builders.h"

#include <limits>

using namespace mlir;

namespace spyre {
namespace {

struct Norm {
  OpBuilder &b;
  Location loc;

  Value bin(BinaryKind kind, Value x, Value y) {
    auto shape = broadcastShapes(shapeOf(x), shapeOf(y))
                     .value_or(SmallVector<int64_t>());
    return BinaryOp::create(
        b, loc, RankedTensorType::get(shape, elementTypeOf(x)), kind, x, y);
  }
  Value splat(Value like, double v) {
    return createSplat(b, loc, elementTypeOf(like), v);
  }
  /// Sum over the last `k` dims, kept with size 1, times `factor`.
  Value meanLast(Value x, int64_t k) {
    int64_t rank = shapeOf(x).size();
    int64_t n = 1;
    for (int64_t d = rank - k; d < rank; ++d) {
      n *= shapeOf(x)[d];
      x = reduceAlong(b, loc, x, d, ReduceKind::sum);
    }
    return bin(BinaryKind::mul, x, splat(x, 1.0 / double(n)));
  }
};

/// The number of normalized (trailing) dims, checked against the input.
FailureOr<int64_t> normalizedDims(AtenOp op, const AtenArgs &args, Value x) {
  FailureOr<SmallVector<int64_t>> shape = args.getIntList("normalized_shape");
  if (failed(shape))
    return failure();
  ArrayRef<int64_t> in = shapeOf(x);
  if (shape->size() > in.size() ||
      ArrayRef<int64_t>(*shape) != in.take_back(shape->size()))
    return op.emitError("normalized_shape [")
           << *shape << "] is not the trailing shape of the input";
  return int64_t(shape->size());
}

/// layer_norm and native_layer_norm: (x - mean) * rsqrt(var + eps) * w + b.
LogicalResult decomposeLayerNorm(AtenOp op, const AtenArgs &args,
                                 RewriterBase &rw, bool native) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<double> eps = args.getDouble("eps");
  if (failed(input) || failed(eps))
    return failure();
  FailureOr<int64_t> k = normalizedDims(op, args, *input);
  if (failed(k))
    return failure();
  Location loc = op.getLoc();
  Norm n{rw, loc};
  Type out = resultType(op).getElementType();
  Type acc = accumulationType(out);
  Value x = castTo(rw, loc, *input, acc);
  Value mean = n.meanLast(x, *k);
  Value centered = n.bin(BinaryKind::sub, x, mean);
  Value var = n.meanLast(n.bin(BinaryKind::mul, centered, centered), *k);
  Value rstd = UnaryOp::create(rw, loc, var.getType(), UnaryKind::rsqrt,
                               n.bin(BinaryKind::add, var, n.splat(var, *eps)));
  Value y = n.bin(BinaryKind::mul, centered, rstd);
  if (Value w = args.optionalTensor("weight"))
    y = n.bin(BinaryKind::mul, y, castTo(rw, loc, w, acc));
  if (Value bias = args.optionalTensor("bias"))
    y = n.bin(BinaryKind::add, y, castTo(rw, loc, bias, acc));
  y = castTo(rw, loc, y, out);
  if (!native) {
    rw.replaceOp(op, y);
    return success();
  }
  // The statistics keep the normalized dims as 1s; of an empty input,
  // PyTorch gives them the input's (empty) shape.
  auto stat = [&](Value v, unsigned i) -> Value {
    RankedTensorType type = resultType(op, i);
    if (type.getNumElements() == 0)
      return createSplat(rw, loc, type.getElementType(), 0, type.getShape());
    return reshapeTo(rw, loc, castTo(rw, loc, v, type.getElementType()),
                     type.getShape());
  };
  rw.replaceOp(op, {y, stat(mean, 1), stat(rstd, 2)});
  return success();
}

/// rms_norm: x * rsqrt(mean(x * x) + eps) * w; eps None is the machine
/// epsilon of the type PyTorch computes in (rms_norm_composite: fp32 for
/// fp16, bf16 and fp32 inputs), not of the input's dtype.
///
/// Adapter (DESIGN.md section 5): the square is x * x, one SFP multiply in
/// the kernel of the reduction that consumes it, not pow(x, 2): the SFP has
/// no pow, and the general pow (exp(2 * log(x))) would cost two
/// transcendental passes and be NaN for negative x. (A hand-written RMSNorm
/// such as Llama's, pow(x, 2) then mean, gets the same form from pow's
/// adapter in Pointwise.cpp.)
LogicalResult decomposeRmsNorm(AtenOp op, const AtenArgs &args,
                               RewriterBase &rw) {
  FailureOr<Value> input = args.tensor("input");
  if (failed(input))
    return failure();
  FailureOr<int64_t> k = normalizedDims(op, args, *input);
  if (failed(k))
    return failure();
  Type out = resultType(op).getElementType();
  double eps;
  if (args.isNone("eps")) {
    eps = double(std::numeric_limits<float>::epsilon());
  } else {
    FailureOr<double> e = args.getDouble("eps");
    if (failed(e))
      return failure();
    eps = *e;
  }
  Location loc = op.getLoc();
  Norm n{rw, loc};
  Type acc = accumulationType(out);
  Value x = castTo(rw, loc, *input, acc);
  Value ms = n.meanLast(n.bin(BinaryKind::mul, x, x), *k);
  Value r = UnaryOp::create(rw, loc, ms.getType(), UnaryKind::rsqrt,
                            n.bin(BinaryKind::add, ms, n.splat(ms, eps)));
  Value y = n.bin(BinaryKind::mul, x, r);
  if (Value w = args.optionalTensor("weight"))
    y = n.bin(BinaryKind::mul, y, castTo(rw, loc, w, acc));
  rw.replaceOp(op, castTo(rw, loc, y, out));
  return success();
}

/// batch_norm (not the legit op, which has no `training`) in training mode
/// is rejected.
LogicalResult checkInferenceMode(AtenOp op, const AtenArgs &args, bool legit) {
  if (legit)
    return success();
  FailureOr<bool> training = args.getBool("training");
  if (failed(training))
    return failure();
  if (*training)
    return op.emitError("batch_norm in training mode is not supported "
                        "(Spyre compiles inference graphs)");
  return success();
}

/// A per-channel vector in `acc`, reshaped to `channel` ([C, 1, ...]) to
/// broadcast.
Value perChannel(OpBuilder &b, Location loc, Value v, Type acc,
                 ArrayRef<int64_t> channel) {
  return reshapeTo(b, loc, castTo(b, loc, v, acc), channel);
}

/// (x - mean) * rsqrt(var + eps) * weight + bias in `acc`, the optional
/// weight and bias from `args`.
Value normalizeChannels(Norm &n, const AtenArgs &args, Value input, Value mean,
                        Value var, double eps, Type acc) {
  OpBuilder &rw = n.b;
  Location loc = n.loc;
  ArrayRef<int64_t> shape = shapeOf(input);
  SmallVector<int64_t> channel(shape.size() - 1, 1);
  channel[0] = shape[1];
  Value x = castTo(rw, loc, input, acc);
  Value rstd = perChannel(rw, loc, var, acc, channel);
  rstd = UnaryOp::create(rw, loc, rstd.getType(), UnaryKind::rsqrt,
                         n.bin(BinaryKind::add, rstd, n.splat(rstd, eps)));
  Value y = n.bin(
      BinaryKind::mul,
      n.bin(BinaryKind::sub, x, perChannel(rw, loc, mean, acc, channel)), rstd);
  if (Value w = args.optionalTensor("weight"))
    y = n.bin(BinaryKind::mul, y, perChannel(rw, loc, w, acc, channel));
  if (Value bias = args.optionalTensor("bias"))
    y = n.bin(BinaryKind::add, y, perChannel(rw, loc, bias, acc, channel));
  return y;
}

/// `y` followed by the legit op's saved statistics, empty in inference.
SmallVector<Value> withEmptyStatistics(OpBuilder &b, AtenOp op, Value y) {
  SmallVector<Value> results = {y};
  for (unsigned i = 1; i < op.getNumResults(); ++i) {
    RankedTensorType t = resultType(op, i);
    results.push_back(ConstantOp::create(
        b, op.getLoc(), t, DenseElementsAttr::get(t, ArrayRef<Attribute>{})));
  }
  return results;
}

/// Inference batch norm over dim 1:
/// (x - running_mean) * rsqrt(running_var + eps) * w + b, the per-channel
/// vectors reshaped to [C, 1, ...] to broadcast.
LogicalResult decomposeBatchNorm(AtenOp op, const AtenArgs &args,
                                 RewriterBase &rw, bool legit) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<double> eps = args.getDouble("eps");
  if (failed(input) || failed(eps))
    return failure();
  if (failed(checkInferenceMode(op, args, legit)))
    return failure();
  Value mean = args.optionalTensor("running_mean");
  Value var = args.optionalTensor("running_var");
  if (!mean || !var)
    return op.emitError("batch_norm needs running_mean and running_var in "
                        "inference");
  if (shapeOf(*input).size() < 2)
    return op.emitError("batch_norm needs an input of rank >= 2");
  Location loc = op.getLoc();
  Norm n{rw, loc};
  Type out = resultType(op).getElementType();
  Value y = normalizeChannels(n, args, *input, mean, var, *eps,
                              accumulationType(out));
  y = castTo(rw, loc, y, out);
  if (op.getNumResults() == 1) {
    rw.replaceOp(op, y);
    return success();
  }
  rw.replaceOp(op, withEmptyStatistics(rw, op, y));
  return success();
}

} // namespace

void registerNormalizationDecompositions(DecompositionRegistry &r) {
  const char *floats = "f16, bf16, f32";
  r.add({"aten.layer_norm.default", "normalization", floats,
         "in f32; one kernel when normalizing the last dim",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeLayerNorm(op, a, rw, false);
         }});
  r.add({"aten.native_layer_norm.default", "normalization", floats,
         "also returns mean and rstd",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeLayerNorm(op, a, rw, true);
         }});
  r.add({"aten.rms_norm.default", "normalization", floats,
         "adapter: squares with x * x; eps None is fp32's epsilon (PyTorch's "
         "opmath type, also for fp16 and bf16 inputs)",
         decomposeRmsNorm});
  r.add({"aten._native_batch_norm_legit_no_training.default", "normalization",
         floats, "per-channel (dim 1) affine of the running statistics",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeBatchNorm(op, a, rw, true);
         }});
  r.add({"aten.batch_norm.default", "normalization", floats,
         "inference only (training = False)",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeBatchNorm(op, a, rw, false);
         }});
}

} // namespace spyre
