//===- SpyreFolds.cpp - Folders and canonicalization patterns -------------===//

#include "spyre/Dialect/Spyre/SpyreOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace spyre;

namespace {

/// The splat value of a float elements attribute, if it is one.
std::optional<APFloat> getFloatSplat(Attribute attr) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat || !isa<FloatType>(splat.getElementType()))
    return std::nullopt;
  return splat.getSplatValue<APFloat>();
}

/// A splat of `value` (a double, rounded to the element type) of `type`;
/// null when `type` has a dynamic shape (elements attributes are static).
Attribute makeFloatSplat(Type type, double value) {
  auto tensor = cast<RankedTensorType>(type);
  if (!tensor.hasStaticShape())
    return nullptr;
  auto ft = cast<FloatType>(tensor.getElementType());
  APFloat f(value);
  bool lost;
  f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  // Elements attributes carry no encoding; the constant op's type does.
  auto plain = RankedTensorType::get(tensor.getShape(), ft);
  return SplatElementsAttr::get(plain, f);
}

/// Re-shapes a splat to another tensor type (same element type).
Attribute reshapeSplat(Attribute attr, Type type) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat)
    return nullptr;
  auto tensor = cast<RankedTensorType>(type);
  if (!tensor.hasStaticShape() ||
      tensor.getElementType() != splat.getElementType())
    return nullptr;
  auto plain = RankedTensorType::get(tensor.getShape(),
                                     tensor.getElementType());
  return splat.resizeSplat(plain);
}

bool isSplatOf(Attribute attr, double value) {
  std::optional<APFloat> f = getFloatSplat(attr);
  return f && f->convertToDouble() == value;
}

} // namespace

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult UnaryOp::fold(FoldAdaptor adaptor) {
  std::optional<APFloat> f = getFloatSplat(adaptor.getInput());
  if (!f)
    return nullptr;
  double x = f->convertToDouble();
  switch (getKind()) {
  case UnaryKind::neg:
    return makeFloatSplat(getType(), -x);
  case UnaryKind::abs:
    return makeFloatSplat(getType(), std::fabs(x));
  case UnaryKind::exp:
    return makeFloatSplat(getType(), std::exp(x));
  case UnaryKind::sqrt:
    return x >= 0 ? makeFloatSplat(getType(), std::sqrt(x)) : nullptr;
  case UnaryKind::rsqrt:
    return x > 0 ? makeFloatSplat(getType(), 1.0 / std::sqrt(x)) : nullptr;
  case UnaryKind::reciprocal:
    return x != 0 ? makeFloatSplat(getType(), 1.0 / x) : nullptr;
  case UnaryKind::relu:
    return std::isnan(x) ? nullptr : makeFloatSplat(getType(), x > 0 ? x : 0.0);
  default:
    return nullptr;
  }
}

OpFoldResult BinaryOp::fold(FoldAdaptor adaptor) {
  Type resultType = getResult().getType();
  bool lhsIsResult = getLhs().getType() == resultType;
  // x + 0, x - 0, x * 1, x / 1 when x already has the result's shape.
  if (lhsIsResult) {
    Attribute rhs = adaptor.getRhs();
    switch (getKind()) {
    case BinaryKind::add:
    case BinaryKind::sub:
      if (isSplatOf(rhs, 0.0))
        return getLhs();
      break;
    case BinaryKind::mul:
    case BinaryKind::div:
      if (isSplatOf(rhs, 1.0))
        return getLhs();
      break;
    default:
      break;
    }
  }
  std::optional<APFloat> a = getFloatSplat(adaptor.getLhs());
  std::optional<APFloat> b = getFloatSplat(adaptor.getRhs());
  if (!a || !b)
    return nullptr;
  double x = a->convertToDouble(), y = b->convertToDouble();
  switch (getKind()) {
  case BinaryKind::add:
    return makeFloatSplat(resultType, x + y);
  case BinaryKind::sub:
    return makeFloatSplat(resultType, x - y);
  case BinaryKind::mul:
    return makeFloatSplat(resultType, x * y);
  case BinaryKind::div:
    return y != 0 ? makeFloatSplat(resultType, x / y) : nullptr;
  case BinaryKind::max: // NaN propagates in torch; leave those to run
    return std::isnan(x) || std::isnan(y)
               ? nullptr
               : makeFloatSplat(resultType, std::max(x, y));
  case BinaryKind::min:
    return std::isnan(x) || std::isnan(y)
               ? nullptr
               : makeFloatSplat(resultType, std::min(x, y));
  default:
    return nullptr;
  }
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  std::optional<APFloat> f = getFloatSplat(adaptor.getInput());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (f && isa<FloatType>(out.getElementType()))
    return makeFloatSplat(out, f->convertToDouble());
  return nullptr;
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType() &&
      llvm::equal(getPermutation(), llvm::seq<int64_t>(0, getPermutation().size())))
    return getInput();
  return reshapeSplat(adaptor.getInput(), getResult().getType());
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  // reshape(reshape(x)) -> reshape(x).
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return reshapeSplat(adaptor.getInput(), getResult().getType());
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType() &&
      llvm::all_of(getOffsets(), [](int64_t o) { return o == 0; }))
    return getInput();
  return reshapeSplat(adaptor.getInput(), getResult().getType());
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 &&
      getInputs().front().getType() == getResult().getType())
    return getInputs().front();
  return nullptr;
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  return reshapeSplat(adaptor.getInput(), getResult().getType());
}

OpFoldResult RestickifyOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  // restickify(restickify(x)) -> restickify(x): only the last layout counts.
  if (auto inner = getInput().getDefiningOp<RestickifyOp>()) {
    if (inner.getInput().getType() == getResult().getType())
      return inner.getInput();
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Canonicalization patterns
//===----------------------------------------------------------------------===//

namespace {

/// Whether `perm` swaps the last two dims and keeps the others.
bool swapsLastTwo(ArrayRef<int64_t> perm) {
  int64_t r = perm.size();
  if (r < 2)
    return false;
  for (int64_t i = 0; i < r - 2; ++i)
    if (perm[i] != i)
      return false;
  return perm[r - 2] == r - 1 && perm[r - 1] == r - 2;
}

/// matmul(transpose(x, [..., -1, -2]), y) -> matmul(x, y) {transpose_lhs}
/// (and likewise for the rhs): the PT unit reads either orientation through
/// layouts, so the transpose never needs to run.
struct FoldTransposeIntoMatmul : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    bool changed = false;
    auto tryFold = [&](OpOperand &operand, bool isLhs) {
      auto t = operand.get().getDefiningOp<TransposeOp>();
      if (!t || !swapsLastTwo(t.getPermutation()))
        return;
      // Layouts are assigned later; folding after that would change them.
      if (getLayout(t.getInput().getType()) || getLayout(t.getType()))
        return;
      rewriter.modifyOpInPlace(op, [&] {
        operand.set(t.getInput());
        if (isLhs)
          op.setTransposeLhs(!op.getTransposeLhs());
        else
          op.setTransposeRhs(!op.getTransposeRhs());
      });
      changed = true;
    };
    tryFold(op.getLhsMutable(), true);
    tryFold(op.getRhsMutable(), false);
    return success(changed);
  }
};

/// transpose(transpose(x, p), q) -> transpose(x, p o q).
struct ComposeTransposes : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPermutation())
      perm.push_back(inner.getPermutation()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(),
                                             inner.getInput(), perm);
    return success();
  }
};

} // namespace

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<FoldTransposeIntoMatmul>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}
