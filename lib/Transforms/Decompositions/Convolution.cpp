//===- Convolution.cpp - conv1d, conv2d, convolution ----------------------===//
//
// A convolution is a sum over the kernel's taps: tap t reads the padded
// input at a strided window shifted by t (times the dilation). Each window
// is a `spyre.slice`; then
//   * depthwise (one input channel per group): each tap's window times the
//     tap's weights, added up elementwise in f32 (no contraction left for
//     the PT array);
//   * otherwise (im2col): the windows stacked along the channels are the
//     contraction dim of one batched matmul per group with the weights
//     viewed as [groups, out / groups, in / groups * taps].
// 1-D and 2-D, any stride, padding (ints, 'same' or 'valid'), dilation and
// groups; transposed convolutions are refused.
//
//===----------------------------------------------------------------------===//

#include "spyre/Transforms/Decompositions.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace spyre {
namespace {

int64_t product(ArrayRef<int64_t> v) {
  int64_t n = 1;
  for (int64_t x : v)
    n *= x;
  return n;
}

/// Stride, padding (before/after each spatial dim), dilation and groups.
struct ConvParams {
  SmallVector<int64_t> stride, padBefore, padAfter, dilation;
  int64_t groups = 1;
};

/// An int list argument of `spatial` entries (a single entry applies to
/// every dim, as torch broadcasts `stride=2`).
FailureOr<SmallVector<int64_t>> spatialList(AtenOp op, const AtenArgs &args,
                                            StringRef name, int64_t spatial) {
  FailureOr<SmallVector<int64_t>> v = args.getIntList(name);
  if (failed(v))
    return failure();
  if (v->size() == 1)
    v->assign(spatial, v->front());
  if (int64_t(v->size()) != spatial)
    return op.emitError("convolution '")
           << name << "' has " << v->size() << " entries for " << spatial
           << " spatial dims";
  return v;
}

/// Padding given as a mode: 'same' (what the window overhangs, the odd one
/// on the far side) or 'valid' (none).
LogicalResult readPaddingMode(AtenOp op, const AtenArgs &args,
                              ArrayRef<int64_t> kernel, ConvParams &p) {
  FailureOr<std::string> mode = args.getString("padding");
  if (failed(mode))
    return failure();
  if (*mode != "same" && *mode != "valid")
    return op.emitError("convolution padding '")
           << *mode << "' is not one of 'same' and 'valid'";
  for (int64_t d = 0, spatial = kernel.size(); d < spatial; ++d) {
    int64_t total = *mode == "same" ? p.dilation[d] * (kernel[d] - 1) : 0;
    p.padBefore.push_back(total / 2);
    p.padAfter.push_back(total - total / 2);
  }
  return success();
}

FailureOr<ConvParams> readParams(AtenOp op, const AtenArgs &args,
                                 ArrayRef<int64_t> kernel) {
  int64_t spatial = kernel.size();
  ConvParams p;
  FailureOr<SmallVector<int64_t>> stride =
      spatialList(op, args, "stride", spatial);
  FailureOr<SmallVector<int64_t>> dilation =
      spatialList(op, args, "dilation", spatial);
  FailureOr<int64_t> groups = args.getInt("groups");
  if (failed(stride) || failed(dilation) || failed(groups))
    return failure();
  p.stride = *stride;
  p.dilation = *dilation;
  p.groups = *groups;
  if (isa_and_nonnull<StringAttr>(args.attr("padding"))) {
    if (failed(readPaddingMode(op, args, kernel, p)))
      return failure();
    return p;
  }
  FailureOr<SmallVector<int64_t>> padding =
      spatialList(op, args, "padding", spatial);
  if (failed(padding))
    return failure();
  p.padBefore = *padding;
  p.padAfter = *padding;
  return p;
}

/// `x` with `before` / `after` zeros along dim `d`.
Value padDim(OpBuilder &b, Location loc, Value x, int64_t d, int64_t before,
             int64_t after) {
  SmallVector<Value> parts;
  auto zeros = [&](int64_t n) {
    SmallVector<int64_t> shape(shapeOf(x));
    shape[d] = n;
    return createSplat(b, loc, elementTypeOf(x), 0, shape);
  };
  if (before)
    parts.push_back(zeros(before));
  parts.push_back(x);
  if (after)
    parts.push_back(zeros(after));
  return concatAlong(b, loc, parts, d);
}

/// The window of tap `tap` (one index per spatial dim): [N, C, out...].
Value tapWindow(OpBuilder &b, Location loc, Value padded, ArrayRef<int64_t> tap,
                ArrayRef<int64_t> outSizes, const ConvParams &p) {
  int64_t rank = shapeOf(padded).size();
  SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
  SmallVector<int64_t> shape(shapeOf(padded).take_front(2));
  for (auto [d, t] : llvm::enumerate(tap)) {
    offsets[2 + d] = t * p.dilation[d];
    strides[2 + d] = p.stride[d];
    shape.push_back(outSizes[d]);
  }
  auto type = RankedTensorType::get(shape, elementTypeOf(padded));
  return SliceOp::create(b, loc, type, padded, offsets, strides);
}

/// Every tap of a kernel of `kernel` sizes, in row-major order (the order
/// of the weight's trailing dims).
SmallVector<SmallVector<int64_t>> tapsOf(ArrayRef<int64_t> kernel) {
  SmallVector<SmallVector<int64_t>> taps(1);
  for (int64_t k : kernel) {
    SmallVector<SmallVector<int64_t>> next;
    for (const SmallVector<int64_t> &t : taps)
      for (int64_t i = 0; i < k; ++i) {
        next.push_back(t);
        next.back().push_back(i);
      }
    taps = std::move(next);
  }
  return taps;
}

/// Depthwise: out[n, g * m + j, ...] = sum over taps of
/// w[g * m + j, 0, tap] * window[n, g, ...], in f32.
Value depthwise(OpBuilder &b, Location loc, ArrayRef<Value> windows,
                Value weight, ArrayRef<SmallVector<int64_t>> taps,
                int64_t groups, Type acc) {
  ArrayRef<int64_t> ws = shapeOf(weight);
  int64_t out = ws[0], perGroup = out / groups;
  SmallVector<int64_t> winShape(shapeOf(windows[0]));
  // [N, g, 1, out...] times [g, m, 1...]: [N, g, m, out...].
  SmallVector<int64_t> xShape{winShape[0], groups, 1};
  SmallVector<int64_t> wShape{groups, perGroup};
  SmallVector<int64_t> prodShape{winShape[0], groups, perGroup};
  for (int64_t s : ArrayRef<int64_t>(winShape).drop_front(2)) {
    xShape.push_back(s);
    wShape.push_back(1);
    prodShape.push_back(s);
  }
  auto prodType = RankedTensorType::get(prodShape, acc);
  Value sum;
  for (auto [window, tap] : llvm::zip(windows, taps)) {
    SmallVector<int64_t> offsets(ws.size(), 0), strides(ws.size(), 1);
    SmallVector<int64_t> tapShape{out, 1};
    for (auto [d, t] : llvm::enumerate(tap)) {
      offsets[2 + d] = t;
      tapShape.push_back(1);
    }
    Value w = SliceOp::create(
        b, loc, RankedTensorType::get(tapShape, elementTypeOf(weight)), weight,
        offsets, strides);
    w = reshapeTo(b, loc, castTo(b, loc, w, acc), wShape);
    Value x = reshapeTo(b, loc, castTo(b, loc, window, acc), xShape);
    Value term = BinaryOp::create(b, loc, prodType, BinaryKind::mul, x, w);
    sum = sum ? BinaryOp::create(b, loc, prodType, BinaryKind::add, sum, term)
              : term;
  }
  return sum;
}

/// im2col: the windows stacked after the channels, [N, g, in/g * taps, P],
/// times the weights viewed as [g, out/g, in/g * taps]: [N, g, out/g, P].
Value im2col(OpBuilder &b, Location loc, ArrayRef<Value> windows, Value weight,
             int64_t groups, Type et) {
  ArrayRef<int64_t> ws = shapeOf(weight);
  SmallVector<int64_t> winShape(shapeOf(windows[0]));
  int64_t n = winShape[0], channels = winShape[1];
  int64_t points = product(ArrayRef<int64_t>(winShape).drop_front(2));
  int64_t taps = windows.size();
  SmallVector<Value> stacked;
  for (Value w : windows) {
    SmallVector<int64_t> s(winShape);
    s.insert(s.begin() + 2, 1);
    stacked.push_back(reshapeTo(b, loc, castTo(b, loc, w, et), s));
  }
  Value cols = concatAlong(b, loc, stacked, 2); // [N, C, taps, out...]
  int64_t k = channels / groups * taps;
  cols = reshapeTo(b, loc, cols, {n, groups, k, points});
  Value w = reshapeTo(b, loc, castTo(b, loc, weight, et),
                      {groups, ws[0] / groups, k});
  auto type = RankedTensorType::get({n, groups, ws[0] / groups, points}, et);
  return MatmulOp::create(b, loc, type, w, cols);
}

/// Transposed convolutions are rejected.
LogicalResult checkNotTransposed(AtenOp op, const AtenArgs &args) {
  if (!op.getArg("transposed"))
    return success();
  FailureOr<bool> transposed = args.getBool("transposed");
  if (failed(transposed))
    return failure();
  if (*transposed)
    return op.emitError("transposed convolutions are not supported");
  return success();
}

/// `x` with a batch dim of one when it is unbatched ([C, L...]).
Value batched(OpBuilder &b, Location loc, Value x, int64_t spatial) {
  if (int64_t(shapeOf(x).size()) != spatial + 1)
    return x;
  SmallVector<int64_t> s(shapeOf(x));
  s.insert(s.begin(), 1);
  return reshapeTo(b, loc, x, s);
}

/// Checks that `groups` divides the input and output channels evenly (`ws`
/// the weight's shape).
LogicalResult checkGroups(AtenOp op, int64_t groups, int64_t channels,
                          ArrayRef<int64_t> ws) {
  if (groups < 1 || channels % groups || ws[0] % groups ||
      ws[1] * groups != channels)
    return op.emitError("convolution groups ")
           << groups << " do not divide " << channels << " input and " << ws[0]
           << " output channels";
  return success();
}

/// `x` ([N, C, L...]) with the spatial dims padded with zeros.
Value padSpatial(OpBuilder &b, Location loc, Value x, const ConvParams &p) {
  for (int64_t d = 0, spatial = p.stride.size(); d < spatial; ++d)
    if (p.padBefore[d] || p.padAfter[d])
      x = padDim(b, loc, x, 2 + d, p.padBefore[d], p.padAfter[d]);
  return x;
}

/// The output's spatial sizes for the padded input (0 where the kernel's
/// span does not fit).
SmallVector<int64_t> outputSizes(Value padded, ArrayRef<int64_t> kernel,
                                 const ConvParams &p) {
  SmallVector<int64_t> outSizes;
  for (int64_t d = 0, spatial = kernel.size(); d < spatial; ++d) {
    int64_t span = p.dilation[d] * (kernel[d] - 1) + 1;
    int64_t size = shapeOf(padded)[2 + d];
    outSizes.push_back(size < span ? 0 : (size - span) / p.stride[d] + 1);
  }
  return outSizes;
}

/// The sum over the kernel's taps of their windows times the weights:
/// depthwise multiply-adds (one input channel per group) or im2col and a
/// matmul; [N, g, out/g, points...].
Value convolveTaps(OpBuilder &b, Location loc, Value padded, Value weight,
                   ArrayRef<int64_t> outSizes, const ConvParams &p, Type et) {
  ArrayRef<int64_t> ws = shapeOf(weight);
  SmallVector<SmallVector<int64_t>> taps = tapsOf(ws.drop_front(2));
  SmallVector<Value> windows;
  for (ArrayRef<int64_t> tap : taps)
    windows.push_back(tapWindow(b, loc, padded, tap, outSizes, p));
  return ws[1] == 1 ? depthwise(b, loc, windows, weight, taps, p.groups,
                                accumulationType(et))
                    : im2col(b, loc, windows, weight, p.groups, et);
}

/// `y` ([N, out, ...]) plus the per-channel `bias`.
Value addBias(OpBuilder &b, Location loc, Value y, Value bias) {
  SmallVector<int64_t> bshape(shapeOf(y).size(), 1);
  bshape[1] = shapeOf(y)[1];
  Value bb = reshapeTo(b, loc, castTo(b, loc, bias, elementTypeOf(y)), bshape);
  return BinaryOp::create(b, loc, y.getType(), BinaryKind::add, y, bb);
}

LogicalResult decomposeConvolution(AtenOp op, const AtenArgs &args,
                                   RewriterBase &rw) {
  FailureOr<Value> input = args.tensor("input");
  FailureOr<Value> weight = args.tensor("weight");
  if (failed(input) || failed(weight))
    return failure();
  if (failed(checkNotTransposed(op, args)))
    return failure();
  Location loc = op.getLoc();
  RankedTensorType result = resultType(op);
  Type et = result.getElementType();
  ArrayRef<int64_t> ws = shapeOf(*weight);
  int64_t spatial = int64_t(ws.size()) - 2;
  if (spatial < 1 || spatial > 2)
    return op.emitError("convolutions over ")
           << spatial << " spatial dims are not supported (1 or 2)";
  // An unbatched input [C, L...] is a batch of one.
  Value x = batched(rw, loc, *input, spatial);
  ArrayRef<int64_t> kernel = ws.drop_front(2);
  FailureOr<ConvParams> p = readParams(op, args, kernel);
  if (failed(p))
    return failure();
  if (failed(checkGroups(op, p->groups, shapeOf(x)[1], ws)))
    return failure();
  Value padded = padSpatial(rw, loc, castTo(rw, loc, x, et), *p);
  SmallVector<int64_t> outSizes = outputSizes(padded, kernel, *p);
  Value y = convolveTaps(rw, loc, padded, *weight, outSizes, *p, et);
  // [N, g, out/g, ...] -> [N, out, ...].
  SmallVector<int64_t> outShape{shapeOf(x)[0], ws[0]};
  llvm::append_range(outShape, outSizes);
  y = reshapeTo(rw, loc, y, outShape);
  if (Value bias = args.optionalTensor("bias"))
    y = addBias(rw, loc, y, bias);
  y = castTo(rw, loc, y, et);
  rw.replaceOp(op, reshapeTo(rw, loc, y, result.getShape()));
  return success();
}

} // namespace

void registerConvolutionDecompositions(DecompositionRegistry &r) {
  const char *floats = "f16, bf16, f32";
  const char *notes =
      "1-D and 2-D, any stride, padding, dilation and groups: depthwise as "
      "f32 multiply-adds of the kernel taps' strided windows, otherwise "
      "im2col (the windows stacked along the channels) and one batched "
      "matmul per group; transposed convolutions are not supported";
  for (const char *name :
       {"aten.convolution.default", "aten.conv1d.default",
        "aten.conv2d.default", "aten.conv1d.padding", "aten.conv2d.padding"})
    r.add({name, "matmul", floats,
           StringRef(name).ends_with(".padding")
               ? "as conv1d/conv2d; padding 'same' (the odd pad after) or "
                 "'valid'"
               : notes,
           decomposeConvolution});
}

} // namespace spyre
