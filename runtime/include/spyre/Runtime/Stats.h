//===- Stats.h - Simulator statistics as JSON -------------------*- C++ -*-===//
//
// The statistics file of spyre-run (--stats), documented in docs/runtime.md:
//
//   { "arch": ..., "total_ns": ..., "roofline_ns": ..., "compute_floor_ns":
//     ..., "memory_floor_ns": ..., "kernels": [{"name", "ns", "start_ns",
//     "cores", "instructions"}], "cores": [{"core", "pt_util", "sfp_util",
//     "dma_util", "ring_util"}], "bytes_read", "bytes_written", "ring_bytes",
//     "macs", "padded_macs", "launches", "instructions" }
//
// Utilizations are busy time over total_ns. Keys keep this order; numbers
// are deterministic.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_STATS_H
#define SPYRE_RUNTIME_STATS_H

#include "spyre/Runtime/SimulatorDevice.h"

#include <iosfwd>
#include <string>

namespace spyre::rt {

/// Time of the requested MACs at the device's peak rate (ns).
double computeFloorNs(const SimStats &stats, const Arch &arch);
/// Time of the DMA bytes at sustained device memory bandwidth (ns).
double memoryFloorNs(const SimStats &stats, const Arch &arch);
/// The roofline: the larger of the two floors (ns).
double rooflineNs(const SimStats &stats, const Arch &arch);

/// Writes the statistics as JSON.
void writeStatsJson(const SimStats &stats, const Arch &arch,
                    std::ostream &os);
Status writeStatsJson(const SimStats &stats, const Arch &arch,
                      const std::string &path);

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_STATS_H
