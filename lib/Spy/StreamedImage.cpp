//===- StreamedImage.cpp - Device images made with bounded memory ---------===//

#include "spyre/Spy/StreamedImage.h"

#include "spyre/Support/MathExtras.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace spyre::spy {

HostReader::~HostReader() = default;

int preadFully(int fd, void *out, uint64_t size, uint64_t offset) {
  auto *p = static_cast<uint8_t *>(out);
  while (size) {
    size_t n = size_t(std::min<uint64_t>(size, uint64_t(1) << 30));
    ssize_t r = ::pread(fd, p, n, off_t(offset));
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return errno;
    if (r == 0)
      return -1;
    p += r;
    offset += uint64_t(r);
    size -= uint64_t(r);
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Readers
//===----------------------------------------------------------------------===//

namespace {

class FileReader : public HostReader {
public:
  FileReader(std::string path, uint64_t base)
      : path_(std::move(path)), base_(base) {}
  ~FileReader() override { close(); }

  bool read(uint64_t offset, void *out, uint64_t size,
            std::string &error) override {
    if (fd_ < 0) {
      fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd_ < 0) {
        error = "cannot open '" + path_ + "': " + std::strerror(errno);
        return false;
      }
    }
    if (int e = preadFully(fd_, out, size, base_ + offset)) {
      error = "cannot read '" + path_ + "' at byte " +
              std::to_string(base_ + offset) +
              (e > 0 ? std::string(": ") + std::strerror(e)
                     : std::string(": the file ends there (truncated after "
                                   "the import?)"));
      return false;
    }
    return true;
  }

  void close() override {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = -1;
  }

private:
  std::string path_;
  uint64_t base_;
  int fd_ = -1;
};

class MappedFileReader : public HostReader {
public:
  MappedFileReader(std::string path, uint64_t base, uint64_t span)
      : path_(std::move(path)), base_(base), span_(span) {}
  ~MappedFileReader() override { close(); }

  bool cheapReads() const override { return true; }

  bool read(uint64_t offset, void *out, uint64_t size,
            std::string &error) override {
    if (offset > span_ || size > span_ - offset) {
      error = "read of " + std::to_string(size) + " bytes at " +
              std::to_string(offset) + " is outside the " +
              std::to_string(span_) + " bytes of the tensor in '" + path_ + "'";
      return false;
    }
    if (!size)
      return true;
    if (!mapping_ && !map(error))
      return false;
    std::memcpy(out, data_ + offset, size);
    return true;
  }

  void releasePages() override {
    if (mapping_)
      ::madvise(mapping_, mappedBytes_, MADV_DONTNEED);
  }

  void close() override {
    if (mapping_)
      ::munmap(mapping_, mappedBytes_);
    mapping_ = nullptr;
    data_ = nullptr;
  }

private:
  bool map(std::string &error) {
    int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      error = "cannot open '" + path_ + "': " + std::strerror(errno);
      return false;
    }
    struct stat st;
    if (::fstat(fd, &st) != 0 || base_ > uint64_t(st.st_size) ||
        span_ > uint64_t(st.st_size) - base_) {
      ::close(fd);
      error = "'" + path_ + "' is shorter than the " + std::to_string(span_) +
              " bytes expected at offset " + std::to_string(base_);
      return false;
    }
    uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
    uint64_t start = base_ / page * page;
    mappedBytes_ = base_ - start + span_;
    void *p =
        ::mmap(nullptr, mappedBytes_, PROT_READ, MAP_PRIVATE, fd, off_t(start));
    ::close(fd);
    if (p == MAP_FAILED) {
      error = "cannot map '" + path_ + "': " + std::strerror(errno);
      return false;
    }
    mapping_ = p;
    data_ = static_cast<const uint8_t *>(p) + (base_ - start);
    return true;
  }

  std::string path_;
  uint64_t base_, span_;
  void *mapping_ = nullptr;
  uint64_t mappedBytes_ = 0;
  const uint8_t *data_ = nullptr;
};

class MemoryReader : public HostReader {
public:
  MemoryReader(const void *data, uint64_t size)
      : data_(static_cast<const uint8_t *>(data)), size_(size) {}
  bool cheapReads() const override { return true; }
  bool read(uint64_t offset, void *out, uint64_t size,
            std::string &error) override {
    if (offset > size_ || size > size_ - offset) {
      error = "read of " + std::to_string(size) + " bytes at " +
              std::to_string(offset) + " is outside a " +
              std::to_string(size_) + "-byte buffer";
      return false;
    }
    if (size)
      std::memcpy(out, data_ + offset, size);
    return true;
  }

private:
  const uint8_t *data_;
  uint64_t size_;
};

} // namespace

std::unique_ptr<HostReader> makeFileReader(std::string path, uint64_t base) {
  return std::make_unique<FileReader>(std::move(path), base);
}

std::unique_ptr<HostReader> makeMappedFileReader(std::string path,
                                                 uint64_t base, uint64_t span) {
  return std::make_unique<MappedFileReader>(std::move(path), base, span);
}

std::unique_ptr<HostReader> makeMemoryReader(const void *data, uint64_t size) {
  return std::make_unique<MemoryReader>(data, size);
}

//===----------------------------------------------------------------------===//
// StreamedImage
//===----------------------------------------------------------------------===//

/// Whether element i of a tensor of `shape` is at host byte
/// sum(i[d] * strides[d]) * eb for every i without leaving uint64: one
/// stride per dimension, none negative, the last byte representable.
[[maybe_unused]] static bool
addressesTensor(const std::vector<int64_t> &shape,
                const std::vector<int64_t> &strides, uint64_t eb) {
  if (strides.size() != shape.size())
    return false;
  uint64_t last = 0, step;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (strides[d] < 0)
      return false;
    if (shape[d] > 0 && (__builtin_mul_overflow(uint64_t(shape[d] - 1),
                                                uint64_t(strides[d]), &step) ||
                         __builtin_add_overflow(last, step, &last)))
      return false;
  }
  return !__builtin_mul_overflow(last + 1, eb, &step);
}

/// Memory for the box of a slab. Converting a transposed weight reads the
/// box with a large stride (a column at a time), so the box sits on
/// transparent huge pages where the kernel offers them: with 4 KiB pages
/// nearly every element read would miss the TLB.
class StreamedImage::Box {
public:
  ~Box() { release(); }
  uint8_t *data() const { return data_; }
  uint64_t capacity() const { return capacity_; }

  /// Makes room for `bytes` (contents are not kept).
  bool reserve(uint64_t bytes) {
    if (bytes <= capacity_)
      return true;
    release();
    constexpr uint64_t kHuge = uint64_t(2) << 20;
    if (bytes < kHuge) {
      fallback_.reset(new uint8_t[bytes]);
      data_ = fallback_.get();
      capacity_ = bytes;
      return true;
    }
    uint64_t rounded = alignTo(bytes, kHuge);
    mappedBytes_ = rounded + kHuge;
    void *p = ::mmap(nullptr, mappedBytes_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      mappedBytes_ = 0;
      return false;
    }
    mapping_ = p;
    auto aligned = alignTo(reinterpret_cast<uintptr_t>(p), kHuge);
    data_ = reinterpret_cast<uint8_t *>(aligned);
#ifdef MADV_HUGEPAGE
    ::madvise(data_, rounded, MADV_HUGEPAGE);
#endif
    capacity_ = rounded;
    return true;
  }

  void release() {
    if (mapping_)
      ::munmap(mapping_, mappedBytes_);
    mapping_ = nullptr;
    mappedBytes_ = 0;
    fallback_.reset();
    data_ = nullptr;
    capacity_ = 0;
  }

private:
  uint8_t *data_ = nullptr;
  uint64_t capacity_ = 0;
  void *mapping_ = nullptr;
  uint64_t mappedBytes_ = 0;
  std::unique_ptr<uint8_t[]> fallback_;
};

struct StreamedImage::Slab {
  /// Device bytes [start, end) of the image.
  uint64_t start = 0, end = 0;
  /// The layout of the slab's box (its device image is the slab).
  LayoutMap map;
  /// The box was transposed into `transposed_` (map is the transposed
  /// box's).
  bool transposed = false;
};

namespace {

/// Row-major element strides of a dense host tensor of `shape`.
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape) {
  size_t rank = shape.size();
  std::vector<int64_t> strides(rank, 1);
  for (size_t d = rank; d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  return strides;
}

/// The indices of device dimensions 0 .. j-1 of fixed-dimension index
/// `unit`.
std::vector<uint64_t> fixedIndices(const TensorLayout &l, uint64_t unit,
                                   size_t j) {
  std::vector<uint64_t> fixed(j);
  for (size_t k = j; k-- > 0;) {
    fixed[k] = unit % uint64_t(l.deviceShape[k]);
    unit /= uint64_t(l.deviceShape[k]);
  }
  return fixed;
}

/// Whether the sticks of `map` run down the columns of a row-major matrix
/// (rank 2, dim_order [1, 0], the stick on dim 0: a linear weight stored
/// transposed). Converting such a box reads one element per host row for
/// every stick; the transposed box converts with contiguous sticks.
bool hasColumnSticks(const LayoutMap &map) {
  const TensorLayout &l = map.layout();
  return map.shape().size() == 2 && l.stickDim == 0 &&
         l.dimOrder == std::vector<int32_t>{1, 0};
}

/// The layout of the transposed box of a hasColumnSticks `map`: shape and
/// padded shape swapped, the identity order, the stick on dim 1. Element
/// (r, c) of the box and (c, r) of its transpose have the same device
/// index [c, r / E, r % E], so the device image is the same.
bool transposedBoxMap(const LayoutMap &map, LayoutMap &out,
                      std::string &error) {
  const TensorLayout &l = map.layout();
  TensorLayout t = l;
  t.stickDim = 1;
  t.dimOrder = {0, 1};
  t.paddedShape = {l.paddedShape[1], l.paddedShape[0]};
  std::vector<int64_t> shape = {map.shape()[1], map.shape()[0]};
  return LayoutMap::create(map.dtype(), shape, t,
                           int64_t(l.elemsPerStick) * map.elementBytes(),
                           isDL16(map.storage()), out, error);
}

/// Writes the transpose of the row-major `rows` x `cols` matrix `in` to
/// `out`, in square blocks that stay in cache.
template <typename T>
void transposeBlocked(const T *in, T *out, uint64_t rows, uint64_t cols) {
  constexpr uint64_t kBlock = 32;
  for (uint64_t r0 = 0; r0 < rows; r0 += kBlock)
    for (uint64_t c0 = 0; c0 < cols; c0 += kBlock) {
      uint64_t r1 = std::min(rows, r0 + kBlock);
      uint64_t c1 = std::min(cols, c0 + kBlock);
      for (uint64_t c = c0; c < c1; ++c)
        for (uint64_t r = r0; r < r1; ++r)
          out[c * rows + r] = in[r * cols + c];
    }
}

void transposeMatrix(const uint8_t *in, uint8_t *out, uint64_t rows,
                     uint64_t cols, uint32_t elementBytes) {
  switch (elementBytes) {
  case 1:
    return transposeBlocked(in, out, rows, cols);
  case 2:
    return transposeBlocked(reinterpret_cast<const uint16_t *>(in),
                            reinterpret_cast<uint16_t *>(out), rows, cols);
  case 4:
    return transposeBlocked(reinterpret_cast<const uint32_t *>(in),
                            reinterpret_cast<uint32_t *>(out), rows, cols);
  default:
    return transposeBlocked(reinterpret_cast<const uint64_t *>(in),
                            reinterpret_cast<uint64_t *>(out), rows, cols);
  }
}

/// Sets a box layout's device shape from its padded shape.
void setBoxDeviceShape(TensorLayout &box, size_t rank) {
  int64_t e = box.elemsPerStick;
  for (size_t k = 0; k < rank; ++k) {
    size_t d = size_t(box.dimOrder[k]);
    int64_t p = box.paddedShape[d];
    box.deviceShape.push_back(int32_t(d) == box.stickDim ? (p + e - 1) / e : p);
  }
  box.deviceShape.push_back(e);
}

} // namespace

StreamedImage::StreamedImage(const LayoutMap &map,
                             std::unique_ptr<HostReader> reader,
                             std::vector<int64_t> hostStrides,
                             uint64_t budgetBytes)
    : map_(map), reader_(std::move(reader)),
      hostStrides_(std::move(hostStrides)), box_(std::make_unique<Box>()) {
  const std::vector<int64_t> &shape = map_.shape();
  size_t rank = shape.size();
  if (hostStrides_.empty())
    hostStrides_ = rowMajorStrides(shape);
  uint64_t eb = map_.elementBytes();
  // gather() addresses host bytes in uint64 arithmetic; strides that wrap
  // it would read the wrong elements. Callers (ExternalData) reject them.
  assert(addressesTensor(shape, hostStrides_, eb) &&
         "host strides that do not address the tensor");
  uint64_t stickBytes = uint64_t(map_.layout().elemsPerStick) * eb;
  // A box that is transposed before conversion needs a second buffer of its
  // size: each gets half the budget (none below two sticks: a budget that
  // small is kept exactly, untransposed).
  transposeSlabs_ = hasColumnSticks(map_) && budgetBytes / 2 >= stickBytes;
  if (transposeSlabs_)
    budgetBytes /= 2;
  budget_ = std::max(budgetBytes, stickBytes);
  if (rank == 0 || map_.deviceBytes() <= budget_)
    return; // One slab: the whole tensor.
  planSlabs();
}

StreamedImage::~StreamedImage() = default;

void StreamedImage::planSlabs() {
  const TensorLayout &l = map_.layout();
  size_t rank = map_.shape().size();
  // Bytes of one index of each device dimension.
  std::vector<uint64_t> stride(rank + 1, map_.elementBytes());
  for (size_t k = rank; k-- > 0;)
    stride[k] = stride[k + 1] * uint64_t(l.deviceShape[k + 1]);
  size_t j = 0;
  while (j + 1 < rank && stride[j] > budget_)
    ++j;
  splitDim_ = int32_t(j);
  rangeLen_ = std::min<uint64_t>(uint64_t(l.deviceShape[j]),
                                 std::max<uint64_t>(1, budget_ / stride[j]));
  // An odd range: for a transposed weight the range is the box's row length,
  // and the conversion reads the box a column at a time; a power-of-two
  // row pitch would put a whole column in a few cache sets (conflict misses
  // made a 16 MiB box convert 2.5x slower than a 16 MiB - 2 KiB one).
  if (rangeLen_ > 1 && rangeLen_ % 2 == 0 &&
      rangeLen_ < uint64_t(l.deviceShape[j]))
    --rangeLen_;
  slabBytes_ = rangeLen_ * stride[j];
  unitBytes_ = stride[j] * uint64_t(l.deviceShape[j]);
}

void StreamedImage::placeBox(size_t j, const std::vector<uint64_t> &fixed,
                             uint64_t first, uint64_t count,
                             std::vector<int64_t> &lo,
                             std::vector<int64_t> &ext,
                             TensorLayout &box) const {
  const std::vector<int64_t> &shape = map_.shape();
  const TensorLayout &l = map_.layout();
  int64_t e = l.elemsPerStick;
  for (size_t k = 0; k < shape.size(); ++k) {
    size_t d = size_t(l.dimOrder[k]);
    bool stick = int32_t(d) == l.stickDim;
    int64_t padded;
    if (k < j) {
      lo[d] = int64_t(fixed[k]) * (stick ? e : 1);
      padded = stick ? e : 1;
    } else if (k == j) {
      lo[d] = int64_t(first) * (stick ? e : 1);
      padded = int64_t(count) * (stick ? e : 1);
    } else {
      lo[d] = 0;
      padded = l.paddedShape[d];
    }
    box.paddedShape[d] = padded;
    ext[d] = std::clamp<int64_t>(shape[d] - lo[d], 0, padded);
  }
}

bool StreamedImage::defineBoxSlab(uint64_t offset, Slab &slab,
                                  std::vector<int64_t> &lo,
                                  std::vector<int64_t> &ext,
                                  std::string &error) {
  const TensorLayout &l = map_.layout();
  size_t j = size_t(splitDim_);
  uint64_t unit = offset / unitBytes_;
  uint64_t q = offset % unitBytes_ / slabBytes_;
  slab.start = unit * unitBytes_ + q * slabBytes_;
  slab.end = std::min(slab.start + slabBytes_, (unit + 1) * unitBytes_);
  std::vector<uint64_t> fixed = fixedIndices(l, unit, j);
  uint64_t first = q * rangeLen_;
  uint64_t count =
      std::min<uint64_t>(rangeLen_, uint64_t(l.deviceShape[j]) - first);
  int64_t e = l.elemsPerStick;
  TensorLayout box;
  box.stickDim = l.stickDim;
  box.dimOrder = l.dimOrder;
  box.elemsPerStick = l.elemsPerStick;
  box.paddedShape = l.paddedShape;
  placeBox(j, fixed, first, count, lo, ext, box);
  setBoxDeviceShape(box, map_.shape().size());
  std::string why;
  if (!LayoutMap::create(map_.dtype(), ext, box,
                         int64_t(e) * map_.elementBytes(),
                         isDL16(map_.storage()), slab.map, why)) {
    error = "internal error: slab layout: " + why;
    return false;
  }
  return true;
}

bool StreamedImage::loadSlab(uint64_t offset, std::string &error) {
  const std::vector<int64_t> &shape = map_.shape();
  auto slab = std::make_unique<Slab>();
  std::vector<int64_t> lo(shape.size(), 0), ext(shape);
  if (splitDim_ < 0) {
    slab->start = 0;
    slab->end = map_.deviceBytes();
    slab->map = map_;
  } else if (!defineBoxSlab(offset, *slab, lo, ext, error)) {
    return false;
  }
  slab_.reset();
  if (!gather(lo, ext, error))
    return false;
  reader_->releasePages();
  if (transposeSlabs_ && !transposeBox(*slab, ext, error))
    return false;
  slab_ = std::move(slab);
  ++slabsLoaded_;
  return true;
}

namespace {

/// Reads runs of `runBytes` host bytes into the box. For a reader whose
/// reads are expensive, nearby runs are merged into one read: directly into
/// the box when they are adjacent, else through `bounce`.
class RunReader {
public:
  RunReader(HostReader &reader, std::vector<uint8_t> &bounce, uint64_t runBytes,
            std::string &error)
      : reader_(reader), bounce_(bounce), runBytes_(runBytes), error_(error),
        cheap_(reader.cheapReads()) {}

  /// Reads (or queues) the run at host byte `at` into `to`.
  bool read(uint64_t at, uint8_t *to) {
    if (cheap_)
      return reader_.read(at, to, runBytes_, error_);
    if (!items_.empty()) {
      if (at == groupEnd_ && dense_)
        return queue(at, to);
      if (at >= groupEnd_ && at - groupEnd_ <= StreamedImage::kMergeGapBytes &&
          at + runBytes_ - groupStart_ <= StreamedImage::kMergedReadBytes) {
        dense_ = dense_ && at == groupEnd_;
        return queue(at, to);
      }
      if (!flush())
        return false;
    }
    groupStart_ = at;
    dense_ = true;
    return queue(at, to);
  }

  /// Reads the queued runs.
  bool flush() {
    if (items_.empty())
      return true;
    bool ok;
    uint64_t size = groupEnd_ - groupStart_;
    if (dense_) {
      ok = reader_.read(groupStart_, items_.front().dst, size, error_);
    } else {
      if (bounce_.size() < StreamedImage::kMergedReadBytes) {
        bounce_.reserve(StreamedImage::kMergedReadBytes);
        bounce_.resize(StreamedImage::kMergedReadBytes);
      }
      ok = reader_.read(groupStart_, bounce_.data(), size, error_);
      for (const Item &it : items_)
        std::memcpy(it.dst, bounce_.data() + (it.src - groupStart_), runBytes_);
    }
    items_.clear();
    return ok;
  }

private:
  bool queue(uint64_t at, uint8_t *to) {
    items_.push_back({at, to});
    groupEnd_ = at + runBytes_;
    return true;
  }

  struct Item {
    uint64_t src;
    uint8_t *dst;
  };
  HostReader &reader_;
  std::vector<uint8_t> &bounce_;
  uint64_t runBytes_;
  std::string &error_;
  bool cheap_;
  std::vector<Item> items_;
  uint64_t groupStart_ = 0, groupEnd_ = 0;
  bool dense_ = true;
};

/// The innermost dimensions of a box of extents `ext` that are contiguous in
/// storage (strides `hs`) merge into one run: its elements, and the first
/// merged dimension (the box is walked over the dimensions before it).
void contiguousRun(const std::vector<int64_t> &ext,
                   const std::vector<int64_t> &hs, uint64_t &runElems,
                   size_t &split) {
  runElems = 1;
  split = ext.size();
  for (size_t d = ext.size(); d-- > 0;) {
    if (ext[d] == 1) {
      split = d;
      continue;
    }
    if (uint64_t(hs[d]) != runElems)
      break;
    runElems *= uint64_t(ext[d]);
    split = d;
  }
}

/// Steps `index` (over the first index.size() dimensions of a box of extents
/// `ext`) to the next run, moving the storage element offset `src` along
/// strides `hs`; false after the last.
bool nextRun(std::vector<int64_t> &index, const std::vector<int64_t> &ext,
             const std::vector<int64_t> &hs, uint64_t &src) {
  for (size_t d = index.size(); d-- > 0;) {
    if (++index[d] < ext[d]) {
      src += uint64_t(hs[d]);
      return true;
    }
    src -= uint64_t(ext[d] - 1) * uint64_t(hs[d]);
    index[d] = 0;
  }
  return false;
}

} // namespace

bool StreamedImage::gather(const std::vector<int64_t> &lo,
                           const std::vector<int64_t> &ext,
                           std::string &error) {
  uint64_t eb = map_.elementBytes();
  uint64_t count = 1;
  for (int64_t n : ext)
    count *= uint64_t(n);
  if (!box_->reserve(count * eb)) {
    error = "cannot allocate " + std::to_string(count * eb) +
            " bytes for a weight slab";
    return false;
  }
  boxBytes_ = count * eb;
  peakBufferBytes_ = std::max(peakBufferBytes_, boxBytes_ + bounce_.capacity());
  if (count == 0)
    return true;
  const std::vector<int64_t> &hs = hostStrides_;
  uint64_t runElems;
  size_t split;
  contiguousRun(ext, hs, runElems, split);
  uint64_t src = 0;
  for (size_t d = 0; d < ext.size(); ++d)
    src += uint64_t(lo[d]) * uint64_t(hs[d]);
  uint64_t runBytes = runElems * eb;
  RunReader runs(*reader_, bounce_, runBytes, error);
  std::vector<int64_t> index(split, 0);
  uint8_t *dst = box_->data();
  bool ok;
  do {
    ok = runs.read(src * eb, dst);
    dst += runBytes;
  } while (ok && nextRun(index, ext, hs, src));
  ok = ok && runs.flush();
  // The merged-read buffer, once allocated, stays until finish().
  peakBufferBytes_ = std::max(peakBufferBytes_, boxBytes_ + bounce_.capacity());
  return ok;
}

bool StreamedImage::transposeBox(Slab &slab, const std::vector<int64_t> &ext,
                                 std::string &error) {
  if (!transposed_)
    transposed_ = std::make_unique<Box>();
  if (!transposed_->reserve(boxBytes_)) {
    error = "cannot allocate " + std::to_string(boxBytes_) +
            " bytes for a weight slab";
    return false;
  }
  peakBufferBytes_ =
      std::max(peakBufferBytes_, 2 * boxBytes_ + bounce_.capacity());
  std::string why;
  LayoutMap map;
  if (!transposedBoxMap(slab.map, map, why)) {
    error = "internal error: transposed slab layout: " + why;
    return false;
  }
  transposeMatrix(box_->data(), transposed_->data(), uint64_t(ext[0]),
                  uint64_t(ext[1]), map_.elementBytes());
  slab.map = std::move(map);
  slab.transposed = true;
  return true;
}

void StreamedImage::finish() {
  slab_.reset();
  box_->release();
  if (transposed_)
    transposed_->release();
  std::vector<uint8_t>().swap(bounce_);
  reader_->close();
}

bool StreamedImage::read(uint64_t offset, void *out, uint64_t size,
                         std::string &error) {
  if (offset > this->size() || size > this->size() - offset) {
    error = "range [" + std::to_string(offset) + ", " +
            std::to_string(offset + size) + ") is outside the " +
            std::to_string(this->size()) + "-byte image";
    return false;
  }
  auto *p = static_cast<uint8_t *>(out);
  while (size) {
    if (!slab_ || offset < slab_->start || offset >= slab_->end)
      if (!loadSlab(offset, error)) {
        finish();
        return false;
      }
    uint64_t n = std::min(size, slab_->end - offset);
    const Box &box = slab_->transposed ? *transposed_ : *box_;
    slab_->map.hostToDeviceRange(box.data(), offset - slab_->start, n, p);
    offset += n;
    p += n;
    size -= n;
  }
  if (offset == this->size())
    finish();
  return true;
}

} // namespace spyre::spy
