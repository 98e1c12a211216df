//===- ScheduleCores.cpp - spyre-schedule-cores ---------------------------===//
//
// Chooses, for every kernel, how its loops are split over the cores and
// tiled, by evaluating candidate schedules with the cost model of
// KernelPlan::estimateNs (numbers from the machine description) and keeping
// the fastest that fits LX and the hardware loop depth (ScheduleSearch.h).
// Kernels that differ only in name and location share one search. Then,
// with `resident`, consumers and producers are re-planned so that results
// can stay in LX (HandoffScheduling.h).
//
//===----------------------------------------------------------------------===//

#include "HandoffScheduling.h"
#include "Preconditions.h"
#include "ScheduleCache.h"
#include "ScheduleSearch.h"
#include "spyre/Transforms/KernelPlan.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <map>
#include <string>

namespace spyre {
#define GEN_PASS_DEF_SPYRESCHEDULECORES
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {

/// The kernel's name and its body's ops, for messages: "'k0' (spyre.matmul,
/// spyre.binary)".
std::string describeKernel(KernelOp kernel) {
  std::string text = "'" + kernel.getName().str() + "' (";
  llvm::ListSeparator sep(", ");
  for (Operation &op : kernel.getBodyBlock().without_terminator())
    text += (Twine(sep) + op.getName().getStringRef()).str();
  return text + ")";
}

/// Says why no schedule fits `kernel`, with the smallest schedule's plan
/// (diagnostics on): each limit it exceeds, and for LX a note per buffer.
LogicalResult explainNoSchedule(KernelOp kernel, const KernelPlan::Roles &roles,
                                const Arch &arch) {
  FailureOr<KernelPlan> plan =
      KernelPlan::smallestPlan(kernel, roles, arch, /*depth=*/1);
  if (failed(plan))
    return failure();
  size_t loops = plan->hardwareLoops().size();
  bool lxShort = plan->lxBytes() > arch.usableLxBytes();
  InFlightDiagnostic diag =
      kernel.emitError("no schedule fits kernel ")
      << describeKernel(kernel) << ": its smallest tiles need "
      << plan->lxBytes() << " bytes of LX per core (" << arch.usableLxBytes()
      << " usable" << (lxShort ? ", too many" : "") << ") and " << loops
      << " hardware loops (the program has at most "
      << KernelPlan::kMaxHardwareLoops
      << (loops > KernelPlan::kMaxHardwareLoops ? ", too many" : "") << ")";
  if (lxShort)
    plan->noteBuffers(diag);
  return diag;
}

/// What kernels of the module share: the schedules found, by kernel
/// signature (the options and the machine are the same for the whole
/// module), and the on-disk cache.
struct FoundSchedules {
  std::map<std::string, ScheduleAttr> found;
  std::optional<ScheduleCache> cache;
  bool warned = false;
};

struct ScheduleCoresPass
    : public spyre::impl::SpyreScheduleCoresBase<ScheduleCoresPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(requireKernels(module, getArgument())))
      return signalPassFailure();
    Arch arch = getArch(module);
    int64_t cores =
        maxCores > 0 ? std::min<int64_t>(maxCores, arch.cores) : arch.cores;
    if (depth < 1) {
      module.emitError("depth must be at least 1");
      return signalPassFailure();
    }
    FoundSchedules schedules;
    if (!cacheDir.empty())
      schedules.cache.emplace(cacheDir, "cores " + std::to_string(cores) +
                                            " depth " + std::to_string(depth) +
                                            " ring " + std::to_string(ring) +
                                            " arch " + arch.canonicalJson());
    SmallVector<KernelOp> searched; // not pinned by the input
    module.walk([&](KernelOp kernel) {
      if (!kernel.getScheduleAttr())
        searched.push_back(kernel);
    });
    for (KernelOp kernel : searched)
      if (scheduleOrReuse(kernel, arch, cores, schedules).wasInterrupted())
        return signalPassFailure();
    if (!resident)
      return;
    scheduleHandoffs(searched, arch, cores, depth, ring, schedules.cache);
  }

  /// Gives `kernel` (unless it has one) the schedule of a kernel of the
  /// same signature, a cached one, or a new one (then cached).
  WalkResult scheduleOrReuse(KernelOp kernel, const Arch &arch, int64_t cores,
                             FoundSchedules &schedules) {
    if (kernel.getScheduleAttr())
      return WalkResult::advance();
    std::string signature = kernelSignature(kernel);
    if (auto it = schedules.found.find(signature);
        it != schedules.found.end()) {
      kernel.setScheduleAttr(it->second);
      return WalkResult::advance();
    }
    std::optional<ScheduleAttr> cached;
    if (schedules.cache)
      cached = schedules.cache->lookup(signature, kernel.getContext());
    if (cached)
      kernel.setScheduleAttr(*cached);
    else if (failed(
                 scheduleAndCache(kernel, signature, arch, cores, schedules)))
      return WalkResult::interrupt();
    schedules.found.emplace(std::move(signature), kernel.getScheduleAttr());
    return WalkResult::advance();
  }

  /// Searches `kernel`'s schedule and stores it in the cache (warning once
  /// when the cache cannot be written).
  LogicalResult scheduleAndCache(KernelOp kernel, const std::string &signature,
                                 const Arch &arch, int64_t cores,
                                 FoundSchedules &schedules) {
    if (failed(schedule(kernel, arch, cores)))
      return failure();
    std::string error;
    if (schedules.cache &&
        !schedules.cache->store(signature, kernel.getScheduleAttr(), error) &&
        !schedules.warned) {
      getOperation().emitWarning("schedule cache not written: ") << error;
      schedules.warned = true;
    }
    return success();
  }

  LogicalResult schedule(KernelOp kernel, const Arch &arch, int64_t cores) {
    FailureOr<KernelPlan::Roles> roles = KernelPlan::roles(kernel);
    if (failed(roles))
      return failure();
    ScheduleAttr best =
        searchSchedule(kernel, *roles, arch, cores, depth, /*accept=*/nullptr);
    if (!best)
      return explainNoSchedule(kernel, *roles, arch);
    kernel.setScheduleAttr(best);
    return success();
  }
};

} // namespace
