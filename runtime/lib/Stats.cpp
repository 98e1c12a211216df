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
  return arch.memoryFloorNs(double(stats.bytesRead),
                            double(stats.bytesWritten));
}

double rooflineNs(const SimStats &stats, const Arch &arch) {
  return std::max(computeFloorNs(stats, arch), memoryFloorNs(stats, arch));
}

namespace {

double ns(uint64_t ps) { return double(ps) * 1e-3; }

/// A kernel's counters as a SimStats, for the floors.
SimStats countersOf(const KernelStats &k) {
  SimStats s;
  s.macs = k.macs;
  s.bytesRead = k.bytesRead;
  s.bytesWritten = k.bytesWritten;
  return s;
}

/// A unit's busy time over the kernel's core-time.
double utilization(const KernelStats &k, uint64_t busyPs) {
  double coreTime = double(k.durationPs) * double(k.numCores);
  return coreTime > 0 ? double(busyPs) / coreTime : 0.0;
}

/// Launch overheads and barriers: the time no kernel runs.
uint64_t launchAndBarrierPs(const SimStats &stats) {
  uint64_t kernels = 0;
  for (const KernelStats &k : stats.kernels)
    kernels += k.durationPs;
  return stats.totalPs > kernels ? stats.totalPs - kernels : 0;
}

std::string locationOf(const KernelLocations &locations,
                       const std::string &name) {
  auto it = locations.find(name);
  return it == locations.end() ? std::string() : it->second;
}

} // namespace

double kernelRooflineNs(const KernelStats &k, const Arch &arch) {
  return rooflineNs(countersOf(k), arch);
}

std::string moduleOfLocation(const std::string &location) {
  const std::string open = "fused<\"";
  size_t begin = location.find(open);
  if (begin == std::string::npos)
    return {};
  begin += open.size();
  size_t end = location.find('"', begin);
  return end == std::string::npos ? std::string()
                                  : location.substr(begin, end - begin);
}

const char *kernelBound(const KernelStats &k, const Arch &arch) {
  SimStats s = countersOf(k);
  double compute = computeFloorNs(s, arch), memory = memoryFloorNs(s, arch);
  if (std::max(compute, memory) < 0.1 * ns(k.durationPs))
    return "latency";
  return compute >= memory ? "compute" : "memory";
}

void writeStatsJson(const SimStats &stats, const Arch &arch, std::ostream &os,
                    const KernelLocations &locations) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["arch"] = arch.name;
  j["total_ns"] = ns(stats.totalPs);
  j["roofline_ns"] = rooflineNs(stats, arch);
  j["compute_floor_ns"] = computeFloorNs(stats, arch);
  j["memory_floor_ns"] = memoryFloorNs(stats, arch);
  j["launch_and_barriers_ns"] = ns(launchAndBarrierPs(stats));
  Json runs = Json::array();
  for (uint64_t ps : stats.launchPs)
    runs.push_back(ns(ps));
  j["runs_ns"] = std::move(runs);
  Json kernels = Json::array();
  for (const KernelStats &k : stats.kernels) {
    std::string location = locationOf(locations, k.name);
    kernels.push_back(Json{{"name", k.name},
                           {"location", location},
                           {"module", moduleOfLocation(location)},
                           {"ns", ns(k.durationPs)},
                           {"start_ns", ns(k.startPs)},
                           {"cores", k.numCores},
                           {"instructions", k.instructions},
                           {"bytes_read", k.bytesRead},
                           {"bytes_written", k.bytesWritten},
                           {"ring_bytes", k.ringBytes},
                           {"macs", k.macs},
                           {"roofline_ns", kernelRooflineNs(k, arch)},
                           {"bound", kernelBound(k, arch)},
                           {"pt_util", utilization(k, k.busy.ptBusyPs)},
                           {"sfp_util", utilization(k, k.busy.sfpBusyPs)},
                           {"dma_util", utilization(k, k.busy.dmaBusyPs)},
                           {"ring_util", utilization(k, k.busy.ringBusyPs)}});
  }
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
                      const std::string &path,
                      const KernelLocations &locations) {
  std::ofstream os(path);
  if (!os)
    return Status::error(StatusCode::IoError,
                         "cannot create statistics file '" + path + "'");
  writeStatsJson(stats, arch, os, locations);
  if (!os)
    return Status::error(StatusCode::IoError,
                         "cannot write statistics file '" + path + "'");
  return Status::success();
}

} // namespace spyre::rt
