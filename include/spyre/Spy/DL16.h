//===- DL16.h - DLFloat16, IEEE fp16 and bf16 conversions -------*- C++ -*-===//
//
// Scalar conversions between fp32 and the 16-bit storage formats of the
// machine: DLFloat16 (Spyre's storage format for fp16 and bf16 when the
// machine description says fp16_storage = "dl16"), IEEE binary16 and bfloat16.
// Plain C++, no LLVM.
//
// DLFloat16 (DL16): 1 sign bit, 6 exponent bits (bias 31), 9 fraction bits
// with an implicit leading one, no subnormals:
//
//   code & 0x7fff == 0x0000        +-0
//   code & 0x7fff == 0x7fff        +-NINF, the single "not a number or
//                                  infinity" code; decoded as +-infinity
//   otherwise                      (-1)^s * 2^(e - 31) * (1 + f / 512)
//
// so the largest finite magnitude is 2^32 * (1 + 510/512) ~ 8.57e9 and the
// smallest non-zero one is 2^-31 * (1 + 1/512). Encoding rounds to nearest,
// ties to even, at 9 fraction bits. After rounding:
//   * a magnitude below the smallest non-zero value flushes to +-0 (sign
//     kept; there are no subnormals);
//   * a magnitude above the largest finite value, an infinity or a NaN gives
//     +-NINF (no saturation: overflow behaves like IEEE overflow to infinity);
//     floatToDL16Saturating instead keeps finite values finite (+-max), for
//     bf16 tensors: their own range reaches 3.4e38, and a mask built from
//     torch.finfo(torch.bfloat16).min must stay a large finite number, not
//     become -inf (a fully masked softmax row is then uniform, as in torch,
//     not NaN).
// NaN is therefore not representable: it encodes as NINF and decodes as an
// infinity of the NaN's sign. Decoding NINF as infinity (rather than NaN)
// keeps -inf attention masks working through DL16 storage.
//
// Every DL16 code round-trips exactly: floatToDL16(dl16ToFloat(c)) == c.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_SPY_DL16_H
#define SPYRE_SPY_DL16_H

#include <cstdint>
#include <cstring>

namespace spyre::spy {

/// The +NINF code (infinity / not-a-number); -NINF is 0xffff.
constexpr uint16_t kDL16Ninf = 0x7fff;
/// The largest finite DL16 code (2^32 * (1 + 510/512)).
constexpr uint16_t kDL16Max = 0x7ffe;
/// The smallest positive DL16 code (2^-31 * (1 + 1/512)).
constexpr uint16_t kDL16MinPositive = 0x0001;

/// Bits of a float.
inline uint32_t floatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof(b));
  return b;
}
/// The float with the given bits.
inline float bitsToFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof(f));
  return f;
}

/// fp32 -> DL16, round to nearest even (see the file comment).
uint16_t floatToDL16(float value);
/// As floatToDL16, but a finite value beyond DL16's range gives +-max, not
/// +-NINF (how bf16 tensors are stored; see the file comment).
uint16_t floatToDL16Saturating(float value);

/// DL16 -> fp32 (exact; NINF decodes as an infinity).
inline float dl16ToFloat(uint16_t code) {
  uint32_t sign = uint32_t(code & 0x8000) << 16;
  uint32_t magnitude = code & 0x7fff;
  if (magnitude == 0)
    return bitsToFloat(sign);
  if (magnitude == kDL16Ninf)
    return bitsToFloat(sign | 0x7f800000u);
  uint32_t exponent = magnitude >> 9; // biased by 31
  uint32_t fraction = magnitude & 0x1ff;
  return bitsToFloat(sign | ((exponent + 127 - 31) << 23) | (fraction << 14));
}

/// A 65536-entry table of dl16ToFloat, for bulk conversion.
const float *dl16DecodeTable();

/// DL16 -> IEEE binary16, for an fp16 tensor's device image. DL16 rounds
/// fp16's largest magnitude, 65504 (torch.finfo(float16).min masks), up to
/// 2^16, which IEEE binary16 cannot hold: that one code comes back as
/// +-65504 rather than +-inf. Everything else converts as floatToHalf.
uint16_t dl16ToHalf(uint16_t code);

/// DL16 -> bfloat16, for a bf16 tensor's device image. A bf16 tensor's
/// finite values beyond DL16's range are stored saturated at +-max
/// (floatToDL16Saturating): that code comes back as bf16's own largest
/// magnitude, so torch.finfo(bfloat16).min masks round-trip exactly.
uint16_t dl16ToBF16(uint16_t code);

/// fp32 -> IEEE binary16, round to nearest even, with subnormals; overflow
/// gives infinity and NaN stays a (quiet) NaN.
uint16_t floatToHalf(float value);

/// IEEE binary16 -> fp32 (exact).
float halfToFloat(uint16_t half);

/// A 65536-entry table of halfToFloat.
const float *halfDecodeTable();

/// 65536-entry tables of floatToDL16(halfToFloat(h)) and
/// floatToDL16Saturating(bf16ToFloat(b)): one lookup per element when
/// weights are converted to their device images.
const uint16_t *halfToDL16Table();
const uint16_t *bf16ToDL16Table();

/// fp32 -> bfloat16, round to nearest even; NaN stays a (quiet) NaN.
inline uint16_t floatToBF16(float value) {
  uint32_t b = floatBits(value);
  if ((b & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((b >> 16) | 0x0040);
  uint32_t rounding = 0x7fff + ((b >> 16) & 1);
  return uint16_t((b + rounding) >> 16);
}

/// bfloat16 -> fp32 (exact).
inline float bf16ToFloat(uint16_t value) {
  return bitsToFloat(uint32_t(value) << 16);
}

} // namespace spyre::spy

#endif // SPYRE_SPY_DL16_H
