//===- Decompose.cpp - spyre-decompose ------------------------------------===//

#include "spyre/Dialect/Spyre/AtenSchema.h"
#include "spyre/Transforms/Decompositions.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace spyre {
#define GEN_PASS_DEF_SPYREDECOMPOSE
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {

/// "s0 (exported range [1, 64])" for each range-constrained symbol named in
/// `expr` ("32*s0").
std::string describeSymbols(ModuleOp module, StringRef expr) {
  auto ranges =
      module->getAttrOfType<DictionaryAttr>("spyre.range_constraints");
  std::string out;
  SmallVector<StringRef> tokens;
  llvm::SplitString(expr, tokens, " ()*+-/%,");
  llvm::StringSet<> listed;
  for (StringRef token : tokens) {
    // The dialect verifier checked the form: [min, max or "inf"].
    auto range = ranges ? ranges.getAs<ArrayAttr>(token) : ArrayAttr();
    if (!range || !listed.insert(token).second)
      continue;
    std::string hi = "inf";
    if (auto i = dyn_cast<IntegerAttr>(range[1]))
      hi = std::to_string(i.getInt());
    out += (out.empty() ? "" : ", ") + token.str() + " in [" +
           std::to_string(cast<IntegerAttr>(range[0]).getInt()) + ", " + hi +
           "]";
  }
  return out.empty() ? "" : " (exported range: " + out + ")";
}

/// The expression of an int/SymInt argument (or list element) the importer
/// left symbolic: a string where the schema says integer.
std::optional<StringRef> symbolicIntArgument(AtenOp op, NamedAttribute arg) {
  const AtenSchema *schema = lookupAtenSchema(op.getTarget());
  int index = schema ? schema->findArgument(arg.getName()) : -1;
  if (index < 0)
    return std::nullopt;
  StringRef type = schema->arguments[index].type;
  if (!type.starts_with("int") && !type.starts_with("SymInt"))
    return std::nullopt;
  if (auto s = dyn_cast<StringAttr>(arg.getValue()))
    return s.getValue();
  if (auto list = dyn_cast<ArrayAttr>(arg.getValue()))
    for (Attribute e : list)
      if (auto s = dyn_cast<StringAttr>(e))
        return s.getValue();
  return std::nullopt;
}

/// What the error about a symbolic `expr` advises.
std::string staticShapeAdvice(ModuleOp module, StringRef passName,
                              StringRef expr) {
  return "; " + passName.str() +
         " needs static shapes: specialize with --bind-dims <symbol>=<size>" +
         describeSymbols(module, expr);
}

/// Reports each dynamic dim of argument `arg` of `func`; returns whether
/// there was one.
bool reportSymbolicArgument(ModuleOp module, StringRef passName,
                            func::FuncOp func, BlockArgument arg) {
  auto type = dyn_cast<RankedTensorType>(arg.getType());
  if (!type || type.hasStaticShape())
    return false;
  auto dims =
      func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "spyre.dims");
  auto name =
      func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "spyre.name");
  bool reported = false;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      continue;
    std::string expr = dims && d < int64_t(dims.size())
                           ? cast<StringAttr>(dims[d]).getValue().str()
                           : std::string("?");
    emitError(arg.getLoc()) << "dimension " << d << " of input '"
                            << (name ? name.getValue().str()
                                     : "#" + std::to_string(arg.getArgNumber()))
                            << "' is symbolic (" << expr << ")"
                            << staticShapeAdvice(module, passName, expr);
    reported = true;
  }
  return reported;
}

/// Reports every dynamic dim of every function's inputs; returns whether
/// there was one.
bool reportSymbolicInputs(ModuleOp module, StringRef passName) {
  bool reported = false;
  module.walk([&](func::FuncOp func) {
    for (BlockArgument arg : func.getArguments())
      reported |= reportSymbolicArgument(module, passName, func, arg);
  });
  return reported;
}

/// The importer's expressions of result `i`'s dims (from the op's
/// `dims`, spyre.dims), when it left them, comma-separated.
std::string resultDimExprs(ArrayAttr dims, size_t i) {
  std::string exprs;
  if (auto d = dims ? dyn_cast<ArrayAttr>(dims[i]) : ArrayAttr())
    for (auto e : d.getAsRange<StringAttr>())
      if (!e.getValue().empty())
        exprs += (exprs.empty() ? "" : ", ") + e.getValue().str();
  return exprs;
}

/// Reports the first symbolic int argument or symbolic result shape of
/// `op`; returns whether there was one.
bool reportSymbolicOp(ModuleOp module, StringRef passName, AtenOp op) {
  for (NamedAttribute arg : op.getArgs())
    if (std::optional<StringRef> expr = symbolicIntArgument(op, arg)) {
      op.emitError("argument '")
          << arg.getName().getValue() << "' of '" << op.getTarget()
          << "' is symbolic (" << *expr << ")"
          << staticShapeAdvice(module, passName, *expr);
      return true;
    }
  auto dims = op->getAttrOfType<ArrayAttr>("spyre.dims");
  for (auto [i, type] : llvm::enumerate(op.getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || tensor.hasStaticShape())
      continue;
    std::string exprs = resultDimExprs(dims, i);
    op.emitError("result ")
        << i << " of '" << op.getTarget() << "' has a symbolic shape"
        << (exprs.empty() ? "" : " (" + exprs + ")")
        << staticShapeAdvice(module, passName, exprs);
    return true;
  }
  return false;
}

/// Decompositions compute shapes, strides and tile sizes: every dim must be
/// static. The importer leaves a symbolic dim dynamic with its expression in
/// `spyre.dims` (and an unbound SymInt argument as a string); the error names
/// the symbol to bind. Reports the inputs, else the first op, not every
/// value the symbol flows into.
LogicalResult requireStaticShapes(ModuleOp module, StringRef passName) {
  if (reportSymbolicInputs(module, passName))
    return failure();
  WalkResult walk = module.walk([&](AtenOp op) {
    return reportSymbolicOp(module, passName, op) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

struct DecomposePass : public spyre::impl::SpyreDecomposeBase<DecomposePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(requireStaticShapes(module, getArgument())))
      return signalPassFailure();
    const DecompositionRegistry &registry = getDecompositionRegistry();
    SmallVector<AtenOp> ops;
    module.walk([&](AtenOp op) { ops.push_back(op); });

    // Rewrite in program order, one op at a time: every unsupported op is
    // reported (not just the first) and nothing is retried.
    IRRewriter rewriter(&getContext());
    bool anyFailed = false;
    for (AtenOp op : ops) {
      const Decomposition *d = registry.lookup(op.getTarget());
      if (!d) {
        op.emitError("unsupported op '")
            << op.getTarget()
            << "': no decomposition onto Spyre compute ops (see "
               "docs/supported-ops.md)";
        anyFailed = true;
        continue;
      }
      rewriter.setInsertionPoint(op);
      AtenArgs args(op, lookupAtenSchema(op.getTarget()));
      if (failed(d->rewrite(op, args, rewriter)))
        anyFailed = true;
    }
    if (anyFailed)
      return signalPassFailure();

    // Fold what the decompositions left foldable: transposes into matmuls,
    // splat arithmetic, identity reshapes.
    RewritePatternSet patterns(&getContext());
    for (RegisteredOperationName name :
         getContext().getRegisteredOperationsByDialect("spyre"))
      name.getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
