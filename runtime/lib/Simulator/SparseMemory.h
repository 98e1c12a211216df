//===- SparseMemory.h - Paged device memory of the simulator ----*- C++ -*-===//
//
// The simulator's device memory: pages are allocated on first write, pages
// never written read as zero, so a 128 GiB address space costs only what is
// touched.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_SIMULATOR_SPARSEMEMORY_H
#define SPYRE_RUNTIME_SIMULATOR_SPARSEMEMORY_H

#include <cstdint>
#include <memory>
#include <unordered_map>

namespace spyre::rt::sim {

class SparseMemory {
public:
  /// Host granularity of the sparse memory (not a hardware number).
  static constexpr uint64_t kPageBytes = uint64_t(1) << 16;

  /// Copies [addr, addr + size) out; untouched bytes read as zero.
  void read(uint64_t addr, void *dst, uint64_t size) const;
  /// Copies into [addr, addr + size), allocating pages as needed.
  void write(uint64_t addr, const void *src, uint64_t size);
  /// Copies [src, src + size) to [dst, dst + size) (ranges must not
  /// overlap), through a small fixed buffer: no allocation but pages.
  void copy(uint64_t dst, uint64_t src, uint64_t size);
  /// Makes [addr, addr + size) read as zero again, releasing whole pages.
  void clear(uint64_t addr, uint64_t size);
  /// Host bytes held by pages.
  uint64_t residentBytes() const { return pages_.size() * kPageBytes; }
  /// Host bytes the pages may take; a write that needs more throws
  /// std::bad_alloc (the simulator reports it as OutOfMemory).
  void setLimit(uint64_t bytes) { limit_ = bytes; }
  uint64_t limit() const { return limit_; }

private:
  uint8_t *page(uint64_t index, bool create) const;

  mutable std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
  uint64_t limit_ = UINT64_MAX;
  mutable uint64_t cachedIndex_ = UINT64_MAX;
  mutable uint8_t *cachedPage_ = nullptr;
};

} // namespace spyre::rt::sim

#endif // SPYRE_RUNTIME_SIMULATOR_SPARSEMEMORY_H
