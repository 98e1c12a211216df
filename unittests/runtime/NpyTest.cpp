//===- NpyTest.cpp - .npy reading and writing -----------------------------===//

#include "spyre/Runtime/Npy.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace spyre::rt;

namespace {

/// A .npy file with the given version and header text (padded like NumPy).
std::vector<uint8_t> npyBytes(const std::string &dict,
                              const std::vector<uint8_t> &data, int major = 1) {
  std::string header = dict;
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), 0};
  uint32_t len = uint32_t(header.size());
  out.push_back(uint8_t(len));
  out.push_back(uint8_t(len >> 8));
  if (major != 1) {
    out.push_back(uint8_t(len >> 16));
    out.push_back(uint8_t(len >> 24));
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

TEST(Npy, RoundTripsEveryDType) {
  for (NpyDType dt : {NpyDType::F2, NpyDType::F4, NpyDType::F8, NpyDType::I1,
                      NpyDType::I4, NpyDType::I8, NpyDType::U1, NpyDType::B1}) {
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{}, {5}, {2, 3}, {2, 0, 4}, {1, 2, 3, 4}}) {
      NpyArray a;
      a.dtype = dt;
      a.shape = shape;
      a.data.resize(a.numElements() * npyItemBytes(dt));
      for (size_t i = 0; i < a.data.size(); ++i)
        a.data[i] = dt == NpyDType::B1 ? uint8_t(i % 2) : uint8_t(i * 13);
      std::vector<uint8_t> bytes = serializeNpy(a);
      // The data starts at a multiple of 64 bytes, as NumPy writes it.
      EXPECT_EQ((bytes.size() - a.data.size()) % 64, 0u);
      NpyArray b;
      Status s = parseNpy(bytes.data(), bytes.size(), b);
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_EQ(b.dtype, a.dtype);
      EXPECT_EQ(b.shape, a.shape);
      EXPECT_EQ(b.data, a.data);
    }
  }
}

TEST(Npy, ReadsNumPyStyleHeaders) {
  std::vector<uint8_t> data(24);
  NpyArray a;
  auto bytes = npyBytes("{'descr': '<f4', 'fortran_order': False, "
                        "'shape': (2, 3), }",
                        data);
  ASSERT_TRUE(parseNpy(bytes.data(), bytes.size(), a).ok());
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  // Version 2.0, other key order, double quotes, no trailing comma.
  bytes = npyBytes("{\"shape\": (6,), \"fortran_order\": False, "
                   "\"descr\": \"<i4\"}",
                   data, 2);
  ASSERT_TRUE(parseNpy(bytes.data(), bytes.size(), a).ok());
  EXPECT_EQ(a.dtype, NpyDType::I4);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{6}));
  // Scalars and one-byte types with any byte order mark.
  bytes =
      npyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (), }", {1});
  ASSERT_TRUE(parseNpy(bytes.data(), bytes.size(), a).ok());
  EXPECT_TRUE(a.shape.empty());
  bytes = npyBytes("{'descr': '<u1', 'fortran_order': False, 'shape': (1,), }",
                   {1});
  EXPECT_TRUE(parseNpy(bytes.data(), bytes.size(), a).ok());
}

TEST(Npy, RejectsMalformedFiles) {
  std::vector<uint8_t> data(24);
  struct Bad {
    std::string dict;
    const char *why;
  };
  const Bad bad[] = {
      {"{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }",
       "big-endian"},
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", "Fortran"},
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }",
       "unsupported"},
      {"{'descr': '<f4', 'shape': (2, 3), }", "lacks"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}",
       "unexpected key"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }",
       "non-negative"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], }", "tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } x",
       "trailing"},
      {"['descr', '<f4']", "start"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", "bytes"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
       "'shape': (2, 3), }",
       "repeated"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(99999999999999999999, 3), }",
       "too large"},
      {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 3), }",
       "True or False"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3), }",
       "unsupported"},
  };
  for (const Bad &b : bad) {
    auto bytes = npyBytes(b.dict, data);
    NpyArray a;
    Status s = parseNpy(bytes.data(), bytes.size(), a);
    EXPECT_FALSE(s.ok()) << b.dict;
    EXPECT_NE(s.message().find(b.why), std::string::npos)
        << b.dict << " -> " << s.message();
  }
  auto good = npyBytes("{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (2, 3), }",
                       data);
  // Truncated anywhere, extra bytes, bad magic, bad version.
  for (size_t n = 0; n < good.size(); ++n) {
    NpyArray a;
    EXPECT_FALSE(parseNpy(good.data(), n, a).ok()) << n;
  }
  auto extra = good;
  extra.push_back(0);
  NpyArray a;
  EXPECT_FALSE(parseNpy(extra.data(), extra.size(), a).ok());
  auto magic = good;
  magic[1] = 'X';
  EXPECT_FALSE(parseNpy(magic.data(), magic.size(), a).ok());
  auto version = good;
  version[6] = 9;
  Status s = parseNpy(version.data(), version.size(), a);
  EXPECT_NE(s.message().find("version"), std::string::npos);
  auto hugeHeader = good;
  hugeHeader[8] = 0xff;
  hugeHeader[9] = 0xff;
  EXPECT_FALSE(parseNpy(hugeHeader.data(), hugeHeader.size(), a).ok());
}

TEST(Npy, ModelDTypeMapping) {
  using spyre::isa::DType;
  EXPECT_EQ(npyDTypeFor(DType::F16), NpyDType::F2);
  EXPECT_EQ(npyDTypeFor(DType::F32), NpyDType::F4);
  EXPECT_EQ(npyDTypeFor(DType::I64), NpyDType::I8);
  EXPECT_EQ(npyDTypeFor(DType::Bool), NpyDType::B1);
  EXPECT_EQ(npyDTypeFor(DType::BF16), NpyDType::F4);
  // bf16 goes through f4.
  NpyArray a;
  a.dtype = NpyDType::F4;
  a.shape = {2};
  float v[2] = {1.0f, -2.5f};
  a.data.assign(reinterpret_cast<uint8_t *>(v),
                reinterpret_cast<uint8_t *>(v) + 8);
  std::vector<uint8_t> host;
  std::string error;
  ASSERT_TRUE(npyToHost(a, DType::BF16, host, error));
  EXPECT_EQ(host.size(), 4u);
  NpyArray b = hostToNpy(DType::BF16, a.shape, host);
  EXPECT_EQ(b.data, a.data);
  EXPECT_FALSE(npyToHost(a, DType::F16, host, error));
  EXPECT_NE(error.find("<f2"), std::string::npos);
}

TEST(Npy, FileIo) {
  NpyArray a;
  a.dtype = NpyDType::I8;
  a.shape = {3};
  a.data.assign(24, 7);
  std::string path = spyre::test::tempPath("npy_test.npy");
  ASSERT_TRUE(writeNpy(path, a).ok());
  NpyArray b;
  ASSERT_TRUE(readNpy(path, b).ok());
  EXPECT_EQ(b.data, a.data);
  Status s = readNpy(path + ".missing", b);
  EXPECT_EQ(s.code(), StatusCode::IoError);
}

} // namespace
