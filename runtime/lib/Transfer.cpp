//===- Transfer.cpp - Host tensors in and out of device layout ------------===//

#include "spyre/Runtime/Transfer.h"

#include "spyre/Arch/Arch.h"

#include <algorithm>
#include <new>
#include <vector>

namespace spyre::rt {

namespace {

/// Device bytes converted per write (bounds the temporary buffer).
constexpr uint64_t kChunkBytes = uint64_t(16) << 20;

Status makeMap(Device &device, const TensorInfo &tensor, uint64_t size,
               spy::LayoutMap &map) {
  std::string error;
  if (!spy::LayoutMap::create(tensor.dtype, tensor.shape, tensor.layout,
                              device.arch(), map, error))
    return invalidArgument("tensor '" + tensor.name + "': " + error);
  if (size != map.hostBytes())
    return invalidArgument("tensor '" + tensor.name + "': host buffer of " +
                           std::to_string(size) + " bytes, expected " +
                           std::to_string(map.hostBytes()));
  return Status::success();
}

} // namespace

uint64_t hostBytes(const TensorInfo &tensor) {
  uint64_t n = isa::dtypeBytes(tensor.dtype);
  for (int64_t d : tensor.shape)
    n *= uint64_t(d);
  return n;
}

Status copyToDevice(Device &device, const TensorInfo &tensor, const void *host,
                    uint64_t size, DeviceAddr dst) {
  if (!device.holdsData())
    return Status::success();
  spy::LayoutMap map;
  SPYRE_RETURN_IF_ERROR(makeMap(device, tensor, size, map));
  try {
    uint64_t total = map.deviceBytes();
    std::vector<uint8_t> chunk(size_t(std::min(total, kChunkBytes)));
    for (uint64_t off = 0; off < total; off += kChunkBytes) {
      uint64_t n = std::min(total - off, kChunkBytes);
      map.hostToDeviceRange(host, off, n, chunk.data());
      SPYRE_RETURN_IF_ERROR(device.write(dst + off, chunk.data(), n));
    }
  } catch (const std::bad_alloc &) {
    return Status::error(StatusCode::OutOfMemory, "out of host memory");
  }
  return Status::success();
}

Status copyFromDevice(Device &device, const TensorInfo &tensor, DeviceAddr src,
                      void *host, uint64_t size) {
  if (!device.holdsData())
    return Status::success();
  spy::LayoutMap map;
  SPYRE_RETURN_IF_ERROR(makeMap(device, tensor, size, map));
  try {
    // Whole sticks at a time, so that host memory stays at one chunk
    // whatever the image (a [291M, 3] f32 output has a 37 GB image).
    uint64_t stick = map.stickBytes();
    uint64_t total = map.deviceBytes();
    uint64_t chunkBytes = std::max(stick, kChunkBytes / stick * stick);
    std::vector<uint8_t> chunk(size_t(std::min(total, chunkBytes)));
    for (uint64_t off = 0; off < total; off += chunkBytes) {
      uint64_t n = std::min(total - off, chunkBytes);
      SPYRE_RETURN_IF_ERROR(device.read(src + off, chunk.data(), n));
      map.deviceSticksToHost(chunk.data(), off / stick, n / stick, host);
    }
  } catch (const std::bad_alloc &) {
    return Status::error(StatusCode::OutOfMemory, "out of host memory");
  }
  return Status::success();
}

} // namespace spyre::rt
