//===- ScheduleSearch.h - Searching a kernel's schedule ---------*- C++ -*-===//
//
// The search spyre-schedule-cores runs per kernel: candidate tiles and
// splits planned with KernelPlan and costed with its estimate, the fastest
// that fits LX and the hardware loops kept. Shared by the pass and by the
// handoff scheduling (HandoffScheduling.h).
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TRANSFORMS_SCHEDULESEARCH_H
#define SPYRE_TRANSFORMS_SCHEDULESEARCH_H

#include "spyre/Transforms/KernelPlan.h"

#include <functional>
#include <string>

namespace spyre {

/// Everything the search reads of a kernel: its attributes but the name,
/// its operand and result types, and its body (printed in local scope, so
/// values are numbered within the kernel and locations are left out). Two
/// kernels with one signature get one schedule.
std::string kernelSignature(KernelOp kernel);

/// Admits a candidate plan or not.
using PlanFilter = std::function<bool(const KernelPlan &)>;

/// A candidate plan's cost in nanoseconds where the caller knows more than
/// the plan alone (a ring gather from a known producer).
using PlanCost = std::function<double(const KernelPlan &)>;

/// The fastest schedule of `kernel` at `depth` (single-buffered when
/// nothing fits with it) among those `accept` admits (all when null), on
/// at most `cores` cores, by `cost` (the plan's estimate when null); null
/// when none fits.
ScheduleAttr searchSchedule(KernelOp kernel, const KernelPlan::Roles &roles,
                            const Arch &arch, int64_t cores, int64_t depth,
                            PlanFilter accept, PlanCost cost = nullptr);

} // namespace spyre

#endif // SPYRE_TRANSFORMS_SCHEDULESEARCH_H
