//===- Pointwise.cpp - Elementwise aten ops -------------------------------===//
//
// Elementwise ops map onto `spyre.unary` / `spyre.binary` / `spyre.compare`
// / `spyre.select` / `spyre.cast`. Operands are converted to the dtype
// PyTorch computes in (the exported node's output dtype for arithmetic, the
// promoted operand dtype for comparisons), and scalar operands become
// rank-0 splat constants: the hardware has no immediates.
//
//===----------------------------------------------------------------------===//

#include "spyre/Transforms/Decompositions.h"

#include "mlir/IR/Builders.h"

#include <cmath>

using namespace mlir;

namespace spyre {
namespace {

Value unaryOf(OpBuilder &b, Location loc, UnaryKind kind, Value x) {
  return UnaryOp::create(b, loc, x.getType(), kind, x);
}

Value binaryOf(OpBuilder &b, Location loc, BinaryKind kind, Value x, Value y,
               RankedTensorType type) {
  return BinaryOp::create(b, loc, type, kind, x, y);
}

/// A unary aten op that is exactly one SFP function.
DecomposeFn unary(UnaryKind kind) {
  return [kind](AtenOp op, const AtenArgs &args,
                RewriterBase &rw) -> LogicalResult {
    FailureOr<Value> x = args.tensor("self");
    if (failed(x))
      return failure();
    RankedTensorType type = resultType(op);
    if (!isa<FloatType>(type.getElementType()))
      return op.emitError("'")
             << op.getTarget() << "' needs a floating-point result, got "
             << type.getElementType();
    Value in = castTo(rw, op.getLoc(), *x, type.getElementType());
    rw.replaceOpWithNewOp<UnaryOp>(op, type, kind, in);
    return success();
  };
}

/// `self kind (other * alpha)`, `other` a tensor or a scalar.
DecomposeFn binary(BinaryKind kind, bool hasAlpha, bool reversed = false) {
  return [=](AtenOp op, const AtenArgs &args, RewriterBase &rw) {
    RankedTensorType type = resultType(op);
    Type et = type.getElementType();
    Location loc = op.getLoc();
    FailureOr<Value> lhs = tensorOrScalar(args, "self", et, rw);
    FailureOr<Value> rhs = tensorOrScalar(args, "other", et, rw);
    if (failed(lhs) || failed(rhs))
      return failure();
    Value self = *lhs, other = *rhs;
    if (hasAlpha) {
      FailureOr<double> alpha = args.getDouble("alpha");
      if (failed(alpha))
        return failure();
      // rsub scales self; add and sub scale other.
      Value &scaled = reversed ? self : other;
      if (*alpha != 1.0)
        scaled = BinaryOp::create(rw, loc, scaled.getType(), BinaryKind::mul,
                                  scaled, createSplat(rw, loc, et, *alpha));
    }
    if (reversed)
      std::swap(self, other);
    rw.replaceOpWithNewOp<BinaryOp>(op, type, kind, self, other);
    return success();
  };
}

LogicalResult decomposeGelu(AtenOp op, const AtenArgs &args, RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<std::string> approximate = args.getString("approximate");
  if (failed(x) || failed(approximate))
    return failure();
  UnaryKind kind;
  if (*approximate == "none")
    kind = UnaryKind::gelu;
  else if (*approximate == "tanh")
    kind = UnaryKind::gelu_tanh;
  else
    return op.emitError("gelu approximation '")
           << *approximate << "' is not one of 'none', 'tanh'";
  RankedTensorType type = resultType(op);
  rw.replaceOpWithNewOp<UnaryOp>(
      op, type, kind, castTo(rw, op.getLoc(), *x, type.getElementType()));
  return success();
}

/// div with an optional rounding mode (None, "trunc", "floor").
LogicalResult decomposeDiv(AtenOp op, const AtenArgs &args, RewriterBase &rw) {
  RankedTensorType type = resultType(op);
  Location loc = op.getLoc();
  Type et = type.getElementType();
  // Integer division with rounding computes in floats, as PyTorch does for
  // true division, then rounds.
  Type ct = isa<FloatType>(et) ? et : rw.getF32Type();
  FailureOr<Value> x = tensorOrScalar(args, "self", ct, rw);
  FailureOr<Value> y = tensorOrScalar(args, "other", ct, rw);
  if (failed(x) || failed(y))
    return failure();
  RankedTensorType ctype = RankedTensorType::get(type.getShape(), ct);
  Value q = binaryOf(rw, loc, BinaryKind::div, *x, *y, ctype);
  std::string mode = "none";
  if (!args.isNone("rounding_mode")) {
    FailureOr<std::string> m = args.getString("rounding_mode");
    if (failed(m))
      return failure();
    mode = *m;
  }
  if (mode == "floor") {
    q = unaryOf(rw, loc, UnaryKind::floor, q);
  } else if (mode == "trunc") {
    // trunc(q) = sign(q) * floor(|q|): the SFP has no trunc.
    Value mag =
        unaryOf(rw, loc, UnaryKind::floor, unaryOf(rw, loc, UnaryKind::abs, q));
    q = binaryOf(rw, loc, BinaryKind::mul, unaryOf(rw, loc, UnaryKind::sign, q),
                 mag, ctype);
  } else if (mode != "none") {
    return op.emitError("div rounding_mode '")
           << mode << "' is not one of None, 'trunc', 'floor'";
  }
  rw.replaceOp(op, castTo(rw, loc, q, et));
  return success();
}

/// The largest |e| that pow by a constant integer computes by repeated
/// multiplication: square-and-multiply needs at most 2 log2(64) = 12
/// multiplies, all fused into one elementwise kernel.
constexpr int64_t kMaxPowByMultiplication = 64;

/// x ** n, n >= 1, by square-and-multiply (at most 2 log2(n) multiplies).
Value powByMultiplication(OpBuilder &b, Location loc, Value x, int64_t n) {
  auto type = cast<RankedTensorType>(x.getType());
  Value result, base = x;
  for (int64_t k = n; k; k >>= 1) {
    if (k & 1)
      result =
          result ? binaryOf(b, loc, BinaryKind::mul, result, base, type) : base;
    if (k > 1)
      base = binaryOf(b, loc, BinaryKind::mul, base, base, type);
  }
  return result;
}

/// x ** e in x's dtype for the exponents with a direct form (0.5, -0.5, 0,
/// integers up to abs(e) = 3); null for the others.
Value powByShortcut(OpBuilder &b, Location loc, Value x, double e) {
  auto type = cast<RankedTensorType>(x.getType());
  if (e == 0.5)
    return unaryOf(b, loc, UnaryKind::sqrt, x);
  if (e == -0.5)
    return unaryOf(b, loc, UnaryKind::rsqrt, x);
  bool integer = e == std::floor(e);
  if (e == 0)
    return createSplat(b, loc, type.getElementType(), 1.0, type.getShape());
  if (integer && std::fabs(e) <= 3) {
    Value p = powByMultiplication(b, loc, x, int64_t(std::fabs(e)));
    return e < 0 ? unaryOf(b, loc, UnaryKind::reciprocal, p) : p;
  }
  return nullptr;
}

/// v ** e for an integer e: square-and-multiply, then the reciprocal for a
/// negative e.
Value powBySquaring(OpBuilder &b, Location loc, Value v, double e) {
  Value p = powByMultiplication(b, loc, v, int64_t(std::fabs(e)));
  if (e < 0)
    p = unaryOf(b, loc, UnaryKind::reciprocal, p);
  return p;
}

/// v ** e as exp(e * log(v)); for an integer e, of |v| with the sign
/// restored for odd e.
Value powByExpLog(OpBuilder &b, Location loc, Value v, double e) {
  auto vtype = cast<RankedTensorType>(v.getType());
  Type vt = vtype.getElementType();
  bool integer = e == std::floor(e);
  bool oddInteger = integer && std::fmod(std::fabs(e), 2.0) == 1.0;
  Value base = integer ? unaryOf(b, loc, UnaryKind::abs, v) : v;
  Value logx = unaryOf(b, loc, UnaryKind::log, base);
  Value p = unaryOf(b, loc, UnaryKind::exp,
                    binaryOf(b, loc, BinaryKind::mul, logx,
                             createSplat(b, loc, vt, e), vtype));
  if (oddInteger)
    p = binaryOf(b, loc, BinaryKind::mul, p,
                 unaryOf(b, loc, UnaryKind::sign, v), vtype);
  return p;
}

/// x ** e for a constant exponent e (x of a float type):
///  * 0.5, -0.5, -1: one SFP op (sqrt, rsqrt, reciprocal); 0: a splat 1
///    (PyTorch's pow(x, 0) is 1 even for NaN); 1: x.
///  * Adapter `pow(x, 3) -> x*x*x`: integers |e| <= 3 by repeated
///    multiplication in x's dtype (one or two roundings; the SFP has no
///    pow, and exp(e * log(x)) would be NaN for negative x, where an
///    integer power is defined). A negative e takes the reciprocal.
///  * Other integers |e| <= 64: square-and-multiply, in f32 for f16/bf16
///    (as PyTorch computes half pow) so that the up to 12 roundings stay
///    below the result's precision.
///  * Everything else: exp(e * log(x)) in f32. Its domain: exact PyTorch
///    semantics for x >= 0 and, for a non-integer e, for x < 0 too (NaN in
///    both); an integer e beyond 64 uses |x| and restores the sign for odd
///    e, which differs from PyTorch only for 0 ** (odd e < -64) (NaN, not
///    inf) and for the infinite and NaN exponents: pow(+-1, +-inf) and
///    pow(1, NaN) are NaN (0 * inf inside), not 1.
Value powByConstant(OpBuilder &b, Location loc, Value x, double e) {
  if (Value p = powByShortcut(b, loc, x, e))
    return p;
  Type et = elementTypeOf(x);
  Value v = castTo(b, loc, x, accumulationType(et));
  bool integer = e == std::floor(e);
  Value p = integer && std::fabs(e) <= kMaxPowByMultiplication
                ? powBySquaring(b, loc, v, e)
                : powByExpLog(b, loc, v, e);
  return castTo(b, loc, p, et);
}

LogicalResult decomposePow(AtenOp op, const AtenArgs &args, RewriterBase &rw) {
  RankedTensorType type = resultType(op);
  Location loc = op.getLoc();
  Type et = type.getElementType();
  if (!isa<FloatType>(et))
    return op.emitError("pow with an integer result is not supported (only "
                        "floating-point results)");
  Value base = args.optionalTensor("self");
  Value exponent = args.optionalTensor("exponent");
  if (base && !exponent) {
    FailureOr<double> e = args.getDouble("exponent");
    if (failed(e))
      return failure();
    rw.replaceOp(op, powByConstant(rw, loc, castTo(rw, loc, base, et), *e));
    return success();
  }
  // A tensor exponent: exp(y * log(x)) in f32. Its domain: x > 0, and
  // x = 0 with y != 0; a negative base gives NaN (PyTorch: a real power
  // for integer y), 0 ** 0 NaN (PyTorch: 1).
  Type ct = accumulationType(et);
  FailureOr<Value> y = tensorOrScalar(args, "exponent", ct, rw);
  if (failed(y))
    return failure();
  Value logx;
  if (base) {
    logx = unaryOf(rw, loc, UnaryKind::log, castTo(rw, loc, base, ct));
  } else {
    // A scalar base: its log is a compile-time constant.
    FailureOr<double> s = args.getDouble("self");
    if (failed(s))
      return failure();
    logx = createSplat(rw, loc, ct, std::log(*s));
  }
  RankedTensorType ctype = RankedTensorType::get(type.getShape(), ct);
  Value prod = binaryOf(rw, loc, BinaryKind::mul, logx, *y, ctype);
  Value p = unaryOf(rw, loc, UnaryKind::exp, prod);
  rw.replaceOp(op, castTo(rw, loc, p, et));
  return success();
}

/// The dtype PyTorch compares two operands in (torch.result_type, for the
/// dtypes Spyre has): the wider float, else the wider integer; a scalar
/// takes the tensor's.
Type compareType(Value a, Value b) {
  Type x = elementTypeOf(a), y = b ? elementTypeOf(b) : x;
  bool fx = isa<FloatType>(x), fy = isa<FloatType>(y);
  if (fx != fy)
    return fx ? x : y;
  return x.getIntOrFloatBitWidth() >= y.getIntOrFloatBitWidth() ? x : y;
}

DecomposeFn compare(ComparePredicate pred) {
  return [pred](AtenOp op, const AtenArgs &args, RewriterBase &rw) {
    FailureOr<Value> self = args.tensor("self");
    if (failed(self))
      return failure();
    Type ct = compareType(*self, args.optionalTensor("other"));
    FailureOr<Value> x = tensorOrScalar(args, "self", ct, rw);
    FailureOr<Value> y = tensorOrScalar(args, "other", ct, rw);
    if (failed(x) || failed(y))
      return failure();
    RankedTensorType type = resultType(op);
    Value c = CompareOp::create(
        rw, op.getLoc(), RankedTensorType::get(type.getShape(), rw.getI1Type()),
        pred, *x, *y);
    rw.replaceOp(op, castTo(rw, op.getLoc(), c, type.getElementType()));
    return success();
  };
}

LogicalResult decomposeLogicalNot(AtenOp op, const AtenArgs &args,
                                  RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  if (failed(x))
    return failure();
  Location loc = op.getLoc();
  Type et = elementTypeOf(*x);
  Value zero = createSplat(rw, loc, et, 0.0);
  RankedTensorType type = resultType(op);
  Value c = CompareOp::create(
      rw, loc, RankedTensorType::get(type.getShape(), rw.getI1Type()),
      ComparePredicate::eq, *x, zero);
  rw.replaceOp(op, castTo(rw, loc, c, type.getElementType()));
  return success();
}

/// `v` as a truth value (i1): itself when bool, else v != 0.
Value truthOf(OpBuilder &b, Location loc, Value v) {
  Type et = elementTypeOf(v);
  if (et.isInteger(1))
    return v;
  return CompareOp::create(
      b, loc, RankedTensorType::get(shapeOf(v), b.getI1Type()),
      ComparePredicate::ne, v, createSplat(b, loc, et, 0.0));
}

/// The broadcast shape of two operands (numpy rules; shapes already
/// checked by the exporter).
SmallVector<int64_t> broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  SmallVector<int64_t> out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    out[out.size() - 1 - i] = x == 1 ? y : x;
  }
  return out;
}

/// a op b on truth values: and, or, and xor as `ne`.
Value truthBinary(OpBuilder &b, Location loc, BinaryKind kind, bool isXor,
                  Value x, Value y) {
  auto type = RankedTensorType::get(broadcastShape(shapeOf(x), shapeOf(y)),
                                    b.getI1Type());
  if (isXor)
    return CompareOp::create(b, loc, type, ComparePredicate::ne, x, y);
  return binaryOf(b, loc, kind, x, y, type);
}

/// logical_and / logical_or / logical_xor: operands of any dtype as truth
/// values (x != 0); the result is bool (or converted to the node's dtype).
DecomposeFn logical(BinaryKind kind, bool isXor) {
  return
      [=](AtenOp op, const AtenArgs &args, RewriterBase &rw) -> LogicalResult {
        FailureOr<Value> x = args.tensor("self");
        FailureOr<Value> y = args.tensor("other");
        if (failed(x) || failed(y))
          return failure();
        Location loc = op.getLoc();
        Value r = truthBinary(rw, loc, kind, isXor, truthOf(rw, loc, *x),
                              truthOf(rw, loc, *y));
        rw.replaceOp(op, castTo(rw, loc, r, resultType(op).getElementType()));
        return success();
      };
}

/// bitwise and/or/xor (and the `&`, `|`, `^` operators) on bool and integer
/// tensors. Bools are truth values (xor is `ne`); integers compute in the
/// SFP's int64 domain, where and/or are bitwise and xor is (a | b) - (a & b),
/// exact in wrapping arithmetic.
DecomposeFn bitwise(BinaryKind kind, bool isXor) {
  return [=](AtenOp op, const AtenArgs &args,
             RewriterBase &rw) -> LogicalResult {
    RankedTensorType type = resultType(op);
    Type et = type.getElementType();
    if (!isa<IntegerType>(et))
      return op.emitError("'")
             << op.getTarget() << "' needs bool or integer operands, got "
             << et;
    Location loc = op.getLoc();
    FailureOr<Value> x = tensorOrScalar(args, "self", et, rw);
    FailureOr<Value> y = tensorOrScalar(args, "other", et, rw);
    if (failed(x) || failed(y))
      return failure();
    if (et.isInteger(1)) {
      rw.replaceOp(op, truthBinary(rw, loc, kind, isXor, *x, *y));
      return success();
    }
    if (!isXor) {
      rw.replaceOpWithNewOp<BinaryOp>(op, type, kind, *x, *y);
      return success();
    }
    Value both = binaryOf(rw, loc, BinaryKind::logical_and, *x, *y, type);
    Value either = binaryOf(rw, loc, BinaryKind::logical_or, *x, *y, type);
    rw.replaceOpWithNewOp<BinaryOp>(op, type, BinaryKind::sub, either, both);
    return success();
  };
}

/// bitwise_not: logical not on bools, ~x = -x - 1 on integers (int64
/// domain, wrapping).
LogicalResult decomposeBitwiseNot(AtenOp op, const AtenArgs &args,
                                  RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  if (failed(x))
    return failure();
  RankedTensorType type = resultType(op);
  Type et = type.getElementType();
  if (!isa<IntegerType>(et))
    return op.emitError("'")
           << op.getTarget() << "' needs a bool or integer operand, got " << et;
  Location loc = op.getLoc();
  Value in = castTo(rw, loc, *x, et);
  if (et.isInteger(1)) {
    rw.replaceOpWithNewOp<CompareOp>(op, type, ComparePredicate::eq, in,
                                     createSplat(rw, loc, et, 0.0));
    return success();
  }
  rw.replaceOpWithNewOp<BinaryOp>(op, type, BinaryKind::sub,
                                  unaryOf(rw, loc, UnaryKind::neg, in),
                                  createSplat(rw, loc, et, 1.0));
  return success();
}

/// clamp(x, min, max) = min(max(x, lo), hi); either bound may be None.
LogicalResult decomposeClamp(AtenOp op, const AtenArgs &args, RewriterBase &rw,
                             StringRef loName, StringRef hiName) {
  RankedTensorType type = resultType(op);
  Type et = type.getElementType();
  Location loc = op.getLoc();
  FailureOr<Value> x = args.tensor("self");
  if (failed(x))
    return failure();
  Value y = castTo(rw, loc, *x, et);
  for (auto [name, kind] : {std::pair{loName, BinaryKind::max},
                            std::pair{hiName, BinaryKind::min}}) {
    if (name.empty() || args.isNone(name))
      continue;
    FailureOr<Value> bound = tensorOrScalar(args, name, et, rw);
    if (failed(bound))
      return failure();
    // Each step has the broadcast shape of its own operands: a bound may
    // have a higher rank than x and the other bound (the result's shape
    // is reached only after both).
    std::optional<SmallVector<int64_t>> shape =
        broadcastShapes(shapeOf(y), shapeOf(*bound));
    if (!shape)
      return op.emitError("clamp bound '")
             << name << "' of shape [" << shapeOf(*bound)
             << "] does not broadcast";
    y = binaryOf(rw, loc, kind, y, *bound, RankedTensorType::get(*shape, et));
  }
  rw.replaceOp(op, y);
  return success();
}

/// where(cond, self, other), with tensor or scalar branches.
LogicalResult decomposeWhere(AtenOp op, const AtenArgs &args,
                             RewriterBase &rw) {
  RankedTensorType type = resultType(op);
  Type et = type.getElementType();
  Location loc = op.getLoc();
  FailureOr<Value> cond = args.tensor("condition");
  FailureOr<Value> a = tensorOrScalar(args, "self", et, rw);
  FailureOr<Value> b = tensorOrScalar(args, "other", et, rw);
  if (failed(cond) || failed(a) || failed(b))
    return failure();
  Value c = *cond;
  if (!elementTypeOf(c).isInteger(1))
    c = CompareOp::create(
        rw, loc, RankedTensorType::get(shapeOf(c), rw.getI1Type()),
        ComparePredicate::ne, c, createSplat(rw, loc, elementTypeOf(c), 0.0));
  rw.replaceOpWithNewOp<SelectOp>(op, type, c, *a, *b);
  return success();
}

/// masked_fill(self, mask, value) = where(mask, value, self).
LogicalResult decomposeMaskedFill(AtenOp op, const AtenArgs &args,
                                  RewriterBase &rw) {
  RankedTensorType type = resultType(op);
  Type et = type.getElementType();
  FailureOr<Value> self = args.tensor("self");
  FailureOr<Value> mask = args.tensor("mask");
  FailureOr<Value> value = tensorOrScalar(args, "value", et, rw);
  if (failed(self) || failed(mask) || failed(value))
    return failure();
  rw.replaceOpWithNewOp<SelectOp>(op, type, *mask, *value,
                                  castTo(rw, op.getLoc(), *self, et));
  return success();
}

/// softplus(x) = x * beta > threshold ? x : log(1 + exp(beta * x)) / beta.
LogicalResult decomposeSoftplus(AtenOp op, const AtenArgs &args,
                                RewriterBase &rw) {
  RankedTensorType type = resultType(op);
  Type et = type.getElementType();
  Location loc = op.getLoc();
  FailureOr<Value> x = args.tensor("self");
  FailureOr<double> beta = args.getDouble("beta");
  FailureOr<double> threshold = args.getDouble("threshold");
  if (failed(x) || failed(beta) || failed(threshold))
    return failure();
  Value in = castTo(rw, loc, *x, et);
  Value bx = *beta == 1.0 ? in
                          : binaryOf(rw, loc, BinaryKind::mul, in,
                                     createSplat(rw, loc, et, *beta), type);
  Value soft = unaryOf(rw, loc, UnaryKind::softplus, bx);
  if (*beta != 1.0)
    soft = binaryOf(rw, loc, BinaryKind::div, soft,
                    createSplat(rw, loc, et, *beta), type);
  Value over = CompareOp::create(
      rw, loc, RankedTensorType::get(type.getShape(), rw.getI1Type()),
      ComparePredicate::gt, bx, createSplat(rw, loc, et, *threshold));
  rw.replaceOpWithNewOp<SelectOp>(op, type, over, in, soft);
  return success();
}

/// Casts: _to_copy, to.dtype and friends; the result type says the dtype.
LogicalResult decomposeCast(AtenOp op, const AtenArgs &args, RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  if (failed(x))
    return failure();
  rw.replaceOp(op,
               castTo(rw, op.getLoc(), *x, resultType(op).getElementType()));
  return success();
}

/// Ops that return their input (on Spyre's memory: copies, views and
/// inference-time no-ops).
LogicalResult decomposeIdentity(AtenOp op, const AtenArgs &args,
                                RewriterBase &rw) {
  FailureOr<Value> x =
      args.tensor(op.getTensorArgs().empty()
                      ? "self"
                      : cast<StringAttr>(op.getTensorArgs()[0]).getValue());
  if (failed(x))
    return failure();
  rw.replaceOp(op,
               castTo(rw, op.getLoc(), *x, resultType(op).getElementType()));
  return success();
}

/// dropout in inference (train = False or p = 0) is the identity.
LogicalResult decomposeDropout(AtenOp op, const AtenArgs &args,
                               RewriterBase &rw) {
  FailureOr<bool> train = args.getBool("train");
  FailureOr<double> p = args.getDouble("p");
  if (failed(train) || failed(p))
    return failure();
  if (*train && *p > 0)
    return op.emitError("dropout in training mode is not supported (Spyre "
                        "compiles inference graphs)");
  return decomposeIdentity(op, args, rw);
}

/// square(x): x * x.
LogicalResult decomposeSquare(AtenOp op, const AtenArgs &args,
                              RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  if (failed(x))
    return failure();
  RankedTensorType type = resultType(op);
  Value in = castTo(rw, op.getLoc(), *x, type.getElementType());
  rw.replaceOpWithNewOp<BinaryOp>(op, type, BinaryKind::mul, in, in);
  return success();
}

// The dtype lists of the docs.
constexpr const char *floats = "f16, bf16, f32";
constexpr const char *all = "f16, bf16, f32, i32, i64, bool";

/// add, sub, rsub, mul, maximum, minimum, remainder, floor_divide, square,
/// div and pow.
void registerArithmetic(DecompositionRegistry &r) {
  auto addBinary = [&](StringRef name, BinaryKind kind, bool alpha,
                       const char *notes, bool reversed = false) {
    r.add({name.str(), "pointwise", floats, notes,
           binary(kind, alpha, reversed)});
  };
  addBinary("aten.add.Tensor", BinaryKind::add, true,
            "`alpha` as a multiply of `other`; scalar `other` as a splat");
  addBinary("aten.add.Scalar", BinaryKind::add, true, "");
  addBinary("aten.sub.Tensor", BinaryKind::sub, true, "`alpha` as for add");
  addBinary("aten.sub.Scalar", BinaryKind::sub, true, "");
  addBinary("aten.rsub.Tensor", BinaryKind::sub, true, "`other - alpha * self`",
            true);
  addBinary("aten.rsub.Scalar", BinaryKind::sub, true, "", true);
  addBinary("aten.mul.Tensor", BinaryKind::mul, false,
            "scalar `other` as a splat");
  addBinary("aten.mul.Scalar", BinaryKind::mul, false, "");
  addBinary("aten.maximum.default", BinaryKind::max, false, "");
  addBinary("aten.minimum.default", BinaryKind::min, false, "");
  // Integer operands stay integers (the SFP's int64 domain), as PyTorch
  // computes them.
  const char *numbers = "f16, bf16, f32, i32, i64";
  for (const char *overload : {"Tensor", "Scalar"}) {
    r.add({std::string("aten.remainder.") + overload, "pointwise", numbers,
           "the sign of the divisor, as Python's %; integer x % 0 gives 0 "
           "(PyTorch raises)",
           binary(BinaryKind::remainder, false)});
  }
  r.add({"aten.floor_divide.default", "pointwise", numbers,
         "floor(x / y); integer x // 0 gives 0 (PyTorch raises)",
         binary(BinaryKind::floordiv, false)});
  r.add({"aten.floor_divide.Scalar", "pointwise", numbers,
         "as floor_divide.default", binary(BinaryKind::floordiv, false)});
  r.add({"aten.square.default", "pointwise", floats, "x * x", decomposeSquare});
  r.add(
      {"aten.div.Tensor", "pointwise", floats, "true division", decomposeDiv});
  r.add({"aten.div.Scalar", "pointwise", floats, "", decomposeDiv});
  r.add({"aten.div.Tensor_mode", "pointwise", floats,
         "`rounding_mode` 'floor' as floor(x / y), 'trunc' as "
         "sign(q) * floor(|q|), the quotient in f32: integer operands are "
         "exact only below 2^24",
         decomposeDiv});
  r.add({"aten.div.Scalar_mode", "pointwise", floats, "as div.Tensor_mode",
         decomposeDiv});
  r.add({"aten.pow.Tensor_Scalar", "pointwise", floats,
         "0 as 1, 0.5, -0.5, -1 as sqrt, rsqrt, reciprocal; adapter "
         "`pow(x, 3) -> x*x*x`: integers up to abs(e) = 3 by repeated "
         "multiplication in the input dtype, other integers up to abs(e) = 64 "
         "by square-and-multiply in f32, larger ones as exp(e * log(abs(x))) "
         "with the sign restored for odd e; "
         "other exponents as exp(e * log(x)) in f32, which matches PyTorch "
         "for x >= 0 (and gives NaN for x < 0 with a non-integer e, as "
         "PyTorch does). Differs from PyTorch for pow(+-1, +-inf) and "
         "pow(1, NaN) (NaN, not 1) and 0 ** (odd e < -64) (NaN, not inf); "
         "integer results are not supported",
         decomposePow});
  r.add({"aten.pow.Tensor_Tensor", "pointwise", floats,
         "exp(e * log(x)) in f32: defined for x > 0 (and x = 0 with e != 0); "
         "a negative base gives NaN even for integer e",
         decomposePow});
  r.add({"aten.pow.Scalar", "pointwise", floats,
         "exp(e * log(base)) in f32, log(base) folded: defined for base > 0 "
         "(and base = 0 with e != 0)",
         decomposePow});
}

/// One-SFP-op unary functions, gelu and softplus.
void registerUnaryMath(DecompositionRegistry &r) {
  struct Unary {
    const char *name;
    UnaryKind kind;
  };
  for (Unary u : {Unary{"aten.neg.default", UnaryKind::neg},
                  Unary{"aten.abs.default", UnaryKind::abs},
                  Unary{"aten.exp.default", UnaryKind::exp},
                  Unary{"aten.log.default", UnaryKind::log},
                  Unary{"aten.sqrt.default", UnaryKind::sqrt},
                  Unary{"aten.rsqrt.default", UnaryKind::rsqrt},
                  Unary{"aten.reciprocal.default", UnaryKind::reciprocal},
                  Unary{"aten.tanh.default", UnaryKind::tanh},
                  Unary{"aten.sigmoid.default", UnaryKind::sigmoid},
                  Unary{"aten.relu.default", UnaryKind::relu},
                  Unary{"aten.silu.default", UnaryKind::silu},
                  Unary{"aten.sin.default", UnaryKind::sin},
                  Unary{"aten.cos.default", UnaryKind::cos},
                  Unary{"aten.floor.default", UnaryKind::floor},
                  Unary{"aten.ceil.default", UnaryKind::ceil},
                  Unary{"aten.erf.default", UnaryKind::erf},
                  Unary{"aten.round.default", UnaryKind::round},
                  Unary{"aten.sign.default", UnaryKind::sign}})
    r.add({u.name, "pointwise", floats,
           "one SFP op; float results only (an integer input is "
           "converted to the result's dtype first)",
           unary(u.kind)});
  r.add({"aten.gelu.default", "pointwise", floats,
         "`approximate` = 'none' (erf) or 'tanh'", decomposeGelu});
  r.add({"aten.softplus.default", "pointwise", floats,
         "`beta` and `threshold` as PyTorch defines them", decomposeSoftplus});
}

/// logical_* and bitwise_* (and their operators).
void registerLogical(DecompositionRegistry &r) {
  r.add({"aten.logical_not.default", "pointwise", all, "x == 0",
         decomposeLogicalNot});
  r.add({"aten.logical_and.default", "pointwise", all,
         "operands as truth values (x != 0); bool result",
         logical(BinaryKind::logical_and, false)});
  r.add({"aten.logical_or.default", "pointwise", all,
         "operands as truth values (x != 0); bool result",
         logical(BinaryKind::logical_or, false)});
  r.add({"aten.logical_xor.default", "pointwise", all,
         "operands as truth values, compared with `ne`; bool result",
         logical(BinaryKind::logical_and, true)});
  const char *ints = "i32, i64, bool";
  for (const char *overload : {"Tensor", "Scalar"}) {
    std::string o = std::string(".") + overload;
    for (const char *name : {"aten.bitwise_and", "aten.__and__"})
      r.add({name + o, "pointwise", ints, "and; bool as truth values",
             bitwise(BinaryKind::logical_and, false)});
    for (const char *name : {"aten.bitwise_or", "aten.__or__"})
      r.add({name + o, "pointwise", ints, "or; bool as truth values",
             bitwise(BinaryKind::logical_or, false)});
    for (const char *name : {"aten.bitwise_xor", "aten.__xor__"})
      r.add({name + o, "pointwise", ints,
             "integers as (a | b) - (a & b); bools as a != b",
             bitwise(BinaryKind::logical_or, true)});
  }
  r.add({"aten.bitwise_not.default", "pointwise", ints,
         "bools as x == 0; integers as -x - 1", decomposeBitwiseNot});
}

/// eq, ne, lt, le, gt and ge.
void registerComparisons(DecompositionRegistry &r) {
  struct Cmp {
    const char *op;
    ComparePredicate pred;
  };
  for (Cmp c :
       {Cmp{"eq", ComparePredicate::eq}, Cmp{"ne", ComparePredicate::ne},
        Cmp{"lt", ComparePredicate::lt}, Cmp{"le", ComparePredicate::le},
        Cmp{"gt", ComparePredicate::gt}, Cmp{"ge", ComparePredicate::ge}})
    for (const char *overload : {"Tensor", "Scalar"})
      r.add({std::string("aten.") + c.op + "." + overload, "pointwise", all,
             "computed in the promoted operand dtype; bool result",
             compare(c.pred)});
}

/// clamp, where and masked_fill.
void registerSelections(DecompositionRegistry &r) {
  r.add({"aten.clamp.default", "pointwise", floats, "max then min",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeClamp(op, a, rw, "min", "max");
         }});
  r.add({"aten.clamp.Tensor", "pointwise", floats, "",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeClamp(op, a, rw, "min", "max");
         }});
  r.add({"aten.clamp_min.default", "pointwise", floats, "",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeClamp(op, a, rw, "min", "");
         }});
  r.add({"aten.clamp_max.default", "pointwise", floats, "",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeClamp(op, a, rw, "", "max");
         }});
  for (const char *overload : {"self", "ScalarSelf", "ScalarOther", "Scalar"})
    r.add({std::string("aten.where.") + overload, "pointwise", all,
           "a select; a non-bool condition is compared with 0",
           decomposeWhere});
  r.add({"aten.masked_fill.Scalar", "pointwise", all, "a select",
         decomposeMaskedFill});
  r.add({"aten.masked_fill.Tensor", "pointwise", all, "a select",
         decomposeMaskedFill});
}

/// Casts, identities and dropout.
void registerCastsAndIdentities(DecompositionRegistry &r) {
  for (const char *name :
       {"aten._to_copy.default", "aten.to.dtype", "aten.to.dtype_layout",
        "aten.to.device", "aten.type_as.default",
        "aten._to_dim_order_copy.default"})
    r.add({name, "pointwise", all,
           "a cast to the node's output dtype (a no-op when it is the "
           "input's)",
           decomposeCast});
  for (const char *name :
       {"aten.clone.default", "aten.contiguous.default", "aten.alias.default",
        "aten.alias_copy.default", "aten.detach.default",
        "aten.lift_fresh_copy.default", "aten.positive.default"})
    r.add({name, "pointwise", all,
           "the identity (layouts are the compiler's choice)",
           decomposeIdentity});
  r.add({"aten.dropout.default", "pointwise", all,
         "the identity in inference; training mode is rejected",
         decomposeDropout});
}

} // namespace

void registerPointwiseDecompositions(DecompositionRegistry &r) {
  registerArithmetic(r);
  registerUnaryMath(r);
  registerLogical(r);
  registerComparisons(r);
  registerSelections(r);
  registerCastsAndIdentities(r);
}

} // namespace spyre
