//===- MathExtras.h - Alignment arithmetic ----------------------*- C++ -*-===//
//
// The one definition of rounding up to a multiple, shared by the compiler,
// the .spy writer and the runtime. Header-only plain C++, no LLVM (the
// runtime does not link it).
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_SUPPORT_MATHEXTRAS_H
#define SPYRE_SUPPORT_MATHEXTRAS_H

#include <cstdint>
#include <type_traits>

namespace spyre {

/// `value` rounded up to a multiple of `alignment` (> 0; any value, not only
/// powers of two), in the type of `value`. `value` must not be negative and
/// the result must be representable.
template <typename T, typename U> constexpr T alignTo(T value, U alignment) {
  static_assert(std::is_integral_v<T> && std::is_integral_v<U>,
                "alignTo rounds integers");
  T a = T(alignment);
  return (value + a - 1) / a * a;
}

/// Whether `v` is a power of two (0 is not).
constexpr bool isPowerOfTwo(uint64_t v) { return v && !(v & (v - 1)); }

} // namespace spyre

#endif // SPYRE_SUPPORT_MATHEXTRAS_H
