//===- Layout.h - Stick layouts of tensors in device memory -----*- C++ -*-===//
//
// How the elements of a tensor sit in device memory (the `Layout` table of
// schema/spy.fbs), and conversion between a row-major host buffer and the
// device image of a tensor. Plain C++, no LLVM: the emitter uses it to write
// weights in device layout, the runtime to copy inputs in and outputs out.
//
// Semantics. Let E = stick_bytes / element bytes (elements per stick), r the
// rank. The logical shape is padded to `paddedShape` and stored row-major
// over
//   deviceShape = [for d in dimOrder: d == stickDim ? ceil(padded[d] / E)
//                                                   : padded[d]] ++ [E]
// Element (i_0 .. i_{r-1}) sits at device index
//   [for d in dimOrder: d == stickDim ? i_d / E : i_d] ++ [i_stickDim % E]
// and its byte offset is that index linearized row-major over deviceShape,
// times the element size. Everything that is not a logical element (the
// padding) is zero in a device image made here. With stickDim == -1 every
// element occupies a stick of its own, at position 0; a rank-0 tensor has
// stickDim -1, dimOrder [] and deviceShape [E].
//
// Element formats. On the host, F16 is IEEE binary16 and BF16 is bfloat16
// bits; every other type is its C type (Bool one byte, 0 or 1). In device
// memory F16 and BF16 are DLFloat16 when the machine's fp16_storage is
// "dl16", otherwise they keep their host format.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_SPY_LAYOUT_H
#define SPYRE_SPY_LAYOUT_H

#include "spyre/ISA/ISA.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spyre {
struct Arch;
} // namespace spyre

namespace spyre::spy {

/// Largest rank a layout may have (bounds the work of every per-dimension
/// loop on untrusted input).
constexpr unsigned kMaxRank = 16;

/// How one element is stored in device memory.
enum class ElementStorage : uint8_t {
  F32,
  IeeeF16,
  BF16,
  DL16,
  /// DL16 holding a bf16 tensor: stores saturate finite overflow to +-max
  /// (spy::floatToDL16Saturating) instead of giving NINF.
  DL16Saturating,
  I8,
  I32,
  I64,
  Bool,
};

/// Whether elements are DLFloat16 codes.
inline bool isDL16(ElementStorage s) {
  return s == ElementStorage::DL16 || s == ElementStorage::DL16Saturating;
}

/// The device storage of `dtype` on a machine that stores fp16/bf16 as DL16
/// (`dl16Storage`) or in their IEEE/bfloat16 formats.
ElementStorage storageOf(isa::DType dtype, bool dl16Storage);
/// Whether `arch` stores fp16/bf16 as DL16 (fp16_storage == "dl16").
bool usesDL16Storage(const Arch &arch);

/// A tensor layout; mirrors the `Layout` table of schema/spy.fbs.
struct TensorLayout {
  int32_t stickDim = -1;
  std::vector<int32_t> dimOrder;
  std::vector<int64_t> paddedShape;
  std::vector<int64_t> deviceShape;
  int32_t elemsPerStick = 0;

  /// The usual layout: dimensions in `dimOrder` (identity when empty), the
  /// stick on `stickDim` (-1: none; rank-0 tensors must pass -1), each
  /// dimension padded to `paddedShape` (when empty: the stick dimension to
  /// whole sticks, the others not at all), deviceShape derived. Returns false
  /// and sets `error` when the arguments are inconsistent.
  static bool make(isa::DType dtype, const std::vector<int64_t> &shape,
                   int32_t stickDim, int64_t stickBytes, TensorLayout &out,
                   std::string &error, std::vector<int32_t> dimOrder = {},
                   std::vector<int64_t> paddedShape = {});

  /// Checks this layout against a tensor's dtype and logical shape: dimOrder
  /// is a permutation, padding covers the shape, elemsPerStick matches
  /// stickBytes, deviceShape follows from the rest, sizes do not overflow.
  bool validate(isa::DType dtype, const std::vector<int64_t> &shape,
                int64_t stickBytes, std::string &error) const;

  /// Bytes of the device image, product(deviceShape) * element bytes (valid
  /// layouts only).
  uint64_t deviceBytes(isa::DType dtype) const;

  bool operator==(const TensorLayout &o) const {
    return stickDim == o.stickDim && dimOrder == o.dimOrder &&
           paddedShape == o.paddedShape && deviceShape == o.deviceShape &&
           elemsPerStick == o.elemsPerStick;
  }
  bool operator!=(const TensorLayout &o) const { return !(*this == o); }
};

/// A validated layout of one tensor with precomputed strides: maps logical
/// indices to device byte offsets and converts whole images.
class LayoutMap {
public:
  /// Validates `layout` for `dtype`/`shape` and precomputes the mapping.
  static bool create(isa::DType dtype, const std::vector<int64_t> &shape,
                     const TensorLayout &layout, int64_t stickBytes,
                     bool dl16Storage, LayoutMap &out, std::string &error);
  /// Same, taking the stick size and storage format from `arch`.
  static bool create(isa::DType dtype, const std::vector<int64_t> &shape,
                     const TensorLayout &layout, const Arch &arch,
                     LayoutMap &out, std::string &error);

  isa::DType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  const TensorLayout &layout() const { return layout_; }
  ElementStorage storage() const { return storage_; }
  /// Bytes of one element (host and device sizes agree).
  uint32_t elementBytes() const { return elementBytes_; }
  /// Logical elements, product(shape).
  uint64_t numElements() const { return numElements_; }
  /// Bytes of a row-major host buffer of the tensor.
  uint64_t hostBytes() const { return numElements_ * elementBytes_; }
  /// Bytes of the device image.
  uint64_t deviceBytes() const { return deviceBytes_; }

  /// Device byte offset of the element at logical `index` (rank entries,
  /// each inside the shape).
  uint64_t deviceOffset(const int64_t *index) const;
  /// Device byte offset of the element with row-major position `linear`.
  uint64_t deviceOffsetOfLinear(uint64_t linear) const;
  /// Inverse of deviceOffset: the logical index (rank entries) of the element
  /// whose first byte is at `offset`; false for padding and for offsets that
  /// are not at an element boundary or are outside the image.
  bool logicalIndex(uint64_t offset, int64_t *index) const;

  /// Writes the whole device image (deviceBytes()) of a row-major host buffer
  /// (hostBytes()), converting element formats; padding is zero.
  void hostToDevice(const void *host, void *device) const;
  /// Writes bytes [offset, offset + size) of the device image of `host` to
  /// `out`: the streaming form of hostToDevice (for multi-GB weights; the host
  /// buffer may be a memory-mapped file, it is read only where needed).
  void hostToDeviceRange(const void *host, uint64_t offset, uint64_t size,
                         void *out) const;
  /// Reads a device image back into a row-major host buffer.
  void deviceToHost(const void *device, void *host) const;
  /// deviceToHost for sticks [firstStick, firstStick + numSticks) of the
  /// image, `device` pointing at the first of them.
  void deviceSticksToHost(const void *device, uint64_t firstStick,
                          uint64_t numSticks, void *host) const;
  /// Bytes of one stick of the image.
  uint64_t stickBytes() const;

private:
  /// Sets prefix[0 .. rank) to the device index of stick `stick` (all device
  /// dimensions but the last).
  void stickIndex(uint64_t stick, uint64_t *prefix) const;
  /// Moves `prefix` on to the next stick of the image (an odometer).
  void advanceStick(uint64_t *prefix) const;
  /// The host element offset of the first element of the stick at `prefix`;
  /// `valid` gets how many of its elements are in the tensor (0: padding).
  uint64_t locateStick(const uint64_t *prefix, uint64_t &valid) const;
  /// Writes the part of the stick at byte `stickStart` of the run that lies
  /// in [skipBytes, skipBytes + keepBytes) to `deviceOut`, converting its
  /// `valid` elements from host element `hostBase` of `hostIn` (`hostStep`
  /// apart) and zeroing the rest; a partial stick is built in `scratch` (one
  /// stick) first.
  void stickToDevice(const uint8_t *hostIn, uint64_t hostBase,
                     uint64_t hostStep, uint64_t valid, uint64_t stickStart,
                     uint64_t skipBytes, uint64_t keepBytes, uint8_t *deviceOut,
                     uint8_t *scratch) const;
  template <bool ToDevice>
  void convertSticks(const uint8_t *hostIn, uint8_t *hostOut,
                     const uint8_t *deviceIn, uint8_t *deviceOut,
                     uint64_t firstStick, uint64_t numSticks,
                     uint64_t skipBytes, uint64_t keepBytes) const;

  isa::DType dtype_ = isa::DType::F32;
  std::vector<int64_t> shape_;
  TensorLayout layout_;
  ElementStorage storage_ = ElementStorage::F32;
  uint32_t elementBytes_ = 4;
  uint64_t numElements_ = 0;
  uint64_t deviceBytes_ = 0;
  /// Row-major element strides of the host buffer, per logical dimension.
  std::vector<uint64_t> hostStrides_;
  /// Element strides of the device index, per device dimension.
  std::vector<uint64_t> deviceStrides_;
  /// Logical dimension of each device dimension but the last.
  std::vector<int32_t> deviceDimOf_;
};

} // namespace spyre::spy

#endif // SPYRE_SPY_LAYOUT_H
