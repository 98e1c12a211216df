//===- AssignLayouts.cpp - spyre-assign-layouts ---------------------------===//
//
// Every tensor gets a stick layout. Produced values take the layout their
// producer writes (the canonical one: sticks along the innermost dim);
// values whose layout is free (function arguments, weights, constants: the
// runtime or the emitter writes them in any layout) take the layout most of
// their uses need. A use that needs another layout reads a `restickify`,
// one per (value, layout) -- except for a weight or constant, which gets a
// copy of its own in that layout instead: the emitter writes each copy's
// image, so no load-time tensor is re-laid-out on the device in every run
// (a tied embedding and lm_head table, read by a gather and a matmul).
// A buffer that the program mutates keeps one copy (restickified), since
// the runtime updates it in place.
//
//===----------------------------------------------------------------------===//

#include "Preconditions.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

namespace spyre {
#define GEN_PASS_DEF_SPYREASSIGNLAYOUTS
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {

/// The layout a use needs, or null when any will do. `free` says whether
/// the value's layout is its users' choice (a flexible op's preference
/// counts only then).
LayoutAttr requiredLayout(OpOperand &use, const Arch &arch, bool free) {
  Operation *owner = use.getOwner();
  if (auto compute = dyn_cast<ComputeOpInterface>(owner)) {
    if (!free && compute.isLayoutFlexible(use.getOperandNumber()))
      return nullptr;
    return compute.getRequiredLayout(use.getOperandNumber(), arch.stickBytes);
  }
  // Reshapes are views of the canonical layout.
  if (isa<ReshapeOp>(owner))
    return LayoutAttr::getCanonical(cast<RankedTensorType>(use.get().getType()),
                                    arch.stickBytes);
  return nullptr;
}

/// Whether the value's layout is chosen by its users.
bool hasFreeLayout(Value v) {
  if (isa<BlockArgument>(v))
    return true;
  return isa_and_nonnull<WeightOp, ConstantOp>(v.getDefiningOp());
}

/// The names of the buffers whose new contents `func` returns
/// (spyre.output "buffer_mutation:NAME").
llvm::StringSet<> mutatedBuffers(func::FuncOp func) {
  llvm::StringSet<> names;
  for (unsigned r = 0; r < func.getNumResults(); ++r)
    if (auto kind = func.getResultAttrOfType<StringAttr>(r, "spyre.output"))
      if (auto [tag, name] = kind.getValue().split(':');
          tag == "buffer_mutation")
        names.insert(name);
  return names;
}

/// Whether the value is written into the model file (a weight or constant
/// that nothing mutates), so that each layout it is read in can be a copy
/// of its own.
bool isLoadTimeData(Value v, const llvm::StringSet<> &mutated) {
  Operation *def = v.getDefiningOp();
  if (auto w = dyn_cast_or_null<WeightOp>(def))
    return !mutated.contains(w.getName());
  return isa_and_nonnull<ConstantOp>(def);
}

/// The input (`user_input_mutation`) or buffer (`buffer_mutation`) called
/// `name` whose new contents a result tagged `tag` holds; null if none.
Value mutationTarget(func::FuncOp func, StringRef tag, StringRef name) {
  Value target;
  if (tag == "user_input_mutation") {
    for (BlockArgument arg : func.getArguments())
      if (auto n = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                     "spyre.name");
          n && n.getValue() == name)
        target = arg;
  } else if (tag == "buffer_mutation") {
    func.walk([&](WeightOp w) {
      if (w.getName() == name)
        target = w.getResult();
    });
  }
  return target;
}

/// Whether `want` and `have` are ranked tensor types of one shape and
/// element type (so that only their layouts may differ).
bool differOnlyInLayout(Type want, Type have) {
  auto w = dyn_cast<RankedTensorType>(want);
  auto h = dyn_cast<RankedTensorType>(have);
  return w && h && w.getShape() == h.getShape() &&
         w.getElementType() == h.getElementType();
}

/// Appends the tensor results of the ops in `func` to `values`, in
/// definition order; a diagnostic for each one of dynamic shape.
LogicalResult collectStaticValues(func::FuncOp func,
                                  SmallVector<Value> &values) {
  bool failedAny = false;
  func.walk([&](Operation *op) {
    for (Value r : op->getResults()) {
      auto t = dyn_cast<RankedTensorType>(r.getType());
      if (!t)
        continue;
      if (!t.hasStaticShape()) {
        op->emitError("tensor ")
            << t
            << " has a dynamic shape; bind its symbols with "
               "--bind-dims before layout assignment";
        failedAny = true;
      }
      values.push_back(r);
    }
  });
  return failure(failedAny);
}

/// The uses of `v` in program order of their owners (deterministic).
SmallVector<OpOperand *> usesInProgramOrder(Value v) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : v.getUses())
    uses.push_back(&use);
  llvm::sort(uses, [](OpOperand *a, OpOperand *b) {
    if (a->getOwner() == b->getOwner())
      return a->getOperandNumber() < b->getOperandNumber();
    return a->getOwner()->isBeforeInBlock(b->getOwner());
  });
  return uses;
}

using LayoutDemands = llvm::MapVector<LayoutAttr, SmallVector<OpOperand *>>;

/// What each use of `v` needs, in use order; uses without a requirement
/// are left out.
LayoutDemands layoutDemands(Value v, const Arch &arch) {
  LayoutDemands demands;
  bool free = hasFreeLayout(v);
  for (OpOperand *use : usesInProgramOrder(v))
    demands[requiredLayout(*use, arch, free)].push_back(use);
  demands.erase(LayoutAttr()); // uses without a requirement
  return demands;
}

/// The most demanded layout; ties go to the first demanded.
LayoutAttr mostDemandedLayout(const LayoutDemands &demands) {
  size_t best = 0;
  for (auto &[layout, users] : demands)
    best = std::max(best, users.size());
  for (auto &[layout, users] : demands)
    if (users.size() == best)
      return layout;
  return LayoutAttr();
}

/// Points the uses that need a layout other than `v`'s at a copy of `v`
/// (load-time data, `copies`) or a restickify of it, one per layout.
void convertUses(Value v, RankedTensorType type, LayoutAttr supplied,
                 const LayoutDemands &demands, bool copies) {
  OpBuilder b(v.getContext());
  for (auto &[layout, users] : demands) {
    if (layout == supplied)
      continue;
    b.setInsertionPointAfterValue(v);
    Value converted;
    if (copies) {
      Operation *copy = b.clone(*v.getDefiningOp());
      copy->getResult(0).setType(layout.apply(type));
      converted = copy->getResult(0);
    } else {
      converted = RestickifyOp::create(b, v.getLoc(), layout.apply(type), v);
    }
    for (OpOperand *use : users)
      use->set(converted);
  }
}

/// Gives `v` (without a layout yet) the canonical layout, or the one most
/// of its uses need when its layout is free, and converts it for the
/// other uses.
void assignLayout(Value v, RankedTensorType type, const Arch &arch,
                  const llvm::StringSet<> &mutated) {
  LayoutDemands demands = layoutDemands(v, arch);
  LayoutAttr supplied = LayoutAttr::getCanonical(type, arch.stickBytes);
  if (hasFreeLayout(v) && !demands.empty())
    supplied = mostDemandedLayout(demands);
  v.setType(supplied.apply(type));
  convertUses(v, type, supplied, demands, isLoadTimeData(v, mutated));
}

struct AssignLayoutsPass
    : public spyre::impl::SpyreAssignLayoutsBase<AssignLayoutsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(requireComputeLevel(module, getArgument())))
      return signalPassFailure();
    Arch arch = getArch(module);
    for (auto func : module.getOps<func::FuncOp>())
      if (failed(assign(func, arch)))
        return signalPassFailure();
  }

  /// A result holding the new contents of an input or buffer (the
  /// importer's spyre.output "user_input_mutation:x" / "buffer_mutation:b")
  /// is copied over it by the runtime byte for byte, so it must be in the
  /// target's layout: restickify it when the two layouts differ.
  void matchMutationLayouts(func::FuncOp func, func::ReturnOp ret) {
    OpBuilder b(ret);
    for (OpOperand &result : ret->getOpOperands()) {
      auto kind = func.getResultAttrOfType<StringAttr>(
          result.getOperandNumber(), "spyre.output");
      if (!kind)
        continue;
      auto [tag, name] = kind.getValue().split(':');
      Value target = mutationTarget(func, tag, name);
      if (!target || target.getType() == result.get().getType())
        continue;
      if (!differOnlyInLayout(target.getType(), result.get().getType()))
        continue; // lower-to-program reports the mismatch
      auto want = cast<RankedTensorType>(target.getType());
      result.set(
          RestickifyOp::create(b, result.get().getLoc(), want, result.get()));
    }
  }

  LogicalResult assign(func::FuncOp func, const Arch &arch) {
    if (func.isExternal())
      return success();
    // Values in definition order: arguments, then op results.
    SmallVector<Value> values(func.getArguments());
    if (failed(collectStaticValues(func, values)))
      return failure();
    llvm::StringSet<> mutated = mutatedBuffers(func);
    for (Value v : values) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type || getLayout(type))
        continue;
      assignLayout(v, type, arch, mutated);
    }

    // Functions return what their body produces.
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    matchMutationLayouts(func, ret);
    func.setType(FunctionType::get(func.getContext(),
                                   func.getBody().getArgumentTypes(),
                                   ret.getOperandTypes()));
    return success();
  }
};

} // namespace
