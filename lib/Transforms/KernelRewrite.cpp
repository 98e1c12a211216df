//===- KernelRewrite.cpp - Rewriting spyre.kernel ops ---------------------===//

#include "KernelRewrite.h"

#include "spyre/Transforms/KernelPlan.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace spyre {

KernelOp rebuildKernel(KernelOp kernel, ValueRange inputs, TypeRange results,
                       ArrayRef<AffineMap> maps) {
  OpBuilder b(kernel);
  auto rebuilt =
      KernelOp::create(b, kernel.getLoc(), results, kernel.getName(), inputs);
  rebuilt.getBody().takeBody(kernel.getBody());
  for (NamedAttribute attr : kernel->getAttrs())
    rebuilt->setAttr(attr.getName(), attr.getValue());
  rebuilt.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
  return rebuilt;
}

Operation *soleBodyOp(KernelOp kernel, unsigned numInputs) {
  Block &body = kernel.getBodyBlock();
  if (kernel.getInputs().size() != numInputs || kernel.getNumResults() != 1 ||
      !llvm::hasSingleElement(body.without_terminator()))
    return nullptr;
  return &body.front();
}

TransposeOp onlyPermutation(KernelOp kernel) {
  auto move = dyn_cast_or_null<TransposeOp>(soleBodyOp(kernel, 1));
  if (!move || !keepsStick(move) ||
      move.getInput() != kernel.getBodyBlock().getArgument(0))
    return {};
  return move;
}

/// Whether `kernel` computes its one result with pointwise ops alone and
/// writes it through the identity map (its loops are the result's dims).
/// A broadcast is not taken: in the consumer it would materialize a tensor
/// of another shape than the consumer's loops walk.
static bool isElementwiseProducer(KernelOp kernel) {
  if (kernel.getNumResults() != 1 ||
      !kernel.getIndexingMapList().back().isIdentity())
    return false;
  return llvm::all_of(
      kernel.getBodyBlock().without_terminator(),
      [](Operation &op) { return isPointwise(&op) && !isa<BroadcastOp>(op); });
}

/// Whether the consumer's block argument `arg` feeds pointwise ops only
/// (not a matmul or attention operand, which would recompute it per use).
static bool readByPointwiseOnly(BlockArgument arg) {
  return llvm::all_of(arg.getUsers(),
                      [](Operation *user) { return isPointwise(user); });
}

/// The first op of `kernel`'s body past its leading tile aliases of
/// inputs, when it is a matmul (a matmul kernel's root).
static MatmulOp rootMatmul(KernelOp kernel) {
  for (Operation &op : kernel.getBodyBlock().without_terminator()) {
    if (auto matmul = dyn_cast<MatmulOp>(op))
      return matmul;
    if (!isTileAlias(&op) || !isa<BlockArgument>(op.getOperand(0)))
      return {};
  }
  return {};
}

/// Whether everything after `kernel`'s root matmul is pointwise (no
/// broadcast: see isElementwiseProducer).
static bool pointwiseAfter(KernelOp kernel, MatmulOp root) {
  for (Operation *op = root->getNextNode(); op != kernel.getYield();
       op = op->getNextNode())
    if (!isPointwise(op) || isa<BroadcastOp>(op))
      return false;
  return true;
}

/// Whether kernels `x` and `y` run over the same loops and iterators.
static bool sameLoops(KernelOp x, KernelOp y) {
  return x.getSpace() == y.getSpace() &&
         x.getIteratorsAttr() == y.getIteratorsAttr();
}

/// Whether matmul `mx` of kernel `x` and `my` of kernel `y` multiply the
/// same lhs tensor, read through the same map, by a kernel input of `y`.
static bool sameLhs(KernelOp x, MatmulOp mx, KernelOp y, MatmulOp my) {
  int64_t lx = aliasedInput(mx.getLhs()), ly = aliasedInput(my.getLhs());
  return lx >= 0 && ly >= 0 && aliasedInput(my.getRhs()) >= 0 &&
         mx.getLhs().getType() == my.getLhs().getType() &&
         x.getInputs()[lx] == y.getInputs()[ly] &&
         x.getIndexingMapList()[lx] == y.getIndexingMapList()[ly];
}

/// The root matmul of a kernel with one result and only pointwise ops
/// after that matmul; null otherwise.
static MatmulOp projectionMatmul(KernelOp kernel) {
  MatmulOp root = rootMatmul(kernel);
  if (!root || kernel.getNumResults() != 1 || !pointwiseAfter(kernel, root))
    return {};
  return root;
}

/// Whether `producer` is a matmul kernel over the same loops as matmul
/// kernel `consumer`, multiplying the same lhs (same tensor, same map) by
/// an input, with pointwise ops after its matmul, writing its one result
/// where `consumer` reads it (input `i`): the gated MLP's gate projection
/// (and its SiLU) beside the up projection.
static bool isSiblingMatmul(KernelOp consumer, unsigned i, KernelOp producer) {
  MatmulOp mine = rootMatmul(consumer), theirs = projectionMatmul(producer);
  return mine && theirs && sameLoops(consumer, producer) &&
         producer.getIndexingMapList().back() ==
             consumer.getIndexingMapList()[i] &&
         sameLhs(consumer, mine, producer, theirs);
}

/// Whether `consumer` may compute `producer`'s one result itself: the
/// producer is elementwise, or a sibling matmul (above) of consumer input
/// `i`, and read by `consumer` alone, by its pointwise ops only.
static bool canInline(KernelOp consumer, KernelOp producer) {
  Value produced = producer.getResult(0);
  // Every read of a sibling's result is through its result map (one
  // copy of its matmul serves them all).
  bool sibling = true;
  for (auto [i, input] : llvm::enumerate(consumer.getInputs()))
    if (input == produced)
      sibling &= isSiblingMatmul(consumer, i, producer);
  if ((!isElementwiseProducer(producer) && !sibling) ||
      !llvm::all_of(produced.getUsers(),
                    [&](Operation *user) { return user == consumer; }))
    return false;
  Block &body = consumer.getBodyBlock();
  for (auto [i, input] : llvm::enumerate(consumer.getInputs()))
    if (input == produced && !readByPointwiseOnly(body.getArgument(i)))
      return false;
  return true;
}

/// The inputs and maps of the merged kernel: the consumer's inputs but the
/// produced one, then the producer's inputs as each read of the produced
/// tensor needs them (maps composed; one input per value and map).
struct MergedInputs {
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  /// Per consumer input: its new index, or the new indices of the
  /// producer's inputs it is computed from.
  SmallVector<SmallVector<unsigned>> sources;

  unsigned add(Value v, AffineMap map) {
    for (auto [i, input] : llvm::enumerate(inputs))
      if (input == v && maps[i] == map)
        return unsigned(i);
    inputs.push_back(v);
    maps.push_back(map);
    return unsigned(inputs.size() - 1);
  }
};

static MergedInputs mergeInputs(KernelOp consumer, KernelOp producer) {
  Value produced = producer.getResult(0);
  SmallVector<AffineMap> consumerMaps = consumer.getIndexingMapList();
  SmallVector<AffineMap> producerMaps = producer.getIndexingMapList();
  unsigned numInputs = consumer.getInputs().size();
  MergedInputs merged;
  merged.sources.resize(numInputs);
  for (auto [i, v] : llvm::enumerate(consumer.getInputs())) {
    if (v != produced) {
      merged.sources[i].push_back(merged.add(v, consumerMaps[i]));
      continue;
    }
    // A sibling matmul runs over the consumer's loops; an elementwise
    // producer over the produced tensor's dims.
    bool sameLoops = isSiblingMatmul(consumer, i, producer);
    for (auto [j, input] : llvm::enumerate(producer.getInputs()))
      merged.sources[i].push_back(merged.add(
          input, sameLoops ? producerMaps[j]
                           : producerMaps[j].compose(consumerMaps[i])));
  }
  llvm::append_range(merged.maps, ArrayRef(consumerMaps).drop_front(numInputs));
  return merged;
}

/// The first op of `body` past its leading matmuls and tile aliases.
static Operation *firstAfterProducts(Block *body) {
  for (Operation &op : *body)
    if (!isa<MatmulOp>(op) && !isTileAlias(&op))
      return &op;
  return body->getTerminator();
}

/// Replaces `old`, the merged kernel's argument for the produced tensor,
/// with a copy of the producer's body on `args`, just before its first
/// user (a matmul or attention kernel's body starts with its matmul or
/// attention).
static void computeInPlace(BlockArgument old, KernelOp producer,
                           ArrayRef<Value> args, bool sibling) {
  if (old.use_empty())
    return;
  Operation *first =
      *llvm::min_element(old.getUsers(), [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
  // A sibling matmul joins the matmuls at the head of the body: every
  // product accumulates before any epilogue op runs (body order is the
  // order buffers live in).
  if (sibling)
    first = firstAfterProducts(old.getOwner());
  OpBuilder inner(first);
  IRMapping mapping;
  Block &producerBody = producer.getBodyBlock();
  for (auto [j, arg] : llvm::enumerate(args))
    mapping.map(producerBody.getArgument(j), arg);
  for (Operation &op : producerBody.without_terminator())
    inner.clone(op, mapping);
  old.replaceAllUsesWith(mapping.lookup(producer.getYield().getOperand(0)));
}

KernelOp inlineProducer(KernelOp consumer, KernelOp producer) {
  if (!canInline(consumer, producer))
    return {};
  MergedInputs merged = mergeInputs(consumer, producer);
  OpBuilder b(consumer);
  auto copy = cast<KernelOp>(b.clone(*consumer));
  KernelOp rewritten = rebuildKernel(copy, merged.inputs,
                                     consumer.getResultTypes(), merged.maps);
  copy.erase();
  Block &newBody = rewritten.getBodyBlock();
  SmallVector<Value> args;
  for (Value v : merged.inputs)
    args.push_back(newBody.addArgument(v.getType(), v.getLoc()));
  unsigned numInputs = consumer.getInputs().size();
  for (unsigned i = 0; i < numInputs; ++i) {
    BlockArgument old = newBody.getArgument(i);
    if (consumer.getInputs()[i] != producer.getResult(0)) {
      old.replaceAllUsesWith(args[merged.sources[i].front()]);
      continue;
    }
    SmallVector<Value> producerArgs;
    for (unsigned src : merged.sources[i])
      producerArgs.push_back(args[src]);
    computeInPlace(old, producer, producerArgs,
                   isSiblingMatmul(consumer, i, producer));
  }
  newBody.eraseArguments(0, numInputs);
  return rewritten;
}

/// Whether every input of `kernel` is defined before `point` (a block
/// argument or an op earlier in its block): the kernel can move there.
static bool inputsDefinedBefore(KernelOp kernel, Operation *point) {
  return llvm::all_of(kernel.getInputs(), [&](Value v) {
    Operation *def = v.getDefiningOp();
    return !def || (def->getBlock() == point->getBlock() &&
                    def->isBeforeInBlock(point));
  });
}

bool areSiblingProjections(KernelOp first, KernelOp second) {
  MatmulOp a = projectionMatmul(first), b = projectionMatmul(second);
  return a && b && first != second && first->getBlock() == second->getBlock() &&
         first->isBeforeInBlock(second) && sameLoops(first, second) &&
         first.getIndexingMapList().back() ==
             second.getIndexingMapList().back() &&
         sameLhs(first, a, second, b) && inputsDefinedBefore(second, first);
}

KernelOp mergeSiblingProjections(KernelOp first, KernelOp second) {
  if (!areSiblingProjections(first, second))
    return {};
  MergedInputs merged;
  SmallVector<AffineMap> firstMaps = first.getIndexingMapList();
  SmallVector<AffineMap> secondMaps = second.getIndexingMapList();
  SmallVector<unsigned> firstArgs, secondArgs;
  for (auto [i, v] : llvm::enumerate(first.getInputs()))
    firstArgs.push_back(merged.add(v, firstMaps[i]));
  for (auto [i, v] : llvm::enumerate(second.getInputs()))
    secondArgs.push_back(merged.add(v, secondMaps[i]));
  merged.maps.push_back(firstMaps.back());
  merged.maps.push_back(secondMaps.back());

  OpBuilder b(first);
  SmallVector<Type> results = {first.getResult(0).getType(),
                               second.getResult(0).getType()};
  auto kernel = KernelOp::create(b, first.getLoc(), results, first.getName(),
                                 merged.inputs);
  for (NamedAttribute attr : first->getAttrs())
    kernel->setAttr(attr.getName(), attr.getValue());
  kernel.setIndexingMapsAttr(b.getAffineMapArrayAttr(merged.maps));
  Block *body = &kernel.getBodyBlock(); // an argument per input

  // Both products first, then both epilogues: every product accumulates
  // before any epilogue op runs (as for the gated MLP's two matmuls).
  IRMapping firstMap, secondMap;
  for (auto [j, arg] : llvm::enumerate(firstArgs))
    firstMap.map(first.getBodyBlock().getArgument(j), body->getArgument(arg));
  for (auto [j, arg] : llvm::enumerate(secondArgs))
    secondMap.map(second.getBodyBlock().getArgument(j), body->getArgument(arg));
  OpBuilder inner = OpBuilder::atBlockEnd(body);
  auto cloneRange = [&](KernelOp from, IRMapping &mapping, bool products) {
    MatmulOp root = rootMatmul(from);
    for (Operation &op : from.getBodyBlock().without_terminator()) {
      bool isProduct = !root->isBeforeInBlock(&op);
      if (isProduct == products)
        inner.clone(op, mapping);
    }
  };
  cloneRange(first, firstMap, true);
  cloneRange(second, secondMap, true);
  cloneRange(first, firstMap, false);
  cloneRange(second, secondMap, false);
  YieldOp::create(
      inner, first.getYield().getLoc(),
      ValueRange{firstMap.lookup(first.getYield().getOperand(0)),
                 secondMap.lookup(second.getYield().getOperand(0))});
  return kernel;
}

} // namespace spyre
