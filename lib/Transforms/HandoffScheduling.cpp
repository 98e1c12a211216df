//===- HandoffScheduling.cpp - Schedules that keep results in LX ----------===//

#include "HandoffScheduling.h"
#include "Residency.h"
#include "RingExchange.h"
#include "ScheduleSearch.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <map>

using namespace mlir;

namespace spyre {

namespace {

/// One kernel value's data path set to `path` (`lx`, or `ring` for an
/// input) while in scope (the others `dma`), so that plans are costed as
/// if it stayed on chip; the kernel's own paths are restored after.
class ScopedLxPath {
public:
  ScopedLxPath(KernelOp kernel, bool isResult, unsigned index,
               StringRef path = "lx")
      : kernel(kernel), name(isResult ? kernel.getDestinationsAttrName()
                                      : kernel.getSourcesAttrName()),
        saved(kernel->getAttr(name)) {
    size_t n = isResult ? kernel.getNumResults() : kernel.getInputs().size();
    SmallVector<StringRef> paths(n, "dma");
    paths[index] = path;
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
/// read, three ways are weighed against the consumer's own best:
///  * read in place: the producer writes the result once per core (in one
///    tile, or, at its schedule, kept whole in a slab of its tiles where
///    that fits LX); the consumer takes its fastest schedule that reads it
///    on the same cores in the same tiles (tilesStayPut), costed without
///    that load, less its share of the producer's saved store;
///  * re-plan both: when the producer (one result, this consumer its only
///    reader) streams the result in several tiles per core, its fastest
///    schedule writing it once per core (one tile, or all its tiles kept
///    whole in a slab; costed without the store) and the consumer's
///    fastest schedule reading that in place, by their sum against the
///    two own bests; a producer re-planned before keeps the handoffs of
///    its own inputs;
///  * gather over the ring: the producer (this consumer its result's only
///    reader) writes the result once per core, as it does or re-planned
///    as above, and the consumer takes its fastest schedule that gathers
///    its tiles from the producer's over the ring (RingExchange.h) where
///    that beats device memory.
/// Kernels in plan order, so a consumer sees its producer's final
/// schedule; kernels the input pinned are never re-planned. A choice is
/// kept per consumer signature and producers' signatures (and in the cache
/// directory with the others).
class HandoffAligner {
public:
  /// `kernels`: those it may re-plan (the others were pinned).
  HandoffAligner(ArrayRef<KernelOp> kernels, const Arch &arch, int64_t cores,
                 int64_t depth, bool ring,
                 const std::optional<ScheduleCache> &cache)
      : arch(arch), cores(cores), depth(depth), ring(ring), cache(cache) {
    for (KernelOp k : kernels)
      searched.insert(k);
  }

  void align(KernelOp consumer) {
    std::string key = "handoff " + kernelSignature(consumer);
    SmallVector<std::pair<unsigned, KernelOp>> producers =
        handoffProducers(consumer, key);
    if (producers.empty())
      return;
    Choice choice;
    if (!lookup(key, consumer, producers, choice)) {
      choice = bestChoice(consumer, producers);
      remember(key, choice);
    }
    apply(consumer, producers, choice);
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
    /// The consumer gathers `input` over the ring.
    bool overRing = false;
  };

  /// The consumer's inputs that kernel results only kernels read, with
  /// their producers; each appended to the choice's `key`.
  SmallVector<std::pair<unsigned, KernelOp>>
  handoffProducers(KernelOp consumer, std::string &key) {
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
    return producers;
  }

  /// The cheapest of the consumer's own best and every alternative.
  Choice bestChoice(KernelOp consumer,
                    ArrayRef<std::pair<unsigned, KernelOp>> producers) {
    Choice choice;
    choice.consumer = consumer.getScheduleAttr();
    choice.ns = double(choice.consumer.getCostNs());
    auto consider = [&](const Choice &c) {
      if (c.consumer && c.ns < choice.ns)
        choice = c;
    };
    for (auto [i, producer] : producers) {
      consider(readInPlace(consumer, i, producer));
      consider(replanBoth(consumer, i, producer));
    }
    // A gather keeps the handoffs the best choice so far reads in place
    // (no option here is credited with them).
    for (auto [i, producer] : producers)
      consider(gatherOverRing(consumer, i, producer,
                              readInPlaceAt(consumer, choice, producers, i)));
    return choice;
  }

  /// Sets the chosen schedules and marks what may not be re-planned.
  void apply(KernelOp consumer,
             ArrayRef<std::pair<unsigned, KernelOp>> producers, Choice choice) {
    bool changed = choice.consumer != consumer.getScheduleAttr();
    consumer.setScheduleAttr(choice.consumer);
    if (choice.producer) {
      choice.producer.setScheduleAttr(choice.producerSchedule);
      replanned.insert(choice.producer);
    }
    // Re-planning a consumer that reads an input in place or gathers one
    // would lose it.
    if (changed || choice.producer || choice.overRing ||
        readsInPlace(consumer, producers))
      replanned.insert(consumer);
  }

  const Arch &arch;
  int64_t cores, depth;
  bool ring;
  const std::optional<ScheduleCache> &cache;
  std::map<std::string, Choice> chosen;
  /// Kernels whose schedule this aligner changed: not re-planned again
  /// (their own handoff would be lost).
  llvm::SmallPtrSet<Operation *, 16> replanned;
  /// Kernels the input did not pin.
  llvm::SmallPtrSet<Operation *, 16> searched;

  /// The inputs but `except` that `consumer` reads in place under
  /// `choice`'s schedule from producers at the schedules they have (a
  /// gather does not carry another producer's re-plan), with their
  /// writers' plans.
  std::vector<std::pair<unsigned, KernelPlan>>
  readInPlaceAt(KernelOp consumer, const Choice &choice,
                ArrayRef<std::pair<unsigned, KernelOp>> producers,
                unsigned except) {
    std::vector<std::pair<unsigned, KernelPlan>> found;
    FailureOr<KernelPlan> reader =
        planOf(consumer, choice.consumer, std::nullopt);
    if (failed(reader))
      return found;
    for (auto [i, producer] : producers) {
      if (i == except)
        continue;
      FailureOr<KernelPlan> writer =
          planOf(producer, producer.getScheduleAttr(), std::nullopt);
      if (succeeded(writer) &&
          tilesStayPut(*writer, resultOf(consumer, i), *reader, i))
        found.push_back({i, std::move(*writer)});
    }
    return found;
  }

  /// Whether `consumer`, at the schedule it has, reads one of its
  /// `producers`' results in place.
  bool readsInPlace(KernelOp consumer,
                    ArrayRef<std::pair<unsigned, KernelOp>> producers) {
    FailureOr<KernelPlan> reader =
        planOf(consumer, consumer.getScheduleAttr(), std::nullopt);
    return succeeded(reader) &&
           llvm::any_of(producers, [&](std::pair<unsigned, KernelOp> p) {
             FailureOr<KernelPlan> writer =
                 planOf(p.second, p.second.getScheduleAttr(), std::nullopt);
             return succeeded(writer) &&
                    tilesStayPut(*writer, resultOf(consumer, p.first), *reader,
                                 p.first);
           });
  }

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
  /// when `isResult`) kept in LX (or, `path` ring, gathered over the ring)
  /// and, if given, the candidates `accept` admits.
  ScheduleAttr searchKeeping(KernelOp kernel, bool isResult, unsigned index,
                             PlanFilter accept, StringRef path = "lx",
                             PlanCost cost = nullptr) {
    FailureOr<KernelPlan::Roles> roles =
        KernelPlan::roles(kernel, /*emitErrors=*/false);
    if (failed(roles))
      return {};
    ScopedLxPath kept(kernel, isResult, index, path);
    return searchSchedule(kernel, *roles, arch, cores, depth, std::move(accept),
                          std::move(cost));
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
    ScheduleAttr own = producer.getScheduleAttr();
    FailureOr<KernelPlan> stored = planOf(producer, own, std::nullopt);
    if (failed(stored))
      return {};
    // A result written in several tiles per core is kept whole at the
    // producer's schedule (its tiles unchanged), where the slab fits LX
    // beside what the producer's own handoffs hold.
    ScheduleAttr writing = own;
    FailureOr<KernelPlan> written = stored;
    if (!stored->canHandOffInLx(
            stored->tensors[producer.getInputs().size() + j])) {
      if (!own.getKeep().empty() || !searched.count(producer))
        return {};
      writing = ScheduleAttr::get(own.getContext(), own.getSplit(),
                                  own.getTile(), own.getDepth(),
                                  own.getCostNs(), own.getHold(), {int64_t(j)});
      written = planOf(producer, writing, std::nullopt);
      if (failed(written) || written->lxBytes() > arch.usableLxBytes())
        return {};
      if (PlanFilter keeps = keepsHandoffsOf(producer);
          keeps && !keeps(*written))
        return {};
    }
    FailureOr<KernelPlan> keeping =
        planOf(producer, writing, std::make_pair(true, j));
    if (failed(keeping))
      return {};
    double saved = stored->estimateNs() - keeping->estimateNs();
    ScheduleAttr s = readerOf(consumer, i, *written, j);
    if (!s)
      return {};
    Value input = consumer.getInputs()[i];
    double readers = double(std::distance(input.use_begin(), input.use_end()));
    double ns = double(s.getCostNs()) - saved / readers;
    if (writing == own)
      return {s, nullptr, nullptr, i, ns};
    return {s, producer, writing, i, ns};
  }

  /// Admits the plans of `kernel` that read in place, or gather over the
  /// ring, every input it does at its schedule: a re-plan keeps the
  /// handoffs chosen for it.
  PlanFilter keepsHandoffsOf(KernelOp kernel) {
    struct Kept {
      unsigned input;
      KernelPlan writer;
      bool inPlace;
    };
    auto kept = std::make_shared<std::vector<Kept>>();
    FailureOr<KernelPlan> current =
        planOf(kernel, kernel.getScheduleAttr(), std::nullopt);
    if (failed(current))
      return {};
    for (auto [i, input] : llvm::enumerate(kernel.getInputs())) {
      auto producer = input.getDefiningOp<KernelOp>();
      if (!producer || !producer.getScheduleAttr() || !readByKernels(input))
        continue;
      FailureOr<KernelPlan> writer =
          planOf(producer, producer.getScheduleAttr(), std::nullopt);
      unsigned j = resultOf(kernel, i);
      if (failed(writer))
        continue;
      if (tilesStayPut(*writer, j, *current, i))
        kept->push_back({unsigned(i), std::move(*writer), true});
      else if (ring && ringPays(*writer, j, *current, i))
        kept->push_back({unsigned(i), std::move(*writer), false});
    }
    return [kept, kernel, this](const KernelPlan &plan) {
      for (const Kept &k : *kept) {
        unsigned j = resultOf(kernel, k.input);
        int64_t held =
            k.writer
                .buffers[k.writer.tensorBuffer
                             [k.writer.kernel.getInputs().size() + j]]
                .bytes;
        if (k.inPlace ? !tilesStayPut(k.writer, j, plan, k.input)
                      : plan.lxBytes() + held > arch.usableLxBytes() ||
                            !ringPays(k.writer, j, plan, k.input))
          return false;
      }
      return true;
    };
  }

  /// Both filters (a null filter admits every plan).
  static PlanFilter both(PlanFilter a, PlanFilter b) {
    if (!a || !b)
      return a ? a : b;
    return [=](const KernelPlan &plan) { return a(plan) && b(plan); };
  }

  /// The producer's fastest schedules writing its result `j` once per
  /// core: in one tile, and in any (a slab of its tiles) when that is
  /// faster; for a slab of part of its rows' sticks also the fastest of
  /// whole rows (what a matmul holding them as its lhs reads). A producer
  /// re-planned for its own inputs keeps reading them as chosen.
  SmallVector<ScheduleAttr, 3> writersOnce(KernelOp producer, unsigned j) {
    PlanFilter keeps =
        replanned.count(producer) ? keepsHandoffsOf(producer) : PlanFilter();
    size_t result = producer.getInputs().size() + j;
    auto oneTile = [result](const KernelPlan &plan) {
      return !plan.tensors[result].slab;
    };
    auto wholeRows = [result](const KernelPlan &plan) {
      const PlanTensor &t = plan.tensors[result];
      return t.slab && plan.loops[t.stickLoop].split == 1;
    };
    SmallVector<ScheduleAttr, 3> writers = {
        searchKeeping(producer, /*isResult=*/true, j, both(keeps, oneTile))};
    ScheduleAttr fastest = searchKeeping(producer, /*isResult=*/true, j, keeps);
    if (!fastest || llvm::is_contained(writers, fastest))
      return writers;
    writers.push_back(fastest);
    FailureOr<KernelPlan> plan = planOf(producer, fastest, std::nullopt);
    if (succeeded(plan) && plan->tensors[result].stickLoop >= 0 &&
        !wholeRows(*plan))
      writers.push_back(searchKeeping(producer, /*isResult=*/true, j,
                                      both(keeps, wholeRows)));
    return writers;
  }

  /// The producer re-planned to write its result once per core
  /// (writersOnce) with the consumer's fastest schedule reading it in
  /// place: the pair that costs least.
  Choice replanBoth(KernelOp consumer, unsigned i, KernelOp producer) {
    unsigned j = resultOf(consumer, i);
    if (producer.getNumResults() != 1 || !producer->getResult(0).hasOneUse() ||
        !searched.count(producer))
      return {};
    ScheduleAttr own = producer.getScheduleAttr();
    FailureOr<KernelPlan> current = planOf(producer, own, std::nullopt);
    // Written once per core already: readInPlace's case.
    if (failed(current) || current->canHandOffInLx(current->tensors.back()))
      return {};
    Choice best;
    for (ScheduleAttr writing : writersOnce(producer, j)) {
      FailureOr<KernelPlan> written =
          writing ? planOf(producer, writing, std::nullopt)
                  : FailureOr<KernelPlan>(failure());
      ScheduleAttr s =
          succeeded(written) ? readerOf(consumer, i, *written, j) : nullptr;
      if (!s)
        continue;
      double ns = double(s.getCostNs()) + double(writing.getCostNs()) -
                  double(own.getCostNs());
      if (!best.consumer || ns < best.ns)
        best = {s, producer, writing, i, ns};
    }
    return best;
  }

  /// The producer's schedules writing its result `j` once per core for a
  /// ring gather, each with the change in the producer's cost:
  ///  * as it is when it writes once per core, less this reader's share of
  ///    the store it saves;
  ///  * re-planned (when it may be) to one tile per core (a slab's tiles do
  ///    not move over the ring): when it writes once per core already, on
  ///    all the cores (fewer producer cores each serve several readers,
  ///    over one link), charged its change less the same share; else
  ///    charged its whole store when other kernels read the result too, as
  ///    this gather spares none of their loads.
  SmallVector<std::pair<ScheduleAttr, double>, 2>
  ringWriters(KernelOp producer, unsigned j, double readers) {
    SmallVector<std::pair<ScheduleAttr, double>, 2> writers;
    ScheduleAttr own = producer.getScheduleAttr();
    FailureOr<KernelPlan> current = planOf(producer, own, std::nullopt);
    if (failed(current))
      return writers;
    bool once = current->canHandOffInLx(
        current->tensors[producer.getInputs().size() + j]);
    double share = 0;
    if (once) {
      std::optional<double> saved = savedStoreNs(producer, j, *current);
      if (!saved)
        return writers;
      share = *saved / readers;
      writers.push_back({own, -share});
    }
    if (producer.getNumResults() != 1 || replanned.count(producer) ||
        !searched.count(producer) || (once && current->numCores() == cores))
      return writers;
    addReplannedWriters(producer, j,
                        once ? std::optional<double>(share) : std::nullopt,
                        readers, writers);
    return writers;
  }

  /// Adds to `writers` the producer re-planned to its fastest one tile per
  /// core (unless it writes once per core already, `share` set: then only
  /// on all the cores), charged as ringWriters says.
  void addReplannedWriters(
      KernelOp producer, unsigned j, std::optional<double> share,
      double readers,
      SmallVectorImpl<std::pair<ScheduleAttr, double>> &writers) {
    double own = double(producer.getScheduleAttr().getCostNs());
    for (bool allCores : {false, true}) {
      if (share && !allCores)
        continue;
      ScheduleAttr writing = oneTileWriter(producer, j, allCores);
      std::optional<double> store = storeNs(producer, writing);
      if (!store ||
          llvm::any_of(writers, [&](auto &w) { return w.first == writing; }))
        continue;
      double charged = share ? *store - *share : readers > 1 ? *store : 0;
      writers.push_back({writing, double(writing.getCostNs()) - own + charged});
    }
  }

  /// What `producer` saves at the schedule it has (`current`) when its
  /// result `j` stays in LX; none without a plan.
  std::optional<double> savedStoreNs(KernelOp producer, unsigned j,
                                     const KernelPlan &current) {
    FailureOr<KernelPlan> keeping =
        planOf(producer, producer.getScheduleAttr(), std::make_pair(true, j));
    if (failed(keeping))
      return std::nullopt;
    return current.estimateNs() - keeping->estimateNs();
  }

  /// What storing its result adds to `producer` at `writing` (a schedule
  /// costed with the result kept in LX); none without a plan.
  std::optional<double> storeNs(KernelOp producer, ScheduleAttr writing) {
    if (!writing)
      return std::nullopt;
    FailureOr<KernelPlan> written = planOf(producer, writing, std::nullopt);
    if (failed(written))
      return std::nullopt;
    return written->estimateNs() - double(writing.getCostNs());
  }

  /// The producer's fastest schedule writing its result `j` in one tile
  /// per core and keeping it in LX (on all the cores if `allCores`).
  ScheduleAttr oneTileWriter(KernelOp producer, unsigned j, bool allCores) {
    size_t result = producer.getInputs().size() + j;
    return searchKeeping(producer, /*isResult=*/true, j,
                         [&](const KernelPlan &plan) {
                           return !plan.tensors[result].slab &&
                                  (!allCores || plan.numCores() == cores);
                         });
  }

  /// `keep`: the consumer's other inputs (with their writers' plans) the
  /// gathering schedule must still read in place. The cheapest of the
  /// producer's ring writers with the consumer's fastest gather from it.
  Choice gatherOverRing(KernelOp consumer, unsigned i, KernelOp producer,
                        ArrayRef<std::pair<unsigned, KernelPlan>> keep) {
    if (!ring)
      return {};
    Value input = consumer.getInputs()[i];
    double readers = double(std::distance(input.use_begin(), input.use_end()));
    Choice best;
    for (auto [writing, producerNs] :
         ringWriters(producer, resultOf(consumer, i), readers)) {
      Choice c = gatherFrom(consumer, i, producer, writing, keep);
      c.ns += producerNs;
      if (c.consumer && (!best.consumer || c.ns < best.ns))
        best = c;
    }
    return best;
  }

  /// The consumer's fastest schedule gathering input `i` over the ring
  /// from `producer` at schedule `writing`; `ns`: the consumer's cost.
  Choice gatherFrom(KernelOp consumer, unsigned i, KernelOp producer,
                    ScheduleAttr writing,
                    ArrayRef<std::pair<unsigned, KernelPlan>> keep) {
    unsigned j = resultOf(consumer, i);
    bool replans = writing != producer.getScheduleAttr();
    FailureOr<KernelPlan> written = planOf(producer, writing, std::nullopt);
    if (failed(written))
      return {};
    int64_t heldBytes =
        written->buffers[written->tensorBuffer[producer.getInputs().size() + j]]
            .bytes;
    ScheduleAttr s = searchKeeping(
        consumer, /*isResult=*/false, i,
        [&](const KernelPlan &plan) {
          // The producer's tile stays put through the gather.
          return plan.lxBytes() + heldBytes <= arch.usableLxBytes() &&
                 !tilesStayPut(*written, j, plan, i) &&
                 ringPays(*written, j, plan, i) &&
                 llvm::all_of(keep, [&](const auto &other) {
                   return tilesStayPut(other.second,
                                       resultOf(consumer, other.first), plan,
                                       other.first);
                 });
        },
        "ring",
        [&](const KernelPlan &plan) {
          return plan.estimateNs() + refinedGatherNs(*written, j, plan, i);
        });
    if (!s)
      return {};
    return {s,
            replans ? producer : KernelOp(),
            replans ? writing : ScheduleAttr(),
            i,
            double(s.getCostNs()),
            /*overRing=*/true};
  }

  /// What the exchange from `written` (its result `j`) to `reader`'s input
  /// `i` adds to the reader's estimate, which knows only its own tile: the
  /// busiest link, core or copy of the actual chunks (several readers of
  /// one producer core share its link) where that takes longer.
  double refinedGatherNs(const KernelPlan &written, unsigned j,
                         const KernelPlan &reader, unsigned i) {
    std::optional<RingExchange> x = planRingExchange(written, j, reader, i);
    if (!x)
      return 0;
    return std::max(0.0, x->estimateNs(arch) -
                             ringGatherNs(reader, reader.tensors[i]));
  }

  /// A choice made before for this key (this compile or the cache), its
  /// producer (if it re-plans one) found among this consumer's `producers`
  /// by input position: the choice may come from another layer.
  bool lookup(const std::string &key, KernelOp consumer,
              ArrayRef<std::pair<unsigned, KernelOp>> producers,
              Choice &choice) {
    if (auto it = chosen.find(key); it != chosen.end()) {
      choice = it->second;
    } else if (std::optional<ScheduleAttr> s =
                   cache ? cache->lookup(key, consumer.getContext())
                         : std::nullopt) {
      choice = Choice();
      choice.consumer = *s;
      choice.overRing =
          cache->lookup(gatherKey(key), consumer.getContext()).has_value();
      for (auto [i, producer] : producers)
        if (std::optional<ScheduleAttr> p =
                cache->lookup(producerKey(key, i), consumer.getContext())) {
          choice.producerSchedule = *p;
          choice.input = i;
        }
      chosen[key] = choice;
    } else {
      return false;
    }
    choice.producer = nullptr;
    if (choice.producerSchedule)
      for (auto [i, producer] : producers)
        if (i == choice.input)
          choice.producer = producer;
    return true;
  }

  static std::string producerKey(const std::string &key, unsigned input) {
    return key + "\nproducer of input " + std::to_string(input);
  }
  /// Present when the choice gathers an input over the ring.
  static std::string gatherKey(const std::string &key) {
    return key + "\ngathers over the ring";
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
    if (choice.overRing)
      (void)cache->store(gatherKey(key), choice.consumer, error);
  }
};

} // namespace

void scheduleHandoffs(ArrayRef<KernelOp> kernels, const Arch &arch,
                      int64_t cores, int64_t depth, bool ring,
                      const std::optional<ScheduleCache> &cache) {
  HandoffAligner aligner(kernels, arch, cores, depth, ring, cache);
  for (KernelOp kernel : kernels)
    aligner.align(kernel);
}

} // namespace spyre
