//===- Device.h - The device interface of the runtime -----------*- C++ -*-===//
//
// What the runtime needs from a Spyre device: device memory (allocate, free,
// write, read) and running a launch plan (a list of program steps). The
// reference implementation is the simulator (SimulatorDevice.h); a hardware
// backend is one more implementation.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_DEVICE_H
#define SPYRE_RUNTIME_DEVICE_H

#include "spyre/Runtime/Status.h"

#include <cstddef>
#include <cstdint>

namespace spyre {
struct Arch;
} // namespace spyre

namespace spyre::rt {

/// A device memory address. 0 is never a valid allocation.
using DeviceAddr = uint64_t;

/// What an allocation holds. Devices may treat program images specially (the
/// simulator's timing-only mode keeps code but drops data contents).
enum class MemoryKind : uint8_t {
  Data = 0,
  Code = 1,
};

/// One step of a launch plan: run the program whose instruction image is at
/// `code` on cores 0..numCores-1, core c reading its parameters from
/// params[c * numParams .. c * numParams + numParams - 1].
/// Device bytes [lo, hi).
struct DeviceRange {
  DeviceAddr lo = 0, hi = 0;
};

struct StepRequest {
  /// Kernel name for statistics and traces; must outlive the call.
  const char *name = "";
  DeviceAddr code = 0;
  uint32_t numInsts = 0;
  uint32_t numCores = 1;
  uint32_t numParams = 0;
  /// numCores * numParams values, core-major; must outlive the call.
  const int64_t *params = nullptr;
  /// numInsts entries, or null: the device memory instruction i may touch
  /// (the tensor its relocation names; an empty range: none). A device
  /// enforces it at run time; without it, an access must lie inside one
  /// allocation. Must outlive the call.
  const DeviceRange *confine = nullptr;
};

/// A device. Not thread-safe: one caller at a time.
class Device {
public:
  virtual ~Device();

  /// The machine description of this device.
  virtual const Arch &arch() const = 0;

  /// Allocates `size` bytes aligned to `alignment` (a power of two).
  virtual Status allocate(uint64_t size, uint64_t alignment, MemoryKind kind,
                          DeviceAddr &out) = 0;
  /// Frees an allocation made by allocate().
  virtual Status free(DeviceAddr addr) = 0;
  /// Copies host bytes to device memory (inside one allocation).
  virtual Status write(DeviceAddr dst, const void *src, uint64_t size) = 0;
  /// Copies device memory (inside one allocation) to the host.
  virtual Status read(DeviceAddr src, void *dst, uint64_t size) = 0;
  /// Copies device memory to device memory (default: through the host).
  virtual Status copy(DeviceAddr dst, DeviceAddr src, uint64_t size);

  /// Runs one launch of a plan: the steps one after the other, all cores
  /// meeting at a barrier between two steps.
  virtual Status launch(const StepRequest *steps, size_t numSteps) = 0;

  /// Whether device memory holds data (false for a timing-only simulator,
  /// where copying tensors in and out is pointless).
  virtual bool holdsData() const { return true; }
};

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_DEVICE_H
