//===- WeightsFile.cpp - Device images of weights beside the .spy ---------===//

#include "spyre/Spy/WeightsFile.h"

#include "spyre/Spy/SpyFormat.h"
#include "spyre/Spy/StreamedImage.h"
#include "spyre/Support/MathExtras.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace spyre::spy {

namespace {

/// Most threads converting at once: each holds a chunk and an image's host
/// buffer, so this bounds the writer's memory on large hosts.
constexpr unsigned kMaxThreads = 8;
/// Host buffers of the images converted at once, shared by the threads
/// (weightsImageBudget), and the least each gets.
constexpr uint64_t kSharedBudgetBytes = uint64_t(128) << 20;
constexpr uint64_t kMinBudgetBytes = uint64_t(16) << 20;

uint64_t indexChecksum(const WeightsHeader &header,
                       const WeightsEntry *entries) {
  uint64_t h = fnv1a(&header, offsetof(WeightsHeader, checksum));
  return fnv1a(entries, header.count * sizeof(WeightsEntry), h);
}

/// Where the data area starts for `count` entries.
uint64_t dataOffsetFor(uint64_t count) {
  return alignTo(sizeof(WeightsHeader) + count * sizeof(WeightsEntry),
                 kWeightsAlignment);
}

/// pwrite()s all of `size` bytes at `offset`, retrying short writes.
bool pwriteFully(int fd, const void *data, uint64_t size, uint64_t offset) {
  const auto *p = static_cast<const uint8_t *>(data);
  while (size > 0) {
    ssize_t n = ::pwrite(fd, p, size_t(size), off_t(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    size -= uint64_t(n);
    offset += uint64_t(n);
  }
  return true;
}

/// Writes the images of a file on several threads, each taking the next
/// image not yet taken; the first failure stops the others.
class ParallelImageWriter {
public:
  ParallelImageWriter(int fd, const std::string &path,
                      const std::vector<WeightsImage> &images,
                      WeightsIndex &index)
      : fd_(fd), path_(path), images_(images), index_(index) {}

  bool run(unsigned threads, std::string &error) {
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
      pool.emplace_back([this] { work(); });
    work();
    for (std::thread &t : pool)
      t.join();
    error = error_;
    return !failed_.load();
  }

private:
  void work() {
    std::vector<uint8_t> chunk;
    for (size_t i = next_++; i < images_.size() && !failed_.load();
         i = next_++) {
      std::string error;
      if (!writeImage(i, chunk, error))
        fail(error);
    }
  }

  bool writeImage(size_t i, std::vector<uint8_t> &chunk, std::string &error) {
    const WeightsImage &image = images_[i];
    WeightsEntry &entry = index_.entries[i];
    SegmentDigest digest;
    chunk.resize(size_t(std::min(image.size, SpyWriter::kStreamChunkBytes)));
    for (uint64_t off = 0; off < image.size;
         off += SpyWriter::kStreamChunkBytes) {
      uint64_t n = std::min(image.size - off, SpyWriter::kStreamChunkBytes);
      if (!image.source(off, chunk.data(), n, error))
        return false;
      digest.update(chunk.data(), size_t(n));
      if (!pwriteFully(fd_, chunk.data(), n,
                       index_.dataOffset + entry.offset + off)) {
        error = "cannot write '" + path_ + "': " + std::strerror(errno);
        return false;
      }
      if (failed_.load())
        return true;
    }
    entry.digest = digest.digest();
    return true;
  }

  void fail(const std::string &error) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failed_.exchange(true))
      error_ = error;
  }

  int fd_;
  const std::string &path_;
  const std::vector<WeightsImage> &images_;
  WeightsIndex &index_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  std::string error_;
};

/// The index of `images` laid out one after the other, digests unset.
WeightsIndex planIndex(const std::vector<WeightsImage> &images) {
  WeightsIndex index;
  index.key = weightsKey(images);
  index.dataOffset = dataOffsetFor(images.size());
  for (const WeightsImage &image : images) {
    WeightsEntry entry;
    entry.sourceKey = image.sourceKey;
    entry.offset = alignTo(index.dataSize, kWeightsAlignment);
    entry.size = image.size;
    index.dataSize = entry.offset + entry.size;
    index.entries.push_back(entry);
  }
  return index;
}

/// Writes the header and entries of `index` at the start of `fd`.
bool writeIndex(int fd, const WeightsIndex &index) {
  WeightsHeader header;
  std::memset(&header, 0, sizeof(header));
  std::memcpy(header.magic, kWeightsMagic, sizeof(kWeightsMagic));
  header.version = kWeightsVersion;
  header.key = index.key;
  header.count = index.entries.size();
  header.dataOffset = index.dataOffset;
  header.dataSize = index.dataSize;
  header.checksum = indexChecksum(header, index.entries.data());
  return pwriteFully(fd, &header, sizeof(header), 0) &&
         pwriteFully(fd, index.entries.data(),
                     index.entries.size() * sizeof(WeightsEntry),
                     sizeof(header));
}

} // namespace

WeightsImage memoryImage(uint64_t sourceKey, std::vector<uint8_t> bytes) {
  auto held = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  uint64_t size = held->size();
  return {sourceKey, size,
          [held](uint64_t offset, void *out, uint64_t n, std::string &) {
            std::memcpy(out, held->data() + offset, n);
            return true;
          }};
}

uint64_t weightsKey(const std::vector<WeightsImage> &images) {
  SegmentDigest digest;
  digest.update(kWeightsMagic, sizeof(kWeightsMagic));
  digest.update(&kWeightsVersion, sizeof(kWeightsVersion));
  for (const WeightsImage &image : images) {
    digest.update(&image.sourceKey, sizeof(image.sourceKey));
    digest.update(&image.size, sizeof(image.size));
  }
  return digest.digest();
}

namespace {

/// The header at `head`: its magic, version, and an index and data area
/// that fit a file of `fileSize` bytes of which `headSize` were read.
bool readWeightsHeader(const uint8_t *head, uint64_t headSize,
                       uint64_t fileSize, WeightsHeader &header,
                       std::string &error) {
  if (headSize < sizeof(header) || fileSize < headSize) {
    error = "it is too short for a weights file header";
    return false;
  }
  std::memcpy(&header, head, sizeof(header));
  if (std::memcmp(header.magic, kWeightsMagic, sizeof(kWeightsMagic)) != 0) {
    error = "it is not a spyre weights file (bad magic)";
    return false;
  }
  if (header.version != kWeightsVersion) {
    error = "unsupported weights file version " +
            std::to_string(header.version) + " (this build reads " +
            std::to_string(kWeightsVersion) + ")";
    return false;
  }
  uint64_t entriesHeld = (headSize - sizeof(header)) / sizeof(WeightsEntry);
  if (header.count > entriesHeld || header.dataOffset < dataOffsetFor(0) ||
      header.dataOffset % kWeightsAlignment != 0 ||
      header.dataOffset < dataOffsetFor(header.count) ||
      header.dataOffset > fileSize ||
      header.dataSize > fileSize - header.dataOffset) {
    error = "its header does not fit its size of " + std::to_string(fileSize) +
            " bytes: it is truncated or corrupt";
    return false;
  }
  return true;
}

} // namespace

bool parseWeightsIndex(const uint8_t *head, uint64_t headSize,
                       uint64_t fileSize, WeightsIndex &out,
                       std::string &error) {
  WeightsHeader header;
  if (!readWeightsHeader(head, headSize, fileSize, header, error))
    return false;
  out = WeightsIndex();
  out.entries.resize(header.count);
  std::memcpy(out.entries.data(), head + sizeof(header),
              header.count * sizeof(WeightsEntry));
  if (indexChecksum(header, out.entries.data()) != header.checksum) {
    error = "its header checksum does not match: it is corrupt";
    return false;
  }
  for (const WeightsEntry &e : out.entries)
    if (e.offset % kWeightsAlignment != 0 || e.offset > header.dataSize ||
        e.size > header.dataSize - e.offset) {
      error = "an entry lies outside its data area: it is corrupt";
      return false;
    }
  out.key = header.key;
  out.dataOffset = header.dataOffset;
  out.dataSize = header.dataSize;
  return true;
}

bool readWeightsIndex(const std::string &path, WeightsIndex &out,
                      std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  struct stat st;
  WeightsHeader header;
  std::vector<uint8_t> head;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            preadFully(fd, &header, sizeof(header), 0) == 0;
  if (ok) {
    // Entries past the file's end are refused by parseWeightsIndex.
    uint64_t fit =
        (uint64_t(st.st_size) - sizeof(header)) / sizeof(WeightsEntry);
    head.resize(sizeof(header) +
                std::min(header.count, fit) * sizeof(WeightsEntry));
    ok = preadFully(fd, head.data(), head.size(), 0) == 0;
  }
  ::close(fd);
  if (!ok) {
    error = "it is not a readable regular file";
    return false;
  }
  // The data area is not read: parse against the real file size.
  return parseWeightsIndex(head.data(), head.size(), uint64_t(st.st_size), out,
                           error);
}

bool weightsFileMatches(const std::string &path,
                        const std::vector<WeightsImage> &images,
                        WeightsIndex &out) {
  WeightsIndex index;
  std::string error;
  if (!readWeightsIndex(path, index, error) ||
      index.key != weightsKey(images) || index.entries.size() != images.size())
    return false;
  WeightsIndex plan = planIndex(images);
  for (size_t i = 0; i < images.size(); ++i)
    if (index.entries[i].sourceKey != plan.entries[i].sourceKey ||
        index.entries[i].size != plan.entries[i].size ||
        index.entries[i].offset != plan.entries[i].offset)
      return false;
  out = std::move(index);
  return true;
}

unsigned weightsWriterThreads(unsigned requested, size_t images) {
  unsigned threads =
      requested ? requested : std::max(1u, std::thread::hardware_concurrency());
  return std::min(
      {threads, kMaxThreads, unsigned(std::max<size_t>(images, 1))});
}

uint64_t weightsImageBudget(unsigned threads) {
  return std::max(kSharedBudgetBytes / std::max(threads, 1u), kMinBudgetBytes);
}

bool writeWeightsFile(const std::string &path,
                      const std::vector<WeightsImage> &images, unsigned threads,
                      WeightsIndex &out, std::string &error) {
  WeightsIndex index = planIndex(images);
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = "cannot create '" + tmp + "': " + std::strerror(errno);
    return false;
  }
  threads = weightsWriterThreads(threads, images.size());
  bool ok = ::ftruncate(fd, off_t(index.dataOffset + index.dataSize)) == 0;
  if (!ok)
    error = "cannot size '" + tmp + "': " + std::strerror(errno);
  ok = ok && ParallelImageWriter(fd, tmp, images, index).run(threads, error);
  if (ok && !writeIndex(fd, index)) {
    error = "cannot write '" + tmp + "': " + std::strerror(errno);
    ok = false;
  }
  if (::close(fd) != 0 && ok) {
    error = "cannot write '" + tmp + "': " + std::strerror(errno);
    ok = false;
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot rename '" + tmp + "' to '" + path + "'";
    ok = false;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    return false;
  }
  out = std::move(index);
  return true;
}

} // namespace spyre::spy
