//===- Elements.h - Element loads and stores of the simulator ---*- C++ -*-===//
//
// Conversions between stored elements (spy::ElementStorage) and the compute
// domains of the simulator, fp32 and int64, a run of consecutive elements at
// a time (the per-element switch is hoisted out of every loop).
//
// Conversions into integer storage truncate toward zero, map NaN to 0 and
// saturate at the int64 range before wrapping to the element width; into
// Bool they test != 0.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_SIMULATOR_ELEMENTS_H
#define SPYRE_RUNTIME_SIMULATOR_ELEMENTS_H

#include "spyre/ISA/ElementMath.h"
#include "spyre/Spy/Layout.h"

#include <cstddef>
#include <cstdint>

namespace spyre::rt::sim {

using spy::ElementStorage;

/// Whether elements of this storage are integers (I8, I32, I64, Bool).
inline bool isIntegerStorage(ElementStorage s) {
  return s == ElementStorage::I8 || s == ElementStorage::I32 ||
         s == ElementStorage::I64 || s == ElementStorage::Bool;
}

/// Bytes of one stored element.
uint32_t storageBytes(ElementStorage s);

/// Loads `n` consecutive elements at `src` as fp32.
void loadF32(ElementStorage s, const uint8_t *src, size_t n, float *out);
/// Stores `n` fp32 values as consecutive elements at `dst`.
void storeF32(ElementStorage s, const float *in, size_t n, uint8_t *dst);
/// Loads `n` consecutive integer (or float, truncated) elements as int64.
void loadI64(ElementStorage s, const uint8_t *src, size_t n, int64_t *out);
/// Stores `n` int64 values as consecutive elements at `dst`.
void storeI64(ElementStorage s, const int64_t *in, size_t n, uint8_t *dst);

using isa::floatToInt64; // spyre/ISA/ElementMath.h

/// Whether the element at `p` is non-zero (float -0 is zero, NaN is not).
bool isNonZero(ElementStorage s, const uint8_t *p);

} // namespace spyre::rt::sim

#endif // SPYRE_RUNTIME_SIMULATOR_ELEMENTS_H
