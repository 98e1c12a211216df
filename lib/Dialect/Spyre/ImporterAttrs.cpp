//===- ImporterAttrs.cpp - Verifying the importer's records ---------------===//
//
// The importer leaves discardable `spyre.*` attributes that later passes
// read: the symbolic dims of a value, the kind of each result (user output
// or the new contents of a mutated buffer or input), the exported ranges of
// the symbols, the graph name of an argument. Their form is checked here,
// once, so that the passes can rely on it (a hand-written IR file that gets
// one wrong is an error, not a crash).
//
//===----------------------------------------------------------------------===//

#include "spyre/Dialect/Spyre/SpyreDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

using namespace mlir;
using namespace spyre;

namespace {

/// `["s0", ""]`: one expression per dim of `type` ("" for a static dim).
LogicalResult verifyDims(Operation *op, Attribute attr, Type type,
                         StringRef what) {
  auto dims = dyn_cast<ArrayAttr>(attr);
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!dims || !tensor || int64_t(dims.size()) != tensor.getRank() ||
      !llvm::all_of(dims, [](Attribute a) { return isa<StringAttr>(a); }))
    return op->emitError("'spyre.dims' of ")
           << what << " must be an array of one string per dim of its "
           << "ranked tensor type";
  return success();
}

/// Whether `value` is [min, max] with integer bounds (max may be "inf").
bool isRangeBounds(Attribute value) {
  auto range = dyn_cast<ArrayAttr>(value);
  if (!range || range.size() != 2 || !isa<IntegerAttr>(range[0]))
    return false;
  Attribute hi = range[1];
  auto inf = dyn_cast_or_null<StringAttr>(hi);
  return isa<IntegerAttr>(hi) || (inf && inf.getValue() == "inf");
}

/// Whether `value` is "user", "buffer_mutation:<buffer>" or
/// "user_input_mutation:<input>".
bool isOutputKind(Attribute value) {
  auto kind = dyn_cast<StringAttr>(value);
  if (!kind)
    return false;
  if (kind.getValue() == "user")
    return true;
  auto [tag, target] = kind.getValue().split(':');
  return (tag == "buffer_mutation" || tag == "user_input_mutation") &&
         !target.empty();
}

LogicalResult verifyRangeConstraints(Operation *op, Attribute attr) {
  auto ranges = dyn_cast<DictionaryAttr>(attr);
  if (!ranges)
    return op->emitError("'spyre.range_constraints' must be a dictionary");
  for (NamedAttribute entry : ranges) {
    if (!isRangeBounds(entry.getValue()))
      return op->emitError("'spyre.range_constraints' entry '")
             << entry.getName().getValue()
             << "' must be [min, max] with integer bounds (max may be "
                "\"inf\")";
  }
  return success();
}

} // namespace

LogicalResult SpyreDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == "spyre.range_constraints")
    return verifyRangeConstraints(op, attr.getValue());
  if (name == "spyre.dims") {
    auto perResult = dyn_cast<ArrayAttr>(attr.getValue());
    if (!perResult || perResult.size() != op->getNumResults())
      return op->emitError("'spyre.dims' must hold one array per result");
    for (auto [i, dims] : llvm::enumerate(perResult)) {
      // An empty array: every dim of that result is static.
      if (auto a = dyn_cast<ArrayAttr>(dims); a && a.empty())
        continue;
      if (failed(verifyDims(op, dims, op->getResult(i).getType(),
                            "result " + std::to_string(i))))
        return failure();
    }
  }
  return success();
}

LogicalResult SpyreDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned region,
                                                     unsigned arg,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == "spyre.name" && !isa<StringAttr>(attr.getValue()))
    return op->emitError("'spyre.name' of argument ")
           << arg << " must be a string";
  if (name == "spyre.dims" && region < op->getNumRegions() &&
      !op->getRegion(region).empty()) {
    Type type = op->getRegion(region).getArgument(arg).getType();
    return verifyDims(op, attr.getValue(), type,
                      "argument " + std::to_string(arg));
  }
  return success();
}

LogicalResult SpyreDialect::verifyRegionResultAttribute(Operation *op,
                                                        unsigned region,
                                                        unsigned result,
                                                        NamedAttribute attr) {
  if (attr.getName().getValue() == "spyre.name" &&
      !isa<StringAttr>(attr.getValue()))
    return op->emitError("'spyre.name' of result ")
           << result << " must be a string";
  if (attr.getName().getValue() != "spyre.output")
    return success();
  if (!isOutputKind(attr.getValue()))
    return op->emitError("'spyre.output' of result ")
           << result
           << " must be \"user\", \"buffer_mutation:<buffer>\" or "
              "\"user_input_mutation:<input>\"";
  return success();
}
