//===- KernelLowering.h - One kernel's per-core program ---------*- C++ -*-===//

#ifndef SPYRE_TRANSFORMS_KERNELLOWERING_H
#define SPYRE_TRANSFORMS_KERNELLOWERING_H

#include "spyre/Transforms/KernelPlan.h"

#include "mlir/IR/Builders.h"

namespace spyre {

struct RingExchange;

/// Emits the `spyre.program` of an allocated kernel from its plan, at the
/// builder's insertion point. `tensorSymbols` are the device tensors of the
/// kernel's inputs then results; `gathers` the placed ring exchanges of its
/// `ring` inputs (lib/Transforms/RingExchange.h). The structure, for every
/// kernel kind:
///
///   ring sends, local copies and receives of the `ring` inputs
///   loads of inputs that no tiled loop changes (once)
///   loop over the core's tiles (outer, row, stick loops with >1 tile)
///     loads of the tile's other inputs
///     loop over the accumulation loop (matmul k, a reduced row loop)
///       loads of what changes with it; PT matmuls / SFP ops and
///       accumulating reductions
///     SFP ops of the epilogue (or of the whole body without accumulation)
///     conversions and stores of the results
///
/// With depth >= 2 the innermost tile loop is software-pipelined (unless the
/// accumulation loop is a hardware loop): the loads of its next tile come
/// before the current tile's compute and stores (docs/passes.md).
mlir::LogicalResult
lowerKernel(const KernelPlan &plan, mlir::OpBuilder &b, llvm::StringRef name,
            llvm::ArrayRef<mlir::FlatSymbolRefAttr> tensorSymbols,
            llvm::ArrayRef<RingExchange> gathers = {});

/// The same for data-movement kernels (copies, gathers, scatters):
/// lib/Transforms/DataMovement.cpp.
mlir::LogicalResult
lowerDataMovement(const KernelPlan &plan, mlir::OpBuilder &b,
                  llvm::StringRef name,
                  llvm::ArrayRef<mlir::FlatSymbolRefAttr> tensorSymbols);

/// The same for attention kernels: lib/Transforms/AttentionKernel.cpp.
mlir::LogicalResult
lowerAttention(const KernelPlan &plan, mlir::OpBuilder &b, llvm::StringRef name,
               llvm::ArrayRef<mlir::FlatSymbolRefAttr> tensorSymbols);

} // namespace spyre

#endif // SPYRE_TRANSFORMS_KERNELLOWERING_H
