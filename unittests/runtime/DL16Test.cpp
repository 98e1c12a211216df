//===- DL16Test.cpp - DLFloat16, fp16 and bf16 conversions ----------------===//

#include "spyre/Spy/DL16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

using namespace spyre::spy;

namespace {

TEST(DL16, EveryCodeRoundTrips) {
  for (uint32_t c = 0; c < 65536; ++c) {
    float f = dl16ToFloat(uint16_t(c));
    EXPECT_EQ(floatToDL16(f), c) << "code " << c << " value " << f;
    EXPECT_EQ(dl16DecodeTable()[c], f) << c;
  }
}

TEST(DL16, PositiveCodesAreMonotonic) {
  float previous = 0.0f;
  for (uint32_t c = 1; c <= kDL16Max; ++c) {
    float f = dl16ToFloat(uint16_t(c));
    ASSERT_GT(f, previous) << c;
    EXPECT_EQ(dl16ToFloat(uint16_t(c | 0x8000)), -f);
    previous = f;
  }
}

TEST(DL16, KnownValues) {
  EXPECT_EQ(floatToDL16(1.0f), 0x3e00);
  EXPECT_EQ(floatToDL16(-1.0f), 0xbe00);
  EXPECT_EQ(floatToDL16(2.0f), 0x4000);
  EXPECT_EQ(floatToDL16(0.5f), 0x3c00);
  EXPECT_EQ(floatToDL16(1.5f), 0x3f00);
  EXPECT_EQ(floatToDL16(3.0f), 0x4100);
  EXPECT_EQ(floatToDL16(0.0f), 0x0000);
  EXPECT_EQ(floatToDL16(-0.0f), 0x8000);
  EXPECT_EQ(dl16ToFloat(0x3e00), 1.0f);
  EXPECT_EQ(dl16ToFloat(0x3e01), 1.0f + 1.0f / 512);
  EXPECT_EQ(dl16ToFloat(kDL16Max), std::ldexp(1.0f + 510.0f / 512, 32));
  EXPECT_EQ(dl16ToFloat(kDL16MinPositive), std::ldexp(1.0f + 1.0f / 512, -31));
  // fp16's largest value rounds up to 2^16 (9 fraction bits).
  EXPECT_EQ(dl16ToFloat(floatToDL16(65504.0f)), 65536.0f);
  // DL16's range is far wider than fp16's.
  EXPECT_NEAR(dl16ToFloat(floatToDL16(1e9f)), 1e9, 1e9 / 512);
}

TEST(DL16, RoundsToNearestEven) {
  float ulp = 1.0f / 512;
  EXPECT_EQ(floatToDL16(1.0f + ulp / 2), 0x3e00);     // tie -> even
  EXPECT_EQ(floatToDL16(1.0f + 3 * ulp / 2), 0x3e02); // tie -> even
  EXPECT_EQ(floatToDL16(1.0f + ulp / 2 + ulp / 64), 0x3e01);
  EXPECT_EQ(floatToDL16(1.0f + ulp / 2 - ulp / 64), 0x3e00);
  // A carry out of the fraction bumps the exponent.
  EXPECT_EQ(floatToDL16(2.0f - ulp / 4), 0x4000);
}

TEST(DL16, SpecialValues) {
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(floatToDL16(inf), kDL16Ninf);
  EXPECT_EQ(floatToDL16(-inf), 0xffff);
  EXPECT_EQ(floatToDL16(std::nanf("")), kDL16Ninf);
  EXPECT_EQ(dl16ToFloat(kDL16Ninf), inf);
  EXPECT_EQ(dl16ToFloat(0xffff), -inf);
  // Overflow gives NINF, no saturation.
  EXPECT_EQ(floatToDL16(std::ldexp(1.0f, 33)), kDL16Ninf);
  EXPECT_EQ(floatToDL16(-std::ldexp(1.0f, 40)), 0xffff);
  // Just below the overflow threshold rounds to the largest finite value.
  float max = dl16ToFloat(kDL16Max);
  EXPECT_EQ(floatToDL16(max * (1.0f + 1.0f / 2048)), kDL16Max);
  // No subnormals: tiny values flush to a signed zero.
  EXPECT_EQ(floatToDL16(std::ldexp(1.0f, -31)), 0x0000);
  EXPECT_EQ(floatToDL16(std::ldexp(1.0f, -40)), 0x0000);
  EXPECT_EQ(floatToDL16(-std::ldexp(1.0f, -40)), 0x8000);
  EXPECT_EQ(floatToDL16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(floatToDL16(std::ldexp(1.0f + 1.0f / 512, -31)), 0x0001);
}

TEST(DL16, SaturatingKeepsFiniteValuesFinite) {
  float inf = std::numeric_limits<float>::infinity();
  // Finite overflow gives +-max instead of NINF...
  EXPECT_EQ(floatToDL16Saturating(std::ldexp(1.0f, 33)), kDL16Max);
  EXPECT_EQ(floatToDL16Saturating(-3.3895314e38f), 0x8000 | kDL16Max);
  // ...infinities and NaN are still NINF...
  EXPECT_EQ(floatToDL16Saturating(inf), kDL16Ninf);
  EXPECT_EQ(floatToDL16Saturating(-inf), 0xffff);
  EXPECT_EQ(floatToDL16Saturating(std::nanf("")), kDL16Ninf);
  // ...and every value in range converts as floatToDL16 does.
  for (uint32_t c = 0; c < 65536; ++c) {
    float f = dl16ToFloat(uint16_t(c));
    EXPECT_EQ(floatToDL16Saturating(f), floatToDL16(f)) << c;
  }
  // The bf16 table saturates (torch.finfo(torch.bfloat16).min = 0xff7f).
  EXPECT_EQ(bf16ToDL16Table()[0xff7f], 0x8000 | kDL16Max);
  EXPECT_EQ(bf16ToDL16Table()[0xff80], 0xffff); // -inf
  EXPECT_EQ(halfToDL16Table()[0xfbff], floatToDL16(-65504.0f));
}

TEST(DL16, Fp16TopOfRangeComesBackFinite) {
  // -65504 (torch.finfo(float16).min) rounds up to -2^16 in DL16, beyond
  // binary16; the device image of an fp16 tensor returns it as -65504.
  EXPECT_EQ(dl16ToHalf(floatToDL16(-65504.0f)), 0xfbff);
  EXPECT_EQ(dl16ToHalf(floatToDL16(65504.0f)), 0x7bff);
  // The next DL16 magnitude, and infinities, overflow as IEEE does.
  EXPECT_EQ(dl16ToHalf(floatToDL16(65664.0f)), 0x7c00);
  EXPECT_EQ(dl16ToHalf(0xffff), 0xfc00);
  // Everything else is floatToHalf of the decoded value.
  for (uint32_t c = 0; c < 65536; ++c) {
    if ((c & 0x7fff) == floatToDL16(65536.0f))
      continue;
    EXPECT_EQ(dl16ToHalf(uint16_t(c)), floatToHalf(dl16ToFloat(uint16_t(c))))
        << c;
  }
}

TEST(DL16, Bf16MasksRoundTrip) {
  // torch.finfo(bfloat16).min saturates into DL16 and comes back exactly.
  uint16_t code = bf16ToDL16Table()[0xff7f];
  EXPECT_EQ(dl16ToBF16(code), 0xff7f);
  EXPECT_EQ(dl16ToBF16(kDL16Max), 0x7f7f);
  // Infinities stay infinities; other values convert as floatToBF16.
  EXPECT_EQ(dl16ToBF16(0xffff), 0xff80);
  for (uint32_t c = 0; c < 65536; ++c) {
    if ((c & 0x7fff) == kDL16Max)
      continue;
    EXPECT_EQ(dl16ToBF16(uint16_t(c)), floatToBF16(dl16ToFloat(uint16_t(c))))
        << c;
  }
}

TEST(DL16, RelativeErrorIsHalfAnUlp) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-28, 30);
  for (int i = 0; i < 100000; ++i) {
    float x = std::ldexp(mantissa(rng), exponent(rng));
    if (std::fabs(x) < std::ldexp(1.0f, -30))
      continue; // below DL16's normal range: flushes to zero
    float y = dl16ToFloat(floatToDL16(x));
    EXPECT_LE(std::fabs(y - x), std::fabs(x) / 1024 * 1.0001f) << x;
  }
}

TEST(Half, EveryCodeRoundTrips) {
  for (uint32_t c = 0; c < 65536; ++c) {
    float f = halfToFloat(uint16_t(c));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(f))));
      continue;
    }
    EXPECT_EQ(floatToHalf(f), c) << c;
    EXPECT_EQ(halfDecodeTable()[c], f);
  }
}

TEST(Half, KnownValuesAndRounding) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00); // rounds to infinity
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000); // tie -> even (0)
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002); // tie -> even
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(3.0f, -11)), 0x3c02);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x7c00), std::numeric_limits<float>::infinity());
}

TEST(BF16, RoundTripAndRounding) {
  for (uint32_t c = 0; c < 65536; ++c) {
    float f = bf16ToFloat(uint16_t(c));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(f))));
      continue;
    }
    EXPECT_EQ(floatToBF16(f), c);
  }
  EXPECT_EQ(floatToBF16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBF16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(floatToBF16(1.0f + std::ldexp(3.0f, -8)), 0x3f82);
}

} // namespace
