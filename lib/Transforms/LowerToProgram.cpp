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

#include "spyre/Transforms/KernelPlan.h"
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

/// A device tensor as kernels see it: the symbol of its storage.
struct DeviceTensor {
  FlatSymbolRefAttr symbol;
};

/// Per-core parameter table under construction: one column per slot.
class ParamTable {
public:
  explicit ParamTable(int64_t cores) : cores(cores) {}
  /// The slot holding `values` (one per core), or -1 when all are zero.
  int64_t slot(ArrayRef<int64_t> values) {
    if (llvm::all_of(values, [](int64_t v) { return v == 0; }))
      return -1;
    for (auto [i, col] : llvm::enumerate(columns))
      if (ArrayRef<int64_t>(col) == values)
        return i;
    columns.emplace_back(values.begin(), values.end());
    return columns.size() - 1;
  }
  int64_t numParams() const { return columns.size(); }
  SmallVector<int64_t> flatten() const {
    SmallVector<int64_t> flat;
    for (int64_t c = 0; c < cores; ++c)
      for (const auto &col : columns)
        flat.push_back(col[c]);
    return flat;
  }

private:
  int64_t cores;
  SmallVector<SmallVector<int64_t>> columns;
};

/// Emits the program of one kernel from its plan.
class KernelLowering {
public:
  KernelLowering(const KernelPlan &plan, OpBuilder &builder,
                 ArrayRef<FlatSymbolRefAttr> tensorSymbols)
      : plan(plan), b(builder), symbols(tensorSymbols),
        params(plan.numCores()), ctx(builder.getContext()) {
    for (int64_t c = 0; c < plan.numCores(); ++c)
      shares.push_back(plan.share(c));
    hw = plan.hardwareLoops();
  }

  LogicalResult lower(StringRef name) {
    KernelOp kernel = plan.kernel;
    Location loc = kernel.getLoc();
    auto program = ProgramOp::create(
        b, loc, b.getStringAttr(name), kernel.getNameAttr(),
        b.getI64IntegerAttr(plan.numCores()), b.getI64IntegerAttr(0),
        b.getDenseI64ArrayAttr({}), IntegerAttr(), IntegerAttr(),
        IntegerAttr());
    Block *body = new Block();
    program.getBody().push_back(body);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(body);

    unsigned numInputs = kernel.getInputs().size();
    // Hoisted inputs once, before any loop.
    for (unsigned i = 0; i < numInputs; ++i)
      if (plan.tensors[i].hoisted)
        emitTransfer(i, /*store=*/false);

    // Outer, row and stick loops (every hardware loop but k).
    SmallVector<int64_t> tileLoops;
    for (int64_t l : hw)
      if (l != plan.kLoop)
        tileLoops.push_back(l);
    openLoops(tileLoops);
    for (unsigned i = 0; i < numInputs; ++i) {
      bool streamedInK = plan.isMatmul && i < 2;
      if (!plan.tensors[i].hoisted && !streamedInK)
        emitTransfer(i, /*store=*/false);
    }
    if (plan.isMatmul)
      emitMatmul();
    for (auto &[value, pv] : plan.values)
      if (!isa<MatmulOp>(pv.op))
        if (failed(emitSfp(pv.op)))
          return failure();
    for (unsigned j = 0; j < plan.kernel.getNumResults(); ++j)
      emitResult(numInputs + j);
    closeLoops(tileLoops.size());

    program.setNumParams(params.numParams());
    program.setParams(params.flatten());
    program.setEstimateNs(int64_t(std::llround(plan.estimateNs())));
    program.setMacs(plan.totalMacs());
    program.setMinBytes(plan.totalBytes());
    return success();
  }

private:
  const KernelPlan &plan;
  OpBuilder &b;
  ArrayRef<FlatSymbolRefAttr> symbols;
  ParamTable params;
  MLIRContext *ctx;
  SmallVector<CoreShare> shares;
  SmallVector<int64_t> hw;
  /// Loops currently open, outermost first (plan loop indices).
  SmallVector<int64_t> open;
  SmallVector<OpBuilder::InsertPoint> saved;

  int64_t stickBytes() const { return plan.arch.stickBytes; }
  IntegerAttr i64(int64_t v) { return b.getI64IntegerAttr(v); }
  UnitAttr flag(bool v) { return v ? b.getUnitAttr() : UnitAttr(); }

  SmallVector<int64_t> perCore(function_ref<int64_t(const CoreShare &)> f) {
    SmallVector<int64_t> v;
    for (const CoreShare &s : shares)
      v.push_back(f(s));
    return v;
  }

  void openLoops(ArrayRef<int64_t> loops) {
    for (int64_t l : loops) {
      SmallVector<int64_t> counts =
          perCore([&](const CoreShare &s) { return s.tiles[l]; });
      bool uniform = llvm::all_equal(counts);
      auto loop = LoopOp::create(b, plan.kernel.getLoc(), counts.front(),
                                 nullptr);
      if (!uniform)
        loop.setCountParam(params.slot(counts));
      Block *body = new Block();
      loop.getBody().push_back(body);
      saved.push_back(b.saveInsertionPoint());
      b.setInsertionPointToStart(body);
      open.push_back(l);
    }
  }

  void closeLoops(size_t count) {
    for (size_t i = 0; i < count; ++i) {
      b.restoreInsertionPoint(saved.pop_back_val());
      open.pop_back();
    }
  }

  /// Hardware level of plan loop `l` among the open loops, or -1.
  int64_t levelOf(int64_t l) const {
    for (auto [i, o] : llvm::enumerate(open))
      if (o == l)
        return i;
    return -1;
  }

  /// Bytes a tensor advances per tile of loop `l`.
  int64_t tileStride(const PlanTensor &t, int64_t l) const {
    int64_t tile = plan.loops[l].tile;
    if (l == t.stickLoop)
      return tile / t.elementsPerStick * t.loopBytes[l];
    return tile * t.loopBytes[l];
  }

  /// An LX address for buffer `idx` at the current loop depth: rotating
  /// through its copies once per iteration of the innermost open loop.
  LxAddressAttr lxAddress(int64_t idx) {
    const PlanBuffer &buf = plan.buffers[idx];
    if (buf.copies <= 1 || open.empty())
      return LxAddressAttr::get(ctx, buf.offset, {}, 0);
    SmallVector<int64_t> strides(open.size(), 0);
    strides.back() = buf.bytes;
    return LxAddressAttr::get(ctx, buf.offset, strides,
                              buf.bytes * buf.copies);
  }

  /// Clamp of a tensor's rows at the edge of its row loop, if it has one.
  ClampAttr rowClamp(const PlanTensor &t, int64_t argIndex) {
    if (t.rowLoop < 0 || !plan.loops[t.rowLoop].hasEdge())
      return nullptr;
    return loopClamp(t.rowLoop, argIndex);
  }

  ClampAttr loopClamp(int64_t l, int64_t argIndex) {
    const PlanLoop &loop = plan.loops[l];
    int64_t level = levelOf(l);
    // Not looping: the level reads iteration 0 (docs/isa.md).
    if (level < 0)
      level = open.size() < 3 ? open.size() : 2;
    int64_t param =
        params.slot(perCore([&](const CoreShare &s) { return s.start[l]; }));
    return ClampAttr::get(ctx, level, argIndex, loop.tile, loop.size, param);
  }

  /// DMA of tensor `ti`'s tile between device memory and its LX buffer.
  void emitTransfer(unsigned ti, bool store) {
    const PlanTensor &t = plan.tensors[ti];
    int64_t memParam = params.slot(
        perCore([&](const CoreShare &s) { return t.offsetOf(s.start); }));
    SmallVector<int64_t> memStrides;
    for (int64_t l : open)
      memStrides.push_back(t.loopBytes[l] ? tileStride(t, l) : 0);
    auto mem = MemAddressAttr::get(ctx, symbols[ti], 0, memStrides, memParam);
    bool contiguous = t.stickPitch == stickBytes();
    SmallVector<int64_t> box = {t.rows, contiguous ? 1 : t.sticks, 1};
    SmallVector<int64_t> pitch = {t.rowPitch, contiguous ? 0 : t.stickPitch, 0};
    int64_t run = contiguous ? t.sticks * stickBytes() : stickBytes();
    LxAddressAttr lx = lxAddress(plan.tensorBuffer[ti]);
    ClampAttr clamp = rowClamp(t, 0);
    Location loc = plan.kernel.getLoc();
    if (store)
      DmaStoreOp::create(b, loc, mem, lx, b.getDenseI64ArrayAttr(box),
                         b.getDenseI64ArrayAttr(pitch), run, clamp, false);
    else
      DmaLoadOp::create(b, loc, mem, lx, b.getDenseI64ArrayAttr(box),
                        b.getDenseI64ArrayAttr(pitch), run, clamp,
                        /*multicast=*/t.sharers > 1);
  }

  /// The k loop: stream lhs and rhs tiles and accumulate on the PT unit.
  void emitMatmul() {
    const PlanTensor &lhs = plan.tensors[0];
    const PlanTensor &rhs = plan.tensors[1];
    bool kLooped = llvm::is_contained(hw, plan.kLoop);
    if (kLooped)
      openLoops({plan.kLoop});
    if (!lhs.hoisted)
      emitTransfer(0, false);
    if (!rhs.hoisted)
      emitTransfer(1, false);
    Value acc = plan.kernel.getBodyBlock().front().getResult(0);
    const PlanValue &pv = plan.values.lookup(acc);
    int64_t accIdx = plan.valueBuffer.lookup(acc);
    const PlanLoop &k = plan.loops[plan.kLoop];
    ClampAttr clamp = k.hasEdge() ? loopClamp(plan.kLoop, 1) : nullptr;
    std::optional<int64_t> initLevel;
    if (kLooped)
      initLevel = levelOf(plan.kLoop);
    auto pt = PtMatmulOp::create(
        b, plan.kernel.getLoc(), lxAddress(accIdx),
        lxAddress(plan.tensorBuffer[0]), lxAddress(plan.tensorBuffer[1]),
        i64(pv.rows), i64(k.tile), i64(plan.loops[plan.stickLoop].tile),
        b.getDenseI64ArrayAttr({pv.sticks * stickBytes(),
                                lhs.sticks * stickBytes(),
                                rhs.sticks * stickBytes()}),
        TypeAttr::get(pv.lxElementType),
        TypeAttr::get(lhs.type.getElementType()),
        TypeAttr::get(rhs.type.getElementType()), flag(kLooped),
        initLevel ? b.getI64IntegerAttr(*initLevel) : IntegerAttr(), clamp);
    (void)pt;
    if (kLooped)
      closeLoops(1);
  }

  /// LX operand of a body value or kernel input, as an SFP source.
  struct Source {
    LxAddressAttr lx;
    Type type;
    int64_t pitch;
    bool bcastCol;
  };

  Source sourceOf(Value v, int64_t rows) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      const PlanTensor &t = plan.tensors[arg.getArgNumber()];
      int64_t pitch = t.rows == 1 && rows > 1 ? 0 : t.rowBytes(stickBytes());
      return {lxAddress(plan.tensorBuffer[arg.getArgNumber()]),
              t.type.getElementType(), pitch, t.stickLoop < 0};
    }
    const PlanValue &pv = plan.values.lookup(v);
    return {lxAddress(plan.valueBuffer.lookup(v)), pv.lxElementType,
            pv.sticks * stickBytes(), false};
  }

  LogicalResult emitSfp(Operation *op) {
    Location loc = plan.kernel.getLoc();
    Value result = op->getResult(0);
    const PlanValue &pv = plan.values.lookup(result);
    LxAddressAttr dst = lxAddress(plan.valueBuffer.lookup(result));
    int64_t rows = pv.rows;
    int64_t cols = plan.stickLoop >= 0 ? plan.loops[plan.stickLoop].tile : 1;
    int64_t dstPitch = pv.sticks * stickBytes();
    auto make = [&](auto opTag, StringRef fn, Source s0,
                    std::optional<Source> s1) {
      using OpT = decltype(opTag);
      auto sfp = OpT::create(
          b, loc, b.getStringAttr(fn), dst, s0.lx,
          s1 ? s1->lx : LxAddressAttr(), i64(rows), i64(cols),
          b.getDenseI64ArrayAttr({dstPitch, s0.pitch, s1 ? s1->pitch : 0}),
          TypeAttr::get(pv.lxElementType), TypeAttr::get(s0.type),
          s1 ? TypeAttr::get(s1->type) : TypeAttr(), flag(s0.bcastCol),
          flag(s1 && s1->bcastCol), UnitAttr(), UnitAttr(), IntegerAttr(),
          ClampAttr());
      return sfp;
    };
    if (auto u = dyn_cast<UnaryOp>(op)) {
      make(SfpUnaryOp(), stringifyUnaryKind(u.getKind()),
           sourceOf(u.getInput(), rows), std::nullopt);
    } else if (auto c = dyn_cast<CastOp>(op)) {
      make(SfpUnaryOp(), "copy", sourceOf(c.getInput(), rows), std::nullopt);
    } else if (auto bin = dyn_cast<BinaryOp>(op)) {
      make(SfpBinaryOp(), stringifyBinaryKind(bin.getKind()),
           sourceOf(bin.getLhs(), rows), sourceOf(bin.getRhs(), rows));
    } else if (auto cmp = dyn_cast<CompareOp>(op)) {
      make(SfpBinaryOp(), stringifyComparePredicate(cmp.getPredicate()),
           sourceOf(cmp.getLhs(), rows), sourceOf(cmp.getRhs(), rows));
    } else if (auto sel = dyn_cast<SelectOp>(op)) {
      // dst = false; dst = cond ? true : dst.
      make(SfpUnaryOp(), "copy", sourceOf(sel.getFalseValue(), rows),
           std::nullopt);
      make(SfpSelectOp(), "select", sourceOf(sel.getCondition(), rows),
           sourceOf(sel.getTrueValue(), rows));
    } else {
      return op->emitError("no SFP lowering for this op");
    }
    return success();
  }

  /// Stores result tensor `ti`, converting it first when its LX value has
  /// another element type (matmul accumulators).
  void emitResult(unsigned ti) {
    const PlanTensor &t = plan.tensors[ti];
    Value v = plan.kernel.getYield().getOperand(t.index);
    const PlanValue &pv = plan.values.lookup(v);
    if (pv.storedAs != int64_t(ti)) {
      Source s = sourceOf(v, pv.rows);
      int64_t cols = plan.stickLoop >= 0 ? plan.loops[plan.stickLoop].tile : 1;
      SfpUnaryOp::create(
          b, plan.kernel.getLoc(), b.getStringAttr("copy"),
          lxAddress(plan.tensorBuffer[ti]), s.lx, LxAddressAttr(),
          i64(pv.rows), i64(cols),
          b.getDenseI64ArrayAttr({t.rowBytes(stickBytes()), s.pitch, 0}),
          TypeAttr::get(t.type.getElementType()), TypeAttr::get(s.type),
          TypeAttr(), UnitAttr(), UnitAttr(), UnitAttr(), UnitAttr(),
          IntegerAttr(), ClampAttr());
    }
    emitTransfer(ti, /*store=*/true);
  }
};

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
          IntegerAttr(), IntegerAttr());
      auto ref = FlatSymbolRefAttr::get(t.getSymNameAttr());
      storage[v] = ref;
      return t;
    };

    // Outputs first: their storage is the caller's buffer.
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (auto [j, v] : llvm::enumerate(ret.getOperands())) {
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
    }
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      std::string name = "in" + std::to_string(i);
      auto t = declare(arg, name, TensorRole::input);
      t.setIoIndex(i);
      if (auto n = func.getArgAttrOfType<StringAttr>(i, "spyre.name"))
        t.setSourceNameAttr(n);
    }

    SmallVector<FlatSymbolRefAttr> plan;
    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      if (auto w = dyn_cast<WeightOp>(op)) {
        auto t = declare(w.getResult(), "w_" + w.getName().str(),
                         w.getKind() == WeightKind::constant
                             ? TensorRole::constant
                             : TensorRole::weight);
        t.setSourceNameAttr(w.getNameAttr());
        if (w.getValue())
          t.setValueAttr(*w.getValue());
        if (w.getExternal())
          t.setExternalAttr(*w.getExternal());
        return WalkResult::advance();
      }
      if (auto c = dyn_cast<ConstantOp>(op)) {
        auto t = declare(c.getResult(), "cst", TensorRole::constant);
        t.setValueAttr(c.getValue());
        return WalkResult::advance();
      }
      if (auto view = dyn_cast<ReshapeOp>(op)) {
        if (!storage.count(view.getInput()))
          return view.emitError("reshape of a tensor with no storage");
        storage[view.getResult()] = storage[view.getInput()];
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
      KernelLowering lowering(*kp, b, symbols);
      if (failed(lowering.lower(name)))
        return WalkResult::interrupt();
      plan.push_back(FlatSymbolRefAttr::get(ctx(), name));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
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

  MLIRContext *ctx() { return &getContext(); }
};

} // namespace
