//===- ScheduleCores.cpp - spyre-schedule-cores ---------------------------===//
//
// Chooses, for every kernel, how its loops are split over the cores and
// tiled, by evaluating candidate schedules with the cost model of
// KernelPlan::estimateNs (numbers from the machine description) and keeping
// the fastest that fits LX and the hardware loop depth.
//
//===----------------------------------------------------------------------===//

#include "spyre/Transforms/KernelPlan.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

namespace spyre {
#define GEN_PASS_DEF_SPYRESCHEDULECORES
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {

/// 1, 2, 4, ... up to `limit`, plus `limit` itself.
SmallVector<int64_t> powersUpTo(int64_t limit) {
  llvm::SetVector<int64_t> v;
  for (int64_t p = 1; p < limit; p *= 2)
    v.insert(p);
  v.insert(limit);
  return v.takeVector();
}

/// Candidate tiles of a loop whose tensors are stored in sticks of `e`
/// elements: whole sticks dividing the padded stick count (powers of two
/// and the whole loop).
SmallVector<int64_t> stickTiles(int64_t size, int64_t e) {
  int64_t sticks = llvm::divideCeil(size, e);
  llvm::SetVector<int64_t> v;
  for (int64_t s = 1; s < sticks; s *= 2)
    if (sticks % s == 0)
      v.insert(s * e);
  v.insert(size);
  return v.takeVector();
}

/// The largest stick size (in elements) among the kernel's tensors along
/// loop `l`, so that a tile is whole sticks for all of them.
int64_t stickElementsAlong(KernelOp kernel, int64_t loop, const Arch &arch) {
  int64_t e = 1;
  SmallVector<AffineMap> maps = llvm::to_vector(
      kernel.getIndexingMapsAttr().getAsValueRange<AffineMapAttr>());
  SmallVector<Type> types(kernel.getInputs().getTypes());
  llvm::append_range(types, kernel.getResultTypes());
  for (auto [map, type] : llvm::zip(maps, types)) {
    LayoutAttr layout = getLayout(type);
    if (!layout || layout.getStickDim() < 0)
      continue;
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(layout.getStickDim()));
    if (dim && dim.getPosition() == unsigned(loop))
      e = std::lcm(e, layout.getStickElems());
  }
  // Matmul accumulators are f32.
  FailureOr<KernelPlan::Roles> roles =
      KernelPlan::roles(kernel, /*emitErrors=*/false);
  if (succeeded(roles) && roles->kind == KernelKind::Matmul &&
      loop == roles->stickLoop)
    e = std::lcm(e, arch.stickBytes / 4);
  // The transposed input's rows are the result's sticks and vice versa.
  if (succeeded(roles) && roles->kind == KernelKind::Transpose &&
      loop == roles->stickLoop) {
    auto out = cast<RankedTensorType>(kernel.getResult(0).getType());
    e = std::lcm(e, elementsPerStick(out.getElementType(), arch));
  }
  return e;
}

struct ScheduleCoresPass
    : public spyre::impl::SpyreScheduleCoresBase<ScheduleCoresPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Arch arch = getArch(module);
    int64_t cores = maxCores > 0 ? std::min<int64_t>(maxCores, arch.cores)
                                 : arch.cores;
    if (depth < 1) {
      module.emitError("depth must be at least 1");
      return signalPassFailure();
    }
    WalkResult r = module.walk([&](KernelOp kernel) {
      if (kernel.getScheduleAttr())
        return WalkResult::advance();
      if (failed(schedule(kernel, arch, cores)))
        return WalkResult::interrupt();
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

    // Candidate tiles per loop: whole loops; whole sticks along a loop that
    // is some tensor's stick; powers of two along the row and accumulation
    // loops; 1 for outer loops.
    SmallVector<SmallVector<int64_t>> tileChoices(n);
    for (int64_t l = 0; l < n; ++l) {
      int64_t e = stickElementsAlong(kernel, l, arch);
      if (llvm::is_contained(roles->wholeLoops, l))
        tileChoices[l] = {space[l]};
      else if (e > 1)
        tileChoices[l] = stickTiles(space[l], e);
      else if (l == roles->rowLoop || l == roles->accLoop)
        tileChoices[l] = powersUpTo(space[l]);
      else
        tileChoices[l] = {1};
    }

    ScheduleAttr best;
    double bestNs = 0;
    int64_t bestCores = 0;
    SmallVector<int64_t> tile(n, 1), split(n, 1);
    // Depth-first over loops: tiles, then splits that the tiles allow.
    std::function<void(int64_t, int64_t)> visit = [&](int64_t l,
                                                      int64_t coresLeft) {
      if (l == n) {
        auto candidate =
            ScheduleAttr::get(ctx, split, tile, depth, /*costNs=*/0);
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
          best = ScheduleAttr::get(ctx, split, tile, depth,
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
        for (int64_t s : powersUpTo(std::min(tiles, coresLeft))) {
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

    if (!best) {
      // Rebuild the smallest schedule with diagnostics to say why.
      SmallVector<int64_t> smallestTiles;
      for (auto &choices : tileChoices)
        smallestTiles.push_back(choices.front());
      auto smallest = ScheduleAttr::get(ctx, SmallVector<int64_t>(n, 1),
                                        smallestTiles, depth, 0);
      FailureOr<KernelPlan> plan = KernelPlan::build(kernel, smallest, arch);
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
