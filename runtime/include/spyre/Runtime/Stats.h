//===- Stats.h - Simulator statistics as JSON -------------------*- C++ -*-===//
//
// The statistics file of spyre-run (--stats), documented in docs/runtime.md:
//
//   { "arch": ..., "total_ns": ..., "roofline_ns": ..., "compute_floor_ns":
//     ..., "memory_floor_ns": ..., "launch_and_barriers_ns": ...,
//     "runs_ns": [...], "kernels": [{"name", "location", "module", "ns",
//     "start_ns", "cores", "instructions", "bytes_read", "bytes_written",
//     "ring_bytes", "macs", "roofline_ns", "bound", "pt_util", "sfp_util",
//     "dma_util", "ring_util"}], "cores": [{"core", "pt_util", "sfp_util",
//     "dma_util", "ring_util"}], "bytes_read", "bytes_written", "ring_bytes",
//     "macs", "padded_macs", "launches", "instructions" }
//
// Device utilizations are busy time over total_ns; a kernel's are its
// cores' busy time over its duration times its cores. Keys keep this
// order; numbers are deterministic. writeProfile prints the same per
// kernel as a table for the terminal (spyre-run --profile).
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_STATS_H
#define SPYRE_RUNTIME_STATS_H

#include "spyre/Runtime/SimulatorDevice.h"

#include <iosfwd>
#include <map>
#include <string>

namespace spyre::rt {

/// Time of the requested MACs at the device's peak rate (ns).
double computeFloorNs(const SimStats &stats, const Arch &arch);
/// Time of the DMA bytes at sustained device memory bandwidth (ns).
double memoryFloorNs(const SimStats &stats, const Arch &arch);
/// The roofline: the larger of the two floors (ns).
double rooflineNs(const SimStats &stats, const Arch &arch);

/// Each kernel's source location by kernel name (ProgramInfo::location),
/// for the statistics and the profile; may be empty.
using KernelLocations = std::map<std::string, std::string>;

/// The model module a kernel came from: `layers.0.self_attn` of a location
/// `loc(fused<"layers.0.self_attn">[...])`, else empty.
std::string moduleOfLocation(const std::string &location);

/// The roofline of one kernel's own MACs and bytes (ns).
double kernelRooflineNs(const KernelStats &k, const Arch &arch);

/// What limits a kernel: "compute" or "memory" (the larger of its floors),
/// or "latency" when both floors are under a tenth of its time (launch,
/// synchronization and latencies dominate).
const char *kernelBound(const KernelStats &k, const Arch &arch);

/// Writes the statistics as JSON.
void writeStatsJson(const SimStats &stats, const Arch &arch, std::ostream &os,
                    const KernelLocations &locations = {});
Status writeStatsJson(const SimStats &stats, const Arch &arch,
                      const std::string &path,
                      const KernelLocations &locations = {});

/// Prints where the time goes: the total, launch and barriers, the time per
/// source module, then per kernel (summed over runs) its time, share,
/// cores, bound, bytes, unit utilizations and ratio to its roofline.
void writeProfile(const SimStats &stats, const Arch &arch,
                  const KernelLocations &locations, std::ostream &os);

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_STATS_H
