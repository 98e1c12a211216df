//===- ZipIndex.h - The one zip reader: libzip and data offsets -*- C++ -*-===//
//
// Every zip the importer reads (the `.pt2` file, and the torch.save zip
// nested in a torch 2.6-2.8 archive) is parsed by libzip alone. libzip
// hides where an entry's data starts, which is what mapping a weight in
// place needs; a second directory parser would disagree with libzip on a
// hostile file (a fake end-of-central-directory record in the archive
// comment maps one weight onto another entry's bytes). So libzip reads
// through a source of ours that records the position of each read: the
// first byte of an entry that libzip returns comes from its data offset.
//
// Sizes a directory claims are checked against what the file can hold
// (a stored entry inside the file, a deflated one at most 1032 times its
// compressed bytes, DEFLATE's limit), and verify() checks an entry's CRC-32
// by reading it whole through libzip, once.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TARGET_PT2_ZIPINDEX_H
#define SPYRE_TARGET_PT2_ZIPINDEX_H

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace spyre {

class ZipIndex {
public:
  struct Entry {
    std::string name;
    uint64_t index = 0;
    uint64_t size = 0, compressedSize = 0;
    uint32_t crc = 0;
    bool stored = false;
    bool encrypted = false;
  };

  ~ZipIndex();
  /// Opens the zip file `path`; errors name `what`.
  static std::unique_ptr<ZipIndex> openFile(const std::string &path,
                                            const std::string &what,
                                            std::string &error);
  /// Opens a zip held in memory (`bytes` must outlive the index).
  static std::unique_ptr<ZipIndex> openMemory(std::string_view bytes,
                                              const std::string &what,
                                              std::string &error);

  /// Entries in directory order.
  const std::vector<Entry> &entries() const { return entries_; }
  const Entry *find(const std::string &name) const;

  /// The offset of a stored entry's data in the file (or buffer), as libzip
  /// reads it. Empty entries have no data: their offset is 0.
  std::optional<uint64_t> dataOffset(const Entry &e, std::string &error);
  /// Reads `size` bytes at `offset` of an entry (decompressing a deflated
  /// one up to there). The result grows as bytes arrive, so a size that the
  /// stream does not deliver fails before it is allocated.
  bool read(const Entry &e, uint64_t offset, uint64_t size,
            std::vector<uint8_t> &out, std::string &error);
  /// Reads the entry to its end through libzip, which checks its size and
  /// CRC-32; the answer is remembered. `usedBytes` is how much of it the
  /// caller needs: see checkUnused.
  bool verify(const Entry &e, uint64_t usedBytes, std::string &error);

  /// A compressed entry is decompressed whole to check its CRC, so one that
  /// holds far more than its user needs (8 MiB of zeros deflate to 8 KB; a
  /// small weight in 100 GiB of them) is refused: at most
  /// kMaxUnusedFactor * used + kUnusedSlack unused bytes (storages are
  /// padded, and a view may use part of one). Stored entries cost no more
  /// than the file's own bytes and have no such limit.
  static constexpr uint64_t kMaxUnusedFactor = 4;
  static constexpr uint64_t kUnusedSlack = uint64_t(1) << 20;
  static bool checkUnused(const std::string &what, const std::string &name,
                          uint64_t size, uint64_t usedBytes,
                          std::string &error);

private:
  ZipIndex();
  bool load(std::string &error);

  struct Source;
  std::unique_ptr<Source> source_;
  std::string what_;
  std::vector<Entry> entries_;
  std::map<std::string, size_t> byName_;
  std::set<uint64_t> verified_;
};

} // namespace spyre

#endif // SPYRE_TARGET_PT2_ZIPINDEX_H
