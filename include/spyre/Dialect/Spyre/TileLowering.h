//===- TileLowering.h - How a compute op runs in a kernel -------*- C++ -*-===//
//
// The vocabulary of ComputeOpInterface's getKernelRole and getTileLowering:
// each compute op says what kind of kernel body it makes and which
// instruction computes it on a tile, so that the schedule passes and the
// program lowering need no list of ops (a new op plugs in by answering
// these two questions).
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_DIALECT_SPYRE_TILELOWERING_H
#define SPYRE_DIALECT_SPYRE_TILELOWERING_H

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/StringRef.h"

namespace spyre {

/// The role an op plays in a kernel body (KernelPlan's kinds follow).
enum class KernelRole {
  Pointwise, // one element of each operand per result element
  Matmul,    // a contraction on the PT array
  Reduce,    // along one dim
  Layout,    // moves dims (transpose, restickify): free or an SFP transpose
  Copy,      // moves bytes by DMA (slice, concat)
  Gather,    // rows picked by runtime indices (DMA)
  Scatter,   // rows replaced at runtime indices (DMA)
  Attention, // a flash-attention kernel of its own
};

/// The instruction a compute op becomes on a tile.
enum class TileForm {
  None,         // no instruction of its own (DMA kernels, views)
  PtMatmul,     // the systolic array
  SfpUnary,     // one source
  SfpBinary,    // two sources
  SfpSelect,    // condition, value if true, value if false
  SfpReduce,    // along rows or columns
  SfpTranspose, // a tile transposed in LX
};

struct TileLowering {
  TileForm form = TileForm::None;
  /// The SFP function (docs/isa.md): "exp", "add", "sum", "copy", ...
  llvm::StringRef function;
};

namespace OpTrait {
/// Marks the pointwise compute ops (unary, binary, compare, select, cast,
/// broadcast): fusable into any kernel's tile loop, collapsible over any
/// dims their operands read alike.
template <typename ConcreteType>
class PointwiseOp : public mlir::OpTrait::TraitBase<ConcreteType, PointwiseOp> {
};
} // namespace OpTrait

/// Whether `op` is a pointwise compute op.
inline bool isPointwise(mlir::Operation *op) {
  return op->hasTrait<OpTrait::PointwiseOp>();
}

} // namespace spyre

#endif // SPYRE_DIALECT_SPYRE_TILELOWERING_H
