//===- Indexing.cpp - Index, gather and scatter aten ops ------------------===//
//
// Reads by index become `spyre.gather` (rows of a [rows, rest] view) or sums
// over one-hot masks; writes by index `spyre.scatter` (DMA), selects on
// one-hot masks, or a one-hot matmul (index_add); functional slice writes
// (slice_scatter) concatenations.
//
//===----------------------------------------------------------------------===//

#include "ShapeCommon.h"

#include "spyre/Dialect/Spyre/ShapeUtils.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace spyre {
namespace {

/// The product of `dims` (1 for none).
int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t s : dims)
    p *= s;
  return p;
}

/// `x` transposed by `perm` (result dim i is x's dim perm[i]).
Value permuted(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> perm) {
  ArrayRef<int64_t> shape = shapeOf(x);
  SmallVector<int64_t> moved;
  for (int64_t p : perm)
    moved.push_back(shape[p]);
  return TransposeOp::create(
      b, loc, RankedTensorType::get(moved, elementTypeOf(x)), x, perm);
}

/// `x` with dims 0 and `d` swapped (a transpose that is its own inverse).
Value swapWithFirstDim(OpBuilder &b, Location loc, Value x, int64_t d) {
  int64_t rank = shapeOf(x).size();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[0], perm[d]);
  return permuted(b, loc, x, perm);
}

/// The most index slices along `dim` that scatter unrolls into selects.
constexpr int64_t kMaxScatterSlices = 64;

/// Checks that an index of `idxShape` can scatter into a result of `type`
/// along `d`: one rank, spanning every other dim, few enough slices.
LogicalResult checkScatterIndex(AtenOp op, ArrayRef<int64_t> idxShape,
                                RankedTensorType type, int64_t d) {
  int64_t rank = type.getRank();
  if (int64_t(idxShape.size()) != rank)
    return op.emitError("scatter index must have the rank of self (")
           << rank << ")";
  for (int64_t k = 0; k < rank; ++k)
    if (k != d && idxShape[k] > type.getDimSize(k))
      return op.emitError("scatter index is larger than self in dim ")
             << k << " (" << idxShape[k] << " vs " << type.getDimSize(k) << ")";
  int64_t slices = idxShape[d];
  if (slices > kMaxScatterSlices)
    return op.emitError("scatter of ")
           << slices << " index slices along dim " << d
           << " is not supported (at most " << kMaxScatterSlices << ")";
  return success();
}

/// What scatter writes: `src` (scatter.src) or the splat `value`
/// (scatter.value); the other is null.
struct ScatterSource {
  Value src, value;
};

/// scatter's source in `et`: src cut to the index's extent (only its leading
/// part the index covers is read), or the value as a rank-0 splat.
FailureOr<ScatterSource> readScatterSource(AtenOp op, const AtenArgs &args,
                                           RewriterBase &rw,
                                           ArrayRef<int64_t> idxShape,
                                           Type et) {
  ScatterSource out;
  out.src = args.optionalTensor("src");
  if (!out.src) {
    FailureOr<Value> v = tensorOrScalar(args, "value", et, rw);
    if (failed(v))
      return failure();
    out.value = *v;
    return out;
  }
  Location loc = op.getLoc();
  int64_t rank = idxShape.size();
  if (int64_t(shapeOf(out.src).size()) != rank)
    return op.emitError("scatter src must have the rank of self");
  for (int64_t k = 0; k < rank; ++k)
    out.src = sliceAlong(rw, loc, out.src, k, 0, idxShape[k], 1);
  out.src = castTo(rw, loc, out.src, et);
  return out;
}

/// `self` with each slice j of `index` along `d` written (`add`: added)
/// where a one-hot mask (iota == index[j]) is set; later slices win.
Value scatterByOneHot(OpBuilder &b, Location loc, RankedTensorType type,
                      Value self, Value index, int64_t d,
                      const ScatterSource &source, bool add) {
  Type et = type.getElementType();
  int64_t slices = shapeOf(index)[d];
  Value idx = castTo(b, loc, index, b.getI32Type());
  Value iota = createIota(b, loc, type.getDimSize(d), d, type.getRank());
  auto maskType = RankedTensorType::get(type.getShape(), b.getI1Type());
  Value out = castTo(b, loc, self, et);
  Value zero = add ? createSplat(b, loc, et, 0.0) : Value();
  for (int64_t j = 0; j < slices; ++j) {
    Value at = sliceAlong(b, loc, idx, d, j, 1, 1);
    Value hit =
        CompareOp::create(b, loc, maskType, ComparePredicate::eq, iota, at);
    Value part =
        source.src ? sliceAlong(b, loc, source.src, d, j, 1, 1) : source.value;
    if (add)
      out = BinaryOp::create(b, loc, type, BinaryKind::add, out,
                             SelectOp::create(b, loc, type, hit, part, zero));
    else
      out = SelectOp::create(b, loc, type, hit, part, out);
  }
  return out;
}

/// `x` cut to the index's extent in every dim but `d`.
Value cropToIndexExtent(OpBuilder &b, Location loc, Value x,
                        ArrayRef<int64_t> idxShape, int64_t d) {
  for (int64_t k = 0, rank = idxShape.size(); k < rank; ++k)
    if (k != d)
      x = sliceAlong(b, loc, x, k, 0, idxShape[k], 1);
  return x;
}

/// `x` with its leading box of `box`'s shape (every dim from 0) replaced by
/// `box`: per dim where the box is shorter, from the last, the box so far
/// concatenated with the rest of x along that dim (x cut to the box in the
/// dims before it).
Value writeLeadingBox(OpBuilder &b, Location loc, Value x, Value box) {
  ArrayRef<int64_t> full = shapeOf(x);
  SmallVector<int64_t> extent(shapeOf(box));
  Value cur = box;
  for (int64_t k = int64_t(full.size()) - 1; k >= 0; --k) {
    if (extent[k] == full[k])
      continue;
    Value rest = x;
    for (int64_t j = 0; j < k; ++j)
      rest = sliceAlong(b, loc, rest, j, 0, extent[j], 1);
    rest = sliceAlong(b, loc, rest, k, extent[k], full[k] - extent[k], 1);
    cur = extent[k] == 0 ? rest : concatAlong(b, loc, {cur, rest}, k);
    extent[k] = full[k];
  }
  return cur;
}

/// scatter(self, dim, index, src | value) and scatter_add: for each slice j
/// of `index` along `dim`, a one-hot mask (iota == index[j]) selects where
/// src[j] goes. Later slices win on repeated indices (PyTorch leaves that
/// order undefined); scatter_add adds instead. Where `index` is shorter
/// than `self` in another dim, only self's leading box of the index's
/// extent there is written: scattered in that box, which is then written
/// back into self.
LogicalResult decomposeScatter(AtenOp op, const AtenArgs &args,
                               RewriterBase &rw, bool add) {
  FailureOr<Value> self = args.tensor("self");
  FailureOr<Value> index = args.tensor("index");
  FailureOr<int64_t> dim = args.getInt("dim");
  if (failed(self) || failed(index) || failed(dim))
    return failure();
  RankedTensorType type = resultType(op);
  FailureOr<int64_t> d = normalizeDim(op, *dim, type.getRank());
  if (failed(d))
    return failure();
  ArrayRef<int64_t> idxShape = shapeOf(*index);
  if (failed(checkScatterIndex(op, idxShape, type, *d)))
    return failure();
  FailureOr<ScatterSource> source =
      readScatterSource(op, args, rw, idxShape, type.getElementType());
  if (failed(source))
    return failure();
  Location loc = op.getLoc();
  Value x = castTo(rw, loc, *self, type.getElementType());
  SmallVector<int64_t> boxShape(idxShape);
  boxShape[*d] = type.getDimSize(*d);
  if (ArrayRef<int64_t>(boxShape) == type.getShape()) {
    rw.replaceOp(op,
                 scatterByOneHot(rw, loc, type, x, *index, *d, *source, add));
    return success();
  }
  if (llvm::is_contained(boxShape, 0)) { // writes nothing
    rw.replaceOp(op, x);
    return success();
  }
  Value box = cropToIndexExtent(rw, loc, x, idxShape, *d);
  Value scattered = scatterByOneHot(
      rw, loc, RankedTensorType::get(boxShape, type.getElementType()), box,
      *index, *d, *source, add);
  rw.replaceOp(op, writeLeadingBox(rw, loc, x, scattered));
  return success();
}

/// The most index slices along `dim` that gather unrolls.
constexpr int64_t kMaxGatherSlices = 64;

/// Checks gather's self and index: one rank >= 1, few enough slices.
LogicalResult checkGatherIndex(AtenOp op, ArrayRef<int64_t> selfShape,
                               ArrayRef<int64_t> idxShape, int64_t rank,
                               int64_t d) {
  if (rank == 0 || int64_t(selfShape.size()) != rank ||
      int64_t(idxShape.size()) != rank)
    return op.emitError("gather needs self and index of one rank >= 1");
  int64_t slices = idxShape[d];
  if (slices > kMaxGatherSlices)
    return op.emitError("gather of ")
           << slices << " index slices along dim " << d
           << " is not supported (at most " << kMaxGatherSlices << ")";
  return success();
}

/// Per slice j of `index` along `d`, the sum of `x` over a one-hot mask
/// (iota over `size` positions == index[j]): x[index[j]] exactly (one
/// non-zero term); the slices concatenated along `d`.
Value sumOverOneHots(OpBuilder &b, Location loc, Value x, Value index,
                     int64_t size, int64_t d) {
  int64_t rank = shapeOf(x).size();
  int64_t slices = shapeOf(index)[d];
  Value idx = castTo(b, loc, index, b.getI32Type());
  Value iota = createIota(b, loc, size, d, rank);
  auto maskType = RankedTensorType::get(shapeOf(x), b.getI1Type());
  Value zero = createSplat(b, loc, elementTypeOf(x), 0.0);
  SmallVector<Value> parts;
  for (int64_t j = 0; j < slices; ++j) {
    Value hit = CompareOp::create(b, loc, maskType, ComparePredicate::eq, iota,
                                  sliceAlong(b, loc, idx, d, j, 1, 1));
    Value picked = SelectOp::create(b, loc, x.getType(), hit, x, zero);
    parts.push_back(reduceAlong(b, loc, picked, d, ReduceKind::sum));
  }
  return concatAlong(b, loc, parts, d);
}

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
  if (failed(checkGatherIndex(op, selfShape, idxShape, rank, *d)))
    return failure();
  Location loc = op.getLoc();
  Value x = cropToIndexExtent(rw, loc, *self, idxShape, *d);
  Type et = type.getElementType();
  Type ct = isa<FloatType>(et) ? accumulationType(et) : et;
  x = castTo(rw, loc, x, ct);
  Value sums = sumOverOneHots(rw, loc, x, *index, selfShape[*d], *d);
  rw.replaceOp(op, castTo(rw, loc, sums, et));
  return success();
}

/// A window [start, end) along one dim.
struct Window {
  int64_t start, end, step = 1;
  /// Positions the window writes.
  int64_t count() const {
    return end > start ? llvm::divideCeil(end - start, step) : 0;
  }
};

/// The window slice_scatter (`select`: select_scatter) writes along a dim of
/// `n` elements: the clamped start and end with the step, or the index.
FailureOr<Window> readScatterWindow(AtenOp op, const AtenArgs &args,
                                    bool select, int64_t n) {
  if (select) {
    FailureOr<int64_t> i = clampedIndex(args, "index", 0, n);
    if (failed(i))
      return failure();
    return Window{*i, *i + 1};
  }
  FailureOr<int64_t> step = args.getInt("step");
  FailureOr<int64_t> s = clampedIndex(args, "start", 0, n);
  FailureOr<int64_t> e = clampedIndex(args, "end", n, n);
  if (failed(step) || failed(s) || failed(e))
    return failure();
  if (*step < 1)
    return op.emitError("slice_scatter step must be positive, got ") << *step;
  return Window{*s, std::max(*s, *e), *step};
}

LogicalResult scatterSlices(AtenOp op, RewriterBase &rw, Value self, int64_t d,
                            Value index, Value source);

/// The non-empty parts of `x` with `src` in window `w` along `d` (of `n`
/// elements): x before the window, src, x after it.
SmallVector<Value> partsAroundWindow(OpBuilder &b, Location loc, Value x,
                                     Value src, int64_t d, Window w,
                                     int64_t n) {
  SmallVector<Value> parts;
  if (w.start > 0)
    parts.push_back(sliceAlong(b, loc, x, d, 0, w.start, 1));
  if (w.end > w.start)
    parts.push_back(src);
  if (w.end < n)
    parts.push_back(sliceAlong(b, loc, x, d, w.end, n - w.end, 1));
  return parts;
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
  Location loc = op.getLoc();
  Value src = castTo(rw, loc, *source, type.getElementType());
  FailureOr<Window> w = readScatterWindow(op, args, select, n);
  if (failed(w))
    return failure();
  if (select) { // src without the selected dim: put it back, one wide
    SmallVector<int64_t> shape(shapeOf(src));
    shape.insert(shape.begin() + *d, 1);
    src = reshapeTo(rw, loc, src, shape);
  }
  if (shapeOf(src)[*d] != w->count())
    return op.emitError("scatter source has ")
           << shapeOf(src)[*d] << " elements along dim " << *d
           << " for a window of " << w->count();
  Value x = castTo(rw, loc, *self, type.getElementType());
  // Every step-th position: an index_copy of the source's slices there.
  if (w->step > 1 && w->count() > 0) {
    auto idxType = RankedTensorType::get({w->count()}, rw.getI64Type());
    SmallVector<int64_t> positions;
    for (int64_t i = 0; i < w->count(); ++i)
      positions.push_back(w->start + i * w->step);
    Value idx = ConstantOp::create(
        rw, loc, idxType, DenseElementsAttr::get(idxType, ArrayRef(positions)));
    return scatterSlices(op, rw, x, *d, idx, src);
  }
  if (w->step > 1) { // writes nothing
    rw.replaceOp(op, x);
    return success();
  }
  SmallVector<Value> parts = partsAroundWindow(rw, loc, x, src, *d, *w, n);
  if (parts.empty()) { // dim `d` has size 0: so has the result
    rw.replaceOp(
        op, createSplat(rw, loc, type.getElementType(), 0, type.getShape()));
    return success();
  }
  rw.replaceOp(op, concatAlong(rw, loc, parts, *d));
  return success();
}

/// `x` with dim `d` moved first and the rest flattened: [size(d), rest]
/// (through a transpose when d is not 0), and the shape it came from.
std::pair<Value, SmallVector<int64_t>> rowsAlong(OpBuilder &b, Location loc,
                                                 Value x, int64_t d) {
  if (d != 0)
    x = swapWithFirstDim(b, loc, x, d);
  SmallVector<int64_t> moved(shapeOf(x));
  int64_t rest = product(ArrayRef<int64_t>(moved).drop_front());
  return {reshapeTo(b, loc, x, {moved[0], rest}), moved};
}

/// The inverse of rowsAlong: [size(d), rest] back to the original layout.
Value unrowsAlong(OpBuilder &b, Location loc, Value rows,
                  ArrayRef<int64_t> moved, int64_t d) {
  Value x = reshapeTo(b, loc, rows, moved);
  if (d == 0)
    return x;
  return swapWithFirstDim(b, loc, x, d);
}

/// `indices` as a gather takes them: i32 or i64, at least 1-D (a gather
/// picks rows for at least one index dim; the caller views the result back
/// without it).
Value gatherIndices(OpBuilder &b, Location loc, Value indices) {
  if (!elementTypeOf(indices).isInteger(32) &&
      !elementTypeOf(indices).isInteger(64))
    indices = castTo(b, loc, indices, b.getI64Type());
  if (shapeOf(indices).empty())
    indices = reshapeTo(b, loc, indices, {1});
  return indices;
}

/// Rows of `x` along `dim` picked by `indices`: a gather of the rows of x
/// viewed as [size(dim), rest] (dim first, through a transpose when it is
/// not); the index dims take dim's place in the result.
FailureOr<Value> gatherAlong(AtenOp op, OpBuilder &b, Location loc, Value x,
                             int64_t dim, Value indices) {
  if (shapeOf(x).empty())
    return op.emitError("indexing a rank-0 tensor");
  indices = gatherIndices(b, loc, indices);
  int64_t nIdx = shapeOf(indices).size();
  if (dim != 0 && nIdx != 1)
    return op.emitError("indexing dim ")
           << dim << " with a " << nIdx
           << "-D index tensor is not supported (1-D only)";
  auto [table, moved] = rowsAlong(b, loc, x, dim);
  SmallVector<int64_t> gshape(shapeOf(indices));
  gshape.push_back(shapeOf(table)[1]);
  Value g = GatherOp::create(
      b, loc, RankedTensorType::get(gshape, elementTypeOf(x)), table, indices);
  SmallVector<int64_t> picked(shapeOf(indices));
  llvm::append_range(picked, ArrayRef<int64_t>(moved).drop_front());
  Value r = reshapeTo(b, loc, g, picked);
  if (dim == 0)
    return r;
  return swapWithFirstDim(b, loc, r, dim);
}

/// embedding(weight, indices) and index_select(self, dim, index).
LogicalResult decomposeGather(AtenOp op, const AtenArgs &args, RewriterBase &rw,
                              StringRef tableName, StringRef indexName) {
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

/// An index tensor and the dim it indexes.
using IndexedDim = std::pair<int64_t, Value>;

/// The index tensors of an `indices` list (Tensor?[]) with the dims they
/// index; None entries (a whole dim) are skipped.
SmallVector<IndexedDim> indexTensors(AtenOp op, const AtenArgs &args) {
  SmallVector<Value> tensors = args.tensorList("indices");
  SmallVector<IndexedDim> out;
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

/// The shape the index tensors broadcast to; an error for a dim beyond
/// self's `rank`, a boolean mask, or shapes that do not broadcast.
FailureOr<SmallVector<int64_t>>
broadcastIndexShape(AtenOp op, ArrayRef<IndexedDim> indexed, int64_t rank) {
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
  return bshape;
}

/// The row index into self's indexed dims (flattened, the last fastest):
/// the sum over index tensors of index * (rows per step), broadcast to
/// `bshape`.
Value flatRowIndex(OpBuilder &b, Location loc, ArrayRef<IndexedDim> indexed,
                   ArrayRef<int64_t> shape, ArrayRef<int64_t> bshape) {
  Value rows;
  int64_t indexedElements = 1;
  for (auto [position, idx] : llvm::reverse(indexed)) {
    Value term = wrappedIndex(b, loc, idx, shape[position]);
    if (indexedElements != 1)
      term = BinaryOp::create(
          b, loc, cast<RankedTensorType>(term.getType()), BinaryKind::mul, term,
          createSplat(b, loc, b.getI64Type(), indexedElements));
    if (rows) {
      auto type = RankedTensorType::get(
          *broadcastShapes(shapeOf(rows), shapeOf(term)), b.getI64Type());
      term = BinaryOp::create(b, loc, type, BinaryKind::add, rows, term);
    }
    rows = term;
    indexedElements *= shape[position];
  }
  if (shapeOf(rows) != bshape)
    rows = BroadcastOp::create(
        b, loc, RankedTensorType::get(bshape, b.getI64Type()), rows);
  return rows;
}

/// `self` with the indexed dims first, viewed as [indexed elements, rest],
/// and the shape of the rest.
std::pair<Value, SmallVector<int64_t>>
indexedRowsTable(OpBuilder &b, Location loc, Value self,
                 ArrayRef<IndexedDim> indexed) {
  ArrayRef<int64_t> shape = shapeOf(self);
  int64_t rank = shape.size();
  SmallVector<int64_t> perm, restShape;
  int64_t indexedElements = 1;
  for (auto [position, idx] : indexed) {
    perm.push_back(position);
    indexedElements *= shape[position];
  }
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(perm, d)) {
      perm.push_back(d);
      restShape.push_back(shape[d]);
    }
  Value front = self;
  if (!llvm::equal(perm, llvm::seq<int64_t>(0, rank)))
    front = permuted(b, loc, self, perm);
  Value table = reshapeTo(b, loc, front, {indexedElements, product(restShape)});
  return {table, restShape};
}

/// The rows of `table` at `rows` (of shape `bshape`), viewed as [bshape...,
/// restShape...]. A gather walks at most three index dims: more are
/// flattened first.
Value gatherIndexedRows(OpBuilder &b, Location loc, Value table, Value rows,
                        ArrayRef<int64_t> bshape, ArrayRef<int64_t> restShape) {
  SmallVector<int64_t> gatherIndexShape(bshape);
  if (bshape.empty() || bshape.size() > 3)
    gatherIndexShape = {product(bshape)};
  Value flat = reshapeTo(b, loc, rows, gatherIndexShape);
  gatherIndexShape.push_back(product(restShape));
  Value g = GatherOp::create(
      b, loc, RankedTensorType::get(gatherIndexShape, elementTypeOf(table)),
      table, flat);
  SmallVector<int64_t> picked(bshape);
  llvm::append_range(picked, restShape);
  return reshapeTo(b, loc, g, picked);
}

/// Where x[indices] puts its dims, as a permutation of [index dims (nb),
/// rest (nRest)]: the index dims where the first indexed dim stood when the
/// indexed dims are adjacent (numpy's rule), in front otherwise (no
/// permutation: nullopt).
std::optional<SmallVector<int64_t>>
indexDimPlacement(ArrayRef<IndexedDim> indexed, int64_t nb, int64_t nRest) {
  int64_t first = indexed.front().first;
  bool adjacent = indexed.back().first - first + 1 == int64_t(indexed.size());
  if (!adjacent || first <= 0)
    return std::nullopt;
  SmallVector<int64_t> order;
  for (int64_t d = 0; d < first; ++d)
    order.push_back(nb + d);
  for (int64_t d = 0; d < nb; ++d)
    order.push_back(d);
  for (int64_t d = first; d < nRest; ++d)
    order.push_back(nb + d);
  return order;
}

/// `r` ([index dims (nb), rest (nRest)]) in x[indices]'s layout
/// (indexDimPlacement).
Value placeIndexDims(OpBuilder &b, Location loc, Value r,
                     ArrayRef<IndexedDim> indexed, int64_t nb, int64_t nRest) {
  std::optional<SmallVector<int64_t>> order =
      indexDimPlacement(indexed, nb, nRest);
  return order ? permuted(b, loc, r, *order) : r;
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
  SmallVector<IndexedDim> indexed = indexTensors(op, args);
  if (indexed.empty())
    return op.emitError("index.Tensor without an index tensor");
  FailureOr<SmallVector<int64_t>> bshape =
      broadcastIndexShape(op, indexed, shape.size());
  if (failed(bshape))
    return failure();
  Value rows = flatRowIndex(rw, loc, indexed, shape, *bshape);
  auto [table, restShape] = indexedRowsTable(rw, loc, *self, indexed);
  Value r = gatherIndexedRows(rw, loc, table, rows, *bshape, restShape);
  r = placeIndexDims(rw, loc, r, indexed, bshape->size(), restShape.size());
  rw.replaceOp(op, reshapeTo(rw, loc, r, resultType(op).getShape()));
  return success();
}

/// alpha times a one-hot of `index` over `size` positions ([size,
/// len(index)]) times `src`'s slices along `d` ([len(index), rest]) on the
/// PT array, in f32 and in src's layout: every slice added where its index
/// points, repeated indices accumulating.
Value addedAtIndices(OpBuilder &b, Location loc, Value index, Value src,
                     int64_t d, int64_t size, double alpha) {
  Type f32 = b.getF32Type();
  Value idx = castTo(b, loc, index, b.getI32Type());
  int64_t count = shapeOf(idx).empty() ? 1 : shapeOf(idx)[0];
  idx = reshapeTo(b, loc, idx, {1, count});
  Value hit = CompareOp::create(
      b, loc, RankedTensorType::get({size, count}, b.getI1Type()),
      ComparePredicate::eq, createIota(b, loc, size, 0, 2), idx);
  auto [rows, moved] = rowsAlong(b, loc, castTo(b, loc, src, f32), d);
  Value onehot = castTo(b, loc, hit, f32);
  Value added = MatmulOp::create(
      b, loc, RankedTensorType::get({size, shapeOf(rows)[1]}, f32), onehot,
      rows);
  if (alpha != 1.0)
    added = BinaryOp::create(b, loc, added.getType(), BinaryKind::mul, added,
                             createSplat(b, loc, f32, alpha));
  moved[0] = size;
  return unrowsAlong(b, loc, added, moved, d);
}

/// Replaces `op` by `self` (its result's shape, or [1] for a scalar) plus
/// addedAtIndices, in f32, cast to the result's type.
void replaceWithAdded(AtenOp op, RewriterBase &rw, Value self, Value index,
                      Value src, int64_t d, double alpha) {
  RankedTensorType type = resultType(op);
  Location loc = op.getLoc();
  Value added = addedAtIndices(rw, loc, index, src, d, shapeOf(self)[d], alpha);
  Value out = BinaryOp::create(rw, loc, added.getType(), BinaryKind::add,
                               castTo(rw, loc, self, rw.getF32Type()), added);
  out = reshapeTo(rw, loc, castTo(rw, loc, out, type.getElementType()),
                  type.getShape());
  rw.replaceOp(op, out);
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
  Location loc = op.getLoc();
  bool scalar = resultType(op).getRank() == 0;
  Value s = scalar ? reshapeTo(rw, loc, *self, {1}) : *self;
  Value src = scalar ? reshapeTo(rw, loc, *source, {1}) : *source;
  FailureOr<int64_t> d = normalizeDim(op, *dim, shapeOf(s).size());
  if (failed(d))
    return failure();
  replaceWithAdded(op, rw, s, *index, src, *d, *alpha);
  return success();
}

/// masked_scatter's result viewed as [rows, cols] (cols the last dim).
struct MaskedScatterShape {
  SmallVector<int64_t> shape; // the result's, rank-0 as [1]
  int64_t rows, cols, sourceElements;
};

/// The [rows, cols] view of a result of `type` and source's element count.
MaskedScatterShape maskedScatterShape(RankedTensorType type, Value source) {
  MaskedScatterShape s;
  s.shape.assign(type.getShape().begin(), type.getShape().end());
  if (s.shape.empty())
    s.shape.push_back(1);
  s.cols = s.shape.back();
  s.rows = product(ArrayRef<int64_t>(s.shape).drop_back());
  s.sourceElements = product(shapeOf(source));
  return s;
}

/// The i1 mask `m` broadcast to `shape`.
Value broadcastMask(OpBuilder &b, Location loc, Value m,
                    ArrayRef<int64_t> shape) {
  return BroadcastOp::create(b, loc,
                             RankedTensorType::get(shape, b.getI1Type()), m)
      .getResult();
}

/// A mask that is one value per row: whole source rows, counted in rows
/// (an exclusive prefix sum of the row mask), gathered into [rows, cols];
/// null when source has no whole row.
Value gatherSourceRows(OpBuilder &b, Location loc, Value m, Value flatSource,
                       const MaskedScatterShape &s, Type et) {
  SmallVector<int64_t> rowShape(s.shape);
  rowShape.back() = 1;
  Value rowMask =
      reshapeTo(b, loc, broadcastMask(b, loc, m, rowShape), {s.rows, 1});
  Value before = createPrefixSum(
      b, loc, castTo(b, loc, rowMask, b.getF32Type()), 0, /*exclusive=*/true);
  Value at = castTo(b, loc, before, b.getI32Type());
  at = SelectOp::create(b, loc, at.getType(), rowMask, at,
                        createSplat(b, loc, b.getI32Type(), 0));
  int64_t sourceRows = s.sourceElements / s.cols;
  if (sourceRows == 0)
    return Value();
  Value table = reshapeTo(
      b, loc, sliceAlong(b, loc, flatSource, 0, 0, sourceRows * s.cols, 1),
      {sourceRows, s.cols});
  return GatherOp::create(b, loc, RankedTensorType::get({s.rows, s.cols}, et),
                          table, reshapeTo(b, loc, at, {s.rows}));
}

/// Source elements at the true elements of the `full` mask: the position of
/// one is the number of true elements before it (prefix sums within rows
/// and over the rows' counts), gathered into [rows * cols, 1]; null when
/// source is empty.
FailureOr<Value> gatherSourceElements(AtenOp op, OpBuilder &b, Value full,
                                      Value flatSource,
                                      const MaskedScatterShape &s, Type et) {
  if (s.cols > kMaxPrefixSumLength)
    return op.emitError("masked_scatter along a last dim of ")
           << s.cols << " elements is not supported (at most "
           << kMaxPrefixSumLength << ")";
  if (s.sourceElements == 0)
    return Value();
  Location loc = op.getLoc();
  Value counted =
      castTo(b, loc, reshapeTo(b, loc, full, {s.rows, s.cols}), b.getF32Type());
  Value within = createPrefixSum(b, loc, counted, 1, /*exclusive=*/true);
  Value perRow = reduceAlong(b, loc, counted, 1, ReduceKind::sum);
  Value rowStart = createPrefixSum(b, loc, perRow, 0, /*exclusive=*/true);
  Value at = BinaryOp::create(b, loc, within.getType(), BinaryKind::add, within,
                              rowStart);
  at = castTo(b, loc, at, b.getI32Type());
  at = SelectOp::create(b, loc, at.getType(),
                        reshapeTo(b, loc, full, {s.rows, s.cols}), at,
                        createSplat(b, loc, b.getI32Type(), 0));
  return Value(
      GatherOp::create(b, loc, RankedTensorType::get({s.rows * s.cols, 1}, et),
                       flatSource, reshapeTo(b, loc, at, {s.rows * s.cols})));
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
  MaskedScatterShape s = maskedScatterShape(type, *source);
  // The mask aligned with self's dims (numpy broadcasting from the right).
  SmallVector<int64_t> maskShape(shapeOf(*mask));
  maskShape.insert(maskShape.begin(), s.shape.size() - maskShape.size(), 1);
  Value m =
      reshapeTo(rw, loc, castTo(rw, loc, *mask, rw.getI1Type()), maskShape);
  if (s.rows > kMaxPrefixSumLength)
    return op.emitError("masked_scatter over ")
           << s.rows << " rows is not supported (at most "
           << kMaxPrefixSumLength << ")";
  Value full = broadcastMask(rw, loc, m, s.shape);
  Value x = reshapeTo(rw, loc, castTo(rw, loc, *self, et), s.shape);
  Value flatSource =
      reshapeTo(rw, loc, castTo(rw, loc, *source, et), {s.sourceElements, 1});
  FailureOr<Value> picked = failure();
  if (maskShape.back() == 1 && s.cols > 1)
    picked = gatherSourceRows(rw, loc, m, flatSource, s, et);
  else
    picked = gatherSourceElements(op, rw, full, flatSource, s, et);
  if (failed(picked))
    return failure();
  if (!*picked) { // nothing to scatter
    rw.replaceOp(op, castTo(rw, loc, *self, et));
    return success();
  }
  Value out = SelectOp::create(rw, loc, x.getType(), full,
                               reshapeTo(rw, loc, *picked, s.shape), x);
  rw.replaceOp(op, reshapeTo(rw, loc, out, type.getShape()));
  return success();
}

/// self with the slices along `d` at `index` replaced by `source`'s: a DMA
/// scatter of rows. Along the innermost dim (a slice is one element per
/// row, not a run of bytes) the scatter runs on the transpose, whose rows
/// those are: self and the slices with their last two dims swapped (a rank
/// 1 self as a column), the result swapped back.
LogicalResult scatterSlices(AtenOp op, RewriterBase &rw, Value self, int64_t d,
                            Value index, Value source) {
  Location loc = op.getLoc();
  RankedTensorType type = resultType(op);
  Type et = type.getElementType();
  Value idx = index;
  if (!elementTypeOf(idx).isInteger(32) && !elementTypeOf(idx).isInteger(64))
    idx = castTo(rw, loc, idx, rw.getI64Type());
  // The source slices: as many as indices, self's extent elsewhere.
  SmallVector<int64_t> sliceShape(type.getShape());
  sliceShape[d] = shapeOf(idx).empty() ? 1 : shapeOf(idx)[0];
  Value src = castTo(rw, loc, source, et);
  if (shapeOf(src) != ArrayRef<int64_t>(sliceShape))
    src = BroadcastOp::create(rw, loc, RankedTensorType::get(sliceShape, et),
                              src);
  int64_t rank = type.getRank();
  Value x = castTo(rw, loc, self, et);
  if (d + 1 < rank) {
    rw.replaceOpWithNewOp<ScatterOp>(op, type, x, idx, src, d);
    return success();
  }
  // Innermost: as rows of the transpose (of a column for rank 1).
  auto rowsOf = [&](Value v) {
    if (rank == 1)
      return reshapeTo(rw, loc, v, {shapeOf(v)[0], 1});
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[rank - 1], perm[rank - 2]);
    return permuted(rw, loc, v, perm);
  };
  Value rows = rowsOf(x), srcRows = rowsOf(src);
  Value scattered = ScatterOp::create(rw, loc, rows.getType(), rows, idx,
                                      srcRows, rank == 1 ? 0 : rank - 2);
  Value back = rank == 1 ? reshapeTo(rw, loc, scattered, type.getShape())
                         : rowsOf(scattered);
  rw.replaceOp(op, back);
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

/// The permutation undoing `perm`.
SmallVector<int64_t> inversePermutation(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = int64_t(i);
  return inverse;
}

/// `values` as the rows index_put writes, [count, rest]: broadcast to
/// x[indices]'s shape (whose index dims numpy places by `indexed`), the
/// index dims then brought to the front.
Value valuesAsIndexedRows(RewriterBase &rw, Location loc, Value values, Type et,
                          ArrayRef<IndexedDim> indexed,
                          ArrayRef<int64_t> bshape,
                          ArrayRef<int64_t> restShape) {
  SmallVector<int64_t> front(bshape);
  llvm::append_range(front, restShape);
  std::optional<SmallVector<int64_t>> order =
      indexDimPlacement(indexed, bshape.size(), restShape.size());
  SmallVector<int64_t> placed = front;
  if (order)
    for (auto [i, o] : llvm::enumerate(*order))
      placed[i] = front[o];
  Value v = castTo(rw, loc, values, et);
  if (shapeOf(v) != ArrayRef<int64_t>(placed))
    v = BroadcastOp::create(rw, loc, RankedTensorType::get(placed, et), v);
  if (order)
    v = permuted(rw, loc, v, inversePermutation(*order));
  return reshapeTo(rw, loc, v, {product(bshape), product(restShape)});
}

/// The rows [indexed elements, rest] of a tensor of `shape` viewed back as
/// that tensor: the indexed dims first, then the rest, permuted back.
Value indexedRowsAsTensor(RewriterBase &rw, Location loc, Value rows,
                          ArrayRef<IndexedDim> indexed,
                          ArrayRef<int64_t> shape) {
  SmallVector<int64_t> perm, moved;
  for (auto [p, idx] : indexed)
    perm.push_back(p);
  for (int64_t d = 0; d < int64_t(shape.size()); ++d)
    if (!llvm::is_contained(perm, d))
      perm.push_back(d);
  for (int64_t p : perm)
    moved.push_back(shape[p]);
  Value out = reshapeTo(rw, loc, rows, moved);
  if (llvm::equal(perm, llvm::seq<int64_t>(0, int64_t(shape.size()))))
    return out;
  return permuted(rw, loc, out, inversePermutation(perm));
}

/// index_put with several index tensors (broadcast together, None entries
/// between them) or one of rank > 1: as index.Tensor, the indexed dims move
/// to the front and self is viewed as rows [indexed elements, rest]; the
/// values (broadcast to x[indices]'s shape, its index dims brought to the
/// front) are written to their flat rows (index_copy, or index_add with
/// accumulate), and the rows are viewed back.
LogicalResult putIndexedRows(AtenOp op, const AtenArgs &args, RewriterBase &rw,
                             Value self, Value values, bool accumulate) {
  Location loc = op.getLoc();
  RankedTensorType type = resultType(op);
  Type et = type.getElementType();
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<IndexedDim> indexed = indexTensors(op, args);
  if (indexed.empty())
    return op.emitError("index_put without an index tensor");
  FailureOr<SmallVector<int64_t>> bshape =
      broadcastIndexShape(op, indexed, shape.size());
  if (failed(bshape))
    return failure();
  if (accumulate && et.isInteger(1))
    return op.emitError("index_put with accumulate=True of a bool tensor is "
                        "not supported");
  Value rows =
      reshapeTo(rw, loc, flatRowIndex(rw, loc, indexed, shape, *bshape),
                {product(*bshape)});
  auto [table, restShape] =
      indexedRowsTable(rw, loc, castTo(rw, loc, self, et), indexed);
  Value src =
      valuesAsIndexedRows(rw, loc, values, et, indexed, *bshape, restShape);
  Value written;
  if (accumulate) {
    Value added = addedAtIndices(rw, loc, rows, src, 0, shapeOf(table)[0], 1.0);
    written =
        castTo(rw, loc,
               BinaryOp::create(rw, loc, added.getType(), BinaryKind::add,
                                castTo(rw, loc, table, rw.getF32Type()), added),
               et);
  } else {
    written = ScatterOp::create(rw, loc, table.getType(), table, rows, src, 0);
  }
  rw.replaceOp(op, indexedRowsAsTensor(rw, loc, written, indexed, shape));
  return success();
}

/// index_put(self, [None, ..., index, ...], values): `x[:, :, pos] = v` (a
/// static KV cache's fallback update, and what ep.run_decompositions()
/// makes of it), as index_copy along the index's position; with
/// accumulate, `x[:, :, pos] += v` as index_add (repeated indices add up).
LogicalResult decomposeIndexPut(AtenOp op, const AtenArgs &args,
                                RewriterBase &rw) {
  FailureOr<Value> self = args.tensor("self");
  FailureOr<Value> values = args.tensor("values");
  FailureOr<bool> accumulate = args.getBool("accumulate");
  if (failed(self) || failed(values) || failed(accumulate))
    return failure();
  auto [index, position] = singleIndex(op, args);
  if (!index || shapeOf(index).size() > 1 || elementTypeOf(index).isInteger(1))
    return putIndexedRows(op, args, rw, *self, *values, *accumulate);
  if (!*accumulate)
    return scatterSlices(op, rw, *self, position, index, *values);
  RankedTensorType type = resultType(op);
  if (type.getElementType().isInteger(1))
    return op.emitError("index_put with accumulate=True of a bool tensor is "
                        "not supported");
  // The values broadcast to the indexed slices, as index_add's source.
  SmallVector<int64_t> sliceShape(type.getShape());
  sliceShape[position] = shapeOf(index).empty() ? 1 : shapeOf(index)[0];
  Location loc = op.getLoc();
  Value v = castTo(rw, loc, *values, type.getElementType());
  if (shapeOf(v) != ArrayRef<int64_t>(sliceShape))
    v = BroadcastOp::create(
        rw, loc, RankedTensorType::get(sliceShape, type.getElementType()), v);
  replaceWithAdded(op, rw, *self, index, v, position, 1.0);
  return success();
}

} // namespace

void registerIndexingDecompositions(DecompositionRegistry &r) {
  const char *all = "all";
  r.add({"aten.gather.default", "shape", all,
         "per index slice along `dim` (at most 64), a sum over a one-hot "
         "mask (exact: one term); integers are summed in their own type",
         decomposeGatherElements});
  r.add({"aten.slice_scatter.default", "shape", all,
         "self around the window and src inside it, one concatenation; with "
         "a step, index_copy at the window's positions",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeSliceScatter(op, a, rw, /*select=*/false);
         }});
  r.add({"aten.select_scatter.default", "shape", all, "as slice_scatter",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeSliceScatter(op, a, rw, /*select=*/true);
         }});
  r.add({"aten.scatter.src", "shape", all,
         "one select per index slice along `dim` (at most 64) on a one-hot "
         "mask, in self's leading box of the index's extent; later slices "
         "win on repeated indices",
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
         "a copy then a DMA scatter of the source's slices; along the "
         "innermost dim on the transpose (two stick-moving transposes); one "
         "core",
         decomposeIndexCopy});
  r.add({"aten.index_put.default", "shape", all,
         "one 1-D integer index tensor (`x[:, :, pos] = v`), as index_copy "
         "along its position; accumulate=True as index_add (in f32); "
         "several index tensors (or one of rank > 1) write the flat rows of "
         "self viewed as [indexed elements, rest]; boolean masks are not "
         "supported",
         decomposeIndexPut});
}

} // namespace spyre
