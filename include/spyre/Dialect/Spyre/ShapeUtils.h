//===- ShapeUtils.h - Broadcasting and matmul shapes ------------*- C++ -*-===//

#ifndef SPYRE_DIALECT_SPYRE_SHAPEUTILS_H
#define SPYRE_DIALECT_SPYRE_SHAPEUTILS_H

#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace spyre {

class MatmulOp;

/// Numpy broadcast of two shapes; nullopt when they do not broadcast.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// The map from the loops of a `resultShape` loop nest to the indices of an
/// operand of shape `operandShape` broadcast to it: trailing dims aligned,
/// dims of size 1 (where the result's is not) map to the constant 0.
mlir::AffineMap broadcastMap(llvm::ArrayRef<int64_t> operandShape,
                             llvm::ArrayRef<int64_t> resultShape,
                             mlir::MLIRContext *ctx);

/// Sizes of a matmul: batch (broadcast), m, n, k.
struct MatmulDims {
  llvm::SmallVector<int64_t> batch;
  int64_t m = 0, n = 0, k = 0;
};
MatmulDims getMatmulDims(MatmulOp op);

} // namespace spyre

#endif // SPYRE_DIALECT_SPYRE_SHAPEUTILS_H
