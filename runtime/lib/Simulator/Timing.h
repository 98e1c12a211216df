//===- Timing.h - Durations of the simulator's timing model -----*- C++ -*-===//
//
// docs/isa.md "Timing", in integer picoseconds, every number from the Arch.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_SIMULATOR_TIMING_H
#define SPYRE_RUNTIME_SIMULATOR_TIMING_H

#include "spyre/Arch/Arch.h"
#include "spyre/Support/MathExtras.h"

#include <cmath>
#include <cstdint>

namespace spyre::rt::sim {

class Timing {
public:
  explicit Timing(const Arch &arch)
      : psPerCoreCycle_(1e12 / arch.coreClockHz),
        psPerReadByte_(1e12 / arch.memoryReadBandwidth()),
        psPerWriteByte_(1e12 / arch.memoryWriteBandwidth()),
        psPerLinkByte_(1e12 / arch.ringLinkBandwidth()),
        psPerHop_(double(arch.ringHopLatencyCycles) * 1e12 / arch.ringClockHz),
        psPerPsumByte_(1e12 / arch.psumLinkBandwidth()),
        psPerPsumHop_(arch.psumHopsNs(1) * 1e3),
        memoryLatencyPs_(uint64_t(arch.memoryLatencyNs) * 1000),
        memorySetupPs_(uint64_t(arch.memorySetupNs) * 1000),
        memoryTurnaroundPs_(uint64_t(arch.memoryTurnaroundNs) * 1000),
        memoryBurstBytes_(uint64_t(arch.memoryBurstBytes)),
        launchOverheadPs_(uint64_t(arch.launchOverheadNs) * 1000),
        barrierPs_(uint64_t(arch.barrierLatencyNs) * 1000),
        kernelSyncPs_(uint64_t(arch.kernelSyncNs) * 1000),
        coreSyncPs_(uint64_t(arch.coreSyncNs) * 1000),
        macsPerCycle_(uint64_t(arch.macsPerCycle())),
        ptRows_(uint64_t(arch.ptRows)),
        ptColumns_(uint64_t(arch.ptCols * arch.ptSimd)),
        ptFillCycles_(uint64_t(arch.ptRows + arch.ptCols)),
        sfpLanes_(uint64_t(arch.sfpLanesPerCore)),
        complexPasses_(uint64_t(arch.sfpComplexOpPasses)) {}

  /// MACs the systolic array executes for an m x k x n product (m padded to
  /// pt_rows, n to pt_cols * pt_simd).
  uint64_t paddedMacs(uint64_t m, uint64_t k, uint64_t n) const {
    return roundUp(m, ptRows_) * roundUp(n, ptColumns_) * k;
  }
  /// PtMatmul: padded MACs at macs_per_cycle plus pt_rows + pt_cols cycles.
  uint64_t ptPs(uint64_t m, uint64_t k, uint64_t n) const {
    double cycles = double(paddedMacs(m, k, n)) / double(macsPerCycle_) +
                    double(ptFillCycles_);
    return ceilPs(cycles * psPerCoreCycle_);
  }
  /// Sfp*: rows * ceil(cols / e) * e / lanes cycles (times the complex-op
  /// passes), e the elements per stick of the widest operand.
  uint64_t sfpPs(uint64_t rows, uint64_t cols, uint64_t elemsPerStick,
                 bool complexOp) const {
    double cycles =
        double(rows) * double(roundUp(cols, elemsPerStick)) / double(sfpLanes_);
    if (complexOp)
      cycles *= double(complexPasses_);
    return ceilPs(std::ceil(cycles) * psPerCoreCycle_);
  }
  /// Service time at the memory node of a transfer charged `bytes` (see
  /// burstChargedBytes): its setup, then the bytes at the sustained read or
  /// write bandwidth.
  uint64_t memoryPs(uint64_t bytes, bool write) const {
    return memorySetupPs_ +
           ceilPs(double(bytes) * (write ? psPerWriteByte_ : psPerReadByte_));
  }
  /// Time of `bytes` over one ring link.
  uint64_t linkPs(uint64_t bytes) const {
    return ceilPs(double(bytes) * psPerLinkByte_);
  }
  /// Latency of `hops` ring hops.
  uint64_t hopsPs(uint64_t hops) const {
    return ceilPs(double(hops) * psPerHop_);
  }
  /// Time of `bytes` over one link of a partial-sum ring.
  uint64_t psumLinkPs(uint64_t bytes) const {
    return ceilPs(double(bytes) * psPerPsumByte_);
  }
  /// Latency of `hops` partial-sum ring hops.
  uint64_t psumHopsPs(uint64_t hops) const {
    return ceilPs(double(hops) * psPerPsumHop_);
  }
  uint64_t memoryLatencyPs() const { return memoryLatencyPs_; }
  uint64_t memoryTurnaroundPs() const { return memoryTurnaroundPs_; }
  uint64_t memoryBurstBytes() const { return memoryBurstBytes_; }
  /// The synchronization inside a kernel on `cores` cores.
  uint64_t kernelSyncPs(uint64_t cores) const {
    return kernelSyncPs_ + coreSyncPs_ * cores;
  }
  uint64_t launchOverheadPs() const { return launchOverheadPs_; }
  uint64_t barrierPs() const { return barrierPs_; }

private:
  /// A zero `m` (an Arch that was never validated) leaves `v` as it is.
  static uint64_t roundUp(uint64_t v, uint64_t m) {
    return m ? alignTo(v, m) : v;
  }
  static uint64_t ceilPs(double ps) {
    return ps <= 0        ? 0
           : ps >= 1.8e19 ? UINT64_MAX / 4
                          : uint64_t(std::ceil(ps));
  }

  double psPerCoreCycle_, psPerReadByte_, psPerWriteByte_, psPerLinkByte_,
      psPerHop_, psPerPsumByte_, psPerPsumHop_;
  uint64_t memoryLatencyPs_, memorySetupPs_, memoryTurnaroundPs_,
      memoryBurstBytes_, launchOverheadPs_, barrierPs_, kernelSyncPs_,
      coreSyncPs_;
  uint64_t macsPerCycle_, ptRows_, ptColumns_, ptFillCycles_, sfpLanes_,
      complexPasses_;
};

} // namespace spyre::rt::sim

#endif // SPYRE_RUNTIME_SIMULATOR_TIMING_H
