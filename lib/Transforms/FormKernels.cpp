//===- FormKernels.cpp - spyre-form-kernels -------------------------------===//
//
// Wraps compute ops into `spyre.kernel`s and fuses elementwise consumers into
// their producer's kernel so that the intermediate never leaves LX: the tail
// of a matmul (bias, activation, residual) and chains of elementwise ops.
//
//===----------------------------------------------------------------------===//

#include "spyre/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"

namespace spyre {
#define GEN_PASS_DEF_SPYREFORMKERNELS
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {

/// Fused bodies stay small enough that their buffers fit LX at any tile.
constexpr size_t kMaxFusedOps = 16;

bool isElementwise(const IterationSpace &space) {
  if (llvm::any_of(space.iterators,
                   [](IteratorKind k) { return k != IteratorKind::parallel; }))
    return false;
  return space.resultMaps.size() == 1 && space.resultMaps[0].isIdentity();
}

/// Whether the kernel's body can take an elementwise epilogue: its root is a
/// matmul or an elementwise op (data movement kernels stay alone).
bool acceptsEpilogue(KernelOp kernel) {
  Operation *root = &kernel.getBodyBlock().front();
  if (isa<MatmulOp>(root))
    return true;
  auto compute = dyn_cast<ComputeOpInterface>(root);
  return compute && !isa<TransposeOp, RestickifyOp, BroadcastOp>(root) &&
         isElementwise(compute.getIterationSpace());
}

/// A readable, unique kernel name: "k<n>_<op>[_<node name>]".
std::string kernelName(Operation *op, unsigned index) {
  std::string name = "k" + std::to_string(index) + "_" +
                     op->getName().stripDialect().str();
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

struct FormKernelsPass : public spyre::impl::SpyreFormKernelsBase<FormKernelsPass> {
  unsigned counter = 0;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      SmallVector<Operation *> ops;
      for (Operation &op : func.getBody().getOps())
        ops.push_back(&op);
      for (Operation *op : ops) {
        if (auto reshape = dyn_cast<ReshapeOp>(op)) {
          if (failed(checkView(reshape)))
            return signalPassFailure();
          continue;
        }
        auto compute = dyn_cast<ComputeOpInterface>(op);
        if (!compute)
          continue;
        if (!tryFuse(compute))
          wrap(compute);
      }
    }
  }

  /// A reshape stays outside kernels as a view of its input's bytes; that
  /// holds when both use the canonical layout and keep the innermost dim.
  LogicalResult checkView(ReshapeOp op) {
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto out = cast<RankedTensorType>(op.getType());
    int64_t stick = getArch(op).stickBytes;
    bool canonical = getLayout(in) == LayoutAttr::getCanonical(in, stick) &&
                     getLayout(out) == LayoutAttr::getCanonical(out, stick);
    int64_t inLast = in.getRank() ? in.getShape().back() : 1;
    int64_t outLast = out.getRank() ? out.getShape().back() : 1;
    if (canonical && inLast == outLast)
      return success();
    return op.emitError("reshape from ")
           << in << " to " << out
           << " changes the innermost (stick) dimension; only reshapes of "
              "the outer dims are supported";
  }

  /// Puts `op` alone in a new kernel.
  void wrap(ComputeOpInterface op) {
    Operation *raw = op.getOperation();
    IterationSpace space = op.getIterationSpace();
    OpBuilder b(raw);
    // Inputs: operands, deduplicated when read through the same map.
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    SmallVector<unsigned> operandToInput;
    for (auto [operand, map] : llvm::zip(raw->getOperands(), space.operandMaps)) {
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
    llvm::append_range(maps, space.resultMaps);
    auto kernel = KernelOp::create(b, raw->getLoc(), raw->getResultTypes(),
                                   kernelName(raw, counter++), inputs);
    setSpace(kernel, space, maps);
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

  void setSpace(KernelOp kernel, const IterationSpace &space,
                ArrayRef<AffineMap> maps) {
    Builder b(kernel.getContext());
    kernel.setSpace(space.sizes);
    SmallVector<StringRef> iters;
    for (IteratorKind k : space.iterators)
      iters.push_back(stringifyIteratorKind(k));
    kernel.setIteratorsAttr(b.getStrArrayAttr(iters));
    kernel.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
  }

  /// Fuses an elementwise `op` into the kernel producing one of its
  /// operands, if one qualifies.
  bool tryFuse(ComputeOpInterface op) {
    Operation *raw = op.getOperation();
    IterationSpace space = op.getIterationSpace();
    if (!isElementwise(space) ||
        isa<TransposeOp, RestickifyOp, BroadcastOp>(raw))
      return false;
    auto resultType = cast<RankedTensorType>(raw->getResult(0).getType());
    for (OpOperand &operand : raw->getOpOperands()) {
      auto producer = dyn_cast_or_null<KernelOp>(operand.get().getDefiningOp());
      if (!producer || !operand.get().hasOneUse() || !acceptsEpilogue(producer))
        continue;
      if (cast<RankedTensorType>(operand.get().getType()).getShape() !=
          resultType.getShape())
        continue;
      if (producer.getBodyBlock().getOperations().size() > kMaxFusedOps)
        continue;
      unsigned resultIdx = cast<OpResult>(operand.get()).getResultNumber();
      AffineMap resultMap =
          cast<AffineMapAttr>(
              producer.getIndexingMapsAttr()
                  .getValue()[producer.getInputs().size() + resultIdx])
              .getValue();
      if (!resultMap.isProjectedPermutation())
        continue;
      if (!placeBefore(producer, raw))
        continue;
      fuse(producer, resultIdx, resultMap, op, space, operand.getOperandNumber());
      return true;
    }
    return false;
  }

  /// Makes every operand of `op` available at `kernel` (moving the kernel
  /// down to just before `op` when needed). False when impossible.
  bool placeBefore(KernelOp kernel, Operation *op) {
    bool allDominate = llvm::all_of(op->getOperands(), [&](Value v) {
      if (v.getDefiningOp() == kernel)
        return true;
      if (auto arg = dyn_cast<BlockArgument>(v))
        return true;
      return v.getDefiningOp()->isBeforeInBlock(kernel);
    });
    if (allDominate)
      return true;
    // Moving the kernel to `op` is legal when none of its results is used
    // before `op`.
    for (Value r : kernel.getResults())
      for (Operation *user : r.getUsers())
        if (user != op && user->isBeforeInBlock(op))
          return false;
    kernel->moveBefore(op);
    return true;
  }

  void fuse(KernelOp kernel, unsigned resultIdx, AffineMap resultMap,
            ComputeOpInterface op, const IterationSpace &space,
            unsigned fusedOperand) {
    Operation *raw = op.getOperation();
    Block &body = kernel.getBodyBlock();
    YieldOp yield = kernel.getYield();
    SmallVector<AffineMap> maps = llvm::to_vector(
        kernel.getIndexingMapsAttr().getAsValueRange<AffineMapAttr>());
    unsigned numInputs = kernel.getInputs().size();

    IRMapping mapping;
    mapping.map(raw->getOperand(fusedOperand), yield.getOperand(resultIdx));
    for (auto [i, operand] : llvm::enumerate(raw->getOperands())) {
      if (i == fusedOperand)
        continue;
      // The operand read through the op's map, seen from the kernel loops.
      AffineMap map = space.operandMaps[i].compose(resultMap);
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
    Operation *clone = inner.clone(*raw, mapping);
    yield->setOperand(resultIdx, clone->getResult(0));
    Value result = kernel.getResult(resultIdx);
    result.setType(clone->getResult(0).getType());
    raw->getResult(0).replaceAllUsesWith(result);
    raw->erase();
    kernel.setIndexingMapsAttr(
        Builder(kernel.getContext()).getAffineMapArrayAttr(maps));
  }
};

} // namespace
