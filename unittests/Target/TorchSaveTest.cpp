//===- TorchSaveTest.cpp - Tensors of a torch.save zip --------------------===//

#include "PickleBytes.h"
#include "spyre/Target/TorchSave.h"

#include <gtest/gtest.h>

using namespace spyre;
using namespace spyre::test;

namespace {

struct Record {
  std::string name, data;
  uint16_t method = 0; // 0: stored
};

/// A zip of `records` laid out like torch's writer: each local header
/// padded with a 'FB' extra field, sizes in the central directory. CRCs
/// are left 0 (the reader does not check them).
std::string zip(const std::vector<Record> &records) {
  std::string out, central;
  for (const Record &r : records) {
    std::string pad = le(0x4246, 2) + le(13, 2) + std::string(13, 'Z');
    uint64_t local = out.size();
    out += le(0x04034b50, 4) + le(20, 2) + le(0, 2) + le(r.method, 2) +
           le(0, 4) + le(0, 4) + le(r.data.size(), 4) + le(r.data.size(), 4) +
           le(r.name.size(), 2) + le(pad.size(), 2) + r.name + pad + r.data;
    central += le(0x02014b50, 4) + le(20, 2) + le(20, 2) + le(0, 2) +
               le(r.method, 2) + le(0, 4) + le(0, 4) + le(r.data.size(), 4) +
               le(r.data.size(), 4) + le(r.name.size(), 2) + le(0, 2) +
               le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(local, 4) +
               r.name;
  }
  uint64_t cd = out.size();
  out += central;
  out += le(0x06054b50, 4) + le(0, 2) + le(0, 2) + le(records.size(), 2) +
         le(records.size(), 2) + le(central.size(), 4) + le(cd, 4) + le(0, 2);
  return out;
}

std::string statePickle() {
  return dict({{"fc.weight", parameter(tensor("FloatStorage", "0", 12, 0,
                                              {3, 4}, {4, 1}))},
               {"fc.bias", tensor("HalfStorage", "1", 8, 2, {3}, {2})}});
}

std::string bytes(size_t n, char first) {
  std::string s(n, '\0');
  for (size_t k = 0; k < n; ++k)
    s[k] = char(first + k);
  return s;
}

std::vector<Record> goodRecords() {
  return {{"archive/data.pkl", statePickle()},
          {"archive/byteorder", "little"},
          {"archive/data/0", bytes(48, 'a')},
          {"archive/data/1", bytes(16, 'A')},
          {"archive/version", "3\n"}};
}

TEST(TorchSave, ResolvesStoragesInPlace) {
  std::string file = zip(goodRecords());
  std::string error;
  auto dict = readTorchSave(file, "test.pt", error);
  ASSERT_TRUE(dict) << error;
  const SavedTensor &w = dict->at("fc.weight");
  EXPECT_EQ(w.storageBytes, 48u);
  EXPECT_EQ(file.substr(w.dataOffset, 48), bytes(48, 'a'));
  const SavedTensor &b = dict->at("fc.bias");
  EXPECT_EQ(b.view.storageOffset, 2);
  EXPECT_EQ(file.substr(b.dataOffset, 16), bytes(16, 'A'));
}

TEST(TorchSave, RejectsAMissingStorage) {
  std::vector<Record> records = goodRecords();
  records.erase(records.begin() + 3); // archive/data/1
  std::string error;
  EXPECT_FALSE(readTorchSave(zip(records), "test.pt", error));
  EXPECT_EQ(error, "test.pt: no entry 'archive/data/1' (storage of 'fc.bias')");
}

TEST(TorchSave, RejectsAShortStorage) {
  std::vector<Record> records = goodRecords();
  records[2].data.resize(40);
  std::string error;
  EXPECT_FALSE(readTorchSave(zip(records), "test.pt", error));
  EXPECT_EQ(error, "test.pt: storage 'archive/data/0' of 'fc.weight' has 40 "
                   "bytes, fewer than its 12 elements of 4 bytes");
}

TEST(TorchSave, RejectsAViewPastItsStorage) {
  std::vector<Record> records = goodRecords();
  records[0].data = dict(
      {{"w", tensor("FloatStorage", "0", 12, 1, {3, 4}, {4, 1})}});
  std::string error;
  EXPECT_FALSE(readTorchSave(zip(records), "test.pt", error));
  EXPECT_EQ(error, "test.pt: tensor 'w' reaches past the 12 elements of "
                   "storage 'archive/data/0'");
  // Huge sizes and strides overflow nothing.
  records[0].data = dict({{"w", tensor("FloatStorage", "0", 12, 0,
                                       {2, 2}, {0x7fffffff, 0x7fffffff})}});
  EXPECT_FALSE(readTorchSave(zip(records), "test.pt", error));
  EXPECT_NE(error.find("reaches past"), std::string::npos) << error;
}

TEST(TorchSave, RejectsCompressedRecords) {
  std::vector<Record> records = goodRecords();
  records[2].method = 8;
  std::string error;
  EXPECT_FALSE(readTorchSave(zip(records), "test.pt", error));
  EXPECT_NE(error.find("entry 'archive/data/0' is compressed"),
            std::string::npos)
      << error;
}

TEST(TorchSave, RejectsBigEndianStorages) {
  std::vector<Record> records = goodRecords();
  records[1].data = "big";
  std::string error;
  EXPECT_FALSE(readTorchSave(zip(records), "test.pt", error));
  EXPECT_NE(error.find("big-endian"), std::string::npos) << error;
}

TEST(TorchSave, ReportsPickleErrorsWithTheFileName) {
  std::vector<Record> records = goodRecords();
  records[0].data = "\x80\x02}" + global("os", "system") + ".";
  std::string error;
  EXPECT_FALSE(readTorchSave(zip(records), "data/weights/model.pt", error));
  EXPECT_EQ(error, "disallowed global 'os.system' in pickle "
                   "data/weights/model.pt (offset 3)");
}

TEST(TorchSave, MalformedZipsAreErrors) {
  std::string error;
  EXPECT_FALSE(readTorchSave("hello", "test.pt", error));
  EXPECT_NE(error.find("not a zip file"), std::string::npos) << error;
  std::string file = zip(goodRecords());
  // Every truncation, and every single corrupted byte, fails or reads
  // cleanly: never out of bounds (run under ASan to see).
  for (size_t n = 0; n < file.size(); ++n)
    EXPECT_FALSE(readTorchSave(file.substr(0, n), "test.pt", error));
  for (size_t n = 0; n < file.size(); ++n) {
    std::string bad = file;
    bad[n] = char(bad[n] ^ 0xff);
    (void)readTorchSave(bad, "test.pt", error);
  }
}

} // namespace
