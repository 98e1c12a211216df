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

Status copyToDevice(Device &device, const TensorInfo &tensor,
                    const void *host, uint64_t size, DeviceAddr dst) {
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

Status copyFromDevice(Device &device, const TensorInfo &tensor,
                      DeviceAddr src, void *host, uint64_t size) {
  if (!device.holdsData())
    return Status::success();
  spy::LayoutMap map;
  SPYRE_RETURN_IF_ERROR(makeMap(device, tensor, size, map));
  try {
    std::vector<uint8_t> image(size_t(map.deviceBytes()));
    SPYRE_RETURN_IF_ERROR(device.read(src, image.data(), image.size()));
    map.deviceToHost(image.data(), host);
  } catch (const std::bad_alloc &) {
    return Status::error(StatusCode::OutOfMemory, "out of host memory");
  }
  return Status::success();
}

} // namespace spyre::rt
