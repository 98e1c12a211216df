//===- ReferenceEmitter.cpp - spyre.reference to the .spy -----------------===//
//
// Each compute op becomes one RefOp: its kind, op code, operands (value
// numbers: the kernel inputs, then each op's result), result type, the
// attributes its semantics need and its source location. Layouts are
// dropped: the reference is about logical elements.
//
//===----------------------------------------------------------------------===//

#include "ReferenceEmitter.h"

#include "spyre/Dialect/Spyre/InstEncoder.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace spyre {

namespace {

/// "model.py:54, layers.0.mlp (linear_3)" from the importer's
/// `fused<"layers.0.mlp">["linear_3"("model.py":54:0)]`; the parts a
/// location has.
struct SourceParts {
  std::string file, module, node;
  unsigned line = 0;
};

SourceParts sourceParts(Location loc) {
  SourceParts parts;
  loc->walk([&](Location l) {
    if (auto file = dyn_cast<FileLineColLoc>(l); file && parts.file.empty()) {
      parts.file = file.getFilename().str();
      parts.line = file.getLine();
    } else if (auto name = dyn_cast<NameLoc>(l); name && parts.node.empty()) {
      parts.node = name.getName().str();
    } else if (auto fused = dyn_cast<FusedLoc>(l);
               fused && parts.module.empty()) {
      if (auto module = dyn_cast_or_null<StringAttr>(fused.getMetadata()))
        parts.module = module.str();
    }
    return WalkResult::advance();
  });
  return parts;
}

std::string describe(const SourceParts &parts) {
  std::string text;
  if (!parts.file.empty())
    text = parts.file + ":" + std::to_string(parts.line);
  if (!parts.module.empty())
    text += (text.empty() ? "" : ", ") + parts.module;
  if (!parts.node.empty())
    text += (text.empty() ? "" : " ") + ("(" + parts.node + ")");
  return text;
}

/// Elements of a constant in the compute domains (one for a splat); false
/// when the attribute holds no readable elements.
bool constantValues(Attribute value, spy::RefOpDesc &op) {
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return false;
  Type et = dense.getElementType();
  auto readAll = [&](auto range, auto convert, auto &out) {
    if (dense.isSplat()) {
      out.push_back(convert(*range.begin()));
      return;
    }
    for (auto v : range)
      out.push_back(convert(v));
  };
  if (llvm::isa<FloatType>(et)) {
    readAll(
        dense.getValues<APFloat>(),
        [](const APFloat &v) { return float(v.convertToDouble()); },
        op.floatValues);
    return true;
  }
  if (et.isInteger(1)) {
    readAll(
        dense.getValues<bool>(), [](bool v) { return int64_t(v); },
        op.intValues);
    return true;
  }
  if (llvm::isa<IntegerType>(et)) {
    readAll(
        dense.getValues<APInt>(),
        [](const APInt &v) { return v.getSExtValue(); }, op.intValues);
    return true;
  }
  return false;
}

class ReferenceBuilder {
public:
  explicit ReferenceBuilder(ReferenceOp ref) : ref(ref) {}

  FailureOr<spy::KernelReferenceDesc>
  build(const llvm::StringMap<uint32_t> &tensorIndex) {
    Block &body = ref.getBodyBlock();
    for (auto [arg, name] : llvm::zip(body.getArguments(), ref.getInputs()))
      out.inputs.push_back(value(arg, name, tensorIndex));
    for (Operation &op : body.without_terminator())
      if (failed(addOp(&op)))
        return failure();
    for (auto [v, name] :
         llvm::zip(body.getTerminator()->getOperands(), ref.getResults())) {
      out.results.push_back(value(v, name, tensorIndex));
      out.yields.push_back(number.lookup(v));
    }
    return std::move(out);
  }

private:
  ReferenceOp ref;
  spy::KernelReferenceDesc out;
  DenseMap<Value, uint32_t> number;

  spy::RefValueDesc value(Value v, Attribute name,
                          const llvm::StringMap<uint32_t> &tensorIndex) {
    if (!number.count(v) && llvm::isa<BlockArgument>(v))
      number[v] = uint32_t(number.size());
    spy::RefValueDesc d;
    d.tensor = tensorIndex.lookup(cast<FlatSymbolRefAttr>(name).getValue());
    auto shape = cast<RankedTensorType>(v.getType()).getShape();
    d.shape.assign(shape.begin(), shape.end());
    return d;
  }

  LogicalResult addOp(Operation *op) {
    if (op->getNumResults() != 1)
      return op->emitError("a kernel reference holds ops of one result");
    spy::RefOpDesc d;
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    FailureOr<isa::DType> dtype = deviceDType(op, type.getElementType());
    if (failed(dtype))
      return failure();
    d.dtype = *dtype;
    d.shape.assign(type.getShape().begin(), type.getShape().end());
    for (Value operand : op->getOperands())
      d.operands.push_back(number.lookup(operand));
    SourceParts parts = sourceParts(op->getLoc());
    d.location = describe(parts);
    d.node = parts.node;
    if (failed(setKind(op, d)))
      return failure();
    number[op->getResult(0)] = uint32_t(number.size());
    out.ops.push_back(std::move(d));
    return success();
  }

  LogicalResult setKind(Operation *op, spy::RefOpDesc &d) {
    using spy::RefKind;
    return TypeSwitch<Operation *, LogicalResult>(op)
        .Case([&](UnaryOp u) {
          return set(d, RefKind::Unary, int32_t(u.getKind()));
        })
        .Case([&](BinaryOp b) {
          return set(d, RefKind::Binary, int32_t(b.getKind()));
        })
        .Case([&](CompareOp c) {
          return set(d, RefKind::Compare, int32_t(c.getPredicate()));
        })
        .Case([&](SelectOp) { return set(d, RefKind::Select); })
        .Case([&](ReduceOp r) {
          return set(d, RefKind::Reduce, int32_t(r.getKind()), {r.getDim()});
        })
        .Case([&](CastOp) { return set(d, RefKind::Cast); })
        .Case([&](ConstantOp c) {
          if (!constantValues(c.getValue(), d))
            return LogicalResult(
                c.emitError("a kernel reference holds dense constants only"));
          return set(d, RefKind::Constant);
        })
        .Case([&](TransposeOp t) {
          return set(d, RefKind::Transpose, 0, t.getPermutation());
        })
        .Case([&](ReshapeOp) { return set(d, RefKind::Reshape); })
        .Case([&](BroadcastOp) { return set(d, RefKind::Broadcast); })
        .Case([&](SliceOp s) {
          SmallVector<int64_t> ints(s.getOffsets());
          llvm::append_range(ints, s.getStrides());
          return set(d, RefKind::Slice, 0, ints);
        })
        .Case([&](ConcatOp c) {
          return set(d, RefKind::Concat, 0, {c.getDim()});
        })
        .Case([&](GatherOp) { return set(d, RefKind::Gather); })
        .Case([&](ScatterOp s) {
          return set(d, RefKind::Scatter, 0, {s.getDim()});
        })
        .Case([&](MatmulOp m) {
          return set(d, RefKind::Matmul, 0,
                     {m.getTransposeLhs(), m.getTransposeRhs()});
        })
        .Case([&](AttentionOp a) {
          d.scale = a.getScale().convertToDouble();
          return set(d, RefKind::Attention, 0,
                     {a.getCausal(), bool(a.getMask()), bool(a.getSinks()),
                      bool(a.getRopeCos())});
        })
        .Case([&](RestickifyOp) { return set(d, RefKind::Restickify); })
        .Default([](Operation *other) -> LogicalResult {
          return other->emitError("'")
                 << other->getName() << "' cannot be in a kernel reference";
        });
  }

  static LogicalResult set(spy::RefOpDesc &d, spy::RefKind kind,
                           int32_t code = 0, ArrayRef<int64_t> ints = {}) {
    d.kind = kind;
    d.code = code;
    d.ints.assign(ints.begin(), ints.end());
    return success();
  }
};

} // namespace

FailureOr<spy::KernelReferenceDesc>
buildKernelReference(ReferenceOp ref,
                     const llvm::StringMap<uint32_t> &tensorIndex) {
  return ReferenceBuilder(ref).build(tensorIndex);
}

} // namespace spyre
