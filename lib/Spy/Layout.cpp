//===- Layout.cpp - Stick layouts of tensors in device memory -------------===//

#include "spyre/Spy/Layout.h"

#include "spyre/Arch/Arch.h"
#include "spyre/Spy/DL16.h"
#include "spyre/Support/MathExtras.h"

#include <algorithm>
#include <cstring>

namespace spyre::spy {

namespace {

/// Largest device image or host buffer a layout may describe (bytes); keeps
/// every offset computation far from uint64_t overflow.
constexpr uint64_t kMaxImageBytes = uint64_t(1) << 56;

bool checkedMul(uint64_t a, uint64_t b, uint64_t &out) {
  return !__builtin_mul_overflow(a, b, &out) && out <= kMaxImageBytes;
}

std::string dimsToString(const std::vector<int64_t> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

/// Copies `count` elements, `hostStep` elements apart on the host, to or
/// from consecutive device elements of the same encoding.
template <bool ToDevice>
void copyRun(uint32_t bytes, const uint8_t *hostIn, uint8_t *hostOut,
             uint64_t hostStep, const uint8_t *deviceIn, uint8_t *deviceOut,
             uint64_t count) {
  if (hostStep == 1) {
    if (ToDevice)
      std::memcpy(deviceOut, hostIn, count * bytes);
    else
      std::memcpy(hostOut, deviceIn, count * bytes);
    return;
  }
  for (uint64_t e = 0; e < count; ++e) {
    if (ToDevice)
      std::memcpy(deviceOut + e * bytes, hostIn + e * hostStep * bytes, bytes);
    else
      std::memcpy(hostOut + e * hostStep * bytes, deviceIn + e * bytes, bytes);
  }
}

/// Encodes `count` 16-bit host elements, `hostStep` elements apart, as
/// consecutive DL16 device elements.
void encodeDL16Run(bool isHalf, const uint8_t *hostIn, uint64_t hostStep,
                   uint8_t *deviceOut, uint64_t count) {
  const uint16_t *encode = isHalf ? halfToDL16Table() : bf16ToDL16Table();
  for (uint64_t e = 0; e < count; ++e) {
    uint16_t v;
    std::memcpy(&v, hostIn + e * hostStep * 2, 2);
    v = encode[v];
    std::memcpy(deviceOut + e * 2, &v, 2);
  }
}

/// Decodes `count` consecutive DL16 device elements to 16-bit host elements,
/// `hostStep` elements apart.
void decodeDL16Run(bool isHalf, const uint8_t *deviceIn, uint8_t *hostOut,
                   uint64_t hostStep, uint64_t count) {
  for (uint64_t e = 0; e < count; ++e) {
    uint16_t v;
    std::memcpy(&v, deviceIn + e * 2, 2);
    v = isHalf ? dl16ToHalf(v) : dl16ToBF16(v);
    std::memcpy(hostOut + e * hostStep * 2, &v, 2);
  }
}

/// Converts `count` elements, `hostStep` elements apart on the host, to or
/// from consecutive device elements.
template <bool ToDevice>
void convertRun(ElementStorage storage, isa::DType dtype, uint32_t bytes,
                const uint8_t *hostIn, uint8_t *hostOut, uint64_t hostStep,
                const uint8_t *deviceIn, uint8_t *deviceOut, uint64_t count) {
  if (!isDL16(storage)) {
    copyRun<ToDevice>(bytes, hostIn, hostOut, hostStep, deviceIn, deviceOut,
                      count);
    return;
  }
  bool isHalf = dtype == isa::DType::F16;
  if (ToDevice)
    encodeDL16Run(isHalf, hostIn, hostStep, deviceOut, count);
  else
    decodeDL16Run(isHalf, deviceIn, hostOut, hostStep, count);
}

/// Checks make()'s stick size against the element size and its stick
/// dimension against the rank; false with `error` when one is invalid.
bool checkStickArgs(uint32_t bytes, int64_t stickBytes, int32_t stickDim,
                    size_t rank, std::string &error) {
  if (bytes == 0 || stickBytes <= 0 || stickBytes % bytes != 0) {
    error = "stick size " + std::to_string(stickBytes) +
            " is not a multiple of the element size";
    return false;
  }
  if (stickDim < -1 || stickDim >= int64_t(rank)) {
    error = "stick dimension " + std::to_string(stickDim) +
            " out of range for rank " + std::to_string(rank);
    return false;
  }
  return true;
}

/// `dimOrder`, or the identity order when it is empty.
std::vector<int32_t> dimOrderOrIdentity(std::vector<int32_t> dimOrder,
                                        size_t rank) {
  if (dimOrder.empty())
    for (size_t d = 0; d < rank; ++d)
      dimOrder.push_back(int32_t(d));
  return dimOrder;
}

/// `paddedShape`, or when it is empty `shape` with the stick dimension
/// rounded up to whole sticks.
std::vector<int64_t> paddedShapeOrDefault(std::vector<int64_t> paddedShape,
                                          const std::vector<int64_t> &shape,
                                          int32_t stickDim,
                                          int64_t elemsPerStick) {
  if (!paddedShape.empty())
    return paddedShape;
  paddedShape = shape;
  if (stickDim >= 0) {
    int64_t &p = paddedShape[size_t(stickDim)];
    if (p > 0)
      p = alignTo(p, elemsPerStick);
  }
  return paddedShape;
}

/// Fills `layout.deviceShape` from its dim order, padded shape and stick;
/// false with `error` on a dim_order entry out of range.
bool buildDeviceShape(TensorLayout &layout, size_t rank, std::string &error) {
  for (size_t k = 0; k < rank; ++k) {
    int32_t d = layout.dimOrder[k];
    if (d < 0 || size_t(d) >= rank) {
      error = "dim_order entry " + std::to_string(d) + " out of range";
      return false;
    }
    int64_t p = layout.paddedShape[size_t(d)];
    int64_t e = layout.elemsPerStick;
    layout.deviceShape.push_back(d == layout.stickDim ? (p + e - 1) / e : p);
  }
  layout.deviceShape.push_back(layout.elemsPerStick);
  return true;
}

} // namespace

ElementStorage storageOf(isa::DType dtype, bool dl16Storage) {
  switch (dtype) {
  case isa::DType::F32:
    return ElementStorage::F32;
  case isa::DType::F16:
    return dl16Storage ? ElementStorage::DL16 : ElementStorage::IeeeF16;
  case isa::DType::BF16:
    return dl16Storage ? ElementStorage::DL16Saturating : ElementStorage::BF16;
  case isa::DType::I8:
    return ElementStorage::I8;
  case isa::DType::I32:
    return ElementStorage::I32;
  case isa::DType::I64:
    return ElementStorage::I64;
  case isa::DType::Bool:
    return ElementStorage::Bool;
  }
  return ElementStorage::F32;
}

bool usesDL16Storage(const Arch &arch) { return arch.fp16Storage == "dl16"; }

bool TensorLayout::make(isa::DType dtype, const std::vector<int64_t> &shape,
                        int32_t stickDim, int64_t stickBytes, TensorLayout &out,
                        std::string &error, std::vector<int32_t> dimOrder,
                        std::vector<int64_t> paddedShape) {
  size_t rank = shape.size();
  uint32_t bytes = isa::dtypeBytes(dtype);
  if (!checkStickArgs(bytes, stickBytes, stickDim, rank, error))
    return false;
  TensorLayout layout;
  layout.stickDim = stickDim;
  layout.elemsPerStick = int32_t(stickBytes / bytes);
  layout.dimOrder = dimOrderOrIdentity(std::move(dimOrder), rank);
  layout.paddedShape = paddedShapeOrDefault(std::move(paddedShape), shape,
                                            stickDim, layout.elemsPerStick);
  if (layout.dimOrder.size() != rank || layout.paddedShape.size() != rank) {
    error = "dim_order and padded_shape must have one entry per dimension";
    return false;
  }
  if (!buildDeviceShape(layout, rank, error))
    return false;
  if (!layout.validate(dtype, shape, stickBytes, error))
    return false;
  out = std::move(layout);
  return true;
}

namespace {

// The checks of TensorLayout::validate, in order; each returns the problem
// it finds ("" when none).

std::string checkElementAndShape(isa::DType dtype,
                                 const std::vector<int64_t> &shape) {
  if (uint8_t(dtype) > uint8_t(isa::DType::LastDType))
    return "invalid element type";
  if (shape.size() > kMaxRank)
    return "rank " + std::to_string(shape.size()) + " exceeds the maximum of " +
           std::to_string(kMaxRank);
  for (int64_t d : shape)
    if (d < 0)
      return "negative dimension in shape " + dimsToString(shape);
  return {};
}

std::string checkStick(const TensorLayout &l, isa::DType dtype, size_t rank,
                       int64_t stickBytes) {
  uint32_t bytes = isa::dtypeBytes(dtype);
  if (stickBytes <= 0 || stickBytes % bytes != 0 ||
      l.elemsPerStick != stickBytes / int64_t(bytes))
    return "elems_per_stick " + std::to_string(l.elemsPerStick) +
           " does not match a " + std::to_string(stickBytes) +
           "-byte stick of " + isa::dtypeName(uint8_t(dtype));
  if (l.stickDim < -1 || l.stickDim >= int64_t(rank))
    return "stick_dim " + std::to_string(l.stickDim) +
           " out of range for rank " + std::to_string(rank);
  return {};
}

std::string checkDimOrder(const TensorLayout &l, size_t rank) {
  if (l.dimOrder.size() != rank)
    return "dim_order has " + std::to_string(l.dimOrder.size()) +
           " entries for rank " + std::to_string(rank);
  std::vector<bool> seen(rank, false);
  for (int32_t d : l.dimOrder) {
    if (d < 0 || size_t(d) >= rank || seen[size_t(d)])
      return "dim_order is not a permutation of the dimensions";
    seen[size_t(d)] = true;
  }
  return {};
}

std::string checkPaddedShape(const TensorLayout &l,
                             const std::vector<int64_t> &shape) {
  size_t rank = shape.size();
  if (l.paddedShape.size() != rank)
    return "padded_shape has " + std::to_string(l.paddedShape.size()) +
           " entries for rank " + std::to_string(rank);
  for (size_t d = 0; d < rank; ++d)
    if (l.paddedShape[d] < shape[d])
      return "padded_shape " + dimsToString(l.paddedShape) +
             " does not cover shape " + dimsToString(shape);
  return {};
}

/// deviceShape follows from the rest, and neither the device image nor the
/// padded tensor is too large.
std::string checkDeviceShape(const TensorLayout &l, isa::DType dtype,
                             size_t rank) {
  if (l.deviceShape.size() != rank + 1)
    return "device_shape must have rank + 1 entries";
  uint32_t bytes = isa::dtypeBytes(dtype);
  uint64_t total = bytes;
  for (size_t k = 0; k <= rank; ++k) {
    int64_t expected = l.elemsPerStick;
    if (k < rank) {
      int32_t d = l.dimOrder[k];
      int64_t p = l.paddedShape[size_t(d)];
      expected = d == l.stickDim
                     ? p / l.elemsPerStick + (p % l.elemsPerStick != 0)
                     : p;
    }
    if (l.deviceShape[k] != expected)
      return "device_shape " + dimsToString(l.deviceShape) +
             " does not follow from padded_shape " +
             dimsToString(l.paddedShape) + ", dim_order and stick_dim";
    if (!checkedMul(total, uint64_t(expected), total))
      return "device image of shape " + dimsToString(l.deviceShape) +
             " is too large";
  }
  uint64_t elements = bytes;
  for (int64_t d : l.paddedShape)
    if (!checkedMul(elements, uint64_t(d), elements))
      return "padded shape " + dimsToString(l.paddedShape) + " is too large";
  return {};
}

} // namespace

bool TensorLayout::validate(isa::DType dtype, const std::vector<int64_t> &shape,
                            int64_t stickBytes, std::string &error) const {
  size_t rank = shape.size();
  std::string problem = checkElementAndShape(dtype, shape);
  if (problem.empty())
    problem = checkStick(*this, dtype, rank, stickBytes);
  if (problem.empty())
    problem = checkDimOrder(*this, rank);
  if (problem.empty())
    problem = checkPaddedShape(*this, shape);
  if (problem.empty())
    problem = checkDeviceShape(*this, dtype, rank);
  if (problem.empty())
    return true;
  error = std::move(problem);
  return false;
}

uint64_t TensorLayout::deviceBytes(isa::DType dtype) const {
  uint64_t total = isa::dtypeBytes(dtype);
  for (int64_t d : deviceShape)
    total *= uint64_t(d);
  return total;
}

bool LayoutMap::create(isa::DType dtype, const std::vector<int64_t> &shape,
                       const TensorLayout &layout, const Arch &arch,
                       LayoutMap &out, std::string &error) {
  return create(dtype, shape, layout, arch.stickBytes, usesDL16Storage(arch),
                out, error);
}

bool LayoutMap::create(isa::DType dtype, const std::vector<int64_t> &shape,
                       const TensorLayout &layout, int64_t stickBytes,
                       bool dl16Storage, LayoutMap &out, std::string &error) {
  if (!layout.validate(dtype, shape, stickBytes, error))
    return false;
  LayoutMap map;
  map.dtype_ = dtype;
  map.shape_ = shape;
  map.layout_ = layout;
  map.storage_ = storageOf(dtype, dl16Storage);
  map.elementBytes_ = isa::dtypeBytes(dtype);
  size_t rank = shape.size();
  map.numElements_ = 1;
  map.hostStrides_.assign(rank, 1);
  for (size_t d = rank; d-- > 0;) {
    map.hostStrides_[d] = map.numElements_;
    map.numElements_ *= uint64_t(shape[d]);
  }
  map.deviceStrides_.assign(rank + 1, 1);
  uint64_t stride = 1;
  for (size_t k = rank + 1; k-- > 0;) {
    map.deviceStrides_[k] = stride;
    stride *= uint64_t(layout.deviceShape[k]);
  }
  map.deviceBytes_ = stride * map.elementBytes_;
  map.deviceDimOf_ = layout.dimOrder;
  out = std::move(map);
  return true;
}

uint64_t LayoutMap::deviceOffset(const int64_t *index) const {
  uint64_t e = uint64_t(layout_.elemsPerStick);
  uint64_t linear = 0;
  size_t rank = shape_.size();
  for (size_t k = 0; k < rank; ++k) {
    int32_t d = deviceDimOf_[k];
    uint64_t i = uint64_t(index[d]);
    linear += (d == layout_.stickDim ? i / e : i) * deviceStrides_[k];
  }
  if (layout_.stickDim >= 0)
    linear += uint64_t(index[layout_.stickDim]) % e;
  return linear * elementBytes_;
}

uint64_t LayoutMap::deviceOffsetOfLinear(uint64_t linear) const {
  int64_t index[kMaxRank];
  for (size_t d = shape_.size(); d-- > 0;) {
    uint64_t n = uint64_t(shape_[d]);
    if (n == 0)
      return 0;
    index[d] = int64_t(linear % n);
    linear /= n;
  }
  return deviceOffset(index);
}

bool LayoutMap::logicalIndex(uint64_t offset, int64_t *index) const {
  if (offset % elementBytes_ != 0 || offset >= deviceBytes_)
    return false;
  uint64_t linear = offset / elementBytes_;
  uint64_t e = uint64_t(layout_.elemsPerStick);
  uint64_t position = linear % e;
  uint64_t stick = linear / e;
  size_t rank = shape_.size();
  for (size_t k = rank; k-- > 0;) {
    uint64_t n = uint64_t(layout_.deviceShape[k]);
    uint64_t p = stick % n;
    stick /= n;
    int32_t d = deviceDimOf_[k];
    index[d] = int64_t(d == layout_.stickDim ? p * e + position : p);
  }
  if (layout_.stickDim < 0 && position != 0)
    return false;
  for (size_t d = 0; d < rank; ++d)
    if (index[d] >= shape_[d])
      return false;
  return true;
}

void LayoutMap::stickIndex(uint64_t stick, uint64_t *prefix) const {
  for (size_t k = shape_.size(); k-- > 0;) {
    uint64_t n = uint64_t(layout_.deviceShape[k]);
    prefix[k] = stick % n;
    stick /= n;
  }
}

void LayoutMap::advanceStick(uint64_t *prefix) const {
  for (size_t k = shape_.size(); k-- > 0;) {
    if (++prefix[k] < uint64_t(layout_.deviceShape[k]))
      return;
    prefix[k] = 0;
  }
}

uint64_t LayoutMap::locateStick(const uint64_t *prefix, uint64_t &valid) const {
  uint64_t e = uint64_t(layout_.elemsPerStick);
  bool inside = true;
  uint64_t hostBase = 0;
  valid = 1;
  for (size_t k = 0; k < shape_.size(); ++k) {
    int32_t d = deviceDimOf_[k];
    uint64_t i = prefix[k];
    if (d == layout_.stickDim) {
      i *= e;
      uint64_t n = uint64_t(shape_[size_t(d)]);
      valid = i < n ? std::min(e, n - i) : 0;
    } else if (i >= uint64_t(shape_[size_t(d)])) {
      inside = false;
    }
    hostBase += i * hostStrides_[size_t(d)];
  }
  if (!inside)
    valid = 0;
  return hostBase;
}

void LayoutMap::stickToDevice(const uint8_t *hostIn, uint64_t hostBase,
                              uint64_t hostStep, uint64_t valid,
                              uint64_t stickStart, uint64_t skipBytes,
                              uint64_t keepBytes, uint8_t *deviceOut,
                              uint8_t *scratch) const {
  uint64_t stickBytes = this->stickBytes();
  uint64_t lo = std::max(stickStart, skipBytes);
  uint64_t hi = std::min(stickStart + stickBytes, skipBytes + keepBytes);
  if (lo >= hi)
    return;
  bool whole = lo == stickStart && hi == stickStart + stickBytes;
  uint8_t *dst = whole ? deviceOut + (lo - skipBytes) : scratch;
  std::memset(dst + valid * elementBytes_, 0,
              stickBytes - valid * elementBytes_);
  if (valid)
    convertRun<true>(storage_, dtype_, elementBytes_,
                     hostIn + hostBase * elementBytes_, nullptr, hostStep,
                     nullptr, dst, valid);
  if (!whole)
    std::memcpy(deviceOut + (lo - skipBytes), scratch + (lo - stickStart),
                hi - lo);
}

template <bool ToDevice>
void LayoutMap::convertSticks(const uint8_t *hostIn, uint8_t *hostOut,
                              const uint8_t *deviceIn, uint8_t *deviceOut,
                              uint64_t firstStick, uint64_t numSticks,
                              uint64_t skipBytes, uint64_t keepBytes) const {
  // Walks sticks firstStick .. firstStick + numSticks - 1 of the image with an
  // odometer over the device dimensions but the last. For ToDevice,
  // `deviceOut` receives bytes [skipBytes, skipBytes + keepBytes) of that run
  // of sticks (so that ranges need not start or end on a stick).
  if (numSticks == 0)
    return;
  uint64_t stickBytes = this->stickBytes();
  int32_t stickDim = layout_.stickDim;
  uint64_t prefix[kMaxRank] = {};
  stickIndex(firstStick, prefix);
  std::vector<uint8_t> scratch(ToDevice ? stickBytes : 0);
  uint64_t hostStep = stickDim >= 0 ? hostStrides_[size_t(stickDim)] : 1;
  for (uint64_t s = 0; s < numSticks; ++s) {
    uint64_t valid;
    uint64_t hostBase = locateStick(prefix, valid);
    uint64_t stickStart = s * stickBytes;
    if (ToDevice)
      stickToDevice(hostIn, hostBase, hostStep, valid, stickStart, skipBytes,
                    keepBytes, deviceOut, scratch.data());
    else if (valid)
      convertRun<false>(storage_, dtype_, elementBytes_, nullptr,
                        hostOut + hostBase * elementBytes_, hostStep,
                        deviceIn + stickStart, nullptr, valid);
    advanceStick(prefix);
  }
}

void LayoutMap::hostToDevice(const void *host, void *device) const {
  hostToDeviceRange(host, 0, deviceBytes_, device);
}

void LayoutMap::hostToDeviceRange(const void *host, uint64_t offset,
                                  uint64_t size, void *out) const {
  if (size == 0)
    return;
  uint64_t stickBytes = uint64_t(layout_.elemsPerStick) * elementBytes_;
  uint64_t firstStick = offset / stickBytes;
  uint64_t lastStick = (offset + size - 1) / stickBytes;
  convertSticks<true>(static_cast<const uint8_t *>(host), nullptr, nullptr,
                      static_cast<uint8_t *>(out), firstStick,
                      lastStick - firstStick + 1,
                      offset - firstStick * stickBytes, size);
}

uint64_t LayoutMap::stickBytes() const {
  return uint64_t(layout_.elemsPerStick) * elementBytes_;
}

void LayoutMap::deviceToHost(const void *device, void *host) const {
  uint64_t numSticks = stickBytes() ? deviceBytes_ / stickBytes() : 0;
  deviceSticksToHost(device, 0, numSticks, host);
}

void LayoutMap::deviceSticksToHost(const void *device, uint64_t firstStick,
                                   uint64_t numSticks, void *host) const {
  convertSticks<false>(nullptr, static_cast<uint8_t *>(host),
                       static_cast<const uint8_t *>(device), nullptr,
                       firstStick, numSticks, 0, 0);
}

} // namespace spyre::spy
