//===- Views.cpp - Layout view aten ops -----------------------------------===//
//
// Views (reshape, unsqueeze, squeeze, flatten, expand) become `spyre.reshape`
// and `spyre.broadcast` (free when they keep the innermost dim); windows
// (slice, select, split) `spyre.slice`. Permutations become
// `spyre.transpose`, folded into a consuming matmul's flags during
// canonicalization.
//
//===----------------------------------------------------------------------===//

#include "ShapeCommon.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace spyre {

Value sliceAlong(OpBuilder &b, Location loc, Value x, int64_t dim,
                 int64_t start, int64_t size, int64_t step) {
  ArrayRef<int64_t> in = shapeOf(x);
  SmallVector<int64_t> offsets(in.size(), 0), strides(in.size(), 1), shape(in);
  offsets[dim] = start;
  strides[dim] = step;
  shape[dim] = size;
  if (start == 0 && step == 1 && size == in[dim])
    return x;
  return SliceOp::create(b, loc, RankedTensorType::get(shape, elementTypeOf(x)),
                         x, offsets, strides);
}

FailureOr<int64_t> clampedIndex(const AtenArgs &args, StringRef name,
                                int64_t dflt, int64_t n) {
  if (args.isNone(name))
    return dflt;
  FailureOr<int64_t> v = args.getInt(name);
  if (failed(v))
    return failure();
  int64_t i = *v < 0 ? *v + n : *v;
  return std::clamp<int64_t>(i, 0, n);
}

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
    return op.emitError("permute needs ") << rank << " dims for a rank-" << rank
                                          << " tensor, got " << dims->size();
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
  FailureOr<int64_t> start = clampedIndex(args, "start", 0, n);
  FailureOr<int64_t> end = clampedIndex(args, "end", n, n);
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
    return op.emitError("select index ")
           << *index << " out of range for size " << n;
  Value s = sliceAlong(rw, op.getLoc(), *x, *d, i, 1, 1);
  rw.replaceOp(op, reshapeTo(rw, op.getLoc(), s, resultType(op).getShape()));
  return success();
}

/// copy(self, src): src broadcast to self's shape, in self's dtype (the
/// functional form of `self.copy_(src)`).
LogicalResult decomposeCopy(AtenOp op, const AtenArgs &args, RewriterBase &rw) {
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

/// Nodes with no result to compute (torch 2.9 checks metadata in-graph).
LogicalResult decomposeErase(AtenOp op, const AtenArgs &, RewriterBase &rw) {
  rw.eraseOp(op);
  return success();
}

} // namespace

void registerViewDecompositions(DecompositionRegistry &r) {
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
       {"aten.view.default", "aten.reshape.default",
        "aten._unsafe_view.default", "aten.unsqueeze.default",
        "aten.squeeze.default", "aten.squeeze.dim", "aten.squeeze.dims",
        "aten.flatten.using_ints", "aten.unflatten.int",
        "aten.view_copy.default", "aten.reshape_copy.default"})
    r.add({name, "shape", all,
           "a view when the innermost dim is kept; otherwise the elements "
           "are repacked through LX by DMA",
           decomposeReshape});
  r.add({"aten.expand.default", "shape", all,
         "a broadcast (folded into elementwise consumers)", decomposeExpand});
  r.add(
      {"aten.expand_copy.default", "shape", all, "as expand", decomposeExpand});
  r.add({"aten.slice.Tensor", "shape", all,
         "a DMA copy of the window; any start and step (exact byte runs when "
         "the window does not start on a stick)",
         decomposeSlice});
  r.add({"aten.select.int", "shape", all, "a one-wide slice", decomposeSelect});
  for (const char *name : {"aten.split.Tensor", "aten.split_with_sizes.default",
                           "aten.chunk.default", "aten.unbind.int"})
    r.add({name, "shape", all, "consecutive slices (sizes from the results)",
           decomposeSplit});
  r.add({"aten.copy.default", "shape", all,
         "src broadcast to self's shape and cast to its dtype", decomposeCopy});
  r.add({"aten._assert_tensor_metadata.default", "shape", all,
         "dropped (a check of what the importer already knows)",
         decomposeErase});
}

} // namespace spyre
