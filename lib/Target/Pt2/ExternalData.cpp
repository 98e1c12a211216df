//===- ExternalData.cpp - Weight bytes kept outside the IR ----------------===//

#include "spyre/Target/Pt2/ExternalData.h"
#include "spyre/Target/Pt2/StridedView.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <zip.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;

namespace spyre {

namespace {

/// Writes `n` bytes of `data` to `fd`, retrying interrupted writes; false
/// with `writeErrno` set (ENOSPC for a write of nothing) when one fails.
bool writeAll(int fd, const uint8_t *data, size_t n, int &writeErrno) {
  for (size_t done = 0; done < n;) {
    ssize_t w = ::write(fd, data + done, n - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      writeErrno = w < 0 ? errno : ENOSPC;
      return false;
    }
    done += size_t(w);
  }
  return true;
}

/// Why decompressing into temporary file `name` failed, for the message:
/// the write error, else libzip's error on the entry `f` or archive `z`.
std::string decompressFailure(int writeErrno, const std::string &name,
                              zip_file_t *f, zip_t *z) {
  return writeErrno ? std::string("cannot write to ") + name + ": " +
                          std::strerror(writeErrno)
         : f        ? zip_error_strerror(zip_file_get_error(f))
         : z        ? zip_strerror(z)
                    : "";
}

} // namespace

/// A compressed archive entry (torch writes stored ones; a re-zipped
/// archive may not), decompressed into an unlinked temporary file at the
/// first read of any weight in it, then read with pread like a stored one.
/// Only the bytes its weights reach go to the disk (a small weight in an
/// entry of 100 GiB of compressed zeros wrote 100 GiB); the rest is inflated
/// and dropped so that libzip checks the CRC, which ZipIndex::checkUnused
/// bounds. The weights of one entry share it (a torch 2.6-2.8 `model.pt`
/// holds every weight): it is decompressed once, not once per weight. The
/// file lives while a reader of the entry is open (users_), so the disk
/// holds the entries being written, not all of them.
class ExternalData::SpilledEntry {
public:
  SpilledEntry(std::string archive, std::string entry, uint64_t size)
      : archive_(std::move(archive)), entry_(std::move(entry)), size_(size) {}
  ~SpilledEntry() { drop(); }

  const std::string &entry() const { return entry_; }
  uint64_t decompressions() const { return decompressions_; }
  /// A weight reads up to byte `end` of the entry (every reader exists
  /// before the first read).
  void need(uint64_t end) { needed_ = std::max(needed_, end); }

  // Readers of one entry may run on different threads (the weights file
  // is converted in parallel): spilling, reading and releasing are locked.
  void retain() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++users_;
  }
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--users_ == 0)
      drop();
  }

  bool read(uint64_t offset, void *out, uint64_t size, std::string &error) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fd_ < 0 && !spill(error))
      return false;
    if (offset > needed_ || size > needed_ - offset) {
      error = "read outside entry '" + entry_ + "'";
      return false;
    }
    if (spy::preadFully(fd_, out, size, offset) != 0) {
      error = "cannot read the decompressed entry '" + entry_ + "'";
      return false;
    }
    return true;
  }

private:
  void drop() {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = -1;
  }

  bool spill(std::string &error) {
    if (!ZipIndex::checkUnused("'" + archive_ + "'", entry_, size_, needed_,
                               error))
      return false;
    std::string name;
    int fd = createSpillFile(name, error);
    if (fd < 0)
      return false;
    ++decompressions_;
    int code = 0;
    zip_t *z = zip_open(archive_.c_str(), ZIP_RDONLY, &code);
    zip_file_t *f = z ? zip_fopen(z, entry_.c_str(), 0) : nullptr;
    int writeErrno = 0;
    bool ok = f != nullptr && inflateNeeded(f, fd, writeErrno);
    std::string why = decompressFailure(writeErrno, name, f, z);
    if (f)
      zip_fclose(f);
    if (z)
      zip_discard(z);
    if (!ok) {
      ::close(fd);
      error = "cannot decompress entry '" + entry_ + "' of '" + archive_ + "'" +
              (why.empty() || why == "No error" ? "" : ": " + why);
      return false;
    }
    fd_ = fd;
    return true;
  }

  /// Creates the temporary file (its path in `name`) and unlinks it; -1
  /// with `error` set when it cannot be created.
  int createSpillFile(std::string &name, std::string &error) {
    const char *dir = std::getenv("TMPDIR");
    name = std::string(dir && *dir ? dir : "/tmp") + "/spyre-weight-XXXXXX";
    int fd = ::mkstemp(name.data());
    if (fd < 0) {
      error = "cannot create a temporary file to decompress entry '" + entry_ +
              "': " + std::strerror(errno);
      return -1;
    }
    ::unlink(name.c_str()); // Gone from the disk when the last fd closes.
    return fd;
  }

  /// Inflates the whole entry from `f`, writing its first needed_ bytes to
  /// `fd` (`writeErrno` set when a write fails) and dropping the rest.
  bool inflateNeeded(zip_file_t *f, int fd, int &writeErrno) {
    bool ok = true;
    std::vector<uint8_t> buffer(1 << 20);
    for (uint64_t left = size_, keep = needed_; ok && left;) {
      zip_int64_t r =
          zip_fread(f, buffer.data(), std::min<uint64_t>(left, buffer.size()));
      ok = r > 0;
      zip_int64_t kept =
          ok ? zip_int64_t(std::min<uint64_t>(keep, uint64_t(r))) : 0;
      keep -= uint64_t(kept);
      ok = ok && writeAll(fd, buffer.data(), size_t(kept), writeErrno);
      left -= ok ? uint64_t(r) : 0;
    }
    // Reading on to the end makes libzip check the CRC.
    uint8_t extra;
    return ok && zip_fread(f, &extra, 1) == 0;
  }

  std::string archive_, entry_;
  uint64_t size_, needed_ = 0;
  int fd_ = -1;
  uint64_t users_ = 0, decompressions_ = 0;
  std::mutex mutex_;
};

namespace {

/// Reads [base, base + span) of a shared spilled entry. Holds the entry's
/// file from construction (all readers exist before the first read, so the
/// file stays until the last weight in it is written) until close().
class SpilledEntryReader : public spy::HostReader {
public:
  SpilledEntryReader(std::shared_ptr<ExternalData::SpilledEntry> entry,
                     uint64_t base, uint64_t span)
      : entry_(std::move(entry)), base_(base), span_(span) {
    entry_->retain();
  }
  ~SpilledEntryReader() override { close(); }

  bool read(uint64_t offset, void *out, uint64_t size,
            std::string &error) override {
    if (!held_) { // Read again after close().
      entry_->retain();
      held_ = true;
    }
    if (offset > span_ || size > span_ - offset) {
      error =
          "read outside the weight's bytes of entry '" + entry_->entry() + "'";
      return false;
    }
    return entry_->read(base_ + offset, out, size, error);
  }

  void close() override {
    if (held_)
      entry_->release();
    held_ = false;
  }

private:
  std::shared_ptr<ExternalData::SpilledEntry> entry_;
  uint64_t base_, span_;
  bool held_ = true;
};

/// The name of the weight `op` defines, for messages.
std::string weightName(Operation *op) {
  for (StringRef attr : {"source_name", "name", "sym_name"})
    if (auto s = op->getAttrOfType<StringAttr>(attr))
      return s.str();
  return "?";
}

/// `values` as `[a, b, c]`, for messages.
std::string listText(ArrayRef<int64_t> values) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(values, os);
  os << ']';
  return text;
}

/// Checks that the strides of `ext` fit a rank-`rank` tensor and that
/// neither they nor its offset are negative. `ext` comes from the importer
/// or from hand-written IR: the view must be addressable before anything
/// reads through it.
LogicalResult checkViewSigns(Operation *op, const std::string &name,
                             ExternalDataAttr ext, size_t rank) {
  ArrayRef<int64_t> strides = ext.getStrides();
  if (!strides.empty() && strides.size() != rank)
    return op->emitError(name) << " has " << strides.size()
                               << " strides for a rank-" << rank << " tensor";
  if (llvm::any_of(strides, [](int64_t s) { return s < 0; }) ||
      ext.getOffset() < 0)
    return op->emitError(name)
           << " has a negative stride or offset (offset " << ext.getOffset()
           << ", strides " << listText(strides) << ")";
  return success();
}

/// Whether non-empty `strides` lay `shape` out row-major (unit dimensions
/// may have any stride).
bool isRowMajor(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides) {
  bool contiguous = true;
  int64_t expect = 1;
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] != 1 && strides[d] != expect)
      contiguous = false;
    expect *= shape[d];
  }
  return contiguous;
}

/// Bytes the (possibly strided) view spans from its first element; none
/// where that wraps (a wrapped span would pass the size checks and read
/// wrong bytes).
std::optional<uint64_t> viewSpanBytes(const spy::LayoutMap &map,
                                      ArrayRef<int64_t> strides,
                                      bool contiguous) {
  std::optional<uint64_t> spanBytes = map.hostBytes();
  if (contiguous)
    return spanBytes;
  std::optional<uint64_t> elems = stridedViewSpan(map.shape(), strides, 0);
  return elems ? llvm::checkedMulUnsigned(*elems, uint64_t(map.elementBytes()))
               : std::nullopt;
}

/// Whether the innermost non-unit dimension of a non-contiguous view is
/// strided in storage: such a view is read element by element, through a
/// mapping rather than one system call each.
bool innermostIsStrided(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides) {
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d)
    if (shape[d] != 1)
      return strides[d] != 1;
  return false;
}

/// Where a weight's bytes are and how they are read.
struct WeightBytes {
  std::string file;
  uint64_t offset, span;
  bool elementwise;
};

/// A reader of `bytes.file` from byte `at`.
std::unique_ptr<spy::HostReader> makeWeightFileReader(const WeightBytes &bytes,
                                                      uint64_t at) {
  return bytes.elementwise
             ? spy::makeMappedFileReader(bytes.file, at, bytes.span)
             : spy::makeFileReader(bytes.file, at);
}

/// Reads a weight kept in a plain file, checked to hold its bytes.
FailureOr<std::unique_ptr<spy::HostReader>>
openPlainFileWeight(Operation *op, const std::string &name,
                    const WeightBytes &bytes) {
  const std::string &file = bytes.file;
  struct stat st;
  if (::stat(file.c_str(), &st) != 0)
    return op->emitError(name)
           << ": cannot open '" << file << "': " << std::strerror(errno);
  if (bytes.offset > uint64_t(st.st_size) ||
      bytes.span > uint64_t(st.st_size) - bytes.offset)
    return op->emitError(name)
           << ": '" << file << "' is shorter than the " << bytes.span
           << " bytes expected at offset " << bytes.offset << " (it has "
           << uint64_t(st.st_size) << ")";
  return makeWeightFileReader(bytes, bytes.offset);
}

/// The archive `file`, opened (its directory parsed) at its first use.
/// `why` is the message of a failed open.
FailureOr<Pt2Archive *>
openArchiveOnce(llvm::StringMap<std::unique_ptr<Pt2Archive>> &archives,
                Operation *op, const std::string &file, std::string &why) {
  std::unique_ptr<Pt2Archive> &archive = archives[file];
  if (!archive) {
    archive = Pt2Archive::open(file, why);
    if (!archive)
      return op->emitError(why);
  }
  return archive.get();
}

/// Reads a weight of a compressed entry through its shared decompressed
/// copy (`spilled`, keyed by file and entry), made at the first read.
std::unique_ptr<spy::HostReader> openSpilledWeight(
    llvm::StringMap<std::shared_ptr<ExternalData::SpilledEntry>> &spilled,
    const WeightBytes &bytes, const std::string &rootedEntry,
    const std::string &entry, uint64_t size) {
  std::shared_ptr<ExternalData::SpilledEntry> &spill =
      spilled[bytes.file + '\0' + entry];
  if (!spill)
    spill = std::make_shared<ExternalData::SpilledEntry>(bytes.file,
                                                         rootedEntry, size);
  spill->need(bytes.offset + bytes.span);
  return std::make_unique<SpilledEntryReader>(spill, bytes.offset, bytes.span);
}

/// Reads a weight kept in entry `entry` of archive `bytes.file`, checked to
/// hold its bytes: stored entries in place, compressed ones spilled.
FailureOr<std::unique_ptr<spy::HostReader>> openArchiveWeight(
    llvm::StringMap<std::unique_ptr<Pt2Archive>> &archives,
    llvm::StringMap<std::shared_ptr<ExternalData::SpilledEntry>> &spilled,
    Operation *op, const std::string &name, const WeightBytes &bytes,
    const std::string &entry) {
  std::string why;
  FailureOr<Pt2Archive *> archive =
      openArchiveOnce(archives, op, bytes.file, why);
  if (failed(archive))
    return failure();
  std::optional<uint64_t> size = (*archive)->entrySize(entry);
  if (!size)
    return op->emitError(name)
           << ": archive '" << bytes.file << "' has no entry '" << entry << "'";
  if (bytes.offset > *size || bytes.span > *size - bytes.offset)
    return op->emitError(name)
           << " needs " << bytes.offset + bytes.span << " bytes of '" << entry
           << "', which has " << *size;
  if (std::optional<uint64_t> at = (*archive)->storedDataOffset(entry, why)) {
    // Stored (what torch writes): mapped in place, CRC checked once.
    if (!(*archive)->verify(entry, *size, why))
      return op->emitError(name) << ": " << why;
    return makeWeightFileReader(bytes, *at + bytes.offset);
  }
  return openSpilledWeight(spilled, bytes, (*archive)->root() + entry, entry,
                           *size);
}

} // namespace

ExternalData::ExternalData() = default;
ExternalData::~ExternalData() = default;

uint64_t ExternalData::decompressions() const {
  uint64_t n = 0;
  for (const auto &[key, entry] : spilled)
    n += entry->decompressions();
  return n;
}

FailureOr<uint64_t> ExternalData::imageKey(Operation *op, ExternalDataAttr ext,
                                           const spy::LayoutMap &map) {
  // Bump when the conversion from host bytes to a device image changes.
  constexpr uint64_t kImageVersion = 1;
  std::string name = "weight '" + weightName(op) + "'";
  std::string file = ext.getFile().str();
  std::string identity;
  llvm::raw_string_ostream os(identity);
  if (ext.getEntry().empty()) {
    struct stat st;
    if (::stat(file.c_str(), &st) != 0)
      return op->emitError(name)
             << ": cannot open '" << file << "': " << std::strerror(errno);
    os << "file:" << file << ':' << uint64_t(st.st_size) << ':'
       << int64_t(st.st_mtim.tv_sec) << '.' << int64_t(st.st_mtim.tv_nsec);
  } else {
    std::string why;
    FailureOr<Pt2Archive *> archive = openArchiveOnce(archives, op, file, why);
    if (failed(archive))
      return failure();
    std::optional<uint64_t> entry =
        (*archive)->entryDigest(ext.getEntry().str());
    if (!entry)
      return op->emitError(name) << ": archive '" << file << "' has no entry '"
                                 << ext.getEntry() << "'";
    os << "entry:" << *entry;
  }
  const spy::TensorLayout &l = map.layout();
  os << "|v" << kImageVersion << "|off" << ext.getOffset() << "|strides"
     << listText(ext.getStrides()) << "|dtype" << int(map.dtype()) << "|shape"
     << listText(map.shape()) << "|stick" << l.stickDim << "|order"
     << listText(
            llvm::SmallVector<int64_t>(l.dimOrder.begin(), l.dimOrder.end()))
     << "|padded" << listText(l.paddedShape) << "|device"
     << listText(l.deviceShape) << "|eps" << l.elemsPerStick;
  return llvm::xxh3_64bits(llvm::StringRef(os.str()));
}

FailureOr<std::unique_ptr<spy::StreamedImage>>
ExternalData::open(Operation *op, ExternalDataAttr ext,
                   const spy::LayoutMap &map, uint64_t budgetBytes) {
  // Messages name the weight: the op's location may be the .mlir line.
  std::string name = "weight '" + weightName(op) + "'";
  if (ext.getFile().empty())
    return op->emitError("weight has no data: it was imported from a bare "
                         "exported-program JSON; import the .pt2 archive to "
                         "compile its weights");
  const std::vector<int64_t> &shape = map.shape();
  ArrayRef<int64_t> strides = ext.getStrides();
  if (failed(checkViewSigns(op, name, ext, shape.size())))
    return failure();
  bool contiguous = strides.empty() || isRowMajor(shape, strides);
  std::optional<uint64_t> spanBytes = viewSpanBytes(map, strides, contiguous);
  uint64_t offset = uint64_t(ext.getOffset());
  if (!spanBytes || !llvm::checkedAddUnsigned(offset, *spanBytes))
    return op->emitError(name)
           << " spans more than 2^64 bytes (offset " << offset << ", strides "
           << listText(strides) << ")";
  std::vector<int64_t> hostStrides;
  bool elementwise = false;
  if (!contiguous) {
    hostStrides.assign(strides.begin(), strides.end());
    elementwise = innermostIsStrided(shape, strides);
  }

  WeightBytes bytes{ext.getFile().str(), offset, *spanBytes, elementwise};
  FailureOr<std::unique_ptr<spy::HostReader>> reader =
      ext.getEntry().empty() ? openPlainFileWeight(op, name, bytes)
                             : openArchiveWeight(archives, spilled, op, name,
                                                 bytes, ext.getEntry().str());
  if (failed(reader))
    return failure();
  return std::make_unique<spy::StreamedImage>(
      map, std::move(*reader), std::move(hostStrides), budgetBytes);
}

} // namespace spyre
