//===- Attention.cpp - scaled_dot_product_attention ------------------------===//
//
// Every SDPA form becomes one `spyre.attention`: softmax(q @ k^T * scale +
// mask) @ v, lowered as a flash kernel (lib/Transforms/AttentionKernel.cpp)
// or, with fusion off, expanded into the math form by
// spyre-expand-attention. What the op does not take is made here:
//
//   * a boolean mask becomes additive (0 where kept, -inf where masked), in
//     the query's element type (f16 and bf16 hold both exactly); a float
//     mask is added as it is;
//   * `is_causal` is the op's `causal` (the kernel skips the key tiles past
//     the diagonal), or, with more queries than keys, an additive [L, S]
//     mask (createCausalMask) added to the user's;
//   * grouped-query heads (enable_gqa, Hq = G * Hk) never copy K or V: q is
//     viewed as [..., Hk, G, L, E] and k, v as [..., Hk, 1, S, E], so one
//     K/V head serves its G query heads (a broadcast batch dim). When no
//     mask varies along both G and L apart, q is viewed as [..., Hk, G * L,
//     E] instead: the G heads are rows of one tile.
//
//===----------------------------------------------------------------------===//

#include "spyre/Transforms/Decompositions.h"

#include "mlir/IR/Builders.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace spyre {
namespace {

/// The additive form of a mask: a float mask as it is, a boolean one as
/// kept 0, masked -inf, in `type`.
Value additiveMask(OpBuilder &b, Location loc, Value mask, Type type) {
  if (!elementTypeOf(mask).isInteger(1))
    return mask;
  auto maskType = RankedTensorType::get(shapeOf(mask), type);
  return SelectOp::create(
      b, loc, maskType, mask, createSplat(b, loc, type, 0),
      createSplat(b, loc, type, -std::numeric_limits<double>::infinity()));
}

/// `shape` with dim `d` split into [shape[d] / inner, inner], or [1, 1]
/// when it is a broadcast dim of size 1.
SmallVector<int64_t> splitDim(ArrayRef<int64_t> shape, int64_t d,
                              int64_t inner) {
  SmallVector<int64_t> out(shape.take_front(d));
  if (shape[d] == 1)
    out.append({1, 1});
  else
    out.append({shape[d] / inner, inner});
  llvm::append_range(out, shape.drop_front(d + 1));
  return out;
}

/// `shape` with dims d and d + 1 merged.
SmallVector<int64_t> mergeDims(ArrayRef<int64_t> shape, int64_t d) {
  SmallVector<int64_t> out(shape);
  out[d] *= out[d + 1];
  out.erase(out.begin() + d + 1);
  return out;
}

} // namespace

AttentionOperands groupAttentionHeads(OpBuilder &b, Location loc,
                                      const AttentionOperands &in,
                                      int64_t headDim, int64_t groups,
                                      bool causal) {
  int64_t rank = shapeOf(in.q).size();
  int64_t L = shapeOf(in.q)[rank - 2];
  ArrayRef<int64_t> ms = in.mask ? shapeOf(in.mask) : ArrayRef<int64_t>();
  // G heads x L queries as the rows of one tile, when the mask reads them
  // alike: it varies along neither, or along both (then a view). Not when
  // causal: a row's query position would no longer be its index.
  bool fold = !causal &&
              (!in.mask || L == 1 || (ms[headDim] == 1) == (ms[rank - 2] == 1));
  AttentionOperands out;
  if (fold) {
    out.q = reshapeTo(
        b, loc, in.q,
        mergeDims(splitDim(shapeOf(in.q), headDim, groups), headDim + 1));
    out.k = in.k;
    out.v = in.v;
    if (in.mask)
      out.mask = reshapeTo(
          b, loc, in.mask,
          mergeDims(splitDim(ms, headDim, groups), headDim + 1));
    return out;
  }
  out.q = reshapeTo(b, loc, in.q, splitDim(shapeOf(in.q), headDim, groups));
  out.k = reshapeTo(b, loc, in.k, splitDim(shapeOf(in.k), headDim, 1));
  out.v = reshapeTo(b, loc, in.v, splitDim(shapeOf(in.v), headDim, 1));
  if (in.mask)
    out.mask = reshapeTo(b, loc, in.mask, splitDim(ms, headDim, groups));
  return out;
}

namespace {

/// The attention output of an SDPA-like op whose mask argument is
/// `maskName` (empty when it has none).
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
  if (ks[rank - 1] != E || vs[rank - 2] != S) {
    op.emitError("key must be [..., ")
        << S << ", " << E << "] and value [..., " << S
        << ", Ev] for a query of head dim " << E;
    return failure();
  }
  double scale = 1.0 / std::sqrt(double(E));
  if (!args.isNone("scale")) {
    FailureOr<double> sc = args.getDouble("scale");
    if (failed(sc))
      return failure();
    scale = *sc;
  }
  Type et = elementTypeOf(*query);
  AttentionOperands in{*query, castTo(rw, loc, *key, et),
                       castTo(rw, loc, *value, et), Value()};
  SmallVector<int64_t> scores(qs.drop_back());
  scores.push_back(S);
  if (Value mask =
          maskName.empty() ? Value() : args.optionalTensor(maskName)) {
    std::optional<SmallVector<int64_t>> joint =
        broadcastShapes(shapeOf(mask), scores);
    if (!joint || ArrayRef<int64_t>(*joint) != ArrayRef<int64_t>(scores)) {
      op.emitError("attention mask of shape [")
          << shapeOf(mask) << "] does not broadcast to the scores' ["
          << scores << "]";
      return failure();
    }
    in.mask = additiveMask(rw, loc, mask, et);
  }
  // The kernel skips the key tiles past the diagonal; with more queries
  // than keys (rows past S see every key) the mask is explicit.
  bool causalOp = *causal && L <= S;
  if (*causal && !causalOp) {
    Type maskType = in.mask ? elementTypeOf(in.mask) : et;
    Value c = createCausalMask(rw, loc, L, S, maskType);
    if (in.mask)
      c = BinaryOp::create(
          rw, loc,
          RankedTensorType::get(*broadcastShapes(shapeOf(in.mask), {L, S}),
                                maskType),
          BinaryKind::add, in.mask, c);
    in.mask = c;
  }
  if (in.mask) {
    // At the query's rank, for the head views.
    SmallVector<int64_t> aligned(rank - shapeOf(in.mask).size(), 1);
    llvm::append_range(aligned, shapeOf(in.mask));
    in.mask = reshapeTo(rw, loc, in.mask, aligned);
  }

  // Batch dims: the key's and value's are the query's or broadcast (1),
  // except grouped heads.
  for (int64_t d = 0; d + 2 < rank; ++d) {
    bool served = (ks[d] == qs[d] || ks[d] == 1) &&
                  (vs[d] == qs[d] || vs[d] == 1);
    if (served)
      continue;
    bool heads = d == rank - 3 && ks[d] == vs[d] && ks[d] != 0 &&
                 qs[d] % ks[d] == 0;
    if (!heads || !gqa) {
      op.emitError("query has ")
          << qs[d] << " heads and key " << ks[d]
          << "; grouped-query attention needs enable_gqa and a multiple";
      return failure();
    }
    in = groupAttentionHeads(rw, loc, in, d, qs[d] / ks[d], causalOp);
  }
  auto outType = RankedTensorType::get(
      [&] {
        SmallVector<int64_t> shape(shapeOf(in.q));
        shape.back() = vs[rank - 1];
        return shape;
      }(),
      resultType(op).getElementType());
  Value out = AttentionOp::create(rw, loc, outType, in.q, in.k, in.v, in.mask,
                                  rw.getF64FloatAttr(scale),
                                  causalOp ? rw.getUnitAttr() : UnitAttr());
  return reshapeTo(rw, loc, out, resultType(op).getShape());
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
         "one flash-attention kernel (the math form in three kernels with "
         "--fusion=false); `is_causal`, boolean and additive masks (a fully "
         "masked row gives 0, as the math kernel's _safe_softmax), "
         "`scale`, grouped-query heads (`enable_gqa`) and broadcast batch "
         "dims without copying K/V; the probabilities are rounded to the "
         "value dtype for the second product; dropout must be 0",
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
