//===- KernelLowering.cpp - One kernel's per-core program -----------------===//

#include "spyre/Transforms/KernelLowering.h"
#include "ProgramScope.h"
#include "RingExchange.h"

#include <cmath>

using namespace mlir;

namespace spyre {

namespace {

class KernelLowering {
public:
  KernelLowering(const KernelPlan &plan, OpBuilder &builder,
                 ArrayRef<FlatSymbolRefAttr> tensorSymbols,
                 ArrayRef<RingExchange> gathers)
      : plan(plan), scope(builder, plan.kernel.getLoc(), plan.numCores()),
        b(builder), symbols(tensorSymbols), gathers(gathers),
        ctx(builder.getContext()), loc(plan.kernel.getLoc()) {
    for (int64_t c = 0; c < plan.numCores(); ++c)
      shares.push_back(plan.share(c));
    hw = plan.hardwareLoops();
  }

  LogicalResult lower(StringRef name) {
    KernelOp kernel = plan.kernel;
    ProgramOp program = scope.begin(name, kernel.getName());

    // An input kept in other cores' LX is gathered before anything runs;
    // one kept in this core's LX is already in its buffer.
    for (const RingExchange &x : gathers)
      emitRingExchange(scope, x);
    emitLoadsOf([](const PlanTensor &t) { return t.hoisted; });

    SmallVector<int64_t> tileLoops;
    for (int64_t l : hw)
      if (l != plan.accLoop)
        tileLoops.push_back(l);
    int64_t pipe = plan.pipelinedLoop();
    if (pipe >= 0) {
      assert(tileLoops.back() == pipe && "the innermost tile loop");
      tileLoops.pop_back();
    }
    openLoops(tileLoops);
    if (failed(pipe >= 0 ? emitPipelined(pipe) : emitTile()))
      return failure();
    closeLoops(tileLoops.size());
    storeSlabs();

    scope.finish();
    plan.describe(program);
    return success();
  }

private:
  const KernelPlan &plan;
  ProgramScope scope;
  OpBuilder &b;
  ArrayRef<FlatSymbolRefAttr> symbols;
  ArrayRef<RingExchange> gathers;
  MLIRContext *ctx;
  Location loc;
  SmallVector<CoreShare> shares;
  SmallVector<int64_t> hw;

  /// Which tiles of the pipelined loop the instructions being emitted work
  /// on: on core c, tile `first[c] + iv * stride` (iv counting that loop
  /// when it is open), in copy `copy` of every multi-copy buffer. Without
  /// pipelining (`loop` -1) buffers rotate with the innermost open loop.
  struct TilePosition {
    int64_t loop = -1;
    SmallVector<int64_t> first;
    int64_t stride = 1;
    int64_t copy = -1;
  } at;
  /// The accumulation loop is the innermost open loop.
  bool inAccLoop = false;
  /// Inside a guard (which runs once), the loop buffers rotate with: the
  /// innermost loop outside the guards.
  std::optional<int64_t> rotateLevel;

  int64_t stickBytes() const { return plan.arch.stickBytes; }
  IntegerAttr i64(int64_t v) { return b.getI64IntegerAttr(v); }
  UnitAttr flag(bool v) { return v ? b.getUnitAttr() : UnitAttr(); }

  unsigned numInputs() const { return plan.kernel.getInputs().size(); }

  SmallVector<int64_t> perCore(function_ref<int64_t(int64_t core)> f) {
    SmallVector<int64_t> v;
    for (int64_t c = 0; c < plan.numCores(); ++c)
      v.push_back(f(c));
    return v;
  }

  /// Per loop, the first index of core `c`'s tile at iteration 0.
  SmallVector<int64_t> startsOf(int64_t c) const {
    SmallVector<int64_t> starts = shares[c].start;
    if (at.loop >= 0)
      starts[at.loop] += at.first[c] * plan.loops[at.loop].tile;
    return starts;
  }

  /// Tiles one iteration of hardware loop `l` advances.
  int64_t tilesPerIteration(int64_t l) const {
    return l == at.loop ? at.stride : 1;
  }

  void openLoops(ArrayRef<int64_t> loops) {
    for (int64_t l : loops)
      scope.openLoop(perCore([&](int64_t c) { return shares[c].tiles[l]; }), l);
  }

  void closeLoops(size_t count) {
    for (size_t i = 0; i < count; ++i)
      scope.closeLoop();
  }

  int64_t levelOf(int64_t l) const { return scope.levelOf(l); }

  /// Bytes a tensor advances per tile of loop `l`.
  int64_t tileStride(const PlanTensor &t, int64_t l) const {
    int64_t tile = plan.loops[l].tile;
    if (l == t.stickLoop)
      return tile / t.elementsPerStick * t.loopBytes[l];
    return tile * t.loopBytes[l];
  }

  /// The result kept whole per core in buffer `idx`, if any.
  const PlanTensor *slabIn(int64_t idx) const {
    for (unsigned ti = numInputs(); ti < plan.tensors.size(); ++ti)
      if (plan.tensors[ti].slab && plan.tensorBuffer[ti] == idx)
        return &plan.tensors[ti];
    return nullptr;
  }

  /// LX bytes between rows of buffer `idx`: a slab's, or `tilePitch`.
  int64_t pitchOf(int64_t idx, int64_t tilePitch) const {
    const PlanTensor *t = slabIn(idx);
    return t ? t->slabSticks * stickBytes() : tilePitch;
  }

  /// Bytes from a slab tile to the next along loop `l`.
  int64_t slabStride(const PlanTensor &t, int64_t l) const {
    if (l == t.stickLoop)
      return t.sticks * stickBytes();
    if (l == t.rowLoop)
      return t.rows * t.slabSticks * stickBytes();
    return 0;
  }

  /// The current tile's place in slab `t` (at `offset`): the tile loops'
  /// counters, the same on every core (KernelPlan::keepWhole).
  LxAddressAttr slabAddress(const PlanTensor &t, int64_t offset) {
    if (at.loop >= 0)
      offset += at.first.front() * slabStride(t, at.loop);
    SmallVector<int64_t> strides = scope.memStrides(
        [&](int64_t l) { return slabStride(t, l) * tilesPerIteration(l); });
    return LxAddressAttr::get(ctx, offset, strides, 0);
  }

  /// An LX address for buffer `idx` at the current loop depth.
  LxAddressAttr lxAddress(int64_t idx) {
    const PlanBuffer &buf = plan.buffers[idx];
    if (const PlanTensor *t = slabIn(idx))
      return slabAddress(*t, buf.offset);
    if (at.copy >= 0)
      return LxAddressAttr::get(
          ctx, buf.offset + at.copy % buf.copies * buf.bytes, {}, 0);
    // Inside the accumulation loop only the inputs it streams rotate with
    // it; an input fixed along it (a mean subtracted from every row tile)
    // and an accumulator (kept as a result, hence several copies) were
    // loaded or are kept around it, and rotate with the tile loop there.
    bool streamed =
        llvm::any_of(llvm::seq<unsigned>(0, numInputs()), [&](unsigned i) {
          return plan.tensorBuffer[i] == idx && plan.tensors[i].variesInAccLoop;
        });
    if (inAccLoop && !streamed)
      return scope.lx(buf.offset, buf.bytes, buf.copies,
                      int64_t(scope.depth()) - 2);
    return scope.lx(buf.offset, buf.bytes, buf.copies, rotateLevel);
  }

  /// The edge clamp of argument `argIndex` along loop `l`.
  ClampAttr loopClamp(int64_t l, int64_t argIndex) {
    const PlanLoop &loop = plan.loops[l];
    if (!loop.hasEdge())
      return nullptr;
    return scope.clamp(l, argIndex, loop.tile * tilesPerIteration(l), loop.size,
                       perCore([&](int64_t c) { return startsOf(c)[l]; }));
  }

  /// Loads of a tile's streamed inputs: those fixed along the accumulation
  /// loop, or those that vary along it.
  void emitLoads(bool variesInAccLoop) {
    emitLoadsOf([&](const PlanTensor &t) {
      return !t.hoisted && t.variesInAccLoop == variesInAccLoop;
    });
  }

  /// Loads of the inputs `which` picks that move bytes, in load order;
  /// those only the first core of a K-split's k group reads, on those
  /// cores (after the others).
  void emitLoadsOf(function_ref<bool(const PlanTensor &)> which) {
    for (bool firstOnly : {false, true}) {
      SmallVector<unsigned> inputs;
      for (unsigned i : loadOrder()) {
        const PlanTensor &t = plan.tensors[i];
        if (which(t) && t.movesBytes() &&
            plan.readByFirstOfKGroup(t) == firstOnly)
          inputs.push_back(i);
      }
      if (inputs.empty())
        continue;
      (void)guarded([&](int64_t c) { return !firstOnly || firstOfKGroup(c); },
                    [&] {
                      for (unsigned i : inputs)
                        emitTransfer(i, /*store=*/false);
                      return success();
                    });
    }
  }

  /// Whether core `c` finishes its tiles: the first core of its k group
  /// under a K-split, every core otherwise.
  bool firstOfKGroup(int64_t c) const {
    return plan.kSplit() == 1 || plan.splitCoord(c, plan.accLoop) == 0;
  }

  /// The body ops inside the accumulation loop, or those after it (all of
  /// them without one).
  LogicalResult emitValues(bool inner) {
    for (auto &[value, pv] : plan.values)
      if ((plan.accLoop >= 0 && pv.inner) == inner && failed(emitOp(pv)))
        return failure();
    return success();
  }

  void emitStores() {
    for (unsigned j = 0; j < plan.kernel.getNumResults(); ++j)
      emitResult(numInputs() + j);
  }

  /// One tile, serialized: its loads, the accumulation loop (streaming its
  /// loads through rotating buffers when it is a hardware loop), the
  /// epilogue, the stores.
  LogicalResult emitTile() {
    emitLoads(/*variesInAccLoop=*/false);
    bool looped = plan.accLoop >= 0 && llvm::is_contained(hw, plan.accLoop);
    if (looped)
      openLoops({plan.accLoop});
    inAccLoop = looped;
    emitLoads(/*variesInAccLoop=*/true);
    if (failed(emitValues(/*inner=*/true)))
      return failure();
    inAccLoop = false;
    if (looped)
      closeLoops(1);
    emitPartialSums();
    // With a K-split only the first core of each k group has the sums.
    return guarded([&](int64_t c) { return firstOfKGroup(c); },
                   [&] {
                     if (failed(emitValues(/*inner=*/false)))
                       return failure();
                     emitStores();
                     return success();
                   });
  }

  /// A K-split's reduction (KernelPlan::kSplit) down the partial-sum ring:
  /// the core at k coordinate j adds the sums of the cores after it,
  /// received from core + 1, to its own and passes them on to core - 1, so
  /// that the first core of the group ends with the tile's sums.
  void emitPartialSums() {
    if (plan.kSplit() <= 1)
      return;
    for (auto &[v, pv] : plan.values) {
      if (!isa<MatmulOp>(pv.op))
        continue;
      int64_t bytes = pv.rows * pv.sticks * stickBytes();
      int64_t buffer = plan.valueBuffer.lookup(v);
      emitPartialSumTransfer<RingRecvOp>(buffer, bytes, /*toward=*/+1);
      emitPartialSumTransfer<RingSendOp>(buffer, bytes, /*toward=*/-1);
    }
  }

  /// On every core whose k group has a core at `toward` from it, a
  /// partial-sum transfer of `bytes` of buffer `buffer` with that core (an
  /// accumulating receive, or a send).
  template <typename RingOp>
  void emitPartialSumTransfer(int64_t buffer, int64_t bytes, int64_t toward) {
    int64_t g = plan.kSplit();
    auto peer = [&](int64_t c) -> std::optional<int64_t> {
      int64_t j = plan.splitCoord(c, plan.accLoop) + toward;
      return j >= 0 && j < g ? std::optional<int64_t>(c + toward)
                             : std::nullopt;
    };
    (void)guarded([&](int64_t c) { return peer(c).has_value(); },
                  [&] {
                    int64_t slot = scope.params.slot(perCore(
                        [&](int64_t c) { return peer(c).value_or(0); }));
                    RingOp::create(b, loc, lxAddress(buffer), i64(0),
                                   slot >= 0 ? i64(slot) : IntegerAttr(),
                                   i64(0), i64(bytes), b.getUnitAttr(),
                                   flag(std::is_same_v<RingOp, RingRecvOp>));
                    return success();
                  });
  }

  /// A pipelined tile's loads (its accumulation loop, if any, is one step).
  void emitTileLoads() {
    emitLoads(/*variesInAccLoop=*/false);
    emitLoads(/*variesInAccLoop=*/true);
  }

  /// A pipelined tile's compute and stores.
  LogicalResult emitTileWork() {
    if (failed(emitValues(/*inner=*/true)) ||
        failed(emitValues(/*inner=*/false)))
      return failure();
    emitStores();
    return success();
  }

  /// Points the instructions emitted next at tile `first[c] + iv * stride`
  /// of the pipelined loop, in buffer copy `copy`.
  void moveTo(SmallVector<int64_t> first, int64_t stride, int64_t copy) {
    at.first = std::move(first);
    at.stride = stride;
    at.copy = copy;
  }

  /// Emits `body` for the cores where `when(c)` holds.
  LogicalResult guarded(function_ref<bool(int64_t)> when,
                        function_ref<LogicalResult()> body) {
    SmallVector<int64_t> runs = perCore([&](int64_t c) { return when(c); });
    if (llvm::all_of(runs, [](int64_t r) { return r == 0; }))
      return success();
    bool everyCore = llvm::all_of(runs, [](int64_t r) { return r == 1; });
    std::optional<int64_t> outside = rotateLevel;
    if (!everyCore) {
      if (!rotateLevel)
        rotateLevel = int64_t(scope.depth()) - 1;
      scope.openGuard(runs);
    }
    LogicalResult result = body();
    if (!everyCore)
      scope.closeLoop();
    rotateLevel = outside;
    return result;
  }

  /// The tiles of loop `p` software-pipelined over `d` (the depth) copies
  /// of every streamed buffer: tile t lives in copy t mod d, and the loads
  /// of tile t+1 are issued before the compute and stores of tile t, so the
  /// DMA queue loads ahead while SFP/PT work and LX interlocks order the
  /// rest. A rotating LX address cannot name "the copy of the next
  /// iteration" (its offset is taken modulo the wrap after the base is
  /// added), so the loop body holds d tiles with fixed copies:
  ///
  ///   load(0)                                  copy 0
  ///   loop (n-1)/d times:   for b < d: load(t+b+1); work(t+b)   (t = d*iv)
  ///   the last 1..d tiles:  for b < d: load(m+b+1); work(m+b)   (m = d*rounds)
  ///
  /// where each instruction of the last group runs on the cores that have
  /// that tile (a guard loop when the cores' tile counts differ).
  LogicalResult emitPipelined(int64_t p) {
    int64_t d = plan.schedule.getDepth();
    SmallVector<int64_t> tiles =
        perCore([&](int64_t c) { return shares[c].tiles[p]; });
    SmallVector<int64_t> rounds =
        perCore([&](int64_t c) { return (tiles[c] - 1) / d; });
    auto same = [&](int64_t v) {
      return SmallVector<int64_t>(tiles.size(), v);
    };
    at.loop = p;

    moveTo(same(0), 1, 0);
    emitTileLoads();

    if (llvm::any_of(rounds, [](int64_t r) { return r > 0; })) {
      scope.openLoop(rounds, p);
      for (int64_t b = 0; b < d; ++b) {
        moveTo(same(b + 1), d, (b + 1) % d);
        emitTileLoads();
        moveTo(same(b), d, b);
        if (failed(emitTileWork()))
          return failure();
      }
      scope.closeLoop();
    }

    // Tile d*rounds + b, on the cores that have it.
    auto last = [&](int64_t b) {
      return perCore([&](int64_t c) { return d * rounds[c] + b; });
    };
    auto has = [&](int64_t b) {
      return [&, b](int64_t c) { return d * rounds[c] + b < tiles[c]; };
    };
    for (int64_t b = 0; b < d; ++b) {
      if (b + 1 < d && failed(guarded(has(b + 1), [&] {
            moveTo(last(b + 1), 1, b + 1);
            emitTileLoads();
            return success();
          })))
        return failure();
      if (failed(guarded(has(b), [&] {
            moveTo(last(b), 1, b);
            return emitTileWork();
          })))
        return failure();
    }
    return success();
  }

  /// The inputs in the order their loads are issued: a table read through
  /// a gather after the indices it reads.
  SmallVector<unsigned> loadOrder() const {
    SmallVector<unsigned> order;
    for (bool gathered : {false, true})
      for (unsigned i = 0; i < numInputs(); ++i)
        if ((plan.tensors[i].gatherIndex >= 0) == gathered)
          order.push_back(i);
    return order;
  }

  /// DMA of tensor `ti`'s tile between device memory and its LX buffer.
  void emitTransfer(unsigned ti, bool store) {
    const PlanTensor &t = plan.tensors[ti];
    int64_t memParam = scope.params.slot(
        perCore([&](int64_t c) { return t.offsetOf(startsOf(c)); }));
    SmallVector<int64_t> memStrides = scope.memStrides([&](int64_t l) {
      return t.loopBytes[l] ? tileStride(t, l) * tilesPerIteration(l) : 0;
    });
    auto mem = MemAddressAttr::get(ctx, symbols[ti], 0, memStrides, memParam);
    if (t.gatherIndex >= 0)
      return emitGather(t, mem, lxAddress(plan.tensorBuffer[ti]));
    if (t.runLoop >= 0)
      return emitIndexRun(t, mem, lxAddress(plan.tensorBuffer[ti]));
    // A slab moves whole: all of the core's rows and sticks.
    int64_t rows = t.lxRows(), sticks = t.lxSticks();
    bool contiguous = t.stickPitch == stickBytes();
    SmallVector<int64_t> box = {rows, contiguous ? 1 : sticks, 1};
    SmallVector<int64_t> pitch = {t.rowPitch, contiguous ? 0 : t.stickPitch, 0};
    int64_t run = contiguous ? sticks * stickBytes() : stickBytes();
    LxAddressAttr lx =
        t.slab ? LxAddressAttr::get(
                     ctx, plan.buffers[plan.tensorBuffer[ti]].offset, {}, 0)
               : lxAddress(plan.tensorBuffer[ti]);
    ClampAttr clamp = nullptr;
    if (t.rowLoop >= 0 && !t.slab)
      clamp = loopClamp(t.rowLoop, 0);
    else if (t.rowLoop >= 0)
      clamp = scope.clamp(
          t.rowLoop, 0, rows, plan.loops[t.rowLoop].size,
          perCore([&](int64_t c) { return shares[c].start[t.rowLoop]; }));
    if (store)
      DmaStoreOp::create(b, loc, mem, lx, b.getDenseI64ArrayAttr(box),
                         b.getDenseI64ArrayAttr(pitch), i64(run), clamp,
                         UnitAttr(), IntegerAttr());
    else
      DmaLoadOp::create(b, loc, mem, lx, b.getDenseI64ArrayAttr(box),
                        b.getDenseI64ArrayAttr(pitch), i64(run), clamp,
                        flag(t.sharers > 1), IntegerAttr());
  }

  /// A gather's indices for the tile: one exact run of elements, clamped
  /// in bytes at the edge of their loop.
  void emitIndexRun(const PlanTensor &t, MemAddressAttr mem, LxAddressAttr lx) {
    const PlanLoop &loop = plan.loops[t.runLoop];
    int64_t eb = t.elementBytes;
    ClampAttr clamp;
    if (loop.hasEdge())
      clamp = scope.clamp(
          t.runLoop, 3, loop.tile * tilesPerIteration(t.runLoop) * eb,
          loop.size * eb,
          perCore([&](int64_t c) { return startsOf(c)[t.runLoop] * eb; }));
    DmaLoadOp::create(b, loc, mem, lx, b.getDenseI64ArrayAttr({1, 1, 1}),
                      b.getDenseI64ArrayAttr({0, 0, 0}), i64(loop.tile * eb),
                      clamp, flag(t.sharers > 1), IntegerAttr());
  }

  /// The rows of a table read through a gather: those its indices' tile
  /// names (loaded before it), each `sticks` sticks from `mem` on.
  void emitGather(const PlanTensor &t, MemAddressAttr mem, LxAddressAttr lx) {
    const PlanTensor &indices = plan.tensors[t.gatherIndex];
    ClampAttr clamp = t.rowLoop >= 0 ? loopClamp(t.rowLoop, 0) : nullptr;
    DmaGatherOp::create(b, loc, mem, lx,
                        lxAddress(plan.tensorBuffer[t.gatherIndex]),
                        TypeAttr::get(indices.type.getElementType()),
                        i64(t.rows), i64(t.type.getDimSize(0)), i64(t.rowPitch),
                        i64(t.sticks * stickBytes()), clamp);
  }

  /// The PT matmul accumulating one k step (its operands are kernel
  /// inputs, classify checked).
  void emitMatmul(const PlanValue &pv) {
    auto matmul = cast<MatmulOp>(pv.op);
    int64_t lhsIdx = aliasedInput(matmul.getLhs());
    int64_t rhsIdx = aliasedInput(matmul.getRhs());
    const PlanTensor &lhs = plan.tensors[lhsIdx];
    const PlanTensor &rhs = plan.tensors[rhsIdx];
    Value acc = pv.op->getResult(0);
    int64_t accIdx = plan.valueBuffer.lookup(acc);
    const PlanLoop &k = plan.loops[plan.accLoop];
    int64_t kLevel = levelOf(plan.accLoop);
    PtMatmulOp::create(
        b, loc, lxAddress(accIdx), lhsAddress(lhs, lhsIdx),
        lxAddress(plan.tensorBuffer[rhsIdx]), i64(pv.rows), i64(k.tile),
        i64(plan.stickTile()),
        b.getDenseI64ArrayAttr({pitchOf(accIdx, pv.sticks * stickBytes()),
                                lhs.sticks * stickBytes(),
                                rhs.sticks * stickBytes()}),
        TypeAttr::get(pv.lxElementType),
        TypeAttr::get(lhs.type.getElementType()),
        TypeAttr::get(rhs.type.getElementType()), flag(kLevel >= 0),
        kLevel >= 0 ? i64(kLevel) : IntegerAttr(), loopClamp(plan.accLoop, 1));
  }

  /// The matmul's lhs at the current k step: a resident lhs holds all of
  /// k, and each step reads the next k tile of its rows.
  LxAddressAttr lhsAddress(const PlanTensor &lhs, int64_t idx) {
    int64_t kLevel = levelOf(plan.accLoop);
    if (!lhs.resident || kLevel < 0)
      return lxAddress(plan.tensorBuffer[idx]);
    SmallVector<int64_t> strides(kLevel + 1, 0);
    strides.back() =
        plan.loops[plan.accLoop].tile / lhs.elementsPerStick * stickBytes();
    return LxAddressAttr::get(ctx, plan.buffers[plan.tensorBuffer[idx]].offset,
                              strides, 0);
  }

  /// LX operand of a body value or kernel input, as an SFP source for an
  /// op over `rows` x `cols`.
  struct Source {
    LxAddressAttr lx;
    Type type;
    int64_t pitch;
    bool bcastCol;
  };

  Source sourceOf(Value v, int64_t rows, int64_t cols) {
    // An alias is its operand's tile, broadcasts included (a transposed
    // input read along fewer loops than the kernel's).
    while (!isa<BlockArgument>(v) && plan.values.lookup(v).alias)
      v = v.getDefiningOp()->getOperand(0);
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      const PlanTensor &t = plan.tensors[arg.getArgNumber()];
      int64_t pitch = t.rows == 1 && rows > 1 ? 0 : t.rowBytes(stickBytes());
      return {lxAddress(plan.tensorBuffer[arg.getArgNumber()]),
              t.type.getElementType(), pitch, t.stickLoop < 0 && cols > 1};
    }
    const PlanValue &pv = plan.values.lookup(v);
    int64_t idx = plan.valueBuffer.lookup(v);
    int64_t pitch =
        pv.rows == 1 && rows > 1 ? 0 : pitchOf(idx, pv.sticks * stickBytes());
    return {lxAddress(idx), pv.lxElementType, pitch,
            pv.shape == TileShape::RowReduced && cols > 1};
  }

  template <typename OpT>
  void emitSfpOp(StringRef fn, LxAddressAttr dst, Type dstType,
                 int64_t dstPitch, int64_t rows, int64_t cols, Source s0,
                 std::optional<Source> s1, bool accumulate = false,
                 bool reduceRows = false, std::optional<int64_t> init = {},
                 ClampAttr clamp = {}) {
    OpT::create(
        b, loc, b.getStringAttr(fn), dst, s0.lx, s1 ? s1->lx : LxAddressAttr(),
        i64(rows), i64(cols),
        b.getDenseI64ArrayAttr({dstPitch, s0.pitch, s1 ? s1->pitch : 0}),
        TypeAttr::get(dstType), TypeAttr::get(s0.type),
        s1 ? TypeAttr::get(s1->type) : TypeAttr(), flag(s0.bcastCol),
        flag(s1 && s1->bcastCol), flag(accumulate), flag(reduceRows),
        init ? i64(*init) : IntegerAttr(), clamp);
  }

  LogicalResult emitOp(const PlanValue &pv) {
    if (pv.alias)
      return success();
    Operation *op = pv.op;
    TileLowering lowering = cast<ComputeOpInterface>(op).getTileLowering();
    Value result = op->getResult(0);
    int64_t dstIdx = plan.valueBuffer.lookup(result);
    LxAddressAttr dst = lxAddress(dstIdx);
    int64_t dstPitch = pitchOf(dstIdx, pv.sticks * stickBytes());
    int64_t rows = pv.rows;
    int64_t cols = pv.shape == TileShape::RowReduced ? 1 : plan.stickTile();
    Type dt = pv.lxElementType;
    auto src = [&](unsigned i) {
      return sourceOf(op->getOperand(i), rows, cols);
    };
    StringRef fn = lowering.function;
    switch (lowering.form) {
    case TileForm::PtMatmul:
      emitMatmul(pv);
      return success();
    case TileForm::SfpReduce:
      emitReduce(pv, fn, dst, dstPitch, cols);
      return success();
    case TileForm::SfpTranspose: {
      // Moving the stick dim: transpose the tile. The source's rows are the
      // result's sticks.
      Source s = sourceOf(op->getOperand(0), plan.stickTile(), plan.rowTile());
      s.pitch = plan.tensors[0].rowBytes(stickBytes());
      emitSfpOp<SfpTransposeOp>(fn, dst, dt, dstPitch, plan.stickTile(),
                                plan.rowTile(), s, std::nullopt);
      return success();
    }
    case TileForm::SfpUnary:
      emitSfpOp<SfpUnaryOp>(fn, dst, dt, dstPitch, rows, cols, src(0),
                            std::nullopt);
      return success();
    case TileForm::SfpBinary:
      emitSfpOp<SfpBinaryOp>(fn, dst, dt, dstPitch, rows, cols, src(0), src(1));
      return success();
    case TileForm::SfpSelect:
      // dst = false; dst = cond ? true : dst.
      emitSfpOp<SfpUnaryOp>("copy", dst, dt, dstPitch, rows, cols, src(2),
                            std::nullopt);
      emitSfpOp<SfpSelectOp>(fn, dst, dt, dstPitch, rows, cols, src(0), src(1));
      return success();
    case TileForm::None:
      break;
    }
    return op->emitError("no SFP lowering for this op");
  }

  /// A reduction along the stick (whole rows, over the logical extent:
  /// padding never counts), along the rows of the accumulation loop's
  /// tiles, or along the rows of a tile that holds all of them.
  void emitReduce(const PlanValue &pv, StringRef fn, LxAddressAttr dst,
                  int64_t dstPitch, int64_t cols) {
    Value input = pv.op->getOperand(0);
    Type dt = pv.lxElementType;
    if (pv.shape == TileShape::RowReduced) {
      int64_t n = plan.loops[plan.stickLoop].size;
      emitSfpOp<SfpReduceOp>(fn, dst, dt, dstPitch, pv.rows, n,
                             sourceOf(input, pv.rows, n), std::nullopt);
      return;
    }
    if (plan.accLoop < 0) {
      Source s = sourceOf(input, plan.rowTile(), cols);
      emitSfpOp<SfpReduceOp>(fn, dst, dt, dstPitch, plan.rowTile(), cols, s,
                             std::nullopt, /*accumulate=*/false,
                             /*reduceRows=*/true);
      return;
    }
    int64_t level = levelOf(plan.accLoop);
    int64_t inRows = plan.loops[plan.accLoop].tile;
    Source s = sourceOf(input, inRows, cols);
    emitSfpOp<SfpReduceOp>(
        fn, dst, dt, dstPitch, inRows, cols, s, std::nullopt, level >= 0,
        /*reduceRows=*/true,
        level >= 0 ? std::optional<int64_t>(level) : std::nullopt,
        loopClamp(plan.accLoop, 0));
  }

  /// Stores result tensor `ti`, converting it first when its LX value has
  /// another element type or tile (matmul accumulators, broadcasts).
  void emitResult(unsigned ti) {
    const PlanTensor &t = plan.tensors[ti];
    Value v = plan.kernel.getYield().getOperand(t.index);
    const PlanValue &pv = plan.values.lookup(v);
    int64_t buffer = plan.tensorBuffer[ti];
    if (buffer != plan.valueBuffer.lookup(v)) {
      int64_t cols = pv.shape == TileShape::RowReduced ? 1 : plan.stickTile();
      Source s = sourceOf(v, t.rows, cols);
      emitSfpOp<SfpUnaryOp>("copy", lxAddress(buffer), t.type.getElementType(),
                            pitchOf(buffer, t.rowBytes(stickBytes())), t.rows,
                            cols, s, std::nullopt);
    }
    // A result kept in LX for its readers stays in its buffer; a slab is
    // stored after the last tile (storeSlabs).
    if (t.movesBytes() && !t.slab)
      emitTransfer(ti, /*store=*/true);
  }

  /// Stores the slabs of results kept whole per core that go to device
  /// memory (`dma`, or `lx_dma` kept as well): each core's rows and sticks
  /// in one transfer, after its last tile.
  void storeSlabs() {
    at = TilePosition();
    for (unsigned ti = numInputs(); ti < plan.tensors.size(); ++ti)
      if (plan.tensors[ti].slab && plan.tensors[ti].movesBytes())
        emitTransfer(ti, /*store=*/true);
  }
};

} // namespace

LogicalResult lowerKernel(const KernelPlan &plan, OpBuilder &b, StringRef name,
                          ArrayRef<FlatSymbolRefAttr> tensorSymbols,
                          ArrayRef<RingExchange> gathers) {
  // Data-movement and attention kernels read no `lx` or `ring` input
  // (KernelPlan::readDataPaths).
  if (plan.isDataMovement())
    return lowerDataMovement(plan, b, name, tensorSymbols);
  if (plan.kind == KernelKind::Attention)
    return lowerAttention(plan, b, name, tensorSymbols);
  KernelLowering lowering(plan, b, tensorSymbols, gathers);
  return lowering.lower(name);
}

} // namespace spyre
