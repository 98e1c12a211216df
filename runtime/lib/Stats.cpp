//===- Stats.cpp - Simulator statistics as JSON ---------------------------===//

#include "spyre/Runtime/Stats.h"

#include "spyre/Support/Json.h"

#include <algorithm>
#include <fstream>

namespace spyre::rt {

double computeFloorNs(const SimStats &stats, const Arch &arch) {
  return 2.0 * double(stats.macs) / arch.peakFlops() * 1e9;
}

double memoryFloorNs(const SimStats &stats, const Arch &arch) {
  return double(stats.bytesRead + stats.bytesWritten) /
         arch.memoryBandwidth() * 1e9;
}

double rooflineNs(const SimStats &stats, const Arch &arch) {
  return std::max(computeFloorNs(stats, arch), memoryFloorNs(stats, arch));
}

void writeStatsJson(const SimStats &stats, const Arch &arch,
                    std::ostream &os) {
  using Json = nlohmann::ordered_json;
  auto ns = [](uint64_t ps) { return double(ps) * 1e-3; };
  Json j;
  j["arch"] = arch.name;
  j["total_ns"] = ns(stats.totalPs);
  j["roofline_ns"] = rooflineNs(stats, arch);
  j["compute_floor_ns"] = computeFloorNs(stats, arch);
  j["memory_floor_ns"] = memoryFloorNs(stats, arch);
  Json kernels = Json::array();
  for (const KernelStats &k : stats.kernels)
    kernels.push_back(Json{{"name", k.name},
                           {"ns", ns(k.durationPs)},
                           {"start_ns", ns(k.startPs)},
                           {"cores", k.numCores},
                           {"instructions", k.instructions}});
  j["kernels"] = std::move(kernels);
  Json cores = Json::array();
  double total = double(stats.totalPs);
  auto util = [&](uint64_t busy) {
    return total > 0 ? double(busy) / total : 0.0;
  };
  for (size_t c = 0; c < stats.cores.size(); ++c) {
    const CoreStats &cs = stats.cores[c];
    cores.push_back(Json{{"core", c},
                         {"pt_util", util(cs.ptBusyPs)},
                         {"sfp_util", util(cs.sfpBusyPs)},
                         {"dma_util", util(cs.dmaBusyPs)},
                         {"ring_util", util(cs.ringBusyPs)},
                         {"instructions", cs.instructions}});
  }
  j["cores"] = std::move(cores);
  j["bytes_read"] = stats.bytesRead;
  j["bytes_written"] = stats.bytesWritten;
  j["ring_bytes"] = stats.ringBytes;
  j["macs"] = stats.macs;
  j["padded_macs"] = stats.paddedMacs;
  j["launches"] = stats.launches;
  j["instructions"] = stats.instructions;
  j["dropped_trace_events"] = stats.droppedTraceEvents;
  os << j.dump(2) << "\n";
}

Status writeStatsJson(const SimStats &stats, const Arch &arch,
                      const std::string &path) {
  std::ofstream os(path);
  if (!os)
    return Status::error(StatusCode::IoError,
                         "cannot create statistics file '" + path + "'");
  writeStatsJson(stats, arch, os);
  if (!os)
    return Status::error(StatusCode::IoError,
                         "cannot write statistics file '" + path + "'");
  return Status::success();
}

} // namespace spyre::rt
