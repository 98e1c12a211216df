//===- SpyreDialect.cpp - The spyre dialect -------------------------------===//

#include "spyre/Dialect/Spyre/SpyreDialect.h"
#include "spyre/Dialect/Spyre/SpyreOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace spyre;

#include "spyre/Dialect/Spyre/SpyreDialect.cpp.inc"

void SpyreDialect::initialize() {
  registerAttributes();
  registerOps();
}

Operation *SpyreDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || !isa<RankedTensorType>(type))
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}
