//===- KernelPlan.cpp - How a scheduled kernel runs -----------------------===//

#include "spyre/Transforms/KernelPlan.h"
#include "spyre/Transforms/CostModel.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>

using namespace mlir;

namespace spyre {

int64_t elementsPerStick(Type elementType, const Arch &arch) {
  return arch.stickBytes / getElementBytes(elementType);
}

int64_t PlanTensor::offsetOf(ArrayRef<int64_t> starts) const {
  int64_t offset = 0;
  for (auto [l, bytes] : llvm::enumerate(loopBytes)) {
    if (!bytes)
      continue;
    offset += int64_t(l) == stickLoop ? starts[l] / elementsPerStick * bytes
                                      : starts[l] * bytes;
  }
  return offset;
}

namespace {

int64_t alignTo(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

bool isElementwiseBodyOp(Operation *op) {
  return isa<UnaryOp, BinaryOp, CompareOp, SelectOp, CastOp>(op);
}

/// Describes kernel tensor `value` read through `map`; fills in the parts
/// that do not depend on the tile sizes.
FailureOr<PlanTensor> describeTensor(KernelOp kernel, Value value,
                                     AffineMap map, const KernelPlan &plan,
                                     bool isResult, unsigned index,
                                     bool emitErrors) {
  auto fail = [&](const Twine &msg) -> FailureOr<PlanTensor> {
    if (emitErrors)
      kernel.emitError(msg);
    return failure();
  };
  PlanTensor t;
  t.value = value;
  t.isResult = isResult;
  t.index = index;
  t.type = cast<RankedTensorType>(value.getType());
  LayoutAttr layout = getLayout(t.type);
  if (!layout)
    return fail("kernel tensor of type " + Twine(index) +
                " has no layout; run spyre-assign-layouts first");
  t.elementBytes = getElementBytes(t.type.getElementType());
  t.elementsPerStick = layout.getStickElems();
  t.loopBytes.assign(plan.loops.size(), 0);
  ArrayRef<int64_t> shape = t.type.getShape();
  for (auto [d, expr] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      continue; // broadcast
    int64_t l = dim.getPosition();
    int64_t stride = layout.getDimStride(shape, d) * t.elementBytes;
    if (int64_t(d) == layout.getStickDim()) {
      t.stickLoop = l;
      t.stickPitch = stride;
      t.loopBytes[l] = stride;
      continue;
    }
    t.loopBytes[l] = stride;
    if (plan.loops[l].tile > 1 || l == plan.rowLoop ||
        (plan.isMatmul && l == plan.kLoop)) {
      if (t.rowLoop >= 0)
        return fail(Twine(isResult ? "result " : "input ") + Twine(index) +
                    " is tiled along two non-stick dims");
      t.rowLoop = l;
      t.rowPitch = stride;
    }
  }
  // A tensor broadcast along the sticks still occupies one stick per row.
  if (layout.getStickDim() >= 0 && t.stickPitch == 0)
    t.stickPitch = layout.getDimStride(shape, layout.getStickDim()) *
                   t.elementBytes;
  bool stickOk = t.stickLoop < 0 || t.stickLoop == plan.stickLoop ||
                 (plan.isMatmul && !isResult && index == 0 &&
                  t.stickLoop == plan.kLoop);
  if (!stickOk)
    return fail(Twine(isResult ? "result " : "input ") + Twine(index) +
                " has its sticks along loop " + Twine(t.stickLoop) +
                ", not along the kernel's stick loop " + Twine(plan.stickLoop));
  return t;
}

} // namespace

FailureOr<KernelPlan> KernelPlan::build(KernelOp kernel, ScheduleAttr schedule,
                                        const Arch &arch, bool emitErrors) {
  auto fail = [&](const Twine &msg) -> FailureOr<KernelPlan> {
    if (emitErrors)
      kernel.emitError(msg);
    return failure();
  };
  KernelPlan plan;
  plan.kernel = kernel;
  plan.arch = arch;
  plan.schedule = schedule;

  // Body shape.
  Block &body = kernel.getBodyBlock();
  Operation *root = &body.front();
  plan.isMatmul = isa<MatmulOp>(root);
  for (Operation &op : body.without_terminator()) {
    if (&op == root && plan.isMatmul)
      continue;
    if (!isElementwiseBodyOp(&op))
      return fail("the program lowering does not support '" +
                  op.getName().getStringRef() +
                  "' in a kernel body yet (supported: a matmul with an "
                  "elementwise epilogue, or elementwise ops)");
  }

  // Loops and their roles.
  ArrayRef<int64_t> space = kernel.getSpace();
  int64_t n = space.size();
  if (int64_t(schedule.getSplit().size()) != n ||
      int64_t(schedule.getTile().size()) != n)
    return fail("schedule does not match the kernel's " + Twine(n) + " loops");
  SmallVector<IteratorKind> iters = kernel.getIteratorKinds();
  for (int64_t l = 0; l < n; ++l) {
    PlanLoop loop;
    loop.size = space[l];
    loop.tile = schedule.getTile()[l];
    loop.split = schedule.getSplit()[l];
    plan.loops.push_back(loop);
  }
  if (plan.isMatmul) {
    plan.rowLoop = n - 3;
    plan.stickLoop = n - 2;
    plan.kLoop = n - 1;
  } else {
    if (n >= 1)
      plan.stickLoop = n - 1;
    if (n >= 2)
      plan.rowLoop = n - 2;
  }
  for (int64_t l = 0; l < n; ++l) {
    PlanLoop &loop = plan.loops[l];
    if (l == plan.rowLoop)
      loop.role = LoopRole::Row;
    else if (l == plan.stickLoop)
      loop.role = LoopRole::Stick;
    else if (l == plan.kLoop)
      loop.role = LoopRole::Reduction;
    if (iters[l] == IteratorKind::reduction && loop.split != 1)
      return fail("reduction loop " + Twine(l) + " cannot be split over cores");
    if (loop.role == LoopRole::Outer && loop.tile != 1)
      return fail("outer loop " + Twine(l) + " must have tile 1, got " +
                  Twine(loop.tile));
    if (loop.split > loop.numTiles())
      return fail("loop " + Twine(l) + " is split over " + Twine(loop.split) +
                  " cores but has only " + Twine(loop.numTiles()) + " tiles");
  }

  // Tensors.
  SmallVector<AffineMap> maps = llvm::to_vector(
      kernel.getIndexingMapsAttr().getAsValueRange<AffineMapAttr>());
  unsigned numInputs = kernel.getInputs().size();
  for (auto [i, v] : llvm::enumerate(kernel.getInputs())) {
    FailureOr<PlanTensor> t =
        describeTensor(kernel, v, maps[i], plan, false, i, emitErrors);
    if (failed(t))
      return failure();
    plan.tensors.push_back(*t);
  }
  for (auto [j, v] : llvm::enumerate(kernel.getResults())) {
    FailureOr<PlanTensor> t = describeTensor(kernel, v, maps[numInputs + j],
                                             plan, true, j, emitErrors);
    if (failed(t))
      return failure();
    plan.tensors.push_back(*t);
  }

  // Whole-stick tiles: a tile along the stick loop (and k) must be a
  // multiple of every touching tensor's stick, or the whole loop.
  auto checkStickTile = [&](int64_t l) -> LogicalResult {
    if (l < 0)
      return success();
    const PlanLoop &loop = plan.loops[l];
    if (loop.tile == loop.size)
      return success();
    // Tiles are whole sticks and divide the padded stick count, so no tile
    // reaches past the tensor's padding.
    for (const PlanTensor &t : plan.tensors) {
      if (t.stickLoop != l)
        continue;
      int64_t e = t.elementsPerStick;
      if (loop.tile % e != 0 ||
          llvm::divideCeil(loop.size, e) % (loop.tile / e) != 0) {
        if (emitErrors)
          kernel.emitError("tile ")
              << loop.tile << " of loop " << l << " is not a whole number of "
              << e << "-element sticks dividing the loop's "
              << llvm::divideCeil(loop.size, e) << " sticks";
        return failure();
      }
    }
    // The accumulator is f32.
    if (plan.isMatmul && l == plan.stickLoop &&
        loop.tile % elementsPerStick(Float32Type::get(kernel.getContext()),
                                     arch) != 0)
      return failure();
    return success();
  };
  if (failed(checkStickTile(plan.stickLoop)) ||
      failed(checkStickTile(plan.kLoop)))
    return failure();

  // Tile shapes and hoisting.
  SmallVector<int64_t> maxTiles(n, 0);
  for (int64_t c = 0; c < plan.numCores(); ++c) {
    CoreShare s = plan.share(c);
    for (int64_t l = 0; l < n; ++l)
      maxTiles[l] = std::max(maxTiles[l], s.tiles[l]);
  }
  int64_t depth = schedule.getDepth();
  for (PlanTensor &t : plan.tensors) {
    if (t.rowLoop >= 0)
      t.rows = plan.loops[t.rowLoop].tile;
    if (t.stickLoop >= 0)
      t.sticks = llvm::divideCeil(plan.loops[t.stickLoop].tile,
                                  t.elementsPerStick);
    t.hoisted = true;
    for (int64_t l = 0; l < n; ++l)
      if ((t.loopBytes[l] || l == t.rowLoop) && maxTiles[l] > 1)
        t.hoisted = false;
    t.copies = t.hoisted ? 1 : depth;
    for (int64_t l = 0; l < n; ++l)
      if (!t.isResult && !t.loopBytes[l] && l != t.rowLoop)
        t.sharers *= plan.loops[l].split;
  }

  // Body values and LX buffers.
  auto addBuffer = [&](std::string name, int64_t bytes, int64_t copies) {
    plan.buffers.push_back(
        {std::move(name), alignTo(bytes, arch.lxAlignment), copies, -1, {}});
    return int64_t(plan.buffers.size() - 1);
  };
  for (PlanTensor &t : plan.tensors)
    if (!t.isResult)
      plan.tensorBuffer.push_back(addBuffer("in" + std::to_string(t.index),
                                            t.tileBytes(arch.stickBytes),
                                            t.copies));
  int64_t rowTile = plan.rowLoop >= 0 ? plan.loops[plan.rowLoop].tile : 1;
  int64_t stickTile = plan.stickLoop >= 0 ? plan.loops[plan.stickLoop].tile : 1;
  YieldOp yield = kernel.getYield();
  unsigned tmp = 0;
  for (Operation &op : body.without_terminator()) {
    PlanValue pv;
    pv.op = &op;
    Type et = cast<RankedTensorType>(op.getResult(0).getType()).getElementType();
    pv.lxElementType = isa<MatmulOp>(op) ? Float32Type::get(op.getContext()) : et;
    pv.rows = rowTile;
    pv.sticks = llvm::divideCeil(stickTile, elementsPerStick(pv.lxElementType, arch));
    for (OpOperand &use : op.getResult(0).getUses())
      if (use.getOwner() == yield.getOperation()) {
        const PlanTensor &r = plan.tensors[numInputs + use.getOperandNumber()];
        if (r.type.getElementType() == pv.lxElementType) {
          pv.storedAs = numInputs + use.getOperandNumber();
          pv.copies = r.copies;
        }
      }
    plan.values[op.getResult(0)] = pv;
    std::string name = isa<MatmulOp>(op) ? "acc" : "t" + std::to_string(tmp++);
    plan.valueBuffer[op.getResult(0)] = addBuffer(
        name, pv.rows * pv.sticks * arch.stickBytes, pv.copies);
  }
  // Results: the value's own buffer, or a staging buffer for the cast.
  for (auto [j, v] : llvm::enumerate(yield.getValues())) {
    unsigned ti = numInputs + j;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      return fail("kernel result " + Twine(j) +
                  " is an input passed through; nothing computes it");
    }
    const PlanValue &pv = plan.values[v];
    if (pv.storedAs == int64_t(ti)) {
      plan.tensorBuffer.push_back(plan.valueBuffer[v]);
      continue;
    }
    const PlanTensor &t = plan.tensors[ti];
    plan.tensorBuffer.push_back(addBuffer("out" + std::to_string(j),
                                          t.tileBytes(arch.stickBytes),
                                          t.copies));
  }
  return plan;
}

CoreShare KernelPlan::share(int64_t core) const {
  CoreShare s;
  s.start.assign(loops.size(), 0);
  s.tiles.assign(loops.size(), 0);
  int64_t rest = core;
  for (int64_t l = int64_t(loops.size()) - 1; l >= 0; --l) {
    const PlanLoop &loop = loops[l];
    int64_t coord = rest % loop.split;
    rest /= loop.split;
    int64_t t = loop.numTiles();
    int64_t first = coord * t / loop.split;
    int64_t end = (coord + 1) * t / loop.split;
    s.start[l] = first * loop.tile;
    s.tiles[l] = end - first;
  }
  return s;
}

int64_t KernelPlan::lxBytes() const {
  int64_t total = 0;
  for (const PlanBuffer &b : buffers)
    total += b.bytes * b.copies;
  return total;
}

SmallVector<int64_t> KernelPlan::hardwareLoops() const {
  SmallVector<int64_t> maxTiles(loops.size(), 0);
  for (int64_t c = 0; c < numCores(); ++c) {
    CoreShare s = share(c);
    for (size_t l = 0; l < loops.size(); ++l)
      maxTiles[l] = std::max(maxTiles[l], s.tiles[l]);
  }
  SmallVector<int64_t> order;
  for (size_t l = 0; l < loops.size(); ++l)
    if (loops[l].role == LoopRole::Outer)
      order.push_back(l);
  for (int64_t l : {rowLoop, stickLoop, kLoop})
    if (l >= 0)
      order.push_back(l);
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

int64_t KernelPlan::totalMacs() const {
  if (!isMatmul)
    return 0;
  return cast<MatmulOp>(&kernel.getBodyBlock().front()).getWork().macs;
}

int64_t KernelPlan::totalBytes() const {
  int64_t bytes = 0;
  for (const PlanTensor &t : tensors) {
    LayoutAttr layout = getLayout(t.type);
    bytes += layout.getDeviceElements(t.type.getShape()) * t.elementBytes;
  }
  return bytes;
}

double KernelPlan::estimateNs() const {
  // The busiest core: the one with the most tiles (core 0 by construction
  // of the balanced split).
  CoreShare s = share(0);
  int64_t cores = numCores();
  int64_t kTiles = kLoop >= 0 ? s.tiles[kLoop] : 1;
  int64_t outerTiles = 1;
  for (size_t l = 0; l < loops.size(); ++l)
    if (int64_t(l) != kLoop)
      outerTiles *= s.tiles[l];
  if (outerTiles == 0)
    return 0;

  // Transfers per inner (k) step, per output tile, and once (hoisted).
  SmallVector<std::pair<int64_t, int64_t>> inner, perTileIo, once;
  for (const PlanTensor &t : tensors) {
    std::pair<int64_t, int64_t> transfer = {t.tileBytes(arch.stickBytes),
                                            t.sharers};
    if (t.hoisted)
      once.push_back(transfer);
    else if (isMatmul && !t.isResult && t.index < 2)
      inner.push_back(transfer);
    else
      perTileIo.push_back(transfer);
  }
  int64_t rowTile = rowLoop >= 0 ? loops[rowLoop].tile : 1;
  int64_t stickTile = stickLoop >= 0 ? loops[stickLoop].tile : 1;
  double sfp = 0;
  for (auto &[v, pv] : values) {
    if (isa<MatmulOp>(pv.op))
      continue;
    OpWork w = cast<ComputeOpInterface>(pv.op).getWork();
    sfp += sfpNs(arch, rowTile, stickTile, 4, w.complex);
  }
  // Staging copies (casts before stores).
  for (size_t j = 0; j < tensors.size(); ++j)
    if (tensors[j].isResult && tensorBuffer[j] >= 0 &&
        buffers[tensorBuffer[j]].name.rfind("out", 0) == 0)
      sfp += sfpNs(arch, rowTile, stickTile, 4, false);

  double pt = 0, innerDma = 0;
  if (isMatmul) {
    int64_t kTile = loops[kLoop].tile;
    pt = ptMatmulNs(arch, rowTile, kTile, stickTile);
    innerDma = dmaStepNs(arch, inner, cores);
  }
  double tileDma = dmaStepNs(arch, perTileIo, cores);
  bool pipelined = schedule.getDepth() > 1;
  double perTile;
  if (pipelined)
    perTile = double(kTiles) * std::max(innerDma, pt) + std::max(tileDma, sfp);
  else
    perTile = double(kTiles) * (innerDma + pt) + tileDma + sfp;
  double fill = pipelined ? innerDma : 0;
  return double(outerTiles) * perTile + fill + dmaStepNs(arch, once, cores);
}

} // namespace spyre
