//===- DeviceAllocator.cpp - Address allocation of the simulator ----------===//

#include "DeviceAllocator.h"

#include <iterator>

namespace spyre::rt::sim {

DeviceAllocator::DeviceAllocator(uint64_t base, uint64_t limit) {
  if (limit > base)
    free_[base] = limit - base;
}

bool DeviceAllocator::allocate(uint64_t size, uint64_t alignment,
                               MemoryKind kind, uint64_t &out) {
  if (size == 0)
    size = 1; // distinct addresses for empty tensors
  if (alignment == 0 || (alignment & (alignment - 1)))
    return false;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    uint64_t start = it->first, length = it->second;
    uint64_t aligned = (start + alignment - 1) & ~(alignment - 1);
    if (aligned < start || aligned - start > length ||
        size > length - (aligned - start))
      continue;
    uint64_t end = aligned + size, rangeEnd = start + length;
    free_.erase(it);
    if (aligned > start)
      free_[start] = aligned - start;
    if (rangeEnd > end)
      free_[end] = rangeEnd - end;
    used_[aligned] = Allocation{aligned, size, kind};
    allocatedBytes_ += size;
    out = aligned;
    return true;
  }
  return false;
}

bool DeviceAllocator::free(uint64_t addr, Allocation &freed) {
  auto it = used_.find(addr);
  if (it == used_.end())
    return false;
  freed = it->second;
  used_.erase(it);
  allocatedBytes_ -= freed.size;
  uint64_t start = freed.base, length = freed.size;
  // Coalesce with the neighbours.
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + length) {
    length += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      length += prev->second;
      free_.erase(prev);
    }
  }
  free_[start] = length;
  return true;
}

const Allocation *DeviceAllocator::find(uint64_t addr, uint64_t size) const {
  auto it = used_.upper_bound(addr);
  if (it == used_.begin())
    return nullptr;
  const Allocation &a = std::prev(it)->second;
  if (addr - a.base > a.size || size > a.size - (addr - a.base))
    return nullptr;
  return &a;
}

} // namespace spyre::rt::sim
