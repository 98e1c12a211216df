//===- HandoffScheduling.h - Schedules that keep results in LX --*- C++ -*-===//
//
// spyre-schedule-cores{resident}: after every kernel has its own best
// schedule, consumers (and, where it pays, their producers) are re-planned
// so that a kernel result stays in LX for its readers (Residency.h).
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TRANSFORMS_HANDOFFSCHEDULING_H
#define SPYRE_TRANSFORMS_HANDOFFSCHEDULING_H

#include "ScheduleCache.h"
#include "spyre/Dialect/Spyre/SpyreOps.h"

#include <optional>

namespace spyre {

struct Arch;

/// Re-plans `kernels` (the scheduled kernels of a module, in plan order;
/// kernels pinned by the input are left out by the caller) for LX
/// handoffs, on at most `cores` cores with `depth` buffers, weighing
/// gathers over the ring when `ring` is set; choices are also kept in
/// `cache` when given.
void scheduleHandoffs(llvm::ArrayRef<KernelOp> kernels, const Arch &arch,
                      int64_t cores, int64_t depth, bool ring,
                      const std::optional<ScheduleCache> &cache);

} // namespace spyre

#endif // SPYRE_TRANSFORMS_HANDOFFSCHEDULING_H
