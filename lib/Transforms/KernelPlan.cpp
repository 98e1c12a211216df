//===- KernelPlan.cpp - How a scheduled kernel runs -----------------------===//

#include "spyre/Transforms/KernelPlan.h"
#include "spyre/Support/MathExtras.h"
#include "spyre/Transforms/CostModel.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;

namespace spyre {

int64_t elementsPerStick(Type elementType, const Arch &arch) {
  return arch.stickBytes / getElementBytes(elementType);
}

StringRef kernelKindName(KernelKind kind) {
  switch (kind) {
  case KernelKind::Matmul:
    return "matmul";
  case KernelKind::Elementwise:
    return "elementwise";
  case KernelKind::Reduction:
    return "reduction";
  case KernelKind::Transpose:
    return "transpose";
  case KernelKind::Copy:
    return "copy";
  case KernelKind::Gather:
    return "gather";
  case KernelKind::Scatter:
    return "scatter";
  case KernelKind::Attention:
    return "attention";
  }
  return "?";
}

int64_t PlanTensor::offsetOf(ArrayRef<int64_t> starts) const {
  int64_t offset = baseOffset;
  for (auto [l, bytes] : llvm::enumerate(loopBytes)) {
    if (!bytes)
      continue;
    offset += int64_t(l) == stickLoop ? starts[l] / elementsPerStick * bytes
                                      : starts[l] * bytes;
  }
  return offset;
}

bool isWindowRead(SliceOp slice, bool yielded) {
  return isa<BlockArgument>(slice.getInput()) &&
         getLayout(slice.getInput().getType()) == getLayout(slice.getType()) &&
         llvm::all_of(slice.getStrides(), [](int64_t s) { return s == 1; }) &&
         yielded == llvm::any_of(slice->getUsers(), [](Operation *user) {
           return isa<YieldOp>(user);
         });
}

bool keepsStick(Operation *op) {
  auto in = getLayout(op->getOperand(0).getType());
  auto out = getLayout(op->getResult(0).getType());
  if (!in || !out)
    return true;
  if (auto t = dyn_cast<TransposeOp>(op))
    return out.getStickDim() < 0 ||
           t.getPermutation()[out.getStickDim()] == in.getStickDim();
  return in.getStickDim() == out.getStickDim();
}

namespace {

/// Reports `msg` at `kernel` when `emitErrors`; always fails.
LogicalResult kernelError(KernelOp kernel, bool emitErrors, const Twine &msg) {
  if (emitErrors)
    kernel.emitError(msg);
  return failure();
}

/// Whether a tensor's non-stick dim along loop `l` is tiled in rows.
bool isTiledRowLoop(const KernelPlan &plan, int64_t l) {
  return plan.loops[l].tile > 1 || l == plan.rowLoop || l == plan.accLoop ||
         (plan.kind == KernelKind::Transpose && l == plan.stickLoop);
}

/// A tensor dim read as `loop + offset` (a window of it: a slice folded
/// into the kernel reading it).
struct DimRead {
  int64_t loop;
  int64_t offset;
};

/// `expr` as a loop plus a constant (loop -1: a constant alone, a
/// broadcast dim read at that index); nullopt for anything else.
std::optional<DimRead> dimRead(AffineExpr expr) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return DimRead{dim.getPosition(), 0};
  if (auto index = dyn_cast<AffineConstantExpr>(expr))
    return DimRead{-1, index.getValue()};
  auto sum = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!sum || sum.getKind() != AffineExprKind::Add)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(sum.getLHS());
  auto offset = dyn_cast<AffineConstantExpr>(sum.getRHS());
  if (!dim || !offset)
    return std::nullopt;
  return DimRead{dim.getPosition(), offset.getValue()};
}

/// Adds the bytes to the first element of a window starting `offset`
/// elements into dim `d` (`stride` bytes apart; along the stick dim, per
/// stick). A window along the stick dim starts on a stick and ends on one,
/// or at the dim's end, so that no tile reads elements outside it.
LogicalResult addWindowOffset(PlanTensor &t, LayoutAttr layout, int64_t d,
                              DimRead read, int64_t stride,
                              const KernelPlan &plan, std::string &why) {
  if (d != layout.getStickDim()) {
    t.baseOffset += read.offset * stride;
    return success();
  }
  int64_t e = t.elementsPerStick;
  int64_t size = read.loop >= 0 ? plan.loops[read.loop].size : 1;
  if (read.offset % e != 0 ||
      (size % e != 0 && read.offset + size != t.type.getDimSize(d))) {
    why = "reads a window of its stick dim that does not start and end on "
          "sticks";
    return failure();
  }
  t.baseOffset += read.offset / e * stride;
  return success();
}

/// Records the loop, pitch and bytes of each of `t`'s dims read through
/// `map`, and where a window starts; fails (saying why) when two non-stick
/// dims are tiled or a window of the stick dim is not whole sticks. (A
/// data-movement kernel places its windows itself: DataMovement.cpp.)
LogicalResult mapTensorDims(PlanTensor &t, LayoutAttr layout, AffineMap map,
                            const KernelPlan &plan, std::string &why) {
  ArrayRef<int64_t> shape = t.type.getShape();
  for (auto [d, expr] : llvm::enumerate(map.getResults())) {
    std::optional<DimRead> read = dimRead(expr);
    if (!read || (read->offset && plan.isDataMovement()))
      continue; // broadcast, or a window DataMovement.cpp places
    int64_t stride = layout.getDimStride(shape, d) * t.elementBytes;
    if (read->offset &&
        failed(addWindowOffset(t, layout, d, *read, stride, plan, why)))
      return failure();
    int64_t l = read->loop;
    if (l < 0)
      continue; // broadcast
    t.loopBytes[l] = stride;
    if (int64_t(d) == layout.getStickDim()) {
      t.stickLoop = l;
      t.stickPitch = stride;
      continue;
    }
    if (!isTiledRowLoop(plan, l))
      continue;
    if (t.rowLoop >= 0) {
      why = "is tiled along two non-stick dims";
      return failure();
    }
    t.rowLoop = l;
    t.rowPitch = stride;
  }
  return success();
}

/// The kernel input a matmul kernel's matmuls multiply from the left (one
/// for all of them, KernelPlan::classify).
int64_t matmulLhs(const KernelPlan &plan) {
  for (Operation &op : plan.kernel.getBodyBlock())
    if (auto matmul = dyn_cast<MatmulOp>(op))
      return aliasedInput(matmul.getLhs());
  return -1;
}

/// The gather read (isGatherRead) whose indices are kernel input `input`.
GatherOp gatherOfIndices(const KernelPlan &plan, unsigned input) {
  for (Operation &op : plan.kernel.getBodyBlock())
    if (auto gather = dyn_cast<GatherOp>(op))
      if (isGatherRead(gather) &&
          cast<BlockArgument>(gather.getIndices()).getArgNumber() == input)
        return gather;
  return {};
}

/// Whether `t`'s sticks run along the kernel's stick loop (a matmul's lhs
/// along k, a transpose's input along the row loop).
bool sticksAlongStickLoop(const PlanTensor &t, const KernelPlan &plan) {
  bool stickOk = t.stickLoop < 0 || t.stickLoop == plan.stickLoop;
  // A gather's indices: the rows of its table's tile, packed in sticks.
  if (!t.isResult && gatherOfIndices(plan, t.index))
    return true;
  if (plan.isMatmul() && !t.isResult && int64_t(t.index) == matmulLhs(plan))
    stickOk |= t.stickLoop == plan.accLoop;
  if (plan.kind == KernelKind::Transpose && !t.isResult)
    stickOk = t.stickLoop == plan.rowLoop;
  return stickOk;
}

/// Describes kernel tensor `value` read through `map`; fills in what does
/// not depend on the tile sizes.
FailureOr<PlanTensor> describeTensor(KernelOp kernel, Value value,
                                     AffineMap map, const KernelPlan &plan,
                                     bool isResult, unsigned index,
                                     bool emitErrors) {
  Twine what = Twine(isResult ? "result " : "input ") + Twine(index);
  LayoutAttr layout = getLayout(cast<RankedTensorType>(value.getType()));
  if (!layout)
    return kernelError(kernel, emitErrors,
                       what + " has no layout; run spyre-assign-layouts first");
  PlanTensor t = PlanTensor::of(value, isResult, index, plan.loops.size());
  std::string why;
  if (failed(mapTensorDims(t, layout, map, plan, why)))
    return kernelError(kernel, emitErrors, what + " " + why);
  // A tensor broadcast along the sticks still occupies one stick per row.
  if (layout.getStickDim() >= 0 && t.stickPitch == 0)
    t.stickPitch =
        layout.getDimStride(t.type.getShape(), layout.getStickDim()) *
        t.elementBytes;
  if (!sticksAlongStickLoop(t, plan))
    return kernelError(
        kernel, emitErrors,
        what + " has its sticks along loop " + Twine(t.stickLoop) +
            ", not along the kernel's stick loop " + Twine(plan.stickLoop));
  return t;
}

} // namespace

//===----------------------------------------------------------------------===//
// Classification and roles
//===----------------------------------------------------------------------===//

/// The role of a kernel body op; a reshape in a kernel is a repack (Copy).
static std::optional<KernelRole> roleOf(Operation *op) {
  if (auto compute = dyn_cast<ComputeOpInterface>(op))
    return compute.getKernelRole();
  if (isa<ReshapeOp>(op))
    return KernelRole::Copy;
  return std::nullopt;
}

/// The ops of `kernel`'s body, without the terminator.
static SmallVector<Operation *> bodyOps(KernelOp kernel) {
  SmallVector<Operation *> ops;
  for (Operation &op : kernel.getBodyBlock().without_terminator())
    ops.push_back(&op);
  return ops;
}

/// Reports `op` as unsupported in `kernel`'s body when `emitErrors`.
static FailureOr<KernelKind> unsupportedInKernel(KernelOp kernel, Operation *op,
                                                 bool emitErrors) {
  if (emitErrors)
    kernel.emitError("the program lowering does not support '")
        << op->getName() << "' in a " << "kernel body of this form";
  return failure();
}

bool isGatherRead(Operation *op) {
  auto gather = dyn_cast<GatherOp>(op);
  return gather && isa<BlockArgument>(gather.getTable()) &&
         isa<BlockArgument>(gather.getIndices()) &&
         !llvm::hasSingleElement(op->getBlock()->without_terminator());
}

bool isBroadcastRead(Operation *op) {
  auto broadcast = dyn_cast<BroadcastOp>(op);
  if (!broadcast || !isa<BlockArgument>(broadcast.getInput()))
    return false;
  auto in = cast<RankedTensorType>(broadcast.getInput().getType());
  auto out = cast<RankedTensorType>(broadcast.getType());
  LayoutAttr inLayout = getLayout(in), outLayout = getLayout(out);
  return in.getRank() >= 2 && inLayout && outLayout &&
         in.getShape().take_back(2) == out.getShape().take_back(2) &&
         inLayout.getStickDim() == in.getRank() - 1 &&
         outLayout.getStickDim() == out.getRank() - 1;
}

bool isTileAlias(Operation *op) {
  if (auto slice = dyn_cast<SliceOp>(op))
    return isWindowRead(slice);
  if (isa<GatherOp>(op))
    return isGatherRead(op);
  if (isa<BroadcastOp>(op))
    return isBroadcastRead(op);
  return isa<TransposeOp, RestickifyOp>(op) && keepsStick(op);
}

int64_t aliasedInput(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isTileAlias(def))
      return -1;
    v = def->getOperand(0);
  }
  return cast<BlockArgument>(v).getArgNumber();
}

/// `ops` without its prologue: the leading tile aliases of kernel inputs
/// (spyre-reorder-on-chip folds a transpose into the kernel reading it).
static ArrayRef<Operation *> withoutPrologue(ArrayRef<Operation *> ops) {
  size_t n = 0;
  while (n < ops.size() && isTileAlias(ops[n]) &&
         isa<BlockArgument>(ops[n]->getOperand(0)))
    ++n;
  return n == ops.size() ? ops : ops.drop_front(n);
}

/// A matmul and its epilogue: pointwise ops and tile aliases; and other
/// matmuls of the same lhs input by an input (the gated MLP's gate and up
/// projections: one lhs stream, an accumulator each).
/// The further matmuls come before every epilogue op: buffers live in body
/// order, and every product accumulates before the epilogue runs.
static FailureOr<KernelKind>
classifyMatmul(KernelOp kernel, ArrayRef<Operation *> ops, bool emitErrors) {
  auto root = cast<MatmulOp>(ops.front());
  int64_t lhs = aliasedInput(root.getLhs());
  bool inEpilogue = false;
  for (Operation *op : llvm::drop_begin(ops)) {
    auto sibling = dyn_cast<MatmulOp>(op);
    bool sameLhs = sibling && lhs >= 0 && !inEpilogue &&
                   aliasedInput(sibling.getLhs()) == lhs &&
                   aliasedInput(sibling.getRhs()) >= 0 &&
                   sibling.getType() == root.getType();
    if (!isPointwise(op) && !isTileAlias(op) && !sameLhs)
      return unsupportedInKernel(kernel, op, emitErrors);
    inEpilogue |= isPointwise(op);
  }
  return KernelKind::Matmul;
}

/// A kernel of one op of kind `kind` (DMA ops, attention); attention may
/// be followed by tile aliases of its result (a permuted store).
static FailureOr<KernelKind> classifySingleOp(KernelOp kernel,
                                              ArrayRef<Operation *> ops,
                                              KernelKind kind,
                                              bool emitErrors) {
  for (Operation *op : llvm::drop_begin(ops))
    if (kind != KernelKind::Attention || !isTileAlias(op))
      return unsupportedInKernel(kernel, op, emitErrors);
  return kind;
}

/// The kernel kind of a DMA role.
static KernelKind dataMovementKind(KernelRole role) {
  return role == KernelRole::Copy     ? KernelKind::Copy
         : role == KernelRole::Gather ? KernelKind::Gather
                                      : KernelKind::Scatter;
}

/// The kind of kernels whose first op decides it (one DMA op, a matmul and
/// its epilogue, attention, one stick-moving transpose); nullopt for the
/// others.
static std::optional<FailureOr<KernelKind>>
classifyByFirstOp(KernelOp kernel, ArrayRef<Operation *> ops, KernelRole first,
                  bool emitErrors) {
  switch (first) {
  case KernelRole::Matmul:
    return classifyMatmul(kernel, ops, emitErrors);
  case KernelRole::Copy:
  case KernelRole::Gather:
  case KernelRole::Scatter:
    return classifySingleOp(kernel, ops, dataMovementKind(first), emitErrors);
  case KernelRole::Layout:
    if (ops.size() == 1 && !keepsStick(ops.front()))
      return FailureOr<KernelKind>(KernelKind::Transpose);
    return std::nullopt;
  case KernelRole::Attention:
    return classifySingleOp(kernel, ops, KernelKind::Attention, emitErrors);
  default:
    return std::nullopt;
  }
}

/// Pointwise ops, reductions and dim moves that keep the stick.
static FailureOr<KernelKind>
classifyPointwise(KernelOp kernel, ArrayRef<Operation *> ops, bool emitErrors) {
  bool reduces = false;
  for (Operation *op : ops) {
    std::optional<KernelRole> role = roleOf(op);
    bool fits = role == KernelRole::Pointwise || role == KernelRole::Reduce ||
                (role == KernelRole::Layout && keepsStick(op)) ||
                isTileAlias(op);
    if (!fits)
      return unsupportedInKernel(kernel, op, emitErrors);
    reduces |= role == KernelRole::Reduce;
  }
  return reduces ? KernelKind::Reduction : KernelKind::Elementwise;
}

FailureOr<KernelKind> KernelPlan::classify(KernelOp kernel, bool emitErrors) {
  SmallVector<Operation *> ops = bodyOps(kernel);
  if (ops.empty())
    return unsupportedInKernel(kernel, kernel, emitErrors);
  // Only matmul, attention and pointwise kernels read inputs permuted.
  ArrayRef<Operation *> core = withoutPrologue(ops);
  std::optional<KernelRole> first = roleOf(core.front());
  if (!first)
    return unsupportedInKernel(kernel, core.front(), emitErrors);
  bool permutedReads = core.size() != ops.size();
  if (permutedReads && *first != KernelRole::Matmul &&
      *first != KernelRole::Attention && *first != KernelRole::Pointwise &&
      *first != KernelRole::Reduce)
    return unsupportedInKernel(kernel, core.front(), emitErrors);
  if (std::optional<FailureOr<KernelKind>> kind =
          classifyByFirstOp(kernel, core, *first, emitErrors))
    return *kind;
  return classifyPointwise(kernel, ops, emitErrors);
}

/// Matmul loops (batch..., m, n, k).
static void setMatmulRoles(int64_t n, KernelPlan::Roles &r) {
  r.rowLoop = n - 3;
  r.stickLoop = n - 2;
  r.accLoop = n - 1;
}

/// Rows of the result are the input's sticks and vice versa.
static void setTransposeRoles(KernelOp kernel, KernelPlan::Roles &r) {
  Operation *op = &kernel.getBodyBlock().front();
  LayoutAttr in = getLayout(op->getOperand(0).getType());
  LayoutAttr out = getLayout(op->getResult(0).getType());
  AffineMap inMap = cast<AffineMapAttr>(kernel.getIndexingMaps()[0]).getValue();
  r.stickLoop = out.getStickDim();
  r.rowLoop =
      cast<AffineDimExpr>(inMap.getResult(in.getStickDim())).getPosition();
}

/// The one loop a reduction kernel reduces (-1: none); a diagnostic when it
/// reduces several.
static FailureOr<int64_t> reducedLoopOf(KernelOp kernel, bool emitErrors) {
  SmallVector<IteratorKind> iters = kernel.getIteratorKinds();
  int64_t n = kernel.getSpace().size();
  int64_t reduced = -1;
  for (int64_t l = 0; l < n; ++l)
    if (iters[l] == IteratorKind::reduction) {
      if (reduced >= 0) {
        if (emitErrors)
          kernel.emitError("a reduction kernel may reduce one loop, this "
                           "one reduces loops ")
              << reduced << " and " << l;
        return failure();
      }
      reduced = l;
    }
  return reduced;
}

/// The number of arg-reductions in the kernel (which keep no running index
/// across tiles).
static size_t countArgReductions(KernelOp kernel) {
  size_t count = 0;
  for (Operation &op : kernel.getBodyBlock().without_terminator())
    if (auto red = dyn_cast<ReduceOp>(op))
      if (red.getKind() == ReduceKind::argmax ||
          red.getKind() == ReduceKind::argmin)
        ++count;
  return count;
}

/// Whether a kernel reducing loop `reduced` needs all of that loop in one
/// tile: a result varies along it, or an op combines a reduced value with
/// one that varies along it (a softmax or norm over a dim other than the
/// stick: `x - max(x, 0)`). Accumulating tiles cannot serve these, since
/// the reduced value is complete only after the last tile.
static bool needsWholeReducedLoop(KernelOp kernel, int64_t reduced) {
  SmallVector<AffineMap> maps = kernel.getIndexingMapList();
  Block &body = kernel.getBodyBlock();
  auto usesReduced = [&](AffineMap map) {
    return map.isFunctionOfDim(unsigned(reduced));
  };
  for (AffineMap map : ArrayRef(maps).drop_front(kernel.getInputs().size()))
    if (usesReduced(map))
      return true;
  // A body value varies along the loop when it spans it (body value dims
  // are the kernel's loops; a broadcast along the loop spans it too).
  int64_t loops = kernel.getSpace().size();
  auto varies = [&](Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return usesReduced(maps[arg.getArgNumber()]);
    auto type = dyn_cast<RankedTensorType>(v.getType());
    return type && type.getRank() == loops && type.getDimSize(reduced) > 1;
  };
  llvm::SmallPtrSet<Value, 16> fromReduction;
  for (Operation &op : body.without_terminator()) {
    bool anyReduced = llvm::any_of(
        op.getOperands(), [&](Value v) { return fromReduction.contains(v); });
    if (anyReduced && llvm::any_of(op.getOperands(), varies))
      return true;
    if (isa<ReduceOp>(op) || anyReduced)
      fromReduction.insert_range(op.getResults());
  }
  return false;
}

/// A reduction along the stick (whole rows in every tile) or along another
/// dim: its tiles are rows, accumulated into the result, or, where what
/// follows the reduction needs the rows it reduced, all rows in one tile.
static LogicalResult setReductionRoles(KernelOp kernel, KernelPlan::Roles &r,
                                       bool emitErrors) {
  int64_t n = kernel.getSpace().size();
  FailureOr<int64_t> reducedOr = reducedLoopOf(kernel, emitErrors);
  if (failed(reducedOr))
    return failure();
  int64_t reduced = *reducedOr;
  r.stickLoop = n - 1;
  if (reduced == n - 1) {
    // Reductions along the stick: whole rows in every tile.
    r.rowLoop = n - 2;
    r.wholeLoops.push_back(reduced);
    return success();
  }
  r.rowLoop = reduced;
  if (reduced >= 0 && needsWholeReducedLoop(kernel, reduced)) {
    r.wholeLoops.push_back(reduced);
    return success();
  }
  // Along another dim: its tiles are rows, accumulated into the result.
  r.accLoop = reduced;
  // Arg-reductions keep no running index across tiles.
  r.wholeLoops.append(countArgReductions(kernel), reduced);
  return success();
}

/// Whole rows: runs of a row may start anywhere in a stick.
static void setDataMovementRoles(int64_t n, KernelPlan::Roles &r) {
  if (n >= 1) {
    r.stickLoop = n - 1;
    r.wholeLoops.push_back(n - 1);
  }
  if (n >= 2)
    r.rowLoop = n - 2;
  r.singleCore = r.kind == KernelKind::Scatter;
}

/// (batch..., m, ev, s, e): query rows, whole value columns, key positions
/// streamed, the whole head dim.
static void setAttentionRoles(int64_t n, KernelPlan::Roles &r) {
  r.rowLoop = n - 4;
  r.stickLoop = n - 3;
  r.accLoop = n - 2;
  r.wholeLoops = {n - 3, n - 1};
}

/// Elementwise kernels: the last loop is the stick, the one before it rows.
static void setElementwiseRoles(int64_t n, KernelPlan::Roles &r) {
  if (n >= 1)
    r.stickLoop = n - 1;
  if (n >= 2)
    r.rowLoop = n - 2;
}

FailureOr<KernelPlan::Roles> KernelPlan::roles(KernelOp kernel,
                                               bool emitErrors) {
  FailureOr<KernelKind> kind = classify(kernel, emitErrors);
  if (failed(kind))
    return failure();
  Roles r;
  r.kind = *kind;
  int64_t n = kernel.getSpace().size();
  switch (*kind) {
  case KernelKind::Matmul:
    setMatmulRoles(n, r);
    break;
  case KernelKind::Transpose:
    setTransposeRoles(kernel, r);
    break;
  case KernelKind::Reduction:
    if (failed(setReductionRoles(kernel, r, emitErrors)))
      return failure();
    break;
  case KernelKind::Copy:
  case KernelKind::Gather:
  case KernelKind::Scatter:
    setDataMovementRoles(n, r);
    break;
  case KernelKind::Attention:
    setAttentionRoles(n, r);
    break;
  default:
    setElementwiseRoles(n, r);
    break;
  }
  return r;
}

//===----------------------------------------------------------------------===//
// Building a plan
//===----------------------------------------------------------------------===//

namespace {

/// Builds a plan step by step: loops, tensors, tile sizes, body values and
/// their LX buffers, result buffers. Each step checks the rules it relies
/// on and reports a violation at the kernel.
class PlanBuilder {
public:
  PlanBuilder(KernelPlan &plan, bool emitErrors)
      : plan(plan), arch(plan.arch), kernel(plan.kernel),
        emitErrors(emitErrors) {}

  LogicalResult build(const KernelPlan::Roles &roles) {
    if (failed(buildLoops(roles)))
      return failure();
    if (plan.isDataMovement())
      return plan.buildDataMovement(emitErrors);
    if (failed(buildTensors()) || failed(markGatherReads()) ||
        failed(checkStickTiles()) || failed(sizeTensors()))
      return failure();
    buildInputBuffers();
    for (Operation &op : kernel.getBodyBlock().without_terminator())
      if (failed(addValue(op)))
        return failure();
    return buildResultBuffers();
  }

private:
  KernelPlan &plan;
  const Arch &arch;
  KernelOp kernel;
  bool emitErrors;
  unsigned temporaries = 0, accumulators = 0;

  LogicalResult fail(const Twine &msg) {
    if (emitErrors)
      kernel.emitError(msg);
    return failure();
  }

  unsigned numInputs() { return kernel.getInputs().size(); }

  /// The loops with their tiles and splits, which must respect the plan's
  /// rules (unsplit reductions, tile-1 outer loops, whole loops where the
  /// kernel needs them, no more cores than tiles).
  LogicalResult buildLoops(const KernelPlan::Roles &roles) {
    int64_t n = kernel.getSpace().size();
    ScheduleAttr schedule = plan.schedule;
    if (int64_t(schedule.getSplit().size()) != n ||
        int64_t(schedule.getTile().size()) != n)
      return fail("schedule does not match the kernel's " + Twine(n) +
                  " loops");
    SmallVector<IteratorKind> iters = kernel.getIteratorKinds();
    for (int64_t l = 0; l < n; ++l) {
      plan.loops.push_back(planLoop(l, iters[l]));
      if (failed(checkLoop(roles, l, plan.loops.back())))
        return failure();
    }
    return success();
  }

  /// Loop `l` of the kernel's space (iterating `iter`) under the schedule,
  /// with its role.
  PlanLoop planLoop(int64_t l, IteratorKind iter) {
    PlanLoop loop;
    loop.size = kernel.getSpace()[l];
    loop.tile = plan.schedule.getTile()[l];
    loop.split = plan.schedule.getSplit()[l];
    loop.reduction = iter == IteratorKind::reduction;
    loop.role = l == plan.rowLoop     ? LoopRole::Row
                : l == plan.stickLoop ? LoopRole::Stick
                : l == plan.accLoop   ? LoopRole::Reduction
                                      : LoopRole::Outer;
    return loop;
  }

  /// Checks loop `l`'s tile and split against the plan's rules.
  LogicalResult checkLoop(const KernelPlan::Roles &roles, int64_t l,
                          const PlanLoop &loop) {
    // A matmul's k may be split (its partial sums reduced over the
    // partial-sum ring, checkKSplit), no other reduction.
    bool kSplit = plan.isMatmul() && l == plan.accLoop;
    if (loop.reduction && loop.split != 1 && !kSplit)
      return fail("reduction loop " + Twine(l) + " cannot be split over cores");
    if (loop.role == LoopRole::Outer && loop.tile != 1)
      return fail("outer loop " + Twine(l) + " must have tile 1, got " +
                  Twine(loop.tile));
    if (llvm::is_contained(roles.wholeLoops, l) && loop.tile != loop.size)
      return fail("loop " + Twine(l) + " must be one tile of " +
                  Twine(loop.size));
    if (loop.split > loop.numTiles())
      return fail("loop " + Twine(l) + " is split over " + Twine(loop.split) +
                  " cores but has only " + Twine(loop.numTiles()) + " tiles");
    return success();
  }

  /// The kernel's inputs and results as tiles; no result may change along
  /// the accumulation loop (only what is complete after it leaves).
  LogicalResult buildTensors() {
    SmallVector<AffineMap> maps = kernel.getIndexingMapList();
    SmallVector<Value> values(kernel.getInputs());
    llvm::append_range(values, kernel.getResults());
    for (auto [i, v] : llvm::enumerate(values)) {
      bool isResult = i >= numInputs();
      unsigned index = isResult ? i - numInputs() : i;
      FailureOr<PlanTensor> t =
          describeTensor(kernel, v, maps[i], plan, isResult, index, emitErrors);
      if (failed(t))
        return failure();
      plan.tensors.push_back(*t);
    }
    for (const PlanTensor &t : plan.tensors)
      if (t.isResult && plan.accLoop >= 0 &&
          (t.loopBytes[plan.accLoop] || t.rowLoop == plan.accLoop))
        return fail("result " + Twine(t.index) +
                    " changes along the accumulation loop; only values that "
                    "are complete after it can leave the kernel");
    return success();
  }

  /// The tables read through a gather (isGatherRead): rows along the loop
  /// of the indices' stick dim, picked by the indices, which must be one
  /// run of sticks (tiled along no other dim).
  LogicalResult markGatherReads() {
    for (Operation &op : kernel.getBodyBlock()) {
      if (!isGatherRead(&op))
        continue;
      auto gather = cast<GatherOp>(op);
      unsigned ti = cast<BlockArgument>(gather.getTable()).getArgNumber();
      unsigned ii = cast<BlockArgument>(gather.getIndices()).getArgNumber();
      PlanTensor &table = plan.tensors[ti];
      PlanTensor &indices = plan.tensors[ii];
      if (table.rowLoop >= 0 || table.gatherIndex >= 0 ||
          indices.rowLoop >= 0 || indices.runLoop >= 0)
        return fail("input " + Twine(ti) +
                    " is read through a gather whose rows or indices are "
                    "tiled along two dims");
      // The indices of a tile: a run of elements along the rows' loop.
      if (indices.stickLoop >= 0) {
        indices.runLoop = indices.stickLoop;
        indices.loopBytes[indices.runLoop] = indices.elementBytes;
        indices.stickLoop = -1;
      }
      table.gatherIndex = ii;
      table.rowLoop = indices.runLoop;
      table.rowPitch =
          getLayout(table.type).getDimStride(table.type.getShape(), 0) *
          table.elementBytes;
      for (auto [l, bytes] : llvm::enumerate(indices.loopBytes))
        if (bytes)
          table.indexLoops.push_back(int64_t(l));
    }
    return success();
  }

  /// Whole-stick tiles: a tile along a loop that is some tensor's stick
  /// dim is a multiple of that tensor's stick and divides its padded stick
  /// count, or is the whole loop; so no tile reaches past the padding.
  LogicalResult checkStickTile(const PlanTensor &t, int64_t l) {
    const PlanLoop &loop = plan.loops[l];
    if (loop.tile == loop.size)
      return success();
    int64_t e = t.elementsPerStick;
    if (loop.tile % e == 0 &&
        llvm::divideCeil(loop.size, e) % (loop.tile / e) == 0)
      return success();
    return fail("tile " + Twine(loop.tile) + " of loop " + Twine(l) +
                " is not a whole number of " + Twine(e) +
                "-element sticks dividing the loop's " +
                Twine(llvm::divideCeil(loop.size, e)) + " sticks");
  }

  LogicalResult checkStickTiles() {
    for (const PlanTensor &t : plan.tensors)
      if (t.stickLoop >= 0 && failed(checkStickTile(t, t.stickLoop)))
        return failure();
    // The transposed tensor's rows are the result's sticks.
    if (plan.kind == KernelKind::Transpose &&
        failed(checkStickTile(plan.tensors.back(), plan.stickLoop)))
      return failure();
    // The f32 accumulator lives in LX only, one tile at a time: its tile is
    // whole f32 sticks, but need not divide the loop's f32 stick count (an
    // odd count, as N = 8224 gives, would leave no tile but the whole
    // loop); the last tile's extra sticks cover the stored tensors'
    // padding.
    if (!plan.isMatmul() || plan.stickLoop < 0)
      return success();
    const PlanLoop &loop = plan.loops[plan.stickLoop];
    int64_t e = elementsPerStick(Float32Type::get(kernel.getContext()), arch);
    if (loop.tile != loop.size && loop.tile % e != 0)
      return fail("tile " + Twine(loop.tile) + " of loop " +
                  Twine(plan.stickLoop) + " is not a whole number of " +
                  Twine(e) + "-element accumulator sticks");
    return success();
  }

  /// Tile shapes, hoisting (a tensor no multi-tile loop moves is loaded
  /// once), rotating copies and multicast sharers; the inputs the schedule
  /// holds whole along the accumulation loop.
  LogicalResult sizeTensors() {
    SmallVector<int64_t> maxTiles = plan.maxTilesPerLoop();
    int64_t depth = plan.schedule.getDepth();
    for (PlanTensor &t : plan.tensors)
      sizeTensor(t, maxTiles, depth);
    SmallVector<int64_t> holdable = plan.holdableInputs();
    for (int64_t input : plan.schedule.getHold()) {
      if (!llvm::is_contained(holdable, input))
        return fail("schedule holds input " + Twine(input) +
                    " whole along the accumulation loop, but only the lhs of "
                    "a matmul whose k runs in several tiles on one core "
                    "(not split over cores) and whose lhs moves along no "
                    "other such loop can be held");
      PlanTensor &t = plan.tensors[input];
      t.sticks =
          llvm::divideCeil(plan.loops[plan.accLoop].size, t.elementsPerStick);
      t.hoisted = t.resident = true;
      t.copies = 1;
    }
    for (int64_t result : plan.schedule.getKeep())
      if (failed(keepWhole(result, maxTiles)))
        return failure();
    return success();
  }

  /// Keeps result `j` whole per core (ScheduleAttr::keep) in a slab of
  /// every tile the core writes. The slab's place of a tile follows the
  /// hardware loop counters, which LX addresses share on every core: the
  /// result may move in several tiles only along its row and stick loops,
  /// and every core writes as many tiles along those.
  LogicalResult keepWhole(int64_t j, ArrayRef<int64_t> maxTiles) {
    PlanTensor &t = plan.tensors[numInputs() + j];
    for (int64_t l = 0; l < int64_t(plan.loops.size()); ++l) {
      if (!t.movesAlong(l) || maxTiles[l] <= 1)
        continue;
      if (l != t.rowLoop && l != t.stickLoop)
        return fail("schedule keeps result " + Twine(j) +
                    " whole per core, but it moves along outer loop " +
                    Twine(l) + " in several tiles per core");
      // share(): the cores split the tiles evenly iff the split divides
      // them.
      if (plan.loops[l].numTiles() % plan.loops[l].split != 0)
        return fail("schedule keeps result " + Twine(j) +
                    " whole per core, but the cores write different "
                    "numbers of its tiles along loop " +
                    Twine(l));
    }
    auto tilesAlong = [&](int64_t l) { return l >= 0 ? maxTiles[l] : 1; };
    t.slab = true;
    t.slabRows = t.rows * tilesAlong(t.rowLoop);
    t.slabSticks = t.sticks * tilesAlong(t.stickLoop);
    t.copies = 1;
    return success();
  }

  /// Sizes one tensor's tile and decides how it moves (`maxTiles`: the
  /// most tiles a core runs along each loop).
  void sizeTensor(PlanTensor &t, ArrayRef<int64_t> maxTiles, int64_t depth) {
    if (t.rowLoop >= 0)
      t.rows = plan.loops[t.rowLoop].tile;
    if (t.stickLoop >= 0)
      t.sticks =
          llvm::divideCeil(plan.loops[t.stickLoop].tile, t.elementsPerStick);
    if (t.runLoop >= 0)
      t.sticks =
          llvm::divideCeil(plan.loops[t.runLoop].tile, t.elementsPerStick);
    t.hoisted = isHoisted(t, maxTiles);
    t.copies = t.hoisted ? 1 : depth;
    t.variesInAccLoop = plan.accLoop >= 0 && t.movesAlong(plan.accLoop);
    // A gather reads its rows on each core (DmaGather has no multicast).
    t.sharers *= t.gatherIndex >= 0 ? 1 : sharersOf(t);
  }

  /// Whether no loop `t` moves along has more than one tile on some core.
  static bool isHoisted(const PlanTensor &t, ArrayRef<int64_t> maxTiles) {
    bool hoisted = true;
    for (int64_t l = 0; l < int64_t(maxTiles.size()); ++l)
      if (t.movesAlong(l) && maxTiles[l] > 1)
        hoisted = false;
    return hoisted;
  }

  /// The product of the splits of the loops an input does not depend on
  /// (1 for a result).
  int64_t sharersOf(const PlanTensor &t) {
    int64_t sharers = 1;
    for (int64_t l = 0; l < int64_t(plan.loops.size()); ++l)
      if (!t.isResult && !t.movesAlong(l) && !splitAccLoop(l))
        sharers *= plan.loops[l].split;
    return sharers;
  }

  /// A K-split's k: what is fixed along it only the first core of each k
  /// group reads (KernelPlan::readByFirstOfKGroup).
  bool splitAccLoop(int64_t l) const {
    return l == plan.accLoop && plan.kSplit() > 1;
  }

  /// A buffer per input tile, or the buffer of an earlier input moving the
  /// same tile.
  void buildInputBuffers() {
    for (PlanTensor &t : plan.tensors) {
      if (t.isResult)
        continue;
      t.sameTileAs = earlierSameTile(t);
      plan.tensorBuffer.push_back(
          t.sameTileAs >= 0
              ? plan.tensorBuffer[t.sameTileAs]
              : addBuffer("in" + std::to_string(t.index),
                          t.tileBytes(arch.stickBytes), t.copies));
    }
  }

  /// The first earlier input that moves the same bytes as input `t` into
  /// the same LX arrangement at every step of every core, or -1.
  int64_t earlierSameTile(const PlanTensor &t) {
    for (unsigned i = 0; i < t.index; ++i)
      if (plan.tensors[i].sameTileAs < 0 && movesSameTile(plan.tensors[i], t))
        return i;
    return -1;
  }

  /// Whether inputs `a` and `b` move the same bytes: the same tensor by
  /// plain loads from device memory, the same tile geometry, rotation and
  /// multicast, and the same device bytes along every loop some core runs
  /// in several tiles (a loop of one tile starts at 0 for both, whatever
  /// their maps).
  bool movesSameTile(const PlanTensor &a, const PlanTensor &b) {
    return isPlainLoad(a) && isPlainLoad(b) && a.value == b.value &&
           sameRotation(a, b) &&
           llvm::all_of(llvm::seq<int64_t>(0, plan.loops.size()),
                        [&](int64_t l) {
                          return plan.loops[l].numTiles() == 1 ||
                                 (a.loopBytes[l] == b.loopBytes[l] &&
                                  (l == a.stickLoop) == (l == b.stickLoop));
                        });
  }

  /// The same tile, offset, row loop, copies, hoisting and multicast.
  static bool sameRotation(const PlanTensor &a, const PlanTensor &b) {
    return a.sameTileShape(b) && a.baseOffset == b.baseOffset &&
           a.rowLoop == b.rowLoop && a.copies == b.copies &&
           a.hoisted == b.hoisted && a.sharers == b.sharers;
  }

  /// An input streamed from device memory by DMA loads of its tiles (not
  /// held whole, gathered or kept on chip).
  bool isPlainLoad(const PlanTensor &t) {
    return !t.resident && t.gatherIndex < 0 &&
           kernel.getSourcePath(t.index) == DataPath::dma;
  }

  int64_t addBuffer(std::string name, int64_t bytes, int64_t copies) {
    plan.buffers.push_back(
        {std::move(name), alignTo(bytes, arch.lxAlignment), copies, -1, {}});
    return int64_t(plan.buffers.size() - 1);
  }

  /// The tile shape of a kernel input or body value as an operand.
  TileShape shapeOfOperand(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      const PlanTensor &t = plan.tensors[arg.getArgNumber()];
      if (t.stickLoop < 0 && plan.stickTile() > 1)
        return TileShape::RowReduced;
      if (t.rows == 1 && plan.rowTile() > 1)
        return TileShape::ColReduced;
      return TileShape::Full;
    }
    return plan.values.lookup(v).shape;
  }

  /// The tile shape a value's type spans: body value dims are the kernel's
  /// loops in order (a matmul epilogue drops the trailing k loop), and a
  /// dim of size 1 along a tiled loop is broadcast.
  TileShape shapeOfType(Value v) {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(v.getType()).getShape();
    auto broadcastAlong = [&](int64_t l, int64_t tile) {
      return l >= 0 && l < int64_t(shape.size()) && tile > 1 && shape[l] == 1;
    };
    if (broadcastAlong(plan.stickLoop, plan.stickTile()))
      return TileShape::RowReduced;
    if (broadcastAlong(plan.rowLoop, plan.rowTile()))
      return TileShape::ColReduced;
    return TileShape::Full;
  }

  /// The tile shape of `op`'s result.
  TileShape resultShape(Operation &op) {
    return llvm::TypeSwitch<Operation *, TileShape>(&op)
        .Case([&](ReduceOp reduce) {
          return plan.accLoop >= 0 || reduce.getDim() != plan.stickLoop
                     ? TileShape::ColReduced
                     : TileShape::RowReduced;
        })
        // A broadcast's tile is what its result type spans, whatever its
        // operand spans: broadcasting along the stick makes whole rows.
        .Case([&](BroadcastOp) { return shapeOfType(op.getResult(0)); })
        .Case([](MatmulOp) { return TileShape::Full; })
        // A stick-moving transpose makes a whole result tile from a whole
        // input tile whose rows run along the result's sticks: a one-row
        // input (a [1, N] tensor becoming [N, 1]) is not a column-reduced
        // value.
        .Case<TransposeOp, RestickifyOp>([&](Operation *) {
          return keepsStick(&op) ? shapeOfOperand(op.getOperand(0))
                                 : TileShape::Full;
        })
        .Case<SliceOp>([&](SliceOp slice) {
          return isWindowRead(slice) ? shapeOfOperand(slice.getInput())
                                     : TileShape::Full;
        })
        .Default([&](Operation *) { return combinedOperandShape(op); });
  }

  /// The tile shape of an elementwise result: full when some operand is
  /// full (or operands are reduced both ways), else its operands' shape.
  TileShape combinedOperandShape(Operation &op) {
    bool row = false, col = false, full = false;
    for (Value v : op.getOperands()) {
      TileShape s = shapeOfOperand(v);
      full |= s == TileShape::Full;
      row |= s == TileShape::RowReduced;
      col |= s == TileShape::ColReduced;
    }
    return full || (row && col) ? TileShape::Full
           : row                ? TileShape::RowReduced
           : col                ? TileShape::ColReduced
                                : TileShape::Full;
  }

  bool isAccResult(Value v) {
    Operation *def = v.getDefiningOp();
    return plan.accLoop >= 0 && isa_and_nonnull<MatmulOp, ReduceOp>(def);
  }

  /// Whether body value or input `v` differs between iterations of the
  /// accumulation loop: an input the loop walks, or a value computed in
  /// the loop from one (a tile alias of an input it does not walk is the
  /// same in every iteration).
  bool variesInAccLoop(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return plan.tensors[arg.getArgNumber()].variesInAccLoop;
    if (isAccResult(v) || !plan.values.lookup(v).inner)
      return false;
    return llvm::any_of(v.getDefiningOp()->getOperands(), [&](Value operand) {
      return variesInAccLoop(operand);
    });
  }

  /// Whether `op` comes after the body's matmul or reduction.
  static bool followsAccumulation(Operation &op) {
    for (Operation &prev : *op.getBlock()) {
      if (&prev == &op)
        return false;
      if (isa<MatmulOp, ReduceOp>(prev))
        return true;
    }
    return false;
  }

  /// In a kernel with an accumulation loop, what uses an accumulated value
  /// runs after the loop; it may not read anything that varies in it.
  LogicalResult placeAfterAccumulation(Operation &op, PlanValue &pv) {
    if (plan.accLoop < 0 || isa<MatmulOp, ReduceOp>(op))
      return success();
    bool afterAcc = llvm::any_of(op.getOperands(), [&](Value v) {
      return isAccResult(v) ||
             (plan.values.count(v) && !plan.values.lookup(v).inner);
    });
    // Past the accumulation, an op reading nothing that varies in the loop
    // (RoPE's `q * cos` beside `rotate_half(q) @ R`) runs once after it.
    if (!afterAcc && followsAccumulation(op) &&
        llvm::none_of(op.getOperands(),
                      [&](Value v) { return variesInAccLoop(v); }))
      afterAcc = true;
    if (!afterAcc)
      return success();
    pv.inner = false;
    for (Value v : op.getOperands()) {
      if (variesInAccLoop(v))
        return fail("'" + op.getName().getStringRef() +
                    "' uses the accumulated result and a value that changes "
                    "with the accumulation loop; they cannot be in one "
                    "kernel");
    }
    return success();
  }

  /// A body value: its tile, where it is computed, and its LX buffer (its
  /// operand's, for a move that leaves the tile as it is; the result
  /// tensor's, when it is stored as it is).
  LogicalResult addValue(Operation &op) {
    Value result = op.getResult(0);
    PlanValue pv;
    pv.op = &op;
    Type et = cast<RankedTensorType>(result.getType()).getElementType();
    pv.lxElementType =
        isa<MatmulOp>(op) ? Float32Type::get(op.getContext()) : et;
    pv.shape = resultShape(op);
    if (failed(placeAfterAccumulation(op, pv)))
      return failure();
    pv.alias = isTileAlias(&op);
    // An alias holds its operand's elements (a matmul's f32 accumulator).
    if (pv.alias)
      pv.lxElementType = lxElementTypeOf(op.getOperand(0));
    sizeValueTile(pv);
    storeAsResult(result, pv);
    plan.values[result] = pv;
    if (pv.alias) {
      plan.valueBuffer[result] = bufferOf(op.getOperand(0));
      return success();
    }
    if (int64_t reused = inPlaceBuffer(op, pv); reused >= 0) {
      plan.values[result].inPlace = true;
      plan.valueBuffer[result] = reused;
      return success();
    }
    // Accumulators "acc", "acc1", ... (a gated MLP has two).
    std::string name;
    if (isa<MatmulOp>(op))
      name = accumulators++ ? "acc" + std::to_string(accumulators - 1) : "acc";
    else
      name = "t" + std::to_string(temporaries++);
    // A value stored as it is fills its result's buffer (a kept result's
    // slab).
    int64_t bytes = pv.storedAs >= 0
                        ? plan.tensors[pv.storedAs].lxBytes(arch.stickBytes)
                        : pv.rows * pv.sticks * arch.stickBytes;
    plan.valueBuffer[result] = addBuffer(name, bytes, pv.copies);
    return success();
  }

  /// The buffer of an operand that `op` (producing `pv`) may overwrite,
  /// or -1. The SFP's unary and binary passes read each row of their
  /// sources before writing that row of their destination, so a result
  /// with an operand's tile, element for element, can take the operand's
  /// buffer when nothing reads that buffer after `op`: the f32
  /// temporaries of a norm then need one buffer, not three.
  int64_t inPlaceBuffer(Operation &op, const PlanValue &pv) {
    auto compute = dyn_cast<ComputeOpInterface>(op);
    if (!compute || pv.storedAs >= 0 || pv.shape != TileShape::Full)
      return -1;
    TileForm form = compute.getTileLowering().form;
    if (form != TileForm::SfpUnary && form != TileForm::SfpBinary)
      return -1;
    for (Value v : op.getOperands())
      if (!isa<BlockArgument>(v) &&
          sameTileElements(plan.values.find(v)->second, pv) &&
          !readAfter(v, op, pv.inner))
        return plan.valueBuffer.lookup(v);
    return -1;
  }

  /// Whether body value `src`, a temporary of its own (no alias, not
  /// stored, one copy), holds `pv`'s tile element for element at the same
  /// loop level.
  static bool sameTileElements(const PlanValue &src, const PlanValue &pv) {
    return !src.alias && src.storedAs < 0 && src.copies == 1 &&
           src.inner == pv.inner && src.shape == TileShape::Full &&
           src.lxElementType == pv.lxElementType && src.rows == pv.rows &&
           src.sticks == pv.sticks;
  }

  /// Whether some op other than `op` reads body value `v` (or a tile alias
  /// of it) after `op` runs: later in the body, as a kernel result, or
  /// after the accumulation loop when `op` (`inner`) runs inside it.
  bool readAfter(Value v, Operation &op, bool inner) {
    for (Operation *user : v.getUsers()) {
      if (user == &op)
        continue;
      if (user == kernel.getYield().getOperation() ||
          op.isBeforeInBlock(user) ||
          (inner && !plan.values.find(user->getResult(0))->second.inner))
        return true;
      if (isTileAlias(user) && readAfter(user->getResult(0), op, inner))
        return true;
    }
    return false;
  }

  /// The rows and sticks of a body value's tile.
  void sizeValueTile(PlanValue &pv) {
    pv.rows = pv.shape == TileShape::ColReduced ? 1 : plan.rowTile();
    pv.sticks =
        pv.shape == TileShape::RowReduced
            ? 1
            : llvm::divideCeil(plan.stickTile(),
                               elementsPerStick(pv.lxElementType, arch));
  }

  /// A value yielded as a result whose tile it matches is stored from its
  /// own buffer (with the result's copies).
  void storeAsResult(Value result, PlanValue &pv) {
    for (OpOperand &use : result.getUses())
      if (use.getOwner() == kernel.getYield().getOperation()) {
        unsigned ti = numInputs() + use.getOperandNumber();
        const PlanTensor &r = plan.tensors[ti];
        if (r.type.getElementType() == pv.lxElementType && r.rows == pv.rows &&
            r.sticks == pv.sticks && !pv.alias) {
          pv.storedAs = ti;
          pv.copies = r.copies;
        }
      }
  }

  /// The element type of kernel input or body value `v` in LX.
  Type lxElementTypeOf(Value v) {
    if (isa<BlockArgument>(v))
      return cast<RankedTensorType>(v.getType()).getElementType();
    return plan.values.lookup(v).lxElementType;
  }

  /// The buffer holding kernel input or body value `v`.
  int64_t bufferOf(Value v) {
    return isa<BlockArgument>(v)
               ? plan.tensorBuffer[cast<BlockArgument>(v).getArgNumber()]
               : plan.valueBuffer.lookup(v);
  }

  /// Results: the value's own buffer, or a staging buffer for a
  /// conversion.
  LogicalResult buildResultBuffers() {
    for (auto [j, v] : llvm::enumerate(kernel.getYield().getValues())) {
      unsigned ti = numInputs() + j;
      if (isa<BlockArgument>(v))
        return fail("kernel result " + Twine(j) +
                    " is an input passed through; nothing computes it");
      const PlanValue &pv = plan.values[v];
      const PlanTensor &r = plan.tensors[ti];
      if (pv.storedAs == int64_t(ti) ||
          (pv.alias && r.rows == pv.rows &&
           r.type.getElementType() == pv.lxElementType)) {
        plan.tensorBuffer.push_back(plan.valueBuffer[v]);
        continue;
      }
      plan.tensorBuffer.push_back(addBuffer(
          "out" + std::to_string(j), r.lxBytes(arch.stickBytes), r.copies));
    }
    return success();
  }
};

} // namespace

FailureOr<KernelPlan> KernelPlan::build(KernelOp kernel, ScheduleAttr schedule,
                                        const Arch &arch, bool emitErrors,
                                        bool withPaths) {
  FailureOr<Roles> roleInfo = roles(kernel, emitErrors);
  if (failed(roleInfo))
    return failure();
  KernelPlan plan;
  plan.kernel = kernel;
  plan.arch = arch;
  plan.schedule = schedule;
  plan.kind = roleInfo->kind;
  plan.rowLoop = roleInfo->rowLoop;
  plan.stickLoop = roleInfo->stickLoop;
  plan.accLoop = roleInfo->accLoop;
  // Only these kinds write their result tile by tile from the plan's
  // buffers (a slab is where those tiles go).
  if (!schedule.getKeep().empty() && plan.kind != KernelKind::Matmul &&
      plan.kind != KernelKind::Elementwise &&
      plan.kind != KernelKind::Reduction)
    return kernelError(kernel, emitErrors,
                       "schedule keeps result " +
                           Twine(schedule.getKeep().front()) +
                           " whole per core, but only matmul, elementwise "
                           "and reduction kernels can, not a " +
                           kernelKindName(plan.kind) + " kernel");
  if (failed(plan.kind == KernelKind::Attention
                 ? plan.buildAttention(emitErrors)
                 : PlanBuilder(plan, emitErrors).build(*roleInfo)) ||
      (withPaths && failed(plan.readDataPaths(emitErrors))) ||
      (plan.kSplit() > 1 && failed(plan.checkKSplit(emitErrors))))
    return failure();
  return plan;
}

LogicalResult KernelPlan::checkKSplit(bool emitErrors) const {
  auto fail = [&](const Twine &why) {
    return kernelError(kernel, emitErrors,
                       "k is split over " + Twine(kSplit()) + " cores, but " +
                           why);
  };
  // (A held lhs is refused before: holdableInputs.)
  if (!schedule.getKeep().empty())
    return fail("the schedule keeps a result whole per core (only the first "
                "core of a k group has the sums)");
  for (const PlanTensor &t : tensors) {
    StringRef what = t.isResult ? "result " : "input ";
    if (t.path != DataPath::dma)
      return fail(what + Twine(t.index) +
                  " is handed over on chip (only the first core of a k "
                  "group has the sums)");
  }
  SmallVector<int64_t> hw = hardwareLoops();
  if (int64_t(hw.size()) - llvm::is_contained(hw, accLoop) + 1 >
      int64_t(kMaxHardwareLoops))
    return fail("the reduction after k needs a hardware loop level of its "
                "own");
  return success();
}

LogicalResult KernelPlan::readDataPaths(bool emitErrors) {
  for (PlanTensor &t : tensors) {
    t.path = t.isResult ? kernel.getDestinationPath(t.index)
                        : kernel.getSourcePath(t.index);
    // checkKSplit refuses any other path of a K-split, and says why.
    if (t.path == DataPath::dma || kSplit() > 1)
      continue;
    StringRef what = t.isResult ? "result " : "input ";
    if (!canHandOffInLx(t)) {
      if (emitErrors)
        kernel.emitError("kernel ")
            << what << t.index
            << (t.path == DataPath::ring ? " is gathered over the ring"
                                         : " is kept in LX")
            << ", but the " << kernelKindName(kind)
            << " kernel moves it more than once per core or schedules its "
               "own transfers";
      return failure();
    }
  }
  return success();
}

SmallVector<int64_t> KernelPlan::holdableInputs() const {
  if (kind == KernelKind::Attention)
    return attentionHoldableInputs();
  if (!isMatmul() || accLoop < 0 || kSplit() > 1)
    return {};
  int64_t lhs = matmulLhs(*this);
  if (lhs < 0 || tensors[lhs].stickLoop != accLoop)
    return {};
  SmallVector<int64_t> maxTiles = maxTilesPerLoop();
  if (maxTiles[accLoop] <= 1)
    return {};
  const PlanTensor &t = tensors[lhs];
  for (int64_t l = 0; l < int64_t(loops.size()); ++l)
    if (l != accLoop && t.movesAlong(l) && maxTiles[l] > 1)
      return {};
  return {lhs};
}

bool KernelPlan::canHandOffInLx(const PlanTensor &t) const {
  if (kSplit() > 1)
    return false;
  switch (kind) {
  case KernelKind::Matmul:
  case KernelKind::Elementwise:
  case KernelKind::Reduction:
  case KernelKind::Transpose:
    return t.hoisted || t.slab;
  case KernelKind::Copy:
  case KernelKind::Gather:
  case KernelKind::Scatter:
  case KernelKind::Attention:
    return false;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

CoreShare KernelPlan::share(int64_t core) const {
  CoreShare s;
  for (auto [l, loop] : llvm::enumerate(loops)) {
    int64_t coord = splitCoord(core, l);
    int64_t t = loop.numTiles();
    int64_t first = coord * t / loop.split;
    int64_t end = (coord + 1) * t / loop.split;
    s.start.push_back(first * loop.tile);
    s.tiles.push_back(end - first);
  }
  return s;
}

int64_t KernelPlan::splitCoord(int64_t core, int64_t loop) const {
  int64_t rest = core;
  for (int64_t l = int64_t(loops.size()) - 1; l > loop; --l)
    rest /= loops[l].split;
  return rest % loops[loop].split;
}

int64_t KernelPlan::lxBytes() const {
  int64_t total = 0;
  for (const PlanBuffer &b : buffers)
    total += b.bytes * b.copies;
  return total;
}

SmallVector<int64_t> KernelPlan::maxTilesPerLoop() const {
  // share() cuts a loop's tiles into `split` ranges of floor or ceil of
  // tiles / split.
  SmallVector<int64_t> maxTiles;
  for (const PlanLoop &loop : loops)
    maxTiles.push_back(llvm::divideCeil(loop.numTiles(), loop.split));
  return maxTiles;
}

SmallVector<int64_t> KernelPlan::hardwareLoops() const {
  SmallVector<int64_t> maxTiles = maxTilesPerLoop();
  SmallVector<int64_t> order;
  for (size_t l = 0; l < loops.size(); ++l)
    if (loops[l].role == LoopRole::Outer)
      order.push_back(l);
  for (int64_t l : {rowLoop, stickLoop})
    if (l >= 0 && l != accLoop)
      order.push_back(l);
  if (accLoop >= 0)
    order.push_back(accLoop);
  SmallVector<int64_t> hw;
  for (int64_t l : order)
    if (maxTiles[l] > 1)
      hw.push_back(l);
  return hw;
}

ArrayAttr KernelPlan::getBufferAttrs(MLIRContext *ctx) const {
  SmallVector<Attribute> attrs;
  for (const PlanBuffer &b : buffers)
    attrs.push_back(
        BufferAttr::get(ctx, b.name, b.offset, b.bytes, b.copies, b.live));
  return ArrayAttr::get(ctx, attrs);
}

PlanTensor PlanTensor::of(Value value, bool isResult, unsigned index,
                          size_t numLoops) {
  PlanTensor t;
  t.value = value;
  t.isResult = isResult;
  t.index = index;
  t.type = cast<RankedTensorType>(value.getType());
  t.elementBytes = getElementBytes(t.type.getElementType());
  t.elementsPerStick = getLayout(t.type).getStickElems();
  t.loopBytes.assign(numLoops, 0);
  return t;
}

const PlanBuffer &KernelPlan::buffer(StringRef name) const {
  for (const PlanBuffer &b : buffers)
    if (b.name == name)
      return b;
  llvm_unreachable("no LX buffer of that name in the plan");
}

void KernelPlan::describe(ProgramOp program) const {
  program.setEstimateNs(int64_t(std::llround(estimateNs())));
  program.setMacs(totalMacs());
  program.setMinBytes(totalBytes());
  program.setMinWrittenBytes(totalWrittenBytes());
  program.setScheduleAttr(schedule);
  int64_t lx = 0;
  for (const PlanBuffer &b : buffers)
    if (b.offset >= 0)
      lx = std::max(lx, b.offset + b.bytes * b.copies);
  program.setLxBytes(lx);
}

void KernelPlan::noteBuffers(InFlightDiagnostic &diag) const {
  for (const PlanBuffer &b : buffers)
    diag.attachNote() << "LX buffer '" << b.name << "': " << b.bytes
                      << " bytes x " << b.copies << " copies";
}

int64_t KernelPlan::totalMacs() const {
  int64_t macs = 0;
  for (Operation &op : kernel.getBodyBlock().without_terminator())
    if (auto compute = dyn_cast<ComputeOpInterface>(op))
      macs += compute.getWork().macs;
  return macs;
}

int64_t PlanTensor::deviceBytes() const {
  return getLayout(type).getDeviceElements(type.getShape()) * elementBytes;
}

int64_t KernelPlan::totalBytes() const {
  int64_t bytes = 0;
  for (const PlanTensor &t : tensors)
    if (t.movesBytes())
      bytes += t.deviceBytes();
  return bytes;
}

int64_t KernelPlan::totalWrittenBytes() const {
  int64_t bytes = 0;
  for (const PlanTensor &t : tensors)
    if (t.isResult && t.movesBytes())
      bytes += t.deviceBytes();
  return bytes;
}

int64_t KernelPlan::pipelinedLoop() const {
  // A K-split's tiles end in a reduction over the ring: not pipelined.
  if (schedule.getDepth() < 2 || isDataMovement() || kSplit() > 1)
    return -1;
  SmallVector<int64_t> hw = hardwareLoops();
  if (hw.empty() || (accLoop >= 0 && llvm::is_contained(hw, accLoop)))
    return -1;
  return hw.back();
}

//===----------------------------------------------------------------------===//
// Candidate schedules
//===----------------------------------------------------------------------===//

SmallVector<int64_t> KernelPlan::powersUpTo(int64_t limit) {
  llvm::SetVector<int64_t> v;
  for (int64_t p = 1; p < limit; p *= 2)
    v.insert(p);
  v.insert(limit);
  return v.takeVector();
}

/// The tiles of a `size`-element loop that are a whole number of sticks of
/// every stick size in `sticks` (elements) and divide each one's padded
/// stick count (checkStickTile's rule, for every tensor at once), and a
/// multiple of `multiple`: every multiple of their least common multiple
/// that qualifies, then the whole loop. Not only powers of two: a loop of
/// 200 sticks (12,800 elements) takes tiles of 10, 20, 25 or 40 sticks,
/// which hold more of a weight per transfer than 8 within the same LX.
static SmallVector<int64_t> stickTiles(int64_t size, ArrayRef<int64_t> sticks,
                                       int64_t multiple) {
  int64_t e = multiple;
  for (int64_t s : sticks)
    e = std::lcm(e, s);
  SmallVector<int64_t> v;
  for (int64_t t = e; t < size; t += e)
    if (llvm::all_of(sticks, [&](int64_t s) {
          return llvm::divideCeil(size, s) % (t / s) == 0;
        }))
      v.push_back(t);
  v.push_back(size);
  return v;
}

/// The stick sizes (in elements) of the kernel's inputs and results whose
/// stick dim runs along `loop`.
static SmallVector<int64_t> tensorSticksAlong(KernelOp kernel, int64_t loop) {
  SmallVector<int64_t> sticks;
  SmallVector<AffineMap> maps = kernel.getIndexingMapList();
  SmallVector<Type> types(kernel.getInputs().getTypes());
  llvm::append_range(types, kernel.getResultTypes());
  for (auto [map, type] : llvm::zip(maps, types)) {
    LayoutAttr layout = getLayout(type);
    if (!layout || layout.getStickDim() < 0)
      continue;
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(layout.getStickDim()));
    if (dim && dim.getPosition() == unsigned(loop) &&
        !llvm::is_contained(sticks, layout.getStickElems()))
      sticks.push_back(layout.getStickElems());
  }
  return sticks;
}

/// The stick sizes (in elements) a tile along `loop` must respect, whole
/// sticks dividing the padded count: the kernel's tensors sticked along
/// it, a transposed result; none for DMA kernels, which move exact runs of
/// bytes (a gather's tile of indices too). `multiple`: what the tile must
/// also be a multiple of (a matmul's f32 accumulator sticks, which need
/// not divide the loop: see checkStickTiles).
static SmallVector<int64_t> stickElementsAlong(KernelOp kernel,
                                               const KernelPlan::Roles &roles,
                                               int64_t loop, const Arch &arch,
                                               int64_t &multiple) {
  multiple = 1;
  if (roles.kind == KernelKind::Copy || roles.kind == KernelKind::Gather ||
      roles.kind == KernelKind::Scatter)
    return {};
  SmallVector<int64_t> sticks = tensorSticksAlong(kernel, loop);
  if (roles.kind == KernelKind::Matmul && loop == roles.stickLoop)
    multiple = arch.stickBytes / 4;
  // The transposed input's rows are the result's sticks and vice versa.
  if (roles.kind == KernelKind::Transpose && loop == roles.stickLoop) {
    auto out = cast<RankedTensorType>(kernel.getResult(0).getType());
    int64_t e = elementsPerStick(out.getElementType(), arch);
    if (!llvm::is_contained(sticks, e))
      sticks.push_back(e);
  }
  return sticks;
}

SmallVector<SmallVector<int64_t>>
KernelPlan::tileChoices(KernelOp kernel, const Roles &roles, const Arch &arch) {
  ArrayRef<int64_t> space = kernel.getSpace();
  SmallVector<SmallVector<int64_t>> choices(space.size());
  for (int64_t l = 0; l < int64_t(space.size()); ++l) {
    int64_t multiple = 1;
    SmallVector<int64_t> sticks =
        stickElementsAlong(kernel, roles, l, arch, multiple);
    llvm::erase(sticks, 1);
    if (llvm::is_contained(roles.wholeLoops, l))
      choices[l] = {space[l]};
    else if (!sticks.empty() || multiple > 1)
      choices[l] = stickTiles(space[l], sticks, multiple);
    else if (l == roles.rowLoop || l == roles.accLoop)
      choices[l] = powersUpTo(space[l]);
    else
      choices[l] = {1};
  }
  // A causal attention's query tiles are its key tiles (square), or one.
  if (roles.kind == KernelKind::Attention &&
      (*kernel.getBodyBlock().getOps<AttentionOp>().begin()).getCausal()) {
    int64_t m = roles.rowLoop, s = roles.accLoop;
    SmallVector<int64_t> square;
    for (int64_t t : choices[s])
      if (t < space[m])
        square.push_back(t);
    square.push_back(space[m]);
    choices[m] = square;
  }
  return choices;
}

FailureOr<KernelPlan> KernelPlan::smallestPlan(KernelOp kernel,
                                               const Roles &roles,
                                               const Arch &arch, int64_t depth,
                                               bool emitErrors) {
  SmallVector<int64_t> tiles;
  for (const SmallVector<int64_t> &c : tileChoices(kernel, roles, arch))
    tiles.push_back(c.front());
  auto schedule = ScheduleAttr::get(kernel.getContext(),
                                    SmallVector<int64_t>(tiles.size(), 1),
                                    tiles, depth, /*costNs=*/0, /*hold=*/{},
                                    /*keep=*/{});
  return build(kernel, schedule, arch, emitErrors);
}

/// A schedule every supported kernel accepts: one core, the whole of every
/// loop that is some tensor's stick (or must be whole), 1 elsewhere.
static ScheduleAttr validationSchedule(KernelOp kernel,
                                       const KernelPlan::Roles &roles) {
  ArrayRef<int64_t> space = kernel.getSpace();
  SmallVector<int64_t> tiles(space.size(), 1);
  for (auto [l, size] : llvm::enumerate(space))
    if (int64_t(l) == roles.stickLoop || int64_t(l) == roles.accLoop ||
        llvm::is_contained(roles.wholeLoops, int64_t(l)) ||
        (roles.kind == KernelKind::Transpose && int64_t(l) == roles.rowLoop))
      tiles[l] = size;
  return ScheduleAttr::get(kernel.getContext(),
                           SmallVector<int64_t>(space.size(), 1), tiles, 1, 0,
                           /*hold=*/{}, /*keep=*/{});
}

/// Whether the smallest plan's tile loops fit the program's hardware loops
/// once the parallel loops with the fewest tiles are split whole over the
/// cores (at most `maxCores`): a schedule spyre-schedule-cores also tries.
/// Sufficient, not necessary (larger tiles may need fewer loops): a pass
/// that relies on it gives up a rewrite rather than make a kernel that has
/// no schedule.
static bool fitsHardwareLoops(const KernelPlan &smallest,
                              const KernelPlan::Roles &roles,
                              int64_t maxCores) {
  KernelOp kernel = smallest.kernel;
  SmallVector<int64_t> tiles = smallest.maxTilesPerLoop();
  SmallVector<IteratorKind> kinds = kernel.getIteratorKinds();
  SmallVector<int64_t> splittable;
  for (int64_t l : smallest.hardwareLoops())
    if (kinds[l] == IteratorKind::parallel && !roles.singleCore)
      splittable.push_back(l);
  llvm::stable_sort(splittable,
                    [&](int64_t a, int64_t b) { return tiles[a] < tiles[b]; });
  size_t loops = smallest.hardwareLoops().size();
  int64_t coresLeft = maxCores;
  SmallVector<int64_t> split(tiles.size(), 1);
  for (int64_t l : splittable) {
    if (loops <= KernelPlan::kMaxHardwareLoops || tiles[l] > coresLeft)
      break;
    split[l] = tiles[l];
    coresLeft /= tiles[l];
    --loops;
  }
  if (loops > KernelPlan::kMaxHardwareLoops)
    return false;
  ScheduleAttr schedule = smallest.schedule;
  auto candidate = ScheduleAttr::get(kernel.getContext(), split,
                                     schedule.getTile(), schedule.getDepth(),
                                     /*costNs=*/0, /*hold=*/{},
                                     /*keep=*/{});
  FailureOr<KernelPlan> plan =
      KernelPlan::build(kernel, candidate, smallest.arch, /*emitErrors=*/false);
  return succeeded(plan) &&
         plan->hardwareLoops().size() <= KernelPlan::kMaxHardwareLoops &&
         plan->lxBytes() <= smallest.arch.usableLxBytes();
}

bool KernelPlan::isRunnable(KernelOp kernel, const Arch &arch,
                            int64_t maxCores) {
  FailureOr<Roles> roles = KernelPlan::roles(kernel, /*emitErrors=*/false);
  if (failed(roles))
    return false;
  // Single-buffered: spyre-schedule-cores falls back to depth 1 too.
  FailureOr<KernelPlan> smallest =
      smallestPlan(kernel, *roles, arch, /*depth=*/1, /*emitErrors=*/false);
  int64_t cores = maxCores > 0 ? std::min(maxCores, arch.cores) : arch.cores;
  auto fits = [&] {
    return smallest->lxBytes() <= arch.usableLxBytes() &&
           fitsHardwareLoops(*smallest, *roles, cores);
  };
  // Attention's tiles have rules of their own (square causal tiles): its
  // smallest plan is the test.
  if (roles->kind == KernelKind::Attention)
    return succeeded(smallest) && fits();
  if (failed(build(kernel, validationSchedule(kernel, *roles), arch,
                   /*emitErrors=*/false)))
    return false;
  return failed(smallest) || fits();
}

} // namespace spyre
