//===- LowerToProgram.cpp - spyre-lower-to-program ------------------------===//
//
// Turns the scheduled, allocated function into program-level IR:
//   * `spyre.tensor` for every device tensor (inputs, outputs, weights,
//     constants, workspace), with reshape views resolved to their storage;
//   * one `spyre.program` per kernel: hardware loops over the core's tiles,
//     DMA into rotating LX buffers, PT matmuls, SFP ops, DMA out, with a
//     per-core parameter table for what differs between cores;
//   * `spyre.plan` listing the programs in order;
//   * one `spyre.reference` per program: a copy of its kernel's compute ops,
//     which spyre-run --check evaluates on the host.
//
//===----------------------------------------------------------------------===//

#include "Preconditions.h"
#include "RingExchange.h"
#include "spyre/Transforms/KernelLowering.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cctype>
#include <cmath>
#include <memory>

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

/// Builds the program-level module from the one function: a tensor per
/// device value, a program per kernel, the plan.
class ProgramBuilder {
public:
  ProgramBuilder(ModuleOp module, func::FuncOp func)
      : module(module), func(func), arch(getArch(module)),
        b(OpBuilder::atBlockEnd(module.getBody())), symbolTable(module) {}

  LogicalResult run() {
    if (failed(declareOutputs()))
      return failure();
    declareInputs();
    // Top-level ops only: kernel bodies are lowered with their kernel.
    for (Operation &op : llvm::make_early_inc_range(func.getBody().front()))
      if (failed(visit(&op)))
        return failure();
    if (failed(linkMutations()))
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

private:
  ModuleOp module;
  func::FuncOp func;
  Arch arch;
  OpBuilder b;
  SymbolTable symbolTable;
  /// The device tensor holding each value (views share their input's).
  DenseMap<Value, FlatSymbolRefAttr> storage;
  llvm::StringSet<> used;
  SmallVector<TensorOp> outputs;
  llvm::StringMap<TensorOp> weightsByName;
  SmallVector<FlatSymbolRefAttr> plan;

  /// `base`, made a valid symbol and unique.
  std::string uniqueName(const std::string &base) {
    std::string name = sanitize(base);
    std::string candidate = name;
    for (int i = 1; used.contains(candidate) || symbolTable.lookup(candidate);
         ++i)
      candidate = name + "_" + std::to_string(i);
    used.insert(candidate);
    return candidate;
  }

  TensorOp declare(Value v, StringRef name, TensorRole role) {
    auto type = cast<RankedTensorType>(v.getType());
    auto t = TensorOp::create(
        b, v.getLoc(), b.getStringAttr(uniqueName(name.str())),
        TypeAttr::get(type), TensorRoleAttr::get(b.getContext(), role),
        IntegerAttr(), StringAttr(), ElementsAttr(), ExternalDataAttr(),
        IntegerAttr(), IntegerAttr(), FlatSymbolRefAttr());
    storage[v] = FlatSymbolRefAttr::get(t.getSymNameAttr());
    return t;
  }

  /// Position `index` among the inputs or outputs, and the model's name of
  /// it when the importer recorded one.
  static void setIo(TensorOp t, unsigned index, StringAttr sourceName) {
    t.setIoIndex(index);
    if (sourceName)
      t.setSourceNameAttr(sourceName);
  }

  /// Outputs first: their storage is the caller's buffer.
  LogicalResult declareOutputs() {
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (auto [j, v] : llvm::enumerate(ret.getOperands())) {
      if (cast<RankedTensorType>(v.getType()).getNumElements() == 0) {
        // Nothing to compute or store: a tensor of 0 bytes, of its own.
        auto t = declare(v, "out" + std::to_string(j), TensorRole::output);
        storage.erase(v);
        setIo(t, j, func.getResultAttrOfType<StringAttr>(j, "spyre.name"));
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
      setIo(t, j, func.getResultAttrOfType<StringAttr>(j, "spyre.name"));
      outputs.push_back(t);
    }
    return success();
  }

  void declareInputs() {
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      auto t = declare(arg, "in" + std::to_string(i), TensorRole::input);
      setIo(t, i, func.getArgAttrOfType<StringAttr>(i, "spyre.name"));
    }
  }

  LogicalResult visit(Operation *op) {
    return TypeSwitch<Operation *, LogicalResult>(op)
        .Case([&](WeightOp w) {
          declareWeight(w);
          return success();
        })
        .Case([&](ConstantOp c) {
          // Only empty outputs read an empty constant: no storage.
          if (c.getType().getNumElements() != 0)
            declare(c.getResult(), "cst", TensorRole::constant)
                .setValueAttr(c.getValue());
          return success();
        })
        .Case([&](ReshapeOp view) { return mapView(view); })
        .Case([&](KernelOp kernel) { return lowerKernelOp(kernel); })
        .Default([](Operation *) { return success(); });
  }

  void declareWeight(WeightOp w) {
    auto t = declare(w.getResult(), "w_" + w.getName().str(),
                     w.getKind() == WeightKind::constant ? TensorRole::constant
                                                         : TensorRole::weight);
    t.setSourceNameAttr(w.getNameAttr());
    weightsByName[w.getName()] = t;
    if (w.getValue())
      t.setValueAttr(*w.getValue());
    if (w.getExternal())
      t.setExternalAttr(*w.getExternal());
  }

  /// A reshape view shares its input's storage.
  LogicalResult mapView(ReshapeOp view) {
    if (!storage.count(view.getInput()))
      return view.emitError("reshape of a tensor with no storage");
    // Not `storage[result] = storage[input]`: inserting the result may
    // grow the map and leave the input's reference dangling.
    FlatSymbolRefAttr input = storage.lookup(view.getInput());
    storage[view.getResult()] = input;
    return success();
  }

  LogicalResult lowerKernelOp(KernelOp kernel) {
    if (!kernel.getBuffers() || !kernel.getResultOffsets())
      return kernel.emitError("kernel is not allocated; run "
                              "spyre-allocate-scratchpad first");
    declareWorkspaceResults(kernel);
    FailureOr<KernelPlan> kp =
        KernelPlan::build(kernel, *kernel.getSchedule(), arch);
    if (failed(kp))
      return failure();
    // The allocated offsets.
    for (auto [buf, attr] : llvm::zip(
             kp->buffers, kernel.getBuffersAttr().getAsRange<BufferAttr>()))
      buf.offset = attr.getOffset();
    FailureOr<SmallVector<RingExchange>> gathers = ringGathers(*kp);
    if (failed(gathers) || failed(checkLxHandoffs(*kp)))
      return failure();
    FailureOr<SmallVector<FlatSymbolRefAttr>> symbols = tensorSymbols(kernel);
    if (failed(symbols))
      return failure();
    std::string name = uniqueName(kernel.getName().str());
    if (failed(lowerKernel(*kp, b, name, *symbols, *gathers)))
      return failure();
    plan.push_back(FlatSymbolRefAttr::get(b.getContext(), name));
    declareReference(kernel, name, *symbols);
    return success();
  }

  /// A result kept in LX from its producer's lowering to its last
  /// reader's: buffer offset and bytes, the readers still to come, and the
  /// producer's plan (a reader gathering it over the ring needs its tiles).
  struct HeldTile {
    int64_t offset = 0, bytes = 0;
    size_t readersLeft = 0;
    std::shared_ptr<const KernelPlan> producer;
    unsigned result = 0;
  };
  llvm::MapVector<Value, HeldTile> heldLx;

  /// The exchanges of the kernel's `ring` inputs, placed at the producer's
  /// tile and the kernel's buffer.
  FailureOr<SmallVector<RingExchange>> ringGathers(const KernelPlan &kp) {
    SmallVector<RingExchange> gathers;
    for (auto [i, input] : llvm::enumerate(kp.kernel.getInputs())) {
      if (kp.tensors[i].path != DataPath::ring)
        continue;
      auto held = heldLx.find(input);
      if (held == heldLx.end())
        return kp.kernel.emitError("input ")
               << i << " is gathered over the ring, but no earlier kernel "
               << "keeps it in LX";
      const HeldTile &tile = held->second;
      std::optional<RingExchange> x =
          planRingExchange(*tile.producer, tile.result, kp, i);
      if (!x)
        return kp.kernel.emitError("input ")
               << i << " is gathered over the ring, but its tiles are not "
               << "made of whole rows and sticks of its producer's tiles on "
               << "at most this kernel's cores";
      gathers.push_back(
          x->placed(tile.offset, kp.buffers[kp.tensorBuffer[i]].offset));
    }
    return gathers;
  }

  /// Checks the allocation's promises about LX handoffs, then records the
  /// tiles this kernel leaves and drops those its last reader consumed.
  LogicalResult checkLxHandoffs(const KernelPlan &kp) {
    FailureOr<SmallVector<int64_t>> reading = readersFindTheirTiles(kp);
    if (failed(reading) || failed(heldTilesStayFree(kp, *reading)))
      return failure();
    KernelOp kernel = kp.kernel;
    for (auto [i, input] : llvm::enumerate(kernel.getInputs()))
      if (kp.tensors[i].path != DataPath::dma &&
          --heldLx[input].readersLeft == 0)
        heldLx.erase(input);
    auto plan = std::make_shared<const KernelPlan>(kp);
    for (const PlanTensor &t : kp.tensors) {
      if (!t.isResult || !isKeptInLx(t.path))
        continue;
      const PlanBuffer &buf =
          kp.buffers[kp.tensorBuffer[kernel.getInputs().size() + t.index]];
      Value r = kernel->getResult(t.index);
      // Held until its last reader from LX (the others read the stored
      // copy).
      size_t readers = llvm::count_if(r.getUses(), [](OpOperand &use) {
        auto reader = dyn_cast<KernelOp>(use.getOwner());
        return reader &&
               reader.getSourcePath(use.getOperandNumber()) != DataPath::dma;
      });
      if (readers)
        heldLx[r] = {buf.offset, buf.bytes, readers, plan, t.index};
    }
    return success();
  }

  /// Each input read from LX is in the buffer its producer left it in;
  /// returns those inputs' buffers. (One gathered over the ring has a
  /// buffer of its own, which must stay clear of the held tiles.)
  FailureOr<SmallVector<int64_t>> readersFindTheirTiles(const KernelPlan &kp) {
    SmallVector<int64_t> reading;
    for (auto [i, input] : llvm::enumerate(kp.kernel.getInputs())) {
      if (kp.tensors[i].path != DataPath::lx)
        continue;
      const PlanBuffer &buf = kp.buffers[kp.tensorBuffer[i]];
      auto held = heldLx.find(input);
      if (held == heldLx.end() || held->second.offset != buf.offset)
        return kp.kernel.emitError("input ")
               << i << " is read from LX at offset " << buf.offset
               << ", where its producer did not leave it";
      reading.push_back(kp.tensorBuffer[i]);
    }
    return reading;
  }

  /// No buffer but the readers' overlaps a tile still held.
  LogicalResult heldTilesStayFree(const KernelPlan &kp,
                                  ArrayRef<int64_t> reading) {
    for (auto [idx, buf] : llvm::enumerate(kp.buffers)) {
      if (llvm::is_contained(reading, int64_t(idx)))
        continue;
      for (auto &[v, tile] : heldLx)
        if (buf.offset < tile.offset + tile.bytes &&
            tile.offset < buf.offset + buf.bytes * buf.copies)
          return kp.kernel.emitError("LX buffer '")
                 << buf.name << "' overlaps the tile a kernel result keeps in "
                 << "LX at offset " << tile.offset << " for a later kernel";
    }
    return success();
  }

  /// `spyre.reference`: the kernel's compute ops, for spyre-run --check. A
  /// kernel with a result that has no storage (an empty output) has none.
  void declareReference(KernelOp kernel, StringRef program,
                        ArrayRef<FlatSymbolRefAttr> symbols) {
    if (llvm::is_contained(symbols, FlatSymbolRefAttr()))
      return;
    ArrayRef<FlatSymbolRefAttr> inputs =
        symbols.take_front(kernel.getInputs().size());
    ArrayRef<FlatSymbolRefAttr> results =
        symbols.drop_front(kernel.getInputs().size());
    auto ref = ReferenceOp::create(
        b, kernel.getLoc(), FlatSymbolRefAttr::get(b.getContext(), program),
        SmallVector<Attribute>(inputs.begin(), inputs.end()),
        SmallVector<Attribute>(results.begin(), results.end()));
    ref.getBody().getBlocks().clear();
    IRMapping mapping;
    kernel.getBody().cloneInto(&ref.getBody(), mapping);
  }

  /// Declares the kernel's results that live in the workspace, and those
  /// kept in LX for their consumers (no device memory; named for the
  /// references). Outputs are declared above.
  void declareWorkspaceResults(KernelOp kernel) {
    std::string name = "t_" + kernel.getName().str();
    for (auto [j, r, offset] :
         llvm::enumerate(kernel.getResults(), *kernel.getResultOffsets())) {
      if (kernel.getDestinationPath(j) == DataPath::lx)
        declare(r, name, TensorRole::on_chip);
      else if (offset >= 0)
        declare(r, name, TensorRole::workspace).setWorkspaceOffset(offset);
    }
  }

  /// The storage symbols of the kernel's inputs, then of its results.
  FailureOr<SmallVector<FlatSymbolRefAttr>> tensorSymbols(KernelOp kernel) {
    SmallVector<FlatSymbolRefAttr> symbols;
    for (Value v : kernel.getInputs()) {
      if (!storage.count(v))
        return kernel.emitError("kernel input has no device storage");
      symbols.push_back(storage[v]);
    }
    for (Value r : kernel.getResults())
      symbols.push_back(storage[r]);
    return symbols;
  }

  /// Records which outputs are the new contents of a mutated input or
  /// buffer (the importer's `spyre.output` = "user_input_mutation:x" /
  /// "buffer_mutation:count") so that the runtime writes them back.
  LogicalResult linkMutations() {
    for (auto [j, out] : llvm::enumerate(outputs)) {
      auto kind = func.getResultAttrOfType<StringAttr>(j, "spyre.output");
      if (!kind)
        continue;
      auto [tag, target] = kind.getValue().split(':');
      LogicalResult linked = success();
      if (tag == "user_input_mutation")
        linked = linkInputMutation(j, out, target);
      else if (tag == "buffer_mutation")
        linked = linkBufferMutation(j, out, target);
      if (failed(linked))
        return failure();
    }
    return success();
  }

  LogicalResult linkInputMutation(unsigned j, TensorOp out, StringRef target) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (auto n = func.getArgAttrOfType<StringAttr>(i, "spyre.name");
          n && n.getValue() == target)
        out.setAliasesInput(i);
    if (!out.getAliasesInput())
      return func.emitError("output ")
             << j << " mutates input '" << target
             << "', which is not an input of the function";
    Type inputType = func.getArgument(*out.getAliasesInput()).getType();
    if (inputType != out.getType())
      return func.emitError("output ")
             << j << " (new contents of input '" << target << "') is "
             << out.getType() << " but the input is " << inputType
             << "; a mutated input must keep its type and layout";
    return success();
  }

  LogicalResult linkBufferMutation(unsigned j, TensorOp out, StringRef target) {
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
    return success();
  }
};

struct LowerToProgramPass
    : public spyre::impl::SpyreLowerToProgramBase<LowerToProgramPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(requireKernels(module, getArgument())))
      return signalPassFailure();
    SmallVector<func::FuncOp> funcs = llvm::to_vector(llvm::make_filter_range(
        module.getOps<func::FuncOp>(),
        [](func::FuncOp f) { return !f.isExternal(); }));
    if (funcs.size() != 1) {
      module.emitError("spyre-lower-to-program needs exactly one function "
                       "with a body, found ")
          << funcs.size();
      return signalPassFailure();
    }
    if (failed(ProgramBuilder(module, funcs.front()).run()))
      return signalPassFailure();
  }
};

} // namespace
