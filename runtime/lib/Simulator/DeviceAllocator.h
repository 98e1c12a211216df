//===- DeviceAllocator.h - Address allocation of the simulator --*- C++ -*-===//
//
// First-fit allocation of device addresses with coalescing free ranges, and
// the lookup the simulator uses to check that every device memory access of
// a program stays inside one live allocation.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_SIMULATOR_DEVICEALLOCATOR_H
#define SPYRE_RUNTIME_SIMULATOR_DEVICEALLOCATOR_H

#include "spyre/Runtime/Device.h"

#include <cstdint>
#include <map>

namespace spyre::rt::sim {

/// One live allocation.
struct Allocation {
  uint64_t base = 0;
  uint64_t size = 0;
  MemoryKind kind = MemoryKind::Data;
};

class DeviceAllocator {
public:
  /// Manages addresses [base, limit).
  DeviceAllocator(uint64_t base, uint64_t limit);

  /// Allocates; false when no free range fits.
  bool allocate(uint64_t size, uint64_t alignment, MemoryKind kind,
                uint64_t &out);
  /// Frees the allocation starting at `addr`; false if there is none.
  bool free(uint64_t addr, Allocation &freed);
  /// The live allocation holding all of [addr, addr + size), or null.
  const Allocation *find(uint64_t addr, uint64_t size) const;
  /// Bytes allocated.
  uint64_t allocatedBytes() const { return allocatedBytes_; }

private:
  std::map<uint64_t, uint64_t> free_; // start -> size
  std::map<uint64_t, Allocation> used_;
  uint64_t allocatedBytes_ = 0;
};

} // namespace spyre::rt::sim

#endif // SPYRE_RUNTIME_SIMULATOR_DEVICEALLOCATOR_H
