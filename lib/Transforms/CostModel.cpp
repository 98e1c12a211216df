//===- CostModel.cpp - Time of instructions on the machine model ----------===//

#include "spyre/Transforms/CostModel.h"

#include <algorithm>
#include <cmath>

namespace spyre {

namespace {
int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }
} // namespace

double ptMatmulNs(const Arch &arch, int64_t m, int64_t k, int64_t n) {
  int64_t width = arch.ptCols * arch.ptSimd;
  double macs = double(roundUp(m, arch.ptRows)) * double(roundUp(n, width)) *
                double(k);
  double cycles = std::ceil(macs / double(arch.macsPerCycle())) +
                  double(arch.ptRows + arch.ptCols);
  return arch.coreCyclesToNs(cycles);
}

double sfpNs(const Arch &arch, int64_t rows, int64_t cols,
             int64_t elementBytes, bool complex) {
  int64_t e = arch.elementsPerStick(elementBytes);
  double elems = double(rows) * double(roundUp(cols, e));
  double cycles = std::ceil(elems / double(arch.sfpLanesPerCore));
  if (complex)
    cycles *= double(arch.sfpComplexOpPasses);
  return arch.coreCyclesToNs(cycles);
}

DmaTime dmaTime(const Arch &arch,
                llvm::ArrayRef<std::pair<int64_t, int64_t>> transfers,
                int64_t activeCores) {
  DmaTime t;
  double latency = double(arch.memoryLatencyNs);
  bool together = true;
  for (auto [bytes, sharers] : transfers) {
    double service = double(bytes) / arch.memoryBandwidth() * 1e9;
    double own = std::max(service, double(bytes) / arch.ringLinkBandwidth() *
                                       1e9);
    double all = service * double(std::max<int64_t>(activeCores, 1)) /
                 double(std::max<int64_t>(sharers, 1));
    t.core += own + latency;
    t.memory += all;
    t.period += std::max(own + latency, all);
    if (together) {
      t.start += std::clamp(all - own, 0.0, latency);
      together = all <= own + latency;
    }
  }
  return t;
}

double pipelineNs(const DmaTime &dma, double compute, const DmaTime &store,
                  int64_t steps, bool overlap) {
  if (steps < 1)
    return 0;
  double n = double(steps);
  if (overlap && steps > 1) {
    // The first compute waits for the first load; the queue then loads the
    // next step and waits for that compute to store. The last compute
    // overlaps the store before it; the last store follows it.
    double load = dma.period - store.period;
    double fill = std::max(0.0, compute - load) +
                  std::max(0.0, compute - store.period);
    return n * std::max(dma.period, compute) + std::min(dma.period, fill);
  }
  // The first step in step with the other cores, the rest staggered.
  return dma.period + compute +
         (n - 1) * std::max(dma.memory, dma.core + compute);
}

double rooflineNs(const Arch &arch, int64_t macs, int64_t bytes) {
  double compute = 2.0 * double(macs) / arch.peakFlops();
  double memory = double(bytes) / arch.memoryBandwidth();
  return std::max(compute, memory) * 1e9;
}

} // namespace spyre
