//===- LayoutTest.cpp - Stick layouts and host <-> device conversion ------===//

#include "TestUtil.h"

#include "spyre/Spy/Layout.h"

#include <numeric>

using namespace spyre;
using isa::DType;
using spy::ElementStorage;
using spy::LayoutMap;
using spy::TensorLayout;

namespace {

/// The device byte offset of `index` computed straight from the definition
/// in schema/spy.fbs.
uint64_t referenceOffset(const TensorLayout &l, uint32_t elemBytes,
                         const std::vector<int64_t> &index) {
  std::vector<int64_t> device;
  int64_t e = l.elemsPerStick;
  for (int32_t d : l.dimOrder)
    device.push_back(d == l.stickDim ? index[size_t(d)] / e : index[size_t(d)]);
  device.push_back(l.stickDim >= 0 ? index[size_t(l.stickDim)] % e : 0);
  uint64_t linear = 0;
  for (size_t k = 0; k < device.size(); ++k)
    linear = linear * uint64_t(l.deviceShape[k]) + uint64_t(device[k]);
  return linear * elemBytes;
}

bool nextIndex(std::vector<int64_t> &index, const std::vector<int64_t> &shape) {
  for (size_t d = shape.size(); d-- > 0;) {
    if (++index[d] < shape[d])
      return true;
    index[d] = 0;
  }
  return false;
}

struct Case {
  DType dtype;
  std::vector<int64_t> shape;
  int32_t stickDim;
  std::vector<int32_t> dimOrder;
};

class LayoutCases : public ::testing::TestWithParam<Case> {};

TEST_P(LayoutCases, MapsEveryElementAndRoundTrips) {
  const Case &c = GetParam();
  TensorLayout layout;
  std::string error;
  ASSERT_TRUE(TensorLayout::make(c.dtype, c.shape, c.stickDim, 128, layout,
                                 error, c.dimOrder))
      << error;
  LayoutMap map;
  ASSERT_TRUE(LayoutMap::create(c.dtype, c.shape, layout, 128,
                                /*dl16Storage=*/false, map, error))
      << error;
  uint32_t bytes = isa::dtypeBytes(c.dtype);
  ASSERT_EQ(map.deviceBytes(), layout.deviceBytes(c.dtype));

  // Host data: element i holds i + 1 (never zero, so padding is visible).
  uint64_t n = map.numElements();
  std::vector<uint8_t> host(n * bytes);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t v = i + 1;
    std::memcpy(host.data() + i * bytes, &v, bytes);
  }
  std::vector<uint8_t> device(map.deviceBytes(), 0xee);
  map.hostToDevice(host.data(), device.data());

  // Every element sits where the definition says, and maps back.
  std::vector<int64_t> index(c.shape.size(), 0);
  std::vector<bool> used(map.deviceBytes() / bytes, false);
  uint64_t linear = 0;
  bool more = n > 0;
  while (more) {
    uint64_t off = referenceOffset(layout, bytes, index);
    ASSERT_EQ(map.deviceOffset(index.data()), off);
    ASSERT_EQ(map.deviceOffsetOfLinear(linear), off);
    ASSERT_EQ(
        std::memcmp(device.data() + off, host.data() + linear * bytes, bytes),
        0);
    std::vector<int64_t> back(c.shape.size() + 1, -1);
    ASSERT_TRUE(map.logicalIndex(off, back.data()));
    back.resize(c.shape.size());
    ASSERT_EQ(back, index);
    used[off / bytes] = true;
    ++linear;
    more = nextIndex(index, c.shape);
  }
  // Everything else is zero padding, and is not an element.
  for (uint64_t slot = 0; slot < used.size(); ++slot) {
    if (used[slot])
      continue;
    std::vector<uint8_t> zero(bytes, 0);
    ASSERT_EQ(std::memcmp(device.data() + slot * bytes, zero.data(), bytes), 0)
        << "padding slot " << slot;
    std::vector<int64_t> idx(c.shape.size() + 1);
    ASSERT_FALSE(map.logicalIndex(slot * bytes, idx.data()));
  }
  // Back to the host.
  std::vector<uint8_t> again(host.size(), 0xcc);
  map.deviceToHost(device.data(), again.data());
  EXPECT_EQ(again, host);

  // Streaming ranges give the same bytes as the whole conversion.
  std::mt19937 rng(3);
  for (int i = 0; i < 20 && !device.empty(); ++i) {
    uint64_t a = rng() % device.size(), b = rng() % device.size();
    if (a > b)
      std::swap(a, b);
    std::vector<uint8_t> part(b - a + 1);
    map.hostToDeviceRange(host.data(), a, part.size(), part.data());
    ASSERT_EQ(std::memcmp(part.data(), device.data() + a, part.size()), 0)
        << "range [" << a << ", " << b << "]";
  }
  // And back, a run of sticks at a time (copyFromDevice in chunks).
  uint64_t stick = map.stickBytes(), sticks = device.size() / stick;
  for (uint64_t run : {uint64_t(1), uint64_t(3), sticks}) {
    std::vector<uint8_t> chunked(host.size(), 0xcc);
    for (uint64_t first = 0; run && first < sticks; first += run)
      map.deviceSticksToHost(device.data() + first * stick, first,
                             std::min(run, sticks - first), chunked.data());
    EXPECT_EQ(chunked, host) << "runs of " << run << " sticks";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, LayoutCases,
    ::testing::Values(
        Case{DType::F16, {63, 129}, 1, {}}, Case{DType::F32, {63, 129}, 1, {}},
        Case{DType::F16, {63, 129}, 0, {}}, Case{DType::F32, {3, 7, 9}, 2, {}},
        Case{DType::F16, {3, 7, 9}, 1, {}},
        Case{DType::F32, {3, 7, 9}, 0, {2, 0, 1}},
        Case{DType::F16, {5, 70}, 0, {1, 0}}, // permuted: stick on dim 0
        Case{DType::I64, {4, 33}, 1, {}}, Case{DType::I8, {2, 300}, 1, {}},
        Case{DType::Bool, {3, 5}, 1, {}}, Case{DType::I32, {7}, 0, {}},
        Case{DType::F32, {}, -1, {}},     // rank 0
        Case{DType::F32, {2, 3}, -1, {}}, // one element per stick
        Case{DType::F16, {0, 5}, 1, {}}));

TEST(Layout, DefaultShapes) {
  TensorLayout l;
  std::string error;
  ASSERT_TRUE(TensorLayout::make(DType::F16, {63, 129}, 1, 128, l, error));
  EXPECT_EQ(l.elemsPerStick, 64);
  EXPECT_EQ(l.paddedShape, (std::vector<int64_t>{63, 192}));
  EXPECT_EQ(l.deviceShape, (std::vector<int64_t>{63, 3, 64}));
  EXPECT_EQ(l.deviceBytes(DType::F16), 63u * 3 * 128);
  ASSERT_TRUE(TensorLayout::make(DType::F32, {}, -1, 128, l, error));
  EXPECT_EQ(l.deviceShape, (std::vector<int64_t>{32}));
  ASSERT_TRUE(TensorLayout::make(DType::F32, {4, 8}, 0, 128, l, error, {1, 0}));
  EXPECT_EQ(l.deviceShape, (std::vector<int64_t>{8, 1, 32}));
}

TEST(Layout, ValidationErrors) {
  TensorLayout good;
  std::string error;
  ASSERT_TRUE(TensorLayout::make(DType::F32, {4, 8}, 1, 128, good, error));
  auto expectInvalid = [&](TensorLayout l, const char *what) {
    std::string e;
    EXPECT_FALSE(l.validate(DType::F32, {4, 8}, 128, e)) << what;
    EXPECT_FALSE(e.empty()) << what;
  };
  TensorLayout l = good;
  l.dimOrder = {0, 0};
  expectInvalid(l, "not a permutation");
  l = good;
  l.paddedShape = {3, 32};
  expectInvalid(l, "padding smaller than the shape");
  l = good;
  l.elemsPerStick = 64;
  expectInvalid(l, "wrong elems per stick");
  l = good;
  l.deviceShape = {4, 2, 32};
  expectInvalid(l, "device shape inconsistent");
  l = good;
  l.stickDim = 5;
  expectInvalid(l, "stick dim out of range");
  l = good;
  l.paddedShape = {int64_t(1) << 40, int64_t(1) << 40};
  l.deviceShape = {int64_t(1) << 40, int64_t(1) << 35, 32};
  expectInvalid(l, "overflow");
  EXPECT_FALSE(good.validate(DType::F32, {4, -8}, 128, error));
}

TEST(Layout, DL16StorageConvertsHalfAndBF16) {
  std::vector<int64_t> shape = {3, 70};
  TensorLayout l;
  std::string error;
  ASSERT_TRUE(TensorLayout::make(DType::F16, shape, 1, 128, l, error));
  LayoutMap half, bf;
  ASSERT_TRUE(LayoutMap::create(DType::F16, shape, l, 128, true, half, error));
  ASSERT_TRUE(LayoutMap::create(DType::BF16, shape, l, 128, true, bf, error));
  EXPECT_EQ(half.storage(), ElementStorage::DL16);
  std::vector<float> values = test::randomFloats(3 * 70, 11, -100, 100);
  std::vector<uint16_t> h(values.size()), b(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    h[i] = spy::floatToHalf(values[i]);
    b[i] = spy::floatToBF16(values[i]);
  }
  std::vector<uint16_t> dev(half.deviceBytes() / 2);
  half.hostToDevice(h.data(), dev.data());
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t c = 0; c < 70; ++c) {
      int64_t idx[2] = {r, c};
      uint16_t code = dev[half.deviceOffset(idx) / 2];
      EXPECT_EQ(code,
                spy::floatToDL16(spy::halfToFloat(h[size_t(r * 70 + c)])));
    }
  std::vector<uint16_t> back(h.size());
  half.deviceToHost(dev.data(), back.data());
  for (size_t i = 0; i < h.size(); ++i)
    EXPECT_NEAR(spy::halfToFloat(back[i]), spy::halfToFloat(h[i]),
                std::fabs(spy::halfToFloat(h[i])) / 512);
  bf.hostToDevice(b.data(), dev.data());
  std::vector<uint16_t> bback(b.size());
  bf.deviceToHost(dev.data(), bback.data());
  // bf16 has 7 fraction bits, DL16 9: bf16 -> DL16 -> bf16 is exact.
  EXPECT_EQ(bback, b);
}

} // namespace
