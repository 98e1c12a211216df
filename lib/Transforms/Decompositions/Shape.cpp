//===- Shape.cpp - Data movement and shape aten ops ------------------------===//
//
// Views (reshape, unsqueeze, squeeze, flatten, expand) become `spyre.reshape`
// and `spyre.broadcast` (free when they keep the innermost dim); windows
// `spyre.slice`; joins `spyre.concat`; index ops `spyre.gather` and
// `spyre.scatter`; tensor factories (full, arange, masks) constants.
// Permutations become `spyre.transpose`, folded into a consuming matmul's
// flags during canonicalization.
//
//===----------------------------------------------------------------------===//

#include "spyre/Transforms/CostModel.h"
#include "spyre/Transforms/Decompositions.h"
#include "spyre/Dialect/Spyre/ShapeUtils.h"

#include "mlir/IR/Builders.h"

#include <cmath>

using namespace mlir;

namespace spyre {
namespace {

/// reshape-like ops: the result type is authoritative.
LogicalResult decomposeReshape(AtenOp op, const AtenArgs &args,
                               RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  if (failed(x))
    return failure();
  rw.replaceOp(op, reshapeTo(rw, op.getLoc(), *x, resultType(op).getShape()));
  return success();
}

LogicalResult decomposeExpand(AtenOp op, const AtenArgs &args,
                              RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  if (failed(x))
    return failure();
  RankedTensorType type = resultType(op);
  if (type.getShape() == shapeOf(*x)) {
    rw.replaceOp(op, *x);
    return success();
  }
  rw.replaceOpWithNewOp<BroadcastOp>(op, type, *x);
  return success();
}

LogicalResult decomposeT(AtenOp op, const AtenArgs &args, RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  if (failed(x))
    return failure();
  int64_t rank = shapeOf(*x).size();
  if (rank < 2) {
    rw.replaceOp(op, *x);
    return success();
  }
  rw.replaceOpWithNewOp<TransposeOp>(op, resultType(op), *x,
                                     ArrayRef<int64_t>{1, 0});
  return success();
}

LogicalResult decomposePermute(AtenOp op, const AtenArgs &args,
                               RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<SmallVector<int64_t>> dims = args.getIntList("dims");
  if (failed(x) || failed(dims))
    return failure();
  int64_t rank = shapeOf(*x).size();
  if (int64_t(dims->size()) != rank)
    return op.emitError("permute needs ")
           << rank << " dims for a rank-" << rank << " tensor, got "
           << dims->size();
  SmallVector<int64_t> perm;
  for (int64_t d : *dims) {
    FailureOr<int64_t> n = normalizeDim(op, d, rank);
    if (failed(n))
      return failure();
    perm.push_back(*n);
  }
  rw.replaceOpWithNewOp<TransposeOp>(op, resultType(op), *x, perm);
  return success();
}

LogicalResult decomposeTranspose(AtenOp op, const AtenArgs &args,
                                 RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<int64_t> d0 = args.getInt("dim0");
  FailureOr<int64_t> d1 = args.getInt("dim1");
  if (failed(x) || failed(d0) || failed(d1))
    return failure();
  int64_t rank = shapeOf(*x).size();
  FailureOr<int64_t> a = normalizeDim(op, *d0, rank);
  FailureOr<int64_t> b = normalizeDim(op, *d1, rank);
  if (failed(a) || failed(b))
    return failure();
  if (rank < 2 || *a == *b) {
    rw.replaceOp(op, *x);
    return success();
  }
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[*a], perm[*b]);
  rw.replaceOpWithNewOp<TransposeOp>(op, resultType(op), *x, perm);
  return success();
}

/// A window along one dim (start, end, step as Python slicing clamps them).
Value sliceAlong(OpBuilder &b, Location loc, Value x, int64_t dim,
                 int64_t start, int64_t size, int64_t step) {
  ArrayRef<int64_t> in = shapeOf(x);
  SmallVector<int64_t> offsets(in.size(), 0), strides(in.size(), 1),
      shape(in);
  offsets[dim] = start;
  strides[dim] = step;
  shape[dim] = size;
  if (start == 0 && step == 1 && size == in[dim])
    return x;
  return SliceOp::create(b, loc, RankedTensorType::get(shape, elementTypeOf(x)),
                         x, offsets, strides);
}

LogicalResult decomposeSlice(AtenOp op, const AtenArgs &args,
                             RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<int64_t> dim = args.getInt("dim");
  FailureOr<int64_t> step = args.getInt("step");
  if (failed(x) || failed(dim) || failed(step))
    return failure();
  int64_t rank = shapeOf(*x).size();
  FailureOr<int64_t> d = normalizeDim(op, *dim, rank);
  if (failed(d))
    return failure();
  if (*step < 1)
    return op.emitError("slice step must be positive, got ") << *step;
  int64_t n = shapeOf(*x)[*d];
  auto clampIndex = [&](StringRef name, int64_t dflt) -> FailureOr<int64_t> {
    if (args.isNone(name))
      return dflt;
    FailureOr<int64_t> v = args.getInt(name);
    if (failed(v))
      return failure();
    int64_t i = *v < 0 ? *v + n : *v;
    return std::clamp<int64_t>(i, 0, n);
  };
  FailureOr<int64_t> start = clampIndex("start", 0);
  FailureOr<int64_t> end = clampIndex("end", n);
  if (failed(start) || failed(end))
    return failure();
  int64_t size = resultType(op).getDimSize(*d);
  rw.replaceOp(op, sliceAlong(rw, op.getLoc(), *x, *d, *start, size, *step));
  return success();
}

/// select.int: a one-wide slice, the dim dropped.
LogicalResult decomposeSelect(AtenOp op, const AtenArgs &args,
                              RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<int64_t> dim = args.getInt("dim");
  FailureOr<int64_t> index = args.getInt("index");
  if (failed(x) || failed(dim) || failed(index))
    return failure();
  FailureOr<int64_t> d = normalizeDim(op, *dim, shapeOf(*x).size());
  if (failed(d))
    return failure();
  int64_t n = shapeOf(*x)[*d];
  int64_t i = *index < 0 ? *index + n : *index;
  if (i < 0 || i >= n)
    return op.emitError("select index ") << *index << " out of range for size "
                                         << n;
  Value s = sliceAlong(rw, op.getLoc(), *x, *d, i, 1, 1);
  rw.replaceOp(op, reshapeTo(rw, op.getLoc(), s, resultType(op).getShape()));
  return success();
}

//===----------------------------------------------------------------------===//
// Adapter: RoPE's rotate_half as a matmul
//===----------------------------------------------------------------------===//
//
// Llama-style rotary embeddings export rotate_half(x) (x: [..., D], D the
// head dim, innermost: the stick dim) as
//   cat(neg(slice(x, -1, D/2, D)), slice(x, -1, 0, D/2), dim = -1).
// Decomposed literally that is two slices of the stick dim, a neg and a
// concatenation: three data movement kernels (each a device-memory round
// trip, half-stick windows moved as exact byte runs) plus the neg.
// rotate_half is linear: rotate_half(x) = x @ R with R the constant D x D
// signed permutation R[j + D/2][j] = -1, R[j - D/2][j] = +1. One matmul on
// the PT array reads x once, writes the result once and takes the
// following `* sin` as its epilogue. It is exact: every output is one input
// times +-1 plus zeros, accumulated in f32 (for finite x; an inf or NaN in
// a row would spread over the row through the zeros of R).
//
// It is not always cheaper: the matmul does rows * D * D MACs and reads R
// (D * D elements) where the slices only move rows * D elements. The choice
// is made per node with the machine description's cost model (roofline
// time of each kernel plus a fixed cost per kernel: the barrier between
// kernels and one memory latency). With the default description the matmul
// wins for every prefill shape up to D ~ 2000, and in decode (a few rows)
// while D <= ~300, where reading R starts to cost more than the two extra
// kernels save. (On test/e2e/models/block_llama_decoder, D = 32, the
// simulator measured 70.9 us with the rewrite against 81.8 us without:
// 32 kernels instead of 40, with bit-identical outputs.)

/// Bytes of a [rows, cols] tensor stored in whole sticks.
int64_t stickedBytes(const Arch &arch, int64_t rows, int64_t cols,
                     int64_t elementBytes) {
  int64_t e = arch.elementsPerStick(elementBytes);
  return rows * ((cols + e - 1) / e) * arch.stickBytes;
}

/// Whether x @ R ([rows, d] by [d, d]) is estimated faster than the slice,
/// slice, (neg,) concat kernels it replaces.
bool rotateHalfByMatmulIsCheaper(const Arch &arch, int64_t rows, int64_t d,
                                 int64_t elementBytes) {
  auto bytes = [&](int64_t r, int64_t c) {
    return stickedBytes(arch, r, c, elementBytes);
  };
  double perKernel = double(arch.barrierLatencyNs + arch.memoryLatencyNs);
  int64_t half = bytes(rows, d / 2), full = bytes(rows, d);
  // Each slice reads and writes a half; the concatenation reads both halves
  // and writes the whole. The neg is counted as fused (free): the estimate
  // favours the slices.
  double slices = rooflineNs(arch, 0, 2 * half) * 2 +
                  rooflineNs(arch, 0, 2 * half + full) + 3 * perKernel;
  int64_t width = arch.ptCols * arch.ptSimd;
  int64_t macs = ((rows + arch.ptRows - 1) / arch.ptRows * arch.ptRows) *
                 ((d + width - 1) / width * width) * d;
  double matmul =
      rooflineNs(arch, macs, 2 * full + bytes(d, d)) + perKernel;
  return matmul <= slices;
}

/// `v` as `SliceOp` of `x` along the last dim at [start, start + size),
/// unit strides, every other dim whole.
bool isLastDimWindow(Value v, Value &x, int64_t start, int64_t size) {
  auto slice = v.getDefiningOp<SliceOp>();
  if (!slice || !slice->hasOneUse())
    return false;
  Value in = slice.getInput();
  if (x && in != x)
    return false;
  ArrayRef<int64_t> inShape = shapeOf(in), outShape = shapeOf(v);
  int64_t last = int64_t(inShape.size()) - 1;
  if (last < 0 || outShape.size() != inShape.size())
    return false;
  for (int64_t d = 0; d <= last; ++d) {
    if (slice.getStrides()[d] != 1)
      return false;
    if (slice.getOffsets()[d] != (d == last ? start : 0))
      return false;
    if (outShape[d] != (d == last ? size : inShape[d]))
      return false;
  }
  x = in;
  return true;
}

/// The rotate_half pattern above, on the concatenation's already decomposed
/// inputs: returns x, or null.
Value matchRotateHalf(ArrayRef<Value> parts, int64_t dim,
                      RankedTensorType type) {
  int64_t rank = type.getRank();
  if (parts.size() != 2 || dim != rank - 1 || rank < 1 ||
      !isa<FloatType>(type.getElementType()))
    return nullptr;
  int64_t d = type.getShape().back();
  if (d < 2 || d % 2)
    return nullptr;
  auto neg = parts[0].getDefiningOp<UnaryOp>();
  if (!neg || neg.getKind() != UnaryKind::neg || !neg->hasOneUse())
    return nullptr;
  Value x;
  if (!isLastDimWindow(neg.getInput(), x, d / 2, d / 2) ||
      !isLastDimWindow(parts[1], x, 0, d / 2) || x.getType() != type)
    return nullptr;
  return x;
}

/// x @ R for the rotate_half permutation R of x's last dim.
Value rotateHalfByMatmul(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  Type et = type.getElementType();
  int64_t d = type.getShape().back();
  auto rType = RankedTensorType::get({d, d}, et);
  auto ft = cast<FloatType>(et);
  APFloat zero = APFloat::getZero(ft.getFloatSemantics());
  APFloat one = APFloat::getOne(ft.getFloatSemantics());
  APFloat minusOne = APFloat::getOne(ft.getFloatSemantics(), true);
  SmallVector<APFloat> r(d * d, zero);
  for (int64_t j = 0; j < d; ++j) {
    if (j < d / 2)
      r[(j + d / 2) * d + j] = minusOne; // out[j] = -x[j + D/2]
    else
      r[(j - d / 2) * d + j] = one; // out[j] = x[j - D/2]
  }
  Value rot = ConstantOp::create(b, loc, rType,
                                 DenseElementsAttr::get(rType, r));
  return MatmulOp::create(b, loc, type, x, rot);
}

LogicalResult decomposeCat(AtenOp op, const AtenArgs &args, RewriterBase &rw) {
  SmallVector<Value> inputs = args.tensorList("tensors");
  FailureOr<int64_t> dim = args.getInt("dim");
  if (failed(dim))
    return failure();
  RankedTensorType type = resultType(op);
  FailureOr<int64_t> d = normalizeDim(op, *dim, type.getRank());
  if (failed(d))
    return failure();
  // Empty inputs (legacy 1-D [0] tensors included) add nothing.
  SmallVector<Value> parts;
  for (Value v : inputs)
    if (shapeOf(v).size() == size_t(type.getRank()) && shapeOf(v)[*d] != 0)
      parts.push_back(castTo(rw, op.getLoc(), v, type.getElementType()));
  if (parts.empty()) { // every input empty: so is the result
    rw.replaceOp(op, createSplat(rw, op.getLoc(), type.getElementType(), 0,
                                 type.getShape()));
    return success();
  }
  if (parts.size() == 1) {
    rw.replaceOp(op, parts.front());
    return success();
  }
  if (Value x = matchRotateHalf(parts, *d, type)) {
    int64_t dim = type.getShape().back();
    if (rotateHalfByMatmulIsCheaper(
            getArch(op), type.getNumElements() / dim, dim,
            getElementBytes(type.getElementType()))) {
      // The slices and the neg are left dead; the pass's clean-up erases
      // them.
      rw.replaceOp(op, rotateHalfByMatmul(rw, op.getLoc(), x));
      return success();
    }
  }
  rw.replaceOpWithNewOp<ConcatOp>(op, type, parts, *d);
  return success();
}

/// stack(tensors, dim): each input with a 1 inserted at `dim`, then one
/// concatenation.
LogicalResult decomposeStack(AtenOp op, const AtenArgs &args,
                             RewriterBase &rw) {
  SmallVector<Value> inputs = args.tensorList("tensors");
  FailureOr<int64_t> dim = args.getInt("dim");
  if (failed(dim))
    return failure();
  RankedTensorType type = resultType(op);
  FailureOr<int64_t> d = normalizeDim(op, *dim, type.getRank());
  if (failed(d))
    return failure();
  if (inputs.empty())
    return op.emitError("stack needs at least one tensor");
  Location loc = op.getLoc();
  SmallVector<Value> parts;
  for (Value v : inputs) {
    SmallVector<int64_t> shape(shapeOf(v));
    shape.insert(shape.begin() + *d, 1);
    parts.push_back(
        reshapeTo(rw, loc, castTo(rw, loc, v, type.getElementType()), shape));
  }
  rw.replaceOp(op, concatAlong(rw, loc, parts, *d));
  return success();
}

/// repeat(self, repeats): leading 1s for extra repeat counts, then every
/// repeated dim as a concatenation of copies (the copies are DMA moves).
LogicalResult decomposeRepeat(AtenOp op, const AtenArgs &args,
                              RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<SmallVector<int64_t>> repeats = args.getIntList("repeats");
  if (failed(x) || failed(repeats))
    return failure();
  ArrayRef<int64_t> in = shapeOf(*x);
  if (repeats->size() < in.size())
    return op.emitError("repeat needs a count for every dim (")
           << in.size() << "), got " << repeats->size();
  if (llvm::any_of(*repeats, [](int64_t r) { return r < 0; }))
    return op.emitError("repeat counts must be >= 0");
  Location loc = op.getLoc();
  RankedTensorType type = resultType(op);
  if (type.getNumElements() == 0) { // a count of 0, or an empty input
    rw.replaceOp(op, createSplat(rw, loc, type.getElementType(), 0,
                                 type.getShape()));
    return success();
  }
  SmallVector<int64_t> shape(repeats->size() - in.size(), 1);
  shape.append(in.begin(), in.end());
  Value v = reshapeTo(rw, loc, *x, shape);
  for (auto [d, count] : llvm::enumerate(*repeats))
    v = concatAlong(rw, loc, SmallVector<Value>(count, v), int64_t(d));
  rw.replaceOp(op, v);
  return success();
}

/// The most index slices along `dim` that scatter unrolls into selects.
constexpr int64_t kMaxScatterSlices = 64;

/// scatter(self, dim, index, src | value) and scatter_add: for each slice j
/// of `index` along `dim`, a one-hot mask (iota == index[j]) selects where
/// src[j] goes. Later slices win on repeated indices (PyTorch leaves that
/// order undefined); scatter_add adds instead. `index` must span `self` in
/// every other dim.
LogicalResult decomposeScatter(AtenOp op, const AtenArgs &args,
                               RewriterBase &rw, bool add) {
  FailureOr<Value> self = args.tensor("self");
  FailureOr<Value> index = args.tensor("index");
  FailureOr<int64_t> dim = args.getInt("dim");
  if (failed(self) || failed(index) || failed(dim))
    return failure();
  RankedTensorType type = resultType(op);
  Type et = type.getElementType();
  int64_t rank = type.getRank();
  FailureOr<int64_t> d = normalizeDim(op, *dim, rank);
  if (failed(d))
    return failure();
  ArrayRef<int64_t> idxShape = shapeOf(*index);
  if (int64_t(idxShape.size()) != rank)
    return op.emitError("scatter index must have the rank of self (")
           << rank << ")";
  for (int64_t k = 0; k < rank; ++k)
    if (k != *d && idxShape[k] != type.getDimSize(k))
      return op.emitError("scatter index must span self in every dim but ")
             << *d << " (dim " << k << ": " << idxShape[k] << " vs "
             << type.getDimSize(k) << ")";
  int64_t slices = idxShape[*d];
  if (slices > kMaxScatterSlices)
    return op.emitError("scatter of ")
           << slices << " index slices along dim " << *d
           << " is not supported (at most " << kMaxScatterSlices << ")";
  Location loc = op.getLoc();
  Value src = args.optionalTensor("src");
  Value value;
  if (src) {
    // Only src's leading part the index covers is read.
    ArrayRef<int64_t> srcShape = shapeOf(src);
    if (int64_t(srcShape.size()) != rank)
      return op.emitError("scatter src must have the rank of self");
    for (int64_t k = 0; k < rank; ++k)
      src = sliceAlong(rw, loc, src, k, 0, idxShape[k], 1);
    src = castTo(rw, loc, src, et);
  } else {
    FailureOr<Value> v = tensorOrScalar(args, "value", et, rw);
    if (failed(v))
      return failure();
    value = *v;
  }
  Value idx = castTo(rw, loc, *index, rw.getI32Type());
  Value iota = createIota(rw, loc, type.getDimSize(*d), *d, rank);
  auto maskType = RankedTensorType::get(type.getShape(), rw.getI1Type());
  Value out = castTo(rw, loc, *self, et);
  Value zero = add ? createSplat(rw, loc, et, 0.0) : Value();
  for (int64_t j = 0; j < slices; ++j) {
    Value at = sliceAlong(rw, loc, idx, *d, j, 1, 1);
    Value hit = CompareOp::create(rw, loc, maskType, ComparePredicate::eq,
                                  iota, at);
    Value part = src ? sliceAlong(rw, loc, src, *d, j, 1, 1) : value;
    if (add)
      out = BinaryOp::create(
          rw, loc, type, BinaryKind::add, out,
          SelectOp::create(rw, loc, type, hit, part, zero));
    else
      out = SelectOp::create(rw, loc, type, hit, part, out);
  }
  rw.replaceOp(op, out);
  return success();
}

/// The most index slices along `dim` that gather unrolls.
constexpr int64_t kMaxGatherSlices = 64;

/// gather(self, dim, index) (and take_along_dim): for each slice j of
/// `index` along `dim`, the sum of self over a one-hot mask (iota ==
/// index[j]) picks self[index[j]] exactly (one non-zero term). `index` may be
/// narrower than self in the other dims (self's leading part is read).
LogicalResult decomposeGatherElements(AtenOp op, const AtenArgs &args,
                                      RewriterBase &rw) {
  FailureOr<Value> self = args.tensor("self");
  FailureOr<Value> index = args.tensor("index");
  FailureOr<int64_t> dim = args.getInt("dim");
  if (failed(self) || failed(index) || failed(dim))
    return failure();
  RankedTensorType type = resultType(op);
  int64_t rank = type.getRank();
  FailureOr<int64_t> d = normalizeDim(op, *dim, std::max<int64_t>(rank, 1));
  if (failed(d))
    return failure();
  ArrayRef<int64_t> selfShape = shapeOf(*self), idxShape = shapeOf(*index);
  if (rank == 0 || int64_t(selfShape.size()) != rank ||
      int64_t(idxShape.size()) != rank)
    return op.emitError("gather needs self and index of one rank >= 1");
  int64_t slices = idxShape[*d];
  if (slices > kMaxGatherSlices)
    return op.emitError("gather of ")
           << slices << " index slices along dim " << *d
           << " is not supported (at most " << kMaxGatherSlices << ")";
  Location loc = op.getLoc();
  // self cut to the index's extent outside `dim`.
  Value x = *self;
  for (int64_t k = 0; k < rank; ++k)
    if (k != *d)
      x = sliceAlong(rw, loc, x, k, 0, idxShape[k], 1);
  Type et = type.getElementType();
  Type ct = isa<FloatType>(et) ? accumulationType(et) : et;
  x = castTo(rw, loc, x, ct);
  Value idx = castTo(rw, loc, *index, rw.getI32Type());
  Value iota = createIota(rw, loc, selfShape[*d], *d, rank);
  auto maskType = RankedTensorType::get(shapeOf(x), rw.getI1Type());
  Value zero = createSplat(rw, loc, ct, 0.0);
  SmallVector<Value> parts;
  for (int64_t j = 0; j < slices; ++j) {
    Value hit = CompareOp::create(rw, loc, maskType, ComparePredicate::eq,
                                  iota, sliceAlong(rw, loc, idx, *d, j, 1, 1));
    Value picked = SelectOp::create(rw, loc, x.getType(), hit, x, zero);
    parts.push_back(reduceAlong(rw, loc, picked, *d, ReduceKind::sum));
  }
  rw.replaceOp(op, castTo(rw, loc, concatAlong(rw, loc, parts, *d), et));
  return success();
}

/// slice_scatter(self, src, dim, start, end, step) and select_scatter(self,
/// src, dim, index): the functional forms (ep.run_decompositions()) of
/// `x[..., a:b] = src` and `x[..., i] = src`: self's parts around the window
/// and src between them, one concatenation. Unit steps only.
LogicalResult decomposeSliceScatter(AtenOp op, const AtenArgs &args,
                                    RewriterBase &rw, bool select) {
  FailureOr<Value> self = args.tensor("self");
  FailureOr<Value> source = args.tensor("src");
  FailureOr<int64_t> dim = args.getInt("dim");
  if (failed(self) || failed(source) || failed(dim))
    return failure();
  RankedTensorType type = resultType(op);
  FailureOr<int64_t> d = normalizeDim(op, *dim, type.getRank());
  if (failed(d))
    return failure();
  int64_t n = type.getDimSize(*d);
  auto index = [&](StringRef name, int64_t dflt) -> FailureOr<int64_t> {
    if (args.isNone(name))
      return dflt;
    FailureOr<int64_t> v = args.getInt(name);
    if (failed(v))
      return failure();
    return std::clamp<int64_t>(*v < 0 ? *v + n : *v, 0, n);
  };
  Location loc = op.getLoc();
  Value src = castTo(rw, loc, *source, type.getElementType());
  int64_t start, end;
  if (select) {
    FailureOr<int64_t> i = index("index", 0);
    if (failed(i))
      return failure();
    start = *i;
    end = start + 1;
    SmallVector<int64_t> shape(shapeOf(src));
    shape.insert(shape.begin() + *d, 1);
    src = reshapeTo(rw, loc, src, shape);
  } else {
    FailureOr<int64_t> step = args.getInt("step");
    FailureOr<int64_t> s = index("start", 0), e = index("end", n);
    if (failed(step) || failed(s) || failed(e))
      return failure();
    if (*step != 1)
      return op.emitError("slice_scatter with step ")
             << *step << " is not supported (unit steps only)";
    start = *s;
    end = std::max(*s, *e);
  }
  if (shapeOf(src)[*d] != end - start)
    return op.emitError("scatter source has ")
           << shapeOf(src)[*d] << " elements along dim " << *d
           << " for a window of " << end - start;
  Value x = castTo(rw, loc, *self, type.getElementType());
  SmallVector<Value> parts;
  if (start > 0)
    parts.push_back(sliceAlong(rw, loc, x, *d, 0, start, 1));
  if (end > start)
    parts.push_back(src);
  if (end < n)
    parts.push_back(sliceAlong(rw, loc, x, *d, end, n - end, 1));
  if (parts.empty()) { // dim `d` has size 0: so has the result
    rw.replaceOp(op, createSplat(rw, loc, type.getElementType(), 0,
                                 type.getShape()));
    return success();
  }
  rw.replaceOp(op, concatAlong(rw, loc, parts, *d));
  return success();
}

/// copy(self, src): src broadcast to self's shape, in self's dtype (the
/// functional form of `self.copy_(src)`).
LogicalResult decomposeCopy(AtenOp op, const AtenArgs &args,
                            RewriterBase &rw) {
  FailureOr<Value> src = args.tensor("src");
  if (failed(src))
    return failure();
  RankedTensorType type = resultType(op);
  Location loc = op.getLoc();
  Value v = castTo(rw, loc, *src, type.getElementType());
  if (shapeOf(v) != type.getShape())
    v = BroadcastOp::create(rw, loc, type, v);
  rw.replaceOp(op, v);
  return success();
}

/// split.Tensor, split_with_sizes and chunk: consecutive slices.
LogicalResult decomposeSplit(AtenOp op, const AtenArgs &args,
                             RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<int64_t> dim = args.getInt("dim");
  if (failed(x) || failed(dim))
    return failure();
  FailureOr<int64_t> d = normalizeDim(op, *dim, shapeOf(*x).size());
  if (failed(d))
    return failure();
  // unbind's results drop the dim: one-wide slices, viewed without it.
  bool drops = op.getNumResults() &&
               resultType(op).getRank() < int64_t(shapeOf(*x).size());
  SmallVector<Value> results;
  int64_t offset = 0;
  for (unsigned i = 0; i < op.getNumResults(); ++i) {
    RankedTensorType type = resultType(op, i);
    int64_t size = drops ? 1 : type.getDimSize(*d);
    Value part = sliceAlong(rw, op.getLoc(), *x, *d, offset, size, 1);
    results.push_back(reshapeTo(rw, op.getLoc(), part, type.getShape()));
    offset += size;
  }
  rw.replaceOp(op, results);
  return success();
}

/// Rows of `x` along `dim` picked by `indices`: a gather of the rows of x
/// viewed as [size(dim), rest] (dim first, through a transpose when it is
/// not); the index dims take dim's place in the result.
FailureOr<Value> gatherAlong(AtenOp op, OpBuilder &b, Location loc, Value x,
                             int64_t dim, Value indices) {
  ArrayRef<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  if (rank == 0)
    return op.emitError("indexing a rank-0 tensor");
  if (!elementTypeOf(indices).isInteger(32) &&
      !elementTypeOf(indices).isInteger(64))
    indices = castTo(b, loc, indices, b.getI64Type());
  // A gather picks rows for at least one index dim (the caller views the
  // result back without it).
  if (shapeOf(indices).empty())
    indices = reshapeTo(b, loc, indices, {1});
  int64_t nIdx = shapeOf(indices).size();
  if (dim != 0 && nIdx != 1)
    return op.emitError("indexing dim ")
           << dim << " with a " << nIdx
           << "-D index tensor is not supported (1-D only)";
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[0], perm[dim]);
  SmallVector<int64_t> moved;
  for (int64_t p : perm)
    moved.push_back(shape[p]);
  Value front = x;
  if (dim != 0)
    front = TransposeOp::create(
        b, loc, RankedTensorType::get(moved, elementTypeOf(x)), x, perm);
  int64_t row = 1;
  for (int64_t s : ArrayRef<int64_t>(moved).drop_front())
    row *= s;
  Value table = reshapeTo(b, loc, front, {moved[0], row});
  SmallVector<int64_t> gshape(shapeOf(indices));
  gshape.push_back(row);
  Value g = GatherOp::create(
      b, loc, RankedTensorType::get(gshape, elementTypeOf(x)), table, indices);
  SmallVector<int64_t> picked(shapeOf(indices));
  llvm::append_range(picked, ArrayRef<int64_t>(moved).drop_front());
  Value r = reshapeTo(b, loc, g, picked);
  if (dim == 0)
    return r;
  SmallVector<int64_t> back;
  for (int64_t p : perm)
    back.push_back(picked[p]);
  return Value(TransposeOp::create(
      b, loc, RankedTensorType::get(back, elementTypeOf(x)), r, perm));
}

/// embedding(weight, indices) and index_select(self, dim, index).
LogicalResult decomposeGather(AtenOp op, const AtenArgs &args,
                              RewriterBase &rw, StringRef tableName,
                              StringRef indexName) {
  FailureOr<Value> table = args.tensor(tableName);
  FailureOr<Value> indices = args.tensor(indexName);
  if (failed(table) || failed(indices))
    return failure();
  int64_t d = 0;
  if (op.getArg("dim")) {
    FailureOr<int64_t> dim = args.getInt("dim");
    if (failed(dim))
      return failure();
    FailureOr<int64_t> nd = normalizeDim(op, *dim, shapeOf(*table).size());
    if (failed(nd))
      return failure();
    d = *nd;
  }
  FailureOr<Value> g = gatherAlong(op, rw, op.getLoc(), *table, d, *indices);
  if (failed(g))
    return failure();
  rw.replaceOp(op, reshapeTo(rw, op.getLoc(), *g, resultType(op).getShape()));
  return success();
}

/// The one index tensor of an `indices` list (Tensor?[]: x[idx],
/// x[:, :, idx]) and the dim it indexes; null when there are none or
/// several.
std::pair<Value, int64_t> singleIndex(AtenOp op, const AtenArgs &args) {
  SmallVector<Value> indices = args.tensorList("indices");
  int64_t position = 0;
  // The presence mask of an optional-tensor list: which entries are not None.
  if (auto mask = dyn_cast_or_null<ArrayAttr>(op.getArg("indices"))) {
    int64_t present = 0;
    for (auto [i, a] : llvm::enumerate(mask))
      if (cast<BoolAttr>(a).getValue()) {
        position = i;
        ++present;
      }
    if (present != 1)
      return {Value(), 0};
  }
  if (indices.size() != 1)
    return {Value(), 0};
  return {indices[0], position};
}

/// The index tensors of an `indices` list (Tensor?[]) with the dims they
/// index; None entries (a whole dim) are skipped.
SmallVector<std::pair<int64_t, Value>> indexTensors(AtenOp op,
                                                    const AtenArgs &args) {
  SmallVector<Value> tensors = args.tensorList("indices");
  SmallVector<std::pair<int64_t, Value>> out;
  auto mask = dyn_cast_or_null<ArrayAttr>(op.getArg("indices"));
  size_t next = 0;
  for (int64_t i = 0, e = mask ? mask.size() : tensors.size(); i < e; ++i)
    if ((!mask || cast<BoolAttr>(mask[i]).getValue()) && next < tensors.size())
      out.push_back({i, tensors[next++]});
  return out;
}

/// `idx` as i64 with negative entries counted from the end of a dim of
/// `size` elements (x[-1] is the last).
Value wrappedIndex(OpBuilder &b, Location loc, Value idx, int64_t size) {
  idx = castTo(b, loc, idx, b.getI64Type());
  auto type = cast<RankedTensorType>(idx.getType());
  Value zero = createSplat(b, loc, b.getI64Type(), 0);
  Value negative = CompareOp::create(b, loc, type.clone(b.getI1Type()),
                                     ComparePredicate::lt, idx, zero);
  Value shifted = BinaryOp::create(b, loc, type, BinaryKind::add, idx,
                                   createSplat(b, loc, b.getI64Type(), size));
  return SelectOp::create(b, loc, type, negative, shifted, idx);
}

/// index.Tensor: numpy advanced indexing with any number of integer index
/// tensors (broadcast together) and None entries between them. The indexed
/// dims are moved to the front and flattened into one row index of x viewed
/// as [indexed elements, the rest]; one gather picks the rows. The index
/// dims then stand where the first indexed dim stood when the indexed dims
/// are adjacent, and in front otherwise (numpy's rule).
LogicalResult decomposeIndex(AtenOp op, const AtenArgs &args,
                             RewriterBase &rw) {
  FailureOr<Value> self = args.tensor("self");
  if (failed(self))
    return failure();
  Location loc = op.getLoc();
  ArrayRef<int64_t> shape = shapeOf(*self);
  int64_t rank = shape.size();
  SmallVector<std::pair<int64_t, Value>> indexed = indexTensors(op, args);
  if (indexed.empty())
    return op.emitError("index.Tensor without an index tensor");
  SmallVector<int64_t> bshape;
  for (auto [position, idx] : indexed) {
    if (position >= rank)
      return op.emitError("index.Tensor indexes dim ")
             << position << " of a rank-" << rank << " tensor";
    if (elementTypeOf(idx).isInteger(1))
      return op.emitError("boolean mask indices (x[mask]) give a "
                          "data-dependent shape and are not supported");
    std::optional<SmallVector<int64_t>> joint =
        broadcastShapes(bshape, shapeOf(idx));
    if (!joint)
      return op.emitError("index tensors do not broadcast together");
    bshape = *joint;
  }
  // The row index: sum over index tensors of index * (rows per step).
  Value rows;
  int64_t indexedElements = 1;
  for (auto [position, idx] : llvm::reverse(indexed)) {
    Value term = wrappedIndex(rw, loc, idx, shape[position]);
    if (indexedElements != 1)
      term = BinaryOp::create(
          rw, loc, cast<RankedTensorType>(term.getType()), BinaryKind::mul,
          term, createSplat(rw, loc, rw.getI64Type(), indexedElements));
    if (rows) {
      auto type = RankedTensorType::get(
          *broadcastShapes(shapeOf(rows), shapeOf(term)), rw.getI64Type());
      term = BinaryOp::create(rw, loc, type, BinaryKind::add, rows, term);
    }
    rows = term;
    indexedElements *= shape[position];
  }
  if (shapeOf(rows) != ArrayRef<int64_t>(bshape))
    rows = BroadcastOp::create(
        rw, loc, RankedTensorType::get(bshape, rw.getI64Type()), rows);
  // x with the indexed dims first, viewed as [indexed elements, rest].
  SmallVector<int64_t> perm, restShape;
  for (auto [position, idx] : indexed)
    perm.push_back(position);
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(perm, d)) {
      perm.push_back(d);
      restShape.push_back(shape[d]);
    }
  Value front = *self;
  if (!llvm::equal(perm, llvm::seq<int64_t>(0, rank))) {
    SmallVector<int64_t> moved;
    for (int64_t p : perm)
      moved.push_back(shape[p]);
    front = TransposeOp::create(
        rw, loc, RankedTensorType::get(moved, elementTypeOf(*self)), *self,
        perm);
  }
  int64_t rest = 1;
  for (int64_t s : restShape)
    rest *= s;
  Value table = reshapeTo(rw, loc, front, {indexedElements, rest});
  // A gather walks at most three index dims: more are flattened first.
  int64_t count = 1;
  for (int64_t s : bshape)
    count *= s;
  SmallVector<int64_t> gatherIndexShape(bshape);
  if (bshape.empty() || bshape.size() > 3)
    gatherIndexShape = {count};
  Value flat = reshapeTo(rw, loc, rows, gatherIndexShape);
  gatherIndexShape.push_back(rest);
  Value g = GatherOp::create(
      rw, loc, RankedTensorType::get(gatherIndexShape, elementTypeOf(*self)),
      table, flat);
  SmallVector<int64_t> picked(bshape);
  llvm::append_range(picked, restShape);
  Value r = reshapeTo(rw, loc, g, picked);
  // Adjacent indexed dims: the index dims go where the first one was.
  int64_t first = indexed.front().first;
  bool adjacent = indexed.back().first - first + 1 == int64_t(indexed.size());
  if (adjacent && first > 0) {
    int64_t nb = bshape.size();
    SmallVector<int64_t> order, finalShape;
    for (int64_t d = 0; d < first; ++d)
      order.push_back(nb + d);
    for (int64_t d = 0; d < nb; ++d)
      order.push_back(d);
    for (int64_t d = first; d < int64_t(restShape.size()); ++d)
      order.push_back(nb + d);
    for (int64_t p : order)
      finalShape.push_back(picked[p]);
    r = TransposeOp::create(
        rw, loc, RankedTensorType::get(finalShape, elementTypeOf(*self)), r,
        order);
  }
  rw.replaceOp(op, reshapeTo(rw, loc, r, resultType(op).getShape()));
  return success();
}

/// `x` with dim `d` moved first and the rest flattened: [size(d), rest]
/// (through a transpose when d is not 0), and the shape it came from.
std::pair<Value, SmallVector<int64_t>> rowsAlong(OpBuilder &b, Location loc,
                                                 Value x, int64_t d) {
  ArrayRef<int64_t> shape = shapeOf(x);
  int64_t rank = shape.size();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[0], perm[d]);
  SmallVector<int64_t> moved;
  for (int64_t p : perm)
    moved.push_back(shape[p]);
  if (d != 0)
    x = TransposeOp::create(
        b, loc, RankedTensorType::get(moved, elementTypeOf(x)), x, perm);
  int64_t rest = 1;
  for (int64_t s : ArrayRef<int64_t>(moved).drop_front())
    rest *= s;
  return {reshapeTo(b, loc, x, {moved[0], rest}), moved};
}

/// The inverse of rowsAlong: [size(d), rest] back to the original layout.
Value unrowsAlong(OpBuilder &b, Location loc, Value rows,
                  ArrayRef<int64_t> moved, int64_t d) {
  Value x = reshapeTo(b, loc, rows, moved);
  if (d == 0)
    return x;
  int64_t rank = moved.size();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[0], perm[d]);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(moved[p]);
  return TransposeOp::create(
      b, loc, RankedTensorType::get(shape, elementTypeOf(rows)), x, perm);
}

/// index_add(self, dim, index, source, alpha): self plus alpha times the
/// slices of source added at their indices along dim. A one-hot of the
/// indices [size(dim), len(index)] times source's slices ([len(index),
/// rest]) on the PT array adds every slice where it goes, repeated indices
/// accumulating; in f32 (integers exact below 2^24).
LogicalResult decomposeIndexAdd(AtenOp op, const AtenArgs &args,
                                RewriterBase &rw) {
  FailureOr<Value> self = args.tensor("self");
  FailureOr<Value> index = args.tensor("index");
  FailureOr<Value> source = args.tensor("source");
  FailureOr<int64_t> dim = args.getInt("dim");
  FailureOr<double> alpha = args.getDouble("alpha");
  if (failed(self) || failed(index) || failed(source) || failed(dim) ||
      failed(alpha))
    return failure();
  RankedTensorType type = resultType(op);
  Location loc = op.getLoc();
  Type f32 = rw.getF32Type();
  bool scalar = type.getRank() == 0;
  Value s = scalar ? reshapeTo(rw, loc, *self, {1}) : *self;
  Value src = scalar ? reshapeTo(rw, loc, *source, {1}) : *source;
  FailureOr<int64_t> d = normalizeDim(op, *dim, shapeOf(s).size());
  if (failed(d))
    return failure();
  int64_t size = shapeOf(s)[*d];
  Value idx = castTo(rw, loc, *index, rw.getI32Type());
  int64_t count = shapeOf(idx).empty() ? 1 : shapeOf(idx)[0];
  idx = reshapeTo(rw, loc, idx, {1, count});
  Value hit = CompareOp::create(
      rw, loc, RankedTensorType::get({size, count}, rw.getI1Type()),
      ComparePredicate::eq, createIota(rw, loc, size, 0, 2), idx);
  auto [rows, moved] = rowsAlong(rw, loc, castTo(rw, loc, src, f32), *d);
  Value onehot = castTo(rw, loc, hit, f32);
  Value added = MatmulOp::create(
      rw, loc, RankedTensorType::get({size, shapeOf(rows)[1]}, f32), onehot,
      rows);
  if (*alpha != 1.0)
    added = BinaryOp::create(rw, loc, added.getType(), BinaryKind::mul, added,
                             createSplat(rw, loc, f32, *alpha));
  moved[0] = size;
  added = unrowsAlong(rw, loc, added, moved, *d);
  Value out = BinaryOp::create(rw, loc, added.getType(), BinaryKind::add,
                               castTo(rw, loc, s, f32), added);
  out = reshapeTo(rw, loc, castTo(rw, loc, out, type.getElementType()),
                  type.getShape());
  rw.replaceOp(op, out);
  return success();
}

/// masked_scatter(self, mask, source): where the (broadcast) mask is true,
/// consecutive elements of source in row-major order; self elsewhere. The
/// source position of a true element is the number of true elements before
/// it: per row of the last dim, an exclusive prefix sum over the rows of
/// their counts plus one along the row (createPrefixSum, both at most 8192
/// long); then one gather. A mask that is one value per row (broadcast
/// along the last dim, as a token mask is) gathers whole source rows.
LogicalResult decomposeMaskedScatter(AtenOp op, const AtenArgs &args,
                                     RewriterBase &rw) {
  FailureOr<Value> self = args.tensor("self");
  FailureOr<Value> mask = args.tensor("mask");
  FailureOr<Value> source = args.tensor("source");
  if (failed(self) || failed(mask) || failed(source))
    return failure();
  RankedTensorType type = resultType(op);
  Location loc = op.getLoc();
  Type et = type.getElementType();
  SmallVector<int64_t> shape(type.getShape());
  if (shape.empty())
    shape.push_back(1);
  int64_t cols = shape.back(), rows = 1;
  for (int64_t s : ArrayRef<int64_t>(shape).drop_back())
    rows *= s;
  int64_t sourceElements = 1;
  for (int64_t s : shapeOf(*source))
    sourceElements *= s;
  // The mask aligned with self's dims (numpy broadcasting from the right).
  SmallVector<int64_t> maskShape(shapeOf(*mask));
  maskShape.insert(maskShape.begin(), shape.size() - maskShape.size(), 1);
  Value m = reshapeTo(rw, loc, castTo(rw, loc, *mask, rw.getI1Type()),
                      maskShape);
  auto maskOf = [&](ArrayRef<int64_t> s) {
    return BroadcastOp::create(rw, loc,
                               RankedTensorType::get(s, rw.getI1Type()), m)
        .getResult();
  };
  Type f32 = rw.getF32Type();
  if (rows > kMaxPrefixSumLength)
    return op.emitError("masked_scatter over ")
           << rows << " rows is not supported (at most " << kMaxPrefixSumLength
           << ")";
  Value full = maskOf(shape);
  Value x = reshapeTo(rw, loc, castTo(rw, loc, *self, et), shape);
  Value flatSource = reshapeTo(rw, loc, castTo(rw, loc, *source, et),
                               {sourceElements, 1});
  Value picked;
  if (maskShape.back() == 1 && cols > 1) {
    // One value per row: source rows, counted in rows.
    SmallVector<int64_t> rowShape(shape);
    rowShape.back() = 1;
    Value rowMask = reshapeTo(rw, loc, maskOf(rowShape), {rows, 1});
    Value before = createPrefixSum(rw, loc, castTo(rw, loc, rowMask, f32), 0,
                                   /*exclusive=*/true);
    Value at = castTo(rw, loc, before, rw.getI32Type());
    at = SelectOp::create(rw, loc, at.getType(), rowMask, at,
                          createSplat(rw, loc, rw.getI32Type(), 0));
    int64_t sourceRows = sourceElements / cols;
    if (sourceRows == 0) {
      rw.replaceOp(op, castTo(rw, loc, *self, et));
      return success();
    }
    Value table = reshapeTo(
        rw, loc, sliceAlong(rw, loc, flatSource, 0, 0, sourceRows * cols, 1),
        {sourceRows, cols});
    picked = GatherOp::create(
        rw, loc, RankedTensorType::get({rows, cols}, et), table,
        reshapeTo(rw, loc, at, {rows}));
  } else {
    if (cols > kMaxPrefixSumLength)
      return op.emitError("masked_scatter along a last dim of ")
             << cols << " elements is not supported (at most "
             << kMaxPrefixSumLength << ")";
    if (sourceElements == 0) {
      rw.replaceOp(op, castTo(rw, loc, *self, et));
      return success();
    }
    Value counted = castTo(rw, loc, reshapeTo(rw, loc, full, {rows, cols}),
                           f32);
    Value within = createPrefixSum(rw, loc, counted, 1, /*exclusive=*/true);
    Value perRow = reduceAlong(rw, loc, counted, 1, ReduceKind::sum);
    Value rowStart = createPrefixSum(rw, loc, perRow, 0, /*exclusive=*/true);
    Value at = BinaryOp::create(rw, loc, within.getType(), BinaryKind::add,
                                within, rowStart);
    at = castTo(rw, loc, at, rw.getI32Type());
    at = SelectOp::create(rw, loc, at.getType(),
                          reshapeTo(rw, loc, full, {rows, cols}), at,
                          createSplat(rw, loc, rw.getI32Type(), 0));
    picked = GatherOp::create(
        rw, loc, RankedTensorType::get({rows * cols, 1}, et), flatSource,
        reshapeTo(rw, loc, at, {rows * cols}));
  }
  Value out = SelectOp::create(rw, loc, x.getType(), full,
                               reshapeTo(rw, loc, picked, shape), x);
  rw.replaceOp(op, reshapeTo(rw, loc, out, type.getShape()));
  return success();
}

/// self with the slices along `d` at `index` replaced by `source`'s: a DMA
/// scatter (not along the innermost dim).
LogicalResult scatterSlices(AtenOp op, RewriterBase &rw, Value self, int64_t d,
                            Value index, Value source) {
  if (d == int64_t(shapeOf(self).size()) - 1)
    return op.emitError("'") << op.getTarget()
                             << "' along the innermost dim is not supported";
  Location loc = op.getLoc();
  RankedTensorType type = resultType(op);
  Value idx = index;
  if (!elementTypeOf(idx).isInteger(32) && !elementTypeOf(idx).isInteger(64))
    idx = castTo(rw, loc, idx, rw.getI64Type());
  // The source slices: as many as indices, self's extent elsewhere.
  SmallVector<int64_t> sliceShape(type.getShape());
  sliceShape[d] = shapeOf(idx).empty() ? 1 : shapeOf(idx)[0];
  Value src = castTo(rw, loc, source, type.getElementType());
  if (shapeOf(src) != ArrayRef<int64_t>(sliceShape))
    src = BroadcastOp::create(
        rw, loc, RankedTensorType::get(sliceShape, type.getElementType()), src);
  rw.replaceOpWithNewOp<ScatterOp>(op, type, self, idx, src, d);
  return success();
}

/// index_copy(self, dim, index, source): the KV-cache update.
LogicalResult decomposeIndexCopy(AtenOp op, const AtenArgs &args,
                                 RewriterBase &rw) {
  FailureOr<Value> self = args.tensor("self");
  FailureOr<Value> index = args.tensor("index");
  FailureOr<Value> source = args.tensor("source");
  FailureOr<int64_t> dim = args.getInt("dim");
  if (failed(self) || failed(index) || failed(source) || failed(dim))
    return failure();
  FailureOr<int64_t> d = normalizeDim(op, *dim, shapeOf(*self).size());
  if (failed(d))
    return failure();
  return scatterSlices(op, rw, *self, *d, *index, *source);
}

/// index_put(self, [None, ..., index, ...], values) without accumulation:
/// `x[:, :, pos] = v` (a static KV cache's fallback update, and what
/// ep.run_decompositions() makes of it), as index_copy along the index's
/// position.
LogicalResult decomposeIndexPut(AtenOp op, const AtenArgs &args,
                                RewriterBase &rw) {
  FailureOr<Value> self = args.tensor("self");
  FailureOr<Value> values = args.tensor("values");
  FailureOr<bool> accumulate = args.getBool("accumulate");
  if (failed(self) || failed(values) || failed(accumulate))
    return failure();
  if (*accumulate)
    return op.emitError("index_put with accumulate=True is not supported");
  auto [index, position] = singleIndex(op, args);
  if (!index || shapeOf(index).size() > 1 ||
      elementTypeOf(index).isInteger(1))
    return op.emitError("index_put is supported with one integer index "
                        "tensor of rank <= 1");
  return scatterSlices(op, rw, *self, position, index, *values);
}

/// constant_pad_nd / pad(mode='constant'): the input between splats of the
/// fill value, one concatenation per padded dim (innermost pairs first, as
/// torch orders `pad`).
LogicalResult decomposePad(AtenOp op, const AtenArgs &args, RewriterBase &rw) {
  Value input = args.optionalTensor("input");
  if (!input)
    input = args.optionalTensor("self");
  if (!input)
    return op.emitError("pad needs an input tensor");

  FailureOr<SmallVector<int64_t>> pad = args.getIntList("pad");
  if (failed(pad))
    return failure();
  if (op.getArg("mode")) {
    FailureOr<std::string> mode = args.getString("mode");
    if (failed(mode))
      return failure();
    if (*mode != "constant")
      return op.emitError("pad mode '") << *mode
                                        << "' is not supported (constant only)";
  }
  double fill = 0;
  if (!args.isNone("value")) {
    FailureOr<double> v = args.getDouble("value");
    if (failed(v))
      return failure();
    fill = *v;
  }
  if (pad->size() % 2 || pad->size() / 2 > shapeOf(input).size())
    return op.emitError("pad needs pairs for at most every dim");
  Location loc = op.getLoc();
  Value v = input;
  int64_t rank = shapeOf(v).size();
  for (size_t p = 0; p < pad->size() / 2; ++p) {
    int64_t d = rank - 1 - p;
    int64_t before = (*pad)[2 * p], after = (*pad)[2 * p + 1];
    // Negative amounts crop: a slice, before any fill is added.
    int64_t cropBefore = std::max<int64_t>(0, -before);
    int64_t kept = shapeOf(v)[d] - cropBefore - std::max<int64_t>(0, -after);
    if (kept < 0)
      return op.emitError("padding crops dim ")
             << d << " of size " << shapeOf(v)[d] << " to " << kept;
    if (kept != shapeOf(v)[d])
      v = sliceAlong(rw, loc, v, d, cropBefore, kept, 1);
    before = std::max<int64_t>(0, before);
    after = std::max<int64_t>(0, after);
    SmallVector<Value> parts;
    auto splat = [&](int64_t n) {
      SmallVector<int64_t> shape(shapeOf(v));
      shape[d] = n;
      return createSplat(rw, loc, elementTypeOf(v), fill, shape);
    };
    if (before)
      parts.push_back(splat(before));
    parts.push_back(v);
    if (after)
      parts.push_back(splat(after));
    v = concatAlong(rw, loc, parts, d);
  }
  rw.replaceOp(op, castTo(rw, loc, v, resultType(op).getElementType()));
  return success();
}

/// full / zeros / ones and their _like and new_ forms: a splat of the
/// result type.
DecomposeFn fill(std::optional<double> value,
                 StringRef valueName = "fill_value") {
  return [value, valueName](AtenOp op, const AtenArgs &args,
                            RewriterBase &rw) {
    double v;
    if (value) {
      v = *value;
    } else {
      FailureOr<double> f = args.getDouble(valueName);
      if (failed(f))
        return failure();
      v = *f;
    }
    RankedTensorType type = resultType(op);
    rw.replaceOp(op, createSplat(rw, op.getLoc(), type.getElementType(), v,
                                 type.getShape()));
    return success();
  };
}

/// arange: a dense constant of the result's length.
LogicalResult decomposeArange(AtenOp op, const AtenArgs &args,
                              RewriterBase &rw) {
  double start = 0, step = 1;
  if (op.getArg("start")) {
    FailureOr<double> s = args.getDouble("start");
    if (failed(s))
      return failure();
    start = *s;
  }
  if (op.getArg("step")) {
    FailureOr<double> s = args.getDouble("step");
    if (failed(s))
      return failure();
    step = *s;
  }
  RankedTensorType type = resultType(op);
  int64_t n = type.getNumElements();
  Type et = type.getElementType();
  Attribute value;
  if (auto ft = dyn_cast<FloatType>(et)) {
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < n; ++i) {
      APFloat f(start + double(i) * step);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(f);
    }
    value = DenseElementsAttr::get(type, values);
  } else {
    SmallVector<APInt> values;
    for (int64_t i = 0; i < n; ++i)
      values.push_back(APInt(et.getIntOrFloatBitWidth(),
                             int64_t(start + double(i) * step), true));
    value = DenseElementsAttr::get(type, values);
  }
  rw.replaceOpWithNewOp<ConstantOp>(op, type, cast<ElementsAttr>(value));
  return success();
}

/// triu / tril: x where the column is on the kept side of the diagonal,
/// else 0; the mask from two small iota constants.
LogicalResult decomposeTriangle(AtenOp op, const AtenArgs &args,
                                RewriterBase &rw, bool upper) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<int64_t> diagonal = args.getInt("diagonal");
  if (failed(x) || failed(diagonal))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*x);
  if (shape.size() < 2)
    return op.emitError("triu/tril need rank >= 2");
  Location loc = op.getLoc();
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  auto iota = [&](int64_t n, bool row, int64_t bias) {
    SmallVector<int64_t> s = row ? SmallVector<int64_t>{1, n}
                                 : SmallVector<int64_t>{n, 1};
    auto type = RankedTensorType::get(s, rw.getI32Type());
    SmallVector<int32_t> values(n);
    for (int64_t i = 0; i < n; ++i)
      values[i] = int32_t(i + bias);
    return ConstantOp::create(rw, loc, type,
                              DenseElementsAttr::get(type, ArrayRef(values)));
  };
  // triu keeps j - i >= diagonal; tril keeps j - i <= diagonal.
  Value colIdx = iota(cols, true, 0);
  Value rowIdx = iota(rows, false, *diagonal);
  Value keep = CompareOp::create(
      rw, loc, RankedTensorType::get({rows, cols}, rw.getI1Type()),
      upper ? ComparePredicate::ge : ComparePredicate::le, colIdx, rowIdx);
  RankedTensorType type = resultType(op);
  rw.replaceOpWithNewOp<SelectOp>(
      op, type, keep, castTo(rw, loc, *x, type.getElementType()),
      createSplat(rw, loc, type.getElementType(), 0.0));
  return success();
}

/// Nodes with no result to compute (torch 2.9 checks metadata in-graph).
LogicalResult decomposeErase(AtenOp op, const AtenArgs &, RewriterBase &rw) {
  rw.eraseOp(op);
  return success();
}

/// scalar_tensor(s): a rank-0 constant.
LogicalResult decomposeScalarTensor(AtenOp op, const AtenArgs &args,
                                    RewriterBase &rw) {
  FailureOr<double> s = args.getDouble("s");
  if (failed(s))
    return failure();
  RankedTensorType type = resultType(op);
  rw.replaceOp(op, createSplat(rw, op.getLoc(), type.getElementType(), *s,
                               type.getShape()));
  return success();
}

} // namespace

void registerShapeDecompositions(DecompositionRegistry &r) {
  const char *all = "all";
  r.add({"aten.t.default", "shape", all,
         "a transpose; folded into a consuming matmul", decomposeT});
  r.add({"aten.permute.default", "shape", all,
         "a transpose: DMA only when the innermost dim stays innermost (or "
         "the input is a weight or graph input), else SFP tile transposes; "
         "folded into a consuming matmul when it swaps the last two dims",
         decomposePermute});
  r.add({"aten.transpose.int", "shape", all, "as permute", decomposeTranspose});
  for (const char *name :
       {"aten.view.default", "aten.reshape.default", "aten._unsafe_view.default",
        "aten.unsqueeze.default", "aten.squeeze.default", "aten.squeeze.dim",
        "aten.squeeze.dims", "aten.flatten.using_ints", "aten.unflatten.int",
        "aten.view_copy.default", "aten.reshape_copy.default"})
    r.add({name, "shape", all,
           "a view when the innermost dim is kept; otherwise the elements "
           "are repacked through LX by DMA",
           decomposeReshape});
  r.add({"aten.expand.default", "shape", all,
         "a broadcast (folded into elementwise consumers)", decomposeExpand});
  r.add({"aten.expand_copy.default", "shape", all, "as expand",
         decomposeExpand});
  r.add({"aten.slice.Tensor", "shape", all,
         "a DMA copy of the window; any start and step (exact byte runs when "
         "the window does not start on a stick)",
         decomposeSlice});
  r.add({"aten.select.int", "shape", all, "a one-wide slice", decomposeSelect});
  r.add({"aten.cat.default", "shape", all,
         "each input copied into its region by DMA; adapter: RoPE's "
         "rotate_half (`cat(-x[..., D/2:], x[..., :D/2])`) becomes one "
         "matmul by a constant signed permutation when the cost model "
         "says it is cheaper than slicing the stick dim",
         decomposeCat});
  for (const char *name : {"aten.split.Tensor", "aten.split_with_sizes.default",
                           "aten.chunk.default", "aten.unbind.int"})
    r.add({name, "shape", all, "consecutive slices (sizes from the results)",
           decomposeSplit});
  r.add({"aten.gather.default", "shape", all,
         "per index slice along `dim` (at most 64), a sum over a one-hot "
         "mask (exact: one term); integers are summed in their own type",
         decomposeGatherElements});
  r.add({"aten.slice_scatter.default", "shape", all,
         "self around the window and src inside it, one concatenation; unit "
         "steps only",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeSliceScatter(op, a, rw, /*select=*/false);
         }});
  r.add({"aten.select_scatter.default", "shape", all, "as slice_scatter",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeSliceScatter(op, a, rw, /*select=*/true);
         }});
  r.add({"aten.copy.default", "shape", all,
         "src broadcast to self's shape and cast to its dtype", decomposeCopy});
  r.add({"aten.stack.default", "shape", all,
         "the inputs reshaped with a 1 at `dim`, then concatenated",
         decomposeStack});
  r.add({"aten.repeat.default", "shape", all,
         "a concatenation of copies per repeated dim; counts >= 1",
         decomposeRepeat});
  r.add({"aten.scatter.src", "shape", all,
         "one select per index slice along `dim` (at most 64) on a one-hot "
         "mask; the index must span self in the other dims; later slices win "
         "on repeated indices",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeScatter(op, a, rw, false);
         }});
  r.add({"aten.scatter.value", "shape", all, "as scatter.src, with a splat",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeScatter(op, a, rw, false);
         }});
  r.add({"aten.scatter_add.default", "shape", all,
         "as scatter.src, each slice added (repeated indices accumulate)",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeScatter(op, a, rw, true);
         }});
  r.add({"aten.embedding.default", "shape", all,
         "a DMA gather of table rows by i32/i64 indices; an out-of-range "
         "index stops the program with an error",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeGather(op, a, rw, "weight", "indices");
         }});
  r.add({"aten.index_select.default", "shape", all,
         "a gather (dims other than 0 through transposes; a 1-D index)",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeGather(op, a, rw, "self", "index");
         }});
  r.add({"aten.index.Tensor", "shape", all,
         "numpy advanced indexing: any number of integer index tensors "
         "(broadcast together, negative entries from the end) with None "
         "between them, as one gather of rows; boolean masks (a "
         "data-dependent shape) are not supported",
         decomposeIndex});
  r.add({"aten.index_add.default", "shape", all,
         "a one-hot of the indices times the source's slices on the PT "
         "array, in f32 (repeated indices accumulate; integers exact below "
         "2^24)",
         decomposeIndexAdd});
  r.add({"aten.masked_scatter.default", "shape", all,
         "source positions by prefix sums of the mask (rows and last dim at "
         "most 8192 each), one gather, a select; a mask broadcast along the "
         "last dim gathers whole rows",
         decomposeMaskedScatter});
  r.add({"aten.index_copy.default", "shape", all,
         "a copy then a DMA scatter of the source's slices (not along the "
         "innermost dim); one core",
         decomposeIndexCopy});
  r.add({"aten.index_put.default", "shape", all,
         "one 1-D integer index tensor (`x[:, :, pos] = v`), as index_copy "
         "along its position; accumulate=True, several or boolean index "
         "tensors are not supported",
         decomposeIndexPut});
  r.add({"aten.constant_pad_nd.default", "shape", all,
         "the input between splats of the value, by concatenation; negative "
         "amounts crop (a slice first)",
         decomposePad});
  r.add({"aten.pad.default", "shape", all,
         "as constant_pad_nd; mode 'constant' only (reflect, replicate and "
         "circular are not supported)",
         decomposePad});
  r.add({"aten.full.default", "shape", all, "a splat constant", fill({})});
  r.add({"aten.full_like.default", "shape", all, "a splat constant", fill({})});
  r.add({"aten.new_full.default", "shape", all, "a splat constant", fill({})});
  for (const char *name : {"aten.zeros.default", "aten.zeros_like.default",
                           "aten.new_zeros.default", "aten.zero.default"})
    r.add({name, "shape", all, "a splat constant", fill(0.0)});
  r.add({"aten.fill.Scalar", "shape", all,
         "a splat constant (fill_ in place: the functional fill)",
         fill({}, "value")});
  // Uninitialized memory has no contents a correct graph reads before it
  // writes them (torch.empty + fill_/copy_/index_copy_).
  for (const char *name : {"aten.empty.memory_format", "aten.empty_like.default",
                           "aten.new_empty.default"})
    r.add({name, "shape", all, "zeros (the contents are undefined)",
           fill(0.0)});
  for (const char *name : {"aten.ones.default", "aten.ones_like.default",
                           "aten.new_ones.default"})
    r.add({name, "shape", all, "a splat constant", fill(1.0)});
  r.add({"aten.scalar_tensor.default", "shape", all, "a rank-0 constant",
         decomposeScalarTensor});
  for (const char *name :
       {"aten.arange.default", "aten.arange.start", "aten.arange.start_step"})
    r.add({name, "shape", all, "a dense constant", decomposeArange});
  r.add({"aten.triu.default", "shape", all,
         "a select on an iota comparison (no N x N constant)",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeTriangle(op, a, rw, true);
         }});
  r.add({"aten.tril.default", "shape", all, "as triu",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeTriangle(op, a, rw, false);
         }});
  r.add({"aten._assert_tensor_metadata.default", "shape", all,
         "dropped (a check of what the importer already knows)",
         decomposeErase});
}

} // namespace spyre
