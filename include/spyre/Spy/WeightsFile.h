//===- WeightsFile.h - Device images of weights beside the .spy -*- C++ -*-===//
//
// A weights file holds the device images of a model's large weights outside
// its .spy (format 3.0, docs/spy-format.md), so that a recompile that gives
// the same weights in the same layouts reuses the file instead of converting
// and writing gigabytes again.
//
//   [0, 64)        WeightsHeader
//   [64, ...)      count WeightsEntry records (32 bytes each)
//   [dataOffset..) the images, each at a 4 KiB aligned offset relative to
//                  dataOffset, in entry order
//
// Every entry names its image by a source key: a digest of where the host
// bytes come from (the archive entry's name, size and CRC-32, offset and
// strides), the element type, the shape and the device layout. The file's
// key is a digest of the entries' source keys and sizes; the .spy records
// it, with a digest of every image's bytes in its digest segment. Plain
// C++, no LLVM: the emitter writes these files, the runtime reads them.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_SPY_WEIGHTSFILE_H
#define SPYRE_SPY_WEIGHTSFILE_H

#include "spyre/Spy/SpyWriter.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spyre::spy {

/// First 8 bytes of every weights file.
constexpr char kWeightsMagic[8] = {'S', 'P', 'Y', 'R', 'E', 'W', 'T', 'S'};
/// Version of the weights file layout written and read.
constexpr uint32_t kWeightsVersion = 1;
/// Alignment of the data area and of every image in it.
constexpr uint64_t kWeightsAlignment = 4096;

/// The 64-byte header at file offset 0 (little endian).
struct WeightsHeader {
  char magic[8];       //  0
  uint32_t version;    //  8
  uint32_t reserved;   // 12
  uint64_t key;        // 16 the file's key (weightsKey of its entries)
  uint64_t count;      // 24 number of entries
  uint64_t dataOffset; // 32 start of the data area
  uint64_t dataSize;   // 40 bytes of the data area
  uint64_t reserved2;  // 48
  uint64_t checksum;   // 56 FNV-1a of bytes [0, 56) and the entries
};
static_assert(sizeof(WeightsHeader) == 64, "header is 64 bytes");

/// One image of the file.
struct WeightsEntry {
  uint64_t sourceKey = 0;
  /// Relative to the data area.
  uint64_t offset = 0;
  uint64_t size = 0;
  /// SegmentDigest of the image's bytes.
  uint64_t digest = 0;
};
static_assert(sizeof(WeightsEntry) == 32, "entries are 32 bytes");

/// The header and entries of a weights file.
struct WeightsIndex {
  uint64_t key = 0;
  uint64_t dataOffset = 0;
  uint64_t dataSize = 0;
  std::vector<WeightsEntry> entries;
};

/// An image to write: its source key, size and bytes (called in increasing
/// chunks of at most SpyWriter::kStreamChunkBytes, from one thread per image
/// at a time).
struct WeightsImage {
  uint64_t sourceKey = 0;
  uint64_t size = 0;
  DataSource source;
};

/// An image whose bytes are held in memory (tests, tools).
WeightsImage memoryImage(uint64_t sourceKey, std::vector<uint8_t> bytes);

/// The key of a file holding images with these source keys and sizes, in
/// this order.
uint64_t weightsKey(const std::vector<WeightsImage> &images);

/// Reads and checks the header and entries of a weights file of `fileSize`
/// bytes whose first `headSize` bytes are at `head` (header checksum,
/// entries inside the data area, the data area inside the file). False with
/// `error` (a reason, for "'<path>': <reason>") when it is not a
/// well-formed weights file.
bool parseWeightsIndex(const uint8_t *head, uint64_t headSize,
                       uint64_t fileSize, WeightsIndex &out,
                       std::string &error);
/// Same, reading the file at `path` (the header and entries only).
bool readWeightsIndex(const std::string &path, WeightsIndex &out,
                      std::string &error);

/// Whether the file at `path` already holds `images` (same key, same source
/// keys and sizes in the same order, its full length present); then `out`
/// is its index and nothing needs writing. Its bytes are not read: the
/// runtime checks them against the .spy's digests at load.
bool weightsFileMatches(const std::string &path,
                        const std::vector<WeightsImage> &images,
                        WeightsIndex &out);

/// Host threads writeWeightsFile uses for `images` images when asked for
/// `requested` (0: all host cores): at most 8, at most one per image.
unsigned weightsWriterThreads(unsigned requested, size_t images);
/// Host bytes each image may buffer at once (StreamedImage's budget) when
/// `threads` convert at once: 128 MiB shared, at least 16 MiB each. Wider
/// slabs of a transposed weight cost fewer, larger reads.
uint64_t weightsImageBudget(unsigned threads);

/// Writes `images` to `path` (through a temporary file renamed into place),
/// converting them on weightsWriterThreads(threads, images.size()) host
/// threads, each image streamed in chunks; `out` receives the index
/// written.
bool writeWeightsFile(const std::string &path,
                      const std::vector<WeightsImage> &images, unsigned threads,
                      WeightsIndex &out, std::string &error);

} // namespace spyre::spy

#endif // SPYRE_SPY_WEIGHTSFILE_H
