//===- ZipIndex.cpp - The one zip reader: libzip, with data offsets -------===//

#include "spyre/Target/Pt2/ZipIndex.h"

#include <zip.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace spyre {

namespace {
/// DEFLATE's best ratio is 1032:1 (a 258-byte match in about 2 bits); a
/// deflated entry that claims more than that of its compressed bytes lies.
constexpr uint64_t kMaxDeflateRatio = 1032;
constexpr uint64_t kChunk = uint64_t(1) << 20;
} // namespace

/// The bytes libzip reads: a file (pread) or a buffer (memcpy). Records
/// where the last read started, which is how dataOffset learns where
/// libzip finds an entry's data.
struct ZipIndex::Source {
  int fd = -1;
  std::string_view memory;
  uint64_t size = 0, pos = 0, lastReadAt = 0;
  zip_error_t error;
  zip_t *zip = nullptr;

  Source() { zip_error_init(&error); }
  ~Source() {
    if (zip)
      zip_discard(zip);
    if (fd >= 0)
      ::close(fd);
    zip_error_fini(&error);
  }

  /// Reads at `at` without moving `pos`; bytes read, or -1.
  int64_t readAt(uint64_t at, void *out, uint64_t n) {
    n = at >= size ? 0 : std::min(n, size - at);
    if (fd < 0) {
      std::memcpy(out, memory.data() + at, n);
      return int64_t(n);
    }
    uint64_t done = 0;
    while (done < n) {
      ssize_t r = ::pread(fd, static_cast<char *>(out) + done, n - done,
                          off_t(at + done));
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0) {
        zip_error_set(&error, ZIP_ER_READ, r < 0 ? errno : EIO);
        return -1;
      }
      done += uint64_t(r);
    }
    return int64_t(n);
  }

  /// Opens the zip through this source (libzip parses its directory and
  /// checks its consistency); false with `error` set, naming `what`.
  bool openZip(const std::string &what, std::string &error) {
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_function_create(&callback, this, &ze);
    zip_t *z = src ? zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze)
                   : nullptr;
    if (!z) {
      error =
          what + " is not a readable zip archive: " + zip_error_strerror(&ze);
      zip_error_fini(&ze);
      if (src)
        zip_source_free(src);
      return false;
    }
    zip_error_fini(&ze);
    zip = z;
    return true;
  }

  /// The directory record of entry `index`; false when libzip has none or
  /// it has no name.
  bool statEntry(uint64_t index, zip_stat_t &st) {
    zip_stat_init(&st);
    return zip_stat_index(zip, zip_uint64_t(index), ZIP_FL_ENC_RAW, &st) == 0 &&
           st.name;
  }

  static zip_int64_t callback(void *state, void *data, zip_uint64_t len,
                              zip_source_cmd_t cmd) {
    auto *s = static_cast<Source *>(state);
    switch (cmd) {
    case ZIP_SOURCE_OPEN:
      s->pos = 0;
      return 0;
    case ZIP_SOURCE_READ: {
      s->lastReadAt = s->pos;
      zip_int64_t n = s->readAt(s->pos, data, len);
      if (n > 0)
        s->pos += uint64_t(n);
      return n;
    }
    case ZIP_SOURCE_CLOSE:
    case ZIP_SOURCE_FREE:
      return 0;
    case ZIP_SOURCE_STAT: {
      auto *st = static_cast<zip_stat_t *>(data);
      zip_stat_init(st);
      st->size = s->size;
      st->comp_size = s->size;
      st->comp_method = ZIP_CM_STORE;
      st->encryption_method = ZIP_EM_NONE;
      st->valid = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD |
                  ZIP_STAT_ENCRYPTION_METHOD;
      return sizeof(zip_stat_t);
    }
    case ZIP_SOURCE_ERROR:
      return zip_error_to_data(&s->error, data, len);
    case ZIP_SOURCE_SEEK: {
      zip_int64_t to =
          zip_source_seek_compute_offset(s->pos, s->size, data, len, &s->error);
      if (to < 0)
        return -1;
      s->pos = uint64_t(to);
      return 0;
    }
    case ZIP_SOURCE_TELL:
      return zip_int64_t(s->pos);
    case ZIP_SOURCE_SUPPORTS:
      return ZIP_SOURCE_SUPPORTS_SEEKABLE;
    default:
      zip_error_set(&s->error, ZIP_ER_OPNOTSUPP, 0);
      return -1;
    }
  }
};

ZipIndex::ZipIndex() : source_(std::make_unique<Source>()) {}
ZipIndex::~ZipIndex() = default;

std::unique_ptr<ZipIndex> ZipIndex::openFile(const std::string &path,
                                             const std::string &what,
                                             std::string &error) {
  std::unique_ptr<ZipIndex> z(new ZipIndex());
  z->what_ = what;
  z->source_->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (z->source_->fd < 0 || fstat(z->source_->fd, &st) != 0) {
    error = what + " is not a readable zip archive: " + std::strerror(errno);
    return nullptr;
  }
  z->source_->size = uint64_t(st.st_size);
  return z->load(error) ? std::move(z) : nullptr;
}

std::unique_ptr<ZipIndex> ZipIndex::openMemory(std::string_view bytes,
                                               const std::string &what,
                                               std::string &error) {
  std::unique_ptr<ZipIndex> z(new ZipIndex());
  z->what_ = what;
  z->source_->memory = bytes;
  z->source_->size = bytes.size();
  return z->load(error) ? std::move(z) : nullptr;
}

namespace {

/// The entry that directory record `st` (entry `index`) describes.
ZipIndex::Entry entryFromStat(const zip_stat_t &st, uint64_t index) {
  ZipIndex::Entry e;
  e.name = st.name;
  e.index = index;
  e.size = st.size;
  e.compressedSize = st.comp_size;
  e.crc = st.crc;
  e.stored = st.comp_method == ZIP_CM_STORE;
  e.encrypted = st.encryption_method != ZIP_EM_NONE;
  return e;
}

/// Why entry `e` (compression method `method`) of an archive of
/// `archiveSize` bytes is refused: sizes it claims that the archive cannot
/// hold, or what this reader does not read. None when it is accepted.
std::optional<std::string> entryRefusal(const ZipIndex::Entry &e,
                                        zip_uint16_t method,
                                        uint64_t archiveSize) {
  if (e.encrypted)
    return "is encrypted";
  if (e.compressedSize > archiveSize)
    return "claims " + std::to_string(e.compressedSize) +
           " compressed bytes, more than the archive's " +
           std::to_string(archiveSize);
  if (e.stored && e.size != e.compressedSize)
    return "is stored but claims " + std::to_string(e.size) + " bytes in " +
           std::to_string(e.compressedSize);
  if (!e.stored && method != ZIP_CM_DEFLATE)
    return "uses compression method " + std::to_string(method) +
           "; only stored and deflated entries are read";
  if (!e.stored && e.size / kMaxDeflateRatio > e.compressedSize)
    return "claims " + std::to_string(e.size) + " bytes from " +
           std::to_string(e.compressedSize) +
           " compressed bytes, more than DEFLATE can produce (" +
           std::to_string(kMaxDeflateRatio) + ":1)";
  return std::nullopt;
}

/// Advances the open entry `f` past its first `offset` bytes. Compressed
/// entries cannot seek (and a failed zip_fseek leaves the file unreadable
/// in libzip < 1.9): their prefix is read and dropped instead.
bool skipPrefix(zip_file_t *f, bool stored, uint64_t offset) {
  if (!offset)
    return true;
  if (stored)
    return zip_fseek(f, zip_int64_t(offset), SEEK_SET) == 0;
  bool ok = true;
  std::vector<uint8_t> skip(std::min(offset, kChunk));
  for (uint64_t left = offset; left && ok;) {
    zip_int64_t r =
        zip_fread(f, skip.data(), std::min<uint64_t>(left, skip.size()));
    ok = r > 0;
    left -= ok ? uint64_t(r) : 0;
  }
  return ok;
}

/// Reads the next `size` bytes of `f` into `out`, which grows as bytes
/// arrive (a size that the stream does not deliver fails before it is
/// allocated).
bool readGrowing(zip_file_t *f, uint64_t size, std::vector<uint8_t> &out) {
  bool ok = true;
  for (uint64_t got = 0; ok && got < size;) {
    out.resize(got + std::min(size - got, std::max(got, kChunk)));
    zip_int64_t r = zip_fread(f, out.data() + got, out.size() - got);
    ok = r > 0;
    got += ok ? uint64_t(r) : 0;
    if (!ok || got == size)
      out.resize(got);
  }
  return ok;
}

/// Reads `f` to its end (libzip then checks its CRC); whether that worked
/// and gave exactly `size` bytes.
bool readsExactly(zip_file_t *f, uint64_t size) {
  bool ok = true;
  std::vector<uint8_t> chunk(std::min(std::max<uint64_t>(size, 1), kChunk));
  uint64_t got = 0;
  for (zip_int64_t r = 1; ok && r > 0;) {
    r = zip_fread(f, chunk.data(), chunk.size());
    ok = r >= 0;
    got += ok ? uint64_t(r) : 0;
  }
  return ok && got == size;
}

/// libzip's message about the read of `f` (or about opening it, from
/// `zip`, when it is null); closes `f`.
std::string closeAndExplain(zip_file_t *f, zip_t *zip) {
  std::string why =
      f ? zip_error_strerror(zip_file_get_error(f)) : zip_strerror(zip);
  if (f)
    zip_fclose(f);
  return why;
}

} // namespace

bool ZipIndex::load(std::string &error) {
  if (!source_->openZip(what_, error))
    return false;
  zip_int64_t n = zip_get_num_entries(source_->zip, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    if (!source_->statEntry(uint64_t(i), st))
      continue;
    Entry e = entryFromStat(st, uint64_t(i));
    if (std::optional<std::string> why =
            entryRefusal(e, st.comp_method, source_->size)) {
      error = what_ + ": entry '" + e.name + "' " + *why;
      return false;
    }
    byName_.emplace(e.name, entries_.size());
    entries_.push_back(std::move(e));
  }
  return true;
}

const ZipIndex::Entry *ZipIndex::find(const std::string &name) const {
  auto it = byName_.find(name);
  return it == byName_.end() ? nullptr : &entries_[it->second];
}

std::optional<uint64_t> ZipIndex::dataOffset(const Entry &e,
                                             std::string &error) {
  if (!e.stored) {
    error = what_ + ": entry '" + e.name + "' is compressed";
    return std::nullopt;
  }
  if (e.size == 0)
    return 0;
  zip_file_t *f = zip_fopen_index(source_->zip, e.index, 0);
  uint8_t first = 0, check = 0;
  source_->lastReadAt = UINT64_MAX;
  bool ok = f && zip_fread(f, &first, 1) == 1;
  uint64_t at = source_->lastReadAt;
  if (f)
    zip_fclose(f);
  // The byte libzip returned must be the one at the recorded position, and
  // the whole entry must lie in the file.
  if (!ok || at > source_->size || e.size > source_->size - at ||
      source_->readAt(at, &check, 1) != 1 || check != first) {
    error = what_ + ": cannot locate the data of entry '" + e.name + "'";
    return std::nullopt;
  }
  return at;
}

bool ZipIndex::read(const Entry &e, uint64_t offset, uint64_t size,
                    std::vector<uint8_t> &out, std::string &error) {
  out.clear();
  if (offset > e.size || size > e.size - offset) {
    error = what_ + ": entry '" + e.name + "' has " + std::to_string(e.size) +
            " bytes; " + std::to_string(offset) + " + " + std::to_string(size) +
            " are needed";
    return false;
  }
  zip_file_t *f = zip_fopen_index(source_->zip, e.index, 0);
  bool ok = f != nullptr && skipPrefix(f, e.stored, offset) &&
            readGrowing(f, size, out);
  std::string why = closeAndExplain(f, source_->zip);
  if (!ok) {
    out.clear();
    error = what_ + ": cannot read entry '" + e.name + "' (" + why + ")";
  }
  return ok;
}

bool ZipIndex::checkUnused(const std::string &what, const std::string &name,
                           uint64_t size, uint64_t usedBytes,
                           std::string &error) {
  usedBytes = std::min(usedBytes, size);
  if (size - usedBytes <= kMaxUnusedFactor * usedBytes + kUnusedSlack)
    return true;
  error = what + ": entry '" + name + "' holds " + std::to_string(size) +
          " bytes, of which " + std::to_string(usedBytes) +
          " are used; a compressed entry is decompressed whole to check its "
          "CRC, and one this much larger than what is used is refused";
  return false;
}

bool ZipIndex::verify(const Entry &e, uint64_t usedBytes, std::string &error) {
  if (verified_.count(e.index))
    return true;
  if (!e.stored && !checkUnused(what_, e.name, e.size, usedBytes, error))
    return false;
  zip_file_t *f = zip_fopen_index(source_->zip, e.index, 0);
  bool ok = f != nullptr && readsExactly(f, e.size);
  std::string why = closeAndExplain(f, source_->zip);
  if (!ok) {
    error = what_ + ": entry '" + e.name + "' is corrupt (" + why + ")";
    return false;
  }
  verified_.insert(e.index);
  return true;
}

} // namespace spyre
