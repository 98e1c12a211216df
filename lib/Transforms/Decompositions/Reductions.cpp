//===- Reductions.cpp - sum, mean, max, var, softmax, argmax --------------===//
//
// Every reduction becomes `spyre.reduce`s along one dim each (the reduced
// dim kept with size 1) plus elementwise ops; spyre-form-kernels fuses them
// with their neighbours (softmax is one kernel). Sums, means, variances and
// softmaxes of f16/bf16 inputs compute in f32 and round once, as PyTorch
// accumulates.
//
//===----------------------------------------------------------------------===//

#include "spyre/Transforms/Decompositions.h"

#include "mlir/IR/Builders.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace spyre {
namespace {

/// Reduces `x` along `dims` (sorted), then drops them unless `keepdim`.
Value reduceDims(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> dims,
                 ReduceKind kind, bool keepdim) {
  for (int64_t d : dims)
    x = reduceAlong(b, loc, x, d, kind);
  if (keepdim)
    return x;
  SmallVector<int64_t> shape;
  for (auto [d, size] : llvm::enumerate(shapeOf(x)))
    if (!llvm::is_contained(dims, int64_t(d)))
      shape.push_back(size);
  return reshapeTo(b, loc, x, shape);
}

int64_t countOf(Value x, ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= shapeOf(x)[d];
  return n;
}

Value scale(OpBuilder &b, Location loc, Value x, double factor) {
  return BinaryOp::create(b, loc, x.getType(), BinaryKind::mul, x,
                          createSplat(b, loc, elementTypeOf(x), factor));
}

/// sum / mean / prod over `dim` (None or [] = all dims), in the result's
/// accumulation type: f32 for f16/bf16 as PyTorch accumulates, integers in
/// their own (wrapping) domain.
LogicalResult decomposeAccumulating(AtenOp op, const AtenArgs &args,
                                    RewriterBase &rw, ReduceKind kind,
                                    bool mean) {
  FailureOr<Value> x = args.tensor("self");
  if (failed(x))
    return failure();
  int64_t rank = shapeOf(*x).size();
  bool hasDim = op.getArg("dim") ||
                lookupAtenSchema(op.getTarget())->findArgument("dim") >= 0;
  FailureOr<SmallVector<int64_t>> dims =
      hasDim ? reductionDims(args, "dim", rank)
             : FailureOr<SmallVector<int64_t>>(
                   llvm::to_vector(llvm::seq<int64_t>(0, rank)));
  if (failed(dims))
    return failure();
  bool keepdim = false;
  if (op.getArg("keepdim")) {
    FailureOr<bool> k = args.getBool("keepdim");
    if (failed(k))
      return failure();
    keepdim = *k;
  }
  Location loc = op.getLoc();
  Type out = resultType(op).getElementType();
  Value v = castTo(rw, loc, *x, accumulationType(out));
  // Convert before dropping the reduced dims: the conversion then joins the
  // reduction's kernel, and only the reshape remains.
  Value r = reduceDims(rw, loc, v, *dims, kind, true);
  if (mean)
    r = scale(rw, loc, r, 1.0 / double(countOf(*x, *dims)));
  r = castTo(rw, loc, r, out);
  rw.replaceOp(op,
               keepdim ? r : reshapeTo(rw, loc, r, resultType(op).getShape()));
  return success();
}

/// all / any over `dim` (None, an int or a list; none = all dims): the
/// number of elements that are zero (all) or not (any), compared with 0;
/// an empty dim counts none, so all() is true and any() false there.
LogicalResult decomposeAllAny(AtenOp op, const AtenArgs &args, RewriterBase &rw,
                              bool isAll) {
  FailureOr<Value> x = args.tensor("self");
  if (failed(x))
    return failure();
  int64_t rank = shapeOf(*x).size();
  FailureOr<SmallVector<int64_t>> dims =
      op.getArg("dim") && !args.isNone("dim")
          ? reductionDims(args, "dim", rank)
          : FailureOr<SmallVector<int64_t>>(
                llvm::to_vector(llvm::seq<int64_t>(0, rank)));
  if (failed(dims))
    return failure();
  bool keepdim = false;
  if (op.getArg("keepdim")) {
    FailureOr<bool> k = args.getBool("keepdim");
    if (failed(k))
      return failure();
    keepdim = *k;
  }
  Location loc = op.getLoc();
  auto maskType = RankedTensorType::get(shapeOf(*x), rw.getI1Type());
  Value counted = CompareOp::create(
      rw, loc, maskType, isAll ? ComparePredicate::eq : ComparePredicate::ne,
      *x, createSplat(rw, loc, elementTypeOf(*x), 0));
  Value count = reduceDims(rw, loc, castTo(rw, loc, counted, rw.getI32Type()),
                           *dims, ReduceKind::sum, true);
  Value r = CompareOp::create(
      rw, loc, RankedTensorType::get(shapeOf(count), rw.getI1Type()),
      isAll ? ComparePredicate::eq : ComparePredicate::ne, count,
      createSplat(rw, loc, rw.getI32Type(), 0));
  r = castTo(rw, loc, r, resultType(op).getElementType());
  rw.replaceOp(op,
               keepdim ? r : reshapeTo(rw, loc, r, resultType(op).getShape()));
  return success();
}

/// amax / amin over dims; max.default / min.default over all.
LogicalResult decomposeExtreme(AtenOp op, const AtenArgs &args,
                               RewriterBase &rw, ReduceKind kind) {
  FailureOr<Value> x = args.tensor("self");
  if (failed(x))
    return failure();
  int64_t rank = shapeOf(*x).size();
  FailureOr<SmallVector<int64_t>> dims =
      op.getArg("dim") ? reductionDims(args, "dim", rank)
                       : FailureOr<SmallVector<int64_t>>(
                             llvm::to_vector(llvm::seq<int64_t>(0, rank)));
  if (failed(dims))
    return failure();
  bool keepdim = false;
  if (op.getArg("keepdim")) {
    FailureOr<bool> k = args.getBool("keepdim");
    if (failed(k))
      return failure();
    keepdim = *k;
  }
  Location loc = op.getLoc();
  Value r = reduceDims(rw, loc, *x, *dims, kind, keepdim);
  rw.replaceOp(op, castTo(rw, loc, r, resultType(op).getElementType()));
  return success();
}

/// max.dim / min.dim: (values, indices) along one dim.
LogicalResult decomposeExtremeDim(AtenOp op, const AtenArgs &args,
                                  RewriterBase &rw, ReduceKind kind,
                                  ReduceKind argKind) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<int64_t> dim = args.getInt("dim");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(x) || failed(dim) || failed(keepdim))
    return failure();
  FailureOr<int64_t> d = normalizeDim(op, *dim, shapeOf(*x).size());
  if (failed(d))
    return failure();
  Location loc = op.getLoc();
  Value values = reduceDims(rw, loc, *x, {*d}, kind, *keepdim);
  Value indices = reduceDims(rw, loc, *x, {*d}, argKind, *keepdim);
  rw.replaceOp(op,
               {castTo(rw, loc, values, resultType(op, 0).getElementType()),
                castTo(rw, loc, indices, resultType(op, 1).getElementType())});
  return success();
}

/// cumsum(self, dim): the prefix sums (createPrefixSum), in f32.
LogicalResult decomposeCumsum(AtenOp op, const AtenArgs &args,
                              RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<int64_t> dim = args.getInt("dim");
  if (failed(x) || failed(dim))
    return failure();
  RankedTensorType type = resultType(op);
  int64_t rank = std::max<int64_t>(type.getRank(), 1);
  FailureOr<int64_t> d = normalizeDim(op, *dim, rank);
  if (failed(d))
    return failure();
  int64_t n = type.getRank() ? type.getDimSize(*d) : 1;
  if (n > kMaxPrefixSumLength)
    return op.emitError("cumsum over ")
           << n << " elements is not supported (at most " << kMaxPrefixSumLength
           << ")";
  Location loc = op.getLoc();
  Value v = castTo(rw, loc, *x, rw.getF32Type());
  if (type.getRank() == 0)
    v = reshapeTo(rw, loc, v, {1});
  Value sums = createPrefixSum(rw, loc, v, *d, /*exclusive=*/false);
  sums = reshapeTo(rw, loc, sums, type.getShape());
  rw.replaceOp(op, castTo(rw, loc, sums, type.getElementType()));
  return success();
}

/// The longest dim sort ranks: every element is compared with every other
/// one of its line (n x n).
constexpr int64_t kMaxSortLength = 4096;

/// sort(self, dim, descending) and sort.stable: every element's rank is the
/// number of elements of its line that come before it (smaller, or equal
/// at a lower index: a stable sort), and a one-hot of the ranks picks the
/// sorted values and their indices (sums with one non-zero term: exact).
/// The results of a sort or topk: `v` viewed and cast as `type`.
Value asResult(OpBuilder &b, Location loc, Value v, RankedTensorType type) {
  return castTo(b, loc, reshapeTo(b, loc, v, type.getShape()),
                type.getElementType());
}

/// Checks that sort handles lines of `n` elements of `et`.
LogicalResult checkSortLines(AtenOp op, Type et, int64_t n) {
  if (et.isInteger(1))
    return op.emitError("sort of a bool tensor is not supported");
  if (n > kMaxSortLength)
    return op.emitError("sort of ")
           << n << "-element lines is not supported (at most " << kMaxSortLength
           << ")";
  return success();
}

/// A tensor's lines along one dim moved last, as sort views them.
struct SortLines {
  SmallVector<int64_t> perm;  // the transpose moving the dim last (and back)
  SmallVector<int64_t> moved; // the shape with the dim last
  bool transposed;            // whether the dim was not already last
  int64_t rows, n;            // [rows, n] lines
};

/// `v` (of rank `rank`) with dim `d` (of `n` elements) moved last, through a
/// transpose unless it is, and how.
std::pair<Value, SortLines> linesLast(OpBuilder &b, Location loc, Value v,
                                      int64_t d, int64_t rank, int64_t n) {
  SortLines l;
  l.perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(l.perm[d], l.perm[rank - 1]);
  l.moved.assign(shapeOf(v).begin(), shapeOf(v).end());
  std::swap(l.moved[d], l.moved[rank - 1]);
  l.transposed = d != rank - 1;
  if (l.transposed)
    v = TransposeOp::create(
        b, loc, RankedTensorType::get(l.moved, elementTypeOf(v)), v, l.perm);
  l.rows = 1;
  for (int64_t s : ArrayRef<int64_t>(l.moved).drop_back())
    l.rows *= s;
  l.n = n;
  return {v, l};
}

/// Every element's rank in its line ([R, 1, n]): the number of elements of
/// the line before it (smaller, larger when `descending`, or equal at a
/// lower index: a stable sort). `xi` and `xj` are the lines as [R, 1, n]
/// and [R, n, 1].
Value ranksInLines(OpBuilder &b, Location loc, Value xi, Value xj,
                   const SortLines &l, bool descending) {
  int64_t rows = l.rows, n = l.n;
  // [R, j, i]: element j of the line against element i.
  auto pairs = RankedTensorType::get({rows, n, n}, b.getI1Type());
  Value before = CompareOp::create(
      b, loc, pairs, descending ? ComparePredicate::gt : ComparePredicate::lt,
      xj, xi);
  Value equal = CompareOp::create(b, loc, pairs, ComparePredicate::eq, xj, xi);
  Value lowerIndex =
      CompareOp::create(b, loc, RankedTensorType::get({1, n, n}, b.getI1Type()),
                        ComparePredicate::lt, createIota(b, loc, n, 1, 3),
                        createIota(b, loc, n, 2, 3));
  Value tie = BinaryOp::create(b, loc, pairs, BinaryKind::logical_and, equal,
                               lowerIndex);
  Value ahead =
      BinaryOp::create(b, loc, pairs, BinaryKind::logical_or, before, tie);
  return reduceAlong(b, loc, castTo(b, loc, ahead, b.getI32Type()), 1,
                     ReduceKind::sum);
}

/// The elements of `line` (as `type`) at the positions `lands` ([R, r, i]:
/// element i lands at position r) gives them, back in the layout `shape`
/// (sums with one non-zero term: exact).
Value pickByRank(OpBuilder &b, Location loc, Value lands, Value line, Type type,
                 const SortLines &l, ArrayRef<int64_t> shape) {
  Value zero = createSplat(b, loc, type, 0);
  Value picked =
      SelectOp::create(b, loc, RankedTensorType::get({l.rows, l.n, l.n}, type),
                       lands, castTo(b, loc, line, type), zero);
  Value r = reduceAlong(b, loc, picked, 2, ReduceKind::sum); // [R, n, 1]
  r = reshapeTo(b, loc, r, l.moved);
  if (l.transposed)
    r = TransposeOp::create(b, loc, RankedTensorType::get(shape, type), r,
                            l.perm);
  return r;
}

/// sort(self, dim, descending) and sort.stable: every element's rank is the
/// number of elements of its line that come before it (smaller, or equal
/// at a lower index: a stable sort), and a one-hot of the ranks picks the
/// sorted values and their indices (sums with one non-zero term: exact).
LogicalResult decomposeSort(AtenOp op, const AtenArgs &args, RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<int64_t> dim = args.getInt("dim");
  FailureOr<bool> descending = args.getBool("descending");
  if (failed(x) || failed(dim) || failed(descending))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*x);
  int64_t rank = std::max<int64_t>(shape.size(), 1);
  FailureOr<int64_t> d = normalizeDim(op, *dim, rank);
  if (failed(d))
    return failure();
  Type et = elementTypeOf(*x);
  int64_t n = shape.empty() ? 1 : shape[*d];
  if (failed(checkSortLines(op, et, n)))
    return failure();
  Location loc = op.getLoc();
  Value v = shape.empty() ? reshapeTo(rw, loc, *x, {1}) : *x;
  // Lines last, as [R, n].
  auto [lines, l] = linesLast(rw, loc, v, *d, rank, n);
  Value xi = reshapeTo(rw, loc, lines, {l.rows, 1, n});
  Value xj = reshapeTo(rw, loc, lines, {l.rows, n, 1});
  Value ranks = ranksInLines(rw, loc, xi, xj, l, *descending); // [R, 1, n]
  // [R, r, i]: element i lands at position r.
  Value lands = CompareOp::create(
      rw, loc, RankedTensorType::get({l.rows, n, n}, rw.getI1Type()),
      ComparePredicate::eq, ranks, createIota(rw, loc, n, 1, 3));
  Value values =
      pickByRank(rw, loc, lands, xi, accumulationType(et), l, shapeOf(*x));
  Value indices = pickByRank(rw, loc, lands, createIota(rw, loc, n, 2, 3),
                             rw.getI64Type(), l, shapeOf(*x));
  rw.replaceOp(op, {asResult(rw, loc, values, resultType(op, 0)),
                    asResult(rw, loc, indices, resultType(op, 1))});
  return success();
}

/// The largest k that topk unrolls (two reductions and a select each).
constexpr int64_t kMaxTopK = 64;

/// topk(self, k, dim, largest, sorted): k rounds of (max, argmax) along
/// `dim`, each masking the element it took with -inf (+inf for the
/// smallest; the type's extreme for integers) through a one-hot select.
/// Results come sorted; equal values give the first index first. A row
/// whose top k reaches the mask value itself (-inf entries) may repeat an
/// index.
/// Checks that topk handles `k` of `n` elements of `et`.
LogicalResult checkTopK(AtenOp op, Type et, int64_t k, int64_t n) {
  if (et.isInteger(1))
    return op.emitError("topk of a bool tensor is not supported");
  if (k < 1 || k > n)
    return op.emitError("topk k = ")
           << k << " is out of range [1, " << n << "]";
  if (k > kMaxTopK)
    return op.emitError("topk k = ")
           << k << " is not supported (at most " << kMaxTopK << ")";
  return success();
}

/// The value a taken element becomes, one no other element beats: -inf /
/// +inf, or the integer type's extreme (exact: int64's max is no double).
Attribute takenMarker(Type et, bool largest) {
  if (auto ft = dyn_cast<FloatType>(et))
    return FloatAttr::get(ft, APFloat::getInf(ft.getFloatSemantics(),
                                              /*Negative=*/largest));
  unsigned width = et.getIntOrFloatBitWidth();
  return IntegerAttr::get(et, largest ? APInt::getSignedMinValue(width)
                                      : APInt::getSignedMaxValue(width));
}

/// k rounds of (max, argmax) (min, argmin unless `largest`) of `in` along
/// `d`, each masking the element it took with `marker` through a one-hot
/// select: the values and indices, concatenated along `d`.
std::pair<Value, Value> topKByRounds(OpBuilder &b, Location loc, Value in,
                                     int64_t d, int64_t k, bool largest,
                                     Attribute marker) {
  Type et = elementTypeOf(in);
  auto scalar = RankedTensorType::get({}, et);
  ReduceKind valueKind = largest ? ReduceKind::max : ReduceKind::min;
  ReduceKind indexKind = largest ? ReduceKind::argmax : ReduceKind::argmin;
  Value iota = createIota(b, loc, shapeOf(in)[d], d, shapeOf(in).size());
  auto maskType = RankedTensorType::get(shapeOf(in), b.getI1Type());
  Value fill = ConstantOp::create(b, loc, scalar,
                                  SplatElementsAttr::get(scalar, marker));
  SmallVector<Value> values, indices;
  Value rest = in;
  for (int64_t j = 0; j < k; ++j) {
    values.push_back(reduceAlong(b, loc, rest, d, valueKind));
    indices.push_back(reduceAlong(b, loc, rest, d, indexKind));
    if (j + 1 < k) {
      Value taken =
          CompareOp::create(b, loc, maskType, ComparePredicate::eq, iota,
                            castTo(b, loc, indices.back(), b.getI32Type()));
      rest = SelectOp::create(b, loc, rest.getType(), taken, fill, rest);
    }
  }
  Value v = concatAlong(b, loc, values, d);
  return {v, concatAlong(b, loc, indices, d)};
}

/// topk(self, k, dim, largest, sorted): k rounds of (max, argmax) along
/// `dim`, each masking the element it took with -inf (+inf for the
/// smallest; the type's extreme for integers) through a one-hot select.
/// Results come sorted; equal values give the first index first. A row
/// whose top k reaches the mask value itself (-inf entries) may repeat an
/// index.
LogicalResult decomposeTopK(AtenOp op, const AtenArgs &args, RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<int64_t> k = args.getInt("k");
  FailureOr<int64_t> dim = args.getInt("dim");
  FailureOr<bool> largest = args.getBool("largest");
  if (failed(x) || failed(k) || failed(dim) || failed(largest))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*x);
  int64_t rank = shape.size();
  FailureOr<int64_t> d = normalizeDim(op, *dim, rank);
  if (failed(d))
    return failure();
  Type et = elementTypeOf(*x);
  int64_t n = rank ? shape[*d] : 1;
  if (failed(checkTopK(op, et, *k, n)))
    return failure();
  Location loc = op.getLoc();
  Value in = rank ? *x : reshapeTo(rw, loc, *x, {1});
  auto [v, i] =
      topKByRounds(rw, loc, in, *d, *k, *largest, takenMarker(et, *largest));
  rw.replaceOp(op, {asResult(rw, loc, v, resultType(op, 0)),
                    asResult(rw, loc, i, resultType(op, 1))});
  return success();
}

/// argmax / argmin along `dim`, or over the flattened tensor when None.
LogicalResult decomposeArg(AtenOp op, const AtenArgs &args, RewriterBase &rw,
                           ReduceKind kind) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<bool> keepdim = args.getBool("keepdim");
  if (failed(x) || failed(keepdim))
    return failure();
  Location loc = op.getLoc();
  Value in = *x;
  int64_t d;
  if (args.isNone("dim")) {
    int64_t n = 1;
    for (int64_t s : shapeOf(in))
      n *= s;
    in = reshapeTo(rw, loc, in, {n});
    d = 0;
  } else {
    FailureOr<int64_t> dim = args.getInt("dim");
    if (failed(dim))
      return failure();
    FailureOr<int64_t> nd = normalizeDim(op, *dim, shapeOf(in).size());
    if (failed(nd))
      return failure();
    d = *nd;
  }
  Value r = reduceAlong(rw, loc, in, d, kind);
  rw.replaceOp(op, reshapeTo(rw, loc, r, resultType(op).getShape()));
  return success();
}

/// var's correction: `correction` (None: 1), else `unbiased` (1 or 0), else
/// 1.
FailureOr<double> readCorrection(AtenOp op, const AtenArgs &args) {
  if (op.getArg("correction")) {
    if (args.isNone("correction"))
      return 1.0;
    return args.getDouble("correction");
  }
  if (!op.getArg("unbiased"))
    return 1.0;
  FailureOr<bool> unbiased = args.getBool("unbiased");
  if (failed(unbiased))
    return failure();
  return *unbiased ? 1.0 : 0.0;
}

/// The optional `keepdim` argument (false when absent).
FailureOr<bool> readKeepdim(AtenOp op, const AtenArgs &args) {
  if (!op.getArg("keepdim"))
    return false;
  return args.getBool("keepdim");
}

/// var and var_mean: sum((x - mean)^2) / (n - correction).
LogicalResult decomposeVar(AtenOp op, const AtenArgs &args, RewriterBase &rw,
                           bool withMean) {
  FailureOr<Value> x = args.tensor("self");
  if (failed(x))
    return failure();
  int64_t rank = shapeOf(*x).size();
  FailureOr<SmallVector<int64_t>> dims = reductionDims(args, "dim", rank);
  if (failed(dims))
    return failure();
  FailureOr<double> correction = readCorrection(op, args);
  if (failed(correction))
    return failure();
  FailureOr<bool> keepdim = readKeepdim(op, args);
  if (failed(keepdim))
    return failure();
  Location loc = op.getLoc();
  Type out = resultType(op).getElementType();
  Value v = castTo(rw, loc, *x, accumulationType(out));
  int64_t n = countOf(*x, *dims);
  Value mean =
      scale(rw, loc, reduceDims(rw, loc, v, *dims, ReduceKind::sum, true),
            1.0 / double(n));
  Value centered =
      BinaryOp::create(rw, loc, v.getType(), BinaryKind::sub, v, mean);
  Value sq = BinaryOp::create(rw, loc, v.getType(), BinaryKind::mul, centered,
                              centered);
  // PyTorch divides by max(0, n - correction): with no degrees of freedom a
  // positive sum gives inf and a zero sum 0/0 = NaN, as sum * inf does.
  double denom = std::max(double(n) - *correction, 0.0);
  Value var =
      scale(rw, loc, reduceDims(rw, loc, sq, *dims, ReduceKind::sum, *keepdim),
            denom > 0 ? 1.0 / denom : std::numeric_limits<double>::infinity());
  Value result = castTo(rw, loc, var, out);
  if (!withMean) {
    rw.replaceOp(op, result);
    return success();
  }
  if (!*keepdim) {
    SmallVector<int64_t> shape(shapeOf(var));
    mean = reshapeTo(rw, loc, mean, shape);
  }
  rw.replaceOp(op, {result, castTo(rw, loc, mean, out)});
  return success();
}

/// softmax(x) = exp(x - max) / sum(exp(x - max)); log_softmax(x) =
/// x - max - log(sum(exp(x - max))). The max keeps exp from overflowing.
LogicalResult decomposeSoftmax(AtenOp op, const AtenArgs &args,
                               RewriterBase &rw, bool log, bool safe) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<int64_t> dim = args.getInt("dim");
  if (failed(x) || failed(dim))
    return failure();
  FailureOr<int64_t> d = normalizeDim(op, *dim, shapeOf(*x).size());
  if (failed(d))
    return failure();
  Location loc = op.getLoc();
  Type out = resultType(op).getElementType();
  Value v = castTo(rw, loc, *x, accumulationType(out));
  rw.replaceOp(op,
               castTo(rw, loc, createSoftmax(rw, loc, v, *d, log, safe), out));
  return success();
}

} // namespace

Value createPrefixSum(OpBuilder &b, Location loc, Value x, int64_t dim,
                      bool exclusive) {
  ArrayRef<int64_t> shape = shapeOf(x);
  Type et = elementTypeOf(x);
  int64_t rank = shape.size(), n = shape[dim];
  // The scanned dim last, as [rows, n].
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[dim], perm[rank - 1]);
  SmallVector<int64_t> moved(shape);
  std::swap(moved[dim], moved[rank - 1]);
  Value v = x;
  if (dim != rank - 1)
    v = TransposeOp::create(b, loc, RankedTensorType::get(moved, et), v, perm);
  int64_t rows = 1;
  for (int64_t s : ArrayRef<int64_t>(moved).drop_back())
    rows *= s;
  v = reshapeTo(b, loc, v, {rows, n});
  // T[i, j] = (i <= j), or (i < j) for the exclusive sums.
  Value triangle = CompareOp::create(
      b, loc, RankedTensorType::get({n, n}, b.getI1Type()),
      exclusive ? ComparePredicate::lt : ComparePredicate::le,
      createIota(b, loc, n, 0, 2), createIota(b, loc, n, 1, 2));
  auto squareType = RankedTensorType::get({n, n}, et);
  Value ones = SelectOp::create(b, loc, squareType, triangle,
                                createSplat(b, loc, et, 1.0),
                                createSplat(b, loc, et, 0.0));
  Value sums =
      MatmulOp::create(b, loc, RankedTensorType::get({rows, n}, et), v, ones);
  sums = reshapeTo(b, loc, sums, moved);
  if (dim != rank - 1)
    sums = TransposeOp::create(b, loc, RankedTensorType::get(shape, et), sums,
                               perm);
  return sums;
}

Value createSoftmax(OpBuilder &b, Location loc, Value v, int64_t d, bool log,
                    bool safe) {
  Type t = v.getType();
  Value m = reduceAlong(b, loc, v, d, ReduceKind::max);
  Value shifted = BinaryOp::create(b, loc, t, BinaryKind::sub, v, m);
  Value e = UnaryOp::create(b, loc, t, UnaryKind::exp, shifted);
  Value s = reduceAlong(b, loc, e, d, ReduceKind::sum);
  assert(!(log && safe) && "no safe log_softmax: PyTorch has none");
  if (log) {
    Value logSum = UnaryOp::create(b, loc, s.getType(), UnaryKind::log, s);
    return BinaryOp::create(b, loc, t, BinaryKind::sub, shifted, logSum);
  }
  Value p = BinaryOp::create(b, loc, t, BinaryKind::div, e, s);
  if (!safe)
    return p;
  // A row whose max is -inf is all -inf: x - max is NaN there; PyTorch's
  // _safe_softmax returns 0 for it. One compare of the row maxima and a
  // select, fused into the softmax kernel.
  Type et = elementTypeOf(v);
  Value masked = CompareOp::create(
      b, loc, RankedTensorType::get(shapeOf(m), b.getI1Type()),
      ComparePredicate::eq, m,
      createSplat(b, loc, et, -std::numeric_limits<double>::infinity()));
  return SelectOp::create(b, loc, t, masked, createSplat(b, loc, et, 0.0), p);
}

void registerReductionDecompositions(DecompositionRegistry &r) {
  const char *floats = "f16, bf16, f32";
  const char *all = "f16, bf16, f32, i32, i64";
  auto accumulating = [](ReduceKind kind, bool mean) -> DecomposeFn {
    return [=](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
      return decomposeAccumulating(op, a, rw, kind, mean);
    };
  };
  r.add({"aten.sum.dim_IntList", "reduction", all,
         "one spyre.reduce per dim; f16/bf16 accumulate in f32, integers "
         "in int64 (wrapping, as PyTorch)",
         accumulating(ReduceKind::sum, false)});
  r.add({"aten.sum.default", "reduction", all, "over all dims",
         accumulating(ReduceKind::sum, false)});
  r.add({"aten.mean.dim", "reduction", floats, "sum times 1/n",
         accumulating(ReduceKind::sum, true)});
  r.add({"aten.mean.default", "reduction", floats, "over all dims",
         accumulating(ReduceKind::sum, true)});
  r.add({"aten.prod.dim_int", "reduction", all,
         "one spyre.reduce per dim; f16/bf16 multiply in f32, integers in "
         "int64 (wrapping); an empty dim gives 1",
         accumulating(ReduceKind::prod, false)});
  r.add({"aten.prod.default", "reduction", all, "over all dims",
         accumulating(ReduceKind::prod, false)});
  for (bool isAll : {true, false}) {
    DecomposeFn fn = [isAll](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
      return decomposeAllAny(op, a, rw, isAll);
    };
    StringRef name = isAll ? "aten.all" : "aten.any";
    const char *notes = isAll ? "the count of zeros along the dims == 0"
                              : "the count of non-zeros along the dims != 0";
    for (StringRef overload : {".default", ".dim", ".dims"})
      r.add({(name + overload).str(), "reduction",
             "f16, bf16, f32, i32, i64, bool",
             overload == ".default" ? "over all dims" : notes, fn});
  }
  auto extreme = [](ReduceKind k) -> DecomposeFn {
    return [k](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
      return decomposeExtreme(op, a, rw, k);
    };
  };
  r.add({"aten.amax.default", "reduction", all, "", extreme(ReduceKind::max)});
  r.add({"aten.amin.default", "reduction", all, "", extreme(ReduceKind::min)});
  r.add({"aten.max.default", "reduction", all, "over all dims",
         extreme(ReduceKind::max)});
  r.add({"aten.min.default", "reduction", all, "over all dims",
         extreme(ReduceKind::min)});
  r.add({"aten.max.dim", "reduction", all,
         "values and the index of the first maximum",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeExtremeDim(op, a, rw, ReduceKind::max,
                                      ReduceKind::argmax);
         }});
  r.add({"aten.min.dim", "reduction", all,
         "values and the index of the first minimum",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeExtremeDim(op, a, rw, ReduceKind::min,
                                      ReduceKind::argmin);
         }});
  r.add({"aten.argmax.default", "reduction", all,
         "along a dim, or over the flattened tensor",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeArg(op, a, rw, ReduceKind::argmax);
         }});
  r.add({"aten.argmin.default", "reduction", all, "as argmax",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeArg(op, a, rw, ReduceKind::argmin);
         }});
  auto sort = [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
    return decomposeSort(op, a, rw);
  };
  r.add({"aten.sort.default", "reduction", "f16, bf16, f32, i32, i64",
         "stable: each element's rank (elements before it in its line, ties "
         "by index) and a one-hot of the ranks; lines of at most 4096 "
         "(n x n compares)",
         sort});
  r.add({"aten.sort.stable", "reduction", "f16, bf16, f32, i32, i64",
         "as sort.default (always stable)", sort});
  r.add({"aten.cumsum.default", "reduction", "f16, bf16, f32, i32, i64",
         "x @ U with U the upper triangle of ones (built on the device from "
         "two iotas) in f32: integers exact below 2^24; dims up to 8192",
         decomposeCumsum});
  r.add({"aten.topk.default", "reduction", "f16, bf16, f32, i32, i64",
         "k (at most 64) rounds of max and argmax, each masking the taken "
         "element; sorted, ties to the first index; a row whose top k "
         "reaches its -inf (or, smallest, +inf) entries may repeat an index",
         decomposeTopK});
  auto var = [](bool withMean) -> DecomposeFn {
    return [withMean](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
      return decomposeVar(op, a, rw, withMean);
    };
  };
  r.add({"aten.var.correction", "reduction", floats,
         "sum((x - mean)^2) / (n - correction)", var(false)});
  r.add({"aten.var.dim", "reduction", floats, "`unbiased` as correction 1",
         var(false)});
  r.add({"aten.var_mean.correction", "reduction", floats, "", var(true)});
  r.add({"aten.var_mean.dim", "reduction", floats, "", var(true)});
  auto softmax = [](bool log, bool safe = false) -> DecomposeFn {
    return [log, safe](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
      return decomposeSoftmax(op, a, rw, log, safe);
    };
  };
  for (const char *name : {"aten._softmax.default", "aten.softmax.int"})
    r.add({name, "reduction", floats,
           "max-shifted exp over sum, in f32; one kernel", softmax(false)});
  r.add({"aten._safe_softmax.default", "reduction", floats,
         "as softmax; a fully masked (all -inf) row gives 0, not NaN",
         softmax(false, true)});
  for (const char *name : {"aten._log_softmax.default", "aten.log_softmax.int"})
    r.add({name, "reduction", floats, "x - max - log(sum(exp(x - max)))",
           softmax(true)});
}

} // namespace spyre
