//===- AllocateScratchpad.cpp - spyre-allocate-scratchpad -----------------===//
//
// Two allocations:
//  * per core, the LX offsets of a kernel's buffers (KernelPlan): buffers
//    live for the whole kernel except the body's temporaries, which share
//    space once dead; the total must fit the usable LX;
//  * device memory for tensors passed between kernels: first-fit offsets in
//    one workspace, reusing a dead tensor's bytes.
//
//===----------------------------------------------------------------------===//

#include "Preconditions.h"
#include "spyre/Support/MathExtras.h"
#include "spyre/Transforms/KernelPlan.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include <cstdio>

namespace spyre {
#define GEN_PASS_DEF_SPYREALLOCATESCRATCHPAD
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {

/// First-fit placement of [start, end) lifetimes with sizes; returns offsets
/// and the peak. Lifetimes are positions in program order.
struct Interval {
  int64_t start, end, bytes;
};

SmallVector<int64_t> firstFit(ArrayRef<Interval> items, int64_t alignment,
                              int64_t &peak) {
  SmallVector<int64_t> offsets(items.size(), -1);
  peak = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    // Ranges taken by items alive at the same time, sorted by offset.
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (size_t j = 0; j < i; ++j)
      if (items[j].start < items[i].end && items[i].start < items[j].end)
        taken.push_back({offsets[j], offsets[j] + items[j].bytes});
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [b, e] : taken) {
      if (offset + items[i].bytes <= b)
        break;
      offset = std::max(offset, alignTo(e, alignment));
    }
    offsets[i] = offset;
    peak = std::max(peak, offset + items[i].bytes);
  }
  return offsets;
}

/// A fraction as people write it: 0, 0.05.
std::string formatNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

/// Whether `v` reaches a function return, directly or through reshape views.
bool reachesReturn(Value v) {
  for (Operation *user : v.getUsers()) {
    if (isa<func::ReturnOp>(user))
      return true;
    if (auto view = dyn_cast<ReshapeOp>(user))
      if (reachesReturn(view.getResult()))
        return true;
  }
  return false;
}

/// Position (in `order`) of the last op using `v`, through views.
int64_t lastUse(Value v, const DenseMap<Operation *, int64_t> &order) {
  int64_t last = order.lookup(v.getDefiningOp());
  for (Operation *user : v.getUsers()) {
    last = std::max(last, order.lookup(user));
    if (auto view = dyn_cast<ReshapeOp>(user))
      last = std::max(last, lastUse(view.getResult(), order));
  }
  return last;
}

/// The position of each op of `body` in order.
DenseMap<Operation *, int64_t> positionsIn(Block &body) {
  DenseMap<Operation *, int64_t> order;
  int64_t pos = 0;
  for (Operation &op : body)
    order[&op] = pos++;
  return order;
}

/// Body temporaries (one copy, not stored) start at their op; everything
/// else lives for the whole kernel.
void startTemporariesAtTheirOp(const KernelPlan &plan,
                               DenseMap<Operation *, int64_t> &order,
                               SmallVectorImpl<Interval> &items) {
  for (auto &[value, pv] : plan.values) {
    int64_t idx = plan.valueBuffer.lookup(value);
    if (pv.storedAs >= 0 || pv.copies > 1 || pv.alias)
      continue;
    items[idx].start = order[pv.op];
    items[idx].end = order[pv.op] + 1;
  }
}

/// A value lives until its last user; a move that leaves the tile as it
/// is (an alias) keeps its source's buffer alive for its own users, and
/// never shortens it (an input's buffer stays live for the next tile's
/// prefetch).
void extendToLastUsers(const KernelPlan &plan,
                       DenseMap<Operation *, int64_t> &order,
                       SmallVectorImpl<Interval> &items) {
  for (auto &[value, pv] : plan.values) {
    int64_t idx = plan.valueBuffer.lookup(value);
    for (Operation *user : value.getUsers())
      items[idx].end = std::max(items[idx].end, order[user] + 1);
  }
}

/// The lifetime of each of the plan's buffers in body positions; `whole`
/// is set to the end of the whole kernel.
SmallVector<Interval> bufferLifetimes(const KernelPlan &plan, int64_t &whole) {
  DenseMap<Operation *, int64_t> order =
      positionsIn(plan.kernel.getBodyBlock());
  whole = int64_t(order.size()) + 1;
  SmallVector<Interval> items;
  for (const PlanBuffer &b : plan.buffers)
    items.push_back({0, whole, b.bytes * b.copies});
  startTemporariesAtTheirOp(plan, order, items);
  extendToLastUsers(plan, order, items);
  return items;
}

/// The error of a kernel whose buffers need `peak` bytes of LX, more than
/// the usable part, with a note per buffer.
LogicalResult reportLxOverflow(KernelOp kernel, const KernelPlan &plan,
                               const Arch &arch, int64_t peak) {
  InFlightDiagnostic diag =
      kernel.emitError("kernel '")
      << kernel.getName() << "' needs " << peak << " bytes of LX per core; "
      << arch.usableLxBytes() << " are usable (lx_bytes " << arch.lxBytes
      << ", reserved fraction " << formatNumber(arch.lxReservedFraction) << ")";
  plan.noteBuffers(diag);
  return diag;
}

struct AllocateScratchpadPass
    : public spyre::impl::SpyreAllocateScratchpadBase<AllocateScratchpadPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(requireKernels(module, getArgument())))
      return signalPassFailure();
    Arch arch = getArch(module);
    WalkResult r = module.walk([&](KernelOp kernel) {
      if (failed(allocateLx(kernel, arch)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return signalPassFailure();
    for (auto func : module.getOps<func::FuncOp>())
      planWorkspace(func, arch);
  }

  LogicalResult allocateLx(KernelOp kernel, const Arch &arch) {
    ScheduleAttr schedule = kernel.getScheduleAttr();
    if (!schedule)
      return kernel.emitError("kernel has no schedule; run "
                              "spyre-schedule-cores first");
    FailureOr<KernelPlan> plan = KernelPlan::build(kernel, schedule, arch);
    if (failed(plan))
      return failure();

    // Body temporaries (one copy, not stored) live from their op to their
    // last user in the body; everything else for the whole kernel.
    int64_t whole = 0;
    SmallVector<Interval> items = bufferLifetimes(*plan, whole);
    int64_t peak = 0;
    SmallVector<int64_t> offsets = firstFit(items, arch.lxAlignment, peak);
    if (peak > arch.usableLxBytes())
      return reportLxOverflow(kernel, *plan, arch, peak);
    for (auto [b, offset, item] : llvm::zip(plan->buffers, offsets, items)) {
      b.offset = offset;
      if (item.start != 0 || item.end != whole)
        b.live = {item.start, item.end - 1};
    }
    kernel.setBuffersAttr(plan->getBufferAttrs(kernel.getContext()));
    return success();
  }

  void planWorkspace(func::FuncOp func, const Arch &arch) {
    DenseMap<Operation *, int64_t> order;
    int64_t pos = 0;
    func.walk([&](Operation *op) { order[op] = pos++; });
    SmallVector<std::pair<KernelOp, unsigned>> owners;
    SmallVector<Interval> items;
    func.walk([&](KernelOp kernel) {
      for (OpResult r : kernel.getResults()) {
        if (reachesReturn(r))
          continue; // the caller's output buffer
        auto type = cast<RankedTensorType>(r.getType());
        int64_t bytes = getLayout(type).getDeviceElements(type.getShape()) *
                        getElementBytes(type.getElementType());
        owners.push_back({kernel, r.getResultNumber()});
        items.push_back({order[kernel], lastUse(r, order) + 1, bytes});
      }
    });
    int64_t peak = 0;
    SmallVector<int64_t> offsets = firstFit(items, arch.stickBytes, peak);
    func.walk([&](KernelOp kernel) {
      SmallVector<int64_t> resultOffsets(kernel.getNumResults(), -1);
      for (auto [owner, offset] : llvm::zip(owners, offsets))
        if (owner.first == kernel)
          resultOffsets[owner.second] = offset;
      kernel.setResultOffsets(resultOffsets);
    });
    func->setAttr("spyre.workspace_bytes",
                  Builder(func.getContext()).getI64IntegerAttr(peak));
  }
};

} // namespace
