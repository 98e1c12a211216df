//===- ScheduleCores.cpp - spyre-schedule-cores ---------------------------===//
//
// Chooses, for every kernel, how its loops are split over the cores and
// tiled, by evaluating candidate schedules with the cost model of
// KernelPlan::estimateNs (numbers from the machine description) and keeping
// the fastest that fits LX and the hardware loop depth. Kernels that differ
// only in name and location share one search (KernelSignature). Then, in
// plan order, a consumer may take the schedule that reads an input where
// its producer leaves it in LX (Residency.h) when that is faster for the
// pair than its own best.
//
//===----------------------------------------------------------------------===//

#include "Preconditions.h"
#include "Residency.h"
#include "ScheduleCache.h"
#include "spyre/Transforms/KernelPlan.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <functional>
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

/// The depth-first search over one kernel's candidate schedules: tiles of
/// each loop, then the splits the tiles allow, keeping the fastest plan
/// that fits LX and the hardware loop depth.
class ScheduleSearch {
public:
  ScheduleSearch(KernelOp kernel, const Arch &arch,
                 SmallVector<SmallVector<int64_t>> tileChoices)
      : kernel(kernel), arch(arch), ctx(kernel.getContext()),
        space(kernel.getSpace()), n(space.size()),
        tileChoices(std::move(tileChoices)), tile(n, 1), split(n, 1) {}

  /// Admits only the plans `accept` holds true for.
  void restrictTo(std::function<bool(const KernelPlan &)> accept) {
    this->accept = std::move(accept);
  }

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
  int64_t tryDepth = 1;
  std::function<bool(const KernelPlan &)> accept;

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
  }

  /// Plans the current candidate and keeps it if it fits and wins.
  void evaluate() {
    auto candidate =
        ScheduleAttr::get(ctx, split, tile, tryDepth, /*costNs=*/0);
    FailureOr<KernelPlan> plan =
        KernelPlan::build(kernel, candidate, arch, /*emitErrors=*/false);
    if (failed(plan) || plan->lxBytes() > arch.usableLxBytes() ||
        plan->hardwareLoops().size() > KernelPlan::kMaxHardwareLoops ||
        (accept && !accept(*plan)))
      return;
    double ns = plan->estimateNs();
    int64_t used = candidate.getNumCores();
    if (!beats(ns, used))
      return;
    best = ScheduleAttr::get(ctx, split, tile, tryDepth,
                             int64_t(std::llround(ns)));
    bestNs = ns;
    bestCores = used;
  }

  /// Strictly faster wins; among equals, fewer cores (less contention for
  /// everything else) and the earlier (smaller-tile) candidate.
  bool beats(double ns, int64_t used) const {
    return !best || ns < bestNs * (1 - 1e-9) ||
           (ns <= bestNs * (1 + 1e-9) && used < bestCores);
  }
};

/// The fastest schedule of `kernel` at `depth` (single-buffered when
/// nothing fits with it) among those `accept` admits (all when null), on
/// at most `cores` cores; null when none fits.
ScheduleAttr searchSchedule(KernelOp kernel, const KernelPlan::Roles &roles,
                            const Arch &arch, int64_t cores, int64_t depth,
                            std::function<bool(const KernelPlan &)> accept) {
  ScheduleSearch search(kernel, arch,
                        KernelPlan::tileChoices(kernel, roles, arch));
  search.restrictTo(std::move(accept));
  if (roles.singleCore)
    cores = 1;
  ScheduleAttr best = search.run(depth, cores);
  // A kernel whose buffers fit only once runs without pipelining rather
  // than not at all (spyre-form-kernels fuses up to that bound).
  if (!best && depth > 1)
    best = search.run(/*depth=*/1, cores);
  return best;
}

/// One kernel value's data path set to `lx` while in scope (the others
/// `dma`), so that plans are costed as if it stayed in LX; the kernel's
/// own paths are restored after.
class ScopedLxPath {
public:
  ScopedLxPath(KernelOp kernel, bool isResult, unsigned index)
      : kernel(kernel), name(isResult ? kernel.getDestinationsAttrName()
                                      : kernel.getSourcesAttrName()),
        saved(kernel->getAttr(name)) {
    size_t n = isResult ? kernel.getNumResults() : kernel.getInputs().size();
    SmallVector<StringRef> paths(n, "dma");
    paths[index] = "lx";
    kernel->setAttr(name, Builder(kernel.getContext()).getStrArrayAttr(paths));
  }
  ~ScopedLxPath() {
    if (saved)
      kernel->setAttr(name, saved);
    else
      kernel->removeAttr(name);
  }

private:
  KernelOp kernel;
  StringAttr name;
  Attribute saved;
};

/// Re-chooses schedules so that a kernel result stays in LX for its
/// readers. For each consumer input that is a kernel result only kernels
/// read, two ways are weighed against the consumer's own best:
///  * read in place: the producer writes the result once per core; the
///    consumer takes its fastest schedule that reads it on the same cores
///    in the same tiles (tilesStayPut), costed without that load, less
///    its share of the producer's saved store;
///  * re-plan both: when the producer (one result, this consumer its only
///    reader, its schedule its own best) streams the result in several
///    tiles per core, its fastest schedule writing it once per core
///    (costed without the store) and the consumer's fastest schedule
///    reading that in place, by their sum against the two own bests.
/// Kernels in plan order, so a consumer sees its producer's final
/// schedule. A choice is kept per consumer signature and producers'
/// signatures (and in the cache directory with the others).
class HandoffAligner {
public:
  HandoffAligner(const Arch &arch, int64_t cores, int64_t depth,
                 const std::optional<ScheduleCache> &cache)
      : arch(arch), cores(cores), depth(depth), cache(cache) {}

  void align(KernelOp consumer) {
    std::string key = "handoff " + kernelSignature(consumer);
    SmallVector<std::pair<unsigned, KernelOp>> producers;
    for (auto [i, input] : llvm::enumerate(consumer.getInputs())) {
      auto producer = input.getDefiningOp<KernelOp>();
      if (!producer || !producer.getScheduleAttr() || !readByKernels(input))
        continue;
      producers.push_back({unsigned(i), producer});
      key += "\ninput " + std::to_string(i) + " from result " +
             std::to_string(cast<OpResult>(input).getResultNumber()) + " of " +
             kernelSignature(producer) + (replanned.count(producer) ? "*" : "");
    }
    if (producers.empty())
      return;
    Choice choice;
    if (!lookup(key, consumer, producers, choice)) {
      choice.consumer = consumer.getScheduleAttr();
      double bestNs = double(choice.consumer.getCostNs());
      for (auto [i, producer] : producers) {
        for (Choice c : {readInPlace(consumer, i, producer),
                         replanBoth(consumer, i, producer)})
          if (c.consumer && c.ns < bestNs) {
            bestNs = c.ns;
            choice = c;
          }
      }
      remember(key, choice);
    }
    consumer.setScheduleAttr(choice.consumer);
    if (choice.producer) {
      choice.producer.setScheduleAttr(choice.producerSchedule);
      replanned.insert(choice.producer);
    }
    if (choice.consumer != consumer.getScheduleAttr() || choice.producer)
      replanned.insert(consumer);
  }

private:
  /// A consumer's schedule, and a producer's when it changes too; `ns`:
  /// the consumer's cost plus the change in the producer's.
  struct Choice {
    ScheduleAttr consumer;
    KernelOp producer;
    ScheduleAttr producerSchedule;
    unsigned input = 0;
    double ns = 0;
  };

  const Arch &arch;
  int64_t cores, depth;
  const std::optional<ScheduleCache> &cache;
  std::map<std::string, Choice> chosen;
  /// Kernels whose schedule this aligner changed: not re-planned again
  /// (their own handoff would be lost).
  llvm::SmallPtrSet<Operation *, 16> replanned;

  /// Whether every use of `v` is a kernel input and no kernel reads it
  /// twice (what a handoff needs, Residency.h).
  static bool readByKernels(Value v) {
    llvm::SmallPtrSet<Operation *, 4> readers;
    return llvm::all_of(v.getUses(), [&](OpOperand &use) {
      return isa<KernelOp>(use.getOwner()) &&
             readers.insert(use.getOwner()).second;
    });
  }

  /// `kernel`'s plan at `schedule`, with its value (result or input)
  /// `index` kept in LX when `keep` is set.
  FailureOr<KernelPlan> planOf(KernelOp kernel, ScheduleAttr schedule,
                               std::optional<std::pair<bool, unsigned>> keep) {
    std::optional<ScopedLxPath> kept;
    if (keep)
      kept.emplace(kernel, keep->first, keep->second);
    return KernelPlan::build(kernel, schedule, arch, /*emitErrors=*/false);
  }

  /// The fastest schedule of `kernel` with its value `index` (a result
  /// when `isResult`) kept in LX and, if given, the candidates `accept`
  /// admits.
  ScheduleAttr searchKeeping(KernelOp kernel, bool isResult, unsigned index,
                             std::function<bool(const KernelPlan &)> accept) {
    FailureOr<KernelPlan::Roles> roles =
        KernelPlan::roles(kernel, /*emitErrors=*/false);
    if (failed(roles))
      return {};
    ScopedLxPath kept(kernel, isResult, index);
    return searchSchedule(kernel, *roles, arch, cores, depth,
                          std::move(accept));
  }

  /// The consumer's fastest schedule reading input `i` in place from
  /// `written` (the producer's plan, its result `j`).
  ScheduleAttr readerOf(KernelOp consumer, unsigned i,
                        const KernelPlan &written, unsigned j) {
    return searchKeeping(consumer, /*isResult=*/false, i,
                         [&](const KernelPlan &plan) {
                           return tilesStayPut(written, j, plan, i);
                         });
  }

  static unsigned resultOf(KernelOp consumer, unsigned i) {
    return cast<OpResult>(consumer.getInputs()[i]).getResultNumber();
  }

  Choice readInPlace(KernelOp consumer, unsigned i, KernelOp producer) {
    unsigned j = resultOf(consumer, i);
    ScheduleAttr schedule = producer.getScheduleAttr();
    FailureOr<KernelPlan> written = planOf(producer, schedule, std::nullopt);
    if (failed(written) ||
        !written->canHandOffInLx(
            written->tensors[producer.getInputs().size() + j]))
      return {};
    FailureOr<KernelPlan> keeping =
        planOf(producer, schedule, std::make_pair(true, j));
    if (failed(keeping))
      return {};
    double saved = written->estimateNs() - keeping->estimateNs();
    ScheduleAttr s = readerOf(consumer, i, *written, j);
    if (!s)
      return {};
    Value input = consumer.getInputs()[i];
    double readers = double(std::distance(input.use_begin(), input.use_end()));
    return {s, nullptr, nullptr, i, double(s.getCostNs()) - saved / readers};
  }

  Choice replanBoth(KernelOp consumer, unsigned i, KernelOp producer) {
    unsigned j = resultOf(consumer, i);
    if (producer.getNumResults() != 1 || !producer->getResult(0).hasOneUse() ||
        replanned.count(producer))
      return {};
    ScheduleAttr own = producer.getScheduleAttr();
    FailureOr<KernelPlan> current = planOf(producer, own, std::nullopt);
    // Written once per core already: readInPlace's case.
    if (failed(current) || current->canHandOffInLx(current->tensors.back()))
      return {};
    ScheduleAttr writing = searchKeeping(producer, /*isResult=*/true, j, {});
    if (!writing)
      return {};
    FailureOr<KernelPlan> written = planOf(producer, writing, std::nullopt);
    if (failed(written))
      return {};
    ScheduleAttr s = readerOf(consumer, i, *written, j);
    if (!s)
      return {};
    return {s, producer, writing, i,
            double(s.getCostNs()) + double(writing.getCostNs()) -
                double(own.getCostNs())};
  }

  /// A choice made before for this key (this compile or the cache).
  bool lookup(const std::string &key, KernelOp consumer,
              ArrayRef<std::pair<unsigned, KernelOp>> producers,
              Choice &choice) {
    if (auto it = chosen.find(key); it != chosen.end()) {
      choice = it->second;
      return true;
    }
    if (!cache)
      return false;
    MLIRContext *ctx = consumer.getContext();
    std::optional<ScheduleAttr> s = cache->lookup(key, ctx);
    if (!s)
      return false;
    choice = Choice();
    choice.consumer = *s;
    for (auto [i, producer] : producers)
      if (std::optional<ScheduleAttr> p =
              cache->lookup(producerKey(key, i), ctx)) {
        choice.producer = producer;
        choice.producerSchedule = *p;
        choice.input = i;
      }
    chosen[key] = choice;
    return true;
  }

  static std::string producerKey(const std::string &key, unsigned input) {
    return key + "\nproducer of input " + std::to_string(input);
  }

  void remember(const std::string &key, const Choice &choice) {
    chosen[key] = choice;
    if (!cache)
      return;
    // The search's own store warns when the directory cannot be written.
    std::string error;
    (void)cache->store(key, choice.consumer, error);
    if (choice.producer)
      (void)cache->store(producerKey(key, choice.input),
                         choice.producerSchedule, error);
  }
};

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
    HandoffAligner aligner(arch, cores, depth, schedules.cache);
    for (KernelOp kernel : searched)
      aligner.align(kernel);
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
        searchSchedule(kernel, *roles, arch, cores, depth, nullptr);
    if (!best)
      return explainNoSchedule(kernel, *roles, arch);
    kernel.setScheduleAttr(best);
    return success();
  }
};

} // namespace
