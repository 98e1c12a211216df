//===- SpyreAttrs.cpp - spyre attributes ----------------------------------===//

#include "spyre/Dialect/Spyre/SpyreAttrs.h"
#include "spyre/Dialect/Spyre/SpyreOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace spyre;

#include "spyre/Dialect/Spyre/SpyreEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "spyre/Dialect/Spyre/SpyreAttrs.cpp.inc"

void SpyreDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "spyre/Dialect/Spyre/SpyreAttrs.cpp.inc"
      >();
}

FailureOr<SmallVector<int64_t>> spyre::parseI64List(AsmParser &parser) {
  SmallVector<int64_t> values;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        int64_t v;
        if (parser.parseInteger(v))
          return failure();
        values.push_back(v);
        return success();
      }))
    return failure();
  return values;
}

void spyre::printI64List(AsmPrinter &printer, ArrayRef<int64_t> values) {
  printer << '[';
  llvm::interleaveComma(values, printer);
  printer << ']';
}

//===----------------------------------------------------------------------===//
// LayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t stickDim, int64_t stickElems,
                                 ArrayRef<int64_t> dimOrder) {
  if (stickElems <= 0)
    return emitError() << "stick_elems must be positive, got " << stickElems;
  if (stickDim < -1)
    return emitError() << "stick_dim must be a dimension or -1, got "
                       << stickDim;
  if (!dimOrder.empty()) {
    // One spelling per layout: the identity order is written by omission.
    if (llvm::equal(dimOrder, llvm::seq<int64_t>(0, dimOrder.size())))
      return emitError() << "dim_order is the identity; omit it";
    SmallVector<bool> seen(dimOrder.size(), false);
    for (int64_t d : dimOrder) {
      if (d < 0 || d >= int64_t(dimOrder.size()) || seen[d])
        return emitError() << "dim_order must be a permutation of 0.."
                           << dimOrder.size() - 1;
      seen[d] = true;
    }
  }
  return success();
}

LogicalResult
LayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                           function_ref<InFlightDiagnostic()> emitError) const {
  int64_t rank = shape.size();
  if (rank == 0 ? getStickDim() != -1
                : (getStickDim() < 0 || getStickDim() >= rank))
    return emitError() << "stick_dim " << getStickDim()
                       << " is not a dimension of a rank-" << rank << " tensor";
  if (!getDimOrder().empty() && int64_t(getDimOrder().size()) != rank)
    return emitError() << "dim_order has " << getDimOrder().size()
                       << " entries for a rank-" << rank << " tensor";
  return success();
}

LayoutAttr LayoutAttr::getCanonical(RankedTensorType type, int64_t stickBytes) {
  return getStickInnermost(type, type.getRank() - 1, stickBytes);
}

LayoutAttr LayoutAttr::getStickInnermost(RankedTensorType type,
                                         int64_t stickDim, int64_t stickBytes) {
  int64_t elems = stickBytes / getElementBytes(type.getElementType());
  int64_t rank = type.getRank();
  if (rank == 0)
    return get(type.getContext(), -1, elems);
  if (stickDim == rank - 1)
    return get(type.getContext(), stickDim, elems);
  SmallVector<int64_t> order;
  for (int64_t d = 0; d < rank; ++d)
    if (d != stickDim)
      order.push_back(d);
  order.push_back(stickDim);
  return get(type.getContext(), stickDim, elems, order);
}

RankedTensorType LayoutAttr::apply(RankedTensorType type) const {
  return RankedTensorType::get(type.getShape(), type.getElementType(), *this);
}

SmallVector<int64_t> LayoutAttr::getOrder(int64_t rank) const {
  if (!getDimOrder().empty())
    return SmallVector<int64_t>(getDimOrder());
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

bool LayoutAttr::isIdentityOrder() const {
  for (auto [i, d] : llvm::enumerate(getDimOrder()))
    if (int64_t(i) != d)
      return false;
  return true;
}

SmallVector<int64_t> LayoutAttr::getDeviceShape(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t> device;
  int64_t e = getStickElems();
  for (int64_t d : getOrder(shape.size()))
    device.push_back(d == getStickDim() ? llvm::divideCeil(shape[d], e)
                                        : shape[d]);
  device.push_back(e);
  return device;
}

int64_t LayoutAttr::getDeviceElements(ArrayRef<int64_t> shape) const {
  int64_t n = 1;
  for (int64_t s : getDeviceShape(shape))
    n *= s;
  return n;
}

int64_t LayoutAttr::getDimStride(ArrayRef<int64_t> shape, int64_t dim) const {
  SmallVector<int64_t> order = getOrder(shape.size());
  SmallVector<int64_t> device = getDeviceShape(shape);
  int64_t stride = getStickElems();
  for (int64_t i = int64_t(order.size()) - 1; i >= 0; --i) {
    if (order[i] == dim)
      return stride;
    stride *= device[i];
  }
  llvm_unreachable("dim is not a dimension of the layout");
}

//===----------------------------------------------------------------------===//
// ArchAttr
//===----------------------------------------------------------------------===//

namespace {
/// Reads the fields of an arch dictionary into `arch`; reports the first
/// missing or mistyped one through `emitError` when given.
LogicalResult readArch(DictionaryAttr fields, Arch &arch,
                       function_ref<InFlightDiagnostic()> emitError = nullptr) {
  auto fail = [&](StringRef key, StringRef what) -> LogicalResult {
    if (emitError)
      return emitError() << "arch field '" << key << "' "
                         << (fields.get(key) ? what : "is missing");
    return failure();
  };
#define SPYRE_ARCH_READ_INT(type, member, key, doc)                            \
  if (auto a = dyn_cast_or_null<IntegerAttr>(fields.get(key)))                 \
    arch.member = a.getInt();                                                  \
  else                                                                         \
    return fail(key, "must be an integer");
#define SPYRE_ARCH_READ_FLOAT(type, member, key, doc)                          \
  if (auto a = dyn_cast_or_null<FloatAttr>(fields.get(key)))                   \
    arch.member = a.getValueAsDouble();                                        \
  else if (auto i = dyn_cast_or_null<IntegerAttr>(fields.get(key)))            \
    arch.member = double(i.getInt());                                          \
  else                                                                         \
    return fail(key, "must be a number");
#define SPYRE_ARCH_READ_STRING(type, member, key, doc)                         \
  if (auto a = dyn_cast_or_null<StringAttr>(fields.get(key)))                  \
    arch.member = a.getValue().str();                                          \
  else                                                                         \
    return fail(key, "must be a string");
  SPYRE_ARCH_INT_FIELDS(SPYRE_ARCH_READ_INT)
  SPYRE_ARCH_FLOAT_FIELDS(SPYRE_ARCH_READ_FLOAT)
  SPYRE_ARCH_STRING_FIELDS(SPYRE_ARCH_READ_STRING)
#undef SPYRE_ARCH_READ_INT
#undef SPYRE_ARCH_READ_FLOAT
#undef SPYRE_ARCH_READ_STRING
  return success();
}
} // namespace

LogicalResult ArchAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               DictionaryAttr fields) {
  Arch arch;
  if (failed(readArch(fields, arch, emitError)))
    return failure();
  std::string error;
  if (!arch.validate(error))
    return emitError() << "invalid machine description: " << error;
  return success();
}

Arch ArchAttr::getArch() const {
  Arch arch;
  (void)readArch(getFields(), arch);
  return arch;
}

ArchAttr ArchAttr::get(MLIRContext *ctx, const Arch &arch) {
  Builder b(ctx);
  SmallVector<NamedAttribute> fields;
#define SPYRE_ARCH_WRITE_INT(type, member, key, doc)                           \
  fields.push_back(b.getNamedAttr(key, b.getI64IntegerAttr(arch.member)));
#define SPYRE_ARCH_WRITE_FLOAT(type, member, key, doc)                         \
  fields.push_back(b.getNamedAttr(key, b.getF64FloatAttr(arch.member)));
#define SPYRE_ARCH_WRITE_STRING(type, member, key, doc)                        \
  fields.push_back(b.getNamedAttr(key, b.getStringAttr(arch.member)));
  SPYRE_ARCH_INT_FIELDS(SPYRE_ARCH_WRITE_INT)
  SPYRE_ARCH_FLOAT_FIELDS(SPYRE_ARCH_WRITE_FLOAT)
  SPYRE_ARCH_STRING_FIELDS(SPYRE_ARCH_WRITE_STRING)
#undef SPYRE_ARCH_WRITE_INT
#undef SPYRE_ARCH_WRITE_FLOAT
#undef SPYRE_ARCH_WRITE_STRING
  return get(ctx, b.getDictionaryAttr(fields));
}

//===----------------------------------------------------------------------===//
// ScheduleAttr
//===----------------------------------------------------------------------===//

int64_t ScheduleAttr::getNumCores() const {
  int64_t n = 1;
  for (int64_t s : getSplit())
    n *= s;
  return n;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace spyre {

Arch getArch(Operation *op) {
  ModuleOp module =
      isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  // Nested modules inherit the outermost description that is set.
  for (; module; module = module->getParentOfType<ModuleOp>())
    if (auto attr = module->getAttrOfType<ArchAttr>(kArchAttrName))
      return attr.getArch();
  return Arch::builtinDefault();
}

LayoutAttr getLayout(Type type) {
  if (auto t = dyn_cast<RankedTensorType>(type))
    return dyn_cast_or_null<LayoutAttr>(t.getEncoding());
  return nullptr;
}

int64_t getElementBytes(Type elementType) {
  if (elementType.isInteger(1))
    return 1;
  return std::max<int64_t>(1, elementType.getIntOrFloatBitWidth() / 8);
}

} // namespace spyre
