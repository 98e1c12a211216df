//===- TorchSaveTest.cpp - Tensors of a torch.save zip --------------------===//

#include "spyre/Target/Pt2/TorchSave.h"
#include "PickleBytes.h"

#include <gtest/gtest.h>

using namespace spyre;
using namespace spyre::test;

namespace {

struct Record {
  std::string name, data;
  uint16_t method = 0; // 0: stored
};

/// CRC-32 (zip's: reflected polynomial 0xEDB88320), bit by bit.
uint32_t crc32(const std::string &data) {
  uint32_t crc = 0xffffffffu;
  for (char c : data) {
    crc ^= uint8_t(c);
    for (int k = 0; k < 8; ++k)
      crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

/// A zip of `records` laid out like torch's writer: each local header
/// padded with a 'FB' extra field, sizes and CRCs in the local header and
/// the central directory.
std::string zip(const std::vector<Record> &records) {
  std::string out, central;
  for (const Record &r : records) {
    std::string pad = le(0x4246, 2) + le(13, 2) + std::string(13, 'Z');
    uint64_t local = out.size();
    uint32_t crc = crc32(r.data);
    out += le(0x04034b50, 4) + le(20, 2) + le(0, 2) + le(r.method, 2) +
           le(0, 4) + le(crc, 4) + le(r.data.size(), 4) + le(r.data.size(), 4) +
           le(r.name.size(), 2) + le(pad.size(), 2) + r.name + pad + r.data;
    central += le(0x02014b50, 4) + le(20, 2) + le(20, 2) + le(0, 2) +
               le(r.method, 2) + le(0, 4) + le(crc, 4) + le(r.data.size(), 4) +
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
  return dict({{"fc.weight",
                parameter(tensor("FloatStorage", "0", 12, 0, {3, 4}, {4, 1}))},
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
  records[0].data =
      dict({{"w", tensor("FloatStorage", "0", 12, 1, {3, 4}, {4, 1})}});
  std::string error;
  EXPECT_FALSE(readTorchSave(zip(records), "test.pt", error));
  EXPECT_EQ(error, "test.pt: tensor 'w' reaches past the 12 elements of "
                   "storage 'archive/data/0'");
  // Huge sizes and strides overflow nothing.
  records[0].data = dict({{"w", tensor("FloatStorage", "0", 12, 0, {2, 2},
                                       {0x7fffffff, 0x7fffffff})}});
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

// Every corruption of a good file is refused by libzip (ZipIndex), the one
// zip reader, with its reason.
TEST(TorchSave, EveryZipRejectionHasItsMessage) {
  const std::string good = zip(goodRecords());
  auto expectError = [](const std::string &file, const std::string &message) {
    std::string error;
    EXPECT_FALSE(readTorchSave(file, "test.pt", error)) << message;
    EXPECT_EQ(error, "test.pt" + message);
  };
  const std::string notZip =
      " is not a readable zip archive: Not a zip archive";
  const std::string inconsistent =
      " is not a readable zip archive: Zip archive inconsistent";
  expectError("hello", notZip);
  expectError(std::string(100, '\0'), notZip);
  {
    // A zip64 locator whose record is not one, or lies past the file.
    size_t end = endRecord(good);
    std::string locator = le(0x07064b50, 4) + le(0, 4) + le(0, 8) + le(1, 4);
    expectError(good.substr(0, end) + locator + good.substr(end), inconsistent);
    locator = le(0x07064b50, 4) + le(0, 4) + le(~uint64_t(0), 8) + le(1, 4);
    expectError(good.substr(0, end) + locator + good.substr(end),
                " is not a readable zip archive: Seek error: File too large");
  }
  std::string bad = good;
  put(bad, endRecord(bad) + 10, 0xffff, 2);
  expectError(bad, notZip); // 65535 entries claimed
  bad = good;
  put(bad, endRecord(bad) + 16, 0, 4);
  expectError(bad, notZip); // the central directory at offset 0
  bad = good;
  put(bad, centralHeader(bad, 4) + 28, 0xffff, 2); // the last name's length
  expectError(bad, inconsistent);
  bad = good;
  put(bad, centralHeader(bad, 0) + 8, 1, 2);
  expectError(bad, ": entry 'archive/data.pkl' is encrypted");
  bad = good;
  put(bad, centralHeader(bad, 1) + 42, 5, 4); // no local header there
  expectError(bad, notZip);
  bad = good;
  put(bad, centralHeader(bad, 2) + 20, 0x7fffffff, 4);
  expectError(bad, notZip); // data past the end of the file
  std::vector<Record> records = goodRecords();
  records[0].name = "data.pkl";
  expectError(zip(records), ": entry 'data.pkl' is not under a folder (not a "
                            "torch.save file)");
  // A stored record whose bytes do not match its CRC.
  bad = good;
  // Its data follows the 30-byte header, the name and the 17-byte padding.
  bad[size_t(le64(bad, centralHeader(bad, 2) + 42, 4)) + 30 + 14 + 17] ^= 1;
  expectError(bad,
              ": entry 'archive/data/0' is corrupt (CRC error) (storage of "
              "'fc.weight')");
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
  EXPECT_NE(error.find("not a readable zip archive"), std::string::npos)
      << error;
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
