//===- ExpandAttention.cpp - spyre-expand-attention -----------------------===//
//
// The math form of `spyre.attention` (Passes.td has the contract): what the
// unfused baseline runs, and what attention whose head dims do not fit the
// flash kernel runs.
//
//===----------------------------------------------------------------------===//

#include "Preconditions.h"
#include "spyre/Transforms/Decompositions.h"
#include "spyre/Transforms/KernelPlan.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace spyre {
#define GEN_PASS_DEF_SPYREEXPANDATTENTION
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {

/// LX bytes of the flash kernel's smallest tiles: one query row and one
/// stick of key positions (Q, K and V tiles, two of each streamed one,
/// K^T, the scores and the output row; with rope, a row of cos, sin and
/// the rotated query, and the whole rotation).
int64_t smallestFlashBytes(AttentionOp op, const Arch &arch) {
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  auto v = cast<RankedTensorType>(op.getValue().getType());
  int64_t e = q.getShape().back(), ev = v.getShape().back();
  int64_t bytes = getElementBytes(q.getElementType());
  int64_t keys = arch.stickBytes / bytes;
  auto sticks = [&](int64_t n, int64_t elementBytes) {
    return llvm::divideCeil(n * elementBytes, arch.stickBytes) *
           arch.stickBytes;
  };
  int64_t rope = op.getRopeCos() ? (3 + e) * sticks(e, bytes) : 0;
  return sticks(e, bytes) + 3 * keys * sticks(e, bytes) +
         2 * keys * sticks(ev, bytes) + 2 * sticks(keys, 4) + sticks(ev, 4) +
         sticks(ev, bytes) + rope;
}

/// Whether the flash kernel of `op` would nest more than the program's
/// hardware loops on at most `cores` cores: one loop per head dim of size
/// > 1, and the query and key loops when they are longer than a stick of
/// keys (a tile of one stick always fits: smallestFlashBytes), less the
/// head dims split whole over the cores, the shortest first (what
/// spyre-schedule-cores can do at best).
bool exceedsHardwareLoops(AttentionOp op, const Arch &arch, int64_t cores) {
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  auto k = cast<RankedTensorType>(op.getKey().getType());
  int64_t keys = arch.stickBytes / getElementBytes(q.getElementType());
  SmallVector<int64_t> heads;
  for (int64_t d : q.getShape().drop_back(2))
    if (d > 1)
      heads.push_back(d);
  llvm::sort(heads);
  size_t loops = heads.size() + (q.getDimSize(q.getRank() - 2) > keys) +
                 (k.getDimSize(k.getRank() - 2) > keys);
  for (int64_t h : heads) {
    if (loops <= KernelPlan::kMaxHardwareLoops || h > cores)
      break;
    cores /= h;
    --loops;
  }
  return loops > KernelPlan::kMaxHardwareLoops;
}

/// Whether an operand has a dim of size 0: the math form's ops fold such
/// tensors to constants (no kernel), where the flash kernel would have an
/// empty loop.
bool hasEmptyDim(AttentionOp op) {
  return llvm::any_of(op->getOperands(), [](Value v) {
    return llvm::is_contained(cast<RankedTensorType>(v.getType()).getShape(),
                              0);
  });
}

/// query * cos + (query @ rotation) * sin: the rotary embedding the op
/// applies first, one op a step (each rounded to the query's type).
Value rotateQuery(RewriterBase &rw, AttentionOp op) {
  Location loc = op.getLoc();
  Value query = op.getQuery();
  auto type = cast<RankedTensorType>(query.getType());
  Value rotated = MatmulOp::create(rw, loc, type, query, op.getRopeRotation());
  Value cosTerm =
      BinaryOp::create(rw, loc, type, BinaryKind::mul, query, op.getRopeCos());
  Value sinTerm = BinaryOp::create(rw, loc, type, BinaryKind::mul, rotated,
                                   op.getRopeSin());
  return BinaryOp::create(rw, loc, type, BinaryKind::add, cosTerm, sinTerm);
}

Value expand(RewriterBase &rw, AttentionOp op) {
  Location loc = op.getLoc();
  Value query = op.getRopeCos() ? rotateQuery(rw, op) : op.getQuery();
  auto q = cast<RankedTensorType>(query.getType());
  auto k = cast<RankedTensorType>(op.getKey().getType());
  int64_t rank = q.getRank();
  Type f32 = rw.getF32Type();
  // Scores [batch..., M, S] in f32; key batch dims of 1 broadcast.
  SmallVector<int64_t> scoreShape(q.getShape().drop_back());
  scoreShape.push_back(k.getDimSize(rank - 2));
  auto scoreType = RankedTensorType::get(scoreShape, f32);
  auto qk = MatmulOp::create(rw, loc, scoreType, query, op.getKey());
  qk.setTransposeRhs(true);
  Value scores = BinaryOp::create(
      rw, loc, scoreType, BinaryKind::mul, qk,
      createSplat(rw, loc, f32, op.getScale().convertToDouble()));
  if (Value mask = op.getMask())
    scores = BinaryOp::create(rw, loc, scoreType, BinaryKind::add, scores,
                              castTo(rw, loc, mask, f32));
  if (op.getCausal())
    scores = BinaryOp::create(rw, loc, scoreType, BinaryKind::add, scores,
                              createCausalMask(rw, loc, scoreShape[rank - 2],
                                               scoreShape[rank - 1], f32));
  // The sinks: one more column of logits, dropped after the softmax.
  Value sinks = op.getSinks();
  if (sinks) {
    SmallVector<int64_t> column(scoreShape);
    column.back() = 1;
    SmallVector<int64_t> aligned(rank - shapeOf(sinks).size(), 1);
    llvm::append_range(aligned, shapeOf(sinks));
    Value col = reshapeTo(rw, loc, castTo(rw, loc, sinks, f32), aligned);
    if (shapeOf(col) != ArrayRef<int64_t>(column))
      col =
          BroadcastOp::create(rw, loc, RankedTensorType::get(column, f32), col);
    scores = concatAlong(rw, loc, {scores, col}, rank - 1);
  }
  // With a mask a row can be masked entirely: it gives 0.
  Value p = createSoftmax(rw, loc, scores, rank - 1, /*log=*/false,
                          /*safe=*/bool(op.getMask()));
  if (sinks) {
    SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
    p = SliceOp::create(rw, loc, scoreType, p, offsets, strides);
  }
  Value value = op.getValue();
  p = castTo(rw, loc, p, elementTypeOf(value));
  auto outType = cast<RankedTensorType>(op.getType());
  Value out = MatmulOp::create(
      rw, loc, RankedTensorType::get(outType.getShape(), elementTypeOf(value)),
      p, value);
  return castTo(rw, loc, out, outType.getElementType());
}

struct ExpandAttentionPass
    : public spyre::impl::SpyreExpandAttentionBase<ExpandAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(requireComputeLevel(getOperation(), getArgument())))
      return signalPassFailure();
    Arch arch = getArch(getOperation());
    int64_t cores =
        maxCores > 0 ? std::min<int64_t>(maxCores, arch.cores) : arch.cores;
    SmallVector<AttentionOp> ops;
    getOperation().walk([&](AttentionOp op) {
      if (all || hasEmptyDim(op) ||
          smallestFlashBytes(op, arch) > arch.lxBytes ||
          exceedsHardwareLoops(op, arch, cores))
        ops.push_back(op);
    });
    IRRewriter rw(&getContext());
    for (AttentionOp op : ops) {
      rw.setInsertionPoint(op);
      rw.replaceOp(op, expand(rw, op));
    }
  }
};

} // namespace
