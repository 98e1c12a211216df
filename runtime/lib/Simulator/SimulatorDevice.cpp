//===- SimulatorDevice.cpp - The reference device -------------------------===//

#include "spyre/Runtime/SimulatorDevice.h"

#include "DecodedProgram.h"
#include "Engine.h"
#include "SimulatorImpl.h"

#include <algorithm>
#include <fstream>
#include <new>
#include <unistd.h>

namespace spyre::rt {

namespace {

/// Addresses below this are never allocated, so that an unrelocated address
/// (0 plus small offsets) faults instead of hitting a tensor.
uint64_t firstAddress(const Arch &arch) {
  uint64_t reserved = sim::SparseMemory::kPageBytes;
  uint64_t limit = uint64_t(arch.memoryBytes) / 16;
  reserved = std::min(reserved, limit);
  return std::max<uint64_t>(reserved, uint64_t(arch.stickBytes));
}

/// The running totals of `s` (no per-kernel list), to diff around a step.
SimStats countersOf(const SimStats &s) {
  SimStats c;
  c.cores = s.cores;
  c.bytesRead = s.bytesRead;
  c.bytesWritten = s.bytesWritten;
  c.ringBytes = s.ringBytes;
  c.macs = s.macs;
  c.instructions = s.instructions;
  return c;
}

/// What one step added to the totals.
KernelStats stepStats(const SimStats &before, const SimStats &after) {
  KernelStats k;
  k.instructions = after.instructions - before.instructions;
  k.bytesRead = after.bytesRead - before.bytesRead;
  k.bytesWritten = after.bytesWritten - before.bytesWritten;
  k.ringBytes = after.ringBytes - before.ringBytes;
  k.macs = after.macs - before.macs;
  for (size_t c = 0; c < after.cores.size(); ++c) {
    const CoreStats &a = after.cores[c];
    CoreStats b = c < before.cores.size() ? before.cores[c] : CoreStats();
    k.busy.dmaBusyPs += a.dmaBusyPs - b.dmaBusyPs;
    k.busy.ptBusyPs += a.ptBusyPs - b.ptBusyPs;
    k.busy.sfpBusyPs += a.sfpBusyPs - b.sfpBusyPs;
    k.busy.ringBusyPs += a.ringBusyPs - b.ringBusyPs;
    k.busy.instructions += a.instructions - b.instructions;
  }
  return k;
}

} // namespace

Device::~Device() = default;

Status Device::copy(DeviceAddr dst, DeviceAddr src, uint64_t size) {
  if (!holdsData() || size == 0)
    return Status::success();
  std::vector<uint8_t> staging(size);
  SPYRE_RETURN_IF_ERROR(read(src, staging.data(), size));
  return write(dst, staging.data(), size);
}

SimulatorDevice::Impl::Impl(const Arch &arch, const SimOptions &options)
    : arch(arch), options(options), timing(arch),
      allocator(firstAddress(arch), uint64_t(arch.memoryBytes)),
      trace(options.trace ? options.traceMaxEvents : 0) {
  lxMemory.resize(size_t(arch.cores));
  stats.cores.resize(size_t(arch.cores));
  uint64_t limit = options.maxHostMemoryBytes;
  if (!limit) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    limit = pages > 0 && page > 0 ? uint64_t(pages) / 4 * 3 * uint64_t(page)
                                  : UINT64_MAX;
  }
  memory.setLimit(limit);
}

Status SimulatorDevice::Impl::outOfHostMemory(const std::string &what) const {
  return Status::error(
      StatusCode::OutOfMemory,
      "host memory exhausted " + what + " (simulated device memory holds " +
          std::to_string(memory.residentBytes()) + " bytes of host memory, " +
          "at most " + std::to_string(memory.limit()) +
          ": SimOptions::maxHostMemoryBytes)");
}

uint8_t *SimulatorDevice::Impl::lx(uint32_t core) {
  std::vector<uint8_t> &m = lxMemory[core];
  if (m.empty())
    m.assign(size_t(arch.lxBytes), 0);
  return m.data();
}

SimulatorDevice::SimulatorDevice(const Arch &arch, SimOptions options)
    : impl_(std::make_unique<Impl>(arch, options)) {}

SimulatorDevice::~SimulatorDevice() = default;

const Arch &SimulatorDevice::arch() const { return impl_->arch; }
const SimOptions &SimulatorDevice::options() const { return impl_->options; }
const SimStats &SimulatorDevice::stats() const { return impl_->stats; }
bool SimulatorDevice::holdsData() const { return !impl_->options.timingOnly; }
uint64_t SimulatorDevice::residentBytes() const {
  return impl_->memory.residentBytes();
}

uint64_t SimulatorDevice::clockPs() const { return impl_->nowPs; }

void SimulatorDevice::idleUntil(uint64_t ps) {
  impl_->nowPs = std::max(impl_->nowPs, ps);
}

void SimulatorDevice::traceSpan(const std::string &track,
                                const std::string &name, uint64_t startPs,
                                uint64_t endPs) {
  if (impl_->options.trace)
    impl_->trace.addHostSpan(track, name, startPs, endPs);
}

void SimulatorDevice::resetStats() {
  impl_->stats = SimStats();
  impl_->stats.cores.resize(size_t(impl_->arch.cores));
  impl_->trace.clear();
}

Status SimulatorDevice::allocate(uint64_t size, uint64_t alignment,
                                 MemoryKind kind, DeviceAddr &out) {
  if (alignment == 0 || (alignment & (alignment - 1)))
    return invalidArgument("alignment " + std::to_string(alignment) +
                           " is not a power of two");
  if (!impl_->allocator.allocate(size, alignment, kind, out))
    return Status::error(StatusCode::OutOfMemory,
                         "device memory exhausted: cannot allocate " +
                             std::to_string(size) + " bytes (" +
                             std::to_string(impl_->allocator.allocatedBytes()) +
                             " of " + std::to_string(impl_->arch.memoryBytes) +
                             " bytes in use)");
  return Status::success();
}

Status SimulatorDevice::free(DeviceAddr addr) {
  sim::Allocation freed;
  if (!impl_->allocator.free(addr, freed))
    return invalidArgument("free of device address " + std::to_string(addr) +
                           " that is not an allocation");
  impl_->memory.clear(freed.base, freed.size);
  return Status::success();
}

Status SimulatorDevice::write(DeviceAddr dst, const void *src, uint64_t size) {
  if (size == 0)
    return Status::success();
  const sim::Allocation *a = impl_->allocator.find(dst, size);
  if (!a)
    return invalidArgument("device write of " + std::to_string(size) +
                           " bytes at " + std::to_string(dst) +
                           " is not inside one allocation");
  if (impl_->options.timingOnly && a->kind == MemoryKind::Data)
    return Status::success();
  try {
    impl_->memory.write(dst, src, size);
  } catch (const std::bad_alloc &) {
    return impl_->outOfHostMemory("by a write to device memory");
  }
  return Status::success();
}

Status SimulatorDevice::read(DeviceAddr src, void *dst, uint64_t size) {
  if (size == 0)
    return Status::success();
  if (!impl_->allocator.find(src, size))
    return invalidArgument("device read of " + std::to_string(size) +
                           " bytes at " + std::to_string(src) +
                           " is not inside one allocation");
  impl_->memory.read(src, dst, size);
  return Status::success();
}

Status SimulatorDevice::copy(DeviceAddr dst, DeviceAddr src, uint64_t size) {
  if (size == 0)
    return Status::success();
  const sim::Allocation *to = impl_->allocator.find(dst, size);
  if (!to || !impl_->allocator.find(src, size))
    return invalidArgument("device copy of " + std::to_string(size) +
                           " bytes from " + std::to_string(src) + " to " +
                           std::to_string(dst) +
                           " is not inside two allocations");
  if (impl_->options.timingOnly && to->kind == MemoryKind::Data)
    return Status::success();
  try {
    impl_->memory.copy(dst, src, size);
  } catch (const std::bad_alloc &) {
    return impl_->outOfHostMemory("by a copy in device memory");
  }
  return Status::success();
}

namespace {

/// Checks a step's core count and parameter table against the device, and
/// that its program image lies in one allocation.
Status checkStep(SimulatorDevice::Impl &d, const StepRequest &step,
                 const std::string &label) {
  if (step.numCores < 1 || step.numCores > uint64_t(d.arch.cores))
    return invalidArgument(label + ": " + std::to_string(step.numCores) +
                           " cores requested, the device has " +
                           std::to_string(d.arch.cores));
  if (step.numParams >= isa::kNone)
    return invalidArgument(label + ": too many parameters");
  if (step.numParams && !step.params)
    return invalidArgument(label + ": missing parameter table");
  uint64_t bytes = uint64_t(step.numInsts) * isa::kInstBytes;
  if (bytes && !d.allocator.find(step.code, bytes))
    return invalidArgument(label + ": program image is not inside one "
                                   "allocation");
  return Status::success();
}

/// Reads a step's program image from device memory into `image` and
/// decodes it into `program`.
Status decodeStep(SimulatorDevice::Impl &d, const StepRequest &step,
                  const std::string &label, std::vector<uint8_t> &image,
                  sim::DecodedProgram &program) {
  uint64_t bytes = uint64_t(step.numInsts) * isa::kInstBytes;
  image.resize(bytes);
  d.memory.read(step.code, image.data(), bytes);
  std::string error;
  if (!sim::DecodedProgram::decode(image.data(), step.numInsts, step.numCores,
                                   step.numParams, d.arch, program, error))
    return deviceError(label + ": invalid program: " + error);
  return Status::success();
}

/// Simulates one decoded step from d.nowPs (its synchronization, then its
/// instructions), traces it and records its kernel statistics; d.nowPs
/// moves to its end.
Status simulateStep(SimulatorDevice::Impl &d, const StepRequest &step,
                    const std::string &name, const std::vector<uint8_t> &image,
                    const sim::DecodedProgram &program) {
  StepRequest named = step;
  named.name = name.c_str();
  uint32_t traceStep = 0;
  if (d.options.trace)
    traceStep =
        d.trace.addStep(name, image.data(), step.numInsts, d.nowPs, d.nowPs);
  SimStats before = countersOf(d.stats);
  // The cores start once the kernel's synchronization is done.
  uint64_t begin = d.nowPs + d.timing.kernelSyncPs(step.numCores);
  uint64_t end = begin;
  Status s = sim::runStep(d, named, program, traceStep, begin, end);
  if (!s.ok())
    return s;
  if (d.options.trace)
    d.trace.setStepEnd(traceStep, end);
  KernelStats k = stepStats(before, d.stats);
  k.name = name;
  k.startPs = d.nowPs;
  k.durationPs = end - d.nowPs;
  k.numCores = step.numCores;
  d.stats.kernels.push_back(std::move(k));
  d.nowPs = end;
  return Status::success();
}

} // namespace

Status SimulatorDevice::launch(const StepRequest *steps, size_t numSteps) {
  Impl &d = *impl_;
  try {
    uint64_t launchStart = d.nowPs;
    d.launchInstructions = d.launchWork = 0;
    d.nowPs += d.timing.launchOverheadPs();
    ++d.stats.launches;
    sim::DecodedProgram program;
    std::vector<uint8_t> image;
    for (size_t i = 0; i < numSteps; ++i) {
      const StepRequest &step = steps[i];
      std::string name = step.name ? step.name : "";
      std::string label = "step " + std::to_string(i) + " ('" + name + "')";
      SPYRE_RETURN_IF_ERROR(checkStep(d, step, label));
      SPYRE_RETURN_IF_ERROR(decodeStep(d, step, label, image, program));
      SPYRE_RETURN_IF_ERROR(simulateStep(d, step, name, image, program));
      if (i + 1 < numSteps)
        d.nowPs += d.timing.barrierPs();
    }
    d.stats.totalPs += d.nowPs - launchStart;
    d.stats.launchPs.push_back(d.nowPs - launchStart);
    d.stats.droppedTraceEvents = d.trace.dropped();
  } catch (const std::bad_alloc &) {
    return d.outOfHostMemory("while simulating");
  }
  return Status::success();
}

Status SimulatorDevice::writeTrace(std::ostream &os) const {
  impl_->trace.write(os, uint32_t(impl_->arch.cores));
  if (!os)
    return Status::error(StatusCode::IoError, "cannot write the trace");
  return Status::success();
}

Status SimulatorDevice::writeTrace(const std::string &path) const {
  std::ofstream os(path, std::ios::binary);
  if (!os)
    return Status::error(StatusCode::IoError,
                         "cannot create trace file '" + path + "'");
  Status s = writeTrace(os);
  return s.withContext(path);
}

Status SimulatorDevice::readLx(uint32_t core, uint64_t offset, void *dst,
                               uint64_t size) {
  if (impl_->options.timingOnly)
    return invalidArgument("a timing-only simulator keeps no LX contents");
  if (core >= uint64_t(impl_->arch.cores) ||
      offset > uint64_t(impl_->arch.lxBytes) ||
      size > uint64_t(impl_->arch.lxBytes) - offset)
    return invalidArgument("LX range outside the scratchpad");
  std::copy_n(impl_->lx(core) + offset, size, static_cast<uint8_t *>(dst));
  return Status::success();
}

Status SimulatorDevice::writeLx(uint32_t core, uint64_t offset, const void *src,
                                uint64_t size) {
  if (impl_->options.timingOnly)
    return invalidArgument("a timing-only simulator keeps no LX contents");
  if (core >= uint64_t(impl_->arch.cores) ||
      offset > uint64_t(impl_->arch.lxBytes) ||
      size > uint64_t(impl_->arch.lxBytes) - offset)
    return invalidArgument("LX range outside the scratchpad");
  std::copy_n(static_cast<const uint8_t *>(src), size,
              impl_->lx(core) + offset);
  return Status::success();
}

} // namespace spyre::rt
