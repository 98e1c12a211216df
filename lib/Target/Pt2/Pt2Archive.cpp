//===- Pt2Archive.cpp - Reading .pt2 zip archives -------------------------===//

#include "spyre/Target/Pt2/Pt2Archive.h"

#include "llvm/Support/xxhash.h"

#include <zip.h>

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

struct Pt2Archive::Impl {
  zip_t *zip = nullptr;
  ~Impl() {
    if (zip)
      zip_discard(zip);
  }
};

Pt2Archive::~Pt2Archive() = default;

std::string legacyExportSaveMessage(const std::string &path) {
  return "'" + path + "' is a torch.export.save archive of torch <= 2.7 "
         "(serialized_exported_program.json), which is not read; save the "
         "program again with torch.export.save of torch >= 2.8 (a PT2 "
         "archive)";
}

std::unique_ptr<Pt2Archive> Pt2Archive::open(const std::string &path,
                                             std::string &error) {
  int code = 0;
  zip_t *z = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
  if (!z) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, code);
    error = "'" + path + "' is not a readable zip archive: " +
            zip_error_strerror(&ze);
    zip_error_fini(&ze);
    return nullptr;
  }
  std::unique_ptr<Pt2Archive> a(new Pt2Archive());
  a->impl_ = std::make_unique<Impl>();
  a->impl_->zip = z;
  a->path_ = path;
  zip_int64_t n = zip_get_num_entries(z, 0);
  std::string directory; // name, size and CRC of every entry, for the digest
  for (zip_int64_t i = 0; i < n; ++i) {
    const char *name = zip_get_name(z, zip_uint64_t(i), ZIP_FL_ENC_RAW);
    if (!name)
      continue;
    std::string s(name);
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z, zip_uint64_t(i), ZIP_FL_ENC_RAW, &st) == 0)
      directory += s + '\0' + std::to_string(st.size) + ':' +
                   std::to_string(st.crc) + '\0';
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
      error = "'" + path + "': entries under two root folders ('" +
              a->root_ + "' and '" + root + "')";
      return nullptr;
    }
    a->entries_.push_back(s.substr(slash + 1));
  }
  if (a->entries_.empty()) {
    error = "'" + path + "' is an empty archive";
    return nullptr;
  }
  a->digest_ = llvm::xxh3_64bits(llvm::StringRef(directory));
  return a;
}

bool Pt2Archive::contains(const std::string &relative) const {
  return std::find(entries_.begin(), entries_.end(), relative) !=
         entries_.end();
}

std::optional<uint64_t>
Pt2Archive::entrySize(const std::string &relative) const {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat(impl_->zip, (root_ + relative).c_str(), 0, &st) != 0 ||
      !(st.valid & ZIP_STAT_SIZE))
    return std::nullopt;
  return uint64_t(st.size);
}

std::optional<std::vector<uint8_t>>
Pt2Archive::readRange(const std::string &relative, uint64_t offset,
                      uint64_t size, std::string &error) const {
  std::string name = root_ + relative;
  std::optional<uint64_t> total = entrySize(relative);
  if (!total) {
    error = "'" + path_ + "' has no entry '" + name + "'";
    return std::nullopt;
  }
  if (offset > *total || size > *total - offset) {
    error = "entry '" + name + "' has " + std::to_string(*total) +
            " bytes; " + std::to_string(offset + size) + " are needed";
    return std::nullopt;
  }
  zip_file_t *f = zip_fopen(impl_->zip, name.c_str(), 0);
  if (!f) {
    error = "cannot open entry '" + name + "': " + zip_strerror(impl_->zip);
    return std::nullopt;
  }
  std::vector<uint8_t> out(size);
  bool ok = true;
  // Compressed entries cannot seek (and a failed zip_fseek leaves the file
  // unreadable in libzip < 1.9): read and drop the prefix instead.
  zip_stat_t st;
  zip_stat_init(&st);
  bool stored = zip_stat(impl_->zip, name.c_str(), 0, &st) == 0 &&
                (st.valid & ZIP_STAT_COMP_METHOD) &&
                st.comp_method == ZIP_CM_STORE;
  if (offset && stored) {
    ok = zip_fseek(f, zip_int64_t(offset), SEEK_SET) == 0;
  } else if (offset) {
    std::vector<uint8_t> skip(std::min<uint64_t>(offset, 1 << 20));
    for (uint64_t left = offset; left && ok;) {
      zip_int64_t r = zip_fread(f, skip.data(), std::min<uint64_t>(left, skip.size()));
      ok = r > 0;
      left -= ok ? uint64_t(r) : 0;
    }
  }
  for (uint64_t got = 0; ok && got < size;) {
    zip_int64_t r = zip_fread(f, out.data() + got, size - got);
    ok = r > 0;
    got += ok ? uint64_t(r) : 0;
  }
  zip_fclose(f);
  if (!ok) {
    error = "cannot read entry '" + name + "' (truncated or corrupt archive)";
    return std::nullopt;
  }
  return out;
}

std::optional<std::string> Pt2Archive::read(const std::string &relative,
                                            std::string &error) const {
  std::optional<uint64_t> size = entrySize(relative);
  if (!size) {
    error = "'" + path_ + "' has no entry '" + root_ + relative + "'";
    return std::nullopt;
  }
  std::optional<std::vector<uint8_t>> bytes = readRange(relative, 0, *size, error);
  if (!bytes)
    return std::nullopt;
  return std::string(bytes->begin(), bytes->end());
}

namespace {
uint16_t le16(const uint8_t *p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t le32(const uint8_t *p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) |
         (uint32_t(p[3]) << 24);
}
} // namespace

std::optional<uint64_t>
Pt2Archive::storedDataOffset(const std::string &relative,
                             std::string &error) const {
  std::string name = root_ + relative;
  zip_int64_t index = zip_name_locate(impl_->zip, name.c_str(), 0);
  zip_stat_t st;
  zip_stat_init(&st);
  if (index < 0 || zip_stat_index(impl_->zip, zip_uint64_t(index), 0, &st) != 0) {
    error = "'" + path_ + "' has no entry '" + name + "'";
    return std::nullopt;
  }
  if (!(st.valid & ZIP_STAT_COMP_METHOD) || st.comp_method != ZIP_CM_STORE) {
    error = "entry '" + name + "' is compressed";
    return std::nullopt;
  }
  // libzip does not expose where an entry's data starts; find its local
  // header through the central directory entry's offset field. libzip's
  // extra field API gives us the ZIP64 offset when there is one.
  zip_uint16_t len = 0;
  const zip_uint8_t *z64 = zip_file_extra_field_get_by_id(
      impl_->zip, zip_uint64_t(index), 0x0001, 0, &len, ZIP_FL_CENTRAL);
  (void)z64;
  // Scan the file for the local header of this entry: the central
  // directory is authoritative, so read it ourselves.
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot open '" + path_ + "'";
    return std::nullopt;
  }
  struct stat fst;
  fstat(fd, &fst);
  uint64_t fileSize = uint64_t(fst.st_size);
  auto readAt = [&](uint64_t off, void *buf, size_t n) {
    return off <= fileSize && n <= fileSize - off &&
           pread(fd, buf, n, off_t(off)) == ssize_t(n);
  };
  // End of central directory (and its ZIP64 twin).
  uint64_t tail = std::min<uint64_t>(fileSize, 65557);
  std::vector<uint8_t> buf(tail);
  std::optional<uint64_t> result;
  if (readAt(fileSize - tail, buf.data(), tail)) {
    for (int64_t i = int64_t(tail) - 22; i >= 0 && !result; --i) {
      if (le32(&buf[i]) != 0x06054b50)
        continue;
      uint64_t cdCount = le16(&buf[i + 10]);
      uint64_t cdOffset = le32(&buf[i + 16]);
      uint64_t eocd = fileSize - tail + uint64_t(i);
      uint8_t loc[20];
      if (eocd >= 20 && readAt(eocd - 20, loc, 20) && le32(loc) == 0x07064b50) {
        uint64_t z64eocd = le32(loc + 8) | (uint64_t(le32(loc + 12)) << 32);
        uint8_t rec[56];
        if (readAt(z64eocd, rec, 56) && le32(rec) == 0x06064b50) {
          cdCount = le32(rec + 32) | (uint64_t(le32(rec + 36)) << 32);
          cdOffset = le32(rec + 48) | (uint64_t(le32(rec + 52)) << 32);
        }
      }
      uint64_t pos = cdOffset;
      for (uint64_t e = 0; e < cdCount && !result; ++e) {
        uint8_t h[46];
        if (!readAt(pos, h, 46) || le32(h) != 0x02014b50)
          break;
        uint16_t nameLen = le16(h + 28), extraLen = le16(h + 30),
                 commentLen = le16(h + 32);
        std::string entryName(nameLen, '\0');
        if (!readAt(pos + 46, entryName.data(), nameLen))
          break;
        uint64_t localOffset = le32(h + 42);
        if (entryName == name) {
          if (localOffset == 0xffffffffu) {
            // ZIP64 extra field: [size][csize][offset], present fields only.
            std::vector<uint8_t> extra(extraLen);
            if (readAt(pos + 46 + nameLen, extra.data(), extraLen)) {
              for (size_t x = 0; x + 4 <= extra.size();) {
                uint16_t id = le16(&extra[x]), sz = le16(&extra[x + 2]);
                if (id == 0x0001) {
                  size_t field = x + 4;
                  if (le32(h + 24) == 0xffffffffu)
                    field += 8;
                  if (le32(h + 20) == 0xffffffffu)
                    field += 8;
                  if (field + 8 <= x + 4 + sz && field + 8 <= extra.size())
                    localOffset = le32(&extra[field]) |
                                  (uint64_t(le32(&extra[field + 4])) << 32);
                }
                x += 4 + sz;
              }
            }
          }
          uint8_t lh[30];
          if (readAt(localOffset, lh, 30) && le32(lh) == 0x04034b50)
            result = localOffset + 30 + le16(lh + 26) + le16(lh + 28);
        }
        pos += 46 + uint64_t(nameLen) + extraLen + commentLen;
      }
    }
  }
  ::close(fd);
  if (!result || *result > fileSize || st.size > fileSize - *result) {
    error = "cannot locate the data of entry '" + name + "' in '" + path_ + "'";
    return std::nullopt;
  }
  return result;
}

} // namespace spyre
