//===- FuseAttention.cpp - spyre-fuse-attention ---------------------------===//
//
// Eager attention as transformers writes it, `softmax(q @ k^T * scale +
// mask) @ v`, decomposes into two matmuls around a softmax whose scores go
// through device memory. This pass finds that chain in compute-level IR and
// makes it one `spyre.attention` (the flash kernel), so eager attention
// runs as the SDPA forms do. Passes.td has the contract.
//
// The chain, from the second matmul inwards:
//
//   matmul(P', v)                      P' = cast/reshape of P
//   P  = [select(max == -inf, 0, ...)] div(exp(X - max(X)), sum(exp(...)))
//   X  = casts, one reshape, splat scale factors and one additive mask
//        around matmul(q, k) {transpose_rhs}
//
// With attention sinks (gpt-oss), P is the first S columns of the softmax
// of cat(X, sinks) (casts and a shift by the row max around the cat): the
// sink column is one more logit per row, and becomes the op's `sinks`.
//
// The reshape is the grouped-query form canonicalization makes of
// repeat_kv: the scores of G query heads are rows of one K/V head
// ([..., Hk, G * L, S] viewed as [..., Hk * G, L, S]); the attention op is
// then built in the query-head space with K and V shared by their G heads
// (groupAttentionHeads), never copied.
//
//===----------------------------------------------------------------------===//

#include "Preconditions.h"
#include "spyre/Dialect/Spyre/ShapeUtils.h"
#include "spyre/Transforms/Decompositions.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>
#include <optional>

namespace spyre {
#define GEN_PASS_DEF_SPYREFUSEATTENTION
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {

/// The value of a splat float constant, if `v` is one.
std::optional<double> splatValue(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return std::nullopt;
  auto splat = dyn_cast<SplatElementsAttr>(c.getValue());
  if (!splat || !isa<FloatType>(splat.getElementType()))
    return std::nullopt;
  return splat.getSplatValue<APFloat>().convertToDouble();
}

/// Whether `v` is q @ k^T through casts, reshapes and splat factors: the
/// scores side of the mask's add (the mask itself may be cast or scaled,
/// but never comes from such a matmul).
bool leadsToScores(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (auto mm = dyn_cast<MatmulOp>(op))
      return mm.getTransposeRhs() && !mm.getTransposeLhs();
    if (isa<CastOp, ReshapeOp>(op)) {
      v = op->getOperand(0);
      continue;
    }
    auto bin = dyn_cast<BinaryOp>(op);
    if (!bin ||
        (bin.getKind() != BinaryKind::mul && bin.getKind() != BinaryKind::div))
      return false;
    v = splatValue(bin.getRhs()) ? bin.getLhs() : bin.getRhs();
  }
  return false;
}

/// A matched eager-attention chain.
struct EagerAttention {
  MatmulOp scores;        // q @ k^T
  MatmulOp output;        // p @ v
  Value mask;             // additive, in the softmax's space (null: none)
  double scale = 1.0;     // of the scores
  double maskScale = 1.0; // of the mask (a scale applied after adding it)
  ReshapeOp rowsToHeads;  // scores [.., Hk, G*L, S] -> [.., Hq, L, S]
  ReshapeOp headsToRows;  // probabilities back to the scores' shape
  SliceOp sinkColumnDrop; // the probabilities without the sink column
  Value sinks;            // one logit per row, [.., M, 1] (null: none)
  llvm::SetVector<Operation *> chain; // every op the attention replaces
};

/// The state of matchScores' walk down the score side.
struct ScoresWalk {
  EagerAttention &m;
  // Factors outside the mask scale it too; those inside scale the scores
  // only.
  double outer = 1.0, inner = 1.0;
  bool maskSeen = false;
};

/// The walk reached q @ k^T: records it and the scales. Returns null (the
/// walk ends).
FailureOr<Value> reachScoresMatmul(MatmulOp mm, ScoresWalk &w) {
  if (!mm.getTransposeRhs() || mm.getTransposeLhs())
    return failure();
  w.m.scores = mm;
  w.m.chain.insert(mm);
  w.m.scale = w.outer * w.inner;
  w.m.maskScale = w.outer;
  return Value();
}

/// A float cast on the score side: walks through it.
FailureOr<Value> stepThroughCast(CastOp cast, ScoresWalk &w) {
  if (!isa<FloatType>(elementTypeOf(cast.getInput())))
    return failure();
  w.m.chain.insert(cast);
  return cast.getInput();
}

/// The one reshape of the score side (grouped query heads).
FailureOr<Value> stepThroughReshape(ReshapeOp reshape, ScoresWalk &w) {
  if (w.m.rowsToHeads)
    return failure();
  w.m.rowsToHeads = reshape;
  w.m.chain.insert(reshape);
  return reshape.getInput();
}

/// A multiplication or division by a splat factor: folds it into the scale
/// of the scores (and of the mask, before the mask is seen).
FailureOr<Value> stepThroughFactor(BinaryOp bin, ScoresWalk &w) {
  Value lhs = bin.getLhs(), rhs = bin.getRhs();
  bool div = bin.getKind() == BinaryKind::div;
  std::optional<double> c = splatValue(rhs);
  Value next = lhs;
  if (!c && !div) {
    c = splatValue(lhs);
    next = rhs;
  }
  if (!c || (div && *c == 0))
    return failure();
  (w.maskSeen ? w.inner : w.outer) *= div ? 1.0 / *c : *c;
  w.m.chain.insert(bin);
  return next;
}

/// One additive mask, in the softmax's space (not the rows' space of a
/// grouped-query reshape): records it and walks down the scores side.
FailureOr<Value> stepThroughMask(BinaryOp bin, ScoresWalk &w) {
  if (bin.getKind() != BinaryKind::add || w.maskSeen || w.m.rowsToHeads)
    return failure();
  Value lhs = bin.getLhs(), rhs = bin.getRhs();
  // The scores side leads to the matmul; the other side is the mask.
  bool lhsScores = leadsToScores(lhs);
  if (lhsScores == leadsToScores(rhs))
    return failure();
  w.maskSeen = true;
  w.m.mask = lhsScores ? rhs : lhs;
  w.m.chain.insert(bin);
  return lhsScores ? lhs : rhs;
}

/// A binary op of the score side: a splat factor or the mask.
FailureOr<Value> stepThroughBinary(BinaryOp bin, ScoresWalk &w) {
  if (bin.getKind() == BinaryKind::mul || bin.getKind() == BinaryKind::div)
    return stepThroughFactor(bin, w);
  return stepThroughMask(bin, w);
}

/// One step of the walk from `op`: the next value to visit, null when the
/// matmul is reached, failure when `op` has no place in the chain.
FailureOr<Value> stepScores(Operation *op, ScoresWalk &w) {
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case([&](MatmulOp mm) { return reachScoresMatmul(mm, w); })
      .Case([&](CastOp cast) { return stepThroughCast(cast, w); })
      .Case([&](ReshapeOp reshape) { return stepThroughReshape(reshape, w); })
      .Case([&](BinaryOp bin) { return stepThroughBinary(bin, w); })
      .Default([](Operation *) { return failure(); });
}

/// Matches the score side, from the softmax input `x` down to q @ k^T:
/// casts, one reshape, splat factors, one additive mask.
LogicalResult matchScores(Value x, EagerAttention &m) {
  ScoresWalk w{m};
  Value v = x;
  while (Operation *op = v.getDefiningOp()) {
    FailureOr<Value> next = stepScores(op, w);
    if (failed(next))
      return failure();
    if (!*next)
      return success();
    v = *next;
  }
  return failure();
}

/// PyTorch's _safe_softmax: select(max == -inf, 0, p), a row whose max is
/// -inf giving 0. Peels it from `p` (recording the compare in `allMasked`)
/// and returns the plain softmax; `p` itself when there is no select.
FailureOr<Value> peelSafeSoftmax(Value p, EagerAttention &m,
                                 CompareOp &allMasked) {
  auto select = p.getDefiningOp<SelectOp>();
  if (!select)
    return p;
  allMasked = select.getCondition().getDefiningOp<CompareOp>();
  std::optional<double> zero = splatValue(select.getTrueValue());
  std::optional<double> inf =
      allMasked ? splatValue(allMasked.getRhs()) : std::nullopt;
  if (!allMasked || allMasked.getPredicate() != ComparePredicate::eq ||
      zero != 0.0 || inf != -std::numeric_limits<double>::infinity())
    return failure();
  m.chain.insert(select);
  m.chain.insert(allMasked);
  return select.getFalseValue();
}

/// The ops of a plain softmax, exp(X - max(X)) / sum(exp(...)).
struct SoftmaxOps {
  BinaryOp div;
  UnaryOp exp;
  ReduceOp sum;
  BinaryOp sub;
  ReduceOp max;
};

/// Matches `p` = exp(...) / sum(exp(...)).
LogicalResult matchNormalization(Value p, SoftmaxOps &s) {
  s.div = p.getDefiningOp<BinaryOp>();
  if (!s.div || s.div.getKind() != BinaryKind::div)
    return failure();
  s.exp = s.div.getLhs().getDefiningOp<UnaryOp>();
  s.sum = s.div.getRhs().getDefiningOp<ReduceOp>();
  if (!s.exp || s.exp.getKind() != UnaryKind::exp || !s.sum ||
      s.sum.getKind() != ReduceKind::sum ||
      s.sum.getInput() != s.exp.getResult())
    return failure();
  return success();
}

/// Matches the exp's input, X - max(X).
LogicalResult matchShiftByMax(SoftmaxOps &s) {
  s.sub = s.exp.getInput().getDefiningOp<BinaryOp>();
  if (!s.sub || s.sub.getKind() != BinaryKind::sub)
    return failure();
  s.max = s.sub.getRhs().getDefiningOp<ReduceOp>();
  if (!s.max || s.max.getKind() != ReduceKind::max ||
      s.max.getInput() != s.sub.getLhs())
    return failure();
  return success();
}

/// Matches `p`, the probabilities: the softmax of X along its last dim
/// (PyTorch's _safe_softmax form or the plain one). Returns X.
FailureOr<Value> matchSoftmax(Value p, EagerAttention &m) {
  CompareOp allMasked;
  FailureOr<Value> plain = peelSafeSoftmax(p, m, allMasked);
  if (failed(plain))
    return failure();
  p = *plain;
  SoftmaxOps s;
  if (failed(matchNormalization(p, s)) || failed(matchShiftByMax(s)))
    return failure();
  Value x = s.sub.getLhs();
  int64_t last = int64_t(shapeOf(x).size()) - 1;
  if (int64_t(s.max.getDim()) != last || int64_t(s.sum.getDim()) != last ||
      shapeOf(p) != shapeOf(x) ||
      (allMasked && allMasked.getLhs() != s.max.getResult()))
    return failure();
  for (Operation *op :
       {s.div.getOperation(), s.exp.getOperation(), s.sum.getOperation(),
        s.sub.getOperation(), s.max.getOperation()})
    m.chain.insert(op);
  return x;
}

/// Whether batch dim `n` of a key or value serves query batch dim `q`.
bool serves(int64_t n, int64_t q) { return n == 1 || n == q; }

/// Walks from p @ v's lhs through casts and at most one reshape (the
/// probabilities back to the scores' shape); returns the softmax's result.
Value peelProbabilityCasts(Value p, EagerAttention &m) {
  while (Operation *op = p.getDefiningOp()) {
    if (auto cast = dyn_cast<CastOp>(op)) {
      p = cast.getInput();
    } else if (auto reshape = dyn_cast<ReshapeOp>(op);
               reshape && !m.headsToRows) {
      m.headsToRows = reshape;
      p = reshape.getInput();
    } else {
      break;
    }
    m.chain.insert(op);
  }
  return p;
}

/// Walks from p @ v's lhs through casts and at most one reshape (the
/// probabilities back to the scores' shape), and through the slice that
/// drops a sink column when there is one; returns the softmax's result.
Value peelProbabilities(Value p, EagerAttention &m) {
  p = peelProbabilityCasts(p, m);
  auto slice = p.getDefiningOp<SliceOp>();
  if (!slice)
    return p;
  // The leading columns of the last dim, every other dim whole.
  ArrayRef<int64_t> in = shapeOf(slice.getInput()), out = shapeOf(p);
  int64_t last = int64_t(in.size()) - 1;
  if (last < 0 || in[last] <= out[last])
    return p;
  for (int64_t d = 0; d <= last; ++d)
    if (slice.getOffsets()[d] != 0 || slice.getStrides()[d] != 1 ||
        (d != last && in[d] != out[d]))
      return p;
  m.sinkColumnDrop = slice;
  m.chain.insert(slice);
  return peelProbabilityCasts(slice.getInput(), m);
}

/// `x` through casts (recorded in the chain).
Value peelCasts(Value x, EagerAttention &m) {
  while (auto cast = x.getDefiningOp<CastOp>()) {
    m.chain.insert(cast);
    x = cast.getInput();
  }
  return x;
}

/// `c - max(c)` along the last dim (softmax's own shift, written out):
/// returns c, else `x`.
Value peelRowMaxShift(Value x, EagerAttention &m) {
  auto sub = x.getDefiningOp<BinaryOp>();
  if (!sub || sub.getKind() != BinaryKind::sub)
    return x;
  auto max = sub.getRhs().getDefiningOp<ReduceOp>();
  if (!max || max.getKind() != ReduceKind::max ||
      max.getInput() != sub.getLhs() ||
      int64_t(max.getDim()) != int64_t(shapeOf(x).size()) - 1)
    return x;
  m.chain.insert(sub);
  m.chain.insert(max);
  return sub.getLhs();
}

/// With a sink column dropped from the probabilities, the softmax input
/// `x` is cat(X, sinks) along the last dim, through casts and a shift by
/// the row max: records the sinks (a broadcast along the rows peeled) and
/// returns X, the scores the probabilities keep; failure when it is not.
FailureOr<Value> matchSinkColumn(Value x, EagerAttention &m) {
  if (!m.sinkColumnDrop)
    return x;
  Value c = peelCasts(peelRowMaxShift(peelCasts(x, m), m), m);
  auto cat = c.getDefiningOp<ConcatOp>();
  int64_t last = int64_t(shapeOf(c).size()) - 1;
  if (!cat || cat.getInputs().size() != 2 || int64_t(cat.getDim()) != last)
    return failure();
  Value scores = cat.getInputs()[0], column = cat.getInputs()[1];
  if (shapeOf(column)[last] != 1 ||
      shapeOf(scores) != shapeOf(m.sinkColumnDrop.getResult()))
    return failure();
  m.chain.insert(cat);
  if (auto bcast = column.getDefiningOp<BroadcastOp>();
      bcast && bcast->hasOneUse()) {
    m.chain.insert(bcast);
    column = bcast.getInput();
  }
  m.sinks = column;
  return scores;
}

/// Whether every op of the chain feeds only the chain or `out`.
bool chainFeedsOnlyItself(const EagerAttention &m, MatmulOp out) {
  for (Operation *op : m.chain)
    for (Operation *user : op->getUsers())
      if (user != out && !m.chain.contains(user))
        return false;
  return true;
}

/// Grouped query heads: [.., Hk, G * L, S] scores are [.., Hk * G, L, S]
/// (`xs`, the softmax's shape).
bool groupedHeadsMatch(EagerAttention &m, ArrayRef<int64_t> scores,
                       ArrayRef<int64_t> xs, int64_t rank) {
  int64_t headDim = rank - 3;
  return !(rank < 3 || scores.take_front(headDim) != xs.take_front(headDim) ||
           scores.back() != xs.back() || xs[headDim] % scores[headDim] != 0 ||
           scores[rank - 2] * scores[headDim] != xs[rank - 2] * xs[headDim] ||
           shapeOf(m.headsToRows.getResult()) != scores);
}

/// Whether q, k and v share one float element type.
bool shareFloatType(Value q, Value k, Value v) {
  Type et = elementTypeOf(q);
  return isa<FloatType>(et) && elementTypeOf(k) == et && elementTypeOf(v) == et;
}

/// Whether k, v and the softmax input (`xs`) have the queries' rank, at
/// least 2, and k and v as many key positions.
bool ranksMatch(ArrayRef<int64_t> qs, ArrayRef<int64_t> ks,
                ArrayRef<int64_t> vs, ArrayRef<int64_t> xs) {
  int64_t rank = qs.size();
  return !(rank < 2 || int64_t(ks.size()) != rank ||
           int64_t(vs.size()) != rank || int64_t(xs.size()) != rank ||
           vs[rank - 2] != ks[rank - 2]);
}

/// Whether every batch dim of k and v serves the queries' (the scores' head
/// count at `headDim`, the softmax's elsewhere).
bool keysServeQueries(ArrayRef<int64_t> ks, ArrayRef<int64_t> vs,
                      ArrayRef<int64_t> scores, ArrayRef<int64_t> xs,
                      int64_t headDim) {
  int64_t rank = xs.size();
  for (int64_t d = 0; d + 2 < rank; ++d) {
    int64_t heads = d == headDim ? scores[d] : xs[d];
    if (!serves(ks[d], heads) || !serves(vs[d], heads))
      return false;
  }
  return true;
}

/// Whether the sinks are floats broadcasting to the rows of the scores
/// `xs` ([.., M, 1]).
bool sinksFitRows(const EagerAttention &m, ArrayRef<int64_t> xs) {
  if (!m.sinks)
    return true;
  SmallVector<int64_t> rows(xs.drop_back());
  rows.push_back(1);
  std::optional<SmallVector<int64_t>> joint =
      broadcastShapes(shapeOf(m.sinks), rows);
  return isa<FloatType>(elementTypeOf(m.sinks)) && joint &&
         ArrayRef<int64_t>(*joint) == ArrayRef<int64_t>(rows);
}

/// Whether q, k, v and the softmax input `x` have attention's types and
/// shapes (K and V batch dims broadcast over or equal to the queries').
bool hasAttentionShapes(EagerAttention &m, Value x) {
  Value q = m.scores.getLhs(), k = m.scores.getRhs(), v = m.output.getRhs();
  if (!shareFloatType(q, k, v))
    return false;
  ArrayRef<int64_t> qs = shapeOf(q), ks = shapeOf(k), vs = shapeOf(v),
                    scores = shapeOf(m.scores.getResult()), xs = shapeOf(x);
  if (!ranksMatch(qs, ks, vs, xs))
    return false;
  int64_t rank = qs.size();
  int64_t headDim = m.rowsToHeads ? rank - 3 : -1;
  if (m.rowsToHeads ? !groupedHeadsMatch(m, scores, xs, rank) : scores != xs)
    return false;
  return sinksFitRows(m, xs) && keysServeQueries(ks, vs, scores, xs, headDim);
}

/// The eager-attention chain that ends in `out` (p @ v), checked: every op
/// of it feeds only the chain, and the shapes are attention's.
FailureOr<EagerAttention> matchEagerAttention(MatmulOp out) {
  if (out.getTransposeLhs() || out.getTransposeRhs())
    return failure();
  EagerAttention m;
  m.output = out;
  Value p = peelProbabilities(out.getLhs(), m);
  FailureOr<Value> x = matchSoftmax(p, m);
  if (succeeded(x))
    x = matchSinkColumn(*x, m);
  if (failed(x) || failed(matchScores(*x, m)) ||
      bool(m.rowsToHeads) != bool(m.headsToRows))
    return failure();
  if (!chainFeedsOnlyItself(m, out) || !hasAttentionShapes(m, *x))
    return failure();
  return m;
}

/// Replaces the matched chain by one spyre.attention.
void fuse(RewriterBase &rw, EagerAttention &m) {
  MatmulOp out = m.output;
  Location loc = out.getLoc();
  rw.setInsertionPoint(out);
  Value q = m.scores.getLhs();
  ArrayRef<int64_t> xs =
      shapeOf(m.headsToRows ? m.headsToRows.getInput() : m.scores.getResult());
  int64_t rank = xs.size();
  AttentionOperands in{q, m.scores.getRhs(), out.getRhs(), m.mask};
  auto alignRank = [&](Value t) {
    SmallVector<int64_t> aligned(rank - shapeOf(t).size(), 1);
    llvm::append_range(aligned, shapeOf(t));
    return reshapeTo(rw, loc, t, aligned);
  };
  if (m.sinks)
    in.sinks = alignRank(m.sinks);
  if (in.mask) {
    if (m.maskScale != 1.0)
      in.mask = BinaryOp::create(
          rw, loc, in.mask.getType(), BinaryKind::mul, in.mask,
          createSplat(rw, loc, elementTypeOf(in.mask), m.maskScale));
    in.mask = alignRank(in.mask);
  }
  if (m.rowsToHeads) {
    // q in the query heads' space, K and V shared by their G heads.
    int64_t headDim = rank - 3;
    SmallVector<int64_t> qShape(xs.drop_back());
    qShape.push_back(shapeOf(q).back());
    in.q = reshapeTo(rw, loc, q, qShape);
    int64_t kvHeads = shapeOf(m.scores.getResult())[headDim];
    if (shapeOf(in.k)[headDim] != 1 || shapeOf(in.v)[headDim] != 1)
      in = groupAttentionHeads(rw, loc, in, headDim, xs[headDim] / kvHeads,
                               /*causal=*/false);
  }
  SmallVector<int64_t> resultShape(shapeOf(in.q));
  resultShape.back() = shapeOf(in.v).back();
  auto outType = cast<RankedTensorType>(out.getType());
  Value attention = AttentionOp::create(
      rw, loc, RankedTensorType::get(resultShape, outType.getElementType()),
      in.q, in.k, in.v, in.mask, in.sinks, /*rope_cos=*/Value(),
      /*rope_sin=*/Value(), /*rope_rotation=*/Value(),
      rw.getF64FloatAttr(m.scale), UnitAttr());
  rw.replaceOp(out, reshapeTo(rw, loc, attention, outType.getShape()));
  // The chain, users first.
  SmallVector<Operation *> dead(m.chain.begin(), m.chain.end());
  while (!dead.empty()) {
    auto unused =
        llvm::find_if(dead, [](Operation *op) { return op->use_empty(); });
    assert(unused != dead.end() && "the chain feeds only itself");
    rw.eraseOp(*unused);
    dead.erase(unused);
  }
}

struct FuseAttentionPass
    : public spyre::impl::SpyreFuseAttentionBase<FuseAttentionPass> {
  void runOnOperation() override {
    if (failed(requireComputeLevel(getOperation(), getArgument())))
      return signalPassFailure();
    SmallVector<MatmulOp> candidates;
    getOperation().walk([&](MatmulOp op) { candidates.push_back(op); });
    llvm::DenseSet<Operation *> erased;
    IRRewriter rw(&getContext());
    for (MatmulOp out : candidates) {
      if (erased.contains(out))
        continue;
      FailureOr<EagerAttention> m = matchEagerAttention(out);
      if (failed(m))
        continue;
      erased.insert(m->chain.begin(), m->chain.end());
      fuse(rw, *m);
    }
  }
};

} // namespace
