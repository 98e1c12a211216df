//===- Creation.cpp - Joined and generated tensor aten ops ----------------===//
//
// Tensors built from parts (cat, stack, repeat, pad) become `spyre.concat`
// of their inputs and splats; tensor factories (full, zeros, arange,
// scalar_tensor) constants; triangular masks (triu, tril) selects on iota
// comparisons. Adapter: RoPE's rotate_half concatenation as a matmul.
//
//===----------------------------------------------------------------------===//

#include "ShapeCommon.h"

#include "spyre/Transforms/CostModel.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace spyre {
namespace {

//===----------------------------------------------------------------------===//
// Adapter: RoPE's rotate_half as a matmul
//===----------------------------------------------------------------------===//
//
// Llama-style rotary embeddings export rotate_half(x) (x: [..., D], D the
// head dim, innermost: the stick dim) as
//   cat(neg(slice(x, -1, D/2, D)), slice(x, -1, 0, D/2), dim = -1).
// Decomposed literally that is two slices of the stick dim, a neg and a
// concatenation: three data movement kernels (each a device-memory round
// trip, half-stick windows moved as exact byte runs) plus the neg.
// rotate_half is linear: rotate_half(x) = x @ R with R the constant D x D
// signed permutation R[j + D/2][j] = -1, R[j - D/2][j] = +1. One matmul on
// the PT array reads x once, writes the result once and takes the
// following `* sin` as its epilogue. It is exact: every output is one input
// times +-1 plus zeros, accumulated in f32 (for finite x; an inf or NaN in
// a row would spread over the row through the zeros of R).
//
// It is not always cheaper: the matmul does rows * D * D MACs and reads R
// (D * D elements) where the slices only move rows * D elements. The choice
// is made per node with the machine description's cost model (roofline
// time of each kernel plus a fixed cost per kernel: the barrier between
// kernels and one memory latency). With the default description the matmul
// wins for every prefill shape up to D ~ 2000, and in decode (a few rows)
// while D <= ~300, where reading R starts to cost more than the two extra
// kernels save. (On test/e2e/models/block_llama_decoder, D = 32, the
// simulator measured 70.9 us with the rewrite against 81.8 us without:
// 32 kernels instead of 40, with bit-identical outputs.)

/// Bytes of a [rows, cols] tensor stored in whole sticks.
int64_t stickedBytes(const Arch &arch, int64_t rows, int64_t cols,
                     int64_t elementBytes) {
  int64_t e = arch.elementsPerStick(elementBytes);
  return rows * ((cols + e - 1) / e) * arch.stickBytes;
}

/// Whether x @ R ([rows, d] by [d, d]) is estimated faster than the slice,
/// slice, (neg,) concat kernels it replaces.
bool rotateHalfByMatmulIsCheaper(const Arch &arch, int64_t rows, int64_t d,
                                 int64_t elementBytes) {
  auto bytes = [&](int64_t r, int64_t c) {
    return stickedBytes(arch, r, c, elementBytes);
  };
  double perKernel =
      double(arch.barrierLatencyNs + arch.kernelSyncNs + arch.memoryLatencyNs);
  int64_t half = bytes(rows, d / 2), full = bytes(rows, d);
  // Each slice reads and writes a half; the concatenation reads both halves
  // and writes the whole. The neg is counted as fused (free): the estimate
  // favours the slices.
  double slices = rooflineNs(arch, 0, half, half) * 2 +
                  rooflineNs(arch, 0, 2 * half, full) + 3 * perKernel;
  int64_t width = arch.ptCols * arch.ptSimd;
  int64_t macs = ((rows + arch.ptRows - 1) / arch.ptRows * arch.ptRows) *
                 ((d + width - 1) / width * width) * d;
  double matmul = rooflineNs(arch, macs, full + bytes(d, d), full) + perKernel;
  return matmul <= slices;
}

/// Whether `slice` (from `inShape` to `outShape`) keeps every dim whole but
/// the last, which it cuts to [start, start + size), all with unit strides.
bool cutsOnlyLastDim(SliceOp slice, ArrayRef<int64_t> inShape,
                     ArrayRef<int64_t> outShape, int64_t start, int64_t size) {
  int64_t last = int64_t(inShape.size()) - 1;
  for (int64_t d = 0; d <= last; ++d) {
    if (slice.getStrides()[d] != 1)
      return false;
    if (slice.getOffsets()[d] != (d == last ? start : 0))
      return false;
    if (outShape[d] != (d == last ? size : inShape[d]))
      return false;
  }
  return true;
}

/// `v` as `SliceOp` of `x` along the last dim at [start, start + size),
/// unit strides, every other dim whole; with `soleUse`, `v` read only once.
bool isLastDimWindow(Value v, Value &x, int64_t start, int64_t size,
                     bool soleUse = true) {
  auto slice = v.getDefiningOp<SliceOp>();
  if (!slice || (soleUse && !slice->hasOneUse()))
    return false;
  Value in = slice.getInput();
  if (x && in != x)
    return false;
  ArrayRef<int64_t> inShape = shapeOf(in), outShape = shapeOf(v);
  if (inShape.empty() || outShape.size() != inShape.size())
    return false;
  if (!cutsOnlyLastDim(slice, inShape, outShape, start, size))
    return false;
  x = in;
  return true;
}

/// Whether a concatenation of `parts` along `dim` into `type` has
/// rotate_half's form: two parts along the innermost dim, a float one of
/// even size >= 2.
bool hasRotateHalfShape(ArrayRef<Value> parts, int64_t dim,
                        RankedTensorType type) {
  int64_t rank = type.getRank();
  if (parts.size() != 2 || dim != rank - 1 || rank < 1 ||
      !isa<FloatType>(type.getElementType()))
    return false;
  int64_t d = type.getShape().back();
  return d >= 2 && d % 2 == 0;
}

/// The input of `v`'s defining neg when `v` is its only use, else null.
Value negatedInput(Value v) {
  auto neg = v.getDefiningOp<UnaryOp>();
  if (!neg || neg.getKind() != UnaryKind::neg || !neg->hasOneUse())
    return nullptr;
  return neg.getInput();
}

/// The rotate_half pattern above, on the concatenation's already decomposed
/// inputs: returns x, or null.
Value matchRotateHalf(ArrayRef<Value> parts, int64_t dim,
                      RankedTensorType type) {
  if (!hasRotateHalfShape(parts, dim, type))
    return nullptr;
  int64_t d = type.getShape().back();
  Value negated = negatedInput(parts[0]);
  if (!negated)
    return nullptr;
  Value x;
  if (!isLastDimWindow(negated, x, d / 2, d / 2) ||
      !isLastDimWindow(parts[1], x, 0, d / 2) || x.getType() != type)
    return nullptr;
  return x;
}

/// x @ R for the rotate_half permutation R of x's last dim.
Value rotateHalfByMatmul(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  Type et = type.getElementType();
  int64_t d = type.getShape().back();
  auto rType = RankedTensorType::get({d, d}, et);
  auto ft = cast<FloatType>(et);
  APFloat zero = APFloat::getZero(ft.getFloatSemantics());
  APFloat one = APFloat::getOne(ft.getFloatSemantics());
  APFloat minusOne = APFloat::getOne(ft.getFloatSemantics(), true);
  SmallVector<APFloat> r(d * d, zero);
  for (int64_t j = 0; j < d; ++j) {
    if (j < d / 2)
      r[(j + d / 2) * d + j] = minusOne; // out[j] = -x[j + D/2]
    else
      r[(j - d / 2) * d + j] = one; // out[j] = x[j - D/2]
  }
  Value rot =
      ConstantOp::create(b, loc, rType, DenseElementsAttr::get(rType, r));
  return MatmulOp::create(b, loc, type, x, rot);
}

//===----------------------------------------------------------------------===//
// Adapter: RoPE on the halves of x as rotate_half
//===----------------------------------------------------------------------===//
//
// gpt-oss (transformers' `_apply_rotary_emb`) rotates the two halves of x
// (`a, b = chunk(x, 2, -1)`, cos and sin of D/2) and joins them:
//   cat(a * cos - b * sin, b * cos + a * sin, dim = -1).
// Decomposed literally that is two half-stick slices, four multiplies, a sub,
// an add and a concatenation: five or more kernels per q and k, each half
// moved through device memory. It equals the Llama form on whole rows,
//   x * cat(cos, cos) + rotate_half(x) * cat(sin, sin),
// (first half: a * cos + (-b) * sin, second: b * cos + a * sin, the same
// products and sums, so the same roundings), whose rotate_half is the
// matmul above with the multiplies in its epilogue: one kernel. cat(cos,
// cos) and cat(sin, sin) are built from the tables (constants fold; a table
// computed on the device adds one small concatenation). Rewritten only when
// the rotate_half matmul is the cheaper form and the products, the sub and
// the add feed nothing else (nothing is computed twice).

/// The factor `product` multiplies the last-dim window [start, start + h) of
/// `x` by (either operand order, `x` set by the first window seen), when
/// `product` is a one-use multiply of that window's shape; else null.
Value factorOfWindow(Value product, Value &x, int64_t start, int64_t h) {
  auto mul = product.getDefiningOp<BinaryOp>();
  if (!mul || mul.getKind() != BinaryKind::mul || !mul->hasOneUse())
    return nullptr;
  for (auto [half, factor] : {std::pair(mul.getLhs(), mul.getRhs()),
                              std::pair(mul.getRhs(), mul.getLhs())}) {
    Value window = x;
    if (shapeOf(product) == shapeOf(half) &&
        isLastDimWindow(half, window, start, h, /*soleUse=*/false)) {
      x = window;
      return factor;
    }
  }
  return nullptr;
}

/// `v`'s defining binary op of `kind` when `v` is its only use.
BinaryOp soleBinary(Value v, BinaryKind kind) {
  auto bin = v.getDefiningOp<BinaryOp>();
  return bin && bin.getKind() == kind && bin->hasOneUse() ? bin : BinaryOp();
}

/// The rotation of the halves: x, cos and sin, when `parts` are
/// [a * cos - b * sin, b * cos + a * sin] of x's halves a and b.
struct HalfRotation {
  Value x, cos, sin;
};

std::optional<HalfRotation>
matchHalfRotation(ArrayRef<Value> parts, int64_t dim, RankedTensorType type) {
  if (!hasRotateHalfShape(parts, dim, type))
    return std::nullopt;
  int64_t h = type.getShape().back() / 2;
  BinaryOp first = soleBinary(parts[0], BinaryKind::sub);
  BinaryOp second = soleBinary(parts[1], BinaryKind::add);
  if (!first || !second)
    return std::nullopt;
  HalfRotation r;
  r.cos = factorOfWindow(first.getLhs(), r.x, 0, h);
  r.sin = factorOfWindow(first.getRhs(), r.x, h, h);
  if (!r.cos || !r.sin || r.x.getType() != type)
    return std::nullopt;
  // b * cos + a * sin, in either order.
  for (auto [bc, as] : {std::pair(second.getLhs(), second.getRhs()),
                        std::pair(second.getRhs(), second.getLhs())})
    if (factorOfWindow(bc, r.x, h, h) == r.cos &&
        factorOfWindow(as, r.x, 0, h) == r.sin)
      return r;
  return std::nullopt;
}

/// A table of the halves' width as a table of whole rows: cat(t, t) along
/// the last dim (t itself when that dim broadcasts).
Value doubledTable(OpBuilder &b, Location loc, Value t) {
  ArrayRef<int64_t> shape = shapeOf(t);
  if (shape.empty() || shape.back() == 1)
    return t;
  return concatAlong(b, loc, {t, t}, int64_t(shape.size()) - 1);
}

/// x * cat(cos, cos) + rotate_half(x) * cat(sin, sin), rotate_half as x @ R.
Value rotateByHalves(OpBuilder &b, Location loc, const HalfRotation &r) {
  auto type = cast<RankedTensorType>(r.x.getType());
  Value xc = BinaryOp::create(b, loc, type, BinaryKind::mul, r.x,
                              doubledTable(b, loc, r.cos));
  Value rs = BinaryOp::create(b, loc, type, BinaryKind::mul,
                              rotateHalfByMatmul(b, loc, r.x),
                              doubledTable(b, loc, r.sin));
  return BinaryOp::create(b, loc, type, BinaryKind::add, xc, rs);
}

/// Whether the rotate_half matmul is the cheaper form for `type` by the
/// machine description's cost model.
bool rotateHalfByMatmulPays(Operation *op, RankedTensorType type) {
  int64_t d = type.getShape().back();
  return rotateHalfByMatmulIsCheaper(getArch(op), type.getNumElements() / d, d,
                                     getElementBytes(type.getElementType()));
}

LogicalResult decomposeCat(AtenOp op, const AtenArgs &args, RewriterBase &rw) {
  SmallVector<Value> inputs = args.tensorList("tensors");
  FailureOr<int64_t> dim = args.getInt("dim");
  if (failed(dim))
    return failure();
  RankedTensorType type = resultType(op);
  FailureOr<int64_t> d = normalizeDim(op, *dim, type.getRank());
  if (failed(d))
    return failure();
  // Empty inputs (legacy 1-D [0] tensors included) add nothing.
  SmallVector<Value> parts;
  for (Value v : inputs)
    if (shapeOf(v).size() == size_t(type.getRank()) && shapeOf(v)[*d] != 0)
      parts.push_back(castTo(rw, op.getLoc(), v, type.getElementType()));
  if (parts.empty()) { // every input empty: so is the result
    rw.replaceOp(op, createSplat(rw, op.getLoc(), type.getElementType(), 0,
                                 type.getShape()));
    return success();
  }
  if (parts.size() == 1) {
    rw.replaceOp(op, parts.front());
    return success();
  }
  // The slices and the neg (or the products) are left dead; the pass's
  // clean-up erases them.
  if (Value x = matchRotateHalf(parts, *d, type);
      x && rotateHalfByMatmulPays(op, type)) {
    rw.replaceOp(op, rotateHalfByMatmul(rw, op.getLoc(), x));
    return success();
  }
  if (std::optional<HalfRotation> r = matchHalfRotation(parts, *d, type);
      r && rotateHalfByMatmulPays(op, type)) {
    rw.replaceOp(op, rotateByHalves(rw, op.getLoc(), *r));
    return success();
  }
  rw.replaceOpWithNewOp<ConcatOp>(op, type, parts, *d);
  return success();
}

/// stack(tensors, dim): each input with a 1 inserted at `dim`, then one
/// concatenation.
LogicalResult decomposeStack(AtenOp op, const AtenArgs &args,
                             RewriterBase &rw) {
  SmallVector<Value> inputs = args.tensorList("tensors");
  FailureOr<int64_t> dim = args.getInt("dim");
  if (failed(dim))
    return failure();
  RankedTensorType type = resultType(op);
  FailureOr<int64_t> d = normalizeDim(op, *dim, type.getRank());
  if (failed(d))
    return failure();
  if (inputs.empty())
    return op.emitError("stack needs at least one tensor");
  Location loc = op.getLoc();
  SmallVector<Value> parts;
  for (Value v : inputs) {
    SmallVector<int64_t> shape(shapeOf(v));
    shape.insert(shape.begin() + *d, 1);
    parts.push_back(
        reshapeTo(rw, loc, castTo(rw, loc, v, type.getElementType()), shape));
  }
  rw.replaceOp(op, concatAlong(rw, loc, parts, *d));
  return success();
}

/// repeat(self, repeats): leading 1s for extra repeat counts, then every
/// repeated dim but the last as a broadcast of a new dim before it, merged
/// into it (views: [.., 1, n, ..] -> [.., count, n, ..] -> [.., count * n,
/// ..]), so that a reader can read the copies as one tensor broadcast
/// (gpt-oss's experts: hidden.repeat(E, 1).view(E, T, H) @ w reads hidden
/// once for every expert); the last dim as a concatenation of copies (the
/// copies are DMA moves).
LogicalResult decomposeRepeat(AtenOp op, const AtenArgs &args,
                              RewriterBase &rw) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<SmallVector<int64_t>> repeats = args.getIntList("repeats");
  if (failed(x) || failed(repeats))
    return failure();
  ArrayRef<int64_t> in = shapeOf(*x);
  if (repeats->size() < in.size())
    return op.emitError("repeat needs a count for every dim (")
           << in.size() << "), got " << repeats->size();
  if (llvm::any_of(*repeats, [](int64_t r) { return r < 0; }))
    return op.emitError("repeat counts must be >= 0");
  Location loc = op.getLoc();
  RankedTensorType type = resultType(op);
  if (type.getNumElements() == 0) { // a count of 0, or an empty input
    rw.replaceOp(
        op, createSplat(rw, loc, type.getElementType(), 0, type.getShape()));
    return success();
  }
  SmallVector<int64_t> shape(repeats->size() - in.size(), 1);
  shape.append(in.begin(), in.end());
  Value v = reshapeTo(rw, loc, *x, shape);
  int64_t last = int64_t(repeats->size()) - 1;
  for (auto [d, count] : llvm::enumerate(*repeats)) {
    if (count == 1)
      continue;
    if (int64_t(d) == last) {
      v = concatAlong(rw, loc, SmallVector<Value>(count, v), last);
      continue;
    }
    SmallVector<int64_t> split(shapeOf(v));
    split.insert(split.begin() + d, 1);
    Value one = reshapeTo(rw, loc, v, split);
    split[d] = count;
    Value copies = BroadcastOp::create(
        rw, loc, RankedTensorType::get(split, type.getElementType()), one);
    split[d] *= split[d + 1];
    split.erase(split.begin() + d + 1);
    v = reshapeTo(rw, loc, copies, split);
  }
  rw.replaceOp(op, v);
  return success();
}

/// The tensor pad reads: `input` (pad) or `self` (constant_pad_nd); null
/// when neither is given.
Value padInput(const AtenArgs &args) {
  Value input = args.optionalTensor("input");
  if (!input)
    input = args.optionalTensor("self");
  return input;
}

/// pad's optional mode: 'constant' only.
LogicalResult checkConstantPadMode(AtenOp op, const AtenArgs &args) {
  if (!op.getArg("mode"))
    return success();
  FailureOr<std::string> mode = args.getString("mode");
  if (failed(mode))
    return failure();
  if (*mode != "constant")
    return op.emitError("pad mode '")
           << *mode << "' is not supported (constant only)";
  return success();
}

/// pad's fill value (0 when None).
FailureOr<double> readPadValue(const AtenArgs &args) {
  if (args.isNone("value"))
    return 0.0;
  return args.getDouble("value");
}

/// A splat of `fill` shaped as `v` but `n` elements along `d`.
Value fillAlong(OpBuilder &b, Location loc, Value v, int64_t d, int64_t n,
                double fill) {
  SmallVector<int64_t> shape(shapeOf(v));
  shape[d] = n;
  return createSplat(b, loc, elementTypeOf(v), fill, shape);
}

/// `v` padded along `d` with `before` and `after` elements of `fill`, one
/// concatenation; negative amounts crop: a slice, before any fill is added.
FailureOr<Value> padAlong(AtenOp op, OpBuilder &b, Value v, int64_t d,
                          int64_t before, int64_t after, double fill) {
  Location loc = op.getLoc();
  int64_t cropBefore = std::max<int64_t>(0, -before);
  int64_t kept = shapeOf(v)[d] - cropBefore - std::max<int64_t>(0, -after);
  if (kept < 0)
    return op.emitError("padding crops dim ")
           << d << " of size " << shapeOf(v)[d] << " to " << kept;
  if (kept != shapeOf(v)[d])
    v = sliceAlong(b, loc, v, d, cropBefore, kept, 1);
  before = std::max<int64_t>(0, before);
  after = std::max<int64_t>(0, after);
  SmallVector<Value> parts;
  if (before)
    parts.push_back(fillAlong(b, loc, v, d, before, fill));
  parts.push_back(v);
  if (after)
    parts.push_back(fillAlong(b, loc, v, d, after, fill));
  return concatAlong(b, loc, parts, d);
}

/// constant_pad_nd / pad(mode='constant'): the input between splats of the
/// fill value, one concatenation per padded dim (innermost pairs first, as
/// torch orders `pad`).
LogicalResult decomposePad(AtenOp op, const AtenArgs &args, RewriterBase &rw) {
  Value input = padInput(args);
  if (!input)
    return op.emitError("pad needs an input tensor");
  FailureOr<SmallVector<int64_t>> pad = args.getIntList("pad");
  if (failed(pad))
    return failure();
  if (failed(checkConstantPadMode(op, args)))
    return failure();
  FailureOr<double> fill = readPadValue(args);
  if (failed(fill))
    return failure();
  if (pad->size() % 2 || pad->size() / 2 > shapeOf(input).size())
    return op.emitError("pad needs pairs for at most every dim");
  Value v = input;
  int64_t rank = shapeOf(v).size();
  for (size_t p = 0; p < pad->size() / 2; ++p) {
    FailureOr<Value> padded = padAlong(op, rw, v, rank - 1 - p, (*pad)[2 * p],
                                       (*pad)[2 * p + 1], *fill);
    if (failed(padded))
      return failure();
    v = *padded;
  }
  rw.replaceOp(op, castTo(rw, op.getLoc(), v, resultType(op).getElementType()));
  return success();
}

/// full / zeros / ones and their _like and new_ forms: a splat of the
/// result type.
DecomposeFn fill(std::optional<double> value,
                 StringRef valueName = "fill_value") {
  return [value, valueName](AtenOp op, const AtenArgs &args, RewriterBase &rw) {
    double v;
    if (value) {
      v = *value;
    } else {
      FailureOr<double> f = args.getDouble(valueName);
      if (failed(f))
        return failure();
      v = *f;
    }
    RankedTensorType type = resultType(op);
    rw.replaceOp(op, createSplat(rw, op.getLoc(), type.getElementType(), v,
                                 type.getShape()));
    return success();
  };
}

/// arange: a dense constant of the result's length.
LogicalResult decomposeArange(AtenOp op, const AtenArgs &args,
                              RewriterBase &rw) {
  double start = 0, step = 1;
  if (op.getArg("start")) {
    FailureOr<double> s = args.getDouble("start");
    if (failed(s))
      return failure();
    start = *s;
  }
  if (op.getArg("step")) {
    FailureOr<double> s = args.getDouble("step");
    if (failed(s))
      return failure();
    step = *s;
  }
  RankedTensorType type = resultType(op);
  int64_t n = type.getNumElements();
  Type et = type.getElementType();
  Attribute value;
  if (auto ft = dyn_cast<FloatType>(et)) {
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < n; ++i) {
      APFloat f(start + double(i) * step);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(f);
    }
    value = DenseElementsAttr::get(type, values);
  } else {
    SmallVector<APInt> values;
    for (int64_t i = 0; i < n; ++i)
      values.push_back(APInt(et.getIntOrFloatBitWidth(),
                             int64_t(start + double(i) * step), true));
    value = DenseElementsAttr::get(type, values);
  }
  rw.replaceOpWithNewOp<ConstantOp>(op, type, cast<ElementsAttr>(value));
  return success();
}

/// triu / tril: x where the column is on the kept side of the diagonal,
/// else 0; the mask from two small iota constants.
LogicalResult decomposeTriangle(AtenOp op, const AtenArgs &args,
                                RewriterBase &rw, bool upper) {
  FailureOr<Value> x = args.tensor("self");
  FailureOr<int64_t> diagonal = args.getInt("diagonal");
  if (failed(x) || failed(diagonal))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*x);
  if (shape.size() < 2)
    return op.emitError("triu/tril need rank >= 2");
  Location loc = op.getLoc();
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  auto iota = [&](int64_t n, bool row, int64_t bias) {
    SmallVector<int64_t> s =
        row ? SmallVector<int64_t>{1, n} : SmallVector<int64_t>{n, 1};
    auto type = RankedTensorType::get(s, rw.getI32Type());
    SmallVector<int32_t> values(n);
    for (int64_t i = 0; i < n; ++i)
      values[i] = int32_t(i + bias);
    return ConstantOp::create(rw, loc, type,
                              DenseElementsAttr::get(type, ArrayRef(values)));
  };
  // triu keeps j - i >= diagonal; tril keeps j - i <= diagonal.
  Value colIdx = iota(cols, true, 0);
  Value rowIdx = iota(rows, false, *diagonal);
  Value keep = CompareOp::create(
      rw, loc, RankedTensorType::get({rows, cols}, rw.getI1Type()),
      upper ? ComparePredicate::ge : ComparePredicate::le, colIdx, rowIdx);
  RankedTensorType type = resultType(op);
  rw.replaceOpWithNewOp<SelectOp>(
      op, type, keep, castTo(rw, loc, *x, type.getElementType()),
      createSplat(rw, loc, type.getElementType(), 0.0));
  return success();
}

/// scalar_tensor(s): a rank-0 constant.
LogicalResult decomposeScalarTensor(AtenOp op, const AtenArgs &args,
                                    RewriterBase &rw) {
  FailureOr<double> s = args.getDouble("s");
  if (failed(s))
    return failure();
  RankedTensorType type = resultType(op);
  rw.replaceOp(op, createSplat(rw, op.getLoc(), type.getElementType(), *s,
                               type.getShape()));
  return success();
}

} // namespace

void registerCreationDecompositions(DecompositionRegistry &r) {
  const char *all = "all";
  r.add({"aten.cat.default", "shape", all,
         "each input copied into its region by DMA; adapters: RoPE's "
         "rotate_half (`cat(-x[..., D/2:], x[..., :D/2])`) becomes one "
         "matmul by a constant signed permutation when the cost model "
         "says it is cheaper than slicing the stick dim, and RoPE on the "
         "halves (`cat(a * cos - b * sin, b * cos + a * sin)`, gpt-oss) "
         "becomes `x * cat(cos, cos) + rotate_half(x) * cat(sin, sin)`",
         decomposeCat});
  r.add({"aten.stack.default", "shape", all,
         "the inputs reshaped with a 1 at `dim`, then concatenated",
         decomposeStack});
  r.add({"aten.repeat.default", "shape", all,
         "a broadcast of each repeated dim but the last (views around it), a "
         "concatenation of copies along the last; counts >= 1",
         decomposeRepeat});
  r.add({"aten.constant_pad_nd.default", "shape", all,
         "the input between splats of the value, by concatenation; negative "
         "amounts crop (a slice first)",
         decomposePad});
  r.add({"aten.pad.default", "shape", all,
         "as constant_pad_nd; mode 'constant' only (reflect, replicate and "
         "circular are not supported)",
         decomposePad});
  r.add({"aten.full.default", "shape", all, "a splat constant", fill({})});
  r.add({"aten.full_like.default", "shape", all, "a splat constant", fill({})});
  r.add({"aten.new_full.default", "shape", all, "a splat constant", fill({})});
  for (const char *name : {"aten.zeros.default", "aten.zeros_like.default",
                           "aten.new_zeros.default", "aten.zero.default"})
    r.add({name, "shape", all, "a splat constant", fill(0.0)});
  r.add({"aten.fill.Scalar", "shape", all,
         "a splat constant (fill_ in place: the functional fill)",
         fill({}, "value")});
  // Uninitialized memory has no contents a correct graph reads before it
  // writes them (torch.empty + fill_/copy_/index_copy_).
  for (const char *name : {"aten.empty.memory_format",
                           "aten.empty_like.default", "aten.new_empty.default"})
    r.add(
        {name, "shape", all, "zeros (the contents are undefined)", fill(0.0)});
  for (const char *name :
       {"aten.ones.default", "aten.ones_like.default", "aten.new_ones.default"})
    r.add({name, "shape", all, "a splat constant", fill(1.0)});
  r.add({"aten.scalar_tensor.default", "shape", all, "a rank-0 constant",
         decomposeScalarTensor});
  for (const char *name :
       {"aten.arange.default", "aten.arange.start", "aten.arange.start_step"})
    r.add({name, "shape", all, "a dense constant", decomposeArange});
  r.add({"aten.triu.default", "shape", all,
         "a select on an iota comparison (no N x N constant)",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeTriangle(op, a, rw, true);
         }});
  r.add({"aten.tril.default", "shape", all, "as triu",
         [](AtenOp op, const AtenArgs &a, RewriterBase &rw) {
           return decomposeTriangle(op, a, rw, false);
         }});
}

} // namespace spyre
