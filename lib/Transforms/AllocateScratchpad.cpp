//===- AllocateScratchpad.cpp - spyre-allocate-scratchpad -----------------===//
//
// Two allocations:
//  * per core, the LX offsets of every kernel's buffers (KernelPlan), over
//    the whole launch plan: buffers live for the whole kernel except the
//    body's temporaries, which share space once dead; a result handed to
//    its consumers in LX (Residency.h) holds its region from its producer
//    to its last consumer, every consumer reads it there (or gathers it
//    over the ring, RingExchange.h) and every other kernel in between
//    places its buffers around it; the total must fit the usable LX at
//    every kernel;
//  * device memory for tensors passed between kernels: first-fit offsets in
//    one workspace, reusing a dead tensor's bytes (a result kept in LX has
//    none).
//
//===----------------------------------------------------------------------===//

#include "Preconditions.h"
#include "Residency.h"
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
/// and the peak. Lifetimes are positions in program order; an item with a
/// fixed offset keeps it, and the others are placed around it.
struct Interval {
  int64_t start, end, bytes;
  int64_t fixed = -1;
};

SmallVector<int64_t> firstFit(ArrayRef<Interval> items, int64_t alignment,
                              int64_t &peak) {
  SmallVector<int64_t> offsets(items.size(), -1);
  peak = 0;
  for (auto [i, item] : llvm::enumerate(items))
    if (item.fixed >= 0) {
      offsets[i] = item.fixed;
      peak = std::max(peak, item.fixed + item.bytes);
    }
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].fixed >= 0)
      continue;
    // Ranges taken by items alive at the same time, sorted by offset.
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (size_t j = 0; j < items.size(); ++j)
      if (j != i && offsets[j] >= 0 && items[j].start < items[i].end &&
          items[i].start < items[j].end)
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
/// else lives for the whole kernel. A value computed in place starts where
/// the first value of its buffer does.
void startTemporariesAtTheirOp(const KernelPlan &plan,
                               DenseMap<Operation *, int64_t> &order,
                               SmallVectorImpl<Interval> &items) {
  for (auto &[value, pv] : plan.values) {
    int64_t idx = plan.valueBuffer.lookup(value);
    if (pv.storedAs >= 0 || pv.copies > 1 || pv.alias || pv.inPlace)
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

/// LX over one function's launch plan: each kernel's buffers, placed in
/// plan order around the regions of the handoffs held while it runs. A
/// kernel that does not fit beside them drops the largest held handoff
/// and tries again; without any it fits as it would alone, or the error
/// is its own.
class LxPlanner {
public:
  LxPlanner(MutableArrayRef<KernelPlan> plans, SmallVector<Handoff> handoffs,
            const Arch &arch)
      : plans(plans), handoffs(std::move(handoffs)), arch(arch) {}

  LogicalResult run() {
    for (size_t k = 0; k < plans.size(); ++k)
      if (failed(placeKernel(k)))
        return failure();
    return success();
  }

  ArrayRef<Handoff> result() const { return handoffs; }

private:
  MutableArrayRef<KernelPlan> plans;
  SmallVector<Handoff> handoffs;
  const Arch &arch;

  LogicalResult placeKernel(size_t k) {
    KernelPlan &plan = plans[k];
    while (true) {
      int64_t whole = 0;
      SmallVector<Interval> items = bufferLifetimes(plan, whole);
      for (const Handoff &h : handoffs) {
        if (!h.heldAt(k))
          continue;
        const Handoff::Reader *reader = h.readerAt(k);
        if (reader && !reader->gathers)
          items[reader->buffer].fixed = h.offset; // read where it is
        else
          items.push_back({0, whole, h.bytes, h.offset}); // kept free
      }
      // A tile kept for later kernels goes to the top of LX: the kernels
      // it is held through (and a reader gathering it) place their own
      // buffers below it, where it splits their space the least.
      SmallVector<Interval> topped = items;
      int64_t peak = 0;
      SmallVector<int64_t> offsets;
      if (placeHeldOnTop(k, topped)) {
        offsets = firstFit(topped, arch.lxAlignment, peak);
        if (peak <= arch.usableLxBytes()) {
          commit(k, offsets, topped, whole);
          return success();
        }
      }
      offsets = firstFit(items, arch.lxAlignment, peak);
      if (peak <= arch.usableLxBytes()) {
        commit(k, offsets, items, whole);
        return success();
      }
      Handoff *largest = nullptr;
      for (Handoff &h : handoffs)
        if (h.heldAt(k) && (!largest || h.bytes > largest->bytes))
          largest = &h;
      if (!largest)
        return reportLxOverflow(plan.kernel, plan, arch, peak);
      largest->kept = false;
    }
  }

  /// Fixes the buffer of each result kernel `k` keeps in LX for later
  /// kernels at the highest offset free of the regions held around it;
  /// false when there is none.
  bool placeHeldOnTop(size_t k, MutableArrayRef<Interval> items) {
    auto below = [&](int64_t end, int64_t bytes) {
      return end < bytes ? int64_t(-1)
                         : (end - bytes) / arch.lxAlignment * arch.lxAlignment;
    };
    bool any = false;
    for (const Handoff &h : handoffs) {
      // A buffer already pinned (a tile alias of an input read in place
      // is that input's buffer) stays where it is.
      if (!h.kept || h.producer != k || items[h.producerBuffer].fixed >= 0)
        continue;
      int64_t offset = below(arch.usableLxBytes(), h.bytes);
      for (bool moved = true; moved && offset >= 0;) {
        moved = false;
        for (const Interval &other : items)
          if (&other != &items[h.producerBuffer] && other.fixed >= 0 &&
              other.fixed < offset + h.bytes &&
              offset < other.fixed + other.bytes) {
            offset = below(other.fixed, h.bytes);
            moved = true;
            break;
          }
      }
      if (offset < 0)
        return false;
      items[h.producerBuffer].fixed = offset;
      any = true;
    }
    return any;
  }

  void commit(size_t k, ArrayRef<int64_t> offsets, ArrayRef<Interval> items,
              int64_t whole) {
    KernelPlan &plan = plans[k];
    for (auto [b, offset, item] : llvm::zip(plan.buffers, offsets, items)) {
      b.offset = offset;
      if (item.start != 0 || item.end != whole)
        b.live = {item.start, item.end - 1};
    }
    for (Handoff &h : handoffs)
      if (h.kept && h.producer == k)
        h.offset = plan.buffers[h.producerBuffer].offset;
  }
};

/// `sources` and `destinations` of each kernel with a kept handoff.
void recordHandoffs(ArrayRef<KernelPlan> plans, ArrayRef<Handoff> handoffs) {
  auto paths = [](size_t n) { return SmallVector<StringRef>(n, "dma"); };
  DenseMap<size_t, SmallVector<StringRef>> sources, destinations;
  for (const Handoff &h : handoffs) {
    if (!h.kept)
      continue;
    KernelOp producer = plans[h.producer].kernel;
    destinations.try_emplace(h.producer, paths(producer.getNumResults()))
        .first->second[h.result] = h.stored ? "lx_dma" : "lx";
    for (const Handoff::Reader &r : h.readers)
      sources
          .try_emplace(r.kernel,
                       paths(plans[r.kernel].kernel.getInputs().size()))
          .first->second[r.input] = r.gathers ? "ring" : "lx";
  }
  for (auto [k, plan] : llvm::enumerate(plans)) {
    Builder b(plan.kernel.getContext());
    if (auto it = sources.find(k); it != sources.end())
      plan.kernel.setSourcesAttr(b.getStrArrayAttr(it->second));
    if (auto it = destinations.find(k); it != destinations.end())
      plan.kernel.setDestinationsAttr(b.getStrArrayAttr(it->second));
  }
}

struct AllocateScratchpadPass
    : public spyre::impl::SpyreAllocateScratchpadBase<AllocateScratchpadPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(requireKernels(module, getArgument())))
      return signalPassFailure();
    Arch arch = getArch(module);
    for (auto func : module.getOps<func::FuncOp>()) {
      if (failed(allocateLx(func, arch)))
        return signalPassFailure();
      planWorkspace(func, arch);
    }
  }

  LogicalResult allocateLx(func::FuncOp func, const Arch &arch) {
    std::vector<KernelPlan> plans;
    WalkResult r = func.walk([&](KernelOp kernel) {
      ScheduleAttr schedule = kernel.getScheduleAttr();
      if (!schedule) {
        kernel.emitError("kernel has no schedule; run "
                         "spyre-schedule-cores first");
        return WalkResult::interrupt();
      }
      FailureOr<KernelPlan> plan = KernelPlan::build(kernel, schedule, arch);
      if (failed(plan))
        return WalkResult::interrupt();
      plans.push_back(std::move(*plan));
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return failure();
    LxPlanner planner(
        plans, resident ? findHandoffs(plans, ring) : SmallVector<Handoff>(),
        arch);
    if (failed(planner.run()))
      return failure();
    for (KernelPlan &plan : plans)
      plan.kernel.setBuffersAttr(plan.getBufferAttrs(func.getContext()));
    recordHandoffs(plans, planner.result());
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
        if (reachesReturn(r) ||
            kernel.getDestinationPath(r.getResultNumber()) == DataPath::lx)
          continue; // the caller's output buffer, or no device memory
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
