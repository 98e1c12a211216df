//===- Attention.cpp - scaled_dot_product_attention ------------------------===//
//
// The math form: softmax(q @ k^T * scale + mask) @ v, in three kernels (the
// scores matmul with scale and mask as its epilogue, the softmax, the value
// matmul). Scores and the softmax are f32; the probabilities are rounded
// to the value dtype as the second matmul's operand (the PT array
// multiplies f16/bf16 and accumulates in f32).
//
// Grouped-query attention (enable_gqa, Hq = G * Hk heads) never copies K or
// V: q is viewed as [..., Hk, G * L, E], so each KV head serves its G query
// heads as extra rows of one batched matmul.
//
// The causal mask is built from two small iota constants ([L, 1] and
// [1, S]) compared elementwise, not from an L x S constant.
//
//===----------------------------------------------------------------------===//

#include "spyre/Transforms/Decompositions.h"

#include "mlir/IR/Builders.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace spyre {
namespace {

/// An [n, 1] (or [1, n] when `row`) i32 constant 0, 1, ..., n-1.
Value iota(OpBuilder &b, Location loc, int64_t n, bool row) {
  SmallVector<int64_t> shape = row ? SmallVector<int64_t>{1, n}
                                   : SmallVector<int64_t>{n, 1};
  auto type = RankedTensorType::get(shape, b.getI32Type());
  SmallVector<int32_t> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = int32_t(i);
  return ConstantOp::create(b, loc, type,
                            DenseElementsAttr::get(type, ArrayRef(values)));
}

/// The attention output of an SDPA-like op whose mask argument is
/// `maskName` (null when it has none).
FailureOr<Value> buildSdpa(AtenOp op, const AtenArgs &args, RewriterBase &rw,
                           StringRef maskName) {
  FailureOr<Value> query = args.tensor("query");
  FailureOr<Value> key = args.tensor("key");
  FailureOr<Value> value = args.tensor("value");
  FailureOr<double> dropout = args.getDouble("dropout_p");
  FailureOr<bool> causal = args.getBool("is_causal");
  if (failed(query) || failed(key) || failed(value) || failed(dropout) ||
      failed(causal))
    return failure();
  if (*dropout != 0) {
    op.emitError("attention dropout (dropout_p = ")
        << *dropout << ") is not supported in inference";
    return failure();
  }
  bool gqa = false;
  if (op.getArg("enable_gqa")) {
    FailureOr<bool> g = args.getBool("enable_gqa");
    if (failed(g))
      return failure();
    gqa = *g;
  }
  Location loc = op.getLoc();
  ArrayRef<int64_t> qs = shapeOf(*query), ks = shapeOf(*key),
                    vs = shapeOf(*value);
  int64_t rank = qs.size();
  if (rank < 2 || ks.size() != qs.size() || vs.size() != qs.size()) {
    op.emitError("attention needs query, key and value of one rank >= 2");
    return failure();
  }
  int64_t L = qs[rank - 2], E = qs[rank - 1], S = ks[rank - 2];
  double scale = 1.0 / std::sqrt(double(E));
  if (!args.isNone("scale")) {
    FailureOr<double> sc = args.getDouble("scale");
    if (failed(sc))
      return failure();
    scale = *sc;
  }
  Type et = elementTypeOf(*query);
  Type f32 = rw.getF32Type();

  // Grouped-query heads: q as [..., Hk, G * L, E].
  int64_t groups = 1;
  if (rank >= 3 && qs[rank - 3] != ks[rank - 3]) {
    int64_t hq = qs[rank - 3], hk = ks[rank - 3];
    if (!gqa || hk == 0 || hq % hk != 0) {
      op.emitError("query has ")
          << hq << " heads and key " << hk
          << "; grouped-query attention needs enable_gqa and a multiple";
      return failure();
    }
    groups = hq / hk;
  }
  SmallVector<int64_t> qShape(qs);
  Value q = *query;
  if (groups > 1) {
    qShape[rank - 3] /= groups;
    qShape[rank - 2] *= groups;
    q = reshapeTo(rw, loc, q, qShape);
  }
  SmallVector<int64_t> scoreShape(qShape);
  scoreShape[rank - 1] = S;
  Value k = castTo(rw, loc, *key, et);
  Value scores = MatmulOp::create(rw, loc,
                                  RankedTensorType::get(scoreShape, f32), q, k);
  cast<MatmulOp>(scores.getDefiningOp()).setTransposeRhs(true);
  scores = BinaryOp::create(rw, loc, scores.getType(), BinaryKind::mul, scores,
                            createSplat(rw, loc, f32, scale));
  // Masks apply per query head: back to [..., Hq, L, S] (a view).
  SmallVector<int64_t> headShape(qs);
  headShape[rank - 1] = S;
  scores = reshapeTo(rw, loc, scores, headShape);
  auto scoresType = cast<RankedTensorType>(scores.getType());
  Value ninf = createSplat(rw, loc, f32,
                           -std::numeric_limits<double>::infinity());
  if (*causal) {
    // Keep j <= i (top-left aligned, as PyTorch's is_causal).
    Value above = CompareOp::create(
        rw, loc, RankedTensorType::get({L, S}, rw.getI1Type()),
        ComparePredicate::gt, iota(rw, loc, S, true), iota(rw, loc, L, false));
    scores = SelectOp::create(rw, loc, scoresType, above, ninf, scores);
  }
  Value mask = maskName.empty() ? Value() : args.optionalTensor(maskName);
  if (mask) {
    if (elementTypeOf(mask).isInteger(1))
      scores = SelectOp::create(rw, loc, scoresType, mask, scores, ninf);
    else
      scores = BinaryOp::create(rw, loc, scoresType, BinaryKind::add, scores,
                                castTo(rw, loc, mask, f32));
  }
  // With a mask a row can be masked entirely: the math kernel's
  // _safe_softmax gives it 0 (a causal mask alone always keeps key 0).
  Value p = createSoftmax(rw, loc, scores, rank - 1, /*log=*/false,
                          /*safe=*/bool(mask));
  // Cast, then view as the grouped shape: the cast stays in the softmax's
  // kernel (same loops), the reshape is a view.
  p = reshapeTo(rw, loc, castTo(rw, loc, p, elementTypeOf(*value)), scoreShape);
  SmallVector<int64_t> outShape(qShape);
  outShape[rank - 1] = vs[rank - 1];
  Value out = MatmulOp::create(
      rw, loc, RankedTensorType::get(outShape, elementTypeOf(*value)), p,
      *value);
  return castTo(rw, loc, reshapeTo(rw, loc, out, resultType(op).getShape()),
                resultType(op).getElementType());
}

LogicalResult decomposeSdpa(AtenOp op, const AtenArgs &args,
                            RewriterBase &rw) {
  FailureOr<Value> out = buildSdpa(op, args, rw, "attn_mask");
  if (failed(out))
    return failure();
  rw.replaceOp(op, *out);
  return success();
}

/// The fused kernels ep.run_decompositions() leaves (the CPU flash kernel,
/// CUDA's memory-efficient one): the same math, plus outputs (logsumexp,
/// RNG state) that an inference graph never reads.
DecomposeFn decomposeFusedSdpa(StringRef maskName) {
  return [maskName](AtenOp op, const AtenArgs &args,
                    RewriterBase &rw) -> LogicalResult {
    for (OpResult extra : op->getResults().drop_front())
      if (!extra.use_empty())
        return op.emitError("'")
               << op.getTarget() << "' result " << extra.getResultNumber()
               << " (logsumexp or RNG state) is used; only the attention "
                  "output is supported";
    FailureOr<Value> out = buildSdpa(op, args, rw, maskName);
    if (failed(out))
      return failure();
    rw.replaceAllUsesWith(op.getResult(0), *out);
    rw.eraseOp(op);
    return success();
  };
}

} // namespace

void registerAttentionDecompositions(DecompositionRegistry &r) {
  r.add({"aten.scaled_dot_product_attention.default", "attention",
         "f16, bf16, f32",
         "math form in three kernels; `is_causal`, boolean and additive "
         "masks (a fully masked row gives 0, as the math kernel's "
         "_safe_softmax), `scale`, grouped-query heads (`enable_gqa`) "
         "without copying K/V; the probabilities are rounded to the value "
         "dtype for the second matmul; dropout must be 0",
         decomposeSdpa});
  // What ep.run_decompositions() makes of it on CPU and on CUDA.
  r.add({"aten._scaled_dot_product_flash_attention_for_cpu.default",
         "attention", "f16, bf16, f32",
         "as scaled_dot_product_attention (the ATen-IR form on CPU); the "
         "logsumexp output must be unused",
         decomposeFusedSdpa("attn_mask")});
  r.add({"aten._scaled_dot_product_efficient_attention.default", "attention",
         "f16, bf16, f32",
         "as scaled_dot_product_attention with `attn_bias` as the additive "
         "mask (the ATen-IR form on CUDA); the logsumexp and RNG outputs "
         "must be unused",
         decomposeFusedSdpa("attn_bias")});
  r.add({"aten._scaled_dot_product_flash_attention.default", "attention",
         "f16, bf16, f32",
         "as scaled_dot_product_attention (CUDA's flash kernel in ATen IR); "
         "the outputs other than the attention output must be unused",
         decomposeFusedSdpa("")});
  r.add({"aten._scaled_dot_product_cudnn_attention.default", "attention",
         "f16, bf16, f32",
         "as _scaled_dot_product_efficient_attention (cuDNN's kernel)",
         decomposeFusedSdpa("attn_bias")});
}

} // namespace spyre
