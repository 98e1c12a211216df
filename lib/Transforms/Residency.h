//===- Residency.h - Results kept in LX for their consumer ------*- C++ -*-===//
//
// A handoff is a kernel result that never goes to device memory: on every
// core, its one consumer reads exactly the tile its producer wrote there,
// so the tile stays in that core's LX between the two kernels (the
// producer stores nothing, the consumer loads nothing).
// spyre-allocate-scratchpad finds the candidates here and keeps those whose
// LX region every kernel in between can leave free.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TRANSFORMS_RESIDENCY_H
#define SPYRE_TRANSFORMS_RESIDENCY_H

#include "spyre/Transforms/KernelPlan.h"

namespace spyre {

struct Handoff {
  /// Positions of the producer and the consumer in the launch plan.
  size_t producer = 0, consumer = 0;
  /// The producer's result and the consumer's input.
  unsigned result = 0, input = 0;
  /// Their LX buffers (indices into each plan's buffers).
  int64_t producerBuffer = -1, consumerBuffer = -1;
  /// LX bytes held from the producer through the consumer.
  int64_t bytes = 0;
  /// LX offset of the tile on every core, set when the producer is placed.
  int64_t offset = -1;
  /// False once dropped: the result goes through device memory.
  bool kept = true;

  /// Whether the region is held while kernel `k` runs (its producer
  /// placed it before, its consumer has not run yet or is `k`).
  bool heldAt(size_t k) const { return kept && producer < k && k <= consumer; }
};

/// The handoffs residency can serve between `plans` (one function's
/// kernels in launch order): a result with one use, an input of a later
/// kernel, where both kernels run on the same cores, move the tensor once
/// per core (one tile) with the same geometry, and every core's tile is
/// the same element range in both. Data-movement and attention kernels
/// keep their own transfers (not handled).
llvm::SmallVector<Handoff> findHandoffs(llvm::ArrayRef<KernelPlan> plans);

} // namespace spyre

#endif // SPYRE_TRANSFORMS_RESIDENCY_H
