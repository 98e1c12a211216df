//===- CollapseDims.cpp - Walk high-rank ops over merged dims -------------===//
//
// spyre-collapse-dims (Passes.td has the contract): an op of too high a rank
// runs on groups of adjacent dims merged in row-major order, between
// reshapes that keep the innermost dim (views of the canonical layout).
//
//===----------------------------------------------------------------------===//

#include "spyre/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace spyre {
#define GEN_PASS_DEF_SPYRECOLLAPSEDIMS
#include "spyre/Transforms/Passes.h.inc"
} // namespace spyre

using namespace mlir;

namespace spyre {
namespace {

using Shape = SmallVector<int64_t>;

Shape shapeOf(Value v) {
  return Shape(cast<RankedTensorType>(v.getType()).getShape());
}

/// `shape` with leading 1s up to `rank` (numpy broadcasting aligns dims
/// from the right).
Shape padTo(Shape shape, int64_t rank) {
  shape.insert(shape.begin(), rank - int64_t(shape.size()), 1);
  return shape;
}

/// Dims [begin, end) of the result walked as one.
struct Group {
  int64_t begin, end;
};

/// `shape` with each group's dims multiplied together.
Shape collapse(ArrayRef<int64_t> shape, ArrayRef<Group> groups) {
  Shape out;
  for (Group g : groups) {
    int64_t n = 1;
    for (int64_t d = g.begin; d < g.end; ++d)
      n *= shape[d];
    out.push_back(n);
  }
  return out;
}

/// Whether result dims d and d+1 can be walked as one by `op`, whose
/// operand shapes are `shapes` (padded to the result rank).
bool opMerges(Operation *op, ArrayRef<Shape> shapes, ArrayRef<int64_t> result,
              int64_t d) {
  return TypeSwitch<Operation *, bool>(op)
      .Case([&](SliceOp slice) {
        ArrayRef<int64_t> offsets = slice.getOffsets();
        ArrayRef<int64_t> strides = slice.getStrides();
        return offsets[d + 1] == 0 && strides[d + 1] == 1 &&
               strides[d] == 1 && result[d + 1] == shapes[0][d + 1];
      })
      .Case([&](ConcatOp concat) { return concat.getDim() != d + 1; })
      .Case([&](ReduceOp reduce) {
        return reduce.getDim() != d && reduce.getDim() != d + 1;
      })
      .Default([&](Operation *) {
        // Pointwise: each operand reads both dims whole, or broadcasts both.
        return llvm::all_of(shapes, [&](const Shape &s) {
          bool whole = s[d] == result[d] && s[d + 1] == result[d + 1];
          return whole || (s[d] == 1 && s[d + 1] == 1);
        });
      });
}

/// For each pair of adjacent result dims (d, d+1), whether `op` can walk
/// them as one. The last dim (the stick dim of the canonical layout) is
/// never merged, so that its length, and with it every reshape's view,
/// stays.
SmallVector<bool> mergeablePairs(Operation *op, ArrayRef<Shape> shapes,
                                 ArrayRef<int64_t> result) {
  SmallVector<bool> pairs;
  for (int64_t d = 0; d + 1 < int64_t(result.size()); ++d)
    pairs.push_back(d + 2 < int64_t(result.size()) &&
                    opMerges(op, shapes, result, d));
  return pairs;
}

/// Groups of adjacent dims from the pairs that merge.
SmallVector<Group> groupsOf(ArrayRef<bool> pairs, int64_t rank) {
  SmallVector<Group> groups;
  for (int64_t d = 0; d < rank; ++d) {
    if (d > 0 && pairs[d - 1])
      groups.back().end = d + 1;
    else
      groups.push_back({d, d + 1});
  }
  return groups;
}

/// The operands' shapes, padded to the result's rank.
SmallVector<Shape> operandShapes(Operation *op) {
  int64_t rank = shapeOf(op->getResult(0)).size();
  SmallVector<Shape> shapes;
  for (Value v : op->getOperands())
    shapes.push_back(padTo(shapeOf(v), rank));
  return shapes;
}

bool isCollapsible(Operation *op) {
  return isPointwise(op) || isa<SliceOp, ConcatOp, ReduceOp>(op);
}

/// The collapsed form of `v`: a reshape, or the value a previous collapse
/// reshaped back (so chains of collapsed ops meet without reshapes).
Value reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  if (shapeOf(v) == shape)
    return v;
  if (auto back = v.getDefiningOp<ReshapeOp>())
    if (shapeOf(back.getInput()) == shape)
      return back.getInput();
  auto type = cast<RankedTensorType>(v.getType());
  return ReshapeOp::create(b, loc, type.clone(shape), v);
}

/// The index of the group holding dim `d`.
int64_t groupOf(ArrayRef<Group> groups, int64_t d) {
  for (auto [i, g] : llvm::enumerate(groups))
    if (d >= g.begin && d < g.end)
      return i;
  llvm_unreachable("dim outside every group");
}

/// Rewrites `op` over `groups`; the attributes that index dims follow.
void collapseOp(Operation *op, ArrayRef<Shape> shapes,
                ArrayRef<Group> groups) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  IRMapping operands;
  for (auto [v, shape] : llvm::zip(op->getOperands(), shapes))
    operands.map(v, reshapeTo(b, loc, v, collapse(shape, groups)));
  Operation *collapsed = b.clone(*op, operands);
  Value result = op->getResult(0);
  auto type = cast<RankedTensorType>(result.getType());
  collapsed->getResult(0).setType(
      type.clone(collapse(type.getShape(), groups)));
  TypeSwitch<Operation *>(collapsed)
      .Case([&](SliceOp slice) {
        // Inner dims of a group are whole: the group's offset is its first
        // dim's, in units of the merged inner extent.
        Shape offsets, strides;
        for (Group g : groups) {
          int64_t inner = 1;
          for (int64_t d = g.begin + 1; d < g.end; ++d)
            inner *= shapes[0][d];
          offsets.push_back(slice.getOffsets()[g.begin] * inner);
          strides.push_back(slice.getStrides()[g.begin]);
        }
        slice.setOffsets(offsets);
        slice.setStrides(strides);
      })
      .Case([&](ConcatOp concat) {
        concat.setDim(groupOf(groups, concat.getDim()));
      })
      .Case([&](ReduceOp reduce) {
        reduce.setDim(groupOf(groups, reduce.getDim()));
      });
  Value back = ReshapeOp::create(b, loc, type, collapsed->getResult(0));
  result.replaceAllUsesWith(back);
  op->erase();
}

struct CollapseDimsPass
    : public spyre::impl::SpyreCollapseDimsBase<CollapseDimsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Ops to collapse, each with the pairs of dims it could merge.
    llvm::MapVector<Operation *, SmallVector<bool>> pairs;
    getOperation().walk([&](Operation *op) {
      if (!isCollapsible(op) || op->getNumResults() != 1 ||
          cast<RankedTensorType>(op->getResult(0).getType()).getRank() <=
              maxRank)
        return;
      Shape result = shapeOf(op->getResult(0));
      pairs[op] = mergeablePairs(op, operandShapes(op), result);
    });
    // A value of the same shape passed from one such op to the next must be
    // merged alike on both sides, or the two would meet through a reshape
    // pair that keeps them out of one kernel: ops linked by such values
    // merge only the pairs they all can (union-find over the ops).
    llvm::EquivalenceClasses<Operation *> linked;
    for (auto &[op, p] : pairs) {
      linked.insert(op);
      for (Value v : op->getOperands()) {
        Operation *def = v.getDefiningOp();
        if (def && pairs.count(def) &&
            shapeOf(v) == shapeOf(op->getResult(0)))
          linked.unionSets(def, op);
      }
    }
    llvm::DenseMap<Operation *, SmallVector<bool>> common;
    for (auto &[op, p] : pairs) {
      SmallVector<bool> &c = common[linked.getLeaderValue(op)];
      if (c.empty())
        c = p;
      for (auto [ci, pi] : llvm::zip(c, p))
        ci = ci && pi;
    }
    for (auto &[op, p] : pairs) {
      Shape result = shapeOf(op->getResult(0));
      SmallVector<Shape> shapes = operandShapes(op);
      SmallVector<Group> groups =
          groupsOf(common[linked.getLeaderValue(op)], result.size());
      if (groups.size() < result.size())
        collapseOp(op, shapes, groups);
    }
    // Reshapes a collapse made and the next one looked through.
    getOperation().walk([](ReshapeOp op) {
      if (op->use_empty())
        op->erase();
    });
  }
};

} // namespace
} // namespace spyre
