//===- ScheduleCores.cpp - spyre-schedule-cores ---------------------------===//
//
// Chooses, for every kernel, how its loops are split over the cores and
// tiled, by evaluating candidate schedules with the cost model of
// KernelPlan::estimateNs (numbers from the machine description) and keeping
// the fastest that fits LX and the hardware loop depth. Kernels that differ
// only in name and location share one search (KernelSignature).
//
//===----------------------------------------------------------------------===//

#include "Preconditions.h"
#include "ScheduleCache.h"
#include "spyre/Transforms/KernelPlan.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

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

/// Everything the search reads of a kernel: its attributes but the name,
/// its operand and result types, and its body (printed in local scope, so
/// values are numbered within the kernel and locations are left out). Two
/// kernels with one signature get one schedule.
std::string kernelSignature(KernelOp kernel) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (NamedAttribute attr : kernel->getAttrs())
    if (attr.getName() != kernel.getNameAttrName())
      os << attr.getName() << '=' << attr.getValue() << ';';
  llvm::interleaveComma(kernel->getOperandTypes(), os);
  os << "->";
  llvm::interleaveComma(kernel->getResultTypes(), os);
  OpPrintingFlags flags;
  flags.useLocalScope();
  for (Block &block : kernel->getRegion(0)) {
    for (BlockArgument arg : block.getArguments())
      os << ';' << arg.getType();
    for (Operation &op : block) {
      os << '\n';
      op.print(os, flags);
    }
  }
  return text;
}

struct ScheduleCoresPass
    : public spyre::impl::SpyreScheduleCoresBase<ScheduleCoresPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(requireKernels(module, getArgument())))
      return signalPassFailure();
    Arch arch = getArch(module);
    int64_t cores = maxCores > 0 ? std::min<int64_t>(maxCores, arch.cores)
                                 : arch.cores;
    if (depth < 1) {
      module.emitError("depth must be at least 1");
      return signalPassFailure();
    }
    // Schedules found, by kernel signature (the options and the machine
    // are the same for the whole module).
    std::map<std::string, ScheduleAttr> found;
    std::optional<ScheduleCache> cache;
    if (!cacheDir.empty())
      cache.emplace(cacheDir, "cores " + std::to_string(cores) + " depth " +
                                  std::to_string(depth) + " arch " +
                                  arch.canonicalJson());
    bool warned = false;
    WalkResult r = module.walk([&](KernelOp kernel) {
      if (kernel.getScheduleAttr())
        return WalkResult::advance();
      std::string signature = kernelSignature(kernel);
      if (auto it = found.find(signature); it != found.end()) {
        kernel.setScheduleAttr(it->second);
        return WalkResult::advance();
      }
      std::optional<ScheduleAttr> cached;
      if (cache)
        cached = cache->lookup(signature, kernel.getContext());
      if (cached) {
        kernel.setScheduleAttr(*cached);
      } else {
        if (failed(schedule(kernel, arch, cores)))
          return WalkResult::interrupt();
        std::string error;
        if (cache &&
            !cache->store(signature, kernel.getScheduleAttr(), error) &&
            !warned) {
          module.emitWarning("schedule cache not written: ") << error;
          warned = true;
        }
      }
      found.emplace(std::move(signature), kernel.getScheduleAttr());
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult schedule(KernelOp kernel, const Arch &arch, int64_t cores) {
    MLIRContext *ctx = kernel.getContext();
    ArrayRef<int64_t> space = kernel.getSpace();
    int64_t n = space.size();
    FailureOr<KernelPlan::Roles> roles = KernelPlan::roles(kernel);
    if (failed(roles))
      return failure();
    if (roles->singleCore)
      cores = 1;

    SmallVector<SmallVector<int64_t>> tileChoices =
        KernelPlan::tileChoices(kernel, *roles, arch);

    ScheduleAttr best;
    double bestNs = 0;
    int64_t bestCores = 0;
    SmallVector<int64_t> tile(n, 1), split(n, 1);
    int64_t tryDepth = depth;
    // Depth-first over loops: tiles, then splits that the tiles allow.
    std::function<void(int64_t, int64_t)> visit = [&](int64_t l,
                                                      int64_t coresLeft) {
      if (l == n) {
        auto candidate =
            ScheduleAttr::get(ctx, split, tile, tryDepth, /*costNs=*/0);
        FailureOr<KernelPlan> plan =
            KernelPlan::build(kernel, candidate, arch, /*emitErrors=*/false);
        if (failed(plan) || plan->lxBytes() > arch.usableLxBytes() ||
            plan->hardwareLoops().size() > 3)
          return;
        double ns = plan->estimateNs();
        int64_t used = candidate.getNumCores();
        // Strictly faster wins; among equals, fewer cores (less contention
        // for everything else) and the earlier (smaller-tile) candidate.
        if (!best || ns < bestNs * (1 - 1e-9) ||
            (ns <= bestNs * (1 + 1e-9) && used < bestCores)) {
          best = ScheduleAttr::get(ctx, split, tile, tryDepth,
                                   int64_t(std::llround(ns)));
          bestNs = ns;
          bestCores = used;
        }
        return;
      }
      for (int64_t t : tileChoices[l]) {
        tile[l] = t;
        int64_t tiles = llvm::divideCeil(space[l], t);
        bool splittable = kernel.getIteratorKinds()[l] == IteratorKind::parallel;
        for (int64_t s : KernelPlan::powersUpTo(std::min(tiles, coresLeft))) {
          if (!splittable && s > 1)
            break;
          split[l] = s;
          visit(l + 1, coresLeft / s);
        }
        split[l] = 1;
      }
      tile[l] = 1;
    };
    visit(0, cores);
    // A kernel whose buffers fit only once runs without pipelining rather
    // than not at all (spyre-form-kernels fuses up to that bound).
    if (!best && depth > 1) {
      tryDepth = 1;
      visit(0, cores);
    }

    if (!best) {
      // Say why with the smallest schedule's plan (diagnostics on).
      FailureOr<KernelPlan> plan =
          KernelPlan::smallestPlan(kernel, *roles, arch, /*depth=*/1);
      if (failed(plan))
        return failure();
      return kernel.emitError("no schedule fits: the smallest tiles need ")
             << plan->lxBytes() << " bytes of LX per core ("
             << arch.usableLxBytes() << " usable) and "
             << plan->hardwareLoops().size()
             << " hardware loops (at most 3)";
    }
    kernel.setScheduleAttr(best);
    return success();
  }
};

} // namespace
