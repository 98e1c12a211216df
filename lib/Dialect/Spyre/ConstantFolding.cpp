//===- ConstantFolding.cpp - Compile-time evaluation of compute ops -------===//
//
// Elements are computed by the SFP's own per-element semantics
// (spyre/ISA/ElementMath.h, which the simulator runs too), so that a folded
// constant is what the device would have computed.
//
//===----------------------------------------------------------------------===//

#include "ConstantFolding.h"

#include "spyre/ISA/ElementMath.h"

#include "llvm/ADT/APFloat.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

using namespace mlir;

namespace spyre::constfold {

namespace {

//===--- Elements in the compute domains ----------------------------------===//

/// A constant's elements in the device's compute domain: fp32 for float
/// element types, int64 for integer ones (i1 as 0/1). A splat holds one.
struct Tensor {
  SmallVector<int64_t> shape;
  bool isInt = false;
  bool splat = false;
  std::vector<float> f;
  std::vector<int64_t> i;

  /// The stored index of logical element `k` (splats store one).
  int64_t at(int64_t k) const { return splat ? 0 : k; }
};

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool isSupportedElement(Type t) {
  return t.isF16() || t.isBF16() || t.isF32() || t.isSignlessInteger(1) ||
         t.isSignlessInteger(8) || t.isSignlessInteger(32) ||
         t.isSignlessInteger(64);
}

using isa::floatToInt64;

/// `attr` as a dense attribute the folders read, or null.
DenseIntOrFPElementsAttr readable(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseIntOrFPElementsAttr>(attr);
  if (!dense)
    return nullptr;
  ShapedType type = dense.getType();
  if (!type.hasStaticShape() || !isSupportedElement(type.getElementType()) ||
      (!dense.isSplat() && type.getNumElements() > kMaxElements))
    return nullptr;
  return dense;
}

std::optional<Tensor> load(Attribute attr) {
  auto dense = readable(attr);
  if (!dense)
    return std::nullopt;
  ShapedType type = dense.getType();
  Type et = type.getElementType();
  Tensor t;
  t.shape.assign(type.getShape().begin(), type.getShape().end());
  t.splat = dense.isSplat();
  int64_t n = t.splat ? 1 : type.getNumElements();
  if (llvm::isa<FloatType>(et)) {
    t.f.reserve(n);
    auto push = [&](APFloat v) {
      bool lost;
      v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
      t.f.push_back(v.convertToFloat()); // exact: f16, bf16 fit in fp32
    };
    if (t.splat)
      push(dense.getSplatValue<APFloat>());
    else if (et.isF32())
      llvm::append_range(t.f, dense.getValues<float>());
    else
      for (APFloat v : dense.getValues<APFloat>())
        push(v);
    return t;
  }
  t.isInt = true;
  t.i.reserve(n);
  bool isBool = et.isInteger(1);
  auto push = [&](const APInt &v) {
    t.i.push_back(isBool ? int64_t(!v.isZero()) : v.getSExtValue());
  };
  if (t.splat)
    push(dense.getSplatValue<APInt>());
  else
    for (APInt v : dense.getValues<APInt>())
      push(v);
  return t;
}

/// Whether every operand is readable: checked before any is loaded, so that
/// an op with one constant operand (a norm weight times an activation) does
/// not convert the constant's elements to find out it cannot fold.
bool allReadable(ArrayRef<Attribute> attrs) {
  return llvm::all_of(attrs, [](Attribute a) { return bool(readable(a)); });
}

/// `t`'s values in fp32, as the simulator loads integers into the float
/// domain.
std::vector<float> asFloat(const Tensor &t) {
  if (!t.isInt)
    return t.f;
  std::vector<float> out(t.i.size());
  for (size_t k = 0; k < t.i.size(); ++k)
    out[k] = float(t.i[k]);
  return out;
}

/// How many elements `t` stores (one for a splat).
int64_t storedCount(const Tensor &t) {
  return int64_t(t.isInt ? t.i.size() : t.f.size());
}

/// `resultType` without its encoding when it can hold `t`'s elements: a
/// static shape of `t`'s element count and a supported element type; else
/// null.
RankedTensorType storageType(const Tensor &t, Type resultType) {
  auto rt = dyn_cast<RankedTensorType>(resultType);
  if (!rt || !rt.hasStaticShape() || !isSupportedElement(rt.getElementType()))
    return nullptr;
  auto plain = RankedTensorType::get(rt.getShape(), rt.getElementType());
  if (storedCount(t) != (t.splat ? 1 : plain.getNumElements()))
    return nullptr;
  return plain;
}

/// `t`'s elements tested != 0, as an i1 attribute of type `plain`.
Attribute storeBools(const Tensor &t, RankedTensorType plain) {
  int64_t n = storedCount(t);
  SmallVector<bool> bits(n);
  for (int64_t k = 0; k < n; ++k)
    bits[k] = t.isInt ? t.i[k] != 0 : t.f[k] != 0.0f;
  return DenseElementsAttr::get(plain, ArrayRef<bool>(bits));
}

/// Writes `v` rounded to the `bytes`-byte float type `ft` at `dst`.
void writeFloat(char *dst, float v, FloatType ft, unsigned bytes) {
  if (bytes == 4) {
    std::memcpy(dst, &v, 4);
    return;
  }
  APFloat a(v);
  bool lost;
  a.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  uint16_t bits = uint16_t(a.bitcastToAPInt().getZExtValue());
  std::memcpy(dst, &bits, 2);
}

/// Writes `v` wrapped to a `bytes`-byte integer at `dst`.
void writeInt(char *dst, int64_t v, unsigned bytes) {
  if (bytes == 1) {
    int8_t w = int8_t(uint8_t(uint64_t(v)));
    std::memcpy(dst, &w, 1);
  } else if (bytes == 4) {
    int32_t w = int32_t(uint32_t(uint64_t(v)));
    std::memcpy(dst, &w, 4);
  } else {
    std::memcpy(dst, &v, 8);
  }
}

/// Rounds `t` to `resultType`'s element type: the result attribute (null
/// for a dynamic shape or an unsupported type). Elements attributes carry
/// no layout encoding; the constant's type does.
Attribute store(const Tensor &t, Type resultType) {
  RankedTensorType plain = storageType(t, resultType);
  if (!plain)
    return nullptr;
  Type et = plain.getElementType();
  if (et.isInteger(1))
    return storeBools(t, plain);
  int64_t n = storedCount(t);
  unsigned bytes = et.getIntOrFloatBitWidth() / 8;
  std::vector<char> raw(size_t(n) * bytes);
  for (int64_t k = 0; k < n; ++k) {
    char *dst = raw.data() + k * bytes;
    if (auto ft = dyn_cast<FloatType>(et))
      writeFloat(dst, t.isInt ? float(t.i[k]) : t.f[k], ft, bytes);
    else
      writeInt(dst, t.isInt ? t.i[k] : floatToInt64(t.f[k]), bytes);
  }
  return DenseElementsAttr::getFromRawBuffer(plain, ArrayRef<char>(raw));
}

/// The offset `start + sum(idx[d] * strides[d])` of every index `idx` of
/// `shape`, in row-major order: a strided walk over a row-major tensor.
std::vector<int64_t> stridedOffsets(int64_t start, ArrayRef<int64_t> strides,
                                    ArrayRef<int64_t> shape) {
  int64_t rank = shape.size();
  std::vector<int64_t> out(numElements(shape));
  SmallVector<int64_t> idx(rank, 0);
  int64_t off = start;
  for (int64_t &o : out) {
    o = off;
    for (int64_t d = rank - 1; d >= 0; --d) {
      off += strides[d];
      if (++idx[d] < shape[d])
        break;
      off -= strides[d] * shape[d];
      idx[d] = 0;
    }
  }
  return out;
}

/// Row-major strides of `shape`.
SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// The stored index in `t` of every element of `shape` (row-major) under
/// numpy broadcasting of `t` to `shape`.
std::vector<int64_t> broadcastIndices(const Tensor &t,
                                      ArrayRef<int64_t> shape) {
  if (t.splat)
    return std::vector<int64_t>(numElements(shape), 0);
  // Broadcast dims (size 1, or missing in front) have stride 0.
  int64_t rank = shape.size(), trank = t.shape.size();
  SmallVector<int64_t> strides(rank, 0);
  SmallVector<int64_t> own = rowMajorStrides(t.shape);
  for (int64_t d = 0; d < trank; ++d)
    strides[d + rank - trank] = t.shape[d] == 1 ? 0 : own[d];
  return stridedOffsets(0, strides, shape);
}

/// Elements of `x` at stored indices `indices`, with shape `shape`.
Tensor pick(const Tensor &x, ArrayRef<int64_t> shape,
            const std::vector<int64_t> &indices) {
  Tensor r;
  r.shape.assign(shape.begin(), shape.end());
  r.isInt = x.isInt;
  if (x.isInt) {
    r.i.resize(indices.size());
    for (size_t k = 0; k < indices.size(); ++k)
      r.i[k] = x.i[x.at(indices[k])];
  } else {
    r.f.resize(indices.size());
    for (size_t k = 0; k < indices.size(); ++k)
      r.f[k] = x.f[x.at(indices[k])];
  }
  return r;
}

/// The iteration of an elementwise op: the result shape and, per operand,
/// the stored index read for each result element. All-splat operands give
/// a splat of any size; otherwise the result is capped.
struct Elementwise {
  SmallVector<int64_t> shape;
  bool splat = false;
  int64_t count = 0;
  SmallVector<std::vector<int64_t>> indices;
};

std::optional<Elementwise> prepare(ArrayRef<const Tensor *> operands,
                                   Type resultType) {
  auto rt = dyn_cast<RankedTensorType>(resultType);
  if (!rt || !rt.hasStaticShape())
    return std::nullopt;
  Elementwise e;
  e.shape.assign(rt.getShape().begin(), rt.getShape().end());
  e.splat = llvm::all_of(operands, [](const Tensor *t) { return t->splat; });
  e.count = e.splat ? 1 : rt.getNumElements();
  if (e.count > kMaxElements)
    return std::nullopt;
  for (const Tensor *t : operands) {
    if (t->shape.size() > e.shape.size())
      return std::nullopt;
    e.indices.push_back(e.splat ? std::vector<int64_t>(1, 0)
                                : broadcastIndices(*t, e.shape));
  }
  return e;
}

Tensor resultOf(const Elementwise &e, bool isInt) {
  Tensor r;
  r.shape = e.shape;
  r.splat = e.splat;
  r.isInt = isInt;
  if (isInt)
    r.i.resize(e.count);
  else
    r.f.resize(e.count);
  return r;
}

//===--- Element functions (spyre/ISA/ElementMath.h) ----------------------===//

// The compute-level kinds carry the SFP op codes as their values
// (SpyreEnums.td), so a kind is its SFP op.
template <typename Kind, typename SfpOp>
constexpr bool sameCode(Kind kind, SfpOp op) {
  return uint32_t(kind) == uint32_t(op);
}
static_assert(sameCode(UnaryKind::neg, isa::UnaryOp::Neg) &&
                  sameCode(UnaryKind::gelu, isa::UnaryOp::GeluErf) &&
                  sameCode(UnaryKind::sign, isa::UnaryOp::Sign),
              "UnaryKind values are isa::UnaryOp codes");
static_assert(sameCode(BinaryKind::add, isa::BinaryOp::Add) &&
                  sameCode(BinaryKind::logical_and, isa::BinaryOp::And) &&
                  sameCode(BinaryKind::remainder, isa::BinaryOp::Remainder) &&
                  sameCode(ComparePredicate::eq, isa::BinaryOp::Eq) &&
                  sameCode(ComparePredicate::ge, isa::BinaryOp::Ge),
              "BinaryKind and ComparePredicate values are isa::BinaryOp codes");
static_assert(sameCode(ReduceKind::sum, isa::ReduceOp::Sum) &&
                  sameCode(ReduceKind::argmin, isa::ReduceOp::ArgMin) &&
                  sameCode(ReduceKind::prod, isa::ReduceOp::Prod),
              "ReduceKind values are isa::ReduceOp codes");

isa::UnaryOp sfpOpOf(UnaryKind kind) { return isa::UnaryOp(uint32_t(kind)); }
isa::BinaryOp sfpOpOf(BinaryKind kind) { return isa::BinaryOp(uint32_t(kind)); }
isa::BinaryOp sfpOpOf(ComparePredicate predicate) {
  return isa::BinaryOp(uint32_t(predicate));
}

Attribute foldElementwiseBinary(isa::BinaryOp op, Attribute lhs, Attribute rhs,
                                Type resultType) {
  if (!allReadable({lhs, rhs}))
    return nullptr;
  std::optional<Tensor> a = load(lhs), b = load(rhs);
  if (!a || !b)
    return nullptr;
  std::optional<Elementwise> e = prepare({&*a, &*b}, resultType);
  if (!e)
    return nullptr;
  // Integers stay integers except for true division, as on the SFP.
  bool intDomain = a->isInt && b->isInt && isa::hasIntegerForm(op);
  Tensor r = resultOf(*e, intDomain);
  if (intDomain) {
    for (int64_t k = 0; k < e->count; ++k)
      r.i[k] = isa::binaryI(op, a->i[e->indices[0][k]], b->i[e->indices[1][k]]);
  } else {
    std::vector<float> x = asFloat(*a), y = asFloat(*b);
    for (int64_t k = 0; k < e->count; ++k)
      r.f[k] = isa::binaryF(op, x[e->indices[0][k]], y[e->indices[1][k]]);
  }
  return store(r, resultType);
}

//===--- Selection --------------------------------------------------------===//

/// Picks each element of `t` where `c` is non-zero, else of `f`: the values
/// share the result's type, so they are picked, never converted.
Tensor selectElements(const Elementwise &e, const Tensor &c, const Tensor &t,
                      const Tensor &f) {
  Tensor r = resultOf(e, t.isInt);
  for (int64_t k = 0; k < e.count; ++k) {
    int64_t ci = e.indices[0][k];
    bool take = c.isInt ? c.i[ci] != 0 : c.f[ci] != 0.0f;
    const Tensor &from = take ? t : f;
    int64_t index = e.indices[take ? 1 : 2][k];
    if (r.isInt)
      r.i[k] = from.i[index];
    else
      r.f[k] = from.f[index];
  }
  return r;
}

//===--- Reductions -------------------------------------------------------===//

/// A reduction's iteration: `outer` x `inner` lines of `len` elements.
struct ReduceLines {
  int64_t outer, len, inner;
};

/// The lines reducing `x` along `dim`, or std::nullopt when `dim` is out of
/// range, the lines are empty or the fold is over the size limits.
std::optional<ReduceLines> reduceLines(const Tensor &x, int64_t dim) {
  int64_t rank = int64_t(x.shape.size());
  if (dim < 0 || dim >= rank)
    return std::nullopt;
  ArrayRef<int64_t> shape = x.shape;
  ReduceLines l{numElements(shape.take_front(dim)), shape[dim],
                numElements(shape.drop_front(dim + 1))};
  if (l.len == 0 || l.outer * l.inner > kMaxElements ||
      l.outer * l.len * l.inner > kMaxWork)
    return std::nullopt;
  return l;
}

/// An empty result of reducing `x` along `dim`: the dim kept with size 1,
/// integer for integer inputs and for arg reductions.
Tensor reducedResult(const Tensor &x, int64_t dim, bool isArg, int64_t lines) {
  SmallVector<int64_t> outShape(x.shape);
  outShape[dim] = 1;
  Tensor r;
  r.shape = outShape;
  r.isInt = isArg || x.isInt;
  if (r.isInt)
    r.i.resize(lines);
  else
    r.f.resize(lines);
  return r;
}

/// Reduces line (o, in) of `x`: in order along the dim, as the SFP folds
/// elements, or for `rowSum` lane-wise through `row` (sumRowF).
isa::ReduceState reduceLine(isa::ReduceOp op, const Tensor &x,
                            const ReduceLines &l, int64_t o, int64_t in,
                            bool rowSum, std::vector<float> &row) {
  isa::ReduceState s;
  if (rowSum) {
    for (int64_t j = 0; j < l.len; ++j)
      row[j] = x.f[x.at(o * l.len + j)];
    s.f = isa::sumRowF(row.data(), row.size());
    return s;
  }
  for (int64_t j = 0; j < l.len; ++j) {
    int64_t at = x.at((o * l.len + j) * l.inner + in);
    if (x.isInt)
      isa::reduceStepI(op, s, x.i[at], j);
    else
      isa::reduceStepF(op, s, x.f[at], j);
  }
  return s;
}

/// Reduces every line of `x` into `r`, one line at a time.
void reduceAllLines(ReduceKind kind, const Tensor &x, const ReduceLines &l,
                    bool isArg, Tensor &r) {
  auto op = isa::ReduceOp(uint32_t(kind));
  // Along the innermost dim the device adds a row lane-wise (sumRowF).
  bool rowSum = kind == ReduceKind::sum && !x.isInt && l.inner == 1;
  std::vector<float> row(rowSum ? l.len : 0);
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t in = 0; in < l.inner; ++in) {
      isa::ReduceState s = reduceLine(op, x, l, o, in, rowSum, row);
      int64_t line = o * l.inner + in;
      if (isArg)
        r.i[line] = s.index;
      else if (r.isInt)
        r.i[line] = s.i;
      else
        r.f[line] = s.f;
    }
}

//===--- Matmul -----------------------------------------------------------===//

/// The sizes of a matmul of [m, k] by [k, n] matrices.
struct MatmulSizes {
  int64_t m, k, n;
};

/// The sizes of `a` x `b` (each optionally transposed) into `rt`, or
/// std::nullopt when a rank is below 2 or the contraction sizes differ.
std::optional<MatmulSizes> matmulSizes(const Tensor &a, const Tensor &b,
                                       bool transposeLhs, bool transposeRhs,
                                       RankedTensorType rt) {
  if (a.shape.size() < 2 || b.shape.size() < 2 || rt.getRank() < 2)
    return std::nullopt;
  ArrayRef<int64_t> as = a.shape, bs = b.shape;
  int64_t ra = as.size(), rb = bs.size();
  MatmulSizes s;
  s.m = transposeLhs ? as[ra - 1] : as[ra - 2];
  s.k = transposeLhs ? as[ra - 2] : as[ra - 1];
  s.n = transposeRhs ? bs[rb - 2] : bs[rb - 1];
  if ((transposeRhs ? bs[rb - 1] : bs[rb - 2]) != s.k)
    return std::nullopt;
  return s;
}

/// Whether a matmul of `batches` products is over the size limits; a splat
/// result computes one element.
bool exceedsMatmulLimits(const MatmulSizes &s, int64_t batches, bool splat) {
  if (splat)
    return s.k > kMaxWork;
  int64_t elements = batches * s.m * s.n;
  return elements > kMaxElements || elements * s.k > kMaxWork;
}

/// Which matrix of `t` every batch of `batchShape` reads (broadcast).
std::vector<int64_t> matrixIndices(const Tensor &t,
                                   ArrayRef<int64_t> batchShape) {
  Tensor batch;
  batch.shape.assign(t.shape.begin(), t.shape.end() - 2);
  batch.splat = t.splat;
  return broadcastIndices(batch, batchShape);
}

/// A matmul's operands in fp32, ready to compute result elements.
struct MatmulOperands {
  const Tensor &a, &b;
  std::vector<float> x, y; // a and b in fp32
  MatmulSizes s;
  bool transposeLhs, transposeRhs;

  /// Element (i, j) of the product of the matrices at stored offsets
  /// `aBase` and `bBase`, accumulated in fp32 in k order, as the PT unit
  /// does.
  float dot(int64_t aBase, int64_t bBase, int64_t i, int64_t j) const {
    float c = 0.0f;
    for (int64_t p = 0; p < s.k; ++p) {
      float u = x[a.at(aBase + (transposeLhs ? p * s.m + i : i * s.k + p))];
      float v = y[b.at(bBase + (transposeRhs ? j * s.k + p : p * s.n + j))];
      c += u * v;
    }
    return c;
  }
};

/// Every element of the `batches` products, in row-major order.
std::vector<float> multiplyBatches(const MatmulOperands &ops, int64_t batches,
                                   ArrayRef<int64_t> batchShape) {
  const MatmulSizes &s = ops.s;
  std::vector<int64_t> am = matrixIndices(ops.a, batchShape),
                       bm = matrixIndices(ops.b, batchShape);
  std::vector<float> out(batches * s.m * s.n);
  for (int64_t bi = 0; bi < batches; ++bi)
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j)
        out[(bi * s.m + i) * s.n + j] =
            ops.dot(am[bi] * s.m * s.k, bm[bi] * s.k * s.n, i, j);
  return out;
}

//===--- Concatenation ----------------------------------------------------===//

/// The loaded inputs of a concat into a rank-`rank` result, or std::nullopt
/// when one does not load, has another rank or another domain.
std::optional<SmallVector<Tensor>> loadConcatParts(ArrayRef<Attribute> inputs,
                                                   int64_t rank) {
  if (!allReadable(inputs))
    return std::nullopt;
  SmallVector<Tensor> parts;
  for (Attribute a : inputs) {
    std::optional<Tensor> t = load(a);
    if (!t || t->shape.size() != size_t(rank) ||
        t->isInt != (parts.empty() ? t->isInt : parts.front().isInt))
      return std::nullopt;
    parts.push_back(std::move(*t));
  }
  return parts;
}

/// Appends to `r`, in row-major order, each input's block along `dim` for
/// every outer index.
void appendConcatBlocks(ArrayRef<Tensor> parts, int64_t dim, int64_t outer,
                        int64_t inner, Tensor &r) {
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor &t : parts) {
      int64_t block = t.shape[dim] * inner;
      for (int64_t e = 0; e < block; ++e) {
        int64_t index = t.at(o * block + e);
        if (r.isInt)
          r.i.push_back(t.i[index]);
        else
          r.f.push_back(t.f[index]);
      }
    }
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

bool isFoldable(Attribute attr) { return bool(readable(attr)); }

Attribute foldUnary(UnaryKind kind, Attribute input, Type resultType) {
  std::optional<Tensor> x = load(input);
  if (!x)
    return nullptr;
  std::optional<Elementwise> e = prepare({&*x}, resultType);
  if (!e)
    return nullptr;
  isa::UnaryOp op = sfpOpOf(kind);
  bool intDomain = x->isInt && isa::hasIntegerForm(op);
  Tensor r = resultOf(*e, intDomain);
  if (intDomain) {
    for (int64_t k = 0; k < e->count; ++k)
      r.i[k] = isa::unaryI(op, x->i[e->indices[0][k]]);
  } else {
    std::vector<float> v = asFloat(*x);
    for (int64_t k = 0; k < e->count; ++k)
      r.f[k] = isa::unaryF(op, v[e->indices[0][k]]);
  }
  return store(r, resultType);
}

Attribute foldBinary(BinaryKind kind, Attribute lhs, Attribute rhs,
                     Type resultType) {
  return foldElementwiseBinary(sfpOpOf(kind), lhs, rhs, resultType);
}

Attribute foldCompare(ComparePredicate predicate, Attribute lhs, Attribute rhs,
                      Type resultType) {
  return foldElementwiseBinary(sfpOpOf(predicate), lhs, rhs, resultType);
}

Attribute foldSelect(Attribute condition, Attribute onTrue, Attribute onFalse,
                     Type resultType) {
  if (!allReadable({condition, onTrue, onFalse}))
    return nullptr;
  std::optional<Tensor> c = load(condition), t = load(onTrue),
                        f = load(onFalse);
  if (!c || !t || !f || t->isInt != f->isInt)
    return nullptr;
  std::optional<Elementwise> e = prepare({&*c, &*t, &*f}, resultType);
  if (!e)
    return nullptr;
  return store(selectElements(*e, *c, *t, *f), resultType);
}

Attribute foldCast(Attribute input, Type resultType) {
  std::optional<Tensor> x = load(input);
  if (!x)
    return nullptr;
  // The SFP copies through the input's domain; the store converts.
  return store(*x, resultType);
}

Attribute foldReduce(ReduceKind kind, Attribute input, int64_t dim,
                     Type resultType) {
  std::optional<Tensor> x = load(input);
  if (!x)
    return nullptr;
  std::optional<ReduceLines> l = reduceLines(*x, dim);
  if (!l)
    return nullptr;
  bool isArg = kind == ReduceKind::argmax || kind == ReduceKind::argmin;
  Tensor r = reducedResult(*x, dim, isArg, l->outer * l->inner);
  reduceAllLines(kind, *x, *l, isArg, r);
  return store(r, resultType);
}

Attribute foldMatmul(Attribute lhs, Attribute rhs, bool transposeLhs,
                     bool transposeRhs, Type resultType) {
  if (!allReadable({lhs, rhs}))
    return nullptr;
  std::optional<Tensor> a = load(lhs), b = load(rhs);
  auto rt = dyn_cast<RankedTensorType>(resultType);
  if (!a || !b || !rt || !rt.hasStaticShape())
    return nullptr;
  std::optional<MatmulSizes> s =
      matmulSizes(*a, *b, transposeLhs, transposeRhs, rt);
  if (!s)
    return nullptr;
  ArrayRef<int64_t> batchShape = rt.getShape().drop_back(2);
  int64_t batches = numElements(batchShape);
  bool splat = a->splat && b->splat;
  if (exceedsMatmulLimits(*s, batches, splat))
    return nullptr;
  MatmulOperands ops{*a, *b,           asFloat(*a), asFloat(*b),
                     *s, transposeLhs, transposeRhs};
  Tensor r;
  r.shape.assign(rt.getShape().begin(), rt.getShape().end());
  r.splat = splat;
  if (splat)
    r.f.push_back(ops.dot(0, 0, 0, 0));
  else
    r.f = multiplyBatches(ops, batches, batchShape);
  return store(r, resultType);
}

Attribute foldTranspose(Attribute input, ArrayRef<int64_t> permutation,
                        Type resultType) {
  std::optional<Tensor> x = load(input);
  auto rt = dyn_cast<RankedTensorType>(resultType);
  if (!x || !rt || !rt.hasStaticShape() ||
      permutation.size() != x->shape.size())
    return nullptr;
  if (x->splat)
    return store(*x, resultType);
  SmallVector<int64_t> inStrides = rowMajorStrides(x->shape);
  // Result dim d walks input dim permutation[d].
  SmallVector<int64_t> strides;
  for (int64_t p : permutation)
    strides.push_back(inStrides[p]);
  ArrayRef<int64_t> shape = rt.getShape();
  std::vector<int64_t> indices = stridedOffsets(0, strides, shape);
  return store(pick(*x, shape, indices), resultType);
}

Attribute foldReshape(Attribute input, Type resultType) {
  std::optional<Tensor> x = load(input);
  if (!x)
    return nullptr;
  // Same elements in row-major order: only the shape changes.
  return store(*x, resultType);
}

Attribute foldBroadcast(Attribute input, Type resultType) {
  std::optional<Tensor> x = load(input);
  auto rt = dyn_cast<RankedTensorType>(resultType);
  if (!x || !rt || !rt.hasStaticShape() ||
      x->shape.size() > size_t(rt.getRank()))
    return nullptr;
  if (x->splat)
    return store(*x, resultType);
  if (rt.getNumElements() > kMaxElements)
    return nullptr;
  return store(pick(*x, rt.getShape(), broadcastIndices(*x, rt.getShape())),
               resultType);
}

Attribute foldSlice(Attribute input, ArrayRef<int64_t> offsets,
                    ArrayRef<int64_t> strides, Type resultType) {
  std::optional<Tensor> x = load(input);
  auto rt = dyn_cast<RankedTensorType>(resultType);
  int64_t rank = x ? int64_t(x->shape.size()) : 0;
  if (!x || !rt || !rt.hasStaticShape() || rt.getRank() != rank ||
      int64_t(offsets.size()) != rank || int64_t(strides.size()) != rank)
    return nullptr;
  if (x->splat)
    return store(*x, resultType);
  SmallVector<int64_t> inStrides = rowMajorStrides(x->shape);
  int64_t start = 0;
  SmallVector<int64_t> step(rank);
  for (int64_t d = 0; d < rank; ++d) {
    start += offsets[d] * inStrides[d];
    step[d] = strides[d] * inStrides[d];
  }
  ArrayRef<int64_t> shape = rt.getShape();
  std::vector<int64_t> indices = stridedOffsets(start, step, shape);
  return store(pick(*x, shape, indices), resultType);
}

Attribute foldConcat(ArrayRef<Attribute> inputs, int64_t dim, Type resultType) {
  auto rt = dyn_cast<RankedTensorType>(resultType);
  if (inputs.empty() || !rt || !rt.hasStaticShape() || dim < 0 ||
      dim >= rt.getRank() || rt.getNumElements() > kMaxElements)
    return nullptr;
  std::optional<SmallVector<Tensor>> parts =
      loadConcatParts(inputs, rt.getRank());
  if (!parts)
    return nullptr;
  ArrayRef<int64_t> shape = rt.getShape();
  int64_t outer = numElements(shape.take_front(dim));
  int64_t inner = numElements(shape.drop_front(dim + 1));
  Tensor r;
  r.shape.assign(shape.begin(), shape.end());
  r.isInt = parts->front().isInt;
  // Row-major: for each outer index, every input's block along `dim`.
  appendConcatBlocks(*parts, dim, outer, inner, r);
  return store(r, resultType);
}

} // namespace spyre::constfold
