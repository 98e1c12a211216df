//===- WeightsFileTest.cpp - Weights kept beside the .spy -----------------===//
//
// The weights file (spy/WeightsFile.h): written on several threads, read
// back, reused only when it holds the same images; and the loader, which
// maps it, checks that it is the file the .spy was compiled with and
// refuses a changed one naming both files.
//
//===----------------------------------------------------------------------===//

#include "TestModels.h"

#include "spyre/Runtime/Model.h"
#include "spyre/Spy/SpyFormat.h"
#include "spyre/Spy/WeightsFile.h"

#include <cstdio>
#include <fstream>
#include <sys/stat.h>

using namespace spyre;
using namespace spyre::test;
using rt::Model;
using rt::Status;
using rt::StatusCode;

namespace {

/// `size` bytes, byte i = (i * 7 + seed) % 251.
std::vector<uint8_t> pattern(uint64_t size, uint8_t seed) {
  std::vector<uint8_t> out(size);
  for (uint64_t i = 0; i < size; ++i)
    out[i] = uint8_t((i * 7 + seed) % 251);
  return out;
}

std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            std::streamsize(bytes.size()));
}

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

/// Three images of awkward sizes (the second spans several stream chunks
/// would be too slow; sizes that are not multiples of the alignment test
/// the padding).
std::vector<spy::WeightsImage> threeImages() {
  return {spy::memoryImage(11, pattern(5000, 1)),
          spy::memoryImage(22, pattern(1, 2)),
          spy::memoryImage(33, pattern(70000, 3))};
}

TEST(WeightsFile, WritesOnSeveralThreadsAndReadsBack) {
  std::string path = tempPath("three.spyw");
  std::vector<spy::WeightsImage> images = threeImages();
  spy::WeightsIndex index;
  std::string error;
  ASSERT_TRUE(spy::writeWeightsFile(path, images, 3, index, error)) << error;
  EXPECT_FALSE(exists(path + ".tmp"));
  EXPECT_EQ(index.key, spy::weightsKey(images));
  ASSERT_EQ(index.entries.size(), 3u);

  spy::WeightsIndex read;
  ASSERT_TRUE(spy::readWeightsIndex(path, read, error)) << error;
  EXPECT_EQ(read.key, index.key);
  EXPECT_EQ(read.dataOffset % spy::kWeightsAlignment, 0u);
  std::vector<uint8_t> file = readFile(path);
  EXPECT_EQ(file.size(), read.dataOffset + read.dataSize);
  for (size_t i = 0; i < 3; ++i) {
    const spy::WeightsEntry &e = read.entries[i];
    std::vector<uint8_t> expected = pattern(images[i].size, uint8_t(i + 1));
    EXPECT_EQ(e.sourceKey, images[i].sourceKey);
    EXPECT_EQ(e.offset % spy::kWeightsAlignment, 0u);
    EXPECT_EQ(e.digest, index.entries[i].digest);
    EXPECT_EQ(e.digest,
              spy::SegmentDigest::of(expected.data(), expected.size()));
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(),
                           file.begin() + int64_t(read.dataOffset + e.offset)));
  }
}

TEST(WeightsFile, ReusedOnlyForTheSameImages) {
  std::string path = tempPath("reuse.spyw");
  std::vector<spy::WeightsImage> images = threeImages();
  spy::WeightsIndex index, found;
  std::string error;
  ASSERT_TRUE(spy::writeWeightsFile(path, images, 0, index, error)) << error;
  EXPECT_TRUE(spy::weightsFileMatches(path, images, found));
  EXPECT_EQ(found.entries[2].digest, index.entries[2].digest);

  std::vector<spy::WeightsImage> otherKey = threeImages();
  otherKey[1].sourceKey = 99;
  EXPECT_FALSE(spy::weightsFileMatches(path, otherKey, found));
  std::vector<spy::WeightsImage> otherOrder = threeImages();
  std::swap(otherOrder[0], otherOrder[2]);
  EXPECT_FALSE(spy::weightsFileMatches(path, otherOrder, found));
  std::vector<spy::WeightsImage> fewer = threeImages();
  fewer.pop_back();
  EXPECT_FALSE(spy::weightsFileMatches(path, fewer, found));
  EXPECT_FALSE(spy::weightsFileMatches(path + ".missing", images, found));

  // A truncated file is not reused.
  std::vector<uint8_t> bytes = readFile(path);
  bytes.resize(bytes.size() - 1);
  writeFile(path, bytes);
  EXPECT_FALSE(spy::weightsFileMatches(path, images, found));
  EXPECT_FALSE(spy::readWeightsIndex(path, found, error));
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
}

TEST(WeightsFile, MalformedHeadersAreRefused) {
  std::string path = tempPath("bad.spyw");
  spy::WeightsIndex index;
  std::string error;
  ASSERT_TRUE(spy::writeWeightsFile(path, threeImages(), 2, index, error))
      << error;
  std::vector<uint8_t> good = readFile(path);
  auto refused = [&](std::vector<uint8_t> bytes, const std::string &what) {
    spy::WeightsIndex out;
    std::string why;
    EXPECT_FALSE(spy::parseWeightsIndex(bytes.data(), bytes.size(),
                                        bytes.size(), out, why));
    EXPECT_NE(why.find(what), std::string::npos) << why;
  };
  std::vector<uint8_t> bytes = good;
  bytes[0] = 'X';
  refused(bytes, "bad magic");
  bytes = good;
  bytes[8] = 9; // version
  refused(bytes, "unsupported weights file version 9");
  bytes = good;
  bytes[64 + 8] ^= 1; // an entry's offset
  refused(bytes, "checksum");
  bytes = good;
  bytes[24] = 0xff; // count far past the file
  refused(bytes, "truncated or corrupt");
  refused(std::vector<uint8_t>(good.begin(), good.begin() + 10), "too short");
  // Every length of a truncated head is refused, none crashes.
  for (size_t n = 0; n < 64 + 3 * 32; ++n) {
    spy::WeightsIndex out;
    EXPECT_FALSE(
        spy::parseWeightsIndex(good.data(), n, good.size(), out, error));
  }
}

TEST(WeightsFile, AFailingSourceLeavesNoFile) {
  std::string path = tempPath("failing.spyw");
  std::vector<spy::WeightsImage> images = threeImages();
  images[1].source = [](uint64_t, void *, uint64_t, std::string &error) {
    error = "weight 'b': archive vanished";
    return false;
  };
  spy::WeightsIndex index;
  std::string error;
  EXPECT_FALSE(spy::writeWeightsFile(path, images, 2, index, error));
  EXPECT_EQ(error, "weight 'b': archive vanished");
  EXPECT_FALSE(exists(path));
  EXPECT_FALSE(exists(path + ".tmp"));
}

/// A basic model whose weight is in a weights file, in its own directory:
/// `dir`/model.spy and `dir`/model.spyw.
struct ModelPair {
  std::string dir, spy, weights;
  explicit ModelPair(const std::string &name) {
    dir = tempPath("") + name;
    ::mkdir(dir.c_str(), 0755);
    spy = dir + "/model.spy";
    weights = dir + "/model.spyw";
    writeFile(spy, basicModelWithWeightsFile(weights, "model.spyw"));
  }
};

Status openModel(const std::string &path, std::unique_ptr<Model> &m,
                 const rt::LoadOptions &options = rt::LoadOptions()) {
  return Model::open(path, &arch(), m, options);
}

TEST(LoaderWeightsFile, ExternalSegmentsAreReadFromTheWeightsFile) {
  ModelPair pair("external_ok");
  std::unique_ptr<Model> m;
  Status s = openModel(pair.spy, m);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m->formatMajor(), 3u);
  EXPECT_EQ(m->weightsPath(), pair.weights);
  int32_t seg = m->tensors()[1].segment;
  ASSERT_GE(seg, 0);
  EXPECT_TRUE(m->segments()[uint32_t(seg)].external);
  std::vector<uint8_t> expected = toBytes(basicWeight());
  EXPECT_EQ(std::memcmp(m->segmentData(uint32_t(seg)), expected.data(),
                        expected.size()),
            0);
  // The .spy carries no copy of the weight.
  std::vector<uint8_t> inline_ = basicModel();
  EXPECT_LT(readFile(pair.spy).size(), inline_.size());
}

TEST(LoaderWeightsFile, MovedWeightsAreFoundThroughTheOption) {
  ModelPair pair("external_moved");
  std::string moved = pair.dir + "/elsewhere.spyw";
  ASSERT_EQ(std::rename(pair.weights.c_str(), moved.c_str()), 0);
  std::unique_ptr<Model> m;
  Status s = openModel(pair.spy, m);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::IoError);
  EXPECT_NE(s.message().find("cannot open '" + pair.weights + "'"),
            std::string::npos)
      << s.message();
  rt::LoadOptions options;
  options.weightsPath = moved;
  s = openModel(pair.spy, m, options);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m->weightsPath(), moved);
}

TEST(LoaderWeightsFile, AnotherCompilesWeightsFileIsRefused) {
  ModelPair pair("external_other");
  std::string other = pair.dir + "/other.spyw";
  spy::WeightsIndex index;
  std::string error;
  ASSERT_TRUE(spy::writeWeightsFile(other, threeImages(), 1, index, error));
  rt::LoadOptions options;
  options.weightsPath = other;
  std::unique_ptr<Model> m;
  Status s = openModel(pair.spy, m, options);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::InvalidFile);
  EXPECT_NE(s.message().find("weights file '" + other + "'"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("'" + pair.spy + "' was compiled with"),
            std::string::npos)
      << s.message();
}

TEST(LoaderWeightsFile, ChangedWeightsNameBothFiles) {
  ModelPair pair("external_changed");
  spy::WeightsIndex index;
  std::string error;
  ASSERT_TRUE(spy::readWeightsIndex(pair.weights, index, error)) << error;
  std::vector<uint8_t> bytes = readFile(pair.weights);
  bytes[index.dataOffset + 17] ^= 1;
  writeFile(pair.weights, bytes);
  std::unique_ptr<Model> m;
  Status s = openModel(pair.spy, m);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::InvalidFile);
  EXPECT_NE(s.message().find("tensor 1 'w') in weights file '" + pair.weights +
                             "' is not the data this .spy was compiled with"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find(pair.spy), std::string::npos) << s.message();
  // Trusted as is when asked.
  rt::LoadOptions trust;
  trust.verifyData = false;
  EXPECT_TRUE(openModel(pair.spy, m, trust).ok());
}

TEST(LoaderWeightsFile, ABufferNeedsThePathOfABareName) {
  ModelPair pair("external_buffer");
  std::unique_ptr<Model> m;
  Status s = Model::fromBuffer(readFile(pair.spy), &arch(), m);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("read from memory"), std::string::npos);
  rt::LoadOptions options;
  options.weightsPath = pair.weights;
  s = Model::fromBuffer(readFile(pair.spy), &arch(), m, options);
  EXPECT_TRUE(s.ok()) << s.message();
  // An absolute name needs nothing more.
  std::vector<uint8_t> absolute =
      basicModelWithWeightsFile(pair.dir + "/abs.spyw", pair.dir + "/abs.spyw");
  s = Model::fromBuffer(absolute, &arch(), m);
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST(LoaderWeightsFile, AWeightsFileForAModelWithoutOneIsAWarning) {
  rt::LoadOptions options;
  options.weightsPath = "unused.spyw";
  std::unique_ptr<Model> m;
  Status s = Model::fromBuffer(basicModel(), &arch(), m, options);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(m->warnings().size(), 1u);
  EXPECT_NE(m->warnings()[0].find("'unused.spyw' is not used"),
            std::string::npos)
      << m->warnings()[0];
  EXPECT_TRUE(m->weightsPath().empty());
}

TEST(LoaderWeightsFile, MalformedRecordsAreRefused) {
  ModelPair pair("external_malformed");
  std::vector<uint8_t> good = readFile(pair.spy);
  rt::LoadOptions options;
  options.weightsPath = pair.weights;
  auto refused = [&](const std::vector<uint8_t> &bytes,
                     const std::string &what) {
    std::unique_ptr<Model> m;
    Status s = Model::fromBuffer(bytes, &arch(), m, options);
    ASSERT_FALSE(s.ok()) << "accepted; expected: " << what;
    EXPECT_NE(s.message().find(what), std::string::npos) << s.message();
  };
  // External data but no weights file.
  refused(editModel(good, [](spy::ModelT &m) { m.weights_file.reset(); }),
          "is external, but the file names no weights file");
  // An external segment past the weights file's data area.
  refused(editModel(good,
                    [](spy::ModelT &m) {
                      for (auto &seg : m.segments)
                        if (seg->external)
                          seg->offset = uint64_t(1) << 40;
                    }),
          "of the weights file");
  // A weights file record in a 2.x file.
  std::vector<uint8_t> major2 = editModel(good, [](spy::ModelT &m) {
    m.format_major = 2;
    m.format_minor = 3;
  });
  std::memcpy(major2.data() + 8, "\x02\x00\x00\x00\x03\x00\x00\x00", 8);
  fixChecksum(major2);
  refused(major2, "needs format 3.0");
  // A weights file that is not one.
  options.weightsPath = pair.spy;
  refused(good, "not a spyre weights file");
}

} // namespace
