//===- Shape.cpp - Data movement and shape aten ops ------------------------===//
//
// Permutations become `spyre.transpose` (a transpose of a matmul operand
// folds into the matmul's flags during canonicalization), reshapes
// `spyre.reshape`.
//
//===----------------------------------------------------------------------===//

#include "spyre/Transforms/Decompositions.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace spyre {
namespace {

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

} // namespace

void registerShapeDecompositions(DecompositionRegistry &r) {
  const char *any = "all";
  r.add({"aten.t.default", "shape", any,
         "a transpose; folded into a consuming matmul", decomposeT});
  r.add({"aten.permute.default", "shape", any,
         "a transpose; folded into a consuming matmul when it swaps the last "
         "two dims",
         decomposePermute});
  r.add({"aten.transpose.int", "shape", any, "as permute", decomposeTranspose});
}

} // namespace spyre
