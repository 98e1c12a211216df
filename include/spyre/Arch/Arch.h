//===- Arch.h - The Spyre machine description -------------------*- C++ -*-===//
//
// The single source of truth for hardware facts (DESIGN.md section 3). Every
// cost model, verifier, the emitter and the simulator read their numbers from
// an `Arch`; nothing else in the project hard-codes a hardware number.
//
// This library has no LLVM/MLIR dependency so that the runtime can use it too.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_ARCH_ARCH_H
#define SPYRE_ARCH_ARCH_H

#include <cstdint>
#include <string>

namespace spyre {

/// X-macro listing every field of the machine description once:
/// X(cppType, member, "json_key", description). The JSON reader, the hash,
/// the MLIR `#spyre.arch` attribute and the docs all expand this list.
#define SPYRE_ARCH_INT_FIELDS(X)                                               \
  X(int64_t, cores, "cores", "cores on the ring")                              \
  X(int64_t, coreletsPerCore, "corelets_per_core", "corelets per core")        \
  X(int64_t, ptRows, "pt_rows", "systolic array rows per corelet")             \
  X(int64_t, ptCols, "pt_cols", "systolic array columns per corelet")          \
  X(int64_t, ptSimd, "pt_simd", "SIMD width of each systolic cell")            \
  X(int64_t, sfpLanesPerCore, "sfp_lanes_per_core",                            \
    "vector (SFP) element operations per cycle per core")                      \
  X(int64_t, sfpComplexOpPasses, "sfp_complex_op_passes",                      \
    "SFP passes for a transcendental op (exp, tanh, ...) vs 1 for simple")     \
  X(int64_t, lxBytes, "lx_bytes", "scratchpad (LX) bytes per core")            \
  X(int64_t, lxAlignment, "lx_alignment", "LX buffer alignment in bytes")      \
  X(int64_t, stickBytes, "stick_bytes", "bytes in one stick")                  \
  X(int64_t, ringBytesPerCycle, "ring_bytes_per_cycle",                        \
    "bytes per ring cycle per link per direction")                             \
  X(int64_t, ringHopLatencyCycles, "ring_hop_latency_cycles",                  \
    "ring cycles per hop")                                                     \
  X(int64_t, psumRingBytesPerCycle, "psum_ring_bytes_per_cycle",               \
    "bytes per core cycle per link of each partial-sum ring")                  \
  X(int64_t, memoryBytes, "memory_bytes", "device memory bytes")               \
  X(int64_t, memoryBytesPerCycle, "memory_bytes_per_cycle",                    \
    "device memory bytes per memory cycle (peak)")                             \
  X(int64_t, memoryLatencyNs, "memory_latency_ns",                             \
    "latency of one device memory access")                                     \
  X(int64_t, memorySetupNs, "memory_setup_ns",                                 \
    "memory node time per transfer besides its bytes (request setup)")         \
  X(int64_t, memoryTurnaroundNs, "memory_turnaround_ns",                       \
    "memory node time to switch between reading and writing")                  \
  X(int64_t, memoryBurstBytes, "memory_burst_bytes",                           \
    "device memory access granularity: a transfer pays the bursts it touches") \
  X(int64_t, memoryRingPosition, "memory_ring_position",                       \
    "ring position of the memory node (cores occupy 0..cores-1)")              \
  X(int64_t, maxSpanPerCoreBytes, "max_span_per_core_bytes",                   \
    "largest span of one tensor a core may address")                           \
  X(int64_t, launchOverheadNs, "launch_overhead_ns",                           \
    "fixed cost of one program launch")                                        \
  X(int64_t, barrierLatencyNs, "barrier_latency_ns",                           \
    "cost of the all-core barrier between kernels")                            \
  X(int64_t, kernelSyncNs, "kernel_sync_ns",                                   \
    "fixed start and completion synchronization inside every kernel")          \
  X(int64_t, coreSyncNs, "core_sync_ns",                                       \
    "synchronization inside a kernel per core it runs on")                     \
  X(int64_t, pcieLatencyNs, "pcie_latency_ns",                                 \
    "fixed cost of one host<->device transfer over PCIe")

#define SPYRE_ARCH_FLOAT_FIELDS(X)                                             \
  X(double, coreClockHz, "core_clock_hz", "core clock (PT, SFP, LX)")          \
  X(double, lxReservedFraction, "lx_reserved_fraction",                        \
    "fraction of LX reserved (not allocatable)")                               \
  X(double, ringClockHz, "ring_clock_hz", "ring clock")                        \
  X(double, memoryClockHz, "memory_clock_hz", "device memory clock")           \
  X(double, memoryEfficiency, "memory_efficiency",                             \
    "sustained read / peak device memory bandwidth")                           \
  X(double, memoryWriteEfficiency, "memory_write_efficiency",                  \
    "sustained write / peak device memory bandwidth")                          \
  X(double, pcieBytesPerS, "pcie_bytes_per_s",                                 \
    "sustained host<->device bytes per second over PCIe, each direction")

#define SPYRE_ARCH_STRING_FIELDS(X)                                            \
  X(std::string, name, "name", "name of this description")                     \
  X(std::string, fp16Storage, "fp16_storage",                                  \
    "storage format of fp16/bf16 in device memory and LX (dl16 or ieee)")

/// The machine description. Defaults are *not* set here: they come from
/// arch/spyre.json, compiled in as `Arch::builtinDefault()`.
struct Arch {
#define SPYRE_ARCH_DECLARE(type, member, key, doc) type member{};
  SPYRE_ARCH_INT_FIELDS(SPYRE_ARCH_DECLARE)
  SPYRE_ARCH_FLOAT_FIELDS(SPYRE_ARCH_DECLARE)
  SPYRE_ARCH_STRING_FIELDS(SPYRE_ARCH_DECLARE)
#undef SPYRE_ARCH_DECLARE

  /// Parses a JSON machine description. Every field must be present (a
  /// description that omits one is almost always stale). On failure returns
  /// false and sets `error`.
  static bool parse(const std::string &jsonText, Arch &out, std::string &error);
  /// Reads and parses a file.
  static bool load(const std::string &path, Arch &out, std::string &error);
  /// The description compiled in from arch/spyre.json.
  static const Arch &builtinDefault();
  /// The text of arch/spyre.json as compiled in.
  static const char *builtinDefaultJson();

  /// Canonical JSON (sorted keys, fixed formatting) and its 64-bit FNV-1a
  /// hash; the hash is stamped into every .spy and checked by the runtime.
  std::string canonicalJson() const;
  uint64_t hash() const;

  /// Checks internal consistency (positive sizes, alignment divides LX...).
  bool validate(std::string &error) const;

  //===--- Derived quantities (all cost models use these) -----------------===//

  /// Multiply-accumulates per core per core cycle.
  int64_t macsPerCycle() const {
    return coreletsPerCore * ptRows * ptCols * ptSimd;
  }
  /// Peak floating point operations per second (2 per MAC) of the device.
  double peakFlops() const {
    return 2.0 * double(macsPerCycle()) * double(cores) * coreClockHz;
  }
  /// Sustained device memory read bandwidth in bytes/s.
  double memoryReadBandwidth() const {
    return double(memoryBytesPerCycle) * memoryClockHz * memoryEfficiency;
  }
  /// Sustained device memory write bandwidth in bytes/s.
  double memoryWriteBandwidth() const {
    return double(memoryBytesPerCycle) * memoryClockHz * memoryWriteEfficiency;
  }
  /// The memory floor of reading `readBytes` and writing `writtenBytes`:
  /// each at its sustained bandwidth, one after the other (one memory
  /// node serves both), in nanoseconds. Every roofline uses it.
  double memoryFloorNs(double readBytes, double writtenBytes) const {
    return (readBytes / memoryReadBandwidth() +
            writtenBytes / memoryWriteBandwidth()) *
           1e9;
  }
  /// The synchronization inside a kernel on `numCores` cores: what a
  /// kernel costs beyond its instructions.
  double syncNs(int64_t numCores) const {
    return double(kernelSyncNs) + double(coreSyncNs) * double(numCores);
  }
  /// Peak device memory bandwidth in bytes/s.
  double memoryPeakBandwidth() const {
    return double(memoryBytesPerCycle) * memoryClockHz;
  }
  /// Bandwidth of one ring link in one direction, bytes/s.
  double ringLinkBandwidth() const {
    return double(ringBytesPerCycle) * ringClockHz;
  }
  /// Bandwidth of one partial-sum ring link (one ring per direction, at
  /// the core clock), bytes/s.
  double psumLinkBandwidth() const {
    return double(psumRingBytesPerCycle) * coreClockHz;
  }
  /// Latency of `hops` hops on a partial-sum ring (the data ring's hop
  /// latency in core cycles), nanoseconds.
  double psumHopsNs(int64_t hops) const {
    return coreCyclesToNs(double(hops * ringHopLatencyCycles));
  }
  /// Bytes of LX a compiler may allocate per core, aligned down.
  int64_t usableLxBytes() const;
  /// Elements of `elementBytes` bytes in one stick.
  int64_t elementsPerStick(int64_t elementBytes) const {
    return stickBytes / elementBytes;
  }
  /// Ring hops between two ring positions (shortest direction).
  int64_t ringHops(int64_t a, int64_t b) const;
  /// Nanoseconds for `cycles` core cycles.
  double coreCyclesToNs(double cycles) const {
    return cycles * 1e9 / coreClockHz;
  }
};

} // namespace spyre

#endif // SPYRE_ARCH_ARCH_H
