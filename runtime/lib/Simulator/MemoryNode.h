//===- MemoryNode.h - The device memory interface as one server -*- C++ -*-===//
//
// Every core's transfers queue at one memory node, served in arrival order:
// a transfer occupies the node for its setup plus its bytes charged at
// burst granularity, at the read or the write bandwidth, plus a turnaround
// when the node switches between reading and writing (docs/isa.md
// "Timing").
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_SIMULATOR_MEMORYNODE_H
#define SPYRE_RUNTIME_SIMULATOR_MEMORYNODE_H

#include "Timing.h"

#include <algorithm>
#include <cstdint>

namespace spyre::rt::sim {

class MemoryNode {
public:
  MemoryNode(const Timing &timing, uint64_t startPs)
      : timing_(timing), freePs_(startPs) {}

  /// When the node serves a transfer arriving at `now`.
  struct Service {
    uint64_t startPs, endPs;
  };

  /// Queues a transfer charged `chargedBytes`, a write or a read.
  Service serve(uint64_t now, uint64_t chargedBytes, bool write) {
    uint64_t start = std::max(now, freePs_);
    if (served_ && write != lastWrite_)
      start += timing_.memoryTurnaroundPs();
    uint64_t end = start + timing_.memoryPs(chargedBytes, write);
    freePs_ = end;
    served_ = true;
    lastWrite_ = write;
    return Service{start, end};
  }

private:
  const Timing &timing_;
  uint64_t freePs_;
  bool served_ = false, lastWrite_ = false;
};

} // namespace spyre::rt::sim

#endif // SPYRE_RUNTIME_SIMULATOR_MEMORYNODE_H
