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

/// The largest tensor a file may declare: 2^48 bytes (256 TiB, 2048 times
/// the largest Spyre memory). Sizes below it leave every later int64 product
/// of a size with a stride, tile count or padding factor far from overflow.
constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 48;

/// Bytes of a dense tensor of `sizes` (negative entries, dynamic dims, are
/// skipped), or nullopt when they exceed kMaxTensorBytes. Computed with
/// overflow checks: a file's sizes are untrusted, and a product that wraps
/// would size a buffer too small for the elements written into it.
inline std::optional<uint64_t> denseTensorBytes(llvm::ArrayRef<int64_t> sizes,
                                                uint64_t elementBytes) {
  uint64_t bytes = elementBytes;
  for (int64_t size : sizes)
    if (size >= 0 && (__builtin_mul_overflow(bytes, uint64_t(size), &bytes) ||
                      bytes > kMaxTensorBytes))
      return std::nullopt;
  if (bytes > kMaxTensorBytes)
    return std::nullopt;
  return bytes;
}

} // namespace spyre

#endif // SPYRE_TARGET_PT2_STRIDEDVIEW_H
