//===- RingExchange.cpp - A kept result regrouped over the ring -----------===//

#include "RingExchange.h"

#include <map>

using namespace mlir;

namespace spyre {

namespace {

/// Where one core's tile of a tensor lies: per tensor dim the element
/// range [lo, hi), and how the tile sits in LX (rows along `rowDim`, whole
/// sticks along the last dim).
struct TileBox {
  SmallVector<int64_t> lo, hi;
};

struct TensorTiles {
  SmallVector<TileBox> boxes; // per core
  int64_t rowDim = -1;        // -1: one row
  int64_t rowBytes = 0;
  int64_t elementsPerStick = 1;
};

/// The loop indexing each dim of `t`, or std::nullopt when a dim is not
/// a plain loop index (a window offset, a constant).
std::optional<SmallVector<int64_t>> dimLoops(const KernelPlan &plan,
                                             const PlanTensor &t) {
  unsigned operand =
      t.isResult ? plan.kernel.getInputs().size() + t.index : t.index;
  AffineMap map = plan.kernel.getIndexingMapList()[operand];
  SmallVector<int64_t> loops;
  for (AffineExpr e : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      return std::nullopt;
    loops.push_back(dim.getPosition());
  }
  return loops;
}

/// Every core's tile of `t`, when each core moves one tile of rows and
/// whole sticks and has work.
std::optional<TensorTiles> tensorTiles(const KernelPlan &plan,
                                       const PlanTensor &t) {
  if (!plan.canHandOffInLx(t) || t.stickLoop < 0 || t.copies != 1)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> loops = dimLoops(plan, t);
  if (!loops || loops->empty() || loops->back() != t.stickLoop)
    return std::nullopt;
  TensorTiles tiles;
  tiles.elementsPerStick = t.elementsPerStick;
  tiles.rowBytes = t.rowBytes(plan.arch.stickBytes);
  int64_t rank = loops->size();
  for (int64_t d = 0; d + 1 < rank; ++d)
    if ((*loops)[d] == t.rowLoop)
      tiles.rowDim = d;
  for (int64_t c = 0; c < plan.numCores(); ++c) {
    CoreShare share = plan.share(c);
    if (llvm::is_contained(share.tiles, 0))
      return std::nullopt;
    TileBox box;
    for (auto [d, l] : llvm::enumerate(*loops)) {
      const PlanLoop &loop = plan.loops[l];
      // A tensor held whole along the accumulation loop spans all of it.
      int64_t extent = t.resident && l == plan.accLoop ? loop.size : loop.tile;
      box.lo.push_back(share.start[l]);
      box.hi.push_back(std::min(share.start[l] + extent, loop.size));
      bool spans = box.hi.back() - box.lo.back() > 1;
      if (spans && int64_t(d) != rank - 1 && int64_t(d) != tiles.rowDim)
        return std::nullopt; // a third dim in LX: not rows of sticks
    }
    tiles.boxes.push_back(std::move(box));
  }
  return tiles;
}

/// Byte offset, in the tile `box` of `tiles`, of the element at `at`.
int64_t lxOffsetOf(const TensorTiles &tiles, const TileBox &box,
                   ArrayRef<int64_t> at, int64_t stickBytes) {
  int64_t row = tiles.rowDim >= 0 ? at[tiles.rowDim] - box.lo[tiles.rowDim] : 0;
  int64_t stick = (at.back() - box.lo.back()) / tiles.elementsPerStick;
  return row * tiles.rowBytes + stick * stickBytes;
}

/// The chunk producer tile `p` gives consumer tile `c`, if they meet.
std::optional<RingChunk> chunkBetween(const TensorTiles &src, int64_t p,
                                      const TensorTiles &dst, int64_t c,
                                      int64_t stickBytes, bool &ok) {
  const TileBox &a = src.boxes[p], &b = dst.boxes[c];
  SmallVector<int64_t> lo, hi;
  for (size_t d = 0; d < a.lo.size(); ++d) {
    lo.push_back(std::max(a.lo[d], b.lo[d]));
    hi.push_back(std::min(a.hi[d], b.hi[d]));
    if (lo.back() >= hi.back())
      return std::nullopt;
  }
  RingChunk chunk;
  chunk.from = p;
  chunk.to = c;
  chunk.srcOffset = lxOffsetOf(src, a, lo, stickBytes);
  chunk.dstOffset = lxOffsetOf(dst, b, lo, stickBytes);
  int64_t sticks =
      llvm::divideCeil(hi.back() - lo.back(), src.elementsPerStick);
  chunk.runBytes = sticks * stickBytes;
  chunk.srcPitch = src.rowBytes;
  chunk.dstPitch = dst.rowBytes;
  for (size_t d = 0; d + 1 < lo.size(); ++d) {
    if (hi[d] - lo[d] == 1)
      continue;
    // Rows of the chunk: the row dim of both tiles (boxes span no other).
    if (int64_t(d) != src.rowDim || int64_t(d) != dst.rowDim) {
      ok = false;
      return std::nullopt;
    }
    chunk.rows = hi[d] - lo[d];
  }
  if (chunk.rows == 1 ||
      (chunk.runBytes == chunk.srcPitch && chunk.runBytes == chunk.dstPitch)) {
    chunk.runBytes *= chunk.rows; // one contiguous run
    chunk.rows = 1;
  }
  return chunk;
}

/// Elements of a box, counted in whole sticks along the last dim.
int64_t stickElements(const TileBox &box, int64_t elementsPerStick) {
  int64_t n =
      llvm::divideCeil(box.hi.back() - box.lo.back(), elementsPerStick) *
      elementsPerStick;
  for (size_t d = 0; d + 1 < box.lo.size(); ++d)
    n *= box.hi[d] - box.lo[d];
  return n;
}

} // namespace

RingExchange RingExchange::placed(int64_t held, int64_t buffer) const {
  RingExchange x = *this;
  for (RingChunk &c : x.chunks) {
    c.srcOffset += held;
    c.dstOffset += buffer;
  }
  return x;
}

int64_t RingExchange::ringBytes() const {
  int64_t bytes = 0;
  for (const RingChunk &c : chunks)
    if (c.from != c.to)
      bytes += c.bytes();
  return bytes;
}

double RingExchange::estimateNs(const Arch &arch) const {
  // Directed links: link i joins ring positions i and i+1 (mod nodes).
  int64_t nodes = arch.memoryRingPosition + 1;
  SmallVector<int64_t> forward(nodes, 0), backward(nodes, 0);
  SmallVector<int64_t> sent(cores, 0), received(cores, 0);
  SmallVector<double> copyNs(cores, 0);
  int64_t hops = 0;
  for (const RingChunk &c : chunks) {
    if (c.from == c.to) {
      int64_t elementBytes = getElementBytes(elementType);
      copyNs[c.to] += sfpNs(arch, c.rows, c.runBytes / elementBytes,
                            elementBytes, /*complex=*/false);
      continue;
    }
    sent[c.from] += c.bytes();
    received[c.to] += c.bytes();
    int64_t ahead = ((c.to - c.from) % nodes + nodes) % nodes;
    bool goForward = ahead <= nodes - ahead;
    int64_t n = goForward ? ahead : nodes - ahead;
    hops = std::max(hops, n);
    for (int64_t i = 0; i < n; ++i) {
      if (goForward)
        forward[(c.from + i) % nodes] += c.bytes();
      else
        backward[((c.from - i - 1) % nodes + nodes) % nodes] += c.bytes();
    }
  }
  int64_t busiest = 0;
  for (ArrayRef<int64_t> load : {ArrayRef(forward), ArrayRef(backward),
                                 ArrayRef(sent), ArrayRef(received)})
    for (int64_t b : load)
      busiest = std::max(busiest, b);
  double copy = 0;
  for (double ns : copyNs)
    copy = std::max(copy, ns);
  double latency =
      double(hops * arch.ringHopLatencyCycles) / arch.ringClockHz * 1e9;
  return double(busiest) / arch.ringLinkBandwidth() * 1e9 + latency + copy;
}

std::optional<RingExchange> planRingExchange(const KernelPlan &producer,
                                             unsigned result,
                                             const KernelPlan &consumer,
                                             unsigned input) {
  if (producer.numCores() > consumer.numCores())
    return std::nullopt;
  const PlanTensor &written =
      producer.tensors[producer.kernel.getInputs().size() + result];
  const PlanTensor &read = consumer.tensors[input];
  // A slab's chunks are not one tile per core (not handled).
  if (written.type != read.type || written.slab)
    return std::nullopt;
  std::optional<TensorTiles> src = tensorTiles(producer, written);
  std::optional<TensorTiles> dst = tensorTiles(consumer, read);
  if (!src || !dst)
    return std::nullopt;
  int64_t stickBytes = producer.arch.stickBytes;
  RingExchange x;
  x.elementType = read.type.getElementType();
  x.cores = consumer.numCores();
  for (int64_t c = 0; c < consumer.numCores(); ++c) {
    int64_t covered = 0;
    for (int64_t p = 0; p < producer.numCores(); ++p) {
      bool ok = true;
      std::optional<RingChunk> chunk =
          chunkBetween(*src, p, *dst, c, stickBytes, ok);
      if (!ok)
        return std::nullopt;
      if (!chunk)
        continue;
      covered += chunk->bytes();
      x.chunks.push_back(*chunk);
    }
    // Every byte of the tile from exactly one producer core.
    int64_t elementBytes = getElementBytes(x.elementType);
    if (covered !=
        stickElements(dst->boxes[c], dst->elementsPerStick) * elementBytes)
      return std::nullopt;
  }
  return x;
}

double memoryRoundTripNs(const KernelPlan &producer, unsigned result,
                         const KernelPlan &consumer, unsigned input) {
  const PlanTensor &written =
      producer.tensors[producer.kernel.getInputs().size() + result];
  const PlanTensor &read = consumer.tensors[input];
  int64_t stickBytes = producer.arch.stickBytes;
  double stored = double(written.tileBytes(stickBytes) * producer.numCores());
  double loaded = double(read.tileBytes(stickBytes) * consumer.numCores()) /
                  double(std::max<int64_t>(read.sharers, 1));
  return producer.arch.memoryFloorNs(loaded, stored) +
         2 * double(producer.arch.memoryLatencyNs);
}

namespace {

/// One instruction of the exchange as every core runs it: what differs is
/// which cores run it and their peers.
struct RingStep {
  int64_t lx = 0, rows = 1, runBytes = 0, pitch = 0;
  int64_t copyDst = -1; // a local copy's destination (-1: a transfer)
  int64_t dstPitch = 0;
  int64_t occurrence = 0; // how many alike the core ran before
  auto key() const {
    return std::make_tuple(lx, rows, runBytes, pitch, copyDst, dstPitch,
                           occurrence);
  }
  bool operator<(const RingStep &o) const { return key() < o.key(); }
};

/// The cores running each step, with their peers (-1: not running).
using StepCores = std::map<RingStep, SmallVector<int64_t>>;

/// Adds `step` for `core` (talking to `peer`) to `steps`, counting the
/// alike steps the core has already.
void addStep(StepCores &steps, RingStep step, int64_t core, int64_t peer,
             int64_t cores) {
  while (true) {
    auto [it, inserted] =
        steps.try_emplace(step, SmallVector<int64_t>(cores, -1));
    if (it->second[core] < 0) {
      it->second[core] = peer;
      return;
    }
    ++step.occurrence;
  }
}

/// Opens a guard when not every core runs the step, and a loop over its
/// rows when it has several; returns the loops opened.
size_t openStep(ProgramScope &scope, ArrayRef<int64_t> peers,
                const RingStep &step, bool rowLoop = true) {
  size_t opened = 0;
  if (llvm::is_contained(peers, -1)) {
    scope.openGuard(llvm::map_to_vector(
        peers, [](int64_t p) -> int64_t { return p >= 0; }));
    ++opened;
  }
  if (rowLoop && step.rows > 1) {
    scope.openLoop(SmallVector<int64_t>(peers.size(), step.rows),
                   /*tag=*/-2);
    ++opened;
  }
  return opened;
}

/// The LX address of a step's operand at `offset`, advancing `pitch` per
/// row.
LxAddressAttr stepAddress(ProgramScope &scope, const RingStep &step,
                          int64_t offset, int64_t pitch) {
  SmallVector<int64_t> strides;
  if (step.rows > 1) {
    strides.assign(scope.depth(), 0);
    strides.back() = pitch;
  }
  return LxAddressAttr::get(scope.b.getContext(), offset, strides, 0);
}

template <typename RingOp>
void emitTransfers(ProgramScope &scope, const StepCores &steps) {
  for (const auto &[step, peers] : steps) {
    size_t opened = openStep(scope, peers, step);
    int64_t slot = scope.params.slot(llvm::map_to_vector(
        peers, [](int64_t p) { return std::max<int64_t>(p, 0); }));
    RingOp::create(scope.b, scope.loc,
                   stepAddress(scope, step, step.lx, step.pitch), scope.i64(0),
                   slot >= 0 ? scope.i64(slot) : IntegerAttr(), scope.i64(0),
                   scope.i64(step.runBytes), UnitAttr(), UnitAttr());
    for (size_t i = 0; i < opened; ++i)
      scope.closeLoop();
  }
}

void emitCopies(ProgramScope &scope, const StepCores &steps, Type type) {
  int64_t elementBytes = getElementBytes(type);
  for (const auto &[step, cores] : steps) {
    // The SFP walks the rows itself, at each side's pitch.
    size_t opened = openStep(scope, cores, step, /*rowLoop=*/false);
    SfpUnaryOp::create(
        scope.b, scope.loc, scope.b.getStringAttr("copy"),
        LxAddressAttr::get(scope.b.getContext(), step.copyDst, {}, 0),
        LxAddressAttr::get(scope.b.getContext(), step.lx, {}, 0),
        LxAddressAttr(), scope.i64(step.rows),
        scope.i64(step.runBytes / elementBytes),
        scope.b.getDenseI64ArrayAttr({step.dstPitch, step.pitch, 0}),
        TypeAttr::get(type), TypeAttr::get(type), TypeAttr(), UnitAttr(),
        UnitAttr(), UnitAttr(), UnitAttr(), IntegerAttr(), ClampAttr());
    for (size_t i = 0; i < opened; ++i)
      scope.closeLoop();
  }
}

} // namespace

void emitRingExchange(ProgramScope &scope, const RingExchange &exchange) {
  int64_t cores = scope.params.numCores();
  StepCores sends, copies, receives;
  for (const RingChunk &c : exchange.chunks) {
    if (c.from == c.to) {
      addStep(copies,
              {c.srcOffset, c.rows, c.runBytes, c.srcPitch, c.dstOffset,
               c.dstPitch},
              c.to, c.to, cores);
      continue;
    }
    addStep(sends, {c.srcOffset, c.rows, c.runBytes, c.srcPitch}, c.from, c.to,
            cores);
    addStep(receives, {c.dstOffset, c.rows, c.runBytes, c.dstPitch}, c.to,
            c.from, cores);
  }
  emitTransfers<RingSendOp>(scope, sends);
  emitCopies(scope, copies, exchange.elementType);
  emitTransfers<RingRecvOp>(scope, receives);
}

} // namespace spyre
