//===- CostModel.cpp - Time of instructions and kernels -------------------===//
//
// The compiler's timing model: instruction costs from the machine
// description, and a kernel's estimate (KernelPlan::estimateNs) following
// the lowering's order on the busiest core (docs/passes.md, "The cost
// model").
//
//===----------------------------------------------------------------------===//

#include "spyre/Transforms/CostModel.h"
#include "spyre/Arch/Bursts.h"
#include "spyre/Support/MathExtras.h"
#include "spyre/Transforms/KernelPlan.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace spyre {

double ptMatmulNs(const Arch &arch, int64_t m, int64_t k, int64_t n) {
  int64_t width = arch.ptCols * arch.ptSimd;
  double macs =
      double(alignTo(m, arch.ptRows)) * double(alignTo(n, width)) * double(k);
  double cycles = std::ceil(macs / double(arch.macsPerCycle())) +
                  double(arch.ptRows + arch.ptCols);
  return arch.coreCyclesToNs(cycles);
}

double sfpNs(const Arch &arch, int64_t rows, int64_t cols, int64_t elementBytes,
             bool complex) {
  int64_t e = arch.elementsPerStick(elementBytes);
  double elems = double(rows) * double(alignTo(cols, e));
  double cycles = std::ceil(elems / double(arch.sfpLanesPerCore));
  if (complex)
    cycles *= double(arch.sfpComplexOpPasses);
  return arch.coreCyclesToNs(cycles);
}

DmaTime dmaTime(const Arch &arch, llvm::ArrayRef<DmaTransfer> transfers,
                int64_t activeCores) {
  DmaTime t;
  double latency = double(arch.memoryLatencyNs);
  bool together = true;
  for (const DmaTransfer &x : transfers) {
    double bandwidth =
        x.write ? arch.memoryWriteBandwidth() : arch.memoryReadBandwidth();
    double service = double(arch.memorySetupNs) +
                     double(x.charged) / bandwidth * 1e9 +
                     (x.write ? 2.0 * double(arch.memoryTurnaroundNs) : 0.0);
    double own =
        std::max(service, double(x.bytes) / arch.ringLinkBandwidth() * 1e9);
    double all = service * double(std::max<int64_t>(activeCores, 1)) /
                 double(std::max<int64_t>(x.sharers, 1));
    t.core += own + latency;
    t.memory += all;
    t.period += std::max(own + latency, all);
    if (together) {
      t.start += std::clamp(all - own, 0.0, latency);
      together = all <= own + latency;
    }
  }
  return t;
}

double pipelineNs(const DmaTime &dma, double compute, const DmaTime &store,
                  int64_t steps, bool overlap) {
  if (steps < 1)
    return 0;
  double n = double(steps);
  if (overlap && steps > 1) {
    // The first compute waits for the first load; the queue then loads the
    // next step and waits for that compute to store. The last compute
    // overlaps the store before it; the last store follows it.
    double load = dma.period - store.period;
    double fill =
        std::max(0.0, compute - load) + std::max(0.0, compute - store.period);
    return n * std::max(dma.period, compute) + std::min(dma.period, fill);
  }
  // The first step in step with the other cores, the rest staggered.
  return dma.period + compute +
         (n - 1) * std::max(dma.memory, dma.core + compute);
}

double rooflineNs(const Arch &arch, int64_t macs, int64_t readBytes,
                  int64_t writtenBytes) {
  double compute = 2.0 * double(macs) / arch.peakFlops() * 1e9;
  return std::max(compute,
                  arch.memoryFloorNs(double(readBytes), double(writtenBytes)));
}

//===----------------------------------------------------------------------===//
// Kernel estimates
//===----------------------------------------------------------------------===//

DmaTransfer PlanTensor::tileTransfer(const Arch &arch) const {
  // A tile is `rows` rows of `sticks` sticks, each stick a run.
  uint64_t counts[2] = {uint64_t(sticks), uint64_t(rows)};
  int64_t pitches[2] = {stickPitch, rowPitch};
  DmaTransfer t;
  t.bytes = tileBytes(arch.stickBytes);
  t.charged =
      int64_t(burstChargedBytes(uint64_t(arch.memoryBurstBytes),
                                uint64_t(arch.stickBytes), counts, pitches, 2));
  t.sharers = sharers;
  t.write = isResult;
  return t;
}

double ringGatherNs(const KernelPlan &plan, const PlanTensor &t) {
  if (t.path != DataPath::ring)
    return 0;
  const Arch &a = plan.arch;
  double hops = double(a.ringHops(0, plan.numCores() - 1));
  return (double(t.tileBytes(a.stickBytes)) / a.ringLinkBandwidth() +
          hops * double(a.ringHopLatencyCycles) / a.ringClockHz) *
         1e9;
}

namespace {

/// A kernel's transfers by when they happen: once (hoisted), per
/// accumulation step, and per tile (loads, stores).
struct KernelTransfers {
  SmallVector<DmaTransfer> once, inner, loads, stores;
};

KernelTransfers transfersOf(const KernelPlan &plan) {
  KernelTransfers t;
  for (const PlanTensor &tensor : plan.tensors) {
    if (!tensor.movesBytes())
      continue; // stays in LX between kernels
    DmaTransfer transfer = tensor.tileTransfer(plan.arch);
    if (tensor.isResult)
      t.stores.push_back(transfer);
    else if (tensor.hoisted)
      t.once.push_back(transfer);
    else if (tensor.variesInAccLoop)
      t.inner.push_back(transfer);
    else
      t.loads.push_back(transfer);
  }
  return t;
}

/// The share of the busiest core: the one with the most tiles (the
/// balanced split gives the larger shares to the higher cores).
CoreShare busiestShare(const KernelPlan &plan) {
  auto work = [](const CoreShare &c) {
    int64_t n = 1;
    for (int64_t t : c.tiles)
      n *= t;
    return n;
  };
  CoreShare s = plan.share(0);
  for (int64_t c = 1; c < plan.numCores(); ++c)
    if (CoreShare other = plan.share(c); work(other) > work(s))
      s = std::move(other);
  return s;
}

/// Per body op in order: its time on one tile and the kernel inputs it
/// reads; and the compute inside and after the accumulation loop.
struct BodyTimes {
  SmallVector<std::pair<double, SmallVector<unsigned>>> ops;
  double inner = 0, epilogue = 0;
};

double bodyOpNs(const KernelPlan &plan, const PlanValue &pv) {
  const Arch &arch = plan.arch;
  int64_t rows = plan.rowTile(), cols = plan.stickTile();
  if (isa<MatmulOp>(pv.op))
    return ptMatmulNs(arch, rows, plan.loops[plan.accLoop].tile, cols);
  if (plan.kind == KernelKind::Transpose)
    return sfpNs(arch, cols, rows, getElementBytes(pv.lxElementType), false);
  OpWork w = cast<ComputeOpInterface>(pv.op).getWork();
  // A reduction reads its whole input tile.
  bool reduce = isa<ReduceOp>(pv.op);
  int64_t r = pv.shape == TileShape::ColReduced && !reduce ? 1 : rows;
  int64_t c = pv.shape == TileShape::RowReduced && !reduce ? 1 : cols;
  double ns = sfpNs(arch, r, c, 4, w.complex);
  // A select is two instructions: copy, then select.
  return isa<SelectOp>(pv.op) ? 2 * ns : ns;
}

BodyTimes bodyTimesOf(const KernelPlan &plan) {
  BodyTimes t;
  for (auto &[v, pv] : plan.values) {
    if (pv.alias)
      continue;
    double ns = bodyOpNs(plan, pv);
    (pv.inner && plan.accLoop >= 0 ? t.inner : t.epilogue) += ns;
    SmallVector<unsigned> reads;
    for (Value operand : pv.op->getOperands())
      if (auto arg = dyn_cast<BlockArgument>(operand))
        reads.push_back(arg.getArgNumber());
    t.ops.push_back({ns, reads});
  }
  // Staging conversions before stores.
  for (size_t j = 0; j < plan.tensors.size(); ++j)
    if (plan.tensors[j].isResult &&
        plan.buffers[plan.tensorBuffer[j]].name.rfind("out", 0) == 0) {
      double ns = sfpNs(plan.arch, plan.rowTile(), plan.stickTile(), 4, false);
      t.epilogue += ns;
      t.ops.push_back({ns, {}});
    }
  return t;
}

/// One tile per core: every load is hoisted, and each op starts once the
/// loads it reads have arrived (a matmul runs while the bias of its
/// epilogue is loaded; an input kept in LX is there from the start, one
/// gathered over the ring once gathered). The stores queue behind the
/// loads.
double oneTileNs(const KernelPlan &plan, const KernelTransfers &t,
                 const BodyTimes &body, double start) {
  int64_t cores = plan.numCores();
  SmallVector<double> arrival;
  double loadStart = 0, end = 0;
  size_t loaded = 0;
  for (const PlanTensor &input : plan.tensors) {
    if (input.isResult)
      break;
    if (input.sameTileAs >= 0) {
      arrival.push_back(arrival[input.sameTileAs]);
      continue;
    }
    if (!input.movesBytes()) {
      arrival.push_back(ringGatherNs(plan, input));
      end = std::max(end, arrival.back());
      continue;
    }
    DmaTime prefix =
        dmaTime(plan.arch, ArrayRef(t.once).take_front(++loaded), cores);
    arrival.push_back(prefix.period + prefix.start);
    loadStart = prefix.start;
    end = arrival.back();
  }
  double tail = 0;
  for (auto &[ns, reads] : llvm::reverse(body.ops)) {
    tail += ns;
    double ready = 0;
    for (unsigned i : reads)
      ready = std::max(ready, arrival[i]);
    end = std::max(end, ready + tail);
  }
  return end + dmaTime(plan.arch, t.stores, cores).period + (start - loadStart);
}

/// The tiles of share `s`, the accumulation loop aside.
int64_t tilesOutsideAccLoop(const KernelPlan &plan, const CoreShare &s) {
  int64_t tiles = 1;
  for (size_t l = 0; l < plan.loops.size(); ++l)
    if (int64_t(l) != plan.accLoop)
      tiles *= s.tiles[l];
  return tiles;
}

/// The hoisted loads, then the kernel's first transfers: what every core
/// issues at once.
SmallVector<DmaTransfer> firstTransfers(const KernelTransfers &t) {
  SmallVector<DmaTransfer> first = t.once;
  llvm::append_range(first, t.loads);
  llvm::append_range(first, t.inner);
  llvm::append_range(first, t.stores);
  return first;
}

/// Whether the core runs one tile and streams nothing.
bool isOneTile(int64_t tiles, int64_t accTiles, const KernelTransfers &t) {
  return tiles == 1 && accTiles == 1 && t.loads.empty() && t.inner.empty();
}

/// Without a streamed accumulation loop a tile is one pipeline step: its
/// loads, all its compute, its stores (the lowering's order). Pipelined,
/// each run of the pipelined loop fills and drains once.
double tilePipelineNs(const KernelPlan &plan, const CoreShare &s,
                      const KernelTransfers &t, const BodyTimes &body,
                      const DmaTime &store, int64_t tiles, double prologue) {
  int64_t cores = plan.numCores();
  SmallVector<DmaTransfer> all = t.loads;
  all.append(t.inner);
  all.append(t.stores);
  int64_t p = plan.pipelinedLoop();
  int64_t run = p >= 0 ? s.tiles[p] : 1;
  return double(tiles / run) * pipelineNs(dmaTime(plan.arch, all, cores),
                                          body.inner + body.epilogue, store,
                                          run, p >= 0) +
         prologue;
}

/// A streamed accumulation loop (matmul k): with depth >= 2 its loads run
/// ahead of its compute. The tile's other loads and its stores do not
/// overlap the stream: the stores wait for the epilogue, and the next
/// tile's loads queue behind them.
double streamedAccNs(const KernelPlan &plan, const KernelTransfers &t,
                     const BodyTimes &body, const DmaTime &store, int64_t tiles,
                     int64_t accTiles, double prologue) {
  int64_t cores = plan.numCores();
  DmaTime inner = dmaTime(plan.arch, t.inner, cores);
  double loads = dmaTime(plan.arch, t.loads, cores).period;
  bool overlap = plan.schedule.getDepth() > 1;
  if (overlap && t.stores.empty()) {
    // Nothing stored per tile (the result stays in LX): the next tile's
    // loads queue behind this tile's stream, not behind its epilogue, so
    // the stream runs on across tiles and fills once; an epilogue longer
    // than a tile's stream shows.
    double step = std::max(inner.period, body.inner);
    double shown = std::max(0.0, body.epilogue - double(accTiles) * step);
    return pipelineNs(inner, body.inner, DmaTime(), tiles * accTiles, true) +
           double(tiles) * (loads + shown) + body.epilogue + prologue;
  }
  double stream = pipelineNs(inner, body.inner, DmaTime(), accTiles, overlap);
  return double(tiles) * (loads + stream + body.epilogue + store.period) +
         prologue;
}

} // namespace

double KernelPlan::estimateNs() const {
  return arch.syncNs(numCores()) + estimateWorkNs();
}

double KernelPlan::estimateWorkNs() const {
  if (isDataMovement())
    return estimateDataMovementNs();
  if (kind == KernelKind::Attention)
    return estimateAttentionNs();
  CoreShare s = busiestShare(*this);
  int64_t accTiles = accLoop >= 0 ? s.tiles[accLoop] : 1;
  int64_t tiles = tilesOutsideAccLoop(*this, s);
  if (tiles == 0 || accTiles == 0)
    return 0;
  int64_t cores = numCores();
  KernelTransfers t = transfersOf(*this);
  BodyTimes body = bodyTimesOf(*this);

  double start = dmaTime(arch, firstTransfers(t), cores).start;
  double gathers = 0;
  for (const PlanTensor &tensor : tensors)
    gathers += ringGatherNs(*this, tensor);
  double prologue = dmaTime(arch, t.once, cores).period + start + gathers;
  DmaTime store = dmaTime(arch, t.stores, cores);

  double reduce = partialSumNs();
  if (isOneTile(tiles, accTiles, t))
    return oneTileNs(*this, t, body, start) + reduce;
  if (accLoop < 0 || !llvm::is_contained(hardwareLoops(), accLoop))
    return tilePipelineNs(*this, s, t, body, store, tiles, prologue) + reduce;
  return streamedAccNs(*this, t, body, store, tiles, accTiles, prologue) +
         reduce;
}

double KernelPlan::partialSumNs() const {
  int64_t g = kSplit();
  if (g <= 1)
    return 0;
  // Every accumulator's sums (a gated MLP has two), one after the other.
  double bytes = 0;
  for (auto &[v, pv] : values)
    if (isa<MatmulOp>(pv.op))
      bytes += double(pv.rows * pv.sticks * arch.stickBytes);
  double transfer = bytes / arch.psumLinkBandwidth() * 1e9;
  // The last tile's sums come down the whole chain after its k loop; each
  // earlier tile delays the next by what a core inside the chain does for
  // it: receive, then pass the sum on (its ring unit does one after the
  // other, and the tile's buffer is not free before); the ends do one.
  int64_t tiles = tilesOutsideAccLoop(*this, busiestShare(*this));
  double perTile = (g > 2 ? 2.0 : 1.0) * transfer;
  return double(tiles - 1) * perTile +
         double(g - 1) * (transfer + arch.psumHopsNs(1));
}

namespace {

/// The device bytes a data-movement kernel reads and writes, in whole
/// sticks of the device layouts (a run inside a stick is charged its
/// bursts). A slice, concatenation or gather reads as many rows as it
/// writes (a gather some rows of its table twice, others never), plus a
/// gather's indices; a repack reads its input, a scatter its inputs.
std::pair<int64_t, int64_t> dataMovementBytes(const KernelPlan &plan) {
  int64_t read = 0, written = 0;
  for (const PlanTensor &t : plan.tensors)
    if (t.isResult)
      written += t.deviceBytes();
  if (plan.repackChunk > 0 || plan.kind == KernelKind::Scatter) {
    for (const PlanTensor &t : plan.tensors)
      if (!t.isResult)
        read += t.deviceBytes();
    return {read, written};
  }
  read = written;
  if (plan.kind == KernelKind::Gather)
    read += plan.tensors[1].deviceBytes(); // the indices
  return {read, written};
}

/// The tiles a concatenation's busiest core moves: per input region, its
/// outer dims in tiles of 1 and its rows in tiles of at most the row tile,
/// each dim split as the schedule splits the kernel's.
int64_t concatTiles(const KernelPlan &plan, ConcatOp concat) {
  int64_t tiles = 0;
  for (Value input : concat.getInputs()) {
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(input.getType()).getShape();
    if (llvm::is_contained(shape, 0))
      continue; // nothing to move
    int64_t region = 1;
    for (size_t d = 0; d + 1 < shape.size(); ++d) {
      int64_t tile =
          d + 2 == shape.size() ? std::min(plan.loops[d].tile, shape[d]) : 1;
      region *= llvm::divideCeil(llvm::divideCeil(shape[d], tile),
                                 plan.loops[d].split);
    }
    tiles += region;
  }
  return tiles;
}

} // namespace

double KernelPlan::estimateDataMovementNs() const {
  // Every byte is read once and written once; cores share the memory node.
  auto [read, written] = dataMovementBytes(*this);
  int64_t cores = kind == KernelKind::Scatter ? 1 : numCores();
  // The tiles the lowering moves: a repack's of repackTileChunks chunks, a
  // concatenation's of each input's region, otherwise of rowTile() rows;
  // the busiest core's share of them (on the cores that have one).
  int64_t tiles;
  auto shareOf = [&](int64_t all) {
    cores = std::max<int64_t>(1, std::min(cores, all));
    return llvm::divideCeil(all, cores);
  };
  if (repackChunk > 0) {
    int64_t chunks = tensors.front().type.getNumElements() / repackChunk;
    tiles = shareOf(llvm::divideCeil(chunks, repackTileChunks));
  } else if (auto concat = dyn_cast<ConcatOp>(kernel.getBodyBlock().front())) {
    tiles = concatTiles(*this, concat);
  } else {
    int64_t rows = 1;
    for (size_t l = 0; l + 1 < loops.size(); ++l)
      rows *= loops[l].size;
    tiles = shareOf(llvm::divideCeil(rows, rowTile()));
  }
  double perCore = double(read + written) / double(cores);
  double stream = std::max(perCore / arch.ringLinkBandwidth() * 1e9,
                           arch.memoryFloorNs(double(read), double(written)));
  // Per tile a load and a store, each its latency and the node's setup
  // (dmaTime's charges), the store also the node's turnarounds.
  double perTile = 2 * double(arch.memoryLatencyNs + arch.memorySetupNs +
                              arch.memoryTurnaroundNs);
  return stream + double(tiles) * perTile;
}

} // namespace spyre
