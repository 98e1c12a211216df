//===- SinkTransposes.cpp - spyre-sink-transposes -------------------------===//
//
// A transpose that moves the innermost dim is a kernel of its own (an SFP
// transpose of tiles), and nothing fuses into it: a pointwise op reading
// it is one more kernel and one more device-memory round trip. Applied
// before the transpose instead, the op joins the kernel producing its
// input: `relu(x).t() * 2` runs as `(relu(x) * 2).t()`, two kernels, not
// three. (Transposes that keep the innermost dim are left where they are:
// spyre-reorder-on-chip folds them into a neighbour's access pattern.)
//
//===----------------------------------------------------------------------===//

#include "Preconditions.h"
#include "spyre/Dialect/Spyre/TileLowering.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace spyre {
#define GEN_PASS_DEF_SPYRESINKTRANSPOSES
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {

/// The transpose defining `v` when it moves the innermost dim, has no
/// other user and transposes what a pointwise op or a matmul computes (a
/// kernel the sunk op joins), on a tensor without a layout yet; null
/// otherwise. (A transpose of a graph input stays: the op would be a
/// kernel of its own either way, and a reduction after it may read it
/// permuted.)
TransposeOp sinkableTranspose(Value v) {
  auto t = v.getDefiningOp<TransposeOp>();
  if (!t || !t->hasOneUse() || getLayout(t.getType()))
    return TransposeOp();
  Operation *producer = t.getInput().getDefiningOp();
  if (!producer || !(isPointwise(producer) || isa<MatmulOp>(producer)))
    return TransposeOp();
  ArrayRef<int64_t> perm = t.getPermutation();
  if (perm.empty() || perm.back() == int64_t(perm.size()) - 1)
    return TransposeOp();
  return t;
}

/// Whether reordering `shape`'s dims by `perm` moves only dims of size 1,
/// so that the reordered tensor is a reshape of it.
bool isViewPermutation(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (shape[p] == 1)
      continue;
    if (p < last)
      return false;
    last = p;
  }
  return true;
}

/// How a pointwise op reads an operand once the transpose `perm` is undone:
/// the input of a transpose by the same `perm`, a scalar as it is, or a
/// broadcast operand viewed in `viewShape` when only its size-1 dims move
/// and its innermost dim stays (so that the view is free on the device).
struct Untransposed {
  Value value;
  std::optional<SmallVector<int64_t>> viewShape;
};

std::optional<Untransposed> untransposed(Value v, TransposeOp transposed,
                                         int64_t rank) {
  if (TransposeOp t = sinkableTranspose(v);
      t && t.getPermutation() == transposed.getPermutation())
    return Untransposed{t.getInput(), std::nullopt};
  auto type = cast<RankedTensorType>(v.getType());
  if (getLayout(type) || type.getRank() > rank)
    return std::nullopt;
  if (type.getRank() == 0)
    return Untransposed{v, std::nullopt};
  // Numpy broadcasting aligns dims from the right.
  SmallVector<int64_t> shape(rank - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  SmallVector<int64_t> inverse =
      invertPermutationVector(transposed.getPermutation());
  SmallVector<int64_t> viewShape = applyPermutation<int64_t>(shape, inverse);
  // A view of the device layout too: the innermost dim stays.
  if (!isViewPermutation(shape, inverse) || viewShape.back() != shape.back())
    return std::nullopt;
  return Untransposed{v, viewShape};
}

/// pointwise(transpose(x, p), y, ..) -> transpose(pointwise(x, y', ..), p),
/// y' the input of transpose(y', p), a scalar or a view of a broadcast
/// operand; the transposed operand has the result's shape (the transpose
/// never grows).
struct SinkBelowPointwise : public RewritePattern {
  SinkBelowPointwise(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isPointwise(op) || isa<BroadcastOp>(op) || op->getNumResults() != 1)
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || getLayout(resultType))
      return failure();
    TransposeOp transposed;
    for (Value operand : op->getOperands())
      if (TransposeOp t = sinkableTranspose(operand);
          t && t.getType().getShape() == resultType.getShape()) {
        transposed = t;
        break;
      }
    if (!transposed)
      return failure();
    int64_t rank = resultType.getRank();
    SmallVector<Untransposed> reads;
    for (Value operand : op->getOperands()) {
      std::optional<Untransposed> read =
          untransposed(operand, transposed, rank);
      if (!read)
        return failure();
      reads.push_back(*read);
    }
    SmallVector<Value> operands;
    for (Untransposed &read : reads) {
      Type elementType =
          cast<RankedTensorType>(read.value.getType()).getElementType();
      operands.push_back(
          read.viewShape
              ? Value(ReshapeOp::create(
                    rewriter, op->getLoc(),
                    RankedTensorType::get(*read.viewShape, elementType),
                    read.value))
              : read.value);
    }
    ArrayRef<int64_t> perm = transposed.getPermutation();
    Operation *sunk = rewriter.clone(*op);
    sunk->setOperands(operands);
    sunk->getResult(0).setType(RankedTensorType::get(
        applyPermutation<int64_t>(resultType.getShape(),
                                  invertPermutationVector(perm)),
        resultType.getElementType()));
    rewriter.replaceOpWithNewOp<TransposeOp>(op, resultType, sunk->getResult(0),
                                             perm);
    return success();
  }
};

struct SinkTransposesPass
    : public spyre::impl::SpyreSinkTransposesBase<SinkTransposesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(requireComputeLevel(module, getArgument())))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkBelowPointwise>(&getContext());
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
