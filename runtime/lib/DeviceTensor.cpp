//===- DeviceTensor.cpp - A tensor that lives in device memory ------------===//

#include "spyre/Runtime/DeviceTensor.h"

#include "spyre/Runtime/Session.h"
#include "spyre/Runtime/Transfer.h"

namespace spyre::rt {
namespace {

std::string listText(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

/// "f16 [32, 128], sticks on dim 1, order [0, 1], padded [32, 128]".
std::string describeType(const TensorInfo &t) {
  const spy::TensorLayout &l = t.layout;
  return describeTensor(t.dtype, t.shape) + ", sticks on dim " +
         std::to_string(l.stickDim) + ", order " +
         listText({l.dimOrder.begin(), l.dimOrder.end()}) + ", padded " +
         listText(l.paddedShape);
}

} // namespace

Status DeviceTensor::create(Device &device, const TensorInfo &like,
                            std::shared_ptr<DeviceTensor> &out) {
  DeviceAddr addr;
  SPYRE_RETURN_IF_ERROR(
      device.allocate(like.size, like.alignment, MemoryKind::Data, addr)
          .withContext("allocating a device tensor for '" + like.displayName() +
                       "'"));
  out = adopt(device, like, addr);
  return Status::success();
}

std::shared_ptr<DeviceTensor>
DeviceTensor::adopt(Device &device, const TensorInfo &like, DeviceAddr addr) {
  return std::shared_ptr<DeviceTensor>(new DeviceTensor(device, like, addr));
}

DeviceTensor::~DeviceTensor() { (void)device_.free(address_); }

Status DeviceTensor::upload(const void *host, uint64_t size) {
  return copyToDevice(device_, info_, host, size, address_);
}

Status DeviceTensor::download(void *host, uint64_t size) const {
  return copyFromDevice(device_, info_, address_, host, size);
}

Status DeviceTensor::checkFits(const TensorInfo &t,
                               const std::string &what) const {
  if (info_.dtype == t.dtype && info_.shape == t.shape &&
      info_.layout == t.layout)
    return Status::success();
  return invalidArgument(what + " is " + describeType(t) +
                         "; the device tensor ('" + info_.displayName() +
                         "') is " + describeType(info_));
}

} // namespace spyre::rt
