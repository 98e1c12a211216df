//===- Registry.cpp - Decomposition registry and shared helpers -----------===//

#include "spyre/Transforms/Decompositions.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <limits>

using namespace mlir;

namespace spyre {

//===----------------------------------------------------------------------===//
// AtenArgs
//===----------------------------------------------------------------------===//

InFlightDiagnostic AtenArgs::argError(StringRef name,
                                      StringRef expected) const {
  return op.emitError("argument '")
         << name << "' of '" << op.getTarget() << "' must be " << expected;
}

FailureOr<Value> AtenArgs::tensor(StringRef name) const {
  SmallVector<Value> values = op.getTensorArg(name);
  if (values.size() != 1) {
    argError(name, "a tensor");
    return failure();
  }
  return values.front();
}

Value AtenArgs::optionalTensor(StringRef name) const {
  SmallVector<Value> values = op.getTensorArg(name);
  return values.size() == 1 ? values.front() : Value();
}

SmallVector<Value> AtenArgs::tensorList(StringRef name) const {
  return op.getTensorArg(name);
}

Attribute AtenArgs::attr(StringRef name) const {
  if (Attribute a = op.getArg(name))
    return a;
  if (!schema)
    return nullptr;
  int idx = schema->findArgument(name);
  if (idx < 0)
    return nullptr;
  return parseAtenDefault(op.getContext(), schema->arguments[idx]);
}

bool AtenArgs::isNone(StringRef name) const {
  if (!op.getTensorArg(name).empty())
    return false;
  Attribute a = attr(name);
  return !a || isa<UnitAttr>(a);
}

FailureOr<int64_t> AtenArgs::getInt(StringRef name) const {
  Attribute a = attr(name);
  // A BoolAttr is an i1 IntegerAttr whose signed value of true is -1.
  if (auto b = dyn_cast_or_null<BoolAttr>(a))
    return int64_t(b.getValue());
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return i.getInt();
  argError(name, "an integer");
  return failure();
}

FailureOr<double> AtenArgs::getDouble(StringRef name) const {
  Attribute a = attr(name);
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  // Before IntegerAttr, which a BoolAttr also is: an i1 true read as a
  // signed integer is -1 (new_full(True, dtype=bf16) gave -1.0).
  if (auto b = dyn_cast_or_null<BoolAttr>(a))
    return double(b.getValue());
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return double(i.getInt());
  argError(name, "a number");
  return failure();
}

FailureOr<bool> AtenArgs::getBool(StringRef name) const {
  Attribute a = attr(name);
  if (auto b = dyn_cast_or_null<BoolAttr>(a))
    return b.getValue();
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return i.getInt() != 0;
  argError(name, "a bool");
  return failure();
}

FailureOr<std::string> AtenArgs::getString(StringRef name) const {
  if (auto s = dyn_cast_or_null<StringAttr>(attr(name)))
    return s.getValue().str();
  argError(name, "a string");
  return failure();
}

FailureOr<SmallVector<int64_t>> AtenArgs::getIntList(StringRef name) const {
  Attribute a = attr(name);
  SmallVector<int64_t> out;
  if (auto arr = dyn_cast_or_null<ArrayAttr>(a)) {
    for (Attribute e : arr) {
      auto i = dyn_cast<IntegerAttr>(e);
      if (!i) {
        argError(name, "a list of integers");
        return failure();
      }
      out.push_back(i.getInt());
    }
    return out;
  }
  if (auto dense = dyn_cast_or_null<DenseI64ArrayAttr>(a))
    return SmallVector<int64_t>(dense.asArrayRef());
  if (auto i = dyn_cast_or_null<IntegerAttr>(a)) {
    out.push_back(i.getInt());
    return out;
  }
  argError(name, "a list of integers");
  return failure();
}

//===----------------------------------------------------------------------===//
// Registry
//===----------------------------------------------------------------------===//

void DecompositionRegistry::add(Decomposition d) {
  auto [it, inserted] = index.try_emplace(d.target, list.size());
  if (!inserted) {
    list[it->second] = std::move(d);
    return;
  }
  list.push_back(std::move(d));
}

const Decomposition *DecompositionRegistry::lookup(StringRef target) const {
  auto it = index.find(target);
  if (it != index.end())
    return &list[it->second];
  // In-place variants (add_, index_copy_) compute what the functional op
  // does; the importer rebinds the mutated tensor to the result.
  auto [name, overload] = target.rsplit('.');
  if (name.ends_with("_") && !name.ends_with("__"))
    return lookup((name.drop_back() + "." + overload).str());
  return nullptr;
}

const DecompositionRegistry &getDecompositionRegistry() {
  static const DecompositionRegistry registry = [] {
    DecompositionRegistry r;
    registerMatmulDecompositions(r);
    registerPointwiseDecompositions(r);
    registerViewDecompositions(r);
    registerIndexingDecompositions(r);
    registerCreationDecompositions(r);
    registerReductionDecompositions(r);
    registerNormalizationDecompositions(r);
    registerAttentionDecompositions(r);
    registerConvolutionDecompositions(r);
    return r;
  }();
  return registry;
}

void printSupportedOpsMarkdown(raw_ostream &os) {
  os << "# Supported operators\n\n"
     << "Generated from the decomposition registry "
        "(`spyre-opt --spyre-list-decompositions`); do not edit. "
        "`scripts/test.sh` fails when this file is out of date.\n\n"
     << "Any other operator imports (as `spyre.aten`) but `spyre-decompose` "
        "rejects it with an error naming the op and its source location.\n";
  std::string family;
  SmallVector<const Decomposition *> sorted;
  for (const Decomposition &d : getDecompositionRegistry().entries())
    sorted.push_back(&d);
  llvm::stable_sort(sorted, [](const Decomposition *a, const Decomposition *b) {
    return std::tie(a->family, a->target) < std::tie(b->family, b->target);
  });
  for (const Decomposition *d : sorted) {
    if (d->family != family) {
      family = d->family;
      os << "\n## " << family << "\n\n| op | dtypes | notes |\n|---|---|---|\n";
    }
    os << "| `" << d->target << "` | " << d->dtypes << " | " << d->notes
       << " |\n";
  }
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Value createSplat(OpBuilder &b, Location loc, Type elementType, double value,
                  ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, elementType);
  Attribute scalar;
  if (auto ft = dyn_cast<FloatType>(elementType)) {
    APFloat f(value);
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    scalar = FloatAttr::get(ft, f);
  } else if (elementType.isInteger(1)) {
    // As PyTorch converts to bool: any nonzero value (0.5, 2, NaN) is true,
    // where an integer conversion would truncate 0.5 to 0 and wrap 2 to 0.
    scalar = IntegerAttr::get(elementType, value != 0);
  } else {
    scalar = IntegerAttr::get(elementType, int64_t(value));
  }
  return ConstantOp::create(b, loc, type, SplatElementsAttr::get(type, scalar));
}

Type elementTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

Value castTo(OpBuilder &b, Location loc, Value v, Type elementType) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elementType)
    return v;
  return CastOp::create(b, loc,
                        RankedTensorType::get(type.getShape(), elementType), v);
}

FailureOr<int64_t> normalizeDim(AtenOp op, int64_t dim, int64_t rank) {
  // A rank-0 tensor has dims 0 and -1, as PyTorch wraps dims.
  int64_t wrap = std::max<int64_t>(rank, 1);
  int64_t d = dim < 0 ? dim + wrap : dim;
  if (d < 0 || d >= wrap) {
    op.emitError("dimension ") << dim << " is out of range for a rank-" << rank
                               << " tensor in '" << op.getTarget() << "'";
    return failure();
  }
  return d;
}

FailureOr<Value> tensorOrScalar(const AtenArgs &args, StringRef name,
                                Type elementType, OpBuilder &b) {
  if (Value v = args.optionalTensor(name))
    return castTo(b, args.getOp().getLoc(), v, elementType);
  FailureOr<double> scalar = args.getDouble(name);
  if (failed(scalar))
    return failure();
  return createSplat(b, args.getOp().getLoc(), elementType, *scalar);
}

RankedTensorType resultType(AtenOp op, unsigned i) {
  return cast<RankedTensorType>(op.getResult(i).getType());
}

Value concatAlong(OpBuilder &b, Location loc, ArrayRef<Value> parts,
                  int64_t dim) {
  if (parts.size() == 1)
    return parts.front();
  SmallVector<int64_t> shape(shapeOf(parts.front()));
  shape[dim] = 0;
  for (Value p : parts)
    shape[dim] += shapeOf(p)[dim];
  return ConcatOp::create(
      b, loc, RankedTensorType::get(shape, elementTypeOf(parts.front())), parts,
      dim);
}

Value reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  if (shapeOf(v) == shape)
    return v;
  return ReshapeOp::create(b, loc,
                           RankedTensorType::get(shape, elementTypeOf(v)), v);
}

Value reduceAlong(OpBuilder &b, Location loc, Value x, int64_t dim,
                  ReduceKind kind) {
  SmallVector<int64_t> shape(shapeOf(x));
  shape[dim] = 1;
  Type et = kind == ReduceKind::argmax || kind == ReduceKind::argmin
                ? b.getI64Type()
                : elementTypeOf(x);
  return ReduceOp::create(b, loc, RankedTensorType::get(shape, et), kind, x,
                          dim);
}

FailureOr<SmallVector<int64_t>> reductionDims(const AtenArgs &args,
                                              StringRef name, int64_t rank) {
  SmallVector<int64_t> dims;
  if (!args.isNone(name)) {
    FailureOr<SmallVector<int64_t>> given = args.getIntList(name);
    if (failed(given))
      return failure();
    dims = *given;
  }
  if (dims.empty())
    return llvm::to_vector(llvm::seq<int64_t>(0, rank));
  for (int64_t &d : dims) {
    FailureOr<int64_t> n = normalizeDim(args.getOp(), d, rank);
    if (failed(n))
      return failure();
    d = *n;
  }
  llvm::sort(dims);
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

Value createIota(OpBuilder &b, Location loc, int64_t n, int64_t dim,
                 int64_t rank) {
  SmallVector<int64_t> shape(rank, 1);
  shape[dim] = n;
  auto type = RankedTensorType::get(shape, b.getI32Type());
  auto values = llvm::to_vector(llvm::seq<int32_t>(0, int32_t(n)));
  return ConstantOp::create(b, loc, type,
                            DenseElementsAttr::get(type, ArrayRef(values)));
}

Value createCausalMask(OpBuilder &b, Location loc, int64_t rows, int64_t cols,
                       Type type) {
  Value above = CompareOp::create(
      b, loc, RankedTensorType::get({rows, cols}, b.getI1Type()),
      ComparePredicate::gt, createIota(b, loc, cols, 1, 2),
      createIota(b, loc, rows, 0, 2));
  return SelectOp::create(
      b, loc, RankedTensorType::get({rows, cols}, type), above,
      createSplat(b, loc, type, -std::numeric_limits<double>::infinity()),
      createSplat(b, loc, type, 0));
}

Type accumulationType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

} // namespace spyre
