//===- Bursts.h - Device memory bytes charged at burst granularity -*- C++
//-*-===//
//
// Device memory is accessed in bursts of `memory_burst_bytes`: a transfer
// pays for every burst it touches, so scattered runs shorter than a burst
// pay whole bursts. The simulator charges its DMAs with this function and
// the compiler's cost model its tile transfers (one formula for both).
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_ARCH_BURSTS_H
#define SPYRE_ARCH_BURSTS_H

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace spyre {

/// The bytes a strided transfer is charged: `run` contiguous bytes, repeated
/// counts[d] times `pitches[d]` bytes apart along each of `dims` dimensions
/// (innermost first). Per dimension the charge is the smaller of the
/// repetitions' charges added up and the bursts the dimension's whole span
/// covers (runs closer than a burst share it). Runs are taken to start on a
/// burst boundary. Saturates instead of overflowing.
inline uint64_t burstChargedBytes(uint64_t burst, uint64_t run,
                                  const uint64_t *counts,
                                  const int64_t *pitches, unsigned dims) {
  using Wide = unsigned __int128;
  if (burst == 0 || run == 0)
    return run;
  auto roundUp = [&](Wide v) { return (v + burst - 1) / burst * burst; };
  Wide charge = roundUp(run), extent = run;
  for (unsigned d = 0; d < dims; ++d) {
    if (counts[d] == 0)
      return 0;
    if (counts[d] == 1)
      continue;
    Wide pitch = Wide(uint64_t(std::llabs(pitches[d])));
    Wide span = Wide(counts[d] - 1) * pitch + extent;
    charge = std::min(charge * counts[d], roundUp(span));
    extent = std::min(span, Wide(UINT64_MAX));
    if (charge > Wide(UINT64_MAX / 4))
      return UINT64_MAX / 4;
  }
  return uint64_t(charge);
}

} // namespace spyre

#endif // SPYRE_ARCH_BURSTS_H
