//===- SimulatorDevice.h - The reference device: a simulator ----*- C++ -*-===//
//
// A Device that executes programs on a model of the machine of DESIGN.md
// section 3 (all numbers from the Arch it is built with):
//
//  * device memory: the whole address space (memory_bytes), sparse: pages are
//    allocated when first written, unwritten memory reads as zero;
//  * `cores` cores, each with its own LX scratchpad (lx_bytes) that keeps its
//    contents across steps and launches;
//  * functional execution of every opcode of docs/isa.md (fp32 arithmetic,
//    DL16/fp16/bf16 storage conversions, integer ops in int64);
//  * a discrete-event timing model (docs/isa.md "Concurrency and hazards",
//    "Timing"; docs/runtime.md has the details): per core DMA, PT, SFP and
//    RING units with in-order queues, an LX scoreboard (RAW/WAR/WAW), the
//    memory node as a FIFO server at sustained bandwidth plus latency,
//    per-transfer ring link limit, ring links as shared resources, multicast
//    loads, a barrier between steps and a per-launch overhead.
//
// In timing-only mode data is neither computed nor stored (code is): models
// whose weights do not fit in host memory can be timed.
//
// Errors a program makes (LX or device memory out of bounds, a gather index
// out of range, a ring deadlock, a runaway loop) fail the launch with a
// message naming the program, core, instruction and loop iteration.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_SIMULATORDEVICE_H
#define SPYRE_RUNTIME_SIMULATORDEVICE_H

#include "spyre/Arch/Arch.h"
#include "spyre/Runtime/Device.h"

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace spyre::rt {

/// Options of a simulator.
struct SimOptions {
  /// Skip data: no computation, device memory and LX contents not kept.
  bool timingOnly = false;
  /// Record a Chrome trace (one event per instruction).
  bool trace = false;
  /// Trace events kept at most (later ones are counted, not recorded).
  uint64_t traceMaxEvents = 2000000;
  /// Dynamic instructions (and loop iterations) one step may execute, over
  /// all its cores, before it is stopped as a runaway program. A kernel of a
  /// real model runs far fewer (program size grows with kernels, not tiles,
  /// but a whole step of a large matmul is ~10^4..10^6); a hostile file is
  /// stopped in well under a minute.
  uint64_t maxInstructionsPerStep = uint64_t(1) << 28;
  /// Dynamic instructions of one launch (all its steps): a plan of many
  /// steps, each under the per-step limit, is stopped too.
  uint64_t maxInstructionsPerLaunch = uint64_t(1) << 32;
  /// Host work of functional simulation, in units of one multiply-
  /// accumulate, one SFP element or one byte moved by DMA or the ring. An
  /// instruction is not a unit of work: one matmul at pitch 0 repeats up to
  /// 3 * 10^9 MACs of LX, so a loop of them could run for days under the
  /// instruction limits. A real step stays far below (a 1024 x 4096 x 12800
  /// matmul is 5.4 * 10^10); the defaults stop a hostile file within about
  /// 15 s (step) and 1 min (launch) of host time at 5 GMAC/s.
  /// Timing-only simulation computes nothing and is bounded by the
  /// instruction limits alone.
  uint64_t maxWorkPerStep = uint64_t(1) << 36;
  uint64_t maxWorkPerLaunch = uint64_t(1) << 38;
  /// Host memory for the contents of device memory (allocated in 64 KiB
  /// pages as they are first written). 0: three quarters of the host's
  /// physical memory, so that a model whose writes outgrow the host (a
  /// 100 GiB workspace is valid on a 128 GiB device) fails with
  /// OutOfMemory instead of being killed by the kernel.
  uint64_t maxHostMemoryBytes = 0;
};

/// Busy time of one core's units, in picoseconds.
struct CoreStats {
  uint64_t dmaBusyPs = 0;
  uint64_t ptBusyPs = 0;
  uint64_t sfpBusyPs = 0;
  uint64_t ringBusyPs = 0;
  uint64_t instructions = 0;
};

/// One executed step (kernel).
struct KernelStats {
  std::string name;
  /// Device time at which the step started, and its duration (ps).
  uint64_t startPs = 0;
  uint64_t durationPs = 0;
  uint32_t numCores = 0;
  uint64_t instructions = 0;
  /// What the step moved and computed (as SimStats counts it).
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;
  uint64_t ringBytes = 0;
  uint64_t macs = 0;
  /// Busy time of each unit, summed over the step's cores (ps).
  CoreStats busy;
};

/// Accumulated statistics (since construction or resetStats()).
struct SimStats {
  /// Simulated device time: launch overheads, steps and barriers (ps).
  uint64_t totalPs = 0;
  /// The time of each launch (one per run of a model), in order (ps).
  std::vector<uint64_t> launchPs;
  std::vector<KernelStats> kernels;
  /// One entry per core of the device.
  std::vector<CoreStats> cores;
  /// Device memory bytes read and written by DMA (a multicast read counts
  /// once).
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;
  /// Payload bytes of ring transfers.
  uint64_t ringBytes = 0;
  /// Multiply-accumulates of PtMatmul, as requested (m*n*k) and as the
  /// systolic array executes them (padded to whole tiles).
  uint64_t macs = 0;
  uint64_t paddedMacs = 0;
  uint64_t launches = 0;
  uint64_t instructions = 0;
  /// Trace events that did not fit in SimOptions::traceMaxEvents.
  uint64_t droppedTraceEvents = 0;

  double totalNs() const { return double(totalPs) * 1e-3; }
};

/// The simulator. Not thread-safe.
class SimulatorDevice final : public Device {
public:
  explicit SimulatorDevice(const Arch &arch, SimOptions options = {});
  ~SimulatorDevice() override;
  SimulatorDevice(const SimulatorDevice &) = delete;
  SimulatorDevice &operator=(const SimulatorDevice &) = delete;

  const Arch &arch() const override;
  Status allocate(uint64_t size, uint64_t alignment, MemoryKind kind,
                  DeviceAddr &out) override;
  Status free(DeviceAddr addr) override;
  Status write(DeviceAddr dst, const void *src, uint64_t size) override;
  Status read(DeviceAddr src, void *dst, uint64_t size) override;
  Status copy(DeviceAddr dst, DeviceAddr src, uint64_t size) override;
  Status launch(const StepRequest *steps, size_t numSteps) override;
  bool holdsData() const override;

  const SimOptions &options() const;
  const SimStats &stats() const;
  void resetStats();
  /// The simulated clock (ps): where the next launch starts, launch spans
  /// and idle time included (stats().totalPs counts launches only).
  uint64_t clockPs() const;
  /// Idles the device until `ps` (no effect if the clock is past it): a
  /// launch that waits for a transfer (Streams.h) starts later.
  void idleUntil(uint64_t ps);
  /// Records a host-side span (a stream command, a PCIe transfer) on the
  /// trace track `track` (a no-op without tracing).
  void traceSpan(const std::string &track, const std::string &name,
                 uint64_t startPs, uint64_t endPs);
  /// Writes the recorded trace as Chrome trace JSON (loadable by Perfetto
  /// and chrome://tracing): one process per core, one thread per unit.
  Status writeTrace(std::ostream &os) const;
  Status writeTrace(const std::string &path) const;

  /// Direct access to a core's LX (tests, debugging).
  Status readLx(uint32_t core, uint64_t offset, void *dst, uint64_t size);
  Status writeLx(uint32_t core, uint64_t offset, const void *src,
                 uint64_t size);
  /// Host bytes held by device memory pages (how much of the sparse memory
  /// has been touched).
  uint64_t residentBytes() const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_SIMULATORDEVICE_H
