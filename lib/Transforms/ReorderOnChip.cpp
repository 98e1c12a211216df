//===- ReorderOnChip.cpp - spyre-reorder-on-chip --------------------------===//
//
// Reordering between kernels without a kernel of its own. A kernel whose
// body is one transpose keeping the stick dim (attention's head transposes,
// [B, S, H, D] <-> [B, H, S, D]) computes nothing: it reads a tensor from
// device memory and writes it back permuted, a round trip and a kernel's
// synchronization. Its permutation is folded into a neighbour's access
// pattern instead:
//   * into its producer, which then stores its result permuted (the
//     producer's result map is permuted, a tile alias ends its body);
//   * else into each consumer, which reads the input permuted (its input
//     map is permuted, a tile alias starts its body).
// Reshape views between the kernels are looked through: a view that
// splits or merges dims commutes with a permutation that keeps the split
// dims together, so the permutation is lifted onto the view's other side
// and the view is rebuilt after it (the GQA head views around attention).
// Windows (a kernel copying a slice of unit steps) fold into their readers
// as offset maps, broadcasts along outer dims as maps that drop the
// broadcast dims (a broadcast read starts the body: the input is read once
// for all the copies), and gathers (a kernel picking table rows by
// indices) as a gather read that starts the reader's body (KernelPlan
// loads the rows by DmaGather).
// A fold is kept only when the rewritten kernel is one the program
// lowering supports, fits LX and has a schedule on at most max-cores
// cores (KernelPlan::isRunnable).
//
// Not done here yet (docs/passes.md): moving data core to core over the
// ring (RingSend/RingRecv) where two kernels' distributions differ. Data
// that stays put is kept in LX by spyre-allocate-scratchpad (Residency.h).
//
//===----------------------------------------------------------------------===//

#include "KernelRewrite.h"
#include "Preconditions.h"
#include "spyre/Transforms/KernelPlan.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace spyre {
#define GEN_PASS_DEF_SPYREREORDERONCHIP
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {

using Permutation = SmallVector<int64_t>;

Permutation inversePermutation(ArrayRef<int64_t> perm) {
  Permutation inv(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inv[p] = int64_t(i);
  return inv;
}

/// `shape` permuted: result dim i is dim perm[i].
SmallVector<int64_t> permuted(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  return llvm::map_to_vector(perm, [&](int64_t p) { return shape[p]; });
}

/// One group of a reshape: dims of its source and of its result holding the
/// same elements; one side has a single dim (a split or a merge).
struct ReshapeGroup {
  SmallVector<int64_t> from, to;
};

/// Adds dim `i` of `shape` to `dims` and its size to `product`; false when
/// `shape` has no dim `i`.
bool extendGroup(ArrayRef<int64_t> shape, size_t &i, int64_t &product,
                 SmallVector<int64_t> &dims) {
  if (i == shape.size())
    return false;
  product *= shape[i];
  dims.push_back(int64_t(i++));
  return true;
}

/// The groups of a reshape from `from` to `to`, or nullopt when a group
/// would mix dims (neither a split nor a merge) or a size is 0.
std::optional<SmallVector<ReshapeGroup>> reshapeGroups(ArrayRef<int64_t> from,
                                                       ArrayRef<int64_t> to) {
  if (llvm::is_contained(from, 0) || llvm::is_contained(to, 0))
    return std::nullopt;
  SmallVector<ReshapeGroup> groups;
  size_t i = 0, j = 0;
  while (i < from.size() && j < to.size()) {
    ReshapeGroup g;
    int64_t a = 1, b = 1;
    extendGroup(from, i, a, g.from);
    extendGroup(to, j, b, g.to);
    while (a != b)
      if (!(a < b ? extendGroup(from, i, a, g.from)
                  : extendGroup(to, j, b, g.to)))
        return std::nullopt;
    if (g.from.size() > 1 && g.to.size() > 1)
      return std::nullopt;
    groups.push_back(std::move(g));
  }
  if (i != from.size() || j != to.size())
    return std::nullopt;
  return groups;
}

/// For a reshape view `w` (shape `to`) of `u` (shape `from`) and a
/// permutation `perm` of `w`: the permutation of `u` such that
/// transpose(w, perm) == reshape(transpose(u, result)). Needs every split
/// dim's parts to stay together and in order under `perm`.
std::optional<Permutation> liftThroughReshape(ArrayRef<int64_t> from,
                                              ArrayRef<int64_t> to,
                                              ArrayRef<int64_t> perm) {
  std::optional<SmallVector<ReshapeGroup>> groups = reshapeGroups(from, to);
  if (!groups)
    return std::nullopt;
  SmallVector<int64_t> groupOf(to.size());
  for (auto [k, g] : llvm::enumerate(*groups))
    for (int64_t d : g.to)
      groupOf[d] = int64_t(k);
  Permutation lifted;
  for (size_t i = 0; i < perm.size();) {
    const ReshapeGroup &g = (*groups)[groupOf[perm[i]]];
    if (i + g.to.size() > perm.size() ||
        ArrayRef<int64_t>(perm).slice(i, g.to.size()) != ArrayRef(g.to))
      return std::nullopt;
    lifted.append(g.from);
    i += g.to.size();
  }
  return lifted;
}

/// `type` permuted, in the canonical layout (producers write it; a
/// transpose keeping the stick keeps the innermost dim).
RankedTensorType permutedType(RankedTensorType type, ArrayRef<int64_t> perm,
                              int64_t stickBytes) {
  auto plain = RankedTensorType::get(permuted(type.getShape(), perm),
                                     type.getElementType());
  return LayoutAttr::getCanonical(plain, stickBytes).apply(plain);
}

/// `map` reading a tensor permuted by `perm` (`result dim i = dim perm[i]`)
/// as the tensor it was permuted from: exprs[perm[i]] = map[i].
AffineMap readThroughPermutation(AffineMap map, ArrayRef<int64_t> perm) {
  SmallVector<AffineExpr> exprs(map.getNumResults());
  for (auto [i, p] : llvm::enumerate(perm))
    exprs[p] = map.getResult(unsigned(i));
  return AffineMap::get(map.getNumDims(), 0, exprs, map.getContext());
}

/// A kernel that only permutes its one input keeping the stick.
struct PermuteKernel {
  KernelOp kernel;
  TransposeOp move;
};

std::optional<PermuteKernel> asPermuteKernel(KernelOp kernel) {
  if (TransposeOp move = onlyPermutation(kernel))
    return PermuteKernel{kernel, move};
  return std::nullopt;
}

/// The slice of a kernel that only copies a window of its one input (unit
/// strides, the same layout; the window's offsets are in the input map);
/// null otherwise.
SliceOp onlyWindow(KernelOp kernel) {
  auto slice = dyn_cast_or_null<SliceOp>(soleBodyOp(kernel, 1));
  if (!slice || !kernel.getIndexingMapList().back().isIdentity() ||
      !isWindowRead(slice, /*yielded=*/true))
    return {};
  return slice;
}

/// The gather of a kernel that only gathers rows of its table (input 0) by
/// its indices (input 1); null otherwise.
GatherOp onlyGather(KernelOp kernel) {
  auto gather = dyn_cast_or_null<GatherOp>(soleBodyOp(kernel, 2));
  Block &body = kernel.getBodyBlock();
  if (!gather || gather.getTable() != body.getArgument(0) ||
      gather.getIndices() != body.getArgument(1))
    return {};
  return gather;
}

/// The broadcast of a kernel that only broadcasts its one input along outer
/// dims (isBroadcastRead) and writes it through the identity map; null
/// otherwise.
BroadcastOp onlyBroadcast(KernelOp kernel) {
  auto broadcast = dyn_cast_or_null<BroadcastOp>(soleBodyOp(kernel, 1));
  if (!broadcast || !kernel.getIndexingMapList().back().isIdentity() ||
      !isBroadcastRead(broadcast))
    return {};
  return broadcast;
}

/// A reshape view outside kernels with a single user.
ReshapeOp soleView(Value v) {
  auto view = v.getDefiningOp<ReshapeOp>();
  return view && view.getResult().hasOneUse() ? view : ReshapeOp();
}

struct ReorderOnChipPass
    : public spyre::impl::SpyreReorderOnChipBase<ReorderOnChipPass> {
  using Base::Base;
  int64_t stickBytes = 0;
  Arch arch;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(requireKernels(module, getArgument())))
      return signalPassFailure();
    arch = getArch(module);
    stickBytes = arch.stickBytes;
    SmallVector<PermuteKernel> moves;
    module.walk([&](KernelOp kernel) {
      if (std::optional<PermuteKernel> p = asPermuteKernel(kernel))
        moves.push_back(*p);
    });
    for (PermuteKernel &p : moves)
      if (!foldIntoProducer(p))
        foldIntoConsumers(p);
    for (KernelOp window : kernelsWhere(module, onlyWindow))
      foldWindowIntoConsumers(window);
    // Last first: a broadcast kernel reading another folds into its own
    // readers before the one it reads is looked at (which then skips it).
    SmallVector<KernelOp> broadcasts = kernelsWhere(module, onlyBroadcast);
    for (KernelOp broadcast : llvm::reverse(broadcasts))
      foldBroadcastIntoConsumers(broadcast);
    for (KernelOp gather : kernelsWhere(module, onlyGather))
      foldGatherIntoConsumers(gather);
  }

  /// The kernels of `module` `match` gives an op for, in program order.
  template <typename OpT>
  static SmallVector<KernelOp> kernelsWhere(ModuleOp module,
                                            OpT (*match)(KernelOp)) {
    SmallVector<KernelOp> kernels;
    module.walk([&](KernelOp kernel) {
      if (match(kernel))
        kernels.push_back(kernel);
    });
    return kernels;
  }

  /// Each kernel reading a broadcast kernel's result directly reads its
  /// input once for all the copies (the input map composed with the
  /// reader's, a broadcast read at the start of its body); the broadcast
  /// kernel goes when no user is left.
  void foldBroadcastIntoConsumers(KernelOp broadcast) {
    foldIntoReaders(broadcast, [&](OpOperand &use) {
      return foldBroadcastIntoConsumer(broadcast, use);
    });
  }

  bool foldBroadcastIntoConsumer(KernelOp broadcast, OpOperand &use) {
    auto consumer = cast<KernelOp>(use.getOwner());
    // Attention reads its operands without aliases but transposes; a
    // data-movement kernel takes none (KernelPlan::classify); a broadcast
    // kernel still to be folded stays.
    if (!consumer.getBodyBlock().getOps<AttentionOp>().empty() ||
        onlyBroadcast(consumer))
      return false;
    return readThrough(use, broadcast, [&](OpBuilder &b, Type read, Value arg) {
      return BroadcastOp::create(b, consumer.getLoc(), read, arg);
    });
  }

  /// Consumer input `use` (the result of `k`, a kernel of one input that
  /// only moves it) becomes `k`'s input, read through `k`'s input map
  /// composed with the consumer's and the op `read` builds from the new
  /// block argument at the start of the body (a tile alias yielding the
  /// type the body read). Whether the rewritten consumer replaced it.
  bool readThrough(OpOperand &use, KernelOp k,
                   function_ref<Value(OpBuilder &, Type, Value)> read) {
    auto consumer = cast<KernelOp>(use.getOwner());
    Value x = k.getInputs()[0];
    unsigned i = use.getOperandNumber();
    OpBuilder b(consumer);
    auto copy = cast<KernelOp>(b.clone(*consumer));
    SmallVector<Value> inputs(consumer.getInputs());
    inputs[i] = x;
    SmallVector<AffineMap> maps = consumer.getIndexingMapList();
    maps[i] = k.getIndexingMapList().front().compose(maps[i]);
    KernelOp rewritten =
        rebuildKernel(copy, inputs, consumer.getResultTypes(), maps);
    copy.erase();
    BlockArgument arg = rewritten.getBodyBlock().getArgument(i);
    Type readType = arg.getType();
    arg.setType(x.getType());
    OpBuilder inner = OpBuilder::atBlockBegin(&rewritten.getBodyBlock());
    Value value = read(inner, readType, arg);
    arg.replaceAllUsesExcept(value, value.getDefiningOp());
    return replaceIfRunnable(consumer, rewritten);
  }

  /// Each kernel reading a gather kernel's result directly gathers the
  /// rows itself (its input becomes the table, the indices a new input, a
  /// gather read at the start of its body: KernelPlan loads the rows by
  /// DmaGather); the gather kernel goes when no user is left.
  void foldGatherIntoConsumers(KernelOp gather) {
    foldIntoReaders(gather, [&](OpOperand &use) {
      return foldGatherIntoConsumer(gather, use);
    });
  }

  /// Folds kernel `k` into each kernel reading its one result directly
  /// where `fold` succeeds; `k` goes when no user is left.
  static void foldIntoReaders(KernelOp k,
                              function_ref<bool(OpOperand &)> fold) {
    Value out = k.getResult(0);
    // A fold replaces the reader, so the uses are looked up afresh after
    // each; `kept` are the ones left as they are.
    llvm::SmallDenseSet<std::pair<Operation *, unsigned>> kept;
    while (OpOperand *use = nextConsumerUse(out, kept, /*throughViews=*/false))
      if (!fold(*use))
        kept.insert({use->getOwner(), use->getOperandNumber()});
    if (out.use_empty())
      k.erase();
  }

  /// `rewritten` replaces `consumer` when it is runnable (isRunnable);
  /// otherwise it is erased. Whether it replaced it.
  bool replaceIfRunnable(KernelOp consumer, KernelOp rewritten) {
    if (!KernelPlan::isRunnable(rewritten, arch, maxCores)) {
      rewritten.erase();
      return false;
    }
    consumer.replaceAllUsesWith(rewritten.getResults());
    consumer.erase();
    return true;
  }

  bool foldGatherIntoConsumer(KernelOp gather, OpOperand &use) {
    auto consumer = cast<KernelOp>(use.getOwner());
    Value table = gather.getInputs()[0], indices = gather.getInputs()[1];
    // Whole rows of sticks, read as the gathered tile's rows.
    if (!consumer.getBodyBlock().getOps<AttentionOp>().empty() ||
        onlyGather(consumer) ||
        !isCanonical(cast<RankedTensorType>(table.getType())) ||
        !isCanonical(cast<RankedTensorType>(gather.getResult(0).getType())))
      return false;
    unsigned i = use.getOperandNumber();
    // The consumer's map of the gathered rows: the indices' dims, then the
    // row (the table's stick dim); the table's own rows come from the
    // indices (constant 0 in its map).
    AffineMap read = consumer.getIndexingMapList()[i];
    MLIRContext *ctx = consumer.getContext();
    unsigned n = read.getNumResults();
    AffineMap tableMap = AffineMap::get(
        read.getNumDims(), 0,
        {getAffineConstantExpr(0, ctx), read.getResult(n - 1)}, ctx);
    AffineMap indexMap = read.dropResult(n - 1);
    OpBuilder b(consumer);
    auto copy = cast<KernelOp>(b.clone(*consumer));
    SmallVector<Value> inputs(consumer.getInputs());
    inputs[i] = table;
    inputs.push_back(indices);
    SmallVector<AffineMap> maps = consumer.getIndexingMapList();
    maps[i] = tableMap;
    maps.insert(maps.begin() + consumer.getInputs().size(), indexMap);
    KernelOp rewritten =
        rebuildKernel(copy, inputs, consumer.getResultTypes(), maps);
    copy.erase();
    Block &body = rewritten.getBodyBlock();
    BlockArgument arg = body.getArgument(i);
    Type rowsType = arg.getType();
    arg.setType(table.getType());
    BlockArgument indexArg = body.insertArgument(
        consumer.getInputs().size(), indices.getType(), consumer.getLoc());
    OpBuilder inner = OpBuilder::atBlockBegin(&body);
    auto rows =
        GatherOp::create(inner, consumer.getLoc(), rowsType, arg, indexArg);
    arg.replaceAllUsesExcept(rows, rows);
    return replaceIfRunnable(consumer, rewritten);
  }

  /// Each kernel reading a window kernel's result directly reads the window
  /// of its input instead (the input map offset, a window-read alias at the
  /// start of its body); the window kernel goes when no user is left.
  void foldWindowIntoConsumers(KernelOp window) {
    foldIntoReaders(window, [&](OpOperand &use) {
      return foldWindowIntoConsumer(window, use);
    });
  }

  bool foldWindowIntoConsumer(KernelOp window, OpOperand &use) {
    auto consumer = cast<KernelOp>(use.getOwner());
    // The attention lowering reads its operands without aliases but
    // transposes (AttentionKernel.cpp).
    if (!consumer.getBodyBlock().getOps<AttentionOp>().empty())
      return false;
    SliceOp slice = onlyWindow(window);
    return readThrough(use, window, [&](OpBuilder &b, Type read, Value arg) {
      return SliceOp::create(b, consumer.getLoc(), read, arg,
                             slice.getOffsetsAttr(), slice.getStridesAttr());
    });
  }

  /// The producer stores the permuted tensor: its result `r`, read by the
  /// permute kernel directly or through a view, becomes transpose(r) (a
  /// tile alias at the end of its body, its result map permuted), and the
  /// permute kernel's users read it (through the view rebuilt after it).
  bool foldIntoProducer(PermuteKernel &p) {
    Value in = p.kernel.getInputs()[0];
    ReshapeOp view = soleView(in);
    Value r = view ? view.getInput() : in;
    auto producer = r.getDefiningOp<KernelOp>();
    auto rType = cast<RankedTensorType>(r.getType());
    if (!producer || !r.hasOneUse() || onlyPermutation(producer) ||
        !isCanonical(rType))
      return false;
    ArrayRef<int64_t> perm = p.move.getPermutation();
    std::optional<Permutation> lifted =
        view ? liftThroughReshape(
                   rType.getShape(),
                   cast<RankedTensorType>(in.getType()).getShape(), perm)
             : Permutation(perm);
    if (!lifted)
      return false;
    unsigned idx = cast<OpResult>(r).getResultNumber();
    RankedTensorType stored = permutedType(rType, *lifted, stickBytes);

    // Rewrite a copy of the producer; keep it only if it runs.
    OpBuilder b(producer);
    auto copy = cast<KernelOp>(b.clone(*producer));
    SmallVector<Type> types(producer.getResultTypes());
    types[idx] = stored;
    SmallVector<AffineMap> maps = producer.getIndexingMapList();
    unsigned resultMap = producer.getInputs().size() + idx;
    maps[resultMap] = permutedMap(maps[resultMap], *lifted);
    KernelOp rewritten = rebuildKernel(copy, producer.getInputs(), types, maps);
    copy.erase();
    YieldOp yield = rewritten.getYield();
    OpBuilder inner(yield);
    yield.setOperand(idx, TransposeOp::create(inner, yield.getLoc(), stored,
                                              yield.getOperand(idx), *lifted));
    if (!KernelPlan::isRunnable(rewritten, arch, maxCores)) {
      rewritten.erase();
      return false;
    }

    Value result = rewritten.getResult(idx);
    Value out = p.kernel.getResult(0);
    if (result.getType() != out.getType()) {
      OpBuilder after(p.kernel);
      result =
          ReshapeOp::create(after, p.kernel.getLoc(), out.getType(), result);
    }
    out.replaceAllUsesWith(result);
    for (auto [old, now] :
         llvm::zip(producer.getResults(), rewritten.getResults()))
      if (old != r)
        old.replaceAllUsesWith(now);
    p.kernel.erase();
    if (view)
      view.erase();
    producer.erase();
    return true;
  }

  bool isCanonical(RankedTensorType type) const {
    return getLayout(type) == LayoutAttr::getCanonical(type, stickBytes);
  }

  /// `map` of a result stored permuted by `perm`: exprs[i] = map[perm[i]].
  static AffineMap permutedMap(AffineMap map, ArrayRef<int64_t> perm) {
    SmallVector<AffineExpr> exprs;
    for (int64_t p : perm)
      exprs.push_back(map.getResult(unsigned(p)));
    return AffineMap::get(map.getNumDims(), 0, exprs, map.getContext());
  }

  /// Each consumer kernel reads the permute kernel's input permuted, where
  /// the rewritten consumer runs; the permute kernel goes when no user is
  /// left.
  void foldIntoConsumers(PermuteKernel &p) {
    Value out = p.kernel.getResult(0);
    // A rewrite replaces the consumer, so the uses are looked up afresh
    // after each; `kept` are the ones left as they are.
    llvm::SmallDenseSet<std::pair<Operation *, unsigned>> kept;
    while (OpOperand *use = nextConsumerUse(out, kept))
      if (!foldIntoConsumer(p, *use))
        kept.insert({use->getOwner(), use->getOperandNumber()});
    for (Operation *user : llvm::make_early_inc_range(out.getUsers()))
      if (isa<ReshapeOp>(user) && user->use_empty())
        user->erase();
    if (out.use_empty())
      p.kernel.erase();
  }

  /// A use of `out` (directly, or through a view when `throughViews`) as
  /// a kernel input, other than a permute kernel's and those in `kept`;
  /// null when none is left.
  static OpOperand *nextConsumerUse(
      Value out,
      const llvm::SmallDenseSet<std::pair<Operation *, unsigned>> &kept,
      bool throughViews = true) {
    auto candidate = [&](OpOperand &use) {
      auto kernel = dyn_cast<KernelOp>(use.getOwner());
      return kernel && !onlyPermutation(kernel) &&
             !kept.contains({kernel, use.getOperandNumber()});
    };
    for (OpOperand &use : out.getUses()) {
      if (candidate(use))
        return &use;
      if (!throughViews)
        continue;
      if (auto view = dyn_cast<ReshapeOp>(use.getOwner()))
        for (OpOperand &viewUse : view.getResult().getUses())
          if (candidate(viewUse))
            return &viewUse;
    }
    return nullptr;
  }

  /// Consumer input `use` (the permute kernel's result, or a view of it)
  /// becomes the permute kernel's input (or a view of that), read through
  /// its map permuted and a tile alias at the start of the body.
  bool foldIntoConsumer(PermuteKernel &p, OpOperand &use) {
    Value x = p.kernel.getInputs()[0];
    Value read = use.get();
    auto readType = cast<RankedTensorType>(read.getType());
    ArrayRef<int64_t> perm = p.move.getPermutation();
    // read == transpose(source, order), source a view of x (or x).
    Permutation order(perm);
    RankedTensorType sourceType = cast<RankedTensorType>(x.getType());
    if (read != p.kernel.getResult(0)) {
      auto outShape =
          cast<RankedTensorType>(p.kernel.getResult(0).getType()).getShape();
      std::optional<Permutation> lifted = liftThroughReshape(
          readType.getShape(), outShape, inversePermutation(perm));
      if (!lifted || !isCanonical(cast<RankedTensorType>(x.getType())))
        return false;
      sourceType = permutedType(readType, *lifted, stickBytes);
      order = inversePermutation(*lifted);
    }

    auto consumer = cast<KernelOp>(use.getOwner());
    unsigned i = use.getOperandNumber();
    OpBuilder b(consumer);
    ReshapeOp sourceView;
    Value source = x;
    if (sourceType != x.getType()) {
      sourceView = ReshapeOp::create(b, consumer.getLoc(), sourceType, x);
      source = sourceView;
    }
    auto copy = cast<KernelOp>(b.clone(*consumer));
    SmallVector<Value> inputs(consumer.getInputs());
    inputs[i] = source;
    SmallVector<AffineMap> maps = consumer.getIndexingMapList();
    maps[i] = readThroughPermutation(maps[i], order);
    KernelOp rewritten =
        rebuildKernel(copy, inputs, consumer.getResultTypes(), maps);
    copy.erase();
    BlockArgument arg = rewritten.getBodyBlock().getArgument(i);
    arg.setType(sourceType);
    OpBuilder inner = OpBuilder::atBlockBegin(&rewritten.getBodyBlock());
    auto move =
        TransposeOp::create(inner, consumer.getLoc(), readType, arg, order);
    arg.replaceAllUsesExcept(move, move);
    if (!KernelPlan::isRunnable(rewritten, arch, maxCores)) {
      rewritten.erase();
      if (sourceView)
        sourceView.erase();
      return false;
    }
    consumer.replaceAllUsesWith(rewritten.getResults());
    consumer.erase();
    return true;
  }
};

} // namespace
