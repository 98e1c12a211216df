//===- Pt2Archive.cpp - Reading .pt2 zip archives -------------------------===//

#include "spyre/Target/Pt2/Pt2Archive.h"

#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace spyre {

//===----------------------------------------------------------------------===//
// MappedRange
//===----------------------------------------------------------------------===//

MappedRange::~MappedRange() {
  if (base_)
    munmap(base_, mappedBytes_);
}

MappedRange::MappedRange(MappedRange &&o) noexcept { *this = std::move(o); }

MappedRange &MappedRange::operator=(MappedRange &&o) noexcept {
  if (this != &o) {
    if (base_)
      munmap(base_, mappedBytes_);
    base_ = o.base_;
    mappedBytes_ = o.mappedBytes_;
    data_ = o.data_;
    size_ = o.size_;
    o.base_ = nullptr;
    o.data_ = nullptr;
    o.size_ = o.mappedBytes_ = 0;
  }
  return *this;
}

std::optional<MappedRange> MappedRange::map(const std::string &path,
                                            uint64_t offset, uint64_t size,
                                            std::string &error) {
  MappedRange r;
  if (size == 0)
    return r;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || offset > uint64_t(st.st_size) ||
      size > uint64_t(st.st_size) - offset) {
    ::close(fd);
    error = "'" + path + "' is shorter than the " + std::to_string(size) +
            " bytes expected at offset " + std::to_string(offset);
    return std::nullopt;
  }
  uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  uint64_t start = offset / page * page;
  uint64_t bytes = offset - start + size;
  void *p = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, off_t(start));
  ::close(fd);
  if (p == MAP_FAILED) {
    error = "cannot map '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  r.base_ = p;
  r.mappedBytes_ = bytes;
  r.data_ = static_cast<const uint8_t *>(p) + (offset - start);
  r.size_ = size;
  return r;
}

//===----------------------------------------------------------------------===//
// Pt2Archive
//===----------------------------------------------------------------------===//

Pt2Archive::~Pt2Archive() = default;

std::string legacyExportSaveMessage(const std::string &path) {
  return "'" + path +
         "' is a torch.export.save archive of torch <= 2.7 "
         "(serialized_exported_program.json), which is not read; save the "
         "program again with torch.export.save of torch >= 2.8 (a PT2 "
         "archive)";
}

std::unique_ptr<Pt2Archive> Pt2Archive::open(const std::string &path,
                                             std::string &error) {
  std::unique_ptr<ZipIndex> zip =
      ZipIndex::openFile(path, "'" + path + "'", error);
  if (!zip)
    return nullptr;
  std::unique_ptr<Pt2Archive> a(new Pt2Archive());
  a->path_ = path;
  std::string directory; // name, size and CRC of every entry, for the digest
  for (const ZipIndex::Entry &e : zip->entries()) {
    const std::string &s = e.name;
    directory +=
        s + '\0' + std::to_string(e.size) + ':' + std::to_string(e.crc) + '\0';
    size_t slash = s.find('/');
    if (slash == std::string::npos) {
      error = s == "serialized_exported_program.json"
                  ? legacyExportSaveMessage(path)
                  : "'" + path + "': entry '" + s +
                        "' is not under a root folder (not a PyTorch archive)";
      return nullptr;
    }
    std::string root = s.substr(0, slash + 1);
    if (a->root_.empty())
      a->root_ = root;
    else if (root != a->root_) {
      error = "'" + path + "': entries under two root folders ('" + a->root_ +
              "' and '" + root + "')";
      return nullptr;
    }
    a->entries_.push_back(s.substr(slash + 1));
  }
  if (a->entries_.empty()) {
    error = "'" + path + "' is an empty archive";
    return nullptr;
  }
  a->digest_ = llvm::xxh3_64bits(llvm::StringRef(directory));
  a->zip_ = std::move(zip);
  return a;
}

bool Pt2Archive::contains(const std::string &relative) const {
  return zip_->find(root_ + relative) != nullptr;
}

const ZipIndex::Entry *Pt2Archive::entry(const std::string &relative,
                                         std::string &error) const {
  const ZipIndex::Entry *e = zip_->find(root_ + relative);
  if (!e)
    error = "'" + path_ + "' has no entry '" + root_ + relative + "'";
  return e;
}

std::optional<uint64_t>
Pt2Archive::entrySize(const std::string &relative) const {
  const ZipIndex::Entry *e = zip_->find(root_ + relative);
  return e ? std::optional<uint64_t>(e->size) : std::nullopt;
}

std::optional<uint64_t>
Pt2Archive::entryDigest(const std::string &relative) const {
  const ZipIndex::Entry *e = zip_->find(root_ + relative);
  if (!e)
    return std::nullopt;
  std::string identity =
      e->name + '\0' + std::to_string(e->size) + '\0' + std::to_string(e->crc);
  return llvm::xxh3_64bits(llvm::StringRef(identity));
}

std::optional<std::vector<uint8_t>>
Pt2Archive::readRange(const std::string &relative, uint64_t offset,
                      uint64_t size, std::string &error) const {
  const ZipIndex::Entry *e = entry(relative, error);
  std::vector<uint8_t> out;
  if (!e || !zip_->read(*e, offset, size, out, error))
    return std::nullopt;
  return out;
}

std::optional<std::string> Pt2Archive::read(const std::string &relative,
                                            std::string &error) const {
  const ZipIndex::Entry *e = entry(relative, error);
  if (!e)
    return std::nullopt;
  if (e->size > kMaxTextBytes) {
    error = "'" + path_ + "': entry '" + e->name + "' has " +
            std::to_string(e->size) + " bytes; text entries are read up to " +
            std::to_string(kMaxTextBytes);
    return std::nullopt;
  }
  std::vector<uint8_t> bytes;
  if (!zip_->read(*e, 0, e->size, bytes, error) ||
      !zip_->verify(*e, e->size, error))
    return std::nullopt;
  return std::string(bytes.begin(), bytes.end());
}

std::optional<uint64_t>
Pt2Archive::storedDataOffset(const std::string &relative,
                             std::string &error) const {
  const ZipIndex::Entry *e = entry(relative, error);
  if (!e)
    return std::nullopt;
  return zip_->dataOffset(*e, error);
}

bool Pt2Archive::verify(const std::string &relative, uint64_t usedBytes,
                        std::string &error) const {
  const ZipIndex::Entry *e = entry(relative, error);
  return e && zip_->verify(*e, usedBytes, error);
}

} // namespace spyre
