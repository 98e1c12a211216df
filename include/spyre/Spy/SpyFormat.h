//===- SpyFormat.h - The .spy file container --------------------*- C++ -*-===//
//
// The fixed header in front of the FlatBuffer of schema/spy.fbs, shared by
// the emitter and the runtime. Plain C++, no LLVM. docs/spy-format.md has the
// whole format.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_SPY_SPYFORMAT_H
#define SPYRE_SPY_SPYFORMAT_H

#include <cstddef>
#include <cstdint>
#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace spyre::spy {

/// First 8 bytes of every .spy file.
constexpr char kMagic[8] = {'S', 'P', 'Y', 'R', 'E', 'B', 'I', 'N'};
/// Format version written by this build. It reads majors
/// kOldestFormatMajor to kFormatMajor.
constexpr uint32_t kFormatMajor = 3;
constexpr uint32_t kFormatMinor = 3;
/// 2.x files have no weights file; 3.0 added it.
constexpr uint32_t kOldestFormatMajor = 2;
/// The first 2.x minor whose files carry a digest of every segment (every
/// 3.x file does).
constexpr uint32_t kFirstMinorWithDigests = 2;

/// Whether a file of this format version carries segment digests.
inline bool formatHasDigests(uint32_t major, uint32_t minor) {
  return major > 2 || minor >= kFirstMinorWithDigests;
}
/// Alignment of the FlatBuffer and of the data area within the file.
constexpr uint64_t kFileAlignment = 4096;

/// The 64-byte header at file offset 0.
struct FileHeader {
  char magic[8];             //  0
  uint32_t formatMajor;      //  8
  uint32_t formatMinor;      // 12
  uint64_t archHash;         // 16 hash of the machine description
  uint64_t flatbufferOffset; // 24
  uint64_t flatbufferSize;   // 32
  uint64_t dataOffset;       // 40 start of the segment area
  uint64_t dataSize;         // 48
  uint64_t checksum;         // 56 FNV-1a of bytes [0, 56) and the FlatBuffer
};
static_assert(sizeof(FileHeader) == 64, "header is 64 bytes");
static_assert(offsetof(FileHeader, checksum) == 56, "checksum is last");

/// 64-bit FNV-1a, continuing from `h`.
inline uint64_t fnv1a(const void *data, size_t size,
                      uint64_t h = 0xcbf29ce484222325ull) {
  const auto *p = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/// The checksum stored in FileHeader::checksum.
inline uint64_t headerChecksum(const FileHeader &header,
                               const void *flatbuffer) {
  uint64_t h = fnv1a(&header, offsetof(FileHeader, checksum));
  return fnv1a(flatbuffer, header.flatbufferSize, h);
}

/// The content digest of a segment: XXH3-64 (Debian's libxxhash, inlined).
/// Streamed by the writer, recomputed by the loader.
class SegmentDigest {
public:
  SegmentDigest() { XXH3_64bits_reset(&state_); }
  void update(const void *data, size_t size) {
    XXH3_64bits_update(&state_, data, size);
  }
  uint64_t digest() const { return XXH3_64bits_digest(&state_); }
  static uint64_t of(const void *data, size_t size) {
    return XXH3_64bits(data, size);
  }

private:
  XXH3_state_t state_;
};

} // namespace spyre::spy

#endif // SPYRE_SPY_SPYFORMAT_H
