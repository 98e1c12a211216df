//===- IterationSpace.h - Loop nests of compute ops -------------*- C++ -*-===//
//
// The loop-nest view of compute ops (ComputeOpInterface) and kernels.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_DIALECT_SPYRE_ITERATIONSPACE_H
#define SPYRE_DIALECT_SPYRE_ITERATIONSPACE_H

#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace spyre {

enum class IteratorKind : uint32_t;

/// A loop nest: loop sizes and kinds, and for each operand then each result
/// an affine map from loops to tensor indices. A broadcast tensor dimension
/// maps to the constant 0.
struct IterationSpace {
  llvm::SmallVector<int64_t> sizes;
  llvm::SmallVector<IteratorKind> iterators;
  llvm::SmallVector<mlir::AffineMap> operandMaps;
  llvm::SmallVector<mlir::AffineMap> resultMaps;

  unsigned getNumLoops() const { return sizes.size(); }
};

/// Work an op does, for cost models.
struct OpWork {
  /// Multiply-accumulates on the PT unit.
  int64_t macs = 0;
  /// Element operations on the SFP unit.
  int64_t elementOps = 0;
  /// Whether the SFP operation is a transcendental one (costlier).
  bool complex = false;
};

} // namespace spyre

#endif // SPYRE_DIALECT_SPYRE_ITERATIONSPACE_H
