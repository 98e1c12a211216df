//===- LowerToProgram.cpp - spyre-lower-to-program ------------------------===//
//
// Turns the scheduled, allocated function into program-level IR:
//   * `spyre.tensor` for every device tensor (inputs, outputs, weights,
//     constants, workspace), with reshape views resolved to their storage;
//   * one `spyre.program` per kernel: hardware loops over the core's tiles,
//     DMA into rotating LX buffers, PT matmuls, SFP ops, DMA out, with a
//     per-core parameter table for what differs between cores;
//   * `spyre.plan` listing the programs in order.
//
//===----------------------------------------------------------------------===//

#include "spyre/Transforms/KernelLowering.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

#include <cctype>
#include <cmath>

namespace spyre {
#define GEN_PASS_DEF_SPYRELOWERTOPROGRAM
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {

/// A symbol-safe name.
std::string sanitize(StringRef name) {
  std::string out;
  for (char c : name)
    out.push_back(isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_');
  if (out.empty() || isdigit(static_cast<unsigned char>(out.front())))
    out.insert(out.begin(), '_');
  return out;
}

struct LowerToProgramPass
    : public spyre::impl::SpyreLowerToProgramBase<LowerToProgramPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs = llvm::to_vector(
        llvm::make_filter_range(module.getOps<func::FuncOp>(),
                                [](func::FuncOp f) { return !f.isExternal(); }));
    if (funcs.size() != 1) {
      module.emitError("spyre-lower-to-program needs exactly one function "
                       "with a body, found ")
          << funcs.size();
      return signalPassFailure();
    }
    if (failed(lower(funcs.front())))
      return signalPassFailure();
  }

  LogicalResult lower(func::FuncOp func) {
    ModuleOp module = getOperation();
    Arch arch = getArch(module);
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    SymbolTable symbolTable(module);
    DenseMap<Value, FlatSymbolRefAttr> storage;
    llvm::StringSet<> used;
    auto uniqueName = [&](std::string base) {
      std::string name = sanitize(base);
      std::string candidate = name;
      for (int i = 1; used.contains(candidate) ||
                      symbolTable.lookup(candidate);
           ++i)
        candidate = name + "_" + std::to_string(i);
      used.insert(candidate);
      return candidate;
    };
    auto declare = [&](Value v, StringRef name, TensorRole role) {
      auto type = cast<RankedTensorType>(v.getType());
      auto t = TensorOp::create(
          b, v.getLoc(), b.getStringAttr(uniqueName(name.str())),
          TypeAttr::get(type), TensorRoleAttr::get(b.getContext(), role),
          IntegerAttr(), StringAttr(), ElementsAttr(), ExternalDataAttr(),
          IntegerAttr(), IntegerAttr(), FlatSymbolRefAttr());
      auto ref = FlatSymbolRefAttr::get(t.getSymNameAttr());
      storage[v] = ref;
      return t;
    };

    // Outputs first: their storage is the caller's buffer.
    SmallVector<TensorOp> outputs;
    llvm::StringMap<TensorOp> weightsByName;
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (auto [j, v] : llvm::enumerate(ret.getOperands())) {
      if (cast<RankedTensorType>(v.getType()).getNumElements() == 0) {
        // Nothing to compute or store: a tensor of 0 bytes, of its own.
        auto t = declare(v, "out" + std::to_string(j), TensorRole::output);
        storage.erase(v);
        t.setIoIndex(j);
        outputs.push_back(t);
        continue;
      }
      Value store = v;
      while (auto view = store.getDefiningOp<ReshapeOp>())
        store = view.getInput();
      if (storage.count(store))
        return func.emitError("output ")
               << j << " is the same tensor as an earlier output; "
               << "returning one tensor twice is not supported";
      if (isa<BlockArgument>(store) || !store.getDefiningOp<KernelOp>())
        return func.emitError("output ")
               << j << " is not computed by a kernel (it is an input, a "
               << "weight or a constant); copying it is not supported yet";
      // The caller sees the returned shape; a view shares its storage's
      // bytes, so the kernel writes them through its own type.
      auto t = declare(store, "out" + std::to_string(j), TensorRole::output);
      t.setType(v.getType());
      t.setIoIndex(j);
      outputs.push_back(t);
    }
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      std::string name = "in" + std::to_string(i);
      auto t = declare(arg, name, TensorRole::input);
      t.setIoIndex(i);
      if (auto n = func.getArgAttrOfType<StringAttr>(i, "spyre.name"))
        t.setSourceNameAttr(n);
    }

    SmallVector<FlatSymbolRefAttr> plan;
    // Top-level ops only: kernel bodies are lowered with their kernel.
    auto visit = [&](Operation *op) -> WalkResult {
      if (auto w = dyn_cast<WeightOp>(op)) {
        auto t = declare(w.getResult(), "w_" + w.getName().str(),
                         w.getKind() == WeightKind::constant
                             ? TensorRole::constant
                             : TensorRole::weight);
        t.setSourceNameAttr(w.getNameAttr());
        weightsByName[w.getName()] = t;
        if (w.getValue())
          t.setValueAttr(*w.getValue());
        if (w.getExternal())
          t.setExternalAttr(*w.getExternal());
        return WalkResult::advance();
      }
      if (auto c = dyn_cast<ConstantOp>(op)) {
        if (c.getType().getNumElements() == 0)
          return WalkResult::advance(); // only empty outputs read it
        auto t = declare(c.getResult(), "cst", TensorRole::constant);
        t.setValueAttr(c.getValue());
        return WalkResult::advance();
      }
      if (auto view = dyn_cast<ReshapeOp>(op)) {
        if (!storage.count(view.getInput()))
          return view.emitError("reshape of a tensor with no storage");
        // Not `storage[result] = storage[input]`: inserting the result may
        // grow the map and leave the input's reference dangling.
        FlatSymbolRefAttr input = storage.lookup(view.getInput());
        storage[view.getResult()] = input;
        return WalkResult::advance();
      }
      auto kernel = dyn_cast<KernelOp>(op);
      if (!kernel)
        return WalkResult::advance();
      if (!kernel.getBuffers() || !kernel.getResultOffsets())
        return kernel.emitError("kernel is not allocated; run "
                                "spyre-allocate-scratchpad first");
      for (auto [r, offset] :
           llvm::zip(kernel.getResults(), *kernel.getResultOffsets())) {
        if (offset < 0)
          continue; // an output, declared above
        auto t = declare(r, "t_" + kernel.getName().str(),
                         TensorRole::workspace);
        t.setWorkspaceOffset(offset);
      }
      FailureOr<KernelPlan> kp =
          KernelPlan::build(kernel, *kernel.getSchedule(), arch);
      if (failed(kp))
        return WalkResult::interrupt();
      // The allocated offsets.
      for (auto [buf, attr] :
           llvm::zip(kp->buffers, kernel.getBuffersAttr().getAsRange<BufferAttr>()))
        buf.offset = attr.getOffset();
      SmallVector<FlatSymbolRefAttr> symbols;
      for (Value v : kernel.getInputs()) {
        if (!storage.count(v))
          return kernel.emitError("kernel input has no device storage");
        symbols.push_back(storage[v]);
      }
      for (Value r : kernel.getResults())
        symbols.push_back(storage[r]);
      std::string name = uniqueName(kernel.getName().str());
      if (failed(lowerKernel(*kp, b, name, symbols)))
        return WalkResult::interrupt();
      plan.push_back(FlatSymbolRefAttr::get(ctx(), name));
      return WalkResult::advance();
    };
    for (Operation &op : llvm::make_early_inc_range(func.getBody().front()))
      if (visit(&op).wasInterrupted())
        return failure();
    if (failed(linkMutations(func, outputs, weightsByName)))
      return failure();
    SmallVector<Attribute> planAttrs(plan.begin(), plan.end());
    PlanOp::create(b, func.getLoc(), b.getArrayAttr(planAttrs));
    if (auto ws = func->getAttrOfType<IntegerAttr>("spyre.workspace_bytes"))
      module->setAttr("spyre.workspace_bytes", ws);
    if (auto source = func->getAttr("spyre.source"))
      module->setAttr("spyre.source", source);
    func.erase();
    return success();
  }

  /// Records which outputs are the new contents of a mutated input or
  /// buffer (the importer's `spyre.output` = "user_input_mutation:x" /
  /// "buffer_mutation:count") so that the runtime writes them back.
  LogicalResult linkMutations(func::FuncOp func, ArrayRef<TensorOp> outputs,
                              const llvm::StringMap<TensorOp> &weightsByName) {
    for (auto [j, outConst] : llvm::enumerate(outputs)) {
      TensorOp out = outConst;
      auto kind = func.getResultAttrOfType<StringAttr>(j, "spyre.output");
      if (!kind)
        continue;
      auto [tag, target] = kind.getValue().split(':');
      if (tag == "user_input_mutation") {
        for (unsigned i = 0; i < func.getNumArguments(); ++i)
          if (auto n = func.getArgAttrOfType<StringAttr>(i, "spyre.name");
              n && n.getValue() == target)
            out.setAliasesInput(i);
        if (!out.getAliasesInput())
          return func.emitError("output ")
                 << j << " mutates input '" << target
                 << "', which is not an input of the function";
        if (func.getArgument(*out.getAliasesInput()).getType() != out.getType())
          return func.emitError("output ")
                 << j << " (new contents of input '" << target << "') is "
                 << out.getType() << " but the input is "
                 << func.getArgument(*out.getAliasesInput()).getType()
                 << "; a mutated input must keep its type and layout";
      } else if (tag == "buffer_mutation") {
        auto it = weightsByName.find(target);
        if (it == weightsByName.end())
          return func.emitError("output ")
                 << j << " mutates buffer '" << target
                 << "', which the program never reads; mutating an unread "
                    "buffer is not supported";
        TensorOp buffer = it->second;
        if (buffer.getType() != out.getType())
          return func.emitError("output ")
                 << j << " (new contents of buffer '" << target << "') is "
                 << out.getType() << " but the buffer is " << buffer.getType()
                 << "; a mutated buffer must keep its type and layout";
        out.setUpdatesAttr(FlatSymbolRefAttr::get(buffer.getSymNameAttr()));
      }
    }
    return success();
  }

  MLIRContext *ctx() { return &getContext(); }
};

} // namespace
