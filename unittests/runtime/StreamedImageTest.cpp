//===- StreamedImageTest.cpp - Device images made with bounded memory -----===//
//
// spy::StreamedImage (the emitter's path for multi-GB weights) must give
// exactly LayoutMap::hostToDevice's bytes, whatever the layout, the host
// strides, the reader and the buffer budget, while never buffering more than
// the budget.
//
//===----------------------------------------------------------------------===//

#include "spyre/Spy/StreamedImage.h"
#include "spyre/Spy/Layout.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <unistd.h>

using namespace spyre;
using isa::DType;
using spy::LayoutMap;
using spy::StreamedImage;
using spy::TensorLayout;

namespace {

struct Case {
  DType dtype;
  std::vector<int64_t> shape;
  int32_t stickDim;
  std::vector<int32_t> dimOrder;
  bool dl16 = false;
  std::vector<int64_t> paddedShape = {};
};

LayoutMap makeMap(const Case &c) {
  TensorLayout layout;
  std::string error;
  EXPECT_TRUE(TensorLayout::make(c.dtype, c.shape, c.stickDim, 128, layout,
                                 error, c.dimOrder, c.paddedShape))
      << error;
  LayoutMap map;
  EXPECT_TRUE(
      LayoutMap::create(c.dtype, c.shape, layout, 128, c.dl16, map, error))
      << error;
  return map;
}

std::vector<uint8_t> randomBytes(uint64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto &b : v)
    b = uint8_t(rng());
  // Keep fp16/bf16 values finite-ish: clear the top exponent bit of every
  // second byte (the conversion is exact either way; this just exercises
  // ordinary values).
  for (size_t i = 1; i < v.size(); i += 2)
    v[i] &= 0xbf;
  return v;
}

/// Reads the whole image in pieces of pseudo-random sizes.
std::vector<uint8_t> readAll(StreamedImage &image, uint32_t seed,
                             uint64_t maxPiece) {
  std::vector<uint8_t> out(image.size(), 0xcc);
  std::mt19937 rng(seed);
  std::string error;
  for (uint64_t off = 0; off < out.size();) {
    uint64_t n = std::min<uint64_t>(out.size() - off, 1 + rng() % maxPiece);
    EXPECT_TRUE(image.read(off, out.data() + off, n, error)) << error;
    off += n;
  }
  return out;
}

class StreamedImageCases : public ::testing::TestWithParam<Case> {};

TEST_P(StreamedImageCases, MatchesWholeConversionForEveryBudget) {
  const Case &c = GetParam();
  LayoutMap map = makeMap(c);
  std::vector<uint8_t> host = randomBytes(map.hostBytes(), 7);
  std::vector<uint8_t> expected(map.deviceBytes());
  map.hostToDevice(host.data(), expected.data());
  for (uint64_t budget : {uint64_t(1), uint64_t(300), uint64_t(1000),
                          uint64_t(4096), uint64_t(1) << 20}) {
    StreamedImage image(map, spy::makeMemoryReader(host.data(), host.size()),
                        {}, budget);
    std::vector<uint8_t> got = readAll(image, uint32_t(budget), 777);
    EXPECT_EQ(got, expected) << "budget " << budget;
    // Never more than the budget (or one stick) of host data at once.
    EXPECT_LE(image.peakBufferBytes(), std::max<uint64_t>(budget, 128) +
                                           /*vector rounding*/ 0)
        << "budget " << budget;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, StreamedImageCases,
    ::testing::Values(
        Case{DType::F16, {63, 129}, 1, {}},
        Case{DType::F16, {63, 129}, 0, {1, 0}},       // linear weight
        Case{DType::F16, {130, 70}, 0, {1, 0}, true}, // ... as DL16
        Case{DType::BF16, {70, 130}, 0, {1, 0}, true},
        Case{DType::F32, {3, 7, 9}, 2, {}},
        Case{DType::F32, {3, 7, 9}, 0, {2, 0, 1}},
        Case{DType::F16, {5, 3, 70}, 1, {2, 1, 0}, true},
        Case{DType::I8, {2, 300}, 1, {}}, Case{DType::I64, {4, 33}, 1, {}},
        Case{DType::Bool, {3, 5}, 1, {}},
        Case{DType::F32, {}, -1, {}},     // rank 0
        Case{DType::F32, {2, 3}, -1, {}}, // one element per stick
        Case{DType::F16, {0, 5}, 1, {}},  // empty
        Case{DType::F32, {5, 40}, 1, {}, false, {8, 64}})); // padded rows

/// A strided view (a transposed or sliced storage) gives the image of the
/// gathered tensor.
TEST(StreamedImage, StridedViews) {
  Case c{DType::F16, {40, 150}, 0, {1, 0}, true};
  LayoutMap map = makeMap(c);
  struct View {
    std::vector<int64_t> strides;
    uint64_t offset; // elements
  };
  // Storage [150, 40] read transposed; rows 3.. of a wider storage [45, 160]
  // at columns 5..; a broadcast-like zero stride.
  for (const View &v :
       {View{{1, 40}, 0}, View{{160, 1}, 3 * 160 + 5}, View{{0, 1}, 17}}) {
    uint64_t span = v.offset + 1;
    for (size_t d = 0; d < 2; ++d)
      span += uint64_t(c.shape[d] - 1) * uint64_t(v.strides[d]);
    std::vector<uint8_t> storage = randomBytes(span * 2, 11);
    std::vector<uint8_t> host(map.hostBytes());
    for (int64_t i = 0; i < c.shape[0]; ++i)
      for (int64_t j = 0; j < c.shape[1]; ++j)
        std::memcpy(
            &host[size_t(i * c.shape[1] + j) * 2],
            &storage[(v.offset + i * v.strides[0] + j * v.strides[1]) * 2], 2);
    std::vector<uint8_t> expected(map.deviceBytes());
    map.hostToDevice(host.data(), expected.data());
    for (uint64_t budget : {uint64_t(128), uint64_t(2000), uint64_t(1) << 20}) {
      StreamedImage image(map,
                          spy::makeMemoryReader(storage.data() + v.offset * 2,
                                                storage.size() - v.offset * 2),
                          v.strides, budget);
      EXPECT_EQ(readAll(image, 3, 5000), expected)
          << "strides " << v.strides[0] << "," << v.strides[1] << " budget "
          << budget;
    }
  }
}

class TempFile {
public:
  explicit TempFile(const std::vector<uint8_t> &bytes) {
    char name[] = "/tmp/spyre-streamed-image-XXXXXX";
    int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(write(fd, bytes.data(), bytes.size()), ssize_t(bytes.size()));
    close(fd);
    path = name;
  }
  ~TempFile() { std::remove(path.c_str()); }
  std::string path;
};

/// File readers (pread, merged reads; mapping for element-wise views) give
/// the same bytes; the prefix before `base` is never part of the tensor.
TEST(StreamedImage, FileReaders) {
  Case c{DType::F16, {300, 260}, 0, {1, 0}, true};
  LayoutMap map = makeMap(c);
  std::vector<uint8_t> file = randomBytes(4096 + map.hostBytes(), 5);
  TempFile tmp(file);
  std::vector<uint8_t> expected(map.deviceBytes());
  map.hostToDevice(file.data() + 4096, expected.data());
  for (uint64_t budget :
       {uint64_t(128), uint64_t(5000), uint64_t(60000), uint64_t(1) << 24}) {
    StreamedImage image(map, spy::makeFileReader(tmp.path, 4096), {}, budget);
    EXPECT_EQ(readAll(image, 1, 1 << 16), expected) << "budget " << budget;
    EXPECT_LE(image.peakBufferBytes(), std::max<uint64_t>(budget, 128) +
                                           StreamedImage::kMergedReadBytes);
    StreamedImage mapped(
        map, spy::makeMappedFileReader(tmp.path, 4096, map.hostBytes()), {},
        budget);
    EXPECT_EQ(readAll(mapped, 2, 1 << 16), expected) << "budget " << budget;
  }
  // Element-wise strided view of the same file (storage [260, 300]).
  std::vector<uint8_t> host(map.hostBytes());
  for (int64_t i = 0; i < 300; ++i)
    for (int64_t j = 0; j < 260; ++j)
      std::memcpy(&host[size_t(i * 260 + j) * 2],
                  &file[4096 + size_t(j * 300 + i) * 2], 2);
  map.hostToDevice(host.data(), expected.data());
  StreamedImage strided(
      map, spy::makeMappedFileReader(tmp.path, 4096, map.hostBytes()), {1, 300},
      10000);
  EXPECT_EQ(readAll(strided, 4, 3000), expected);
  StreamedImage stridedPread(map, spy::makeFileReader(tmp.path, 4096), {1, 300},
                             10000);
  EXPECT_EQ(readAll(stridedPread, 4, 3000), expected);
}

TEST(StreamedImage, ReportsShortFiles) {
  Case c{DType::F32, {100, 64}, 1, {}};
  LayoutMap map = makeMap(c);
  TempFile tmp(std::vector<uint8_t>(1000, 1));
  StreamedImage image(map, spy::makeFileReader(tmp.path, 0), {}, 4096);
  std::vector<uint8_t> out(image.size());
  std::string error;
  EXPECT_FALSE(image.read(0, out.data(), out.size(), error));
  EXPECT_NE(error.find("ends there"), std::string::npos) << error;
  StreamedImage missing(map, spy::makeFileReader(tmp.path + ".absent", 0), {},
                        4096);
  EXPECT_FALSE(missing.read(0, out.data(), 10, error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
  EXPECT_FALSE(missing.read(out.size(), out.data(), 1, error));
  EXPECT_NE(error.find("outside"), std::string::npos) << error;
}

/// Strides that do not address the tensor are a caller's bug (ExternalData
/// rejects such views): asserted (asserts stay on in every build), never
/// read through. Strides [2^62, 1] would otherwise wrap and read row 0 for
/// every row.
TEST(StreamedImageDeathTest, StridesThatDoNotAddressTheTensor) {
  Case c{DType::F32, {64, 128}, 1, {}};
  LayoutMap map = makeMap(c);
  std::vector<uint8_t> host(map.hostBytes(), 1);
  for (const std::vector<int64_t> &strides :
       {std::vector<int64_t>{int64_t(1) << 62, 1},
        std::vector<int64_t>{int64_t(1) << 57, 1},
        std::vector<int64_t>{-128, 1}, std::vector<int64_t>{128, 1, 1}})
    EXPECT_DEATH(StreamedImage(map,
                               spy::makeMemoryReader(host.data(), host.size()),
                               strides),
                 "host strides that do not address the tensor");
}

/// A large transposed weight: slabs are column bands, each read once, and
/// the buffer stays at the budget, not at the weight's size.
TEST(StreamedImage, LargeTransposedWeightStaysWithinBudget) {
  Case c{DType::F16, {2048, 1536}, 0, {1, 0}, true};
  LayoutMap map = makeMap(c);
  std::vector<uint8_t> host = randomBytes(map.hostBytes(), 9);
  std::vector<uint8_t> expected(map.deviceBytes());
  map.hostToDevice(host.data(), expected.data());
  TempFile tmp(host);
  uint64_t budget = 256 << 10; // 1/24 of the weight
  StreamedImage image(map, spy::makeFileReader(tmp.path, 0), {}, budget);
  EXPECT_EQ(readAll(image, 6, 1 << 20), expected);
  EXPECT_LE(image.peakBufferBytes(), budget + StreamedImage::kMergedReadBytes);
  // 1536 columns of 4096 bytes (2048 rows) each; the box and its transpose
  // share the budget: 31 columns per slab (an odd count: see
  // StreamedImage::planSlabs).
  EXPECT_EQ(image.slabsLoaded(), (1536u + 30u) / 31u);
}

} // namespace
