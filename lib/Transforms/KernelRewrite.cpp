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

TransposeOp onlyPermutation(KernelOp kernel) {
  Block &body = kernel.getBodyBlock();
  if (kernel.getInputs().size() != 1 || kernel.getNumResults() != 1 ||
      !llvm::hasSingleElement(body.without_terminator()))
    return {};
  auto move = dyn_cast<TransposeOp>(body.front());
  if (!move || !keepsStick(move) || move.getInput() != body.getArgument(0))
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

KernelOp inlineProducer(KernelOp consumer, KernelOp producer) {
  Value produced = producer.getResult(0);
  if (!isElementwiseProducer(producer) ||
      !llvm::all_of(produced.getUsers(),
                    [&](Operation *user) { return user == consumer; }))
    return {};
  Block &body = consumer.getBodyBlock();
  unsigned numInputs = consumer.getInputs().size();
  for (unsigned i = 0; i < numInputs; ++i)
    if (consumer.getInputs()[i] == produced &&
        !readByPointwiseOnly(body.getArgument(i)))
      return {};

  // The consumer's inputs but the produced one, then the producer's inputs
  // as each read of the produced tensor needs them (one input per value
  // and map).
  SmallVector<AffineMap> consumerMaps = consumer.getIndexingMapList();
  SmallVector<AffineMap> producerMaps = producer.getIndexingMapList();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  auto inputFor = [&](Value v, AffineMap map) {
    for (auto [i, input] : llvm::enumerate(inputs))
      if (input == v && maps[i] == map)
        return unsigned(i);
    inputs.push_back(v);
    maps.push_back(map);
    return unsigned(inputs.size() - 1);
  };
  // Per consumer input: its new index, or the new indices of the
  // producer's inputs it is computed from.
  SmallVector<SmallVector<unsigned>> sources(numInputs);
  for (unsigned i = 0; i < numInputs; ++i) {
    Value v = consumer.getInputs()[i];
    if (v != produced) {
      sources[i].push_back(inputFor(v, consumerMaps[i]));
      continue;
    }
    for (auto [j, input] : llvm::enumerate(producer.getInputs()))
      sources[i].push_back(
          inputFor(input, producerMaps[j].compose(consumerMaps[i])));
  }
  llvm::append_range(maps, ArrayRef(consumerMaps).drop_front(numInputs));

  OpBuilder b(consumer);
  auto copy = cast<KernelOp>(b.clone(*consumer));
  KernelOp rewritten =
      rebuildKernel(copy, inputs, consumer.getResultTypes(), maps);
  copy.erase();
  Block &newBody = rewritten.getBodyBlock();
  SmallVector<Value> args;
  for (Value v : inputs)
    args.push_back(newBody.addArgument(v.getType(), v.getLoc()));
  Block &producerBody = producer.getBodyBlock();
  for (unsigned i = 0; i < numInputs; ++i) {
    BlockArgument old = newBody.getArgument(i);
    if (consumer.getInputs()[i] != produced) {
      old.replaceAllUsesWith(args[sources[i].front()]);
      continue;
    }
    if (old.use_empty())
      continue;
    // Just before its first user: a matmul or attention kernel's body
    // starts with its matmul or attention.
    Operation *first =
        *llvm::min_element(old.getUsers(), [](Operation *a, Operation *b) {
          return a->isBeforeInBlock(b);
        });
    OpBuilder inner(first);
    IRMapping mapping;
    for (auto [j, src] : llvm::enumerate(sources[i]))
      mapping.map(producerBody.getArgument(j), args[src]);
    for (Operation &op : producerBody.without_terminator())
      inner.clone(op, mapping);
    old.replaceAllUsesWith(mapping.lookup(producer.getYield().getOperand(0)));
  }
  newBody.eraseArguments(0, numInputs);
  return rewritten;
}

} // namespace spyre
