//===- TorchSaveTest.cpp - Tensors of a torch.save zip --------------------===//

#include "PickleBytes.h"
#include "spyre/Target/Pt2/TorchSave.h"

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

/// `n` bytes at `at` of `s`, little-endian.
uint64_t le64(const std::string &s, size_t at, int n) {
  uint64_t v = 0;
  for (int k = 0; k < n; ++k)
    v |= uint64_t(uint8_t(s[at + size_t(k)])) << (8 * k);
  return v;
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
  EXPECT_EQ(error, "test.pt: storages are big-endian; only little-endian is "
                   "supported");
  // Anything else is neither.
  records[1].data = "middle";
  EXPECT_FALSE(readTorchSave(zip(records), "test.pt", error));
  EXPECT_EQ(error, "test.pt: record 'archive/byteorder' holds 'middle', not "
                   "'little' or 'big'");
  records[1].data = "little\n";
  EXPECT_FALSE(readTorchSave(zip(records), "test.pt", error));
  EXPECT_EQ(error, "test.pt: record 'archive/byteorder' holds 7 bytes, not "
                   "'little' or 'big'");
}

/// Offsets in a zip() file: its end record and its central headers.
size_t endRecord(const std::string &file) { return file.size() - 22; }
size_t centralHeader(const std::string &file, int index) {
  size_t at = size_t(le64(file, endRecord(file) + 16, 4));
  for (int i = 0; i < index; ++i)
    at += 46 + size_t(le64(file, at + 28, 2));
  return at;
}
/// Overwrites `n` bytes at `at` with `v`, little-endian.
void put(std::string &file, size_t at, uint64_t v, int n) {
  file.replace(at, size_t(n), le(v, n));
}

TEST(TorchSave, Zip64EndRecord) {
  // The end record's fields saturated, the real ones in a zip64 record
  // found through its locator (what torch writes above 65535 entries).
  std::vector<Record> records = goodRecords();
  std::string file = zip(records);
  size_t end = endRecord(file);
  uint64_t cdSize = le64(file, end + 12, 4), cdOffset = le64(file, end + 16, 4);
  std::string z64 = le(0x06064b50, 4) + le(44, 8) + le(45, 2) + le(45, 2) +
                    le(0, 4) + le(0, 4) + le(records.size(), 8) +
                    le(records.size(), 8) + le(cdSize, 8) + le(cdOffset, 8);
  std::string locator = le(0x07064b50, 4) + le(0, 4) + le(end, 8) + le(1, 4);
  std::string eocd = file.substr(end);
  put(eocd, 8, 0xffff, 2);
  put(eocd, 10, 0xffff, 2);
  put(eocd, 16, 0xffffffff, 4);
  file = file.substr(0, end) + z64 + locator + eocd;
  std::string error;
  auto dict = readTorchSave(file, "test.pt", error);
  ASSERT_TRUE(dict) << error;
  EXPECT_EQ(dict->size(), 2u);
}

// Every rejection of the zip reader, each shown by one corruption of a
// good file.
TEST(TorchSave, EveryZipRejectionHasItsMessage) {
  const std::string good = zip(goodRecords());
  auto expectError = [](const std::string &file, const std::string &message) {
    std::string error;
    EXPECT_FALSE(readTorchSave(file, "test.pt", error)) << message;
    EXPECT_EQ(error, "test.pt: " + message);
  };
  expectError("hello", "not a zip file (5 bytes)");
  expectError(std::string(100, '\0'),
              "not a zip file (no end-of-central-directory record)");
  {
    // A zip64 locator whose record is not one.
    size_t end = endRecord(good);
    std::string locator = le(0x07064b50, 4) + le(0, 4) + le(0, 8) + le(1, 4);
    expectError(good.substr(0, end) + locator + good.substr(end),
                "corrupt zip64 end-of-central-directory record");
    locator = le(0x07064b50, 4) + le(0, 4) + le(~uint64_t(0), 8) + le(1, 4);
    expectError(good.substr(0, end) + locator + good.substr(end),
                "corrupt zip64 end-of-central-directory record");
  }
  std::string bad = good;
  put(bad, endRecord(bad) + 10, 0xffff, 2);
  expectError(bad, "zip directory claims 65535 entries");
  bad = good;
  put(bad, endRecord(bad) + 16, 0, 4);
  expectError(bad, "corrupt zip central directory at offset 0");
  bad = good;
  put(bad, centralHeader(bad, 4) + 28, 0xffff, 2); // the last name's length
  expectError(bad, "zip central directory runs past the end of the file");
  bad = good;
  put(bad, centralHeader(bad, 0) + 8, 1, 2);
  expectError(bad, "entry 'archive/data.pkl' is encrypted");
  bad = good;
  put(bad, centralHeader(bad, 1) + 42, 5, 4);
  expectError(bad, "entry 'archive/byteorder' has no local header");
  bad = good;
  put(bad, centralHeader(bad, 2) + 20, 0x7fffffff, 4);
  expectError(bad, "entry 'archive/data/0' runs past the end of the file");
  std::vector<Record> records = goodRecords();
  records[0].name = "data.pkl";
  expectError(zip(records), "entry 'data.pkl' is not under a folder (not a "
                            "torch.save file)");
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
