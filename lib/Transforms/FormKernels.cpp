//===- FormKernels.cpp - spyre-form-kernels -------------------------------===//
//
// Wraps compute ops into `spyre.kernel`s and fuses consumers into the kernel
// producing one of their operands, so that intermediates stay in LX: the
// elementwise tail of a matmul (bias, activation, residual), chains of
// elementwise ops, and reductions with what surrounds them (softmax, layer
// and RMS norms become one kernel each).
//
// An op joins kernel K when its loops embed in K's: its result has the
// shape of K's loop space, or that shape with reduced dims of size 1 (an op
// on reduced values), or, for a matmul kernel, the shape of K's result.
// Whether the fused body can run is decided by KernelPlan itself (a trial
// plan of the fused kernel), so the rules live in one place. A fused
// operand that is used outside K stays a result of K; results nobody uses
// any more are pruned at the end.
//
//===----------------------------------------------------------------------===//

#include "KernelRewrite.h"
#include "Preconditions.h"
#include "ScheduleSearch.h"
#include "spyre/Transforms/KernelPlan.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <limits>
#include <map>

namespace spyre {
#define GEN_PASS_DEF_SPYREFORMKERNELS
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {

/// Fused bodies stay small enough that their buffers fit LX at small tiles.
constexpr size_t kMaxFusedOps = 32;

/// Ops that may join an existing kernel.
bool isFusable(Operation *op) { return isPointwise(op) || isa<ReduceOp>(op); }

/// A readable, unique kernel name: "k<n>_<op>[_<node name>]".
std::string kernelName(Operation *op, unsigned index) {
  std::string name =
      "k" + std::to_string(index) + "_" + op->getName().stripDialect().str();
  Location loc = op->getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (isa<NameLoc>(l)) {
        loc = l;
        break;
      }
  if (auto named = dyn_cast<NameLoc>(loc))
    name += "_" + named.getName().str();
  return name;
}

void setLoops(KernelOp kernel, ArrayRef<int64_t> sizes,
              ArrayRef<IteratorKind> iterators, ArrayRef<AffineMap> maps) {
  Builder b(kernel.getContext());
  kernel.setSpace(sizes);
  SmallVector<StringRef> iters;
  for (IteratorKind k : iterators)
    iters.push_back(stringifyIteratorKind(k));
  kernel.setIteratorsAttr(b.getStrArrayAttr(iters));
  kernel.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
}

/// How an op embeds in a kernel's loops: the maps of its operands and of
/// its result over the kernel's loops, and the kernel's new iterators.
struct Embedding {
  SmallVector<AffineMap> operandMaps;
  AffineMap resultMap;
  SmallVector<IteratorKind> iterators;
};

/// How `op` embeds in matmul kernel `kernel`, whose result `fused` it
/// reads: through the matmul's result map, the op covering that result.
std::optional<Embedding> embedInMatmul(KernelOp kernel, Value fused,
                                       ComputeOpInterface op,
                                       const IterationSpace &space,
                                       Embedding e) {
  if (isa<ReduceOp>(op))
    return std::nullopt;
  unsigned r = cast<OpResult>(fused).getResultNumber();
  AffineMap resultMap =
      kernel.getIndexingMapList()[kernel.getInputs().size() + r];
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (cast<RankedTensorType>(fused.getType()).getShape() !=
          resultType.getShape() ||
      !resultMap.isProjectedPermutation())
    return std::nullopt;
  for (AffineMap m : space.operandMaps)
    e.operandMaps.push_back(m.compose(resultMap));
  e.resultMap = resultMap;
  return e;
}

/// The loops of `iters` that are reductions.
SmallVector<int64_t> reducedLoopsOf(ArrayRef<IteratorKind> iters) {
  SmallVector<int64_t> reducedLoops;
  for (auto [l, it] : llvm::enumerate(iters))
    if (it == IteratorKind::reduction)
      reducedLoops.push_back(l);
  return reducedLoops;
}

/// Whether an op's loop `sizes` are the kernel's `loops`, or size 1 over a
/// reduced loop (an op on reduced values).
bool sizesFitLoops(ArrayRef<int64_t> sizes, ArrayRef<int64_t> loops,
                   ArrayRef<int64_t> reducedLoops) {
  for (auto [l, size] : llvm::enumerate(sizes)) {
    if (size == loops[l])
      continue;
    if (size != 1 || !llvm::is_contained(reducedLoops, int64_t(l)))
      return false;
  }
  return true;
}

/// `map` over the kernel's loops, with the op's own size-1 dims (`sizes`)
/// over the kernel's longer loops reading 0.
AffineMap zeroUnitDims(AffineMap map, ArrayRef<int64_t> sizes,
                       ArrayRef<int64_t> loops, MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  for (AffineExpr expr : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (dim && sizes[dim.getPosition()] == 1 && loops[dim.getPosition()] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(expr);
  }
  return AffineMap::get(loops.size(), 0, exprs, ctx);
}

/// How `op` embeds in a kernel that is not a matmul's: the op's loops are
/// the kernel's loops (`e` holds its iterators).
std::optional<Embedding> embedInLoops(KernelOp kernel, ComputeOpInterface op,
                                      const IterationSpace &space,
                                      Embedding e) {
  MLIRContext *ctx = kernel.getContext();
  ArrayRef<int64_t> loops = kernel.getSpace();
  if (space.sizes.size() != loops.size())
    return std::nullopt;
  SmallVector<int64_t> reducedLoops = reducedLoopsOf(e.iterators);
  if (!sizesFitLoops(space.sizes, loops, reducedLoops))
    return std::nullopt;
  auto reduce = dyn_cast<ReduceOp>(op.getOperation());
  if (reduce) {
    int64_t d = reduce.getDim();
    // One reduced loop per kernel.
    if (!reducedLoops.empty() && reducedLoops != SmallVector<int64_t>{d})
      return std::nullopt;
    e.iterators[d] = IteratorKind::reduction;
  }
  e.resultMap = zeroUnitDims(space.resultMaps[0], space.sizes, loops, ctx);
  for (AffineMap m : space.operandMaps)
    e.operandMaps.push_back(zeroUnitDims(m, space.sizes, loops, ctx));
  return e;
}

struct FormKernelsPass
    : public spyre::impl::SpyreFormKernelsBase<FormKernelsPass> {
  using Base::Base;
  unsigned counter = 0;

  void runOnOperation() override {
    if (failed(requireComputeLevel(getOperation(), getArgument())) ||
        failed(requireLayouts(getOperation(), getArgument())))
      return signalPassFailure();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      SmallVector<Operation *> ops;
      for (Operation &op : func.getBody().getOps())
        ops.push_back(&op);
      for (Operation *op : ops)
        formKernel(op);
      SmallVector<KernelOp> kernels;
      func.walk([&](KernelOp kernel) { kernels.push_back(kernel); });
      for (KernelOp kernel : kernels)
        pruneResults(kernel);
      if (fuseConsumers) {
        inlineProducers(func);
        mergeProjections(func);
      }
      copyUncomputedOutputs(func);
    }
  }

  /// Puts `op` in a kernel: fused into one producing an operand where it
  /// can, else alone (a reshape only when it is not a view).
  void formKernel(Operation *op) {
    if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      if (!isView(reshape))
        wrapRepack(reshape);
      return;
    }
    auto compute = dyn_cast<ComputeOpInterface>(op);
    if (!compute)
      return;
    if (!fuseConsumers || !isFusable(op) || !tryFuse(compute))
      wrap(compute);
  }

  /// A reshape stays outside kernels as a view of its input's bytes when
  /// both use the canonical layout (rows of the innermost dim, each padded
  /// to whole sticks) and the padding does not move: the innermost dim is
  /// kept, or neither has padding (both innermost dims are whole sticks, as
  /// [S, H * 128] -> [S, H, 128] splitting heads off a projection).
  bool isView(ReshapeOp op) {
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto out = cast<RankedTensorType>(op.getType());
    int64_t stick = getArch(op).stickBytes;
    LayoutAttr inLayout = getLayout(in);
    bool canonical = inLayout == LayoutAttr::getCanonical(in, stick) &&
                     getLayout(out) == LayoutAttr::getCanonical(out, stick);
    int64_t inLast = in.getRank() ? in.getShape().back() : 1;
    int64_t outLast = out.getRank() ? out.getShape().back() : 1;
    int64_t elems = inLayout.getStickElems();
    bool unpadded = in.getRank() && out.getRank() && inLast % elems == 0 &&
                    outLast % elems == 0;
    return canonical && (inLast == outLast || unpadded);
  }

  /// Any other reshape repacks the elements through LX: a copy kernel
  /// over the result's loops (its input map only gives the rank: the
  /// repack follows the row-major order, not an affine map).
  void wrapRepack(ReshapeOp op) {
    OpBuilder b(op);
    MLIRContext *ctx = op.getContext();
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto out = cast<RankedTensorType>(op.getType());
    auto kernel = KernelOp::create(b, op.getLoc(), out,
                                   kernelName(op, counter++), op.getInput());
    SmallVector<AffineExpr> zeros(in.getRank(), getAffineConstantExpr(0, ctx));
    setLoops(kernel, out.getShape(),
             SmallVector<IteratorKind>(out.getRank(), IteratorKind::parallel),
             {AffineMap::get(out.getRank(), 0, zeros, ctx),
              AffineMap::getMultiDimIdentityMap(out.getRank(), ctx)});
    Block &body = kernel.getBodyBlock();
    OpBuilder inner = OpBuilder::atBlockEnd(&body);
    Value r = ReshapeOp::create(inner, op.getLoc(), out, body.getArgument(0));
    YieldOp::create(inner, op.getLoc(), r);
    op.getResult().replaceAllUsesWith(kernel.getResult(0));
    op.erase();
  }

  /// Puts `op` alone in a new kernel.
  void wrap(ComputeOpInterface op) {
    Operation *raw = op.getOperation();
    IterationSpace space = op.getIterationSpace();
    OpBuilder b(raw);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    SmallVector<unsigned> operandToInput;
    for (auto [operand, map] :
         llvm::zip(raw->getOperands(), space.operandMaps)) {
      unsigned idx = inputs.size();
      for (auto [i, v] : llvm::enumerate(inputs))
        if (v == operand && maps[i] == map)
          idx = i;
      if (idx == inputs.size()) {
        inputs.push_back(operand);
        maps.push_back(map);
      }
      operandToInput.push_back(idx);
    }
    // An attention kernel's SFP ops read their constants from an input.
    if (auto attention = dyn_cast<AttentionOp>(raw)) {
      inputs.push_back(createAttentionConstants(b, attention));
      maps.push_back(AffineMap::get(space.sizes.size(), 0,
                                    {b.getAffineConstantExpr(0)},
                                    raw->getContext()));
    }
    llvm::append_range(maps, space.resultMaps);
    auto kernel = KernelOp::create(b, raw->getLoc(), raw->getResultTypes(),
                                   kernelName(raw, counter++), inputs);
    setLoops(kernel, space.sizes, space.iterators, maps);
    Block &body = kernel.getBodyBlock();
    OpBuilder inner = OpBuilder::atBlockEnd(&body);
    IRMapping mapping;
    for (auto [i, operand] : llvm::enumerate(raw->getOperands()))
      mapping.map(operand, body.getArgument(operandToInput[i]));
    Operation *clone = inner.clone(*raw, mapping);
    YieldOp::create(inner, raw->getLoc(), clone->getResults());
    raw->replaceAllUsesWith(kernel.getResults());
    raw->erase();
  }

  /// How `op` embeds in `kernel`, whose result `fused` it reads; nullopt
  /// when its loops do not map onto the kernel's.
  std::optional<Embedding> embed(KernelOp kernel, Value fused,
                                 ComputeOpInterface op) {
    IterationSpace space = op.getIterationSpace();
    Embedding e;
    e.iterators = kernel.getIteratorKinds();
    if (isa<MatmulOp>(&kernel.getBodyBlock().front()))
      return embedInMatmul(kernel, fused, op, space, e);
    return embedInLoops(kernel, op, space, e);
  }

  /// Fuses `op` into the kernel producing one of its operands, if one
  /// qualifies (the most recent first).
  bool tryFuse(ComputeOpInterface op) {
    Operation *raw = op.getOperation();
    SmallVector<std::pair<KernelOp, unsigned>> candidates;
    for (OpOperand &operand : raw->getOpOperands())
      if (auto k = dyn_cast_or_null<KernelOp>(operand.get().getDefiningOp()))
        candidates.push_back({k, operand.getOperandNumber()});
    // The latest kernel first, but a kernel that only permutes an operand
    // last: left alone, spyre-reorder-on-chip folds it into a neighbour's
    // access pattern, so the op is better fused with real work.
    llvm::sort(candidates, [](auto &a, auto &b) {
      bool aMoves = bool(onlyPermutation(a.first)),
           bMoves = bool(onlyPermutation(b.first));
      if (aMoves != bMoves)
        return bMoves;
      return b.first->isBeforeInBlock(a.first);
    });
    for (auto [kernel, operandIdx] : candidates) {
      if (kernel.getBodyBlock().getOperations().size() > kMaxFusedOps ||
          (leavePermutes && onlyPermutation(kernel)))
        continue;
      Value fused = raw->getOperand(operandIdx);
      if (widensWrittenValue(raw, fused))
        continue;
      std::optional<Embedding> e = embed(kernel, fused, op);
      if (!e || !placeable(kernel, raw) || !trial(kernel, raw, *e))
        continue;
      placeBefore(kernel, raw);
      fuse(kernel, raw, *e, kernel);
      return true;
    }
    return false;
  }

  /// Whether `op` is a cast to a wider element type of `value`, a kernel
  /// result that other ops read too (so the kernel writes it anyway): fused,
  /// the kernel would also write the wide copy, and the readers past it
  /// read that instead of the narrow one (the upcast of transformers'
  /// RMSNorm on a residual: two fp32 copies of [tokens, hidden] beside the
  /// fp16 one). Unfused, it starts the kernel of its readers.
  static bool widensWrittenValue(Operation *op, Value value) {
    auto widen = dyn_cast<CastOp>(op);
    auto bytes = [](Value v) {
      return getElementBytes(
          cast<RankedTensorType>(v.getType()).getElementType());
    };
    return widen && bytes(widen.getResult()) > bytes(value) &&
           llvm::any_of(value.getUsers(),
                        [&](Operation *user) { return user != op; });
  }

  /// Whether every operand of `op` is available at `kernel`, or the kernel
  /// can move down to `op` (none of its results used before `op`).
  bool placeable(KernelOp kernel, Operation *op) {
    bool dominated = llvm::all_of(op->getOperands(), [&](Value v) {
      return v.getDefiningOp() == kernel || isa<BlockArgument>(v) ||
             v.getDefiningOp()->isBeforeInBlock(kernel);
    });
    if (dominated)
      return true;
    for (Value r : kernel.getResults())
      for (Operation *user : r.getUsers())
        if (user != op && user->isBeforeInBlock(op))
          return false;
    return true;
  }

  void placeBefore(KernelOp kernel, Operation *op) {
    bool dominated = llvm::all_of(op->getOperands(), [&](Value v) {
      return v.getDefiningOp() == kernel || isa<BlockArgument>(v) ||
             v.getDefiningOp()->isBeforeInBlock(kernel);
    });
    if (!dominated)
      kernel->moveBefore(op);
  }

  /// An elementwise kernel whose one result only another kernel reads, as
  /// operands of its pointwise ops, is computed inside that kernel instead
  /// (the rotation's `q * cos` inside the kernel that adds it to
  /// `rotate_half(q) * sin`): the intermediate never goes to memory.
  void inlineProducers(func::FuncOp func) {
    SmallVector<KernelOp> kernels;
    func.walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    for (KernelOp consumer : kernels) {
      bool changed = true;
      while (changed) {
        changed = false;
        for (Value input : consumer.getInputs()) {
          auto producer = input.getDefiningOp<KernelOp>();
          if (!producer)
            continue;
          KernelOp merged = inlineProducer(consumer, producer);
          if (!merged)
            continue;
          if (merged.getBodyBlock().getOperations().size() > kMaxFusedOps ||
              !KernelPlan::isRunnable(merged, getArch(merged), maxCores)) {
            merged.erase();
            continue;
          }
          consumer.replaceAllUsesWith(merged.getResults());
          consumer.erase();
          producer.erase();
          consumer = merged;
          changed = true;
          break;
        }
      }
    }
  }

  /// Matmul kernels multiplying one lhs by different weights over the
  /// same loops (k and v projections under grouped-query attention) become
  /// one kernel with a result each: one read of the lhs, one kernel's
  /// synchronization instead of two.
  void mergeProjections(func::FuncOp func) {
    SmallVector<KernelOp> kernels;
    func.walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    llvm::DenseSet<Operation *> erased;
    for (auto [i, first] : llvm::enumerate(kernels)) {
      if (erased.contains(first))
        continue;
      for (KernelOp second : ArrayRef(kernels).drop_front(i + 1)) {
        if (erased.contains(second))
          continue;
        KernelOp merged = mergeSiblingProjections(first, second);
        if (!merged)
          continue;
        if (merged.getBodyBlock().getOperations().size() > kMaxFusedOps ||
            !KernelPlan::isRunnable(merged, getArch(merged), maxCores) ||
            !(bestEstimate(merged) <
              bestEstimate(first) + bestEstimate(second))) {
          merged.erase();
          continue;
        }
        first.getResult(0).replaceAllUsesWith(merged.getResult(0));
        second.getResult(0).replaceAllUsesWith(merged.getResult(1));
        erased.insert(first);
        erased.insert(second);
        first.erase();
        second.erase();
        break;
      }
    }
  }

  /// Estimated nanoseconds of matmul kernel `kernel`'s fastest schedule,
  /// its lhs read in LX (as the producer's handoff gives it: two kernels
  /// reading it in place pay no load for it either) and its other tensors
  /// through device memory; infinite without one. Per kernel signature,
  /// so identical layers search once.
  double bestEstimate(KernelOp kernel) {
    std::string signature = kernelSignature(kernel);
    if (auto it = estimates.find(signature); it != estimates.end())
      return it->second;
    double ns = std::numeric_limits<double>::infinity();
    const Arch &arch = getArch(kernel);
    FailureOr<KernelPlan::Roles> roles =
        KernelPlan::roles(kernel, /*emitErrors=*/false);
    MatmulOp root = *kernel.getBodyBlock().getOps<MatmulOp>().begin();
    int64_t lhs = aliasedInput(root.getLhs());
    SmallVector<StringRef> paths(kernel.getInputs().size(), "dma");
    paths[lhs] = "lx";
    kernel.setSourcesAttr(Builder(kernel.getContext()).getStrArrayAttr(paths));
    int64_t cores =
        maxCores > 0 ? std::min<int64_t>(maxCores, arch.cores) : arch.cores;
    if (succeeded(roles))
      if (ScheduleAttr best = searchSchedule(kernel, *roles, arch, cores,
                                             std::max<int64_t>(depth, 1),
                                             /*accept=*/nullptr))
        ns = double(best.getCostNs());
    kernel->removeAttr(kernel.getSourcesAttrName());
    estimates[signature] = ns;
    return ns;
  }
  std::map<std::string, double> estimates;

  /// Whether the kernel with `op` fused in is one KernelPlan supports (a
  /// plan of a fused copy of the kernel) and still fits LX at its smallest
  /// tiles: a reduction chain over long rows (topk over a vocabulary) needs
  /// every fused row resident, so past some length it must stay several
  /// kernels.
  bool trial(KernelOp kernel, Operation *op, const Embedding &e) {
    OpBuilder b(kernel);
    auto copy = cast<KernelOp>(b.clone(*kernel));
    KernelOp grown = fuse(copy, op, e, kernel, /*moveOp=*/false);
    bool ok = KernelPlan::isRunnable(grown, getArch(grown), maxCores);
    grown.erase();
    return ok;
  }

  /// Moves (or, for a trial, clones) `op` into `kernel`: its result becomes
  /// a new kernel result; operands that `source` (the kernel the op reads,
  /// `kernel` itself or the original of a trial copy) produces read the
  /// yielded values, others become inputs. Returns the grown kernel.
  KernelOp fuse(KernelOp kernel, Operation *op, const Embedding &e,
                KernelOp source, bool moveOp = true) {
    Block &body = kernel.getBodyBlock();
    YieldOp yield = kernel.getYield();
    SmallVector<AffineMap> maps = kernel.getIndexingMapList();
    unsigned numInputs = kernel.getInputs().size();
    IRMapping mapping;
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      if (operand.getDefiningOp() == source.getOperation()) {
        mapping.map(operand, yield.getOperand(
                                 cast<OpResult>(operand).getResultNumber()));
        continue;
      }
      AffineMap map = e.operandMaps[i];
      BlockArgument arg;
      for (unsigned j = 0; j < kernel.getInputs().size(); ++j)
        if (kernel.getInputs()[j] == operand && maps[j] == map)
          arg = body.getArgument(j);
      if (!arg) {
        kernel.getInputsMutable().append(operand);
        arg = body.addArgument(operand.getType(), operand.getLoc());
        maps.insert(maps.begin() + numInputs, map);
        ++numInputs;
      }
      mapping.map(operand, arg);
    }
    OpBuilder inner(yield);
    Operation *clone = inner.clone(*op, mapping);
    // The new value leaves the kernel as one more result.
    SmallVector<Value> yielded(yield.getValues());
    yielded.push_back(clone->getResult(0));
    yield->setOperands(yielded);
    maps.push_back(e.resultMap);
    OpBuilder outer(kernel);
    SmallVector<Type> types(kernel.getResultTypes());
    types.push_back(clone->getResult(0).getType());
    auto grown = KernelOp::create(outer, kernel.getLoc(), types,
                                  kernel.getName(), kernel.getInputs());
    grown.getBody().takeBody(kernel.getBody());
    for (NamedAttribute attr : kernel->getAttrs())
      grown->setAttr(attr.getName(), attr.getValue());
    setLoops(grown, kernel.getSpace(), e.iterators, maps);
    for (auto [from, to] : llvm::zip(kernel.getResults(), grown.getResults()))
      from.replaceAllUsesWith(to);
    if (moveOp) {
      op->getResult(0).replaceAllUsesWith(grown.getResults().back());
      op->erase();
    }
    kernel.erase();
    return grown;
  }

  /// Every output must be a tensor a kernel writes (the caller's buffer):
  /// an input, weight or constant returned as is (or through a view), or a
  /// tensor returned twice, gets a copy kernel.
  /// A copy kernel of `v` before `at`. A canonical tensor is copied as
  /// rows of its innermost dim (a view of any rank; copies walk at most
  /// two dims besides the stick).
  Value copyOf(Value v, Operation *at) {
    OpBuilder b(at);
    Location loc = at->getLoc();
    auto type = cast<RankedTensorType>(v.getType());
    int64_t stick = getArch(at).stickBytes;
    RankedTensorType copyType = type;
    if (type.getRank() > 2 &&
        getLayout(type) == LayoutAttr::getCanonical(type, stick)) {
      int64_t rows = type.getNumElements() / type.getShape().back();
      auto flat = RankedTensorType::get({rows, type.getShape().back()},
                                        type.getElementType());
      copyType = RankedTensorType::get(flat.getShape(), flat.getElementType(),
                                       LayoutAttr::getCanonical(flat, stick));
      v = ReshapeOp::create(b, loc, copyType, v);
    }
    auto kernel = KernelOp::create(
        b, loc, copyType, "k" + std::to_string(counter++) + "_copy", v);
    int64_t rank = copyType.getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
    setLoops(kernel, copyType.getShape(),
             SmallVector<IteratorKind>(rank, IteratorKind::parallel), {id, id});
    OpBuilder inner = OpBuilder::atBlockEnd(&kernel.getBodyBlock());
    Value copy = SliceOp::create(
        inner, loc, copyType, kernel.getBodyBlock().getArgument(0),
        SmallVector<int64_t>(rank, 0), SmallVector<int64_t>(rank, 1));
    YieldOp::create(inner, loc, copy);
    if (copyType == type)
      return kernel.getResult(0);
    return ReshapeOp::create(b, loc, type, kernel.getResult(0));
  }

  void copyUncomputedOutputs(func::FuncOp func) {
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    llvm::SmallPtrSet<Operation *, 8> seenKernels;
    llvm::DenseSet<Value> seen;
    for (OpOperand &operand : ret->getOpOperands()) {
      Value root = operand.get();
      while (auto view = root.getDefiningOp<ReshapeOp>())
        root = view.getInput();
      bool computed = root.getDefiningOp<KernelOp>() && !seen.contains(root);
      seen.insert(root);
      Value v = operand.get();
      auto type = cast<RankedTensorType>(v.getType());
      if (computed || type.getNumElements() == 0)
        continue; // an empty output needs no copy
      operand.set(copyOf(v, ret));
    }
  }

  /// Drops results nobody reads any more (their values were fused into
  /// their consumers).
  void pruneResults(KernelOp kernel) {
    SmallVector<unsigned> keep;
    for (auto [i, r] : llvm::enumerate(kernel.getResults()))
      if (!r.use_empty())
        keep.push_back(i);
    if (keep.size() == kernel.getNumResults())
      return;
    YieldOp yield = kernel.getYield();
    SmallVector<AffineMap> maps = kernel.getIndexingMapList();
    unsigned numInputs = kernel.getInputs().size();
    SmallVector<Value> values;
    SmallVector<Type> types;
    SmallVector<AffineMap> newMaps(maps.begin(), maps.begin() + numInputs);
    for (unsigned i : keep) {
      values.push_back(yield.getOperand(i));
      types.push_back(kernel.getResult(i).getType());
      newMaps.push_back(maps[numInputs + i]);
    }
    yield->setOperands(values);
    KernelOp pruned = rebuildKernel(kernel, kernel.getInputs(), types, newMaps);
    for (auto [k, i] : llvm::enumerate(keep))
      kernel.getResult(i).replaceAllUsesWith(pruned.getResult(k));
    kernel.erase();
    eraseDeadBodyOps(pruned);
    eraseUnreadInputs(pruned);
  }

  /// Body values no result needs any more are dead code (users first).
  static void eraseDeadBodyOps(KernelOp kernel) {
    for (Operation &op : llvm::make_early_inc_range(
             llvm::reverse(kernel.getBodyBlock().without_terminator())))
      if (op.use_empty())
        op.erase();
  }

  /// Drops the inputs nothing in the body reads, with their maps.
  static void eraseUnreadInputs(KernelOp kernel) {
    Block &body = kernel.getBodyBlock();
    SmallVector<AffineMap> allMaps = kernel.getIndexingMapList();
    for (int64_t i = int64_t(body.getNumArguments()) - 1; i >= 0; --i) {
      if (!body.getArgument(i).use_empty())
        continue;
      kernel.getInputsMutable().erase(i);
      body.eraseArgument(i);
      allMaps.erase(allMaps.begin() + i);
    }
    Builder b(kernel.getContext());
    kernel.setIndexingMapsAttr(b.getAffineMapArrayAttr(allMaps));
  }
};

} // namespace
