//===- RingExchange.h - A kept result regrouped over the ring ---*- C++ -*-===//
//
// A consumer reading a result its producer kept in LX, on cores whose
// tiles are not the producer's (another split, the same tile on another
// core, a consumer tile made of several producer tiles or a part of one),
// gathers its tile over the ring instead of through device memory: a
// *chunk* is what one consumer core's tile shares with one producer core's
// tile, moved by a ring send/receive pair (an SFP copy where both are the
// same core). Every core first sends what it holds, then copies its own
// part, then receives the rest, all before the consumer computes.
//
// Handled: both kernels move the tensor once per core (one tile), the
// producer on no more cores than the consumer, dims indexed by plain loops
// (no window offsets), tiles made of rows along one dim and whole sticks
// along the stick dim. Internal to lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_LIB_TRANSFORMS_RINGEXCHANGE_H
#define SPYRE_LIB_TRANSFORMS_RINGEXCHANGE_H

#include "ProgramScope.h"
#include "spyre/Transforms/KernelPlan.h"

namespace spyre {

/// The part of producer core `from`'s tile that consumer core `to` reads:
/// `rows` runs of `runBytes`, `srcPitch` bytes apart in the producer's
/// buffer and `dstPitch` apart in the consumer's.
struct RingChunk {
  int64_t from = 0, to = 0;
  /// Bytes from the start of the producer's / the consumer's buffer (or,
  /// once placed, LX offsets).
  int64_t srcOffset = 0, dstOffset = 0;
  int64_t rows = 1, runBytes = 0;
  int64_t srcPitch = 0, dstPitch = 0;
  int64_t bytes() const { return rows * runBytes; }
};

struct RingExchange {
  llvm::SmallVector<RingChunk> chunks;
  /// The tensor's element type (what a local copy moves).
  mlir::Type elementType;
  /// Cores of the consumer (every chunk's `from` and `to` is below).
  int64_t cores = 1;

  /// The same exchange with the producer's tile at LX offset `held` and
  /// the consumer's buffer at `buffer`.
  RingExchange placed(int64_t held, int64_t buffer) const;
  /// Estimated nanoseconds: the busiest ring link, core or local copy at
  /// their rates, plus the longest path's hop latency.
  double estimateNs(const Arch &arch) const;
  /// Bytes that cross the ring.
  int64_t ringBytes() const;
};

/// How `consumer`'s input `input` gathers its tiles from the tiles
/// `producer` keeps of its result `result`, or std::nullopt when the pair
/// is not one this handles (see above) or some core's tile is not covered
/// exactly once.
std::optional<RingExchange> planRingExchange(const KernelPlan &producer,
                                             unsigned result,
                                             const KernelPlan &consumer,
                                             unsigned input);

/// Estimated nanoseconds of the same handoff through device memory: the
/// producer stores its tiles, the consumer loads its own (one read per
/// multicast group).
double memoryRoundTripNs(const KernelPlan &producer, unsigned result,
                         const KernelPlan &consumer, unsigned input);

/// Emits a placed exchange at the start of the consumer's program: on every
/// core its sends, its local copies, then its receives. Instructions that
/// only some cores run are guarded; peers come from parameter slots.
void emitRingExchange(ProgramScope &scope, const RingExchange &exchange);

} // namespace spyre

#endif // SPYRE_LIB_TRANSFORMS_RINGEXCHANGE_H
