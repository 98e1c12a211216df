//===- Attention.cpp - scaled_dot_product_attention -----------------------===//
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
  // G heads x L queries as the rows of one tile, when the mask and the
  // sinks read them alike: each varies along neither, or along both (then
  // a view). Not when causal: a row's query position would no longer be
  // its index.
  auto readsAlike = [&](Value t) {
    if (!t)
      return true;
    ArrayRef<int64_t> s = shapeOf(t);
    return (s[headDim] == 1) == (s[rank - 2] == 1);
  };
  bool fold =
      !causal && (L == 1 || (readsAlike(in.mask) && readsAlike(in.sinks)));
  // A mask or sinks view: dim `headDim` split into [heads, groups], merged
  // with the rows when folding.
  auto grouped = [&](Value t) -> Value {
    if (!t)
      return t;
    SmallVector<int64_t> shape = splitDim(shapeOf(t), headDim, groups);
    return reshapeTo(b, loc, t, fold ? mergeDims(shape, headDim + 1) : shape);
  };
  AttentionOperands out{in.q, in.k, in.v};
  if (fold) {
    out.q = reshapeTo(
        b, loc, in.q,
        mergeDims(splitDim(shapeOf(in.q), headDim, groups), headDim + 1));
  } else {
    out.q = reshapeTo(b, loc, in.q, splitDim(shapeOf(in.q), headDim, groups));
    out.k = reshapeTo(b, loc, in.k, splitDim(shapeOf(in.k), headDim, 1));
    out.v = reshapeTo(b, loc, in.v, splitDim(shapeOf(in.v), headDim, 1));
  }
  out.mask = grouped(in.mask);
  out.sinks = grouped(in.sinks);
  return out;
}

namespace {

/// The optional `enable_gqa` argument (false when absent).
FailureOr<bool> readEnableGqa(AtenOp op, const AtenArgs &args) {
  if (!op.getArg("enable_gqa"))
    return false;
  return args.getBool("enable_gqa");
}

/// Checks that query, key and value are [..., L, E], [..., S, E] and
/// [..., S, Ev] of one rank >= 2.
LogicalResult checkQkvShapes(AtenOp op, ArrayRef<int64_t> qs,
                             ArrayRef<int64_t> ks, ArrayRef<int64_t> vs) {
  int64_t rank = qs.size();
  if (rank < 2 || ks.size() != qs.size() || vs.size() != qs.size()) {
    op.emitError("attention needs query, key and value of one rank >= 2");
    return failure();
  }
  int64_t E = qs[rank - 1], S = ks[rank - 2];
  if (ks[rank - 1] != E || vs[rank - 2] != S) {
    op.emitError("key must be [..., ")
        << S << ", " << E << "] and value [..., " << S
        << ", Ev] for a query of head dim " << E;
    return failure();
  }
  return success();
}

/// The `scale` argument; 1 / sqrt(E) when None.
FailureOr<double> readScale(const AtenArgs &args, int64_t E) {
  if (args.isNone("scale"))
    return 1.0 / std::sqrt(double(E));
  return args.getDouble("scale");
}

/// The checked arguments of an SDPA-like op.
struct SdpaInputs {
  Value query, key, value;
  bool causal, gqa;
  double scale;
};

/// Reads and checks query, key, value, dropout_p (0 only), is_causal,
/// enable_gqa and scale.
FailureOr<SdpaInputs> readSdpaInputs(AtenOp op, const AtenArgs &args) {
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
  FailureOr<bool> gqa = readEnableGqa(op, args);
  if (failed(gqa))
    return failure();
  ArrayRef<int64_t> qs = shapeOf(*query);
  if (failed(checkQkvShapes(op, qs, shapeOf(*key), shapeOf(*value))))
    return failure();
  FailureOr<double> scale = readScale(args, qs.back());
  if (failed(scale))
    return failure();
  return SdpaInputs{*query, *key, *value, *causal, *gqa, *scale};
}

/// The mask argument `maskName` in its additive form in `et`, null when
/// there is none; an error when it does not broadcast to `scores`.
FailureOr<Value> readAdditiveMask(AtenOp op, const AtenArgs &args, OpBuilder &b,
                                  StringRef maskName, ArrayRef<int64_t> scores,
                                  Type et) {
  Value mask = maskName.empty() ? Value() : args.optionalTensor(maskName);
  if (!mask)
    return Value();
  std::optional<SmallVector<int64_t>> joint =
      broadcastShapes(shapeOf(mask), scores);
  if (!joint || ArrayRef<int64_t>(*joint) != scores) {
    op.emitError("attention mask of shape [")
        << shapeOf(mask) << "] does not broadcast to the scores' [" << scores
        << "]";
    return failure();
  }
  return additiveMask(b, op.getLoc(), mask, et);
}

/// `mask` (null: none) plus the is_causal mask as an explicit additive
/// [L, S] tensor.
Value addCausalMask(OpBuilder &b, Location loc, Value mask, int64_t L,
                    int64_t S, Type et) {
  Type maskType = mask ? elementTypeOf(mask) : et;
  Value c = createCausalMask(b, loc, L, S, maskType);
  if (mask)
    c = BinaryOp::create(b, loc,
                         RankedTensorType::get(
                             *broadcastShapes(shapeOf(mask), {L, S}), maskType),
                         BinaryKind::add, mask, c);
  return c;
}

/// `mask` at rank `rank` (leading 1s), for the head views.
Value alignMaskRank(OpBuilder &b, Location loc, Value mask, int64_t rank) {
  SmallVector<int64_t> aligned(rank - shapeOf(mask).size(), 1);
  llvm::append_range(aligned, shapeOf(mask));
  return reshapeTo(b, loc, mask, aligned);
}

/// Whether key and value serve the query in batch dim `d`: their size is
/// the query's or broadcast (1).
bool servesQuery(ArrayRef<int64_t> qs, ArrayRef<int64_t> ks,
                 ArrayRef<int64_t> vs, int64_t d) {
  return (ks[d] == qs[d] || ks[d] == 1) && (vs[d] == qs[d] || vs[d] == 1);
}

/// Whether batch dim `d` is the heads dim with a whole number of query
/// heads per key/value head.
bool isGroupedHeadsDim(ArrayRef<int64_t> qs, ArrayRef<int64_t> ks,
                       ArrayRef<int64_t> vs, int64_t d) {
  int64_t rank = qs.size();
  return d == rank - 3 && ks[d] == vs[d] && ks[d] != 0 && qs[d] % ks[d] == 0;
}

/// `in` with grouped query heads viewed (groupAttentionHeads) where key and
/// value have fewer heads than the query; an error for any other batch dim
/// they do not serve, or without enable_gqa (`gqa`).
FailureOr<AttentionOperands>
groupBatchDims(AtenOp op, OpBuilder &b, AttentionOperands in,
               ArrayRef<int64_t> qs, ArrayRef<int64_t> ks, ArrayRef<int64_t> vs,
               bool gqa, bool causal) {
  int64_t rank = qs.size();
  for (int64_t d = 0; d + 2 < rank; ++d) {
    if (servesQuery(qs, ks, vs, d))
      continue;
    if (!isGroupedHeadsDim(qs, ks, vs, d) || !gqa) {
      op.emitError("query has ")
          << qs[d] << " heads and key " << ks[d]
          << "; grouped-query attention needs enable_gqa and a multiple";
      return failure();
    }
    in = groupAttentionHeads(b, op.getLoc(), in, d, qs[d] / ks[d], causal);
  }
  return in;
}

/// The operands of `spyre.attention` for `in`: key and value in the
/// query's element type, the mask additive (plus an explicit causal mask
/// when is_causal is not the op's `causalOp`) at the query's rank, grouped
/// query heads viewed.
FailureOr<AttentionOperands>
attentionOperands(AtenOp op, const AtenArgs &args, OpBuilder &b,
                  const SdpaInputs &in, StringRef maskName, bool causalOp) {
  Location loc = op.getLoc();
  ArrayRef<int64_t> qs = shapeOf(in.query), ks = shapeOf(in.key),
                    vs = shapeOf(in.value);
  int64_t rank = qs.size();
  int64_t L = qs[rank - 2], S = ks[rank - 2];
  Type et = elementTypeOf(in.query);
  AttentionOperands out{in.query, castTo(b, loc, in.key, et),
                        castTo(b, loc, in.value, et), Value()};
  SmallVector<int64_t> scores(qs.drop_back());
  scores.push_back(S);
  FailureOr<Value> mask = readAdditiveMask(op, args, b, maskName, scores, et);
  if (failed(mask))
    return failure();
  out.mask = *mask;
  if (in.causal && !causalOp)
    out.mask = addCausalMask(b, loc, out.mask, L, S, et);
  if (out.mask)
    out.mask = alignMaskRank(b, loc, out.mask, rank);
  return groupBatchDims(op, b, out, qs, ks, vs, in.gqa, causalOp);
}

/// The attention output of an SDPA-like op whose mask argument is
/// `maskName` (empty when it has none).
FailureOr<Value> buildSdpa(AtenOp op, const AtenArgs &args, RewriterBase &rw,
                           StringRef maskName) {
  FailureOr<SdpaInputs> in = readSdpaInputs(op, args);
  if (failed(in))
    return failure();
  ArrayRef<int64_t> qs = shapeOf(in->query), ks = shapeOf(in->key);
  int64_t rank = qs.size();
  // The kernel skips the key tiles past the diagonal; with more queries
  // than keys (rows past S see every key) the mask is explicit.
  bool causalOp = in->causal && qs[rank - 2] <= ks[rank - 2];
  FailureOr<AttentionOperands> operands =
      attentionOperands(op, args, rw, *in, maskName, causalOp);
  if (failed(operands))
    return failure();
  SmallVector<int64_t> outShape(shapeOf(operands->q));
  outShape.back() = shapeOf(in->value).back();
  auto outType =
      RankedTensorType::get(outShape, resultType(op).getElementType());
  Location loc = op.getLoc();
  Value out = AttentionOp::create(
      rw, loc, outType, operands->q, operands->k, operands->v, operands->mask,
      /*sinks=*/Value(), /*rope_cos=*/Value(), /*rope_sin=*/Value(),
      /*rope_rotation=*/Value(), rw.getF64FloatAttr(in->scale),
      causalOp ? rw.getUnitAttr() : UnitAttr());
  return reshapeTo(rw, loc, out, resultType(op).getShape());
}

LogicalResult decomposeSdpa(AtenOp op, const AtenArgs &args, RewriterBase &rw) {
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
