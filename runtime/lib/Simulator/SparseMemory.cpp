//===- SparseMemory.cpp - Paged device memory of the simulator ------------===//

#include "SparseMemory.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace spyre::rt::sim {

uint8_t *SparseMemory::page(uint64_t index, bool create) const {
  if (index == cachedIndex_)
    return cachedPage_;
  auto it = pages_.find(index);
  uint8_t *p = nullptr;
  if (it != pages_.end()) {
    p = it->second.get();
  } else if (create) {
    if (residentBytes() + kPageBytes > limit_)
      throw std::bad_alloc();
    auto fresh = std::make_unique<uint8_t[]>(kPageBytes); // zeroed
    p = fresh.get();
    pages_.emplace(index, std::move(fresh));
  } else {
    return nullptr; // do not cache misses: a later write may create it
  }
  cachedIndex_ = index;
  cachedPage_ = p;
  return p;
}

void SparseMemory::read(uint64_t addr, void *dst, uint64_t size) const {
  auto *out = static_cast<uint8_t *>(dst);
  while (size) {
    uint64_t offset = addr % kPageBytes;
    uint64_t n = std::min(size, kPageBytes - offset);
    const uint8_t *p = page(addr / kPageBytes, false);
    if (p)
      std::memcpy(out, p + offset, n);
    else
      std::memset(out, 0, n);
    out += n;
    addr += n;
    size -= n;
  }
}

void SparseMemory::write(uint64_t addr, const void *src, uint64_t size) {
  const auto *in = static_cast<const uint8_t *>(src);
  while (size) {
    uint64_t offset = addr % kPageBytes;
    uint64_t n = std::min(size, kPageBytes - offset);
    std::memcpy(page(addr / kPageBytes, true) + offset, in, n);
    in += n;
    addr += n;
    size -= n;
  }
}

void SparseMemory::copy(uint64_t dst, uint64_t src, uint64_t size) {
  uint8_t staging[4096];
  while (size) {
    uint64_t n = std::min<uint64_t>(size, sizeof(staging));
    read(src, staging, n);
    write(dst, staging, n);
    src += n;
    dst += n;
    size -= n;
  }
}

void SparseMemory::clear(uint64_t addr, uint64_t size) {
  while (size) {
    uint64_t offset = addr % kPageBytes;
    uint64_t n = std::min(size, kPageBytes - offset);
    uint64_t index = addr / kPageBytes;
    if (n == kPageBytes) {
      pages_.erase(index);
      if (cachedIndex_ == index) {
        cachedIndex_ = UINT64_MAX;
        cachedPage_ = nullptr;
      }
    } else if (uint8_t *p = page(index, false)) {
      std::memset(p + offset, 0, n);
    }
    addr += n;
    size -= n;
  }
}

} // namespace spyre::rt::sim
