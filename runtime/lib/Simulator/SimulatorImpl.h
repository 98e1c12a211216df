//===- SimulatorImpl.h - State of a SimulatorDevice -------------*- C++ -*-===//

#ifndef SPYRE_RUNTIME_SIMULATOR_SIMULATORIMPL_H
#define SPYRE_RUNTIME_SIMULATOR_SIMULATORIMPL_H

#include "DeviceAllocator.h"
#include "Kernels.h"
#include "SparseMemory.h"
#include "Timing.h"
#include "Trace.h"
#include "spyre/Runtime/SimulatorDevice.h"

#include <vector>

namespace spyre::rt {

struct SimulatorDevice::Impl {
  Impl(const Arch &arch, const SimOptions &options);

  /// The LX of `core` (allocated on first use; functional mode only).
  uint8_t *lx(uint32_t core);
  /// The OutOfMemory status of a failed host allocation, with the figures.
  Status outOfHostMemory(const std::string &what) const;

  Arch arch;
  SimOptions options;
  sim::Timing timing;
  sim::SparseMemory memory;
  sim::DeviceAllocator allocator;
  std::vector<std::vector<uint8_t>> lxMemory;
  SimStats stats;
  sim::TraceRecorder trace;
  sim::Scratch scratch;
  /// Simulated device time (ps).
  uint64_t nowPs = 0;
  /// Dynamic instructions and functional work (SimOptions) of the launch
  /// being simulated.
  uint64_t launchInstructions = 0, launchWork = 0;
};

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_SIMULATOR_SIMULATORIMPL_H
