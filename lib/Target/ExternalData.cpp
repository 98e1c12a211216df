//===- ExternalData.cpp - Weight bytes kept outside the IR ----------------===//

#include "spyre/Target/ExternalData.h"

#include <zip.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;

namespace spyre {

namespace {

/// A compressed archive entry (torch writes stored ones; a re-zipped
/// archive may not): decompressed, at the first read, into an unlinked
/// temporary file, then read with pread like a stored one. Memory stays
/// bounded; disk holds one such entry at a time (the file goes at close()).
class SpilledEntryReader : public spy::HostReader {
public:
  SpilledEntryReader(std::string archive, std::string entry, uint64_t base,
                     uint64_t span)
      : archive_(std::move(archive)), entry_(std::move(entry)), base_(base),
        span_(span) {}
  ~SpilledEntryReader() override { close(); }

  bool read(uint64_t offset, void *out, uint64_t size,
            std::string &error) override {
    if (fd_ < 0 && !spill(error))
      return false;
    if (offset > span_ || size > span_ - offset) {
      error = "read outside entry '" + entry_ + "'";
      return false;
    }
    auto *p = static_cast<uint8_t *>(out);
    uint64_t at = base_ + offset;
    while (size) {
      ssize_t r = ::pread(fd_, p, size_t(std::min<uint64_t>(size, 1u << 30)),
                          off_t(at));
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0) {
        error = "cannot read the decompressed entry '" + entry_ + "'";
        return false;
      }
      p += r;
      at += uint64_t(r);
      size -= uint64_t(r);
    }
    return true;
  }

  void close() override {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = -1;
  }

private:
  bool spill(std::string &error) {
    const char *dir = std::getenv("TMPDIR");
    std::string name =
        std::string(dir && *dir ? dir : "/tmp") + "/spyre-weight-XXXXXX";
    int fd = ::mkstemp(name.data());
    if (fd < 0) {
      error = "cannot create a temporary file to decompress entry '" + entry_ +
              "': " + std::strerror(errno);
      return false;
    }
    ::unlink(name.c_str());
    int code = 0;
    zip_t *z = zip_open(archive_.c_str(), ZIP_RDONLY, &code);
    zip_file_t *f = z ? zip_fopen(z, entry_.c_str(), 0) : nullptr;
    bool ok = f != nullptr;
    std::vector<uint8_t> buffer(1 << 20);
    for (uint64_t left = base_ + span_; ok && left;) {
      zip_int64_t r =
          zip_fread(f, buffer.data(), std::min<uint64_t>(left, buffer.size()));
      ok = r > 0 && ::write(fd, buffer.data(), size_t(r)) == r;
      left -= ok ? uint64_t(r) : 0;
    }
    if (f)
      zip_fclose(f);
    if (z)
      zip_discard(z);
    if (!ok) {
      ::close(fd);
      error = "cannot decompress entry '" + entry_ + "' of '" + archive_ + "'";
      return false;
    }
    fd_ = fd;
    return true;
  }

  std::string archive_, entry_;
  uint64_t base_, span_;
  int fd_ = -1;
};

} // namespace

ExternalData::ExternalData() = default;
ExternalData::~ExternalData() = default;

FailureOr<std::unique_ptr<spy::StreamedImage>>
ExternalData::open(Operation *op, ExternalDataAttr ext,
                   const spy::LayoutMap &map, uint64_t budgetBytes) {
  if (ext.getFile().empty())
    return op->emitError("weight has no data: it was imported from a bare "
                         "exported-program JSON; import the .pt2 archive to "
                         "compile its weights");
  const std::vector<int64_t> &shape = map.shape();
  uint64_t elementBytes = map.elementBytes();
  ArrayRef<int64_t> strides = ext.getStrides();
  if (!strides.empty() && strides.size() != shape.size())
    return op->emitError("weight has ")
           << strides.size() << " strides for a rank-" << shape.size()
           << " tensor";
  if (llvm::any_of(strides, [](int64_t s) { return s < 0; }) ||
      ext.getOffset() < 0)
    return op->emitError("weight has a negative stride or offset");
  // Bytes the (possibly strided) view spans from its first element.
  bool contiguous = true;
  uint64_t spanElems = map.numElements() ? 1 : 0;
  if (!strides.empty()) {
    int64_t expect = 1;
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (shape[d] != 1 && strides[d] != expect)
        contiguous = false;
      expect *= shape[d];
    }
    if (spanElems)
      for (auto [s, st] : llvm::zip(shape, strides))
        spanElems += uint64_t(s - 1) * uint64_t(st);
  }
  uint64_t spanBytes = contiguous ? map.hostBytes() : spanElems * elementBytes;
  std::vector<int64_t> hostStrides;
  // A view whose innermost dimension is not contiguous in storage is read
  // element by element, through a mapping rather than one system call each.
  bool elementwise = false;
  if (!contiguous) {
    hostStrides.assign(strides.begin(), strides.end());
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d)
      if (shape[d] != 1) {
        elementwise = strides[d] != 1;
        break;
      }
  }

  std::string file = ext.getFile().str();
  uint64_t offset = uint64_t(ext.getOffset());
  std::unique_ptr<spy::HostReader> reader;
  auto fileReader = [&](uint64_t at) {
    return elementwise ? spy::makeMappedFileReader(file, at, spanBytes)
                       : spy::makeFileReader(file, at);
  };
  if (ext.getEntry().empty()) {
    struct stat st;
    if (::stat(file.c_str(), &st) != 0)
      return op->emitError("cannot open '")
             << file << "': " << std::strerror(errno);
    if (offset > uint64_t(st.st_size) ||
        spanBytes > uint64_t(st.st_size) - offset)
      return op->emitError("'") << file << "' is shorter than the " << spanBytes
                                << " bytes expected at offset " << offset;
    reader = fileReader(offset);
  } else {
    std::unique_ptr<Pt2Archive> &archive = archives[file];
    std::string error;
    if (!archive) {
      archive = Pt2Archive::open(file, error);
      if (!archive)
        return op->emitError(error);
    }
    std::string entry = ext.getEntry().str();
    std::optional<uint64_t> size = archive->entrySize(entry);
    if (!size)
      return op->emitError("archive '")
             << file << "' has no entry '" << entry << "'";
    if (offset > *size || spanBytes > *size - offset)
      return op->emitError("weight needs ")
             << offset + spanBytes << " bytes of '" << entry << "', which has "
             << *size;
    if (std::optional<uint64_t> at = archive->storedDataOffset(entry, error))
      reader = fileReader(*at + offset); // Stored (what torch writes).
    else
      reader = std::make_unique<SpilledEntryReader>(
          file, archive->root() + entry, offset, spanBytes);
  }
  return std::make_unique<spy::StreamedImage>(
      map, std::move(reader), std::move(hostStrides), budgetBytes);
}

} // namespace spyre
