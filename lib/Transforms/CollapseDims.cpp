//===- CollapseDims.cpp - Walk high-rank ops over merged dims -------------===//
//
// spyre-collapse-dims (Passes.td has the contract): an op of too high a rank
// runs on groups of adjacent dims merged in row-major order, between
// reshapes that keep the innermost dim (views of the canonical layout).
//
//===----------------------------------------------------------------------===//

#include "Preconditions.h"
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

/// Whether `op`'s own rule lets it walk result dims d and d+1 as one
/// (`shapes`: its operands' shapes, padded to the result rank). Pointwise
/// ops have none: their operands are checked group by group.
bool opMerges(Operation *op, ArrayRef<Shape> shapes, ArrayRef<int64_t> result,
              int64_t d) {
  return TypeSwitch<Operation *, bool>(op)
      .Case([&](SliceOp slice) {
        ArrayRef<int64_t> offsets = slice.getOffsets();
        ArrayRef<int64_t> strides = slice.getStrides();
        return offsets[d + 1] == 0 && strides[d + 1] == 1 && strides[d] == 1 &&
               result[d + 1] == shapes[0][d + 1];
      })
      .Case([&](ConcatOp concat) { return concat.getDim() != d + 1; })
      .Case([&](ReduceOp reduce) {
        return reduce.getDim() != d && reduce.getDim() != d + 1;
      })
      .Case([&](ScatterOp scatter) {
        return scatter.getDim() != d && scatter.getDim() != d + 1;
      })
      .Default([&](Operation *) { return true; });
}

/// How a pointwise operand reads a dim of the result: whole, broadcast, or
/// either (the result's dim has size 1).
enum class DimUse { Whole, Broadcast, Either };

DimUse useOf(ArrayRef<int64_t> operand, ArrayRef<int64_t> result, int64_t d) {
  if (result[d] == 1)
    return DimUse::Either;
  return operand[d] == 1 ? DimUse::Broadcast : DimUse::Whole;
}

/// Whether every operand of a pointwise op reads dims [begin, end) alike:
/// all whole or all broadcast (dims of size 1 fit both), so the merged dim
/// is whole or broadcast in turn.
bool readAlike(ArrayRef<Shape> shapes, ArrayRef<int64_t> result, int64_t begin,
               int64_t end) {
  return llvm::all_of(shapes, [&](const Shape &s) {
    bool whole = false, broadcast = false;
    for (int64_t d = begin; d < end; ++d) {
      DimUse u = useOf(s, result, d);
      whole |= u == DimUse::Whole;
      broadcast |= u == DimUse::Broadcast;
    }
    return !(whole && broadcast);
  });
}

/// Where `op` must keep dims apart: cut[d] separates dims d and d+1. The
/// last dim (the stick dim of the canonical layout) is never merged, so
/// that its length, and with it every reshape's view, stays.
SmallVector<bool> cutsOf(Operation *op, ArrayRef<Shape> shapes,
                         ArrayRef<int64_t> result) {
  int64_t rank = result.size();
  SmallVector<bool> cuts;
  int64_t begin = 0;
  for (int64_t d = 0; d + 1 < rank; ++d) {
    bool merge = d + 2 < rank && opMerges(op, shapes, result, d) &&
                 (!isPointwise(op) || readAlike(shapes, result, begin, d + 2));
    cuts.push_back(!merge);
    if (!merge)
      begin = d + 1;
  }
  return cuts;
}

/// Groups of adjacent dims between the cuts.
SmallVector<Group> groupsOf(ArrayRef<bool> cuts, int64_t rank) {
  SmallVector<Group> groups;
  for (int64_t d = 0; d < rank; ++d) {
    if (d > 0 && !cuts[d - 1])
      groups.back().end = d + 1;
    else
      groups.push_back({d, d + 1});
  }
  return groups;
}

/// Whether operand `i` of `op` has the result's dims (and is collapsed
/// with it): all but a scatter's 1-D indices.
bool followsResultDims(Operation *op, unsigned i) {
  return !(isa<ScatterOp>(op) && i == 1);
}

/// The shapes of the operands that follow the result's dims, padded to the
/// result's rank (others: empty).
SmallVector<Shape> operandShapes(Operation *op) {
  int64_t rank = shapeOf(op->getResult(0)).size();
  SmallVector<Shape> shapes;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    shapes.push_back(followsResultDims(op, i) ? padTo(shapeOf(v), rank)
                                              : Shape());
  return shapes;
}

/// Ops that can share a kernel (spyre-form-kernels): only these need to
/// meet without a reshape between them. Slices and concats run alone.
bool fusable(Operation *op) { return isPointwise(op) || isa<ReduceOp>(op); }

bool isCollapsible(Operation *op) {
  return isPointwise(op) || isa<SliceOp, ConcatOp, ReduceOp, ScatterOp>(op);
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
void collapseOp(Operation *op, ArrayRef<Shape> shapes, ArrayRef<Group> groups) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  IRMapping operands;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (followsResultDims(op, i))
      operands.map(v, reshapeTo(b, loc, v, collapse(shapes[i], groups)));
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
      })
      .Case([&](ScatterOp scatter) {
        scatter.setDim(groupOf(groups, scatter.getDim()));
      });
  Value back = ReshapeOp::create(b, loc, type, collapsed->getResult(0));
  result.replaceAllUsesWith(back);
  op->erase();
}

/// Ops to collapse, each with where it must keep dims apart.
using CutMap = llvm::MapVector<Operation *, SmallVector<bool>>;

/// Links the ops that pass a value of the same shape from one fusable op
/// to the next (they must merge it alike on both sides).
void linkFusableNeighbours(const CutMap &cuts,
                           llvm::EquivalenceClasses<Operation *> &linked) {
  for (auto &[op, c] : cuts) {
    linked.insert(op);
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (def && cuts.count(def) && fusable(def) && fusable(op) &&
          shapeOf(v) == shapeOf(op->getResult(0)))
        linked.unionSets(def, op);
    }
  }
}

/// The cuts of each class of linked ops: every cut one of them needs.
llvm::DenseMap<Operation *, SmallVector<bool>>
commonCuts(const CutMap &cuts, llvm::EquivalenceClasses<Operation *> &linked) {
  llvm::DenseMap<Operation *, SmallVector<bool>> common;
  for (auto &[op, c] : cuts) {
    SmallVector<bool> &all = common[linked.getLeaderValue(op)];
    if (all.empty())
      all = c;
    for (auto [a, ci] : llvm::zip(all, c))
      a = a || ci;
  }
  return common;
}

struct CollapseDimsPass
    : public spyre::impl::SpyreCollapseDimsBase<CollapseDimsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(requireComputeLevel(getOperation(), getArgument())))
      return signalPassFailure();
    CutMap cuts = collectCuts();
    // A value of the same shape passed from one fusable op to the next must
    // be merged alike on both sides, or the two would meet through a
    // reshape pair that keeps them out of one kernel: ops linked by such
    // values keep apart every pair of dims one of them must (union-find
    // over the ops); a group valid for an op stays valid cut smaller.
    llvm::EquivalenceClasses<Operation *> linked;
    linkFusableNeighbours(cuts, linked);
    llvm::DenseMap<Operation *, SmallVector<bool>> common =
        commonCuts(cuts, linked);
    for (auto &[op, c] : cuts) {
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

  /// The collapsible ops of more than maxRank dims, with their cuts.
  CutMap collectCuts() {
    CutMap cuts;
    getOperation().walk([&](Operation *op) {
      if (!isCollapsible(op) || op->getNumResults() != 1 ||
          cast<RankedTensorType>(op->getResult(0).getType()).getRank() <=
              maxRank)
        return;
      Shape result = shapeOf(op->getResult(0));
      cuts[op] = cutsOf(op, operandShapes(op), result);
    });
    return cuts;
  }
};

} // namespace
} // namespace spyre
