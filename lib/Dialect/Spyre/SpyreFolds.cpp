//===- SpyreFolds.cpp - Folders and canonicalization patterns -------------===//

#include "spyre/Dialect/Spyre/SpyreOps.h"

#include "ConstantFolding.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

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

bool isSplatOf(Attribute attr, double value) {
  std::optional<APFloat> f = getFloatSplat(attr);
  return f && f->convertToDouble() == value;
}

/// Whether `op` may be replaced by its value computed at compile time: not
/// inside a kernel, whose body is fixed once formed.
bool mayEvaluate(Operation *op) { return !op->getParentOfType<KernelOp>(); }

} // namespace

//===----------------------------------------------------------------------===//
// Folders
//
// Besides the identities, every compute op on constant operands folds to
// its value as the device computes it (ConstantFolding.h), within size
// limits.
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult UnaryOp::fold(FoldAdaptor adaptor) {
  if (!mayEvaluate(*this))
    return nullptr;
  return constfold::foldUnary(getKind(), adaptor.getInput(), getType());
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
  if (!mayEvaluate(*this))
    return nullptr;
  return constfold::foldBinary(getKind(), adaptor.getLhs(), adaptor.getRhs(),
                               resultType);
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  if (!mayEvaluate(*this))
    return nullptr;
  return constfold::foldCompare(getPredicate(), adaptor.getLhs(),
                                adaptor.getRhs(), getType());
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (!mayEvaluate(*this))
    return nullptr;
  return constfold::foldSelect(adaptor.getCondition(), adaptor.getTrueValue(),
                               adaptor.getFalseValue(), getType());
}

OpFoldResult ReduceOp::fold(FoldAdaptor adaptor) {
  if (!mayEvaluate(*this))
    return nullptr;
  return constfold::foldReduce(getKind(), adaptor.getInput(), getDim(),
                               getType());
}

OpFoldResult MatmulOp::fold(FoldAdaptor adaptor) {
  if (!mayEvaluate(*this))
    return nullptr;
  return constfold::foldMatmul(adaptor.getLhs(), adaptor.getRhs(),
                               getTransposeLhs(), getTransposeRhs(), getType());
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  if (!mayEvaluate(*this))
    return nullptr;
  return constfold::foldCast(adaptor.getInput(), getType());
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType() &&
      llvm::equal(getPermutation(),
                  llvm::seq<int64_t>(0, getPermutation().size())))
    return getInput();
  if (!mayEvaluate(*this))
    return nullptr;
  return constfold::foldTranspose(adaptor.getInput(), getPermutation(),
                                  getType());
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  // reshape(reshape(x)) -> reshape(x).
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  if (!mayEvaluate(*this))
    return nullptr;
  return constfold::foldReshape(adaptor.getInput(), getType());
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType() &&
      llvm::all_of(getOffsets(), [](int64_t o) { return o == 0; }))
    return getInput();
  if (!mayEvaluate(*this))
    return nullptr;
  return constfold::foldSlice(adaptor.getInput(), getOffsets(), getStrides(),
                              getType());
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1 &&
      getInputs().front().getType() == getResult().getType())
    return getInputs().front();
  if (!mayEvaluate(*this))
    return nullptr;
  return constfold::foldConcat(adaptor.getInputs(), getDim(), getType());
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  // broadcast(broadcast(x)) -> broadcast(x): x broadcasts to both.
  if (auto inner = getInput().getDefiningOp<BroadcastOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  if (!mayEvaluate(*this))
    return nullptr;
  return constfold::foldBroadcast(adaptor.getInput(), getType());
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

/// The broadcast under the reshape that feeds `op`'s rhs, or null.
BroadcastOp getRepeatedRhs(MatmulOp op) {
  auto merged = op.getRhs().getDefiningOp<ReshapeOp>();
  return merged ? merged.getInput().getDefiningOp<BroadcastOp>()
                : BroadcastOp();
}

/// Whether any of `types` has a layout encoding.
bool anyHasLayout(ArrayRef<Type> types) {
  return llvm::any_of(types, [](Type t) { return bool(getLayout(t)); });
}

/// Whether the lhs, merged rhs and broadcast have the ranks of repeat_kv
/// (the broadcast one more than the others, at least 3) and static shapes.
bool hasRepeatKvRanks(RankedTensorType lhsType, RankedTensorType rhsType,
                      RankedTensorType bcType) {
  int64_t r = rhsType.getRank();
  return r >= 3 && lhsType.getRank() == r && bcType.getRank() == r + 1 &&
         lhsType.hasStaticShape() && bcType.hasStaticShape();
}

/// Whether the broadcast `bs` of the source `ss`, merged into `rs`, repeats
/// each head at dim `h` G > 1 times for the lhs `ls`'s heads.
bool repeatsEachHead(ArrayRef<int64_t> ls, ArrayRef<int64_t> rs,
                     ArrayRef<int64_t> bs, ArrayRef<int64_t> ss, int64_t h) {
  int64_t heads = bs[h], group = bs[h + 1];
  return group > 1 && ss[h + 1] == 1 && ss[h] == heads &&
         rs[h] == heads * group && ls[h] == rs[h];
}

/// Whether the dims other than the head (and group) dims agree between the
/// merged rhs `rs`, the broadcast `bs`, its source `ss` and the lhs `ls`.
bool otherDimsAgree(ArrayRef<int64_t> ls, ArrayRef<int64_t> rs,
                    ArrayRef<int64_t> bs, ArrayRef<int64_t> ss, int64_t h) {
  return bs.take_front(h) == rs.take_front(h) &&
         bs.drop_front(h + 2) == rs.drop_front(h + 1) &&
         ss.take_front(h) == rs.take_front(h) &&
         ss.drop_front(h + 2) == rs.drop_front(h + 1) &&
         ls.take_front(h) == rs.take_front(h);
}

/// x: the repeated source without its size-1 group dim at `h + 1`, reusing
/// the value a reshape inserted that dim into.
Value sourceWithoutGroupDim(PatternRewriter &rewriter, Location loc,
                            BroadcastOp repeated, int64_t h) {
  auto srcType = cast<RankedTensorType>(repeated.getInput().getType());
  SmallVector<int64_t> xShape(srcType.getShape());
  xShape.erase(xShape.begin() + h + 1);
  auto xType = RankedTensorType::get(xShape, srcType.getElementType());
  Value x = repeated.getInput();
  if (auto inner = x.getDefiningOp<ReshapeOp>();
      inner && inner.getInput().getType() == xType)
    return inner.getInput();
  return ReshapeOp::create(rewriter, loc, xType, x);
}

/// Replaces `op` by the matmul of its lhs viewed as [.., Hk, G * L, K] with
/// x, viewed back as [.., Hk * G, L, N].
void rewriteAsGroupedRows(MatmulOp op, BroadcastOp repeated, int64_t h,
                          PatternRewriter &rewriter) {
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  auto outType = cast<RankedTensorType>(op.getType());
  ArrayRef<int64_t> bs = cast<RankedTensorType>(repeated.getType()).getShape(),
                    ls = lhsType.getShape();
  int64_t heads = bs[h], group = bs[h + 1];
  Location loc = op.getLoc();
  Value x = sourceWithoutGroupDim(rewriter, loc, repeated, h);
  SmallVector<int64_t> aShape(ls.take_front(h));
  aShape.append({heads, group * ls[h + 1], ls[h + 2]});
  Value a = ReshapeOp::create(
      rewriter, loc, RankedTensorType::get(aShape, lhsType.getElementType()),
      op.getLhs());
  SmallVector<int64_t> prodShape(aShape);
  prodShape.back() = outType.getShape().back();
  auto prod = MatmulOp::create(
      rewriter, loc, RankedTensorType::get(prodShape, outType.getElementType()),
      a, x);
  prod.setTransposeRhs(op.getTransposeRhs());
  rewriter.replaceOpWithNewOp<ReshapeOp>(op, outType, prod.getResult());
}

/// matmul(a, repeat_kv(x)) -> reshape(matmul(reshape(a), x)): the rhs
/// repeats each of x's Hk heads G times (transformers' repeat_kv:
/// [.., Hk, S, D] -> [.., Hk, 1, S, D] -> broadcast to [.., Hk, G, S, D] ->
/// [.., Hk * G, S, D]), which the device would copy G times. Instead, a is
/// viewed as [.., Hk, G * L, K]: each head of x serves its G heads of a as
/// extra rows of one matmul (as the SDPA decomposition does for GQA), and
/// the result is viewed back as [.., Hk * G, L, N].
struct GroupedHeadsAsRows : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    BroadcastOp repeated = getRepeatedRhs(op);
    if (!repeated || op.getTransposeLhs())
      return failure();
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto outType = cast<RankedTensorType>(op.getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    auto bcType = cast<RankedTensorType>(repeated.getType());
    auto srcType = cast<RankedTensorType>(repeated.getInput().getType());
    // Layouts are assigned later; rewriting after that would change them.
    if (anyHasLayout({lhsType, rhsType, outType}) ||
        !hasRepeatKvRanks(lhsType, rhsType, bcType))
      return failure();
    int64_t h = rhsType.getRank() - 3; // the head dim
    ArrayRef<int64_t> rs = rhsType.getShape(), bs = bcType.getShape(),
                      ss = srcType.getShape(), ls = lhsType.getShape();
    if (!repeatsEachHead(ls, rs, bs, ss, h) ||
        !otherDimsAgree(ls, rs, bs, ss, h))
      return failure();
    rewriteAsGroupedRows(op, repeated, h, rewriter);
    return success();
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
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner.getInput(),
                                             perm);
    return success();
  }
};

/// Whether a weight's value is known at compile time and never changes: a
/// lifted constant or a buffer, held inline as a dense attribute the
/// folders can read, that no result of its function mutates (a
/// `buffer_mutation:<name>` output). Parameters stay weights: a user may
/// swap them in the .spy.
/// Whether a result of `w`'s function mutates it (a
/// `buffer_mutation:<name>` output), or `w` is outside a function.
bool isMutatedOrLoose(WeightOp w) {
  auto func = w->getParentOfType<FunctionOpInterface>();
  if (!func)
    return true;
  std::string mutation = ("buffer_mutation:" + w.getName()).str();
  for (unsigned j = 0, e = func.getNumResults(); j < e; ++j)
    if (auto kind = func.getResultAttrOfType<StringAttr>(j, "spyre.output");
        kind && kind.getValue() == mutation)
      return true;
  return false;
}

bool isConstantWeight(WeightOp w) {
  if (w.getKind() == WeightKind::parameter || !w.getValue() ||
      !constfold::isFoldable(*w.getValue()))
    return false;
  return !isMutatedOrLoose(w);
}

/// weight (constant in value) -> constant, when one of its users has only
/// constant operands and can therefore fold: the chain of compute ops on
/// it becomes one constant. Weights no user can fold stay weights (named
/// in the .spy).
struct ConstantWeightToConstant : public OpRewritePattern<WeightOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WeightOp op,
                                PatternRewriter &rewriter) const override {
    if (!isConstantWeight(op))
      return failure();
    auto isConstant = [](Value v) {
      Operation *def = v.getDefiningOp();
      if (auto w = dyn_cast_or_null<WeightOp>(def))
        return isConstantWeight(w);
      return isa_and_nonnull<ConstantOp>(def);
    };
    bool foldableUser = llvm::any_of(op->getUsers(), [&](Operation *user) {
      return isa<UnaryOp, BinaryOp, CompareOp, SelectOp, CastOp, ReduceOp,
                 MatmulOp, TransposeOp, ReshapeOp, BroadcastOp, SliceOp,
                 ConcatOp>(user) &&
             mayEvaluate(user) && llvm::all_of(user->getOperands(), isConstant);
    });
    if (!foldableUser)
      return failure();
    rewriter.replaceOpWithNewOp<ConstantOp>(op, op.getType(), *op.getValue());
    return success();
  }
};

/// weight -> reshape, the weight's only use: the weight in the reshape's
/// shape. The emitter writes load-time data in any shape and layout, so a
/// reshape that repacks sticks (attention sinks [H] viewed as [1, H, 1, 1])
/// is done once at compile time instead of as a kernel in every run. Its
/// bytes are the same row-major elements: an inline dense value is
/// reshaped, external data is kept when stored contiguously (no strides).
/// A mutated buffer keeps its one shape (the runtime updates it in place).
struct WeightTakesItsReshapesShape : public OpRewritePattern<WeightOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WeightOp op,
                                PatternRewriter &rewriter) const override {
    if (!op->hasOneUse() || isMutatedOrLoose(op))
      return failure();
    auto reshape = dyn_cast<ReshapeOp>(*op->getUsers().begin());
    if (!reshape)
      return failure();
    auto type = cast<RankedTensorType>(reshape.getType());
    ElementsAttr value;
    if (std::optional<ElementsAttr> v = op.getValue()) {
      auto dense = dyn_cast<DenseElementsAttr>(*v);
      if (!dense)
        return failure();
      value = dense.reshape(
          RankedTensorType::get(type.getShape(), type.getElementType()));
    }
    if (ExternalDataAttr external = op.getExternalAttr();
        external && !external.getStrides().empty())
      return failure();
    rewriter.setInsertionPoint(op);
    auto reshaped = cast<WeightOp>(rewriter.clone(*op));
    reshaped.getResult().setType(type);
    if (value)
      reshaped.setValueAttr(value);
    rewriter.replaceOp(reshape, reshaped.getResult());
    rewriter.eraseOp(op);
    return success();
  }
};

/// The lowest value a mask may hold where it masks: exp(score + mask -
/// max) is 0 in f32 for any score a softmax sees (transformers' masks use
/// the dtype's minimum, -65504 in f16; others -1e9 or -inf).
constexpr double kMaskedAtMost = -32768.0;

/// What a constant additive attention mask is.
enum class ConstantMask { none, zero, causal };

/// Whether a float value adds nothing (0) or masks (kMaskedAtMost or less).
bool isKept(double v) { return v == 0.0; }
bool isMasked(double v) { return v <= kMaskedAtMost; }

/// The splat value of a float constant, if `v` is one.
std::optional<double> splatFloat(Value v) {
  DenseElementsAttr values;
  if (!matchPattern(v, m_Constant(&values)) || !values.isSplat() ||
      !isa<FloatType>(values.getElementType()))
    return std::nullopt;
  return values.getSplatValue<APFloat>().convertToDouble();
}

/// A constant position vector along dim `dim` of `rank` (size 1 in every
/// other dim) holding k + offset at position k: an iota.
struct Positions {
  int64_t dim, offset;
};

std::optional<Positions> positionsOf(Value v, int64_t rank) {
  DenseElementsAttr values;
  if (!matchPattern(v, m_Constant(&values)) ||
      !isa<IntegerType>(values.getElementType()))
    return std::nullopt;
  ArrayRef<int64_t> shape = values.getType().getShape();
  if (int64_t(shape.size()) > rank)
    return std::nullopt;
  // Aligned to the right, as broadcasting does; one dim of size > 1.
  int64_t lead = rank - int64_t(shape.size()), dim = -1;
  for (auto [d, n] : llvm::enumerate(shape))
    if (n > 1) {
      if (dim >= 0)
        return std::nullopt;
      dim = lead + int64_t(d);
    }
  if (dim < 0 || values.isSplat())
    return std::nullopt;
  auto ints = values.getValues<APInt>();
  int64_t offset = (*ints.begin()).getSExtValue(), k = 0;
  for (const APInt &x : ints)
    if (x.getSExtValue() != k++ + offset)
      return std::nullopt;
  return Positions{dim, offset};
}

/// `pred` with its operands swapped (a < b is b > a).
ComparePredicate swapped(ComparePredicate pred) {
  switch (pred) {
  case ComparePredicate::lt:
    return ComparePredicate::gt;
  case ComparePredicate::le:
    return ComparePredicate::ge;
  case ComparePredicate::gt:
    return ComparePredicate::lt;
  case ComparePredicate::ge:
    return ComparePredicate::le;
  default:
    return pred;
  }
}

/// Whether `j - i pred d` is j > i (true) or j <= i (false) for integers.
std::optional<bool> keyPastQuery(ComparePredicate pred, int64_t d) {
  if ((pred == ComparePredicate::gt && d == 0) ||
      (pred == ComparePredicate::ge && d == 1))
    return true;
  if ((pred == ComparePredicate::le && d == 0) ||
      (pred == ComparePredicate::lt && d == 1))
    return false;
  return std::nullopt;
}

/// Whether `cond`, a comparison of a key position with a query position
/// (iotas along the last two dims), is key > query (`past`: true) or key
/// <= query (`past`: false) for keys j and queries i.
std::optional<bool> comparesKeyPastQuery(Value cond, int64_t rank) {
  auto cmp = cond.getDefiningOp<CompareOp>();
  if (!cmp || rank < 2)
    return std::nullopt;
  std::optional<Positions> a = positionsOf(cmp.getLhs(), rank);
  std::optional<Positions> b = positionsOf(cmp.getRhs(), rank);
  if (!a || !b)
    return std::nullopt;
  ComparePredicate pred = cmp.getPredicate();
  // As key (j + kOff) pred query (i + qOff).
  if (a->dim == rank - 2 && b->dim == rank - 1) {
    std::swap(a, b);
    pred = swapped(pred);
  }
  if (a->dim != rank - 1 || b->dim != rank - 2)
    return std::nullopt;
  // j + ka pred i + qb  <=>  j - i pred d.
  return keyPastQuery(pred, b->offset - a->offset);
}

/// Whether `mask` is select(key > query, masked, 0) (or key <= query with
/// the values swapped) over position iotas: the form triu/tril and the
/// masks built from arange take, folded or not (a [4096, 4096] one is too
/// large to fold), through casts and reshapes that add unit dims.
bool isCausalSelect(Value mask, int64_t m, int64_t s) {
  while (Operation *def = mask.getDefiningOp()) {
    if (!isa<CastOp, ReshapeOp>(def))
      break;
    mask = def->getOperand(0);
  }
  auto select = mask.getDefiningOp<SelectOp>();
  if (!select)
    return false;
  ArrayRef<int64_t> shape = cast<RankedTensorType>(mask.getType()).getShape();
  int64_t rank = shape.size();
  if (rank < 2 || shape[rank - 2] != m || shape[rank - 1] != s || m > s)
    return false;
  std::optional<bool> past = comparesKeyPastQuery(select.getCondition(), rank);
  std::optional<double> t = splatFloat(select.getTrueValue());
  std::optional<double> f = splatFloat(select.getFalseValue());
  if (!past || !t || !f)
    return false;
  return *past ? isMasked(*t) && isKept(*f) : isKept(*t) && isMasked(*f);
}

/// Whether the constant `mask` of an attention with `m` queries and `s`
/// keys adds nothing (all 0) or is exactly the top-left causal mask (0 at
/// key j <= query i, masked past it) for every head: then the op's
/// `causal` (which skips the key tiles past the diagonal and reads no
/// mask) computes the same probabilities.
ConstantMask classifyConstantMask(Value mask, int64_t m, int64_t s) {
  if (isCausalSelect(mask, m, s))
    return ConstantMask::causal;
  DenseElementsAttr values;
  if (!matchPattern(mask, m_Constant(&values)) ||
      !isa<FloatType>(values.getElementType()))
    return ConstantMask::none;
  if (values.isSplat())
    return values.getSplatValue<APFloat>().isZero() ? ConstantMask::zero
                                                    : ConstantMask::none;
  ArrayRef<int64_t> shape = values.getType().getShape();
  int64_t rank = shape.size();
  if (rank < 2 || shape[rank - 2] != m || shape[rank - 1] != s || m > s ||
      values.getNumElements() != m * s)
    return ConstantMask::none;
  int64_t k = 0;
  for (const APFloat &v : values.getValues<APFloat>()) {
    int64_t i = k / s, j = k % s;
    ++k;
    if (j <= i ? !isKept(v.convertToDouble()) : !isMasked(v.convertToDouble()))
      return ConstantMask::none;
  }
  return ConstantMask::causal;
}

/// attention(mask = a constant causal mask) -> attention {causal}, and a
/// constant zero mask dropped: eager attention builds its causal mask in
/// the graph (transformers' `create_causal_mask` from positions), which
/// folds to a constant when the shapes are static; as the flag the kernel
/// skips the key tiles past the diagonal and reads no mask.
struct ConstantMaskToCausal : public OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Value mask = op.getMask();
    if (!mask)
      return failure();
    ArrayRef<int64_t> q =
        cast<RankedTensorType>(op.getQuery().getType()).getShape();
    ArrayRef<int64_t> key =
        cast<RankedTensorType>(op.getKey().getType()).getShape();
    ConstantMask kind = classifyConstantMask(mask, q.end()[-2], key.end()[-2]);
    if (kind == ConstantMask::none)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getMaskMutable().clear();
      if (kind == ConstantMask::causal)
        op.setCausal(true);
    });
    return success();
  }
};

/// The element strides of `w`'s storage: its external data's, else
/// row-major.
SmallVector<int64_t> storageStrides(WeightOp w) {
  if (ExternalDataAttr ext = w.getExternalAttr();
      ext && !ext.getStrides().empty())
    return SmallVector<int64_t>(ext.getStrides());
  ArrayRef<int64_t> shape = cast<RankedTensorType>(w.getType()).getShape();
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Every `step`-th element of `values` along `dim` from `start`, as `type`.
DenseElementsAttr sliceElements(DenseElementsAttr values, int64_t dim,
                                int64_t start, int64_t step,
                                RankedTensorType type) {
  auto plain = RankedTensorType::get(type.getShape(), type.getElementType());
  if (values.isSplat())
    return values.resizeSplat(plain);
  ArrayRef<int64_t> from = values.getType().getShape();
  ArrayRef<int64_t> to = type.getShape();
  SmallVector<Attribute> all(values.getValues<Attribute>());
  SmallVector<Attribute> picked;
  picked.reserve(plain.getNumElements());
  SmallVector<int64_t> index(to.size(), 0);
  for (int64_t k = 0, n = plain.getNumElements(); k < n; ++k) {
    int64_t flat = 0;
    for (size_t d = 0; d < to.size(); ++d) {
      int64_t i = int64_t(d) == dim ? start + index[d] * step : index[d];
      flat = flat * from[d] + i;
    }
    picked.push_back(all[flat]);
    for (int64_t d = int64_t(to.size()) - 1; d >= 0 && ++index[d] == to[d]; --d)
      index[d] = 0;
  }
  return DenseElementsAttr::get(plain, picked);
}

/// Whether `slice` takes every step-th element (step > 1) of the last dim
/// and every other dim whole.
bool stridesLastDimOnly(SliceOp slice) {
  ArrayRef<int64_t> in =
      cast<RankedTensorType>(slice.getInput().getType()).getShape();
  ArrayRef<int64_t> out = slice.getType().getShape();
  int64_t last = int64_t(in.size()) - 1;
  if (last < 0 || slice.getStrides()[last] <= 1)
    return false;
  for (int64_t d = 0; d < last; ++d)
    if (slice.getOffsets()[d] != 0 || slice.getStrides()[d] != 1 ||
        in[d] != out[d])
      return false;
  return true;
}

/// Whether `w` is a weight whose storage a slice can address: one use,
/// never mutated, an inline dense value or external data.
bool isSliceableWeight(WeightOp w) {
  if (!w || !w->hasOneUse() || isMutatedOrLoose(w))
    return false;
  std::optional<ElementsAttr> value = w.getValue();
  return !value || isa<DenseElementsAttr>(*value);
}

/// A copy of `w` (before `at`) holding its `size` elements along `dim`
/// from `start`, every `step`: external data gets its offset and strides
/// moved, an inline value its elements picked.
WeightOp sliceWeight(PatternRewriter &rewriter, Operation *at, WeightOp w,
                     int64_t dim, int64_t start, int64_t step, int64_t size) {
  auto type = cast<RankedTensorType>(w.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  auto partType =
      RankedTensorType::get(shape, type.getElementType(), type.getEncoding());
  rewriter.setInsertionPoint(at);
  auto part = cast<WeightOp>(rewriter.clone(*w));
  part.getResult().setType(partType);
  if (std::optional<ElementsAttr> value = w.getValue()) {
    part.setValueAttr(sliceElements(cast<DenseElementsAttr>(*value), dim, start,
                                    step, partType));
    return part;
  }
  ExternalDataAttr ext = w.getExternalAttr();
  SmallVector<int64_t> strides = storageStrides(w), partStrides(strides);
  partStrides[dim] *= step;
  int64_t elementBytes = (type.getElementTypeBitWidth() + 7) / 8;
  part.setExternalAttr(ExternalDataAttr::get(
      rewriter.getContext(), ext.getFile(), ext.getEntry(),
      ext.getOffset() + start * strides[dim] * elementBytes, partStrides));
  return part;
}

/// The bias of `product`'s one use, `product + bias` with `bias` a
/// sliceable weight that varies along the last dim at most (a linear
/// layer's bias): that add, else null.
BinaryOp biasAddOf(MatmulOp product) {
  if (!product->hasOneUse())
    return {};
  auto add = dyn_cast<BinaryOp>(*product->getUsers().begin());
  if (!add || add.getKind() != BinaryKind::add ||
      add.getType() != product.getType())
    return {};
  Value other =
      add.getLhs() == product.getResult() ? add.getRhs() : add.getLhs();
  auto bias = other.getDefiningOp<WeightOp>();
  auto biasType = cast<RankedTensorType>(other.getType());
  int64_t n = product.getType().getShape().back();
  if (!isSliceableWeight(bias) || biasType.getRank() == 0 ||
      (biasType.getShape().back() != n && biasType.getShape().back() != 1))
    return {};
  return add;
}

/// slice(x @ w [+ b], last dim, every step-th column) -> x @ slice(w)
/// [+ slice(b)]: a weight's product (and a linear layer's bias) read only
/// through strided column slices (gpt-oss's interleaved gate/up
/// projection, `gate_up[..., ::2]` and `[..., 1::2]`) multiplies each
/// slice of the weight instead, cut at compile time. Strided slices of the
/// stick dim are element-by-element copy kernels; the products of the
/// halves are matmuls the gated-MLP fusion can join. Unit-step windows are
/// left to spyre-reorder-on-chip, which reads them in place (one product,
/// one read of x).
/// `slice` of `op` (x @ w, `n` the weight's N dim) [+ `bias` by `add`] as
/// x @ slice(w) [+ slice(bias)], built before `slice`.
Value productOfSlice(PatternRewriter &rewriter, SliceOp slice, MatmulOp op,
                     WeightOp w, int64_t n, BinaryOp add, WeightOp bias) {
  int64_t start = slice.getOffsets().back();
  int64_t step = slice.getStrides().back();
  int64_t size = slice.getType().getShape().back();
  WeightOp part = sliceWeight(rewriter, slice, w, n, start, step, size);
  Value out =
      MatmulOp::create(rewriter, op.getLoc(), slice.getType(), op.getLhs(),
                       part.getResult(), UnitAttr(), op.getTransposeRhsAttr());
  if (!bias)
    return out;
  auto biasType = cast<RankedTensorType>(bias.getType());
  Value b = bias.getResult();
  if (biasType.getShape().back() != 1)
    b = sliceWeight(rewriter, slice, bias, biasType.getRank() - 1, start, step,
                    size)
            .getResult();
  rewriter.setInsertionPoint(slice);
  return BinaryOp::create(rewriter, add.getLoc(), slice.getType(),
                          BinaryKind::add, out, b);
}

struct StridedSlicesOfWeightProduct : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto w = op.getRhs().getDefiningOp<WeightOp>();
    if (!isSliceableWeight(w) || op.getTransposeLhs())
      return failure();
    BinaryOp add = biasAddOf(op);
    Value sliced = add ? add.getResult() : op.getResult();
    SmallVector<SliceOp> slices;
    for (Operation *user : sliced.getUsers()) {
      auto slice = dyn_cast<SliceOp>(user);
      if (!slice || !stridesLastDimOnly(slice))
        return failure();
      slices.push_back(slice);
    }
    if (slices.empty())
      return failure();
    int64_t n = cast<RankedTensorType>(w.getType()).getRank() -
                (op.getTransposeRhs() ? 2 : 1);
    WeightOp bias;
    if (add)
      bias = (add.getLhs() == op.getResult() ? add.getRhs() : add.getLhs())
                 .getDefiningOp<WeightOp>();
    for (SliceOp slice : slices)
      rewriter.replaceOp(slice,
                         productOfSlice(rewriter, slice, op, w, n, add, bias));
    if (add)
      rewriter.eraseOp(add);
    rewriter.eraseOp(op);
    rewriter.eraseOp(w);
    if (bias)
      rewriter.eraseOp(bias);
    return success();
  }
};

} // namespace

void AttentionOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ConstantMaskToCausal>(context);
}

void WeightOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<ConstantWeightToConstant, WeightTakesItsReshapesShape>(context);
}

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<FoldTransposeIntoMatmul, GroupedHeadsAsRows,
              StridedSlicesOfWeightProduct>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}
