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

double dmaNs(const Arch &arch, int64_t bytes, int64_t activeCores) {
  double link = double(bytes) / arch.ringLinkBandwidth();
  double shared = double(bytes) * double(std::max<int64_t>(activeCores, 1)) /
                  arch.memoryBandwidth();
  return std::max(link, shared) * 1e9;
}

double dmaStepNs(const Arch &arch,
                 llvm::ArrayRef<std::pair<int64_t, int64_t>> transfers,
                 int64_t activeCores) {
  if (transfers.empty())
    return 0;
  double linkBytes = 0, memoryBytes = 0;
  for (auto [bytes, sharers] : transfers) {
    linkBytes += double(bytes);
    memoryBytes += double(bytes) * double(std::max<int64_t>(activeCores, 1)) /
                   double(std::max<int64_t>(sharers, 1));
  }
  double ns = std::max(linkBytes / arch.ringLinkBandwidth(),
                       memoryBytes / arch.memoryBandwidth()) *
              1e9;
  return ns + double(arch.memoryLatencyNs);
}

double rooflineNs(const Arch &arch, int64_t macs, int64_t bytes) {
  double compute = 2.0 * double(macs) / arch.peakFlops();
  double memory = double(bytes) / arch.memoryBandwidth();
  return std::max(compute, memory) * 1e9;
}

} // namespace spyre
