//===- Pt2Archive.h - Reading .pt2 zip archives -----------------*- C++ -*-===//
//
// A torch.export `.pt2` is a zip (docs/pt2-format.md section 1): every entry
// under one root folder, stored uncompressed and 64-byte aligned so that
// weights can be memory-mapped in place. Zip parsing is libzip's (ZIP64
// included); this class adds the PyTorch conventions and the mapping of a
// stored entry's bytes.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TARGET_PT2_PT2ARCHIVE_H
#define SPYRE_TARGET_PT2_PT2ARCHIVE_H

#include "spyre/Target/Pt2/ZipIndex.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spyre {

/// A read-only memory mapping of a file range.
class MappedRange {
public:
  MappedRange() = default;
  ~MappedRange();
  MappedRange(const MappedRange &) = delete;
  MappedRange &operator=(const MappedRange &) = delete;
  MappedRange(MappedRange &&o) noexcept;
  MappedRange &operator=(MappedRange &&o) noexcept;

  /// Maps [offset, offset + size) of `path`. Empty ranges map nothing.
  static std::optional<MappedRange> map(const std::string &path,
                                        uint64_t offset, uint64_t size,
                                        std::string &error);
  const uint8_t *data() const { return data_; }
  uint64_t size() const { return size_; }

private:
  void *base_ = nullptr;
  uint64_t mappedBytes_ = 0;
  const uint8_t *data_ = nullptr;
  uint64_t size_ = 0;
};

/// The error for a torch <= 2.7 torch.export.save zip (a plain zip with
/// serialized_exported_program.json), which the importer does not read.
std::string legacyExportSaveMessage(const std::string &path);

class Pt2Archive {
public:
  ~Pt2Archive();
  /// Opens `path` as a zip and finds its root folder. Errors name the path.
  static std::unique_ptr<Pt2Archive> open(const std::string &path,
                                          std::string &error);

  const std::string &path() const { return path_; }
  /// The root folder, with its trailing '/' ("model/").
  const std::string &root() const { return root_; }
  /// Entry names relative to the root, in archive order.
  const std::vector<std::string> &entries() const { return entries_; }
  bool contains(const std::string &relative) const;
  /// Size of an entry, or nullopt when absent.
  std::optional<uint64_t> entrySize(const std::string &relative) const;
  /// Text entries (the program's JSON, configs) are read up to this size.
  static constexpr uint64_t kMaxTextBytes = uint64_t(1) << 31;

  /// Reads a whole entry (for JSON and small files), CRC checked.
  std::optional<std::string> read(const std::string &relative,
                                  std::string &error) const;
  /// Maps `size` bytes at `offset` of a stored entry in place (read into
  /// memory instead when the entry is compressed).
  std::optional<std::vector<uint8_t>> readRange(const std::string &relative,
                                                uint64_t offset, uint64_t size,
                                                std::string &error) const;
  /// The file offset of a stored (uncompressed) entry's data, for mmap, as
  /// libzip finds it (ZipIndex). The bytes are not CRC checked: verify().
  std::optional<uint64_t> storedDataOffset(const std::string &relative,
                                           std::string &error) const;
  /// Checks an entry's size and CRC-32 by reading it whole (once), of which
  /// `usedBytes` are needed (ZipIndex::checkUnused).
  bool verify(const std::string &relative, uint64_t usedBytes,
              std::string &error) const;
  /// A digest of the archive's contents that costs no data read: XXH3 of
  /// every entry's name, size and CRC-32 from the central directory. Equal
  /// archives give equal digests wherever they lie.
  uint64_t contentDigest() const { return digest_; }
  /// The same for one entry (its name, size and CRC-32), or nullopt when
  /// absent.
  std::optional<uint64_t> entryDigest(const std::string &relative) const;

private:
  Pt2Archive() = default;
  uint64_t digest_ = 0;
  std::string path_;
  std::string root_;
  std::vector<std::string> entries_;
  const ZipIndex::Entry *entry(const std::string &relative,
                               std::string &error) const;
  std::unique_ptr<ZipIndex> zip_;
};

} // namespace spyre

#endif // SPYRE_TARGET_PT2_PT2ARCHIVE_H
