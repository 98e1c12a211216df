//===- Transfer.h - Host tensors in and out of device layout ----*- C++ -*-===//
//
// Copies between a row-major host buffer (F16 as IEEE half, BF16 as bfloat16
// bits, others as their C types) and a device buffer holding the tensor in
// its stick layout (spyre/Spy/Layout.h). On a device that holds no data
// (timing-only simulator) both are no-ops.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_TRANSFER_H
#define SPYRE_RUNTIME_TRANSFER_H

#include "spyre/Runtime/Device.h"
#include "spyre/Runtime/Model.h"

namespace spyre::rt {

/// Bytes of the row-major host buffer of a tensor.
uint64_t hostBytes(const TensorInfo &tensor);

/// Converts `host` (hostBytes(tensor) bytes) to device layout into `dst`.
Status copyToDevice(Device &device, const TensorInfo &tensor, const void *host,
                    uint64_t size, DeviceAddr dst);

/// Converts the device image at `src` back into `host` (hostBytes bytes).
Status copyFromDevice(Device &device, const TensorInfo &tensor, DeviceAddr src,
                      void *host, uint64_t size);

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_TRANSFER_H
