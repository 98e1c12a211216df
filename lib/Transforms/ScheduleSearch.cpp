//===- ScheduleSearch.cpp - Searching a kernel's schedule -----------------===//

#include "ScheduleSearch.h"

#include "mlir/IR/Builders.h"

#include <cmath>

using namespace mlir;

namespace spyre {

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

namespace {

/// The depth-first search over one kernel's candidate schedules: tiles of
/// each loop, then the splits the tiles allow, keeping the fastest plan
/// that fits LX and the hardware loop depth.
class ScheduleSearch {
public:
  ScheduleSearch(KernelOp kernel, const KernelPlan::Roles &roles,
                 const Arch &arch,
                 SmallVector<SmallVector<int64_t>> tileChoices)
      : kernel(kernel), arch(arch), ctx(kernel.getContext()),
        space(kernel.getSpace()), n(space.size()),
        tileChoices(std::move(tileChoices)), tile(n, 1), split(n, 1),
        kLoop(roles.kind == KernelKind::Matmul ? roles.accLoop : -1) {}

  /// Admits only the plans `accept` holds true for.
  void restrictTo(PlanFilter accept) { this->accept = std::move(accept); }
  /// Ranks plans by `cost` (their estimate when null).
  void costBy(PlanCost cost) { this->cost = std::move(cost); }

  /// Searches the schedules of depth `depth` on at most `cores` cores;
  /// returns the best found by this and earlier runs (null: none fits).
  ScheduleAttr run(int64_t depth, int64_t cores) {
    tryDepth = depth;
    visit(0, cores);
    return best;
  }

private:
  KernelOp kernel;
  const Arch &arch;
  MLIRContext *ctx;
  ArrayRef<int64_t> space;
  int64_t n;
  SmallVector<SmallVector<int64_t>> tileChoices;
  ScheduleAttr best;
  double bestNs = 0;
  int64_t bestCores = 0;
  SmallVector<int64_t> tile, split;
  /// A matmul's k, which may be split (KernelPlan::kSplit); -1 otherwise.
  int64_t kLoop;
  int64_t tryDepth = 1;
  PlanFilter accept;
  PlanCost cost;
  /// The results kept in LX (destination `lx` or `lx_dma`).
  SmallVector<int64_t> keptInLx = resultsKeptInLx(kernel);
  /// Whether some input's source is `lx` or `ring`.
  bool readsOnChip = llvm::any_of(
      llvm::seq<unsigned>(0, kernel.getInputs().size()),
      [&](unsigned i) { return kernel.getSourcePath(i) != DataPath::dma; });

  static SmallVector<int64_t> resultsKeptInLx(KernelOp kernel) {
    SmallVector<int64_t> kept;
    for (unsigned j = 0; j < kernel.getNumResults(); ++j)
      if (isKeptInLx(kernel.getDestinationPath(j)))
        kept.push_back(j);
    return kept;
  }

  /// Chooses the tile and split of loop `l` and those after it, with
  /// `coresLeft` cores for them.
  void visit(int64_t l, int64_t coresLeft) {
    if (l == n) {
      evaluate();
      return;
    }
    for (int64_t t : tileChoices[l]) {
      tile[l] = t;
      int64_t tiles = llvm::divideCeil(space[l], t);
      bool splittable =
          kernel.getIteratorKinds()[l] == IteratorKind::parallel ||
          (l == kLoop && parallelLoopsSplitWhole());
      for (int64_t s : KernelPlan::powersUpTo(std::min(tiles, coresLeft))) {
        if (!splittable && s > 1)
          break;
        split[l] = s;
        visit(l + 1, coresLeft / s);
      }
      split[l] = 1;
    }
    tile[l] = 1;
  }

  /// Whether every parallel loop has a core per tile: k is split only
  /// where the parallel loops offer too few tiles for the cores (and the
  /// search stays small).
  bool parallelLoopsSplitWhole() const {
    for (int64_t l = 0; l < n; ++l)
      if (l != kLoop &&
          split[l] != int64_t(llvm::divideCeil(space[l], tile[l])))
        return false;
    return true;
  }

  /// Plans the current candidate, streamed and, where inputs can be held
  /// whole along the accumulation loop (a matmul's lhs, an attention's
  /// keys and values), held; keeps what fits and wins. Results the kernel
  /// keeps in LX (destination `lx`) that it writes in several tiles per
  /// core are kept whole (`keep`).
  void evaluate() {
    SmallVector<int64_t> keep;
    FailureOr<KernelPlan> plan = evaluate({}, keep);
    if (failed(plan) && !keptInLx.empty()) {
      keep = keptInLx;
      plan = evaluate({}, keep);
    }
    // An input read in place may be one tile per core only when held (a
    // matmul's lhs whole along k): what the plan could hold if it moved
    // every tensor by DMA.
    if (failed(plan) && readsOnChip)
      plan = KernelPlan::build(kernel,
                               ScheduleAttr::get(ctx, split, tile, tryDepth,
                                                 /*costNs=*/0, {}, keep),
                               arch, /*emitErrors=*/false, /*withPaths=*/false);
    if (failed(plan))
      return;
    if (SmallVector<int64_t> holdable = plan->holdableInputs();
        !holdable.empty())
      (void)evaluate(holdable, keep);
  }

  /// The plan of the current candidate holding `hold` and keeping `keep`,
  /// when it builds; kept as the best when it also fits and wins.
  FailureOr<KernelPlan> evaluate(ArrayRef<int64_t> hold,
                                 ArrayRef<int64_t> keep) {
    auto candidate =
        ScheduleAttr::get(ctx, split, tile, tryDepth, /*costNs=*/0, hold, keep);
    FailureOr<KernelPlan> plan =
        KernelPlan::build(kernel, candidate, arch, /*emitErrors=*/false);
    if (failed(plan) || plan->lxBytes() > arch.usableLxBytes() ||
        plan->hardwareLoops().size() > KernelPlan::kMaxHardwareLoops ||
        (accept && !accept(*plan)))
      return plan;
    double ns = cost ? cost(*plan) : plan->estimateNs();
    int64_t used = candidate.getNumCores();
    if (!beats(ns, used))
      return plan;
    best = ScheduleAttr::get(ctx, split, tile, tryDepth,
                             int64_t(std::llround(ns)), hold, keep);
    bestNs = ns;
    bestCores = used;
    return plan;
  }

  /// Strictly faster wins; among equals, fewer cores (less contention for
  /// everything else) and the earlier (smaller-tile) candidate.
  bool beats(double ns, int64_t used) const {
    return !best || ns < bestNs * (1 - 1e-9) ||
           (ns <= bestNs * (1 + 1e-9) && used < bestCores);
  }
};

} // namespace

ScheduleAttr searchSchedule(KernelOp kernel, const KernelPlan::Roles &roles,
                            const Arch &arch, int64_t cores, int64_t depth,
                            PlanFilter accept, PlanCost cost) {
  ScheduleSearch search(kernel, roles, arch,
                        KernelPlan::tileChoices(kernel, roles, arch));
  search.restrictTo(std::move(accept));
  search.costBy(std::move(cost));
  if (roles.singleCore)
    cores = 1;
  ScheduleAttr best = search.run(depth, cores);
  // A kernel whose buffers fit only once runs without pipelining rather
  // than not at all (spyre-form-kernels fuses up to that bound).
  if (!best && depth > 1)
    best = search.run(/*depth=*/1, cores);
  return best;
}

} // namespace spyre
