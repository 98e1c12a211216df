//===- CostModel.h - Time of instructions on the machine model --*- C++ -*-===//
//
// The compiler's view of docs/isa.md's timing model, from the machine
// description only. The simulator implements the same model on its own
// (runtime/); bench/ compares the two.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TRANSFORMS_COSTMODEL_H
#define SPYRE_TRANSFORMS_COSTMODEL_H

#include "spyre/Arch/Arch.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace spyre {

class KernelPlan;
struct PlanTensor;

/// Nanoseconds of one PtMatmul of an m x k by k x n tile.
double ptMatmulNs(const Arch &arch, int64_t m, int64_t k, int64_t n);

/// Nanoseconds of one SFP op over `rows` rows of `cols` elements whose
/// widest operand has `elementBytes`-byte elements.
double sfpNs(const Arch &arch, int64_t rows, int64_t cols, int64_t elementBytes,
             bool complex);

/// The time for each of `activeCores` cores, running the same program, to
/// move a list of transfers one after the other (a core has one
/// outstanding DMA; the memory node serves requests in arrival order).
struct DmaTime {
  /// One core alone: each transfer pays the memory latency.
  double core = 0;
  /// The memory node serving every core's transfers.
  double memory = 0;
  /// All cores issuing the list together, per repetition of it: for each
  /// transfer the longer of one core's transfer (with latency) and the
  /// node serving every core's copy of it.
  double period = 0;
  /// What the list adds when the cores start it at the same instant (a
  /// kernel's first transfers): the last core's request is served after
  /// every other core's. They stay together until a transfer saturates the
  /// node; after that the node's order has staggered them.
  double start = 0;
};

/// One tile transfer: its bytes, the bytes the memory node charges for it
/// (at burst granularity, spyre/Arch/Bursts.h), the cores reading it at once
/// (a multicast: one memory read for all) and whether it is a store.
struct DmaTransfer {
  int64_t bytes = 0, charged = 0, sharers = 1;
  bool write = false;
};

/// The time of `transfers`: per transfer the node's setup plus its charged
/// bytes at the read or write bandwidth (a store also pays the node's
/// turnaround into and out of writing), at least its bytes over one ring
/// link, plus the memory latency.
DmaTime dmaTime(const Arch &arch, llvm::ArrayRef<DmaTransfer> transfers,
                int64_t activeCores);

/// Nanoseconds of `steps` pipeline steps on every active core, each moving
/// `dma` (its loads and its stores, `store` of them the stores) and
/// computing for `compute` ns.
///  * With `overlap` (double buffering, the lowering's software pipeline)
///    a core's DMA queue loads the next step during the current compute:
///    per step the slower of DMA and compute, plus what cannot overlap at
///    the ends of the run.
///  * Without, a core's loads, compute and stores follow one another. The
///    cores start together, so the first step is the DMA time of all cores
///    plus the compute; after it the node has staggered them, and other
///    cores' transfers fill it while one computes.
double pipelineNs(const DmaTime &dma, double compute, const DmaTime &store,
                  int64_t steps, bool overlap);

/// The roofline of a piece of work: max(compute at peak, the bytes read
/// and written at the sustained read and write bandwidths), in nanoseconds.
double rooflineNs(const Arch &arch, int64_t macs, int64_t readBytes,
                  int64_t writtenBytes);

/// The gather of `plan`'s `ring` input `t` before the kernel computes: its
/// tile over one link from the farthest core, what the plan alone tells
/// (RingExchange::estimateNs refines it where the producer's tiles are
/// known); 0 for other inputs.
double ringGatherNs(const KernelPlan &plan, const PlanTensor &t);

} // namespace spyre

#endif // SPYRE_TRANSFORMS_COSTMODEL_H
