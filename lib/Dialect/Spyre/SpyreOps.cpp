//===- SpyreOps.cpp - spyre operations: verifiers and builders ------------===//

#include "spyre/Dialect/Spyre/SpyreOps.h"
#include "spyre/Dialect/Spyre/AtenSchema.h"
#include "spyre/Dialect/Spyre/ShapeUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <numeric>

using namespace mlir;
using namespace spyre;

void SpyreDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "spyre/Dialect/Spyre/SpyreOps.cpp.inc"
      >();
}

#include "spyre/Dialect/Spyre/SpyreInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "spyre/Dialect/Spyre/SpyreOps.cpp.inc"

namespace {

/// Checks that every layout-encoded tensor type in `types` uses the
/// machine's stick size.
LogicalResult verifyStickSizes(Operation *op, TypeRange types) {
  Arch arch;
  bool haveArch = false;
  for (Type t : types) {
    LayoutAttr layout = getLayout(t);
    if (!layout)
      continue;
    if (!haveArch) {
      arch = getArch(op);
      haveArch = true;
    }
    auto tensor = cast<RankedTensorType>(t);
    int64_t elementBytes = getElementBytes(tensor.getElementType());
    std::optional<int64_t> bytes =
        llvm::checkedMul(layout.getStickElems(), elementBytes);
    if (!bytes)
      return op->emitOpError("layout of ")
             << t << " has sticks of " << layout.getStickElems() << " x "
             << elementBytes << " bytes; the machine's stick is "
             << arch.stickBytes << " bytes";
    if (*bytes != arch.stickBytes)
      return op->emitOpError("layout of ") << t << " has sticks of " << *bytes
                                           << " bytes; the machine's stick is "
                                           << arch.stickBytes << " bytes";
  }
  return success();
}

LogicalResult verifyOperandsAndResultsSticks(Operation *op) {
  if (failed(verifyStickSizes(op, op->getOperandTypes())))
    return failure();
  return verifyStickSizes(op, op->getResultTypes());
}

} // namespace

//===----------------------------------------------------------------------===//
// AtenOp
//===----------------------------------------------------------------------===//

SmallVector<Value> AtenOp::getTensorArg(StringRef name) {
  SmallVector<Value> values;
  for (auto [operand, argName] :
       llvm::zip(getInputs(), getTensorArgs().getAsRange<StringAttr>()))
    if (argName.getValue() == name)
      values.push_back(operand);
  return values;
}

namespace {

/// Binds each operand name to its schema argument, which must be a tensor
/// (or tensor list) bound at most once.
LogicalResult bindTensorArgs(AtenOp op, const AtenSchema &schema,
                             llvm::StringSet<> &bound) {
  for (auto name : op.getTensorArgs().getAsRange<StringAttr>()) {
    int idx = schema.findArgument(name.getValue());
    if (idx < 0)
      return op.emitOpError("'") << op.getTarget() << "' has no argument '"
                                 << name.getValue() << "'";
    const AtenArgument &arg = schema.arguments[idx];
    if (!arg.isTensor() && !arg.isTensorList())
      return op.emitOpError("argument '")
             << arg.name << "' of '" << op.getTarget()
             << "' is not a tensor (schema type " << arg.type << ")";
    if (arg.isTensor() && !bound.insert(arg.name).second)
      return op.emitOpError("tensor argument '")
             << arg.name << "' of '" << op.getTarget() << "' is bound twice";
    bound.insert(arg.name);
  }
  return success();
}

/// Binds each attribute to its schema argument, which no operand may bind.
LogicalResult bindAttributeArgs(AtenOp op, const AtenSchema &schema,
                                llvm::StringSet<> &bound) {
  for (NamedAttribute attr : op.getArgs()) {
    int idx = schema.findArgument(attr.getName());
    if (idx < 0)
      return op.emitOpError("'") << op.getTarget() << "' has no argument '"
                                 << attr.getName().getValue() << "'";
    // A Tensor?[] argument's presence mask sits beside its operands.
    if (schema.arguments[idx].type == "Tensor?[]" &&
        isa<ArrayAttr>(attr.getValue()))
      continue;
    if (bound.contains(attr.getName().getValue()))
      return op.emitOpError("argument '")
             << attr.getName().getValue()
             << "' is given both as an operand and as an attribute";
    bound.insert(attr.getName().getValue());
  }
  return success();
}

/// Checks that every argument without a default is bound.
LogicalResult verifyRequiredArgsBound(AtenOp op, const AtenSchema &schema,
                                      const llvm::StringSet<> &bound) {
  for (const AtenArgument &arg : schema.arguments) {
    // Optional tensors and lists may be absent (None / empty).
    if (bound.contains(arg.name) || arg.defaultValue || arg.isOptional() ||
        arg.isTensorList())
      continue;
    return op.emitOpError("missing required argument '")
           << arg.name << "' of '" << op.getTarget() << "'";
  }
  return success();
}

/// Checks the result count against the schema's returns; a single list
/// return may produce any number of results.
LogicalResult verifyAtenResultCount(AtenOp op, const AtenSchema &schema) {
  bool listReturn = schema.returns.size() == 1 &&
                    StringRef(schema.returns[0]).ends_with("[]");
  if (!listReturn && schema.returns.size() != op.getNumResults())
    return op.emitOpError("'")
           << op.getTarget() << "' returns " << schema.returns.size()
           << " values, the op has " << op.getNumResults() << " results";
  return success();
}

} // namespace

LogicalResult AtenOp::verify() {
  if (getTensorArgs().size() != getInputs().size())
    return emitOpError("'tensor_args' names ")
           << getTensorArgs().size() << " arguments for " << getInputs().size()
           << " operands";
  const AtenSchema *schema = lookupAtenSchema(getTarget());
  if (!schema)
    return success(); // Unknown ops import; spyre-decompose rejects them.

  llvm::StringSet<> bound;
  if (failed(bindTensorArgs(*this, *schema, bound)) ||
      failed(bindAttributeArgs(*this, *schema, bound)) ||
      failed(verifyRequiredArgsBound(*this, *schema, bound)))
    return failure();
  return verifyAtenResultCount(*this, *schema);
}

//===----------------------------------------------------------------------===//
// WeightOp
//===----------------------------------------------------------------------===//

LogicalResult WeightOp::verify() {
  if (bool(getValue()) == bool(getExternal()))
    return emitOpError("needs exactly one of a value or external data");
  auto type = cast<RankedTensorType>(getResult().getType());
  if (auto value = getValue()) {
    auto valueType = cast<ShapedType>(value->getType());
    if (valueType.getShape() != type.getShape() ||
        valueType.getElementType() != type.getElementType())
      return emitOpError("value of type ")
             << valueType << " does not match the result type " << type;
  }
  if (!type.hasStaticShape() && getValue())
    return emitOpError("a weight with a value must have a static shape");
  return verifyStickSizes(*this, getResult().getType());
}

//===----------------------------------------------------------------------===//
// Compute ops
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto rhs = cast<RankedTensorType>(getRhs().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return emitOpError("operands must have rank >= 2, got ")
           << lhs.getRank() << " and " << rhs.getRank();
  if (!isa<FloatType>(lhs.getElementType()) ||
      lhs.getElementType() != rhs.getElementType())
    return emitOpError("operands must share a float element type, got ")
           << lhs.getElementType() << " and " << rhs.getElementType();
  if (!isa<FloatType>(result.getElementType()))
    return emitOpError("result must have a float element type");
  MatmulDims dims = getMatmulDims(*this);
  int64_t rhsK = rhs.getDimSize(rhs.getRank() - (getTransposeRhs() ? 1 : 2));
  if (dims.k != rhsK)
    return emitOpError("contraction sizes differ: lhs has ")
           << dims.k << ", rhs has " << rhsK;
  std::optional<SmallVector<int64_t>> batch =
      broadcastShapes(lhs.getShape().drop_back(2), rhs.getShape().drop_back(2));
  if (!batch)
    return emitOpError("batch dimensions do not broadcast");
  SmallVector<int64_t> expected = *batch;
  expected.push_back(dims.m);
  expected.push_back(dims.n);
  if (ArrayRef<int64_t>(expected) != result.getShape())
    return emitOpError("result shape must be ")
           << "[" << expected << "], got " << result;
  return verifyOperandsAndResultsSticks(*this);
}

namespace {
LogicalResult verifyBroadcast(Operation *op, ArrayRef<Value> operands,
                              RankedTensorType result) {
  SmallVector<int64_t> shape;
  for (Value v : operands) {
    auto t = cast<RankedTensorType>(v.getType());
    std::optional<SmallVector<int64_t>> b =
        shape.empty() && v == operands.front()
            ? std::optional<SmallVector<int64_t>>(
                  SmallVector<int64_t>(t.getShape()))
            : broadcastShapes(shape, t.getShape());
    if (!b)
      return op->emitOpError("operand shapes do not broadcast");
    shape = *b;
  }
  if (ArrayRef<int64_t>(shape) != result.getShape())
    return op->emitOpError("result shape must be the broadcast shape [")
           << shape << "], got " << result;
  return verifyOperandsAndResultsSticks(op);
}
} // namespace

LogicalResult UnaryOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (in.getElementType() != out.getElementType())
    return emitOpError("result element type ")
           << out.getElementType() << " differs from the input's "
           << in.getElementType();
  bool isLogical = getKind() == UnaryKind::logical_not;
  if (!isLogical && !isa<FloatType>(in.getElementType()) &&
      getKind() != UnaryKind::neg && getKind() != UnaryKind::abs)
    return emitOpError("'")
           << stringifyUnaryKind(getKind())
           << "' needs a float element type, got " << in.getElementType();
  return verifyOperandsAndResultsSticks(*this);
}

namespace {

/// Checks that query, key, value and result share one rank >= 2.
LogicalResult verifyAttentionRanks(AttentionOp op, RankedTensorType q,
                                   RankedTensorType k, RankedTensorType v,
                                   RankedTensorType out) {
  int64_t rank = q.getRank();
  if (rank < 2 || k.getRank() != rank || v.getRank() != rank ||
      out.getRank() != rank)
    return op.emitOpError("query, key, value and result must share one rank "
                          ">= 2");
  return success();
}

/// Checks that query, key and value share a float type, and the result is
/// float.
LogicalResult verifyAttentionElementTypes(AttentionOp op, RankedTensorType q,
                                          RankedTensorType k,
                                          RankedTensorType v,
                                          RankedTensorType out) {
  if (!isa<FloatType>(q.getElementType()) ||
      q.getElementType() != k.getElementType() ||
      q.getElementType() != v.getElementType() ||
      !isa<FloatType>(out.getElementType()))
    return op.emitOpError("query, key and value must share a float element "
                          "type, and the result be float");
  return success();
}

/// Whether the batch dims of a key or value are the query's `batch` or 1:
/// key and value heads may serve several query heads (grouped queries).
bool servesQueryBatch(RankedTensorType t, ArrayRef<int64_t> batch) {
  for (auto [d, n] : llvm::enumerate(t.getShape().drop_back(2)))
    if (n != 1 && n != batch[d])
      return false;
  return true;
}

/// Checks the key, value and result shapes against the query's.
LogicalResult verifyAttentionShapes(AttentionOp op, RankedTensorType q,
                                    RankedTensorType k, RankedTensorType v,
                                    RankedTensorType out) {
  int64_t rank = q.getRank();
  ArrayRef<int64_t> batch = q.getShape().drop_back(2);
  int64_t m = q.getDimSize(rank - 2), e = q.getDimSize(rank - 1);
  int64_t s = k.getDimSize(rank - 2), ev = v.getDimSize(rank - 1);
  if (!servesQueryBatch(k, batch) || !servesQueryBatch(v, batch))
    return op.emitOpError("key and value batch dims must be the query's or 1");
  if (k.getDimSize(rank - 1) != e || v.getDimSize(rank - 2) != s)
    return op.emitOpError("key must be [..., S, ")
           << e << "] and value [..., " << s << ", Ev] for the query's "
           << "head dim " << e;
  if (op.getCausal() && m > s)
    return op.emitOpError("a causal attention needs no more queries (")
           << m << ") than keys (" << s << ")";
  SmallVector<int64_t> expected(batch);
  expected.append({m, ev});
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return op.emitOpError("result shape must be [") << expected << "]";
  return success();
}

/// Checks that the optional mask is a float tensor broadcasting to the
/// [..., M, S] scores.
LogicalResult verifyAttentionMask(AttentionOp op, RankedTensorType q,
                                  RankedTensorType k) {
  Value mask = op.getMask();
  if (!mask)
    return success();
  int64_t rank = q.getRank();
  auto mt = cast<RankedTensorType>(mask.getType());
  SmallVector<int64_t> scores(q.getShape().drop_back(2));
  scores.append({q.getDimSize(rank - 2), k.getDimSize(rank - 2)});
  std::optional<SmallVector<int64_t>> joint =
      broadcastShapes(mt.getShape(), scores);
  if (!isa<FloatType>(mt.getElementType()) || !joint ||
      ArrayRef<int64_t>(*joint) != ArrayRef<int64_t>(scores))
    return op.emitOpError("mask must be a float tensor that broadcasts to [")
           << scores << "]";
  return success();
}

/// Checks that the optional sinks are a float tensor broadcasting to the
/// [..., M, 1] rows of the scores: one logit per row (or per head).
LogicalResult verifyAttentionSinks(AttentionOp op, RankedTensorType q) {
  Value sinks = op.getSinks();
  if (!sinks)
    return success();
  auto st = cast<RankedTensorType>(sinks.getType());
  SmallVector<int64_t> rows(q.getShape().drop_back());
  rows.push_back(1);
  std::optional<SmallVector<int64_t>> joint =
      broadcastShapes(st.getShape(), rows);
  if (!isa<FloatType>(st.getElementType()) || !joint ||
      ArrayRef<int64_t>(*joint) != ArrayRef<int64_t>(rows))
    return op.emitOpError("sinks must be a float tensor that broadcasts to [")
           << rows << "]";
  return success();
}

/// Checks the optional rotary embedding of the query: cos and sin (both or
/// neither, with the rotation) of the query's element type broadcasting to
/// its [..., M, E], the rotation [E, E].
LogicalResult verifyAttentionRope(AttentionOp op, RankedTensorType q) {
  Value cos = op.getRopeCos(), sin = op.getRopeSin(),
        rotation = op.getRopeRotation();
  if (!cos && !sin && !rotation)
    return success();
  if (!cos || !sin || !rotation)
    return op.emitOpError("rope needs cos, sin and rotation together");
  int64_t e = q.getShape().back();
  for (Value table : {cos, sin}) {
    auto t = cast<RankedTensorType>(table.getType());
    std::optional<SmallVector<int64_t>> joint =
        broadcastShapes(t.getShape(), q.getShape());
    if (t.getElementType() != q.getElementType() || !joint ||
        ArrayRef<int64_t>(*joint) != q.getShape())
      return op.emitOpError("rope cos and sin must be ")
             << q.getElementType() << " tensors that broadcast to ["
             << q.getShape() << "]";
  }
  auto r = cast<RankedTensorType>(rotation.getType());
  if (r.getElementType() != q.getElementType() ||
      r.getShape() != ArrayRef<int64_t>({e, e}))
    return op.emitOpError("rope rotation must be a [")
           << e << ", " << e << "] " << q.getElementType() << " tensor";
  return success();
}

} // namespace

LogicalResult AttentionOp::verify() {
  auto q = cast<RankedTensorType>(getQuery().getType());
  auto k = cast<RankedTensorType>(getKey().getType());
  auto v = cast<RankedTensorType>(getValue().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (failed(verifyAttentionRanks(*this, q, k, v, out)) ||
      failed(verifyAttentionElementTypes(*this, q, k, v, out)) ||
      failed(verifyAttentionShapes(*this, q, k, v, out)) ||
      failed(verifyAttentionMask(*this, q, k)) ||
      failed(verifyAttentionSinks(*this, q)) ||
      failed(verifyAttentionRope(*this, q)))
    return failure();
  return verifyOperandsAndResultsSticks(*this);
}

LogicalResult BinaryOp::verify() {
  Type lhs = cast<RankedTensorType>(getLhs().getType()).getElementType();
  Type rhs = cast<RankedTensorType>(getRhs().getType()).getElementType();
  Type res = cast<RankedTensorType>(getResult().getType()).getElementType();
  if (lhs != rhs || lhs != res)
    return emitOpError("operands and result must share an element type, got ")
           << lhs << ", " << rhs << " and " << res;
  return verifyBroadcast(*this, {getLhs(), getRhs()},
                         cast<RankedTensorType>(getResult().getType()));
}

LogicalResult CompareOp::verify() {
  Type lhs = cast<RankedTensorType>(getLhs().getType()).getElementType();
  Type rhs = cast<RankedTensorType>(getRhs().getType()).getElementType();
  Type res = cast<RankedTensorType>(getResult().getType()).getElementType();
  if (lhs != rhs)
    return emitOpError("operands must share an element type, got ")
           << lhs << " and " << rhs;
  if (!res.isInteger(1))
    return emitOpError("result must be an i1 tensor, got ") << res;
  return verifyBroadcast(*this, {getLhs(), getRhs()},
                         cast<RankedTensorType>(getResult().getType()));
}

LogicalResult SelectOp::verify() {
  Type cond = cast<RankedTensorType>(getCondition().getType()).getElementType();
  Type t = cast<RankedTensorType>(getTrueValue().getType()).getElementType();
  Type f = cast<RankedTensorType>(getFalseValue().getType()).getElementType();
  Type res = cast<RankedTensorType>(getResult().getType()).getElementType();
  if (!cond.isInteger(1))
    return emitOpError("condition must be an i1 tensor, got ") << cond;
  if (t != f || t != res)
    return emitOpError("values and result must share an element type");
  return verifyBroadcast(*this,
                         {getCondition(), getTrueValue(), getFalseValue()},
                         cast<RankedTensorType>(getResult().getType()));
}

LogicalResult ReduceOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  int64_t dim = getDim();
  if (dim < 0 || dim >= in.getRank())
    return emitOpError("dim ")
           << dim << " is out of range for rank " << in.getRank();
  SmallVector<int64_t> expected(in.getShape());
  expected[dim] = 1;
  if (ArrayRef<int64_t>(expected) != out.getShape())
    return emitOpError("result shape must be [")
           << expected << "] (the reduced dim kept with size 1), got " << out;
  bool isArg =
      getKind() == ReduceKind::argmax || getKind() == ReduceKind::argmin;
  if (isArg && !isa<IntegerType>(out.getElementType()))
    return emitOpError("argmax/argmin produce integer indices, got ")
           << out.getElementType();
  if (!isArg && out.getElementType() != in.getElementType())
    return emitOpError("result element type must be the input's");
  return verifyOperandsAndResultsSticks(*this);
}

LogicalResult ConstantOp::verify() {
  auto valueType = cast<ShapedType>(getValue().getType());
  auto type = cast<RankedTensorType>(getResult().getType());
  if (valueType.getShape() != type.getShape() ||
      valueType.getElementType() != type.getElementType())
    return emitOpError("value of type ")
           << valueType << " does not match the result type " << type;
  return verifyStickSizes(*this, type);
}

LogicalResult TransposeOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  ArrayRef<int64_t> perm = getPermutation();
  if (int64_t(perm.size()) != in.getRank())
    return emitOpError("permutation has ")
           << perm.size() << " entries for a rank-" << in.getRank() << " input";
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitOpError("permutation must contain each dim once");
    seen[p] = true;
    expected.push_back(in.getDimSize(p));
  }
  if (ArrayRef<int64_t>(expected) != out.getShape() ||
      in.getElementType() != out.getElementType())
    return emitOpError("result must be the permuted input, got ") << out;
  return verifyOperandsAndResultsSticks(*this);
}

LogicalResult ReshapeOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (!in.hasStaticShape() || !out.hasStaticShape())
    return emitOpError("shapes must be static");
  if (in.getNumElements() != out.getNumElements() ||
      in.getElementType() != out.getElementType())
    return emitOpError("input ")
           << in << " and result " << out << " must have the same elements";
  return verifyOperandsAndResultsSticks(*this);
}

LogicalResult BroadcastOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  std::optional<SmallVector<int64_t>> b =
      broadcastShapes(in.getShape(), out.getShape());
  if (!b || ArrayRef<int64_t>(*b) != out.getShape() ||
      in.getElementType() != out.getElementType())
    return emitOpError("cannot broadcast ") << in << " to " << out;
  return verifyOperandsAndResultsSticks(*this);
}

LogicalResult SliceOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  int64_t rank = in.getRank();
  if (out.getRank() != rank || int64_t(getOffsets().size()) != rank ||
      int64_t(getStrides().size()) != rank)
    return emitOpError("needs one offset and stride per dim of the rank-")
           << rank << " input, and a result of that rank";
  if (in.getElementType() != out.getElementType())
    return emitOpError("must keep the element type");
  for (int64_t d = 0; d < rank; ++d) {
    int64_t off = getOffsets()[d], st = getStrides()[d], n = out.getDimSize(d);
    if (off < 0 || st < 1)
      return emitOpError("offsets must be >= 0 and strides >= 1");
    if (n > 0 && off + (n - 1) * st >= in.getDimSize(d))
      return emitOpError("dim ")
             << d << " window ends at " << off + (n - 1) * st
             << ", past the size " << in.getDimSize(d);
  }
  return verifyOperandsAndResultsSticks(*this);
}

namespace {
/// Checks that a concat input matches the result except along `dim`.
LogicalResult verifyConcatInput(ConcatOp op, RankedTensorType t,
                                RankedTensorType out, int64_t dim) {
  if (t.getRank() != out.getRank() ||
      t.getElementType() != out.getElementType())
    return op.emitOpError("inputs must have the result's rank and element "
                          "type");
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (d != dim && t.getDimSize(d) != out.getDimSize(d))
      return op.emitOpError("inputs differ from the result in dim ") << d;
  return success();
}
} // namespace

LogicalResult ConcatOp::verify() {
  auto out = cast<RankedTensorType>(getResult().getType());
  int64_t dim = getDim();
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  if (dim < 0 || dim >= out.getRank())
    return emitOpError("dim ")
           << dim << " is out of range for rank " << out.getRank();
  int64_t total = 0;
  for (Value v : getInputs()) {
    auto t = cast<RankedTensorType>(v.getType());
    if (failed(verifyConcatInput(*this, t, out, dim)))
      return failure();
    total += t.getDimSize(dim);
  }
  if (total != out.getDimSize(dim))
    return emitOpError("inputs add up to ")
           << total << " along dim " << dim << ", the result has "
           << out.getDimSize(dim);
  return verifyOperandsAndResultsSticks(*this);
}

LogicalResult GatherOp::verify() {
  auto table = cast<RankedTensorType>(getTable().getType());
  auto idx = cast<RankedTensorType>(getIndices().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (table.getRank() != 2)
    return emitOpError("table must have rank 2, got ") << table.getRank();
  if (!idx.getElementType().isInteger(32) &&
      !idx.getElementType().isInteger(64))
    return emitOpError("indices must be i32 or i64, got ")
           << idx.getElementType();
  SmallVector<int64_t> expected(idx.getShape());
  expected.push_back(table.getDimSize(1));
  if (ArrayRef<int64_t>(expected) != out.getShape() ||
      out.getElementType() != table.getElementType())
    return emitOpError("result must be the indices' shape plus the table "
                       "row, got ")
           << out;
  return verifyOperandsAndResultsSticks(*this);
}

namespace {
/// Checks that the source is dest's shape with the indices' length along
/// `dim`.
LogicalResult verifyScatterSourceShape(ScatterOp op, RankedTensorType dest,
                                       RankedTensorType src,
                                       RankedTensorType idx, int64_t dim) {
  for (int64_t d = 0; d < dest.getRank(); ++d)
    if (d == dim ? src.getDimSize(d) != idx.getDimSize(0)
                 : src.getDimSize(d) != dest.getDimSize(d))
      return op.emitOpError("source shape does not match dest and indices in "
                            "dim ")
             << d;
  return success();
}
} // namespace

LogicalResult ScatterOp::verify() {
  auto dest = cast<RankedTensorType>(getDest().getType());
  auto src = cast<RankedTensorType>(getSource().getType());
  auto idx = cast<RankedTensorType>(getIndices().getType());
  int64_t dim = getDim();
  if (getResult().getType() != getDest().getType())
    return emitOpError("result must have the type of dest");
  if (dim < 0 || dim >= dest.getRank() - 1)
    return emitOpError("dim ") << dim << " must be an outer dim of dest";
  if (idx.getRank() != 1 || (!idx.getElementType().isInteger(32) &&
                             !idx.getElementType().isInteger(64)))
    return emitOpError("indices must be a 1-D i32 or i64 tensor");
  if (src.getRank() != dest.getRank() ||
      src.getElementType() != dest.getElementType())
    return emitOpError("source must have dest's rank and element type");
  if (failed(verifyScatterSourceShape(*this, dest, src, idx, dim)))
    return failure();
  return verifyOperandsAndResultsSticks(*this);
}

LogicalResult RestickifyOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (in.getElementType() != out.getElementType())
    return emitOpError("must keep the element type");
  if (!getLayout(out))
    return emitOpError("result must have a #spyre.layout encoding");
  return verifyOperandsAndResultsSticks(*this);
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state,
                     TypeRange resultTypes, StringRef name, ValueRange inputs) {
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  state.addAttribute(getNameAttrName(state.name), builder.getStringAttr(name));
  state.addAttribute(getSpaceAttrName(state.name),
                     builder.getDenseI64ArrayAttr({}));
  state.addAttribute(getIteratorsAttrName(state.name),
                     builder.getStrArrayAttr({}));
  state.addAttribute(getIndexingMapsAttrName(state.name),
                     builder.getAffineMapArrayAttr({}));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value v : inputs)
    block->addArgument(v.getType(), v.getLoc());
}

RegionKind KernelOp::getRegionKind(unsigned) { return RegionKind::SSACFG; }

YieldOp KernelOp::getYield() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

/// Entry `i` of optional data paths; dma when absent or unreadable.
static DataPath dataPathAt(std::optional<ArrayAttr> paths, unsigned i) {
  if (!paths || i >= paths->size())
    return DataPath::dma;
  auto name = dyn_cast<StringAttr>((*paths)[i]);
  return name ? symbolizeDataPath(name.getValue()).value_or(DataPath::dma)
              : DataPath::dma;
}

DataPath KernelOp::getSourcePath(unsigned i) {
  return dataPathAt(getSources(), i);
}

DataPath KernelOp::getDestinationPath(unsigned j) {
  return dataPathAt(getDestinations(), j);
}

SmallVector<IteratorKind> KernelOp::getIteratorKinds() {
  SmallVector<IteratorKind> kinds;
  for (auto s : getIterators().getAsRange<StringAttr>())
    kinds.push_back(s.getValue() == "reduction" ? IteratorKind::reduction
                                                : IteratorKind::parallel);
  return kinds;
}

SmallVector<AffineMap> KernelOp::getIndexingMapList() {
  return llvm::to_vector(
      getIndexingMapsAttr().getAsValueRange<AffineMapAttr>());
}

namespace {

/// Checks that the body takes one argument of each input's type.
LogicalResult verifyKernelBodyArguments(KernelOp op) {
  Block &block = op.getBodyBlock();
  if (block.getNumArguments() != op.getInputs().size())
    return op.emitOpError("body has ")
           << block.getNumArguments() << " arguments for "
           << op.getInputs().size() << " inputs";
  for (auto [arg, input] : llvm::zip(block.getArguments(), op.getInputs()))
    if (arg.getType() != input.getType())
      return op.emitOpError("body argument type ")
             << arg.getType() << " differs from input type " << input.getType();
  return success();
}

/// Checks one valid iterator per loop and positive loop sizes.
LogicalResult verifyKernelLoops(KernelOp op) {
  size_t loops = op.getSpace().size();
  if (op.getIterators().size() != loops)
    return op.emitOpError("has ") << op.getIterators().size()
                                  << " iterators for " << loops << " loops";
  for (auto s : op.getIterators().getAsRange<StringAttr>())
    if (s.getValue() != "parallel" && s.getValue() != "reduction")
      return op.emitOpError(
                 "iterator must be \"parallel\" or \"reduction\", got ")
             << s;
  for (int64_t size : op.getSpace())
    if (size <= 0)
      return op.emitOpError("loop sizes must be positive");
  return success();
}

/// Checks one indexing map per input and result, over the loops and of the
/// tensor's rank.
LogicalResult verifyKernelIndexingMaps(KernelOp op) {
  size_t loops = op.getSpace().size();
  size_t tensors = op.getInputs().size() + op.getNumResults();
  if (op.getIndexingMaps().size() != tensors)
    return op.emitOpError("has ")
           << op.getIndexingMaps().size() << " indexing maps for " << tensors
           << " inputs and results";
  SmallVector<Type> types(op.getInputs().getTypes());
  llvm::append_range(types, op.getResultTypes());
  for (auto [map, type] : llvm::zip(
           op.getIndexingMaps().getAsValueRange<AffineMapAttr>(), types)) {
    if (map.getNumDims() != loops)
      return op.emitOpError("indexing map ")
             << AffineMapAttr::get(map) << " must have " << loops << " dims";
    if (int64_t(map.getNumResults()) != cast<RankedTensorType>(type).getRank())
      return op.emitOpError("indexing map ")
             << AffineMapAttr::get(map) << " does not match the rank of "
             << type;
  }
  return success();
}

/// Checks a positive split and a tile within the loop size for each loop.
LogicalResult verifyScheduleSplitsAndTiles(KernelOp op, ScheduleAttr schedule) {
  size_t loops = op.getSpace().size();
  if (schedule.getSplit().size() != loops || schedule.getTile().size() != loops)
    return op.emitOpError("schedule must give a split and a tile per loop");
  for (auto [split, tile, size] :
       llvm::zip(schedule.getSplit(), schedule.getTile(), op.getSpace())) {
    if (split < 1 || tile < 1)
      return op.emitOpError("schedule splits and tiles must be positive");
    if (tile > size)
      return op.emitOpError("tile ")
             << tile << " exceeds its loop size " << size;
  }
  return success();
}

/// Checks that a schedule's `hold` or `keep` list names each of the
/// kernel's `count` inputs or results at most once.
LogicalResult verifyScheduleIndices(KernelOp op, ArrayRef<int64_t> list,
                                    int64_t count, StringRef verb,
                                    StringRef values) {
  for (auto [i, index] : llvm::enumerate(list)) {
    if (index < 0 || index >= count)
      return op.emitOpError("schedule ")
             << verb << " " << index << ", but the kernel has " << count << " "
             << values;
    if (llvm::is_contained(list.take_front(i), index))
      return op.emitOpError("schedule ") << verb << " " << index << " twice";
  }
  return success();
}

/// Checks the optional schedule: its shape, the cores its splits use and
/// the pipeline depth, the inputs it holds and the results it keeps.
LogicalResult verifyKernelSchedule(KernelOp op, const Arch &arch) {
  ScheduleAttr schedule = op.getScheduleAttr();
  if (!schedule)
    return success();
  if (failed(verifyScheduleSplitsAndTiles(op, schedule)))
    return failure();
  // Every split is positive here; their product may still overflow.
  std::optional<int64_t> cores = 1;
  for (int64_t split : schedule.getSplit())
    if (cores)
      cores = llvm::checkedMul(*cores, split);
  if (!cores)
    return op.emitOpError("schedule split [")
           << schedule.getSplit() << "] uses more cores than the machine's "
           << arch.cores;
  if (*cores > arch.cores)
    return op.emitOpError("schedule uses ")
           << *cores << " cores; the machine has " << arch.cores;
  if (schedule.getDepth() < 1)
    return op.emitOpError("pipeline depth must be at least 1");
  if (failed(verifyScheduleIndices(op, schedule.getHold(),
                                   op.getInputs().size(), "holds input",
                                   "inputs")))
    return failure();
  return verifyScheduleIndices(op, schedule.getKeep(), op.getNumResults(),
                               "keeps result", "results");
}

/// The LX bytes a buffer occupies and the steps it is live in.
struct LiveBufferRange {
  int64_t begin, end, first, last;
};

/// Checks a buffer's offset, size, copies and live range are well formed.
LogicalResult verifyBufferFields(KernelOp op, BufferAttr b) {
  if (b.getOffset() < 0 || b.getBytes() <= 0 || b.getCopies() < 1)
    return op.emitOpError("buffer '") << b.getName() << "' is malformed";
  if (!b.getLive().empty() &&
      (b.getLive().size() != 2 || b.getLive()[0] > b.getLive()[1]))
    return op.emitOpError("buffer '")
           << b.getName() << "' live range must be [first, last]";
  return success();
}

/// Checks that a buffer is well formed, aligned and inside LX, and returns
/// the bytes and steps it occupies.
FailureOr<LiveBufferRange> verifyKernelBuffer(KernelOp op, BufferAttr b,
                                              const Arch &arch) {
  int64_t lx = arch.lxBytes;
  if (failed(verifyBufferFields(op, b)))
    return failure();
  if (b.getOffset() % arch.lxAlignment != 0 ||
      b.getBytes() % arch.lxAlignment != 0)
    return op.emitOpError("buffer '") << b.getName() << "' must be aligned to "
                                      << arch.lxAlignment << " bytes";
  std::optional<int64_t> size = llvm::checkedMul(b.getBytes(), b.getCopies());
  std::optional<int64_t> checkedEnd =
      size ? llvm::checkedAdd(b.getOffset(), *size) : std::nullopt;
  if (!checkedEnd)
    return op.emitOpError("buffer '")
           << b.getName() << "' (" << b.getCopies() << " copies of "
           << b.getBytes() << " bytes at byte " << b.getOffset()
           << ") does not fit in the " << lx << "-byte scratchpad";
  int64_t end = *checkedEnd;
  if (end > lx)
    return op.emitOpError("buffer '")
           << b.getName() << "' ends at byte " << end << ", past the " << lx
           << "-byte scratchpad";
  int64_t first = b.getLive().empty() ? 0 : b.getLive()[0];
  int64_t last = b.getLive().empty() ? INT64_MAX : b.getLive()[1];
  return LiveBufferRange{b.getOffset(), end, first, last};
}

/// Checks that buffers alive at the same time do not share bytes.
LogicalResult verifyBuffersDisjoint(KernelOp op,
                                    ArrayRef<LiveBufferRange> ranges) {
  for (size_t i = 0; i < ranges.size(); ++i)
    for (size_t j = i + 1; j < ranges.size(); ++j) {
      const LiveBufferRange &a = ranges[i], &c = ranges[j];
      if (a.begin < c.end && c.begin < a.end && a.first <= c.last &&
          c.first <= a.last)
        return op.emitOpError("LX buffers ")
               << i << " and " << j << " overlap at byte "
               << std::max(a.begin, c.begin) << " while both are live";
    }
  return success();
}

/// Checks each of the optional LX buffers, then that live ones are disjoint.
LogicalResult verifyKernelBuffers(KernelOp op, const Arch &arch) {
  std::optional<ArrayAttr> buffers = op.getBuffers();
  if (!buffers)
    return success();
  SmallVector<LiveBufferRange> ranges;
  for (auto b : buffers->getAsRange<BufferAttr>()) {
    FailureOr<LiveBufferRange> range = verifyKernelBuffer(op, b, arch);
    if (failed(range))
      return failure();
    ranges.push_back(*range);
  }
  return verifyBuffersDisjoint(op, ranges);
}

/// Checks that optional data paths give one of dma, ring, lx, lx_dma per
/// value.
LogicalResult verifyDataPaths(KernelOp op, std::optional<ArrayAttr> paths,
                              size_t n, StringRef what) {
  if (!paths)
    return success();
  if (paths->size() != n)
    return op.emitOpError(what)
           << " has " << paths->size() << " entries for " << n << " values";
  for (auto p : paths->getAsRange<StringAttr>())
    if (!symbolizeDataPath(p.getValue()))
      return op.emitOpError(what)
             << " entry " << p << " is not one of dma, ring, lx, lx_dma";
  return success();
}

/// Checks that the ends of every LX handoff agree: an input read from LX
/// is a result its producer keeps there, and every use of a result kept
/// in LX only (`lx`, not stored) is an input read from LX.
LogicalResult verifyLxHandoffs(KernelOp op) {
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    DataPath path = op.getSourcePath(i);
    if (path == DataPath::lx_dma)
      return op.emitOpError("input ")
             << i << " has source lx_dma, which only a result can have (kept "
             << "in LX and stored)";
    if (path == DataPath::dma)
      continue;
    auto producer = input.getDefiningOp<KernelOp>();
    if (!producer || !isKeptInLx(producer.getDestinationPath(
                         cast<OpResult>(input).getResultNumber())))
      return op.emitOpError("input ")
             << i << " is read from "
             << (path == DataPath::ring ? "other cores' LX over the ring"
                                        : "LX")
             << ", but it is not a kernel result kept in LX";
  }
  for (auto [j, result] : llvm::enumerate(op.getResults())) {
    if (op.getDestinationPath(j) == DataPath::ring)
      return op.emitOpError("result ")
             << j << " goes over the ring; a result stays in its producer's "
             << "LX (`lx`) and a reader gathers it (`ring`)";
    if (op.getDestinationPath(j) != DataPath::lx)
      continue;
    for (OpOperand &use : result.getUses()) {
      auto consumer = dyn_cast<KernelOp>(use.getOwner());
      if (!consumer ||
          consumer.getSourcePath(use.getOperandNumber()) == DataPath::dma)
        return op.emitOpError("result ")
               << j << " is kept in LX, but one of its uses is not a kernel "
               << "input read from LX (`lx_dma` also stores it for such uses)";
    }
  }
  return success();
}

/// Checks the sources, destinations and result offsets of the kernel's
/// values.
LogicalResult verifyKernelDataPlacement(KernelOp op) {
  if (failed(verifyDataPaths(op, op.getSources(), op.getInputs().size(),
                             "sources")) ||
      failed(verifyDataPaths(op, op.getDestinations(), op.getNumResults(),
                             "destinations")) ||
      failed(verifyLxHandoffs(op)))
    return failure();
  if (auto offsets = op.getResultOffsets())
    if (offsets->size() != op.getNumResults())
      return op.emitOpError("result_offsets has ")
             << offsets->size() << " entries for " << op.getNumResults()
             << " results";
  return success();
}

} // namespace

LogicalResult KernelOp::verify() {
  if (failed(verifyKernelBodyArguments(*this)) ||
      failed(verifyKernelLoops(*this)) ||
      failed(verifyKernelIndexingMaps(*this)))
    return failure();
  Arch arch = getArch(*this);
  if (failed(verifyKernelSchedule(*this, arch)) ||
      failed(verifyKernelBuffers(*this, arch)))
    return failure();
  return verifyKernelDataPlacement(*this);
}

LogicalResult KernelOp::verifyRegions() {
  YieldOp yield = getYield();
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yields ") << yield.getValues().getTypes()
                                  << " but returns " << getResultTypes();
  return success();
}

//===----------------------------------------------------------------------===//
// Program level
//===----------------------------------------------------------------------===//

int64_t TensorOp::getDeviceBytes() {
  RankedTensorType type = getTensorType();
  int64_t elems = type.getNumElements();
  if (LayoutAttr layout = spyre::getLayout(type))
    elems = layout.getDeviceElements(type.getShape());
  return elems * getElementBytes(type.getElementType());
}

namespace {

/// Checks that inputs and outputs, and only they, have an io_index.
LogicalResult verifyIoIndexForRole(TensorOp op) {
  TensorRole role = op.getRole();
  bool io = role == TensorRole::input || role == TensorRole::output;
  if (io != bool(op.getIoIndex()))
    return op.emitOpError(io ? "inputs and outputs need an io_index"
                             : "only inputs and outputs have an io_index");
  return success();
}

/// Checks that weights and constants, and only they, carry exactly one of
/// a value or external data.
LogicalResult verifyDataForRole(TensorOp op) {
  TensorRole role = op.getRole();
  bool data = role == TensorRole::weight || role == TensorRole::constant;
  if (data && bool(op.getValue()) == bool(op.getExternal()))
    return op.emitOpError("weights and constants need exactly one of value or "
                          "external data");
  if (!data && (op.getValue() || op.getExternal()))
    return op.emitOpError("only weights and constants carry data");
  return success();
}

/// Checks the attributes that only some tensor roles may have.
LogicalResult verifyRoleAttributes(TensorOp op) {
  if (failed(verifyIoIndexForRole(op)) || failed(verifyDataForRole(op)))
    return failure();
  TensorRole role = op.getRole();
  if ((role == TensorRole::workspace) != bool(op.getWorkspaceOffset()))
    return op.emitOpError("workspace tensors (and only they) need a "
                          "workspace_offset");
  if (op.getAliasesInput() && role != TensorRole::output)
    return op.emitOpError("only outputs may alias an input");
  return success();
}

/// Checks that an output updating a buffer updates a weight of its type.
LogicalResult verifyTensorUpdates(TensorOp op) {
  auto updates = op.getUpdatesAttr();
  if (!updates)
    return success();
  if (op.getRole() != TensorRole::output)
    return op.emitOpError("only outputs may update a buffer");
  if (op.getAliasesInput())
    return op.emitOpError("an output updates an input or a buffer, not both");
  auto target = SymbolTable::lookupNearestSymbolFrom<TensorOp>(op, updates);
  if (!target || target.getRole() != TensorRole::weight)
    return op.emitOpError("updates ") << updates << ", which is not a weight";
  if (target.getType() != op.getType())
    return op.emitOpError("updates ")
           << updates << " of type " << target.getType() << ", not "
           << op.getType();
  return success();
}

} // namespace

LogicalResult TensorOp::verify() {
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!type || !type.hasStaticShape())
    return emitOpError("type must be a statically shaped tensor");
  if (!spyre::getLayout(type))
    return emitOpError("type must have a #spyre.layout encoding");
  if (failed(verifyRoleAttributes(*this)) || failed(verifyTensorUpdates(*this)))
    return failure();
  return verifyStickSizes(*this, type);
}

RegionKind ProgramOp::getRegionKind(unsigned) { return RegionKind::SSACFG; }

LogicalResult ProgramOp::verify() {
  Arch arch = getArch(*this);
  if (getNumCores() < 1 || getNumCores() > arch.cores)
    return emitOpError("num_cores must be in 1..")
           << arch.cores << ", got " << getNumCores();
  if (getNumParams() < 0 || getNumParams() >= 255)
    return emitOpError("num_params must be in 0..254");
  if (int64_t(getParams().size()) != getNumCores() * getNumParams())
    return emitOpError("params has ")
           << getParams().size() << " values; num_cores * num_params is "
           << getNumCores() * getNumParams();
  return success();
}

//===----------------------------------------------------------------------===//
// ReferenceOp
//===----------------------------------------------------------------------===//

void ReferenceOp::build(OpBuilder &builder, OperationState &state,
                        FlatSymbolRefAttr program, ArrayRef<Attribute> inputs,
                        ArrayRef<Attribute> results) {
  state.addAttribute(getProgramAttrName(state.name), program);
  state.addAttribute(getInputsAttrName(state.name),
                     builder.getArrayAttr(inputs));
  state.addAttribute(getResultsAttrName(state.name),
                     builder.getArrayAttr(results));
  state.addRegion()->push_back(new Block());
}

LogicalResult ReferenceOp::verify() {
  if (!SymbolTable::lookupNearestSymbolFrom<ProgramOp>(*this, getProgramAttr()))
    return emitOpError("refers to unknown program ") << getProgramAttr();
  Block &body = getBodyBlock();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments for " << getInputs().size()
           << " inputs";
  size_t yielded = body.getTerminator()->getNumOperands();
  if (yielded != getResults().size())
    return emitOpError("body yields ")
           << yielded << " values for " << getResults().size() << " results";
  auto names = llvm::concat<const Attribute>(getInputs().getValue(),
                                             getResults().getValue());
  auto types = llvm::concat<const Type>(
      body.getArgumentTypes(), body.getTerminator()->getOperandTypes());
  for (auto [name, type] : llvm::zip(names, types)) {
    auto ref = cast<FlatSymbolRefAttr>(name);
    auto tensor = SymbolTable::lookupNearestSymbolFrom<TensorOp>(*this, ref);
    if (!tensor)
      return emitOpError("refers to unknown tensor ") << ref;
    auto view = dyn_cast<RankedTensorType>(type);
    if (!view || !view.hasStaticShape() ||
        view.getNumElements() != tensor.getTensorType().getNumElements() ||
        view.getElementType() != tensor.getTensorType().getElementType())
      return emitOpError("value of type ")
             << type << " is not a view of tensor " << ref << " ("
             << tensor.getType() << ")";
  }
  return success();
}

LogicalResult PlanOp::verify() {
  for (auto ref : getPrograms().getAsRange<FlatSymbolRefAttr>())
    if (!SymbolTable::lookupNearestSymbolFrom<ProgramOp>(*this, ref))
      return emitOpError("refers to unknown program ") << ref;
  return success();
}

RegionKind LoopOp::getRegionKind(unsigned) { return RegionKind::SSACFG; }

unsigned LoopOp::getLevel() {
  unsigned level = 0;
  for (Operation *p = (*this)->getParentOp(); isa_and_nonnull<LoopOp>(p);
       p = p->getParentOp())
    ++level;
  return level;
}

namespace {

/// The program an instruction belongs to.
ProgramOp getProgram(Operation *op) { return op->getParentOfType<ProgramOp>(); }

/// Loop depth around an instruction.
int64_t loopDepth(Operation *op) {
  int64_t depth = 0;
  for (Operation *p = op->getParentOp(); isa_and_nonnull<LoopOp>(p);
       p = p->getParentOp())
    ++depth;
  return depth;
}

LogicalResult verifyParamSlot(Operation *op, int64_t slot, StringRef what) {
  if (slot < 0)
    return success();
  ProgramOp program = getProgram(op);
  if (program && slot >= program.getNumParams())
    return op->emitOpError(what)
           << " parameter slot " << slot
           << " is out of range (num_params = " << program.getNumParams()
           << ")";
  return success();
}

LogicalResult verifyLx(Operation *op, LxAddressAttr lx, StringRef what) {
  Arch arch = getArch(op);
  if (lx.getOffset() < 0 || lx.getOffset() >= arch.lxBytes)
    return op->emitOpError(what)
           << " LX offset " << lx.getOffset() << " is outside the "
           << arch.lxBytes << "-byte scratchpad";
  if (int64_t(lx.getStrides().size()) > loopDepth(op))
    return op->emitOpError(what)
           << " has " << lx.getStrides().size() << " loop strides inside "
           << loopDepth(op) << " loops";
  if (lx.getWrap() < 0)
    return op->emitOpError(what) << " wrap must not be negative";
  return success();
}

LogicalResult verifyClamp(Operation *op, std::optional<ClampAttr> clamp,
                          int64_t maxArg) {
  if (!clamp)
    return success();
  // Level -1: no loop, iteration 0.
  if (clamp->getLevel() < -1 || clamp->getLevel() >= 3)
    return op->emitOpError("clamp level ")
           << clamp->getLevel()
           << " is not a hardware loop level (0..2) or -1 (none)";
  if (clamp->getArg() < 0 || clamp->getArg() > maxArg)
    return op->emitOpError("clamp argument ")
           << clamp->getArg() << " cannot be clamped";
  if (clamp->getStep() <= 0 || clamp->getTotal() < 0)
    return op->emitOpError("clamp step must be positive and total "
                           "non-negative");
  return verifyParamSlot(op, clamp->getParam(), "clamp");
}

/// Checks the shape of a DMA's box: three counts and pitches, positive
/// counts and run.
template <typename DmaOp> LogicalResult verifyDmaBox(DmaOp op) {
  if (op.getBox().size() != 3 || op.getPitch().size() != 3)
    return op.emitOpError("box and pitch must have 3 entries");
  for (int64_t b : op.getBox())
    if (b < 1)
      return op.emitOpError("box counts must be positive");
  if (op.getRun() < 1)
    return op.emitOpError("run must be positive");
  return success();
}

/// Checks that `tensor` names a tensor in device memory (not one kept on
/// chip, which has none).
LogicalResult verifyDeviceTensor(Operation *op, FlatSymbolRefAttr tensor) {
  auto t = SymbolTable::lookupNearestSymbolFrom<TensorOp>(op, tensor);
  if (!t)
    return op->emitOpError("refers to unknown tensor ") << tensor;
  if (t.getRole() == TensorRole::on_chip)
    return op->emitOpError("moves tensor ")
           << tensor << ", which is kept on chip and has no device memory";
  return success();
}

/// Checks the memory address: a device tensor, strides for at most the
/// enclosing loops and an existing parameter slot.
template <typename DmaOp> LogicalResult verifyDmaMemAddress(DmaOp op) {
  MemAddressAttr mem = op.getMem();
  if (failed(verifyDeviceTensor(op, mem.getTensor())))
    return failure();
  if (int64_t(mem.getStrides().size()) > loopDepth(op))
    return op.emitOpError("memory address has more loop strides than "
                          "enclosing loops");
  return verifyParamSlot(op, mem.getParam(), "memory");
}

/// Bytes of a DMA's box packed in LX, or std::nullopt on overflow.
template <typename DmaOp> std::optional<int64_t> packedBoxBytes(DmaOp op) {
  // Box counts and run are positive here; their product may overflow.
  std::optional<int64_t> bytes = op.getRun();
  for (int64_t b : op.getBox())
    if (bytes)
      bytes = llvm::checkedMul(*bytes, b);
  return bytes;
}

/// The most times `loop` runs on any core: its count or its largest
/// parameter, plus count_step times the largest iteration of the loop at
/// count_level (a triangular nest); nullopt past int64.
std::optional<int64_t> maxTrips(LoopOp loop, ArrayRef<LoopOp> enclosing) {
  std::optional<int64_t> trips = loop.getCount();
  ProgramOp program = getProgram(loop);
  if (auto slot = loop.getCountParam(); slot && program) {
    int64_t n = program.getNumParams();
    ArrayRef<int64_t> params = program.getParams();
    for (size_t at = size_t(*slot); n > 0 && at < params.size(); at += n)
      trips = std::max(*trips, params[at]);
  }
  auto level = loop.getCountLevel();
  auto step = loop.getCountStep();
  if (level && step && *level >= 0 && size_t(*level) < enclosing.size()) {
    std::optional<int64_t> outer =
        maxTrips(enclosing[*level], enclosing.take_front(*level));
    std::optional<int64_t> more =
        outer ? llvm::checkedMul(*step, std::max<int64_t>(*outer - 1, 0))
              : std::nullopt;
    trips = more ? llvm::checkedAdd(*trips, *more) : std::nullopt;
  }
  return trips;
}

/// The last LX offset `lx` names over every iteration of the loops around
/// `op`: its offset plus each stride times its loop's last iteration, or,
/// rotating, below offset + wrap; nullopt past int64.
std::optional<int64_t> lastLxOffset(Operation *op, LxAddressAttr lx) {
  SmallVector<LoopOp> loops;
  for (Operation *p = op->getParentOp();
       auto loop = dyn_cast_or_null<LoopOp>(p); p = p->getParentOp())
    loops.insert(loops.begin(), loop);
  ArrayRef<int64_t> strides = lx.getStrides();
  if (lx.getWrap() > 0) {
    int64_t step = lx.getWrap();
    for (int64_t s : strides)
      if (s != 0)
        step = std::gcd(step, s);
    return llvm::checkedAdd(lx.getOffset(), lx.getWrap() - step);
  }
  std::optional<int64_t> last = lx.getOffset();
  for (auto [l, stride] : llvm::enumerate(strides)) {
    if (l >= loops.size() || stride <= 0 || !last)
      continue;
    std::optional<int64_t> trips =
        maxTrips(loops[l], ArrayRef(loops).take_front(l));
    std::optional<int64_t> span =
        trips ? llvm::checkedMul(stride, std::max<int64_t>(*trips - 1, 0))
              : std::nullopt;
    last = span ? llvm::checkedAdd(*last, *span) : std::nullopt;
  }
  return last;
}

/// Checks that the LX bytes the box spans, packed or rows lx_pitch bytes
/// apart, lie inside the scratchpad in every iteration.
template <typename DmaOp>
LogicalResult verifyDmaLxRange(DmaOp op, const Arch &arch) {
  std::optional<int64_t> bytes = packedBoxBytes(op);
  if (auto pitch = op.getLxPitch()) {
    // Rows lx_pitch bytes apart instead of packed.
    std::optional<int64_t> row =
        llvm::checkedMul(op.getRun(), op.getBox()[1] * op.getBox()[2]);
    if (!row || *pitch < *row)
      return op.emitOpError("lx_pitch ")
             << *pitch << " is smaller than a row of the box";
    std::optional<int64_t> rows = llvm::checkedMul(*pitch, op.getBox()[0] - 1);
    bytes = rows ? llvm::checkedAdd(*rows, *row) : std::nullopt;
  }
  std::optional<int64_t> offset = lastLxOffset(op, op.getLx());
  std::optional<int64_t> end =
      bytes && offset ? llvm::checkedAdd(*offset, *bytes) : std::nullopt;
  if (!end)
    return op.emitOpError("box [") << op.getBox() << "] of " << op.getRun()
                                   << "-byte runs does not fit in the "
                                   << arch.lxBytes << "-byte scratchpad";
  if (*end > arch.lxBytes)
    return op.emitOpError("LX range [")
           << *offset << ", " << *end << ") is outside the " << arch.lxBytes
           << "-byte scratchpad"
           << (*offset != op.getLx().getOffset() ? " in its last iteration"
                                                 : "");
  return success();
}

/// Verifies a DMA box copy between memory and LX.
template <typename DmaOp> LogicalResult verifyDma(DmaOp op) {
  if (failed(verifyDmaBox(op)) || failed(verifyDmaMemAddress(op)))
    return failure();
  Arch arch = getArch(op);
  if (failed(verifyDmaLxRange(op, arch)) ||
      failed(verifyLx(op, op.getLx(), "lx")))
    return failure();
  // Any of the box counts and the run may be clamped (docs/isa.md): the
  // index loads of a gather clamp their run of bytes.
  return verifyClamp(op, op.getClamp(), 3);
}

/// Checks that an optional init_level names an enclosing loop.
LogicalResult verifyInitLevel(Operation *op, std::optional<int64_t> level) {
  if (level && (*level < 0 || *level >= loopDepth(op)))
    return op->emitOpError("init_level ")
           << *level << " is not an enclosing loop";
  return success();
}

/// Checks that count_level and count_step, when given, name an enclosing
/// loop and a non-zero 32-bit step.
LogicalResult verifyLoopCountStep(LoopOp op) {
  std::optional<int64_t> level = op.getCountLevel();
  if (!level)
    return success();
  if (*level < 0 || *level >= int64_t(op.getLevel()))
    return op.emitOpError("count_level ")
           << *level << " is not an enclosing loop";
  if (*op.getCountStep() == 0 || *op.getCountStep() < INT32_MIN ||
      *op.getCountStep() > INT32_MAX)
    return op.emitOpError("count_step must be a non-zero 32-bit integer");
  return success();
}

} // namespace

LogicalResult LoopOp::verify() {
  if (getCount() < 0)
    return emitOpError("count must not be negative");
  if (getLevel() >= 3)
    return emitOpError("hardware loops nest at most 3 deep");
  if (bool(getCountStep()) != bool(getCountLevel()))
    return emitOpError("count_step and count_level go together");
  if (failed(verifyLoopCountStep(*this)))
    return failure();
  if (auto p = getCountParam()) {
    // Unlike the -1 of address and clamp parameters, absence means none.
    if (*p < 0)
      return emitOpError("count_param must not be negative, got ") << *p;
    return verifyParamSlot(*this, *p, "count");
  }
  return success();
}

namespace {
template <typename RowsOp> LogicalResult verifyDmaRows(RowsOp op) {
  if (!op.getIndexType().isInteger(32) && !op.getIndexType().isInteger(64))
    return op.emitOpError("indices must be i32 or i64, got ")
           << op.getIndexType();
  if (op.getRows() < 1 || op.getTableRows() < 1 || op.getRun() < 1)
    return op.emitOpError("rows, table_rows and run must be positive");
  if (failed(verifyDeviceTensor(op, op.getMem().getTensor())) ||
      failed(verifyParamSlot(op, op.getMem().getParam(), "memory")) ||
      failed(verifyLx(op, op.getLx(), "lx")) ||
      failed(verifyLx(op, op.getIndices(), "indices")))
    return failure();
  return verifyClamp(op, op.getClamp(), 0);
}
} // namespace

LogicalResult DmaGatherOp::verify() { return verifyDmaRows(*this); }
LogicalResult DmaScatterOp::verify() { return verifyDmaRows(*this); }

namespace {
/// A ring transfer's peer, tag, byte count, flags and peer parameter.
template <typename RingOp> LogicalResult verifyRingFields(RingOp op) {
  if (op.getPeer() < 0 || op.getTag() < 0)
    return op.emitOpError("peer and tag must not be negative");
  if (op.getBytes() < 1)
    return op.emitOpError("bytes must be positive");
  if (op.getAccumulate() && (std::is_same_v<RingOp, RingSendOp> ||
                             !op.getPartialSum() || op.getBytes() % 4 != 0))
    return op.emitOpError("accumulate adds f32 partial sums: only a "
                          "partial_sum ring_recv of whole f32 values has it");
  std::optional<int64_t> p = op.getPeerParam();
  if (!p)
    return success(); // as count_param: absence means none
  if (*p < 0)
    return op.emitOpError("peer_param must not be negative, got ") << *p;
  return verifyParamSlot(op, *p, "peer");
}

/// Checks a ring transfer: its fields, and its bytes inside the
/// scratchpad in every iteration.
template <typename RingOp> LogicalResult verifyRing(RingOp op) {
  if (failed(verifyRingFields(op)) || failed(verifyLx(op, op.getLx(), "lx")))
    return failure();
  Arch arch = getArch(op);
  // Every iteration's bytes, not only the first's.
  std::optional<int64_t> last = lastLxOffset(op, op.getLx());
  std::optional<int64_t> end =
      last ? llvm::checkedAdd(*last, op.getBytes()) : std::nullopt;
  if (!end)
    return op.emitOpError("LX range of its loops' iterations does not fit "
                          "in 64 bits");
  if (*end > arch.lxBytes)
    return op.emitOpError("LX range [")
           << *last << ", " << *end << ") is outside the " << arch.lxBytes
           << "-byte scratchpad"
           << (*last != op.getLx().getOffset() ? " in its last iteration" : "");
  return success();
}
} // namespace

LogicalResult RingSendOp::verify() { return verifyRing(*this); }
LogicalResult RingRecvOp::verify() { return verifyRing(*this); }

LogicalResult DmaLoadOp::verify() { return verifyDma(*this); }
LogicalResult DmaStoreOp::verify() { return verifyDma(*this); }

namespace {
/// Checks the pitch, the matmul sizes and the accumulator type.
LogicalResult verifyPtMatmulShape(PtMatmulOp op) {
  if (op.getPitch().size() != 3)
    return op.emitOpError("pitch must have 3 entries");
  if (op.getM() < 1 || op.getK() < 1 || op.getN() < 1)
    return op.emitOpError("m, k and n must be positive");
  if (!op.getDstType().isF32())
    return op.emitOpError("the accumulator must be f32");
  return success();
}
} // namespace

LogicalResult PtMatmulOp::verify() {
  if (failed(verifyPtMatmulShape(*this)))
    return failure();
  if (failed(verifyLx(*this, getDst(), "dst")) ||
      failed(verifyLx(*this, getLhs(), "lhs")) ||
      failed(verifyLx(*this, getRhs(), "rhs")))
    return failure();
  if (failed(verifyInitLevel(*this, getInitLevel())))
    return failure();
  if (auto clamp = getClamp(); clamp && clamp->getArg() != 1)
    return emitOpError("only k (argument 1) can be clamped, not argument ")
           << clamp->getArg();
  return verifyClamp(*this, getClamp(), 1);
}

namespace {
/// Checks the function, the pitch, the tile size and the presence of src1.
template <typename SfpOp>
LogicalResult verifySfpShape(SfpOp op, bool needsSrc1,
                             function_ref<bool(StringRef)> validFn) {
  if (!validFn(op.getFn()))
    return op.emitOpError("unknown function '") << op.getFn() << "'";
  if (op.getPitch().size() != 3)
    return op.emitOpError("pitch must have 3 entries");
  if (op.getRows() < 1 || op.getCols() < 1)
    return op.emitOpError("rows and cols must be positive");
  if (needsSrc1 != bool(op.getSrc1()))
    return op.emitOpError(needsSrc1 ? "needs a src1 operand"
                                    : "takes no src1 operand");
  return success();
}

/// Verifies an SFP instruction whose function `validFn` accepts.
template <typename SfpOp>
LogicalResult verifySfp(SfpOp op, bool needsSrc1,
                        function_ref<bool(StringRef)> validFn) {
  if (failed(verifySfpShape(op, needsSrc1, validFn)))
    return failure();
  if (failed(verifyLx(op, op.getDst(), "dst")) ||
      failed(verifyLx(op, op.getSrc0(), "src0")))
    return failure();
  if (op.getSrc1() && failed(verifyLx(op, *op.getSrc1(), "src1")))
    return failure();
  if (failed(verifyInitLevel(op, op.getInitLevel())))
    return failure();
  // Rows or columns (a reduction over the valid columns of an edge tile).
  return verifyClamp(op, op.getClamp(), 1);
}
} // namespace

LogicalResult SfpUnaryOp::verify() {
  return verifySfp(*this, false, [](StringRef fn) {
    return fn == "copy" || symbolizeUnaryKind(fn).has_value();
  });
}
LogicalResult SfpBinaryOp::verify() {
  return verifySfp(*this, true, [](StringRef fn) {
    return symbolizeBinaryKind(fn).has_value() ||
           symbolizeComparePredicate(fn).has_value();
  });
}
LogicalResult SfpSelectOp::verify() {
  return verifySfp(*this, true, [](StringRef fn) { return fn == "select"; });
}
LogicalResult SfpReduceOp::verify() {
  return verifySfp(*this, false, [](StringRef fn) {
    return symbolizeReduceKind(fn).has_value();
  });
}
LogicalResult SfpTransposeOp::verify() {
  return verifySfp(*this, false,
                   [](StringRef fn) { return fn == "transpose"; });
}
