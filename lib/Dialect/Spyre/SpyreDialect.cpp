//===- SpyreDialect.cpp - The spyre dialect -------------------------------===//

#include "spyre/Dialect/Spyre/SpyreDialect.h"
#include "spyre/Dialect/Spyre/SpyreOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace spyre;

#include "spyre/Dialect/Spyre/SpyreDialect.cpp.inc"

namespace {
/// Short aliases for the attributes that repeat on every type and op:
/// `#layout`, `#layout1`, ... and `#arch`.
struct SpyreOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<LayoutAttr>(attr)) {
      os << "layout";
      return AliasResult::OverridableAlias;
    }
    if (isa<ArchAttr>(attr)) {
      os << "arch";
      return AliasResult::OverridableAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void SpyreDialect::initialize() {
  registerAttributes();
  registerOps();
  addInterfaces<SpyreOpAsmInterface>();
}

Operation *SpyreDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || !isa<RankedTensorType>(type))
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}
