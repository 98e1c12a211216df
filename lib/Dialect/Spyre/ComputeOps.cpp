//===- ComputeOps.cpp - Loop nests of compute ops -------------------------===//
//
// ComputeOpInterface implementations: each compute op as a loop nest with
// indexing maps (IterationSpace.h), and the work it does.
//
//===----------------------------------------------------------------------===//

#include "spyre/Dialect/Spyre/ShapeUtils.h"
#include "spyre/Dialect/Spyre/SpyreOps.h"
#include "spyre/ISA/ISA.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace spyre;

//===----------------------------------------------------------------------===//
// Shape utilities
//===----------------------------------------------------------------------===//

std::optional<SmallVector<int64_t>>
spyre::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

AffineMap spyre::broadcastMap(ArrayRef<int64_t> operandShape,
                              ArrayRef<int64_t> resultShape, MLIRContext *ctx) {
  size_t lead = resultShape.size() - operandShape.size();
  SmallVector<AffineExpr> exprs;
  for (auto [i, size] : llvm::enumerate(operandShape)) {
    size_t loop = i + lead;
    if (size == 1 && resultShape[loop] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(loop, ctx));
  }
  return AffineMap::get(resultShape.size(), 0, exprs, ctx);
}

MatmulDims spyre::getMatmulDims(MatmulOp op) {
  auto lhs = cast<RankedTensorType>(op.getLhs().getType());
  auto rhs = cast<RankedTensorType>(op.getRhs().getType());
  MatmulDims dims;
  int64_t lr = lhs.getRank(), rr = rhs.getRank();
  dims.m = lhs.getDimSize(lr - (op.getTransposeLhs() ? 1 : 2));
  dims.k = lhs.getDimSize(lr - (op.getTransposeLhs() ? 2 : 1));
  dims.n = rhs.getDimSize(rr - (op.getTransposeRhs() ? 2 : 1));
  auto out = cast<RankedTensorType>(op.getResult().getType());
  dims.batch = SmallVector<int64_t>(out.getShape().drop_back(2));
  return dims;
}

namespace {

/// Identity maps over the result's dims for every operand and the result.
IterationSpace elementwiseSpace(Operation *op) {
  IterationSpace space;
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  space.sizes = SmallVector<int64_t>(result.getShape());
  space.iterators.assign(result.getRank(), IteratorKind::parallel);
  MLIRContext *ctx = op->getContext();
  for (Value v : op->getOperands())
    space.operandMaps.push_back(
        broadcastMap(cast<RankedTensorType>(v.getType()).getShape(),
                     result.getShape(), ctx));
  space.resultMaps.push_back(
      AffineMap::getMultiDimIdentityMap(result.getRank(), ctx));
  return space;
}

int64_t numElements(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}

/// The unary kinds that count as transcendental work: those the SFP runs on
/// its complex path (a kind's value is its SFP op code).
bool isTranscendental(UnaryKind kind) {
  return isa::takesComplexPath(isa::UnaryOp(kind));
}

} // namespace

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

IterationSpace MatmulOp::getIterationSpace() {
  MLIRContext *ctx = getContext();
  MatmulDims dims = getMatmulDims(*this);
  int64_t nb = dims.batch.size();
  IterationSpace space;
  space.sizes = dims.batch;
  space.sizes.append({dims.m, dims.n, dims.k});
  space.iterators.assign(nb + 2, IteratorKind::parallel);
  space.iterators.push_back(IteratorKind::reduction);
  int64_t loops = nb + 3;
  AffineExpr m = getAffineDimExpr(nb, ctx), n = getAffineDimExpr(nb + 1, ctx),
             k = getAffineDimExpr(nb + 2, ctx);
  auto operandMap = [&](Value v, AffineExpr rows, AffineExpr cols,
                        bool transposed) {
    auto type = cast<RankedTensorType>(v.getType());
    // Batch dims broadcast against the result's batch dims.
    AffineMap batch =
        broadcastMap(type.getShape().drop_back(2), dims.batch, ctx);
    SmallVector<AffineExpr> exprs;
    for (AffineExpr e : batch.getResults())
      exprs.push_back(e);
    if (transposed)
      std::swap(rows, cols);
    exprs.push_back(rows);
    exprs.push_back(cols);
    return AffineMap::get(loops, 0, exprs, ctx);
  };
  space.operandMaps.push_back(operandMap(getLhs(), m, k, getTransposeLhs()));
  space.operandMaps.push_back(operandMap(getRhs(), k, n, getTransposeRhs()));
  SmallVector<AffineExpr> out;
  for (int64_t i = 0; i < nb; ++i)
    out.push_back(getAffineDimExpr(i, ctx));
  out.append({m, n});
  space.resultMaps.push_back(AffineMap::get(loops, 0, out, ctx));
  return space;
}

OpWork MatmulOp::getWork() {
  MatmulDims dims = getMatmulDims(*this);
  int64_t batch = 1;
  for (int64_t b : dims.batch)
    batch *= b;
  return {batch * dims.m * dims.n * dims.k, 0, false};
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

IterationSpace UnaryOp::getIterationSpace() { return elementwiseSpace(*this); }
OpWork UnaryOp::getWork() {
  return {0, numElements(getResult()), isTranscendental(getKind())};
}

IterationSpace BinaryOp::getIterationSpace() { return elementwiseSpace(*this); }
OpWork BinaryOp::getWork() {
  bool complex = isa::takesComplexPath(isa::BinaryOp(getKind()));
  return {0, numElements(getResult()), complex};
}

IterationSpace CompareOp::getIterationSpace() {
  return elementwiseSpace(*this);
}
OpWork CompareOp::getWork() { return {0, numElements(getResult()), false}; }

IterationSpace SelectOp::getIterationSpace() { return elementwiseSpace(*this); }
OpWork SelectOp::getWork() { return {0, numElements(getResult()), false}; }

IterationSpace CastOp::getIterationSpace() { return elementwiseSpace(*this); }
OpWork CastOp::getWork() { return {0, numElements(getResult()), false}; }

IterationSpace BroadcastOp::getIterationSpace() {
  return elementwiseSpace(*this);
}
OpWork BroadcastOp::getWork() { return {0, numElements(getResult()), false}; }

IterationSpace RestickifyOp::getIterationSpace() {
  return elementwiseSpace(*this);
}
OpWork RestickifyOp::getWork() {
  // Moving the stick dimension transposes every stick on the SFP.
  LayoutAttr in = getLayout(getInput().getType());
  LayoutAttr out = getLayout(getResult().getType());
  bool transposes = in && out && in.getStickDim() != out.getStickDim();
  return {0, transposes ? numElements(getResult()) : 0, false};
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

IterationSpace ReduceOp::getIterationSpace() {
  MLIRContext *ctx = getContext();
  auto in = cast<RankedTensorType>(getInput().getType());
  IterationSpace space;
  space.sizes = SmallVector<int64_t>(in.getShape());
  space.iterators.assign(in.getRank(), IteratorKind::parallel);
  space.iterators[getDim()] = IteratorKind::reduction;
  space.operandMaps.push_back(
      AffineMap::getMultiDimIdentityMap(in.getRank(), ctx));
  SmallVector<AffineExpr> out;
  for (int64_t i = 0; i < in.getRank(); ++i)
    out.push_back(i == getDim() ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(i, ctx));
  space.resultMaps.push_back(AffineMap::get(in.getRank(), 0, out, ctx));
  return space;
}

OpWork ReduceOp::getWork() { return {0, numElements(getInput()), false}; }

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

IterationSpace TransposeOp::getIterationSpace() {
  MLIRContext *ctx = getContext();
  auto out = cast<RankedTensorType>(getResult().getType());
  IterationSpace space;
  space.sizes = SmallVector<int64_t>(out.getShape());
  space.iterators.assign(out.getRank(), IteratorKind::parallel);
  // Result dim j is input dim perm[j]: the input's dim perm[j] is loop j.
  SmallVector<AffineExpr> in(out.getRank());
  for (auto [j, p] : llvm::enumerate(getPermutation()))
    in[p] = getAffineDimExpr(j, ctx);
  space.operandMaps.push_back(AffineMap::get(out.getRank(), 0, in, ctx));
  space.resultMaps.push_back(
      AffineMap::getMultiDimIdentityMap(out.getRank(), ctx));
  return space;
}

OpWork TransposeOp::getWork() {
  LayoutAttr in = getLayout(getInput().getType());
  LayoutAttr out = getLayout(getResult().getType());
  // Rank 0 (stick_dim -1): one element, nothing moves.
  bool movesStick = in && out && out.getStickDim() >= 0 &&
                    getPermutation()[out.getStickDim()] != in.getStickDim();
  return {0, movesStick ? numElements(getResult()) : 0, false};
}

//===----------------------------------------------------------------------===//
// Layout requirements
//===----------------------------------------------------------------------===//

LayoutAttr MatmulOp::getRequiredLayout(unsigned index, int64_t stickBytes) {
  // The PT unit reads lhs' (the logical [m, k] operand) with sticks along k
  // and rhs' ([k, n]) with sticks along n, each stored row-major: a
  // transposed operand is read through a layout whose sticks run along its
  // second-to-last dim.
  auto type = cast<RankedTensorType>(getOperand(index).getType());
  bool transposed = index == 0 ? getTransposeLhs() : getTransposeRhs();
  int64_t rank = type.getRank();
  return LayoutAttr::getStickInnermost(type, transposed ? rank - 2 : rank - 1,
                                       stickBytes);
}

LayoutAttr RestickifyOp::getRequiredLayout(unsigned, int64_t) {
  return nullptr; // converts from any layout
}

LayoutAttr TransposeOp::getRequiredLayout(unsigned, int64_t stickBytes) {
  // Sticks along the input dim that becomes the result's innermost: the
  // transpose then moves whole sticks (DMA only).
  auto type = cast<RankedTensorType>(getInput().getType());
  if (type.getRank() == 0)
    return LayoutAttr::getCanonical(type, stickBytes);
  return LayoutAttr::getStickInnermost(type, getPermutation().back(),
                                       stickBytes);
}

bool TransposeOp::isLayoutFlexible(unsigned) { return true; }

//===----------------------------------------------------------------------===//
// Data movement by DMA
//===----------------------------------------------------------------------===//

IterationSpace SliceOp::getIterationSpace() {
  MLIRContext *ctx = getContext();
  auto out = cast<RankedTensorType>(getResult().getType());
  IterationSpace space;
  space.sizes = SmallVector<int64_t>(out.getShape());
  space.iterators.assign(out.getRank(), IteratorKind::parallel);
  SmallVector<AffineExpr> in;
  for (int64_t d = 0; d < out.getRank(); ++d)
    in.push_back(getAffineDimExpr(d, ctx) * getStrides()[d] + getOffsets()[d]);
  space.operandMaps.push_back(AffineMap::get(out.getRank(), 0, in, ctx));
  space.resultMaps.push_back(
      AffineMap::getMultiDimIdentityMap(out.getRank(), ctx));
  return space;
}
OpWork SliceOp::getWork() { return {}; }

/// The result's loops; an input map names its region's offset along `dim`.
IterationSpace ConcatOp::getIterationSpace() {
  MLIRContext *ctx = getContext();
  auto out = cast<RankedTensorType>(getResult().getType());
  IterationSpace space;
  space.sizes = SmallVector<int64_t>(out.getShape());
  space.iterators.assign(out.getRank(), IteratorKind::parallel);
  int64_t offset = 0;
  for (Value v : getInputs()) {
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < out.getRank(); ++d)
      exprs.push_back(d == getDim() ? getAffineDimExpr(d, ctx) - offset
                                    : getAffineDimExpr(d, ctx));
    space.operandMaps.push_back(AffineMap::get(out.getRank(), 0, exprs, ctx));
    offset += cast<RankedTensorType>(v.getType()).getDimSize(getDim());
  }
  space.resultMaps.push_back(
      AffineMap::getMultiDimIdentityMap(out.getRank(), ctx));
  return space;
}
OpWork ConcatOp::getWork() { return {}; }

/// Loops over the result; the table's rows are data-dependent (read at 0).
IterationSpace GatherOp::getIterationSpace() {
  MLIRContext *ctx = getContext();
  auto out = cast<RankedTensorType>(getResult().getType());
  int64_t rank = out.getRank();
  IterationSpace space;
  space.sizes = SmallVector<int64_t>(out.getShape());
  space.iterators.assign(rank, IteratorKind::parallel);
  space.operandMaps.push_back(AffineMap::get(
      rank, 0, {getAffineConstantExpr(0, ctx), getAffineDimExpr(rank - 1, ctx)},
      ctx));
  SmallVector<AffineExpr> idx;
  for (int64_t d = 0; d < rank - 1; ++d)
    idx.push_back(getAffineDimExpr(d, ctx));
  space.operandMaps.push_back(AffineMap::get(rank, 0, idx, ctx));
  space.resultMaps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  return space;
}
OpWork GatherOp::getWork() { return {}; }

/// Loops over dest; the source and indices run along `dim` (read at 0 here:
/// the scatter is data-dependent).
IterationSpace ScatterOp::getIterationSpace() {
  MLIRContext *ctx = getContext();
  auto dest = cast<RankedTensorType>(getDest().getType());
  int64_t rank = dest.getRank();
  IterationSpace space;
  space.sizes = SmallVector<int64_t>(dest.getShape());
  space.iterators.assign(rank, IteratorKind::parallel);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  space.operandMaps.push_back(id);
  space.operandMaps.push_back(
      AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx));
  SmallVector<AffineExpr> src;
  for (int64_t d = 0; d < rank; ++d)
    src.push_back(d == getDim() ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(d, ctx));
  space.operandMaps.push_back(AffineMap::get(rank, 0, src, ctx));
  space.resultMaps.push_back(id);
  return space;
}
OpWork ScatterOp::getWork() { return {}; }

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

/// Loops (batch..., m, ev, s, e): the output's rows and columns, then the
/// key positions (the online softmax's reduction) and the head dim (the
/// scores' contraction).
IterationSpace AttentionOp::getIterationSpace() {
  MLIRContext *ctx = getContext();
  auto q = cast<RankedTensorType>(getQuery().getType());
  auto v = cast<RankedTensorType>(getValue().getType());
  int64_t nb = q.getRank() - 2;
  ArrayRef<int64_t> batch = q.getShape().drop_back(2);
  int64_t m = q.getShape()[nb], e = q.getShape()[nb + 1];
  int64_t s = v.getShape()[nb], ev = v.getShape()[nb + 1];
  IterationSpace space;
  space.sizes = SmallVector<int64_t>(batch);
  space.sizes.append({m, ev, s, e});
  space.iterators.assign(nb + 2, IteratorKind::parallel);
  space.iterators.append(2, IteratorKind::reduction);
  int64_t loops = nb + 4;
  auto dim = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  auto over = [&](int64_t rows, int64_t cols) {
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < nb; ++i)
      exprs.push_back(dim(i));
    exprs.append({dim(rows), dim(cols)});
    return AffineMap::get(loops, 0, exprs, ctx);
  };
  // Key and value batch dims of size 1 serve every query head.
  auto kv = [&](Value operand, int64_t cols) {
    auto t = cast<RankedTensorType>(operand.getType());
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < nb; ++i)
      exprs.push_back(t.getDimSize(i) == 1 && batch[i] != 1
                          ? getAffineConstantExpr(0, ctx)
                          : dim(i));
    exprs.append({dim(nb + 2), dim(cols)});
    return AffineMap::get(loops, 0, exprs, ctx);
  };
  space.operandMaps = {over(nb, nb + 3), kv(getKey(), nb + 3),
                       kv(getValue(), nb + 1)};
  if (Value mask = getMask()) {
    // The mask broadcasts over (batch..., m, s): its map sends the loops
    // (batch..., m, s) to its dims, then the (ev, e) loops are dropped.
    SmallVector<int64_t> scores(batch);
    scores.append({m, s});
    AffineMap onScores = broadcastMap(
        cast<RankedTensorType>(mask.getType()).getShape(), scores, ctx);
    SmallVector<AffineExpr> toLoops;
    for (int64_t i = 0; i <= nb; ++i)
      toLoops.push_back(dim(i));
    toLoops.push_back(dim(nb + 2));
    space.operandMaps.push_back(
        onScores.compose(AffineMap::get(loops, 0, toLoops, ctx)));
  }
  if (Value sinks = getSinks()) {
    // The sinks broadcast over (batch..., m, 1): the loops (batch..., m) to
    // their dims, the last always 0.
    SmallVector<int64_t> rows(batch);
    rows.append({m, 1});
    AffineMap onRows = broadcastMap(
        cast<RankedTensorType>(sinks.getType()).getShape(), rows, ctx);
    SmallVector<AffineExpr> toLoops;
    for (int64_t i = 0; i <= nb; ++i)
      toLoops.push_back(dim(i));
    toLoops.push_back(getAffineConstantExpr(0, ctx));
    space.operandMaps.push_back(
        onRows.compose(AffineMap::get(loops, 0, toLoops, ctx)));
  }
  if (getRopeCos()) {
    // cos and sin broadcast over the query's (batch..., m, e); the
    // rotation is read whole, [e, e].
    SmallVector<int64_t> rows(batch);
    rows.append({m, e});
    SmallVector<AffineExpr> toLoops;
    for (int64_t i = 0; i <= nb; ++i)
      toLoops.push_back(dim(i));
    toLoops.push_back(dim(nb + 3));
    AffineMap onQuery = AffineMap::get(loops, 0, toLoops, ctx);
    for (Value table : {getRopeCos(), getRopeSin()})
      space.operandMaps.push_back(
          broadcastMap(cast<RankedTensorType>(table.getType()).getShape(), rows,
                       ctx)
              .compose(onQuery));
    space.operandMaps.push_back(
        AffineMap::get(loops, 0, {dim(nb + 3), dim(nb + 3)}, ctx));
  }
  space.resultMaps.push_back(over(nb, nb + 1));
  return space;
}

OpWork AttentionOp::getWork() {
  IterationSpace space = getIterationSpace();
  int64_t nb = space.sizes.size() - 4;
  int64_t outer = 1;
  for (int64_t i = 0; i < nb; ++i)
    outer *= space.sizes[i];
  int64_t m = space.sizes[nb], ev = space.sizes[nb + 1],
          s = space.sizes[nb + 2], e = space.sizes[nb + 3];
  // The (query, key) pairs computed: causal, query q sees keys 0..q.
  int64_t pairs = m * s;
  if (getCausal())
    pairs = m <= s ? m * (m + 1) / 2 : s * (s + 1) / 2 + (m - s) * s;
  // Per score: scale, mask, max, subtract, exp, sum, convert.
  OpWork work = {outer * pairs * (e + ev), outer * pairs * 7, true};
  // The rotary embedding: a product by the rotation, three passes.
  if (getRopeCos()) {
    work.macs += outer * m * e * e;
    work.elementOps += outer * m * e * 3;
  }
  return work;
}

//===----------------------------------------------------------------------===//
// Kernel roles and tile instructions (TileLowering.h)
//===----------------------------------------------------------------------===//

namespace spyre {

KernelRole MatmulOp::getKernelRole() { return KernelRole::Matmul; }
TileLowering MatmulOp::getTileLowering() { return {TileForm::PtMatmul, ""}; }

KernelRole UnaryOp::getKernelRole() { return KernelRole::Pointwise; }
TileLowering UnaryOp::getTileLowering() {
  return {TileForm::SfpUnary, stringifyUnaryKind(getKind())};
}

KernelRole BinaryOp::getKernelRole() { return KernelRole::Pointwise; }
TileLowering BinaryOp::getTileLowering() {
  return {TileForm::SfpBinary, stringifyBinaryKind(getKind())};
}

KernelRole CompareOp::getKernelRole() { return KernelRole::Pointwise; }
TileLowering CompareOp::getTileLowering() {
  return {TileForm::SfpBinary, stringifyComparePredicate(getPredicate())};
}

KernelRole SelectOp::getKernelRole() { return KernelRole::Pointwise; }
TileLowering SelectOp::getTileLowering() {
  return {TileForm::SfpSelect, "select"};
}

// A conversion and a broadcast are copies: the SFP converts element types
// on the way and reads a broadcast source with pitch 0 or a broadcast
// column.
KernelRole CastOp::getKernelRole() { return KernelRole::Pointwise; }
TileLowering CastOp::getTileLowering() { return {TileForm::SfpUnary, "copy"}; }

KernelRole BroadcastOp::getKernelRole() { return KernelRole::Pointwise; }
TileLowering BroadcastOp::getTileLowering() {
  return {TileForm::SfpUnary, "copy"};
}

KernelRole ReduceOp::getKernelRole() { return KernelRole::Reduce; }
TileLowering ReduceOp::getTileLowering() {
  return {TileForm::SfpReduce, stringifyReduceKind(getKind())};
}

// Moving dims: an SFP transpose of the tile when the stick dim moves, no
// instruction at all otherwise (the plan aliases the buffer).
KernelRole TransposeOp::getKernelRole() { return KernelRole::Layout; }
TileLowering TransposeOp::getTileLowering() {
  return {TileForm::SfpTranspose, "transpose"};
}

KernelRole RestickifyOp::getKernelRole() { return KernelRole::Layout; }
TileLowering RestickifyOp::getTileLowering() {
  return {TileForm::SfpTranspose, "transpose"};
}

KernelRole SliceOp::getKernelRole() { return KernelRole::Copy; }
TileLowering SliceOp::getTileLowering() { return {}; }

KernelRole ConcatOp::getKernelRole() { return KernelRole::Copy; }
TileLowering ConcatOp::getTileLowering() { return {}; }

KernelRole GatherOp::getKernelRole() { return KernelRole::Gather; }
TileLowering GatherOp::getTileLowering() { return {}; }

KernelRole ScatterOp::getKernelRole() { return KernelRole::Scatter; }
TileLowering ScatterOp::getTileLowering() { return {}; }

// A kernel of its own, lowered as a whole (lib/Transforms/AttentionKernel.cpp).
KernelRole AttentionOp::getKernelRole() { return KernelRole::Attention; }
TileLowering AttentionOp::getTileLowering() { return {}; }

} // namespace spyre
