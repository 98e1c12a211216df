//===- FileMapping.h - The bytes of a model file ----------------*- C++ -*-===//
//
// A .spy or weights file mapped read-only (or bytes held in memory, for
// models read from a buffer). Pages read once to check them can be given
// back, so that checking a 16 GB file does not leave it resident.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_LIB_FILEMAPPING_H
#define SPYRE_RUNTIME_LIB_FILEMAPPING_H

#include "spyre/Runtime/Status.h"
#include "spyre/Support/MathExtras.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace spyre::rt {

/// The bytes of a file: mapped, or owned.
class FileMapping {
public:
  ~FileMapping() {
    if (mapped_)
      ::munmap(mapped_, size_);
  }
  static Status map(const std::string &path,
                    std::unique_ptr<FileMapping> &out) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return Status::error(StatusCode::IoError, "cannot open '" + path + "': " +
                                                    std::strerror(errno));
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return Status::error(StatusCode::IoError,
                           "'" + path + "' is not a regular file");
    }
    auto m = std::unique_ptr<FileMapping>(new FileMapping());
    m->size_ = uint64_t(st.st_size);
    if (m->size_ > 0) {
      void *p = ::mmap(nullptr, m->size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        ::close(fd);
        return Status::error(StatusCode::IoError,
                             "cannot map '" + path +
                                 "': " + std::strerror(errno));
      }
      m->mapped_ = p;
      m->data_ = static_cast<const uint8_t *>(p);
    }
    ::close(fd);
    out = std::move(m);
    return Status::success();
  }
  static std::unique_ptr<FileMapping> own(std::vector<uint8_t> bytes) {
    auto m = std::unique_ptr<FileMapping>(new FileMapping());
    m->owned_ = std::move(bytes);
    m->data_ = m->owned_.data();
    m->size_ = m->owned_.size();
    return m;
  }
  const uint8_t *data() const { return data_; }
  uint64_t size() const { return size_; }
  /// Gives back the pages of [offset, offset + size) of a mapped file (read
  /// once, to check them): they stay in the page cache but leave this
  /// process's resident set. Nothing for bytes held in memory.
  void release(uint64_t offset, uint64_t size) const {
    uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    uint64_t lo = alignTo(offset, page);
    uint64_t hi = (offset + size) / page * page;
    if (mapped_ && lo < hi)
      ::madvise(static_cast<uint8_t *>(mapped_) + lo, hi - lo, MADV_DONTNEED);
  }

private:
  FileMapping() = default;
  void *mapped_ = nullptr;
  std::vector<uint8_t> owned_;
  const uint8_t *data_ = nullptr;
  uint64_t size_ = 0;
};

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_LIB_FILEMAPPING_H
