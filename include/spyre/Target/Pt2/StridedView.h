//===- StridedView.h - Bounds of a strided tensor view ----------*- C++ -*-===//
//
// Weights in an archive are views of a storage (sizes, strides, storage
// offset in elements), as untrusted as the rest of the file: their extent is
// computed with overflow checks before anything is read.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TARGET_PT2_STRIDEDVIEW_H
#define SPYRE_TARGET_PT2_STRIDEDVIEW_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>

namespace spyre {

/// Elements of storage the view reaches (offset + sum((size - 1) * stride)
/// + 1; 0 for an empty view). nullopt when the ranks differ, a size, stride
/// or the offset is negative, or the arithmetic overflows.
inline std::optional<uint64_t> stridedViewSpan(llvm::ArrayRef<int64_t> sizes,
                                               llvm::ArrayRef<int64_t> strides,
                                               int64_t offset) {
  if (sizes.size() != strides.size() || offset < 0)
    return std::nullopt;
  for (auto [size, stride] : llvm::zip(sizes, strides))
    if (size < 0 || stride < 0)
      return std::nullopt;
  for (int64_t size : sizes)
    if (size == 0)
      return 0;
  uint64_t last = uint64_t(offset), step;
  for (auto [size, stride] : llvm::zip(sizes, strides))
    if (__builtin_mul_overflow(uint64_t(size - 1), uint64_t(stride), &step) ||
        __builtin_add_overflow(last, step, &last))
      return std::nullopt;
  if (last == UINT64_MAX)
    return std::nullopt;
  return last + 1;
}

} // namespace spyre

#endif // SPYRE_TARGET_PT2_STRIDEDVIEW_H
