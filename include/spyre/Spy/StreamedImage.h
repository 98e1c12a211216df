//===- StreamedImage.h - Device images made with bounded memory -*- C++ -*-===//
//
// Produces the device image of a tensor (Layout.h) from host bytes that
// stay where they are (a weights archive, a memory mapping), in increasing
// byte ranges, holding at most a fixed budget of host bytes at a time: the
// piece of the .spy emitter that keeps peak memory independent of the size
// of the weights (bench/big-weights/README.md).
//
// The image is cut into slabs, runs of whole sticks contiguous in the image
// whose device bytes fit the budget: the outermost device dimensions are
// fixed, the next one is split into ranges, the inner ones are whole. A
// slab's elements form a box of the logical tensor (a range of each
// dimension), which is read from the host into a buffer (row-major over
// the box) and converted by a LayoutMap of the box. For a linear weight
// stored transposed on the device (dim_order [1, 0]) a slab is a band of
// columns of every row: it costs one read per row, and never more memory
// than the budget, however large the matrix. Its sticks run down the box's
// columns, so the box is transposed (in cache-sized blocks) before it is
// converted, and each stick comes from contiguous memory; the box and its
// transpose share the budget.
//
// Plain C++ (POSIX I/O), no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_SPY_STREAMEDIMAGE_H
#define SPYRE_SPY_STREAMEDIMAGE_H

#include "spyre/Spy/Layout.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spyre::spy {

/// Reads bytes of the storage that holds a tensor's host elements.
class HostReader {
public:
  virtual ~HostReader();
  /// Copies bytes [offset, offset + size) of the storage into `out`.
  virtual bool read(uint64_t offset, void *out, uint64_t size,
                    std::string &error) = 0;
  /// Whether small scattered reads cost little (memory, a mapping). When
  /// not (a file read by system calls), nearby reads are merged.
  virtual bool cheapReads() const { return false; }
  /// Called after each slab: drop pages the reads made resident.
  virtual void releasePages() {}
  /// Called once the whole image has been produced: release everything
  /// (files, mappings) until the next read.
  virtual void close() {}
};

/// Reads `path` from byte `base` on with pread; the file is opened at the
/// first read and closed by close(). Holds no pages: memory stays at the
/// caller's buffers.
std::unique_ptr<HostReader> makeFileReader(std::string path, uint64_t base);

/// pread()s exactly `size` bytes at `offset` of `fd`, retrying short reads
/// and EINTR. 0 on success, else the errno, or -1 when the file ends first.
int preadFully(int fd, void *out, uint64_t size, uint64_t offset);
/// Reads bytes [base, base + span) of `path` through a read-only mapping
/// made at the first read; releasePages() drops the pages the reads touched
/// (madvise MADV_DONTNEED) and close() unmaps. For element-wise strided
/// views, where one system call per element would cost too much.
std::unique_ptr<HostReader> makeMappedFileReader(std::string path,
                                                 uint64_t base, uint64_t span);
/// Reads `size` bytes at `data` (which must outlive the reader).
std::unique_ptr<HostReader> makeMemoryReader(const void *data, uint64_t size);

/// The device image of one tensor, produced range by range.
class StreamedImage {
public:
  /// Host bytes held at once by default (the box of one slab).
  static constexpr uint64_t kDefaultBudgetBytes = uint64_t(16) << 20;
  /// Largest merged read of a file reader (and its bounce buffer).
  static constexpr uint64_t kMergedReadBytes = uint64_t(1) << 20;
  /// Nearby reads less than this far apart are merged into one.
  static constexpr uint64_t kMergeGapBytes = 4096;

  /// The image of the tensor that `map` describes, whose element at logical
  /// index i is at storage byte sum(i[d] * hostStrides[d]) * elementBytes
  /// of `reader` (`hostStrides` in elements, one per dimension; empty: the
  /// row-major strides of a contiguous tensor). `budgetBytes` bounds the
  /// host bytes held at once (at least one stick is always allowed).
  /// Strides with the wrong rank, negative or reaching past 2^64 bytes are
  /// a caller's bug (asserted).
  StreamedImage(const LayoutMap &map, std::unique_ptr<HostReader> reader,
                std::vector<int64_t> hostStrides = {},
                uint64_t budgetBytes = kDefaultBudgetBytes);
  ~StreamedImage();
  StreamedImage(const StreamedImage &) = delete;
  StreamedImage &operator=(const StreamedImage &) = delete;

  /// Bytes of the image (map.deviceBytes()).
  uint64_t size() const { return map_.deviceBytes(); }
  /// Writes bytes [offset, offset + size) of the image to `out`. Any range
  /// works; increasing ones are cheapest (each slab is read once). Once the
  /// end of the image has been produced, buffers are freed and the reader
  /// is closed.
  bool read(uint64_t offset, void *out, uint64_t size, std::string &error);

  /// The most bytes of host data buffered at once so far (the box and the
  /// merged-read buffer; the box's memory is rounded up to whole 2 MiB huge
  /// pages when it is larger than one), for tests.
  uint64_t peakBufferBytes() const { return peakBufferBytes_; }
  /// Number of slabs loaded so far, for tests.
  uint64_t slabsLoaded() const { return slabsLoaded_; }

private:
  struct Slab;
  class Box;
  /// Splits the image into slabs of at most budget_ bytes (a range of one
  /// device dimension, the dimensions before it fixed).
  void planSlabs();
  /// The host box of slab dimension `j`'s range [first, first + count) at
  /// fixed indices `fixed`: its origin `lo`, its extent `ext` within the
  /// tensor and, in `box`, its padded shape.
  void placeBox(size_t j, const std::vector<uint64_t> &fixed, uint64_t first,
                uint64_t count, std::vector<int64_t> &lo,
                std::vector<int64_t> &ext, TensorLayout &box) const;
  /// Fills `slab` (its bytes and layout) and its host box for the slab that
  /// holds device byte `offset` of a split image.
  bool defineBoxSlab(uint64_t offset, Slab &slab, std::vector<int64_t> &lo,
                     std::vector<int64_t> &ext, std::string &error);
  bool loadSlab(uint64_t offset, std::string &error);
  /// Transposes the box of a slab whose sticks run down its columns into
  /// transposed_ and gives the slab the transposed box's layout.
  bool transposeBox(Slab &slab, const std::vector<int64_t> &ext,
                    std::string &error);
  bool gather(const std::vector<int64_t> &lo, const std::vector<int64_t> &ext,
              std::string &error);
  void finish();

  LayoutMap map_;
  std::unique_ptr<HostReader> reader_;
  std::vector<int64_t> hostStrides_;
  uint64_t budget_;
  /// Slab geometry: device dimension split into ranges (-1: one slab), the
  /// sticks per range, bytes of one range and of one index of the fixed
  /// dimensions.
  int32_t splitDim_ = -1;
  uint64_t rangeLen_ = 0, slabBytes_ = 0, unitBytes_ = 0;
  /// The loaded slab.
  std::unique_ptr<Slab> slab_;
  /// The slab's host elements, row-major over its box.
  std::unique_ptr<Box> box_;
  /// The box transposed, for layouts with column sticks.
  std::unique_ptr<Box> transposed_;
  bool transposeSlabs_ = false;
  std::vector<uint8_t> bounce_;
  uint64_t boxBytes_ = 0;
  uint64_t peakBufferBytes_ = 0, slabsLoaded_ = 0;
};

} // namespace spyre::spy

#endif // SPYRE_SPY_STREAMEDIMAGE_H
