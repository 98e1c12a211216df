//===- AttentionKernel.cpp - Flash attention in one kernel ----------------===//
//
// The plan, cost and program of a kernel holding one `spyre.attention`
// (loops: batch..., m, ev, s, e). Per core, for each tile of query rows:
//
//   load Q; m = lowest, l = 0, O = 0     (with sinks: m = sink, l = 1, the
//                                         sink's exp(sink - m))
//   for each tile of key positions (K, V and mask tiles streamed through
//   rotating buffers):
//     Kt = transpose(K)                     (SFP: the PT array wants K^T
//                                            sticked along the positions)
//     S = Q Kt * scale (+ mask)             (PT, then SFP; fp32)
//     m' = max(m, rowmax(S), lowest)        (lowest: a fully masked row
//                                            keeps exp() finite)
//     a = exp(m - m');  S = exp(S - m')     (S is now P)
//     l = l * a + rowsum(S);  O = O * a
//     O += P' V                             (P' = P rounded to V's type)
//     m = m'
//   out = O / max(l, smallest)              (a fully masked row gives 0)
//   store out
//
// The scores and probabilities never leave LX. The last kernel input holds
// the constants the SFP reads (the hardware has no immediates): [scale,
// lowest f32, smallest normal f32, 0], made by createAttentionConstants.
// Edges: the last key tile's extra columns are excluded by clamping the
// reductions' columns and the second product's k; extra query rows are
// computed and not stored.
//
// Causal, a core's query tiles are two runs, one early and one late, so
// every core reads about as many key tiles (queryRuns).
//
// Held K and V (`hold = [k, v]`, when a core runs several query tiles):
// loaded once per head, a few key tiles a load (the count the cost model
// finds fastest), and read in place instead of streamed. Where they fit,
// the head's query tiles have a copy each of Q and the result: the loads
// alternate between query tiles and key tiles, so the first tile's work
// starts after three loads, and no query tile's load waits behind a store
// on the core's one DMA queue.
//
//===----------------------------------------------------------------------===//

#include "ProgramScope.h"
#include "spyre/Transforms/CostModel.h"
#include "spyre/Transforms/KernelLowering.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>

using namespace mlir;

namespace spyre {

Value createAttentionConstants(OpBuilder &b, AttentionOp op) {
  // A causal kernel's diagonal mask compares positions up to a key tile.
  int64_t positions = 0;
  if (op.getCausal())
    positions =
        cast<RankedTensorType>(op.getKey().getType()).getShape().end()[-2];
  SmallVector<float> values(kIota + positions, 0);
  values[kScale] = float(op.getScale().convertToDouble());
  values[kLowest] = std::numeric_limits<float>::lowest();
  values[kSmallest] = std::numeric_limits<float>::min();
  values[kNegInf] = -std::numeric_limits<float>::infinity();
  values[kOne] = 1.0f;
  for (int64_t i = 0; i < positions; ++i)
    values[kIota + i] = float(i);
  auto plain = RankedTensorType::get({int64_t(values.size())}, b.getF32Type());
  auto type = RankedTensorType::get(
      plain.getShape(), plain.getElementType(),
      LayoutAttr::getCanonical(plain, getArch(op).stickBytes));
  return ConstantOp::create(b, op.getLoc(), type,
                            DenseElementsAttr::get(plain, ArrayRef(values)));
}

namespace {

/// The loops of an attention kernel: (batch..., m, ev, s, e).
struct AttentionLoops {
  int64_t batch, m, ev, s, e;
  explicit AttentionLoops(int64_t n)
      : batch(n - 4), m(n - 4), ev(n - 3), s(n - 2), e(n - 1) {}
};

/// The kernel input of each operand of the attention op (inputs may be
/// shared: key and value can be one tensor), and of the constants.
struct AttentionInputs {
  AttentionOp op;
  unsigned q, k, v, consts;
  int64_t mask = -1, sinks = -1;
  /// The query's rotary embedding (rope).
  int64_t cos = -1, sin = -1, rotation = -1;
};

AttentionInputs inputsOf(KernelOp kernel) {
  AttentionInputs in;
  in.op = *kernel.getBodyBlock().getOps<AttentionOp>().begin();
  // An operand may be an input read permuted (a transpose in the kernel's
  // prologue moves no data: the input's map reads it so).
  auto arg = [](Value v) {
    while (auto move = v.getDefiningOp<TransposeOp>())
      v = move.getInput();
    return cast<BlockArgument>(v).getArgNumber();
  };
  in.q = arg(in.op.getQuery());
  in.k = arg(in.op.getKey());
  in.v = arg(in.op.getValue());
  if (in.op.getMask())
    in.mask = arg(in.op.getMask());
  if (in.op.getSinks())
    in.sinks = arg(in.op.getSinks());
  if (in.op.getRopeCos()) {
    in.cos = arg(in.op.getRopeCos());
    in.sin = arg(in.op.getRopeSin());
    in.rotation = arg(in.op.getRopeRotation());
  }
  in.consts = kernel.getInputs().size() - 1;
  return in;
}

int64_t bytesOf(Type t) { return getElementBytes(t); }

/// Consecutive query tiles a core runs: the first and how many.
struct QueryRun {
  int64_t first, tiles;
};

} // namespace

/// The query tiles core `core` runs, in runs of consecutive tiles (as many
/// runs on every core). Causal, query tile i reads i + 1 key tiles, so a
/// split of the T query tiles over S cores in S consecutive shares gives
/// the last core 2S - 1 times the first one's work: when every core gets
/// two tiles or more, the tiles are dealt in 2S consecutive chunks, core c
/// taking chunk c and chunk 2S - 1 - c (an early, short one with a late,
/// long one; uneven, the early chunks are the larger). Otherwise the
/// core's share.
static SmallVector<QueryRun, 2> queryRuns(const KernelPlan &plan,
                                          const AttentionLoops &L, bool causal,
                                          int64_t core) {
  const PlanLoop &m = plan.loops[L.m];
  int64_t chunks = 2 * m.split, t = m.numTiles();
  if (!causal || m.split == 1 || t < chunks) {
    CoreShare s = plan.share(core);
    return {{s.start[L.m] / m.tile, s.tiles[L.m]}};
  }
  // Chunks of uneven sizes: the larger ones first, where tiles are cheap.
  auto bound = [&](int64_t i) { return (i * t + chunks - 1) / chunks; };
  auto chunk = [&](int64_t i) {
    return QueryRun{bound(i), bound(i + 1) - bound(i)};
  };
  int64_t c = plan.splitCoord(core, L.m);
  return {chunk(c), chunk(chunks - 1 - c)};
}

//===----------------------------------------------------------------------===//
// Plan
//===----------------------------------------------------------------------===//

/// Describes `value` read through `map`: its bytes per element of each loop
/// (per stick along its stick loop), its stick and row loops and pitches.
/// Broadcast dims (constant 0 in the map) move nothing.
static PlanTensor attentionTensor(const KernelPlan &plan, Value value,
                                  AffineMap map, bool isResult, unsigned index,
                                  int64_t rowLoop) {
  PlanTensor t = PlanTensor::of(value, isResult, index, plan.loops.size());
  LayoutAttr layout = getLayout(t.type);
  ArrayRef<int64_t> shape = t.type.getShape();
  if (layout.getStickDim() >= 0)
    t.stickPitch =
        layout.getDimStride(shape, layout.getStickDim()) * t.elementBytes;
  for (auto [d, expr] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      continue;
    int64_t l = dim.getPosition();
    t.loopBytes[l] = layout.getDimStride(shape, d) * t.elementBytes;
    if (int64_t(d) == layout.getStickDim())
      t.stickLoop = l;
    else if (l == rowLoop) {
      t.rowLoop = l;
      t.rowPitch = t.loopBytes[l];
    }
  }
  int64_t cols = t.stickLoop >= 0 ? plan.loops[t.stickLoop].tile : 1;
  t.sticks = llvm::divideCeil(cols, t.elementsPerStick);
  t.rows = t.rowLoop >= 0 ? plan.loops[t.rowLoop].tile : 1;
  return t;
}

/// Reports `msg` at the plan's kernel when `emitErrors`; always fails.
static LogicalResult planError(const KernelPlan &plan, bool emitErrors,
                               const Twine &msg) {
  if (emitErrors)
    plan.kernel.emitError(msg);
  return failure();
}

/// Loop `l` of the kernel's space under the plan's schedule, with its role
/// in the attention nest.
static PlanLoop attentionLoop(const KernelPlan &plan, const AttentionLoops &L,
                              int64_t l) {
  PlanLoop loop;
  loop.size = plan.kernel.getSpace()[l];
  loop.tile = plan.schedule.getTile()[l];
  loop.split = plan.schedule.getSplit()[l];
  loop.reduction = l >= L.s;
  loop.role = l == L.m    ? LoopRole::Row
              : l == L.ev ? LoopRole::Stick
              : l == L.s  ? LoopRole::Reduction
                          : LoopRole::Outer;
  return loop;
}

/// Batch loops have tiles of 1, ev and e are whole, and only batch and
/// query loops are split (at most once per tile).
static LogicalResult checkAttentionLoop(const KernelPlan &plan,
                                        const AttentionLoops &L, int64_t l,
                                        const PlanLoop &loop, bool emitErrors) {
  bool whole = l == L.ev || l == L.e;
  if ((l < L.m && loop.tile != 1) || (whole && loop.tile != loop.size))
    return planError(plan, emitErrors,
                     "attention loop " + Twine(l) + " cannot have tile " +
                         Twine(loop.tile));
  if ((l >= L.ev && loop.split != 1) || loop.split > loop.numTiles())
    return planError(plan, emitErrors,
                     "attention loop " + Twine(l) + " cannot be split " +
                         Twine(loop.split) + " ways");
  return success();
}

/// The plan's loops from the kernel's space and the schedule.
static LogicalResult
addAttentionLoops(KernelPlan &plan, const AttentionLoops &L, bool emitErrors) {
  int64_t n = plan.kernel.getSpace().size();
  if (int64_t(plan.schedule.getSplit().size()) != n ||
      int64_t(plan.schedule.getTile().size()) != n)
    return planError(plan, emitErrors,
                     "schedule does not match the kernel's " + Twine(n) +
                         " loops");
  for (int64_t l = 0; l < n; ++l) {
    plan.loops.push_back(attentionLoop(plan, L, l));
    if (failed(checkAttentionLoop(plan, L, l, plan.loops.back(), emitErrors)))
      return failure();
  }
  return success();
}

/// The kernel's inputs (K and V in rows of key positions, the rope's
/// rotation in rows of the head dim, the others in rows of queries), then
/// its result.
static void addAttentionTensors(KernelPlan &plan, const AttentionInputs &in,
                                const AttentionLoops &L) {
  KernelOp kernel = plan.kernel;
  SmallVector<AffineMap> maps = kernel.getIndexingMapList();
  unsigned numInputs = kernel.getInputs().size();
  for (auto [i, v] : llvm::enumerate(kernel.getInputs())) {
    int64_t row = i == in.k || i == in.v      ? L.s
                  : int64_t(i) == in.rotation ? L.e
                                              : L.m;
    plan.tensors.push_back(attentionTensor(plan, v, maps[i], false, i, row));
  }
  plan.tensors.push_back(attentionTensor(plan, kernel.getResult(0),
                                         maps[numInputs], true, 0, L.m));
}

/// Causal: a query tile's diagonal lies in one key tile, the same for
/// every query tile (square tiles), or there is one query tile. Sizes the
/// constants tile to the positions of a key tile.
static LogicalResult checkCausalTiles(KernelPlan &plan,
                                      const AttentionInputs &in,
                                      const AttentionLoops &L,
                                      bool emitErrors) {
  const PlanLoop &m = plan.loops[L.m], &s = plan.loops[L.s];
  if (!(m.tile == s.tile || (m.numTiles() == 1 && m.tile <= s.tile)))
    return planError(plan, emitErrors,
                     "a causal attention needs square tiles (query tile " +
                         Twine(m.tile) + ", key tile " + Twine(s.tile) + ")");
  // The constants up to the positions of a key tile.
  plan.tensors[in.consts].sticks =
      llvm::divideCeil((kIota + s.tile) * 4, plan.arch.stickBytes);
  return success();
}

/// A mask tile starts on a stick: tiles along s are whole sticks of it.
static LogicalResult checkMaskTiles(const KernelPlan &plan,
                                    const AttentionInputs &in,
                                    const AttentionLoops &L, bool emitErrors) {
  const PlanTensor &mask = plan.tensors[in.mask];
  const PlanLoop &s = plan.loops[L.s];
  int64_t e = mask.elementsPerStick;
  if (mask.stickLoop == L.s && s.tile != s.size && s.tile % e != 0)
    return planError(plan, emitErrors,
                     "key tile " + Twine(s.tile) +
                         " is not a whole number of " + Twine(e) +
                         "-element mask sticks");
  return success();
}

/// The rope's tables and rotation are read as the PT array and the SFP
/// take them: sticks along the head dim, rows of the rotation in order
/// (the canonical layout; spyre-assign-layouts gives it to them).
static LogicalResult checkRopeLayouts(const KernelPlan &plan,
                                      const AttentionInputs &in,
                                      bool emitErrors) {
  for (int64_t ti : {in.cos, in.sin, in.rotation}) {
    RankedTensorType type = plan.tensors[ti].type;
    if (getLayout(type) != LayoutAttr::getCanonical(type, plan.arch.stickBytes))
      return planError(plan, emitErrors,
                       "attention rope input " + Twine(ti) +
                           " is not in the canonical layout");
  }
  return success();
}

/// Whether input `t` varies with a head but neither with the query nor the
/// key tiles (sinks, one logit per head): loaded once per head, before its
/// query tiles, into one buffer (the next head's load queues behind this
/// head's last store on the core's one DMA queue).
static bool loadedPerHead(const PlanTensor &t, const AttentionLoops &L) {
  return !t.isResult && !t.hoisted && !t.resident && !t.variesInAccLoop &&
         t.loopBytes[L.m] == 0;
}

/// Whether input `t` is loaded for every query tile (Q): held whole per
/// head, beside held keys and values.
static bool loadedPerQueryTile(const PlanTensor &t, const AttentionLoops &L) {
  return !t.isResult && !t.hoisted && !t.resident && !t.variesInAccLoop &&
         !loadedPerHead(t, L);
}

/// Whether `t` has a tile per query tile (Q, the result): with keys and
/// values held, each of a head's query tiles has its own copy when they
/// fit, so no tile waits for the store of an earlier one (the stores queue
/// behind the loads).
static bool perQueryTile(const PlanTensor &t, const AttentionLoops &L) {
  return t.isResult || loadedPerQueryTile(t, L);
}

/// What a core moves once, per head, per query tile, per key tile.
static void markAttentionTransfers(KernelPlan &plan, const AttentionLoops &L) {
  int64_t n = plan.loops.size();
  int64_t depth = plan.schedule.getDepth();
  SmallVector<int64_t> maxTiles = plan.maxTilesPerLoop();
  for (PlanTensor &t : plan.tensors) {
    t.hoisted = llvm::none_of(llvm::seq<int64_t>(0, n), [&](int64_t l) {
      return t.loopBytes[l] && maxTiles[l] > 1;
    });
    t.variesInAccLoop = t.loopBytes[L.s] != 0;
    t.copies = t.hoisted || loadedPerHead(t, L) ? 1 : depth;
    for (int64_t l = 0; l < n; ++l)
      if (!t.isResult && !t.loopBytes[l])
        t.sharers *= plan.loops[l].split;
  }
}

/// Adds a buffer of `rows` rows of `cols` elements of `et`; returns its
/// index.
static int64_t addAttentionBuffer(KernelPlan &plan, StringRef name,
                                  int64_t rows, int64_t cols, Type et,
                                  int64_t copies) {
  const Arch &arch = plan.arch;
  int64_t sticks = llvm::divideCeil(cols, arch.stickBytes / bytesOf(et));
  PlanBuffer buf;
  buf.name = name.str();
  buf.bytes =
      int64_t(llvm::alignTo(rows * sticks * arch.stickBytes, arch.lxAlignment));
  buf.copies = copies;
  plan.buffers.push_back(buf);
  return int64_t(plan.buffers.size() - 1);
}

/// Buffers: the tensors' tiles, then the kernel's own values.
static void addAttentionBuffers(KernelPlan &plan, AttentionInputs in,
                                const AttentionLoops &L) {
  for (const PlanTensor &t : plan.tensors)
    plan.tensorBuffer.push_back(addAttentionBuffer(
        plan, (t.isResult ? "out" : "in" + std::to_string(t.index)), t.rows,
        t.sticks * t.elementsPerStick, t.type.getElementType(), t.copies));
  MLIRContext *ctx = plan.kernel.getContext();
  Type f32 = Float32Type::get(ctx);
  Type kType = plan.tensors[in.k].type.getElementType();
  Type vType = plan.tensors[in.v].type.getElementType();
  const SmallVector<PlanLoop> &loops = plan.loops;
  int64_t mt = loops[L.m].tile, st = loops[L.s].tile;
  int64_t e = loops[L.e].size, ev = loops[L.ev].size;
  // Two copies of the per-key-tile values let the PT array compute the
  // next tile's scores while the SFP works on this tile's.
  int64_t perKeyTile =
      plan.schedule.getDepth() > 1 && loops[L.s].numTiles() > 1 ? 2 : 1;
  addAttentionBuffer(plan, "kt", e, st, kType, perKeyTile);
  addAttentionBuffer(plan, "s", mt, st, f32, perKeyTile);
  addAttentionBuffer(plan, "p", mt, st, vType, perKeyTile);
  addAttentionBuffer(plan, "o", mt, ev, f32, 1);
  for (StringRef stat : {"max", "newmax", "scale", "sum", "rowstat"})
    addAttentionBuffer(plan, stat, mt, 1, f32, 1);
  // The diagonal tile's mask: key position > query position.
  if (in.op.getCausal())
    addAttentionBuffer(plan, "above", mt, st, IntegerType::get(ctx, 1), 1);
  // The rope: the query tile times the rotation, then times sin.
  if (in.cos >= 0) {
    addAttentionBuffer(plan, "rope", mt, e, f32, 1);
    addAttentionBuffer(plan, "roped", mt, e,
                       plan.tensors[in.q].type.getElementType(), 1);
  }
}

/// Where each run of a core's query tiles starts in a held query buffer,
/// in tiles (the runs' longest on any core, one after the other), and the
/// buffer's tiles after the last run.
static SmallVector<int64_t, 3>
heldQuerySlots(const KernelPlan &plan, const AttentionLoops &L, bool causal) {
  SmallVector<int64_t, 3> slots = {0};
  for (int64_t c = 0; c < plan.numCores(); ++c)
    for (auto [r, run] : llvm::enumerate(queryRuns(plan, L, causal, c))) {
      if (slots.size() < r + 2)
        slots.push_back(0);
      slots[r + 1] = std::max(slots[r + 1], run.tiles);
    }
  for (size_t r = 1; r < slots.size(); ++r)
    slots[r] += slots[r - 1];
  return slots;
}

namespace {
/// One of a head's held loads: a query tile (by its slot in the held query
/// buffer) or a load of the held keys and values (by how many came before).
struct HeldLoad {
  bool query;
  int64_t index;
};
} // namespace

/// Whether the plan holds its keys and values.
static bool holdsKeysAndValues(const KernelPlan &plan) {
  return llvm::any_of(plan.tensors,
                      [](const PlanTensor &t) { return t.resident; });
}

/// The order of a head's held loads, keys and values `chunk` key tiles a
/// load, after `querySlots` held query slots (when the plan holds its
/// query tiles): query tiles and key loads alternate, so a query tile's
/// load comes just before the key tiles it reads first and the first
/// tile's work waits for its Q and one key load (its K and V tiles: three
/// DMAs), whatever the sizes of Q and K (grouped queries: Q is several
/// times K).
static SmallVector<HeldLoad> heldLoadOrder(const KernelPlan &plan,
                                           const AttentionLoops &L,
                                           int64_t querySlots, int64_t chunk) {
  if (!plan.heldQueryTiles)
    querySlots = 0;
  int64_t keyLoads = llvm::divideCeil(plan.loops[L.s].numTiles(), chunk);
  SmallVector<HeldLoad> order;
  for (int64_t p = 0; p < std::max(querySlots, keyLoads); ++p) {
    if (p < querySlots)
      order.push_back({true, p});
    if (p < keyLoads)
      order.push_back({false, p});
  }
  return order;
}

/// The keys and values the schedule holds: each buffer spans every key
/// position, loaded once per head. One copy: the next head's load queues
/// behind this head's last store on the core's one DMA queue, so a second
/// copy would not let it start earlier.
static LogicalResult
holdKeysAndValues(KernelPlan &plan, const AttentionLoops &L, bool emitErrors) {
  ArrayRef<int64_t> hold = plan.schedule.getHold();
  if (hold.empty())
    return success();
  SmallVector<int64_t> holdable = plan.attentionHoldableInputs();
  const PlanLoop &s = plan.loops[L.s];
  for (int64_t input : hold) {
    if (!llvm::is_contained(holdable, input))
      return planError(
          plan, emitErrors,
          "schedule holds input " + Twine(input) +
              " of an attention kernel, but only its keys and values can be "
              "held, when a core runs several query tiles of several key "
              "tiles (causal: split over at most 8 cores)");
    PlanTensor &t = plan.tensors[input];
    t.rows = s.numTiles() * s.tile;
    t.resident = true;
    t.copies = 1;
  }
  return success();
}

/// Gives each of a head's query tiles its own copy of Q and the result
/// (heldQueryTiles) when they fit LX beside the held keys and values;
/// otherwise they rotate through the schedule's copies, and a query tile's
/// load queues behind the previous one's store.
static void holdQueryTiles(KernelPlan &plan, AttentionInputs in,
                           const AttentionLoops &L) {
  int64_t slots = heldQuerySlots(plan, L, in.op.getCausal()).back();
  auto give = [&](int64_t copies) {
    for (PlanTensor &t : plan.tensors)
      if (perQueryTile(t, L))
        t.copies = copies;
    plan.buffers.clear();
    plan.tensorBuffer.clear();
    addAttentionBuffers(plan, in, L);
  };
  give(slots);
  plan.heldQueryTiles = plan.lxBytes() <= plan.arch.usableLxBytes();
  if (!plan.heldQueryTiles)
    give(plan.schedule.getDepth());
}

SmallVector<int64_t> KernelPlan::attentionHoldableInputs() const {
  AttentionLoops L(loops.size());
  SmallVector<int64_t> maxTiles = maxTilesPerLoop();
  AttentionInputs in = inputsOf(kernel);
  // Causal, each distinct first query tile of a core has its own copy of
  // the diagonal key tile's code: a few.
  constexpr int64_t kMaxQuerySplit = 8;
  if (maxTiles[L.s] <= 1 || maxTiles[L.m] <= 1 ||
      (in.op.getCausal() && loops[L.m].split > kMaxQuerySplit))
    return {};
  SmallVector<int64_t> held = {in.k};
  if (in.v != in.k)
    held.push_back(in.v);
  return held;
}

static int64_t fastestHeldKeyTiles(const KernelPlan &plan,
                                   const AttentionLoops &L); // Cost, below

LogicalResult KernelPlan::buildAttention(bool emitErrors) {
  AttentionLoops L(kernel.getSpace().size());
  if (failed(addAttentionLoops(*this, L, emitErrors)))
    return failure();
  AttentionInputs in = inputsOf(kernel);
  addAttentionTensors(*this, in, L);
  if (in.op.getCausal() && failed(checkCausalTiles(*this, in, L, emitErrors)))
    return failure();
  if (in.mask >= 0 && failed(checkMaskTiles(*this, in, L, emitErrors)))
    return failure();
  if (in.cos >= 0 && failed(checkRopeLayouts(*this, in, emitErrors)))
    return failure();
  markAttentionTransfers(*this, L);
  if (failed(holdKeysAndValues(*this, L, emitErrors)))
    return failure();
  addAttentionBuffers(*this, in, L);
  if (!schedule.getHold().empty()) {
    holdQueryTiles(*this, in, L);
    heldKeyTiles = fastestHeldKeyTiles(*this, L);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Cost
//===----------------------------------------------------------------------===//

/// Per key tile: the transpose of K, both products, the SFP passes over
/// the [mt, st] scores (scale, mask, max, subtract, exp, sum, convert)
/// and over O (rescale), and the [mt, 1] statistics. Pipelined, the SFP
/// and PT units (each in order) overlap one step: the next tile's
/// transpose (SFP) runs while this tile's second product (PT) does.
static double keyTileComputeNs(const KernelPlan &plan,
                               const AttentionInputs &in,
                               const AttentionLoops &L, bool pipelined) {
  const Arch &arch = plan.arch;
  const SmallVector<PlanLoop> &loops = plan.loops;
  int64_t mt = loops[L.m].tile, st = loops[L.s].tile;
  int64_t e = loops[L.e].size, ev = loops[L.ev].size;
  int64_t kBytes = plan.tensors[in.k].elementBytes;
  double transpose = sfpNs(arch, st, e, kBytes, false);
  double scores = ptMatmulNs(arch, mt, e, st);
  double values = ptMatmulNs(arch, mt, st, ev);
  double softmax =
      5 * sfpNs(arch, mt, st, 4, false) + sfpNs(arch, mt, st, 4, true) +
      sfpNs(arch, mt, ev, 4, false) + 8 * sfpNs(arch, mt, 1, 4, false);
  if (in.mask >= 0)
    softmax += sfpNs(arch, mt, st, 4, false);
  double overlapped = pipelined ? std::min(transpose, values) : 0.0;
  return transpose + scores + softmax + values - overlapped;
}

namespace {
/// An attention kernel's tile transfers by how often they run.
struct AttentionTransfers {
  SmallVector<DmaTransfer> streamed, perQuery, stores, held, perHead, once;
};
} // namespace

/// Groups the tensors' tile transfers: stores, per key tile, per query
/// tile, held and per head (the sinks), once (hoisted: before everything
/// else).
static AttentionTransfers groupTransfers(const KernelPlan &plan) {
  AttentionLoops L(plan.loops.size());
  AttentionTransfers g;
  for (const PlanTensor &t : plan.tensors) {
    DmaTransfer transfer = t.tileTransfer(plan.arch);
    if (t.isResult)
      g.stores.push_back(transfer);
    else if (t.resident)
      g.held.push_back(transfer);
    else if (t.variesInAccLoop)
      g.streamed.push_back(transfer);
    else if (loadedPerHead(t, L))
      g.perHead.push_back(transfer);
    else if (!t.hoisted)
      g.perQuery.push_back(transfer);
    else
      g.once.push_back(transfer);
  }
  return g;
}

/// A query tile's own work: the initial and final passes over O, causal,
/// the diagonal tile's mask, and the rope (a product by the rotation, then
/// three SFP passes over the tile).
static double perQueryTileNs(const KernelPlan &plan, const AttentionInputs &in,
                             const AttentionLoops &L, bool causal) {
  int64_t mt = plan.loops[L.m].tile, st = plan.loops[L.s].tile;
  int64_t ev = plan.loops[L.ev].size, e = plan.loops[L.e].size;
  double ns = sfpNs(plan.arch, mt, ev, 4, false) * 2;
  if (causal)
    ns += sfpNs(plan.arch, mt, st, 4, false);
  if (in.cos >= 0)
    ns += ptMatmulNs(plan.arch, mt, e, e) +
          3 * sfpNs(plan.arch, mt, e, plan.tensors[in.q].elementBytes, false);
  return ns;
}

/// The heads (batch tiles) core `core` runs.
static int64_t headsOf(const KernelPlan &plan, const AttentionLoops &L,
                       int64_t core) {
  CoreShare s = plan.share(core);
  int64_t heads = s.tiles[L.ev];
  for (int64_t l = 0; l < L.m; ++l)
    heads *= s.tiles[l];
  return heads;
}

/// The key tiles query tile `i` of a core reads.
static int64_t keysOfQueryTile(int64_t i, int64_t keyTiles, bool causal) {
  return causal ? std::min(i + 1, keyTiles) : keyTiles;
}

namespace {
/// What both estimates of an attention kernel start from.
struct KernelFacts {
  bool causal;
  int64_t cores, keyTiles;
  bool pipelined;
  AttentionTransfers g;
};
} // namespace

static KernelFacts factsOf(const KernelPlan &plan, AttentionInputs in,
                           const AttentionLoops &L) {
  return {in.op.getCausal(), plan.numCores(), plan.loops[L.s].numTiles(),
          plan.schedule.getDepth() > 1, groupTransfers(plan)};
}

/// Streamed keys and values: per query tile, Q, the key tiles through
/// rotating buffers, the store.
static double estimateStreamedNs(const KernelPlan &plan, AttentionInputs in,
                                 const AttentionLoops &L) {
  const Arch &arch = plan.arch;
  KernelFacts f = factsOf(plan, in, L);
  double compute = keyTileComputeNs(plan, in, L, f.pipelined);
  // Per query tile: Q, the initial and final passes, the store, and the
  // key tiles streamed (causal: those up to the diagonal, which is also
  // masked). Cores sharing a multicast stream of key tiles meet at every
  // key tile: they run in step, and the node serves every core's Q and
  // store before any computes. Without one (each core its own) the node's
  // order staggers the cores, and it serves some cores' Q and stores while
  // others compute: a query tile takes the longer of a core's own work and
  // the node's share of every core's.
  DmaTime queryDma = dmaTime(arch, f.g.perQuery, f.cores);
  DmaTime storeDma = dmaTime(arch, f.g.stores, f.cores);
  bool inStep = llvm::any_of(
      f.g.streamed, [](const DmaTransfer &t) { return t.sharers > 1; });
  double perQueryTile = perQueryTileNs(plan, in, L, f.causal);
  DmaTime keyTileDma = dmaTime(arch, f.g.streamed, f.cores);
  auto queryTileNs = [&](int64_t keys) {
    double keysNs =
        pipelineNs(keyTileDma, compute, DmaTime(), keys, f.pipelined);
    if (inStep)
      return queryDma.period + perQueryTile + keysNs + storeDma.period;
    return std::max(queryDma.core + perQueryTile + keysNs + storeDma.core,
                    queryDma.period + storeDma.period);
  };
  // The memory node serves every core's transfers (one core's share of a
  // multicast): no core finishes before it has.
  double perQueryNode = dmaTime(arch, f.g.perQuery, 1).memory +
                        dmaTime(arch, f.g.stores, 1).memory;
  // Causal, the query tiles split over S cores that share K and V: key
  // tile j is read once for the S - 1 - j of them whose query tiles come
  // later (S - 1 reads for S (S - 1) / 2 loads: S / 2 cores a read), the
  // diagonal tile by each alone. Cores with the same query tiles share all.
  int64_t splitM = plan.schedule.getSplit()[L.m];
  SmallVector<DmaTransfer> diagonal = f.g.streamed, before = f.g.streamed;
  for (DmaTransfer &t : diagonal)
    t.sharers = std::max<int64_t>(t.sharers / splitM, 1);
  for (DmaTransfer &t : before)
    t.sharers = std::max<int64_t>(t.sharers / splitM, 1) *
                std::max<int64_t>(splitM / 2, 1);
  double perKeyNode = dmaTime(arch, f.causal ? before : f.g.streamed, 1).memory;
  double diagonalNode = dmaTime(arch, diagonal, 1).memory;
  // Per head (the sinks): every core at once, before its query tiles.
  double headNs = dmaTime(arch, f.g.perHead, f.cores).period;
  double headNode = dmaTime(arch, f.g.perHead, 1).memory;
  // Hoisted ones (a core's only query tile, the constants): every core's
  // at once, before anything else.
  double onceNs = dmaTime(arch, f.g.once, f.cores).period;
  double onceNode = dmaTime(arch, f.g.once, 1).memory;
  // The busiest core: its batch tiles times its query tiles, query tile i
  // of a causal kernel seeing key tiles 0..i (square tiles, or one query
  // tile whose rows all fall in the first key tile).
  double busiest = 0, node = 0;
  for (int64_t c = 0; c < f.cores; ++c) {
    double ns = 0, served = 0;
    for (QueryRun run : queryRuns(plan, L, f.causal, c)) {
      for (int64_t i = run.first; i < run.first + run.tiles; ++i) {
        int64_t keys = keysOfQueryTile(i, f.keyTiles, f.causal);
        ns += queryTileNs(keys);
        served += perQueryNode +
                  (f.causal ? double(keys - 1) * perKeyNode + diagonalNode
                            : double(keys) * perKeyNode);
      }
    }
    double batch = double(headsOf(plan, L, c));
    busiest = std::max(busiest, onceNs + batch * (headNs + ns));
    node += onceNode + batch * (served + headNode);
  }
  // Staggered, the last query tile's stores: every core's at once,
  // nothing left to overlap them with.
  double tail = inStep ? 0.0 : storeDma.period - storeDma.core;
  return std::max(busiest + tail, node) + double(arch.memoryLatencyNs);
}

/// Held keys and values, `chunk` key tiles a load: per head, every core
/// issues its held query tiles and the key loads in heldLoadOrder (in
/// step, the node serving every core's); a query tile's work waits for its
/// Q, a key tile's for its key load, and the stores queue behind the loads
/// on the core's one DMA queue (the next head's loads behind the last
/// store; Q not held, a query tile's load behind the previous store).
static double estimateHeldNs(const KernelPlan &plan, AttentionInputs in,
                             const AttentionLoops &L, int64_t chunk) {
  const Arch &arch = plan.arch;
  KernelFacts f = factsOf(plan, in, L);
  SmallVector<DmaTransfer> keyLoad;
  for (const PlanTensor &t : plan.tensors) {
    if (!t.resident)
      continue;
    PlanTensor part = t;
    part.rows = std::min(chunk * plan.loops[L.s].tile, t.rows);
    keyLoad.push_back(part.tileTransfer(arch));
  }
  int64_t keyLoads = llvm::divideCeil(f.keyTiles, chunk);
  bool heldQueries = plan.heldQueryTiles;
  SmallVector<int64_t, 3> slots = heldQuerySlots(plan, L, f.causal);
  DmaTime queryDma = dmaTime(arch, f.g.perQuery, f.cores);
  DmaTime keyLoadDma = dmaTime(arch, keyLoad, f.cores);
  DmaTime storeDma = dmaTime(arch, f.g.stores, f.cores);
  // When each query slot's Q and each key load is in, from the head's
  // start.
  SmallVector<double> queryIn(slots.back()), keyIn(keyLoads);
  double loaded = dmaTime(arch, f.g.perHead, f.cores).period;
  for (HeldLoad load : heldLoadOrder(plan, L, slots.back(), chunk)) {
    loaded += load.query ? queryDma.period : keyLoadDma.period;
    (load.query ? queryIn : keyIn)[load.index] = loaded;
  }
  // A key tile's work; a streamed tile of it (a mask) loads behind the
  // held ones, through rotating buffers: no key tile's work starts before
  // the first is in.
  DmaTime streamedDma = dmaTime(arch, f.g.streamed, f.cores);
  double perKey =
      std::max(keyTileComputeNs(plan, in, L, f.pipelined), streamedDma.period);
  double firstKey = f.g.streamed.empty() ? 0.0 : loaded + streamedDma.period;
  double perQueryTile = perQueryTileNs(plan, in, L, f.causal);
  // One head of core `c`: when its last store is done, its query tiles and
  // the key tiles they read.
  struct Head {
    double stored = 0;
    int64_t tiles = 0, keysRead = 0;
  };
  auto headOf = [&](int64_t c) {
    Head h;
    double t = firstKey;
    h.stored = loaded;
    for (auto [r, run] : llvm::enumerate(queryRuns(plan, L, f.causal, c))) {
      for (int64_t i = 0; i < run.tiles; ++i) {
        int64_t keys = keysOfQueryTile(run.first + i, f.keyTiles, f.causal);
        // Q held, or loaded behind the previous query tile's store.
        t = heldQueries ? std::max(t, queryIn[slots[r] + i])
                        : std::max(t, h.stored) + queryDma.period;
        t += perQueryTile;
        // Once every load is in, the rest of the key tiles wait for none.
        int64_t k = 0;
        for (; k < keys && t < loaded; ++k)
          t = std::max(t, keyIn[k / chunk]) + perKey;
        t += double(keys - k) * perKey;
        h.stored = std::max(h.stored, t) + storeDma.period;
        h.keysRead += keys;
      }
      h.tiles += run.tiles;
    }
    return h;
  };
  // The node's share of one core's transfers: once, per head, per query
  // tile, per key tile read.
  double onceNs = dmaTime(arch, f.g.once, f.cores).period;
  double onceNode = dmaTime(arch, f.g.once, 1).memory;
  double headNode = dmaTime(arch, f.g.perHead, 1).memory +
                    double(keyLoads) * dmaTime(arch, keyLoad, 1).memory;
  double queryNode = dmaTime(arch, f.g.perQuery, 1).memory +
                     dmaTime(arch, f.g.stores, 1).memory;
  double keyNode = dmaTime(arch, f.g.streamed, 1).memory;
  // Cores at the same place along the query split run the same heads.
  std::map<int64_t, Head> heads;
  double busiest = 0, node = 0;
  for (int64_t c = 0; c < f.cores; ++c) {
    auto [it, fresh] = heads.try_emplace(plan.splitCoord(c, L.m));
    if (fresh)
      it->second = headOf(c);
    const Head &h = it->second;
    double batch = double(headsOf(plan, L, c));
    busiest = std::max(busiest, onceNs + batch * h.stored);
    node += onceNode + batch * (headNode + double(h.tiles) * queryNode +
                                double(h.keysRead) * keyNode);
  }
  return std::max(busiest, node) + double(arch.memoryLatencyNs);
}

double KernelPlan::estimateAttentionNs() const {
  AttentionLoops L(loops.size());
  AttentionInputs in = inputsOf(kernel);
  if (holdsKeysAndValues(*this))
    return estimateHeldNs(*this, in, L, heldKeyTiles);
  return estimateStreamedNs(*this, in, L);
}

/// The key tiles per load of held keys and values (a divisor of the key
/// tiles) the cost model finds fastest: fewer loads pay fewer setups,
/// smaller ones let the first key tiles' work start earlier.
static int64_t fastestHeldKeyTiles(const KernelPlan &plan,
                                   const AttentionLoops &L) {
  AttentionInputs in = inputsOf(plan.kernel);
  int64_t best = 1;
  double bestNs = std::numeric_limits<double>::infinity();
  int64_t keyTiles = plan.loops[L.s].numTiles();
  for (int64_t chunk : KernelPlan::powersUpTo(keyTiles)) {
    // Whole loads only: the held buffers end at the last key tile.
    if (keyTiles % chunk != 0)
      continue;
    double ns = estimateHeldNs(plan, in, L, chunk);
    if (ns < bestNs) {
      best = chunk;
      bestNs = ns;
    }
  }
  return best;
}

//===----------------------------------------------------------------------===//
// Program
//===----------------------------------------------------------------------===//

namespace {

/// Where a key tile is: the tile of an iteration of the loop over key tiles
/// (every key tile, or those before the diagonal of a causal kernel), or
/// the diagonal tile of the current query tile (causal: the key tile with
/// the query tile's index, square tiles).
enum class KeyTile { Streamed, Diagonal };

class AttentionLowering {
public:
  AttentionLowering(const KernelPlan &plan, OpBuilder &b,
                    ArrayRef<FlatSymbolRefAttr> symbols)
      : plan(plan), L(plan.loops.size()), in(inputsOf(plan.kernel)),
        scope(b, plan.kernel.getLoc(), plan.numCores()), b(b), symbols(symbols),
        loc(plan.kernel.getLoc()), causal(in.op.getCausal()),
        held(holdsKeysAndValues(plan)),
        querySlots(heldQuerySlots(plan, L, causal)) {
    for (int64_t c = 0; c < plan.numCores(); ++c)
      shares.push_back(plan.share(c));
    f32 = b.getF32Type();
  }

  LogicalResult lower(StringRef name) {
    ProgramOp program = scope.begin(name, plan.kernel.getName());
    for (unsigned i = 0; i < numInputs(); ++i)
      if (plan.tensors[i].hoisted)
        transfer(i, false);
    if (causal)
      diagonalMask();
    // The heads, the held keys and values of each, its runs of query tiles.
    size_t opened = 0;
    for (int64_t l = 0; l < L.m; ++l) {
      if (maxTiles(l) > 1) {
        scope.openLoop(perCore([&](int64_t c) { return shares[c].tiles[l]; }),
                       l);
        ++opened;
      }
    }
    loadPerHead();
    for (int64_t c = 0; c < plan.numCores(); ++c)
      runs.push_back(queryRuns(plan, L, causal, c));
    if (held)
      loadHeld();
    for (size_t r = 0; r < runs.front().size(); ++r) {
      selectRun(r);
      bool loop = maxTiles(L.m) > 1;
      if (loop)
        scope.openLoop(perCore([&](int64_t c) { return shares[c].tiles[L.m]; }),
                       L.m);
      queryTile();
      if (loop)
        scope.closeLoop();
    }
    for (size_t i = 0; i < opened; ++i)
      scope.closeLoop();
    scope.finish();
    plan.describe(program);
    return success();
  }

private:
  const KernelPlan &plan;
  AttentionLoops L;
  AttentionInputs in;
  ProgramScope scope;
  OpBuilder &b;
  ArrayRef<FlatSymbolRefAttr> symbols;
  Location loc;
  bool causal;
  /// Keys and values held (loaded per head, before its query tiles).
  bool held;
  SmallVector<CoreShare> shares;
  /// Each core's runs of query tiles, the one being written, and where
  /// each run's tiles start in a held query buffer.
  SmallVector<SmallVector<QueryRun, 2>> runs;
  size_t run = 0;
  SmallVector<int64_t, 3> querySlots;
  /// While loading held tiles: the query tile of the run a load fills, and
  /// how many key loads came before this one.
  int64_t heldQueryTile = 0, heldKeyLoad = 0;
  Type f32;
  /// Level of the innermost loop over query tiles (-1: none).
  int64_t queryLevel = -1;
  /// The loop rotating buffers advance with, when not the innermost (code
  /// under a guard rotates with the loop around it).
  std::optional<int64_t> rotateLevel;

  unsigned numInputs() const { return plan.kernel.getInputs().size(); }
  int64_t stickBytes() const { return plan.arch.stickBytes; }
  IntegerAttr i64(int64_t v) { return b.getI64IntegerAttr(v); }
  UnitAttr flag(bool v) { return v ? b.getUnitAttr() : UnitAttr(); }
  int64_t mt() const { return plan.loops[L.m].tile; }
  int64_t st() const { return plan.loops[L.s].tile; }
  int64_t e() const { return plan.loops[L.e].size; }
  int64_t ev() const { return plan.loops[L.ev].size; }

  SmallVector<int64_t> perCore(function_ref<int64_t(int64_t)> f) {
    SmallVector<int64_t> v;
    for (int64_t c = 0; c < plan.numCores(); ++c)
      v.push_back(f(c));
    return v;
  }

  int64_t maxTiles(int64_t l) const {
    int64_t most = 0;
    for (const CoreShare &s : shares)
      most = std::max(most, s.tiles[l]);
    return most;
  }

  /// LX address of a buffer, rotating with the innermost open loop.
  LxAddressAttr lx(const PlanBuffer &buf) {
    return scope.lx(buf.offset, buf.bytes, buf.copies, rotateLevel);
  }
  LxAddressAttr lx(StringRef name) { return lx(plan.buffer(name)); }
  /// A tensor's tile: tiles of key positions rotate with the key loop, the
  /// others with the query loop; one loaded per head stays put; a held
  /// query tile is the current run's, at the query loop's iteration.
  LxAddressAttr tensorLx(unsigned ti) {
    const PlanBuffer &buf = plan.buffers[plan.tensorBuffer[ti]];
    if (loadedPerHead(plan.tensors[ti], L))
      return LxAddressAttr::get(b.getContext(), buf.offset, {}, 0);
    if (plan.heldQueryTiles && perQueryTile(plan.tensors[ti], L))
      return heldLx(buf.offset + (querySlots[run] + heldQueryTile) * buf.bytes,
                    buf.bytes, L.m);
    std::optional<int64_t> level = rotateLevel;
    if (!plan.tensors[ti].variesInAccLoop)
      level = queryLevel;
    return scope.lx(buf.offset, buf.bytes, buf.copies, level);
  }

  /// Bytes of one row of a buffer of `cols` elements of `et`.
  int64_t pitchOf(int64_t cols, Type et) const {
    return llvm::divideCeil(cols, stickBytes() / bytesOf(et)) * stickBytes();
  }

  /// The edge clamp of argument `arg` along loop `l` (the element count of
  /// the core's current tile).
  ClampAttr clampAlong(int64_t l, int64_t arg) {
    const PlanLoop &loop = plan.loops[l];
    if (!loop.hasEdge())
      return nullptr;
    return scope.clamp(l, arg, loop.tile, loop.size,
                       perCore([&](int64_t c) { return shares[c].start[l]; }));
  }

  /// LX address `offset` advancing `tileBytes` per iteration of the open
  /// loop tagged `tag` (a tile of a held buffer; fixed when it is not open).
  LxAddressAttr heldLx(int64_t offset, int64_t tileBytes, int64_t tag) {
    int64_t level = scope.levelOf(tag);
    SmallVector<int64_t> strides;
    if (level >= 0) {
      strides.assign(level + 1, 0);
      strides.back() = tileBytes;
    }
    return LxAddressAttr::get(b.getContext(), offset, strides, 0);
  }

  /// A held tensor's key tile in LX: its rows in the head's buffer at the
  /// key loop's iteration (streamed), or at the query loop's from the
  /// core's first query tile `first` (the diagonal).
  LxAddressAttr heldTileLx(unsigned ti, KeyTile where, int64_t first) {
    const PlanBuffer &buf = plan.buffers[plan.tensorBuffer[ti]];
    int64_t tileBytes = st() * plan.tensors[ti].sticks * stickBytes();
    int64_t offset = buf.offset;
    if (where == KeyTile::Diagonal)
      offset += first * tileBytes;
    return heldLx(offset, tileBytes, where == KeyTile::Streamed ? L.s : L.m);
  }

  /// Makes run `r` of every core's query tiles the current one.
  void selectRun(size_t r) {
    run = r;
    for (auto [share, coreRuns] : llvm::zip(shares, runs)) {
      share.start[L.m] = coreRuns[r].first * mt();
      share.tiles[L.m] = coreRuns[r].tiles;
    }
  }

  /// Loads the inputs that vary with the head only (the sinks), once per
  /// head.
  void loadPerHead() {
    for (unsigned i = 0; i < numInputs(); ++i)
      if (loadedPerHead(plan.tensors[i], L))
        transfer(i, false);
  }

  /// Loads a head's query tiles and its held keys and values, in
  /// heldLoadOrder (a key load fills the K and V tiles of the same key
  /// positions: their work waits for nothing else). A query tile some
  /// cores lack is loaded under a guard.
  void loadHeld() {
    for (HeldLoad load :
         heldLoadOrder(plan, L, querySlots.back(), plan.heldKeyTiles)) {
      if (!load.query) {
        heldKeyLoad = load.index;
        for (unsigned i = 0; i < numInputs(); ++i)
          if (plan.tensors[i].resident)
            transfer(i, false);
        continue;
      }
      selectRun(llvm::upper_bound(querySlots, load.index) - querySlots.begin() -
                1);
      heldQueryTile = load.index - querySlots[run];
      SmallVector<int64_t> has = perCore([&](int64_t c) {
        return int64_t(shares[c].tiles[L.m] > heldQueryTile);
      });
      for (CoreShare &share : shares)
        share.start[L.m] += heldQueryTile * mt();
      bool guard = llvm::is_contained(has, 0);
      if (guard)
        scope.openGuard(has);
      for (unsigned i = 0; i < numInputs(); ++i)
        if (loadedPerQueryTile(plan.tensors[i], L))
          transfer(i, false);
      if (guard)
        scope.closeLoop();
      heldQueryTile = 0;
    }
  }

  /// The clamp of argument `arg` to the valid key positions of a key tile.
  ClampAttr keyClamp(KeyTile where, int64_t arg) {
    if (where == KeyTile::Streamed)
      return clampAlong(L.s, arg);
    // The diagonal key tile has the query tile's index.
    const PlanLoop &s = plan.loops[L.s];
    return scope.clamp(L.m, arg, s.tile, s.size, perCore([&](int64_t c) {
                         return shares[c].start[L.m];
                       }));
  }

  /// DMA of tensor `ti`'s tile between device memory and LX; a tile of
  /// key positions is `where`.
  void transfer(unsigned ti, bool store, KeyTile where = KeyTile::Streamed) {
    const PlanTensor &t = plan.tensors[ti];
    bool diagonal = where == KeyTile::Diagonal && t.loopBytes[L.s];
    // A held tensor's load moves the plan's heldKeyTiles key tiles, after
    // heldKeyLoad loads of them.
    int64_t heldRows = plan.heldKeyTiles * st();
    int64_t heldFirst = heldKeyLoad * heldRows;
    int64_t memParam = scope.params.slot(perCore([&](int64_t c) {
      SmallVector<int64_t> starts(shares[c].start);
      if (diagonal)
        starts[L.s] = starts[L.m];
      if (t.resident)
        starts[L.s] = heldFirst;
      return t.offsetOf(starts);
    }));
    auto tileBytes = [&](int64_t l) {
      int64_t tile = plan.loops[l].tile;
      return l == t.stickLoop ? tile / t.elementsPerStick * t.loopBytes[l]
                              : tile * t.loopBytes[l];
    };
    SmallVector<int64_t> strides = scope.memStrides([&](int64_t l) {
      // The diagonal key tile advances with the query tiles.
      return tileBytes(l) + (diagonal && l == L.m ? tileBytes(L.s) : 0);
    });
    auto mem =
        MemAddressAttr::get(b.getContext(), symbols[ti], 0, strides, memParam);
    SmallVector<int64_t> box = {t.resident ? heldRows : t.rows, 1, 1},
                         pitch = {t.rowPitch, 0, 0};
    IntegerAttr runBytes = i64(t.sticks * stickBytes());
    ClampAttr clamp =
        t.resident ? scope.clamp(L.s, 0, heldRows, plan.loops[L.s].size,
                                 perCore([&](int64_t) { return heldFirst; }))
        : t.rowLoop == L.s ? keyClamp(where, 0)
        : t.rowLoop >= 0   ? clampAlong(t.rowLoop, 0)
                           : nullptr;
    LxAddressAttr lxAddr =
        t.resident
            ? LxAddressAttr::get(b.getContext(),
                                 plan.buffers[plan.tensorBuffer[ti]].offset +
                                     heldFirst * t.sticks * stickBytes(),
                                 {}, 0)
            : tensorLx(ti);
    if (store)
      DmaStoreOp::create(b, loc, mem, lxAddr, b.getDenseI64ArrayAttr(box),
                         b.getDenseI64ArrayAttr(pitch), runBytes, clamp,
                         UnitAttr(), IntegerAttr());
    else
      DmaLoadOp::create(b, loc, mem, lxAddr, b.getDenseI64ArrayAttr(box),
                        b.getDenseI64ArrayAttr(pitch), runBytes, clamp,
                        flag(t.sharers > 1), IntegerAttr());
  }

  /// An SFP operand: a buffer, its element type, row pitch (0: one row
  /// for all) and whether its one column serves every column.
  struct Operand {
    LxAddressAttr lx;
    Type type;
    int64_t pitch;
    bool bcastCol = false;
  };
  Operand stat(StringRef name) { return {lx(name), f32, stickBytes()}; }
  Operand column(StringRef name) { return {lx(name), f32, stickBytes(), true}; }
  Operand scores() { return {lx("s"), f32, pitchOf(st(), f32)}; }
  Operand acc() { return {lx("o"), f32, pitchOf(ev(), f32)}; }
  Operand above() {
    Type i1 = b.getI1Type();
    return {lx("above"), i1, pitchOf(st(), i1)};
  }
  /// Element `index` of the constants at `pitch` bytes a row.
  Operand constant(int64_t index, int64_t pitch = 0, bool bcastCol = true) {
    const PlanBuffer &buf = plan.buffers[plan.tensorBuffer[in.consts]];
    return {LxAddressAttr::get(b.getContext(), buf.offset + index * 4, {}, 0),
            f32, pitch, bcastCol};
  }

  template <typename OpT>
  void sfp(StringRef fn, Operand dst, int64_t rows, int64_t cols, Operand s0,
           std::optional<Operand> s1 = std::nullopt, ClampAttr clamp = {}) {
    OpT::create(
        b, loc, b.getStringAttr(fn), dst.lx, s0.lx,
        s1 ? s1->lx : LxAddressAttr(), i64(rows), i64(cols),
        b.getDenseI64ArrayAttr({dst.pitch, s0.pitch, s1 ? s1->pitch : 0}),
        TypeAttr::get(dst.type), TypeAttr::get(s0.type),
        s1 ? TypeAttr::get(s1->type) : TypeAttr(), flag(s0.bcastCol),
        flag(s1 && s1->bcastCol), UnitAttr(), UnitAttr(), IntegerAttr(), clamp);
  }
  void unary(StringRef fn, Operand dst, int64_t rows, int64_t cols,
             Operand src) {
    sfp<SfpUnaryOp>(fn, dst, rows, cols, src);
  }
  void binary(StringRef fn, Operand dst, int64_t rows, int64_t cols,
              Operand lhs, Operand rhs, ClampAttr clamp = {}) {
    sfp<SfpBinaryOp>(fn, dst, rows, cols, lhs, rhs, clamp);
  }

  /// above[r, c] = c > r: the positions a diagonal tile masks (query and
  /// key tiles start at the same position). Once per kernel.
  void diagonalMask() {
    binary("gt", above(), mt(), st(), constant(kIota, 0, false),
           constant(kIota, 4));
  }

  void queryTile() {
    queryLevel = int64_t(scope.depth()) - 1;
    for (unsigned i = 0; i < numInputs(); ++i)
      if (!plan.heldQueryTiles && loadedPerQueryTile(plan.tensors[i], L))
        transfer(i, false);
    rotateQuery();
    initRowStatistics();
    unary("copy", acc(), mt(), ev(), constant(kZero));
    keyTiles();
    // out = O / max(l, smallest), in the result's element type.
    binary("max", stat("sum"), mt(), 1, stat("sum"), constant(kSmallest));
    unsigned out = numInputs();
    const PlanTensor &result = plan.tensors[out];
    Type outType = result.type.getElementType();
    binary("div", {tensorLx(out), outType, result.sticks * stickBytes()}, mt(),
           ev(), acc(), column("sum"));
    transfer(out, true);
  }

  /// An SFP operand of input `ti`'s tile (pitch 0 when one row serves all).
  Operand tile(int64_t ti) {
    const PlanTensor &t = plan.tensors[ti];
    return {tensorLx(ti), t.type.getElementType(),
            t.rows > 1 ? t.sticks * stickBytes() : 0};
  }

  /// The rope, in place: Q = Q * cos + (Q R) * sin, each term rounded to
  /// Q's type. Q R (the PT array writes f32) is not rounded before the
  /// multiply by sin: exact for a signed permutation (rotate_half), whose
  /// products are Q's own values.
  void rotateQuery() {
    if (in.cos < 0)
      return;
    const PlanTensor &q = plan.tensors[in.q];
    const PlanTensor &r = plan.tensors[in.rotation];
    Type qType = q.type.getElementType();
    Operand query = {tensorLx(in.q), qType, q.sticks * stickBytes()};
    Operand product = {lx("rope"), f32, pitchOf(e(), f32)};
    Operand rotated = {lx("roped"), qType, pitchOf(e(), qType)};
    PtMatmulOp::create(b, loc, product.lx, query.lx, tensorLx(in.rotation),
                       i64(mt()), i64(e()), i64(e()),
                       b.getDenseI64ArrayAttr({product.pitch, query.pitch,
                                               r.sticks * stickBytes()}),
                       TypeAttr::get(f32), TypeAttr::get(qType),
                       TypeAttr::get(r.type.getElementType()), UnitAttr(),
                       IntegerAttr(), ClampAttr());
    binary("mul", rotated, mt(), e(), product, tile(in.sin));
    binary("mul", query, mt(), e(), query, tile(in.cos));
    binary("add", query, mt(), e(), query, rotated);
  }

  /// The running max and sum of a query tile's rows before its first key
  /// tile: lowest and 0, or with sinks each row's sink logit and 1 (its
  /// exp(sink - max), rescaled with the sum as the max grows).
  void initRowStatistics() {
    if (in.sinks < 0) {
      unary("copy", stat("max"), mt(), 1, constant(kLowest));
      unary("copy", stat("sum"), mt(), 1, constant(kZero));
      return;
    }
    unary("copy", stat("max"), mt(), 1, tile(in.sinks));
    unary("copy", stat("sum"), mt(), 1, constant(kOne));
  }

  /// The key tiles of a query tile: all of them, or, causal, the t0 + i
  /// before the diagonal (t0: the core's first query tile, i: the query
  /// tile's iteration; a triangular nest) and then the diagonal one.
  void keyTiles() {
    if (maxTiles(L.s) > 1) {
      auto counts = perCore([&](int64_t c) {
        return causal ? shares[c].start[L.m] / st() : shares[c].tiles[L.s];
      });
      if (causal)
        scope.openGrowingLoop(counts, L.s, L.m, 1);
      else
        scope.openLoop(counts, L.s);
      keyTile(KeyTile::Streamed);
      scope.closeLoop();
    } else if (!causal) {
      keyTile(KeyTile::Streamed);
    }
    if (causal)
      diagonalTiles();
  }

  /// The diagonal key tile. Held, its place in LX depends on the core's
  /// first query tile, which LX addresses cannot take from a parameter:
  /// one copy of its code per first query tile, each for its cores only.
  void diagonalTiles() {
    std::set<int64_t> firsts;
    for (const CoreShare &s : shares)
      firsts.insert(s.start[L.m] / mt());
    if (!held || firsts.size() == 1) {
      keyTile(KeyTile::Diagonal, *firsts.begin());
      return;
    }
    rotateLevel = int64_t(scope.depth()) - 1;
    for (int64_t first : firsts) {
      scope.openGuard(perCore([&](int64_t c) {
        return int64_t(shares[c].start[L.m] / mt() == first);
      }));
      keyTile(KeyTile::Diagonal, first);
      scope.closeLoop();
    }
    rotateLevel.reset();
  }

  /// Where key tile `where` of a tensor of key positions is in LX (`first`:
  /// the core's first query tile).
  LxAddressAttr keyTileLx(unsigned ti, KeyTile where, int64_t first) {
    return plan.tensors[ti].resident ? heldTileLx(ti, where, first)
                                     : tensorLx(ti);
  }

  /// The work of one key tile; `first` is the first query tile of the
  /// cores running it.
  void keyTile(KeyTile where, int64_t first = 0) {
    for (unsigned i = 0; i < numInputs(); ++i)
      if (!plan.tensors[i].hoisted && !plan.tensors[i].resident &&
          plan.tensors[i].variesInAccLoop)
        transfer(i, false, where);
    const PlanTensor &q = plan.tensors[in.q];
    const PlanTensor &k = plan.tensors[in.k];
    const PlanTensor &v = plan.tensors[in.v];
    Type kType = k.type.getElementType(), vType = v.type.getElementType();
    // Kt[e, s] = K[s, e].
    sfp<SfpTransposeOp>(
        "transpose", {lx("kt"), kType, pitchOf(st(), kType)}, st(), e(),
        {keyTileLx(in.k, where, first), kType, k.sticks * stickBytes()});
    // S = Q Kt (overwriting), then the scale and the masks.
    PtMatmulOp::create(
        b, loc, lx("s"), tensorLx(in.q), lx("kt"), i64(mt()), i64(e()),
        i64(st()),
        b.getDenseI64ArrayAttr({pitchOf(st(), f32), q.sticks * stickBytes(),
                                pitchOf(st(), kType)}),
        TypeAttr::get(f32), TypeAttr::get(q.type.getElementType()),
        TypeAttr::get(kType), UnitAttr(), IntegerAttr(), ClampAttr());
    binary("mul", scores(), mt(), st(), scores(), constant(kScale));
    if (in.mask >= 0) {
      const PlanTensor &mask = plan.tensors[in.mask];
      Operand m = {tensorLx(in.mask), mask.type.getElementType(),
                   mask.rows > 1 ? mask.sticks * stickBytes() : 0,
                   mask.stickLoop < 0};
      binary("add", scores(), mt(), st(), scores(), m);
    }
    if (where == KeyTile::Diagonal)
      sfp<SfpSelectOp>("select", scores(), mt(), st(), above(),
                       constant(kNegInf));
    // The running max over the valid columns of this tile.
    ClampAttr cols = keyClamp(where, 1);
    sfp<SfpReduceOp>("max", stat("rowstat"), mt(), st(), scores(), std::nullopt,
                     cols);
    binary("max", stat("newmax"), mt(), 1, stat("max"), stat("rowstat"));
    binary("max", stat("newmax"), mt(), 1, stat("newmax"), constant(kLowest));
    binary("sub", stat("scale"), mt(), 1, stat("max"), stat("newmax"));
    unary("exp", stat("scale"), mt(), 1, stat("scale"));
    binary("sub", scores(), mt(), st(), scores(), column("newmax"));
    unary("exp", scores(), mt(), st(), scores());
    sfp<SfpReduceOp>("sum", stat("rowstat"), mt(), st(), scores(), std::nullopt,
                     cols);
    binary("mul", stat("sum"), mt(), 1, stat("sum"), stat("scale"));
    binary("add", stat("sum"), mt(), 1, stat("sum"), stat("rowstat"));
    binary("mul", acc(), mt(), ev(), acc(), column("scale"));
    // O += P' V over the valid keys.
    unary("copy", {lx("p"), vType, pitchOf(st(), vType)}, mt(), st(), scores());
    PtMatmulOp::create(
        b, loc, lx("o"), lx("p"), keyTileLx(in.v, where, first), i64(mt()),
        i64(st()), i64(ev()),
        b.getDenseI64ArrayAttr({pitchOf(ev(), f32), pitchOf(st(), vType),
                                v.sticks * stickBytes()}),
        TypeAttr::get(f32), TypeAttr::get(vType), TypeAttr::get(vType),
        b.getUnitAttr(), IntegerAttr(), keyClamp(where, 1));
    unary("copy", stat("max"), mt(), 1, stat("newmax"));
  }
};

} // namespace

LogicalResult lowerAttention(const KernelPlan &plan, OpBuilder &b,
                             StringRef name,
                             ArrayRef<FlatSymbolRefAttr> tensorSymbols) {
  return AttentionLowering(plan, b, tensorSymbols).lower(name);
}

} // namespace spyre
