//===- FoldRope.cpp - spyre-fold-rope -------------------------------------===//
//
// Llama, Granite and Mistral rotate the query before attention (rotary
// position embedding): `q * cos + rotate_half(q) * sin`, which decomposes to
//
//   add(mul(x, cos), mul(matmul(x, R), sin))     R: [E, E] (rotate_half is a
//                                                 signed permutation)
//
// around a reshape into the attention's heads. Run as kernels of their own,
// the rotated query goes to device memory and back; this pass makes it the
// attention's `rope` operands instead, so the flash kernel rotates each
// query tile in LX after loading it. Passes.td has the contract.
//
//===----------------------------------------------------------------------===//

#include "Preconditions.h"
#include "spyre/Dialect/Spyre/ShapeUtils.h"
#include "spyre/Transforms/Decompositions.h"
#include "spyre/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace spyre {
#define GEN_PASS_DEF_SPYREFOLDROPE
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;
using namespace spyre;

namespace {

/// A rotary embedding `x * cos + (x @ rotation) * sin` and the ops it is.
struct Rope {
  Value x, cos, sin, rotation;
  SmallVector<Operation *, 4> ops;
};

/// `v` as `mul(a, b)`: its operands, `a` the one `pick` accepts.
std::optional<std::pair<Value, Value>>
mulOperands(Value v, function_ref<bool(Value)> pick) {
  auto mul = v.getDefiningOp<BinaryOp>();
  if (!mul || mul.getKind() != BinaryKind::mul)
    return std::nullopt;
  if (pick(mul.getLhs()))
    return std::make_pair(mul.getLhs(), mul.getRhs());
  if (pick(mul.getRhs()))
    return std::make_pair(mul.getRhs(), mul.getLhs());
  return std::nullopt;
}

/// `matmul(x, R)` with R [E, E] and no transposes: R, else null.
Value rotationOf(Value v, Value x) {
  auto mm = v.getDefiningOp<MatmulOp>();
  if (!mm || mm.getLhs() != x || mm.getTransposeLhs() || mm.getTransposeRhs())
    return Value();
  int64_t e = shapeOf(x).back();
  if (shapeOf(mm.getRhs()) != ArrayRef<int64_t>({e, e}))
    return Value();
  return mm.getRhs();
}

/// `v` as the rope of some x: `add(x * cos, (x @ R) * sin)`, either order.
std::optional<Rope> matchRope(Value v) {
  auto add = v.getDefiningOp<BinaryOp>();
  if (!add || add.getKind() != BinaryKind::add)
    return std::nullopt;
  for (auto [cosTerm, sinTerm] : {std::make_pair(add.getLhs(), add.getRhs()),
                                  std::make_pair(add.getRhs(), add.getLhs())}) {
    auto rotated = mulOperands(sinTerm, [](Value operand) {
      auto mm = operand.getDefiningOp<MatmulOp>();
      return mm && rotationOf(operand, mm.getLhs());
    });
    if (!rotated)
      continue;
    Value x = rotated->first.getDefiningOp<MatmulOp>().getLhs();
    auto scaled =
        mulOperands(cosTerm, [&](Value operand) { return operand == x; });
    if (!scaled)
      continue;
    Rope rope{x, scaled->second, rotated->second,
              rotationOf(rotated->first, x)};
    rope.ops = {add, cosTerm.getDefiningOp(), sinTerm.getDefiningOp(),
                rotated->first.getDefiningOp()};
    return rope;
  }
  return std::nullopt;
}

/// A cos or sin table as the attention op reads it: [Mc, E] (Mc the
/// positions, or 1 for one row serving all), when it broadcasts over every
/// dim of `x` but its last two.
std::optional<SmallVector<int64_t, 2>> tableShape(Value table, Value x) {
  ArrayRef<int64_t> t = shapeOf(table), xs = shapeOf(x);
  if (t.size() > xs.size() || t.empty())
    return std::nullopt;
  std::optional<SmallVector<int64_t>> joint = broadcastShapes(t, xs);
  if (!joint || ArrayRef<int64_t>(*joint) != xs)
    return std::nullopt;
  if (llvm::any_of(t.drop_back(2), [](int64_t d) { return d != 1; }) ||
      t.back() != xs.back())
    return std::nullopt;
  return SmallVector<int64_t, 2>{t.size() >= 2 ? t.end()[-2] : 1, t.back()};
}

/// How often the tables repeat down the rows of the viewed query, when a
/// query rotated then viewed as `query` equals `x` viewed so and rotated
/// by tables of `rows` positions: once when the view keeps the last two
/// dims or the tables have one row for all; G when the view makes G heads
/// rows of one tile ([..., H * G, L, E] -> [..., H, G * L, E], eager
/// attention's grouped queries: row r is position r mod L).
std::optional<int64_t> tableRepeats(Value x, Value query, int64_t rows) {
  ArrayRef<int64_t> xs = shapeOf(x), qs = shapeOf(query);
  if (qs.size() < 2 || xs.back() != qs.back())
    return std::nullopt;
  int64_t l = xs.end()[-2], r = qs.end()[-2];
  if (rows == 1 || l == r)
    return 1;
  if (xs.size() < 3 || l == 0 || r % l != 0)
    return std::nullopt;
  int64_t g = r / l, heads = xs.end()[-3];
  if (heads % g != 0)
    return std::nullopt;
  SmallVector<int64_t> grouped(xs.drop_back(3));
  grouped.push_back(heads / g);
  if (ArrayRef<int64_t>(grouped) != qs.drop_back(2))
    return std::nullopt;
  return g;
}

/// `table` ([Mc, E]) as `shape` [Mc, E], repeated `g` times down the rows
/// (a broadcast: one small copy kernel) when g > 1.
Value tableFor(IRRewriter &rw, Location loc, Value table,
               ArrayRef<int64_t> shape, int64_t g) {
  Value t = reshapeTo(rw, loc, table, shape);
  if (g == 1 || shape[0] == 1)
    return t;
  auto type = cast<RankedTensorType>(t.getType());
  Value repeated = BroadcastOp::create(
      rw, loc,
      RankedTensorType::get({g, shape[0], shape[1]}, type.getElementType()),
      reshapeTo(rw, loc, t, {1, shape[0], shape[1]}));
  return reshapeTo(rw, loc, repeated, {g * shape[0], shape[1]});
}

/// A rope that can become an attention's operands: the reshapes from the
/// rotated query to the attention's, the rope, its tables' shapes as the
/// op reads them and how often they repeat down its rows.
struct FoldableRope {
  SmallVector<ReshapeOp, 2> views;
  Rope rope;
  SmallVector<int64_t, 2> cosShape, sinShape;
  int64_t repeats = 1;
};

/// Whether the rope's tensors all have element type `et`.
bool sharesElementType(const Rope &rope, Type et) {
  return llvm::all_of(
      ArrayRef<Value>{rope.x, rope.cos, rope.sin, rope.rotation},
      [&](Value v) { return elementTypeOf(v) == et; });
}

/// The rope producing `op`'s query (through reshapes: they compose into
/// one view), when nothing else reads the rotated query.
std::optional<FoldableRope> matchQueryRope(AttentionOp op) {
  if (op.getRopeCos())
    return std::nullopt;
  FoldableRope f;
  Value query = op.getQuery(), rotated = query;
  while (auto view = rotated.getDefiningOp<ReshapeOp>()) {
    if (!rotated.hasOneUse())
      return std::nullopt;
    f.views.push_back(view);
    rotated = view.getInput();
  }
  std::optional<Rope> rope = matchRope(rotated);
  if (!rope || !rotated.hasOneUse() || shapeOf(rope->x) != shapeOf(rotated) ||
      !sharesElementType(*rope, elementTypeOf(query)))
    return std::nullopt;
  std::optional<SmallVector<int64_t, 2>> cosShape =
      tableShape(rope->cos, rope->x);
  std::optional<SmallVector<int64_t, 2>> sinShape =
      tableShape(rope->sin, rope->x);
  if (!cosShape || !sinShape)
    return std::nullopt;
  std::optional<int64_t> repeats =
      tableRepeats(rope->x, query, std::max((*cosShape)[0], (*sinShape)[0]));
  if (!repeats)
    return std::nullopt;
  f.rope = *rope;
  f.cosShape = *cosShape;
  f.sinShape = *sinShape;
  f.repeats = *repeats;
  return f;
}

/// Makes `f` `op`'s rope operands and erases what nothing else reads.
void foldRope(IRRewriter &rw, AttentionOp op, const FoldableRope &f) {
  rw.setInsertionPoint(op);
  Location loc = op.getLoc();
  Value x = reshapeTo(rw, loc, f.rope.x, shapeOf(op.getQuery()));
  Value cos = tableFor(rw, loc, f.rope.cos, f.cosShape, f.repeats);
  Value sin = tableFor(rw, loc, f.rope.sin, f.sinShape, f.repeats);
  rw.modifyOpInPlace(op, [&] {
    op.getQueryMutable().assign(x);
    op.getRopeCosMutable().assign(cos);
    op.getRopeSinMutable().assign(sin);
    op.getRopeRotationMutable().assign(f.rope.rotation);
  });
  for (ReshapeOp view : f.views)
    rw.eraseOp(view);
  // The rope's ops, users first; a term or the product read elsewhere
  // stays.
  for (Operation *dead : f.rope.ops)
    if (dead->use_empty())
      rw.eraseOp(dead);
}

struct FoldRopePass : public spyre::impl::SpyreFoldRopeBase<FoldRopePass> {
  void runOnOperation() override {
    if (failed(requireComputeLevel(getOperation(), getArgument())))
      return signalPassFailure();
    SmallVector<AttentionOp> ops;
    getOperation().walk([&](AttentionOp op) { ops.push_back(op); });
    IRRewriter rw(&getContext());
    for (AttentionOp op : ops)
      if (std::optional<FoldableRope> f = matchQueryRope(op))
        foldRope(rw, op, *f);
  }
};

} // namespace
