//===- Profile.cpp - Where the simulated time goes, as a table ------------===//
//
// spyre-run --profile: the total against the roofline, launch and barriers,
// the time per source module, then per kernel (summed over runs) its time,
// share, cores, bound, bytes moved, unit utilizations and ratio to its own
// roofline. Stats.h defines the measures; this file only lays them out.
//
//===----------------------------------------------------------------------===//

#include "spyre/Runtime/Stats.h"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <vector>

namespace spyre::rt {
namespace {

double us(uint64_t ps) { return double(ps) * 1e-6; }

/// printf into a std::string.
template <typename... Args> std::string format(const char *fmt, Args... args) {
  int n = std::snprintf(nullptr, 0, fmt, args...);
  std::string out(size_t(std::max(n, 0)), '\0');
  std::snprintf(out.data(), out.size() + 1, fmt, args...);
  return out;
}

/// One kernel's runs added up.
struct KernelTotal {
  KernelStats sum;
  uint64_t calls = 0;
  /// Duration times cores, over the runs: what utilizations divide by.
  uint64_t coreTimePs = 0;
  std::string module;
};

/// The kernels in order of first run, each summed over its runs.
std::vector<KernelTotal> sumByKernel(const SimStats &stats,
                                     const KernelLocations &locations) {
  std::vector<KernelTotal> out;
  std::map<std::string, size_t> index;
  for (const KernelStats &k : stats.kernels) {
    auto [it, fresh] = index.try_emplace(k.name, out.size());
    if (fresh) {
      KernelTotal t;
      t.sum.name = k.name;
      auto loc = locations.find(k.name);
      if (loc != locations.end())
        t.module = moduleOfLocation(loc->second);
      out.push_back(std::move(t));
    }
    KernelTotal &t = out[it->second];
    KernelStats &s = t.sum;
    ++t.calls;
    s.durationPs += k.durationPs;
    s.numCores = std::max(s.numCores, k.numCores);
    s.instructions += k.instructions;
    s.bytesRead += k.bytesRead;
    s.bytesWritten += k.bytesWritten;
    s.ringBytes += k.ringBytes;
    s.macs += k.macs;
    s.busy.ptBusyPs += k.busy.ptBusyPs;
    s.busy.sfpBusyPs += k.busy.sfpBusyPs;
    s.busy.dmaBusyPs += k.busy.dmaBusyPs;
    s.busy.ringBusyPs += k.busy.ringBusyPs;
    t.coreTimePs += k.durationPs * k.numCores;
  }
  return out;
}

/// A unit's busy share of a kernel's core-time, in percent.
double percent(const KernelTotal &k, uint64_t busyPs) {
  return k.coreTimePs ? 100.0 * double(busyPs) / double(k.coreTimePs) : 0.0;
}

void printModules(const std::vector<KernelTotal> &kernels, uint64_t totalPs,
                  std::ostream &os) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> byModule;
  for (const KernelTotal &k : kernels) {
    auto &[ps, n] = byModule[k.module.empty() ? "(model)" : k.module];
    ps += k.sum.durationPs;
    n += k.calls;
  }
  std::vector<std::pair<std::string, std::pair<uint64_t, uint64_t>>> rows(
      byModule.begin(), byModule.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    return a.second.first > b.second.first;
  });
  size_t width = 6;
  for (const auto &r : rows)
    width = std::max(width, r.first.size());
  os << format("\n%-*s %12s %7s %7s\n", int(width), "module", "time us",
               "share", "kernels");
  for (const auto &[module, v] : rows)
    os << format("%-*s %12.3f %6.1f%% %7llu\n", int(width), module.c_str(),
                 us(v.first),
                 totalPs ? 100.0 * double(v.first) / double(totalPs) : 0.0,
                 static_cast<unsigned long long>(v.second));
}

void printKernels(const std::vector<KernelTotal> &kernels, const Arch &arch,
                  uint64_t totalPs, std::ostream &os) {
  size_t nameWidth = 6, moduleWidth = 6;
  for (const KernelTotal &k : kernels) {
    nameWidth = std::max(nameWidth, k.sum.name.size());
    moduleWidth = std::max(moduleWidth, k.module.size());
  }
  os << format("\n%-*s %-*s %5s %12s %7s %5s %-7s %10s %6s %6s %6s %6s %9s\n",
               int(nameWidth), "kernel", int(moduleWidth), "module", "calls",
               "time us", "share", "cores", "bound", "MB moved", "PT %",
               "SFP %", "DMA %", "ring %", "x roofline");
  for (const KernelTotal &k : kernels) {
    const KernelStats &s = k.sum;
    double roofline = kernelRooflineNs(s, arch);
    double timeNs = double(s.durationPs) * 1e-3;
    os << format(
        "%-*s %-*s %5llu %12.3f %6.1f%% %5u %-7s %10.3f %6.1f %6.1f %6.1f "
        "%6.1f %9s\n",
        int(nameWidth), s.name.c_str(), int(moduleWidth), k.module.c_str(),
        static_cast<unsigned long long>(k.calls), us(s.durationPs),
        totalPs ? 100.0 * double(s.durationPs) / double(totalPs) : 0.0,
        s.numCores, kernelBound(s, arch),
        double(s.bytesRead + s.bytesWritten) / 1e6, percent(k, s.busy.ptBusyPs),
        percent(k, s.busy.sfpBusyPs), percent(k, s.busy.dmaBusyPs),
        percent(k, s.busy.ringBusyPs),
        roofline > 0 ? format("%.2f", timeNs / roofline).c_str() : "-");
  }
}

} // namespace

void writeProfile(const SimStats &stats, const Arch &arch,
                  const KernelLocations &locations, std::ostream &os) {
  uint64_t total = stats.totalPs, kernelPs = 0;
  for (const KernelStats &k : stats.kernels)
    kernelPs += k.durationPs;
  uint64_t overhead = total > kernelPs ? total - kernelPs : 0;
  double roofline = rooflineNs(stats, arch);
  auto share = [&](uint64_t ps) {
    return total ? 100.0 * double(ps) / double(total) : 0.0;
  };
  os << format("spyre-run profile: %zu run(s), %.3f us simulated, roofline "
               "%.3f us (%s)\n",
               stats.launchPs.size(), us(total), roofline * 1e-3,
               roofline > 0
                   ? format("%.2fx", double(total) * 1e-3 / roofline).c_str()
                   : "-");
  os << format("  kernels %.3f us (%.1f %%), launch + barriers %.3f us "
               "(%.1f %%)\n",
               us(kernelPs), share(kernelPs), us(overhead), share(overhead));
  if (stats.launchPs.size() > 1) {
    os << "  per run (us):";
    for (uint64_t ps : stats.launchPs)
      os << format(" %.3f", us(ps));
    os << "\n";
  }
  std::vector<KernelTotal> kernels = sumByKernel(stats, locations);
  printModules(kernels, total, os);
  printKernels(kernels, arch, total, os);
}

} // namespace spyre::rt
