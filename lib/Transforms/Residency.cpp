//===- Residency.cpp - Kernel results kept in LX for their readers --------===//

#include "Residency.h"
#include "RingExchange.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace spyre {

namespace {

/// What core `c` moves of a tensor: the device offset of its tile's (or
/// slab's) first element and the rows it moves (fewer at a clamped edge).
struct CoreTile {
  int64_t offset = 0, rows = 0;
  bool operator==(const CoreTile &o) const {
    return offset == o.offset && rows == o.rows;
  }
};

/// Every core's tile of `t`, or nullopt when `t` moves more than once on
/// a core or some core of the kernel has no work.
std::optional<SmallVector<CoreTile>> coreTiles(const KernelPlan &plan,
                                               const PlanTensor &t) {
  if (!plan.canHandOffInLx(t))
    return std::nullopt;
  SmallVector<CoreTile> tiles;
  for (int64_t c = 0; c < plan.numCores(); ++c) {
    CoreShare share = plan.share(c);
    if (llvm::is_contained(share.tiles, 0))
      return std::nullopt;
    int64_t rows = 1;
    if (t.rowLoop >= 0)
      rows = std::min(t.lxRows(),
                      plan.loops[t.rowLoop].size - share.start[t.rowLoop]);
    tiles.push_back({t.offsetOf(share.start), rows});
  }
  return tiles;
}

/// The handoff of result `j` of `plans[p]`, when it qualifies.
std::optional<Handoff> handoffOf(ArrayRef<KernelPlan> plans,
                                 const DenseMap<Operation *, size_t> &position,
                                 size_t p, unsigned j, bool overRing) {
  const KernelPlan &producer = plans[p];
  Value r = producer.kernel->getResult(j);
  // Readers in place and over the ring both take a tile that moves once
  // per core.
  if (!producer.canHandOffInLx(
          producer.tensors[producer.kernel.getInputs().size() + j]))
    return std::nullopt;
  Handoff h;
  h.producer = p;
  h.result = j;
  h.producerBuffer =
      producer.tensorBuffer[producer.kernel.getInputs().size() + j];
  h.bytes = producer.buffers[h.producerBuffer].bytes;
  SmallPtrSet<Operation *, 4> seen;
  for (OpOperand &use : r.getUses()) {
    auto reader = dyn_cast<KernelOp>(use.getOwner());
    if (reader && !seen.insert(reader).second)
      return std::nullopt;
    if (!reader || !position.count(reader) || position.lookup(reader) <= p) {
      h.stored = true;
      continue;
    }
    size_t c = position.lookup(reader);
    const KernelPlan &consumer = plans[c];
    unsigned input = use.getOperandNumber();
    // A reader gathering the tile keeps the producer's region free beside
    // its own buffers.
    bool gathers = !tilesStayPut(producer, j, consumer, input);
    if (gathers &&
        (!overRing || !ringPays(producer, j, consumer, input) ||
         consumer.lxBytes() + h.bytes > producer.arch.usableLxBytes())) {
      h.stored = true;
      continue;
    }
    h.readers.push_back({c, input, consumer.tensorBuffer[input], gathers});
  }
  if (h.readers.empty())
    return std::nullopt;
  llvm::sort(h.readers, [](const Handoff::Reader &a, const Handoff::Reader &b) {
    return a.kernel < b.kernel;
  });
  return h;
}

} // namespace

bool ringPays(const KernelPlan &producer, unsigned result,
              const KernelPlan &consumer, unsigned input) {
  std::optional<RingExchange> x =
      planRingExchange(producer, result, consumer, input);
  return x && x->estimateNs(producer.arch) <
                  memoryRoundTripNs(producer, result, consumer, input);
}

bool tilesStayPut(const KernelPlan &producer, unsigned result,
                  const KernelPlan &consumer, unsigned input) {
  if (producer.numCores() != consumer.numCores())
    return false;
  size_t resultTensor = producer.kernel.getInputs().size() + result;
  const PlanTensor &written = producer.tensors[resultTensor];
  const PlanTensor &read = consumer.tensors[input];
  if (!written.sameTileShape(read))
    return false;
  auto w = coreTiles(producer, written);
  auto r = coreTiles(consumer, read);
  if (!w || !r || *w != *r)
    return false;
  const PlanBuffer &pb = producer.buffers[producer.tensorBuffer[resultTensor]];
  const PlanBuffer &cb = consumer.buffers[consumer.tensorBuffer[input]];
  return pb.bytes == cb.bytes && cb.copies == 1;
}

SmallVector<Handoff> findHandoffs(ArrayRef<KernelPlan> plans, bool overRing) {
  DenseMap<Operation *, size_t> position;
  for (auto [i, plan] : llvm::enumerate(plans))
    position[plan.kernel] = i;
  SmallVector<Handoff> handoffs;
  for (size_t p = 0; p < plans.size(); ++p)
    for (unsigned j = 0; j < plans[p].kernel.getNumResults(); ++j)
      if (std::optional<Handoff> h = handoffOf(plans, position, p, j, overRing))
        handoffs.push_back(*h);
  return handoffs;
}

} // namespace spyre
