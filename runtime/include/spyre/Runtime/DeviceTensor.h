//===- DeviceTensor.h - A tensor that lives in device memory ----*- C++ -*-===//
//
// Device memory holding one tensor in a model tensor's stick layout, owned
// by whoever holds the shared_ptr: a caller passing it to launches as an
// input or output without copies (LoadedModel::launchTensors), or several
// loaded models sharing one buffer (a prefill and a decode model sharing a
// KV cache that stays on the device: LoadedModel::bindWeight). The memory
// is freed when the last owner lets go; the Device must outlive it.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_DEVICETENSOR_H
#define SPYRE_RUNTIME_DEVICETENSOR_H

#include "spyre/Runtime/Device.h"
#include "spyre/Runtime/Model.h"

#include <memory>

namespace spyre::rt {

class DeviceTensor {
public:
  /// Allocates a tensor of `like`'s dtype, shape and layout (contents
  /// undefined until written).
  static Status create(Device &device, const TensorInfo &like,
                       std::shared_ptr<DeviceTensor> &out);
  /// Takes ownership of `addr`, allocated on `device` for `like`.
  static std::shared_ptr<DeviceTensor>
  adopt(Device &device, const TensorInfo &like, DeviceAddr addr);
  ~DeviceTensor();
  DeviceTensor(const DeviceTensor &) = delete;
  DeviceTensor &operator=(const DeviceTensor &) = delete;

  Device &device() const { return device_; }
  DeviceAddr address() const { return address_; }
  /// Type and layout (the name is the tensor it was made for).
  const TensorInfo &info() const { return info_; }

  /// Writes a row-major host buffer (Transfer.h formats) in device layout.
  Status upload(const void *host, uint64_t size);
  /// Reads the tensor back into a row-major host buffer.
  Status download(void *host, uint64_t size) const;

  /// Succeeds when this tensor can stand for `t` (same device dtype, shape
  /// and stick layout); else an error naming `what` and both types.
  Status checkFits(const TensorInfo &t, const std::string &what) const;

private:
  DeviceTensor(Device &device, const TensorInfo &info, DeviceAddr addr)
      : device_(device), info_(info), address_(addr) {}
  Device &device_;
  TensorInfo info_;
  DeviceAddr address_;
};

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_DEVICETENSOR_H
