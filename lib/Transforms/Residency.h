//===- Residency.h - Results kept in LX for their consumer ------*- C++ -*-===//
//
// A handoff is a kernel result kept in LX for its consumers: on every core,
// each of them reads exactly the tile its producer wrote there (or gathers
// it over the ring), so the tile stays in that core's LX from the producer
// to the last of them, which load nothing. The producer stores nothing,
// unless some other use reads the result from device memory.
// spyre-allocate-scratchpad finds the candidates here and keeps those whose
// LX region every kernel in between can leave free.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TRANSFORMS_RESIDENCY_H
#define SPYRE_TRANSFORMS_RESIDENCY_H

#include "spyre/Transforms/KernelPlan.h"

namespace spyre {

struct Handoff {
  /// One kernel reading the tile: in place, or gathering it over the ring.
  struct Reader {
    size_t kernel = 0; // position in the launch plan
    unsigned input = 0;
    int64_t buffer = -1; // its LX buffer (index into the plan's buffers)
    /// Its tiles are not the producer's: it gathers them over the ring
    /// (RingExchange.h) into a buffer of its own, and the region stays
    /// free through it.
    bool gathers = false;
  };
  /// Position of the producer in the launch plan, its result and its LX
  /// buffer.
  size_t producer = 0;
  unsigned result = 0;
  int64_t producerBuffer = -1;
  /// Every use of the result, in plan order.
  llvm::SmallVector<Reader, 2> readers;
  /// LX bytes held from the producer through the last reader.
  int64_t bytes = 0;
  /// LX offset of the tile on every core, set when the producer is placed.
  int64_t offset = -1;
  /// False once dropped: the result goes through device memory.
  bool kept = true;
  /// Some use reads the result from device memory (a graph output, a view,
  /// a kernel whose tiles are not the producer's): the producer stores it
  /// as well (`lx_dma`).
  bool stored = false;

  size_t lastReader() const { return readers.back().kernel; }
  /// Whether the region is held while kernel `k` runs (its producer
  /// placed it before, its last reader has not run yet or is `k`).
  bool heldAt(size_t k) const {
    return kept && producer < k && k <= lastReader();
  }
  /// The reader that is kernel `k`, if any.
  const Reader *readerAt(size_t k) const {
    for (const Reader &r : readers)
      if (r.kernel == k)
        return &r;
    return nullptr;
  }
};

/// Whether, on every core, `consumer` reads its input `input` exactly as
/// `producer` left its result `result` in LX: the same cores, one tile per
/// core in both, the same element range and the same LX arrangement.
bool tilesStayPut(const KernelPlan &producer, unsigned result,
                  const KernelPlan &consumer, unsigned input);

/// Whether `consumer`, a reader of `producer`'s result `result` (as its
/// input `input`), gathers its tiles over the ring (planRingExchange)
/// faster than a round trip through device memory would take.
bool ringPays(const KernelPlan &producer, unsigned result,
              const KernelPlan &consumer, unsigned input);

/// The handoffs residency can serve between `plans` (one function's
/// kernels in launch order): a result read by some later kernel (once)
/// where tilesStayPut holds or, with `overRing`, whose tiles the reader
/// can gather over the ring (planRingExchange) faster than through device
/// memory; its other uses, if any, read it from device memory (`stored`).
/// A kernel reading it twice takes none.
/// Data-movement and attention kernels keep their own transfers (not
/// handled).
llvm::SmallVector<Handoff> findHandoffs(llvm::ArrayRef<KernelPlan> plans,
                                        bool overRing);

} // namespace spyre

#endif // SPYRE_TRANSFORMS_RESIDENCY_H
