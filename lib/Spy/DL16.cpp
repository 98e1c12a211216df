//===- DL16.cpp - DLFloat16, IEEE fp16 and bf16 conversions ---------------===//

#include "spyre/Spy/DL16.h"

#include <vector>

namespace spyre::spy {

namespace {

/// Round to nearest, ties to even: whether `kept` (the bits kept) rounds up
/// given the bits dropped, `rest`, and half of their weight, `half`.
bool roundsUp(uint32_t kept, uint32_t rest, uint32_t half) {
  return rest > half || (rest == half && (kept & 1));
}

/// A rounded DL16 of biased `exponent` and 9-bit `fraction`: zero below the
/// smallest non-zero magnitude, NaN/infinity on overflow.
uint16_t packDL16(uint16_t sign, int32_t exponent, uint32_t fraction) {
  if (exponent < 0 || (exponent == 0 && fraction == 0))
    return sign; // below the smallest non-zero magnitude: flush to zero
  if (exponent > 63 || (exponent == 63 && fraction == 0x1ffu))
    return sign | kDL16Ninf; // overflow
  return uint16_t(sign | (uint32_t(exponent) << 9) | fraction);
}

/// An fp32 magnitude below fp16's smallest normal, as an fp16 subnormal (or
/// zero): value = m * 2^-24.
uint16_t halfSubnormal(uint16_t sign, uint32_t magnitude) {
  if (magnitude < 0x33000000u) // < 2^-25: rounds to zero
    return sign;
  uint32_t exponent = magnitude >> 23;
  uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - exponent; // 14..24
  uint32_t result = mantissa >> shift;
  uint32_t rest = mantissa & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (roundsUp(result, rest, half))
    ++result;
  return uint16_t(sign | result);
}

} // namespace

uint16_t floatToDL16(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) // infinity or NaN
    return sign | kDL16Ninf;
  uint32_t exponent32 = magnitude >> 23;
  if (exponent32 == 0) // zero or an fp32 subnormal: far below DL16's range
    return sign;
  int32_t exponent = int32_t(exponent32) - 127 + 31;
  uint32_t mantissa = magnitude & 0x7fffffu;
  // Round the 23-bit fraction to 9 bits, to nearest even.
  uint32_t fraction = mantissa >> 14;
  uint32_t rest = mantissa & 0x3fffu;
  if (roundsUp(fraction, rest, 0x2000u))
    ++fraction;
  if (fraction == 0x200u) {
    fraction = 0;
    ++exponent;
  }
  return packDL16(sign, exponent, fraction);
}

uint16_t floatToDL16Saturating(float value) {
  uint16_t code = floatToDL16(value);
  bool finite = (floatBits(value) & 0x7f800000u) != 0x7f800000u;
  if ((code & 0x7fff) == kDL16Ninf && finite)
    return uint16_t((code & 0x8000) | kDL16Max);
  return code;
}

uint16_t dl16ToHalf(uint16_t code) {
  constexpr uint16_t kTwoTo16 = (16 + 31) << 9; // 2^16 in DL16
  if ((code & 0x7fff) == kTwoTo16)
    return uint16_t((code & 0x8000) | 0x7bff); // +-65504
  return floatToHalf(dl16ToFloat(code));
}

uint16_t dl16ToBF16(uint16_t code) {
  if ((code & 0x7fff) == kDL16Max)
    return uint16_t((code & 0x8000) | 0x7f7f); // +-3.3895e38
  return floatToBF16(dl16ToFloat(code));
}

const float *dl16DecodeTable() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (uint32_t c = 0; c < 65536; ++c)
      t[c] = dl16ToFloat(uint16_t(c));
    return t;
  }();
  return table.data();
}

uint16_t floatToHalf(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN: keep the top payload bits, quiet
    return uint16_t(sign | 0x7e00 | ((magnitude >> 13) & 0x1ff));
  if (magnitude >= 0x47800000u) // >= 65536 (or inf): rounds to infinity
    return sign | 0x7c00;
  if (magnitude < 0x38800000u) // result is subnormal (or zero)
    return halfSubnormal(sign, magnitude);
  // Normal: rebias the exponent and round the fraction to 10 bits. A carry
  // out of the fraction correctly bumps the exponent (up to infinity).
  uint32_t result = ((magnitude - 0x38000000u) >> 13);
  uint32_t rest = magnitude & 0x1fffu;
  if (roundsUp(result, rest, 0x1000u))
    ++result;
  return uint16_t(sign | result);
}

float halfToFloat(uint16_t half) {
  uint32_t sign = uint32_t(half & 0x8000) << 16;
  uint32_t exponent = (half >> 10) & 0x1f;
  uint32_t fraction = half & 0x3ff;
  if (exponent == 0x1f)
    return bitsToFloat(sign | 0x7f800000u | (fraction << 13));
  if (exponent == 0) {
    if (fraction == 0)
      return bitsToFloat(sign);
    // Subnormal: fraction * 2^-24, exact in fp32.
    float v = float(fraction) * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  return bitsToFloat(sign | ((exponent + 127 - 15) << 23) | (fraction << 13));
}

const float *halfDecodeTable() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (uint32_t c = 0; c < 65536; ++c)
      t[c] = halfToFloat(uint16_t(c));
    return t;
  }();
  return table.data();
}

const uint16_t *halfToDL16Table() {
  static const std::vector<uint16_t> table = [] {
    std::vector<uint16_t> t(65536);
    for (uint32_t h = 0; h < 65536; ++h)
      t[h] = floatToDL16(halfToFloat(uint16_t(h)));
    return t;
  }();
  return table.data();
}

const uint16_t *bf16ToDL16Table() {
  static const std::vector<uint16_t> table = [] {
    std::vector<uint16_t> t(65536);
    for (uint32_t b = 0; b < 65536; ++b)
      t[b] = floatToDL16Saturating(bf16ToFloat(uint16_t(b)));
    return t;
  }();
  return table.data();
}

} // namespace spyre::spy
