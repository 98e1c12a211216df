//===- ShapeCommon.h - Helpers shared by the shape family files -*- C++ -*-===//
//
// Private to lib/Transforms/Decompositions: the views, indexing and creation
// files (the "shape" family) share these.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TRANSFORMS_DECOMPOSITIONS_SHAPECOMMON_H
#define SPYRE_TRANSFORMS_DECOMPOSITIONS_SHAPECOMMON_H

#include "spyre/Transforms/Decompositions.h"

namespace spyre {

/// A window along one dim (start, end, step as Python slicing clamps them).
mlir::Value sliceAlong(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       int64_t dim, int64_t start, int64_t size, int64_t step);

/// The optional int argument `name` as a position in a dim of `n` elements:
/// `dflt` when None, negative values counted from the end, clamped to
/// [0, n] as Python slicing clamps; failure (error emitted) when not an int.
mlir::FailureOr<int64_t> clampedIndex(const AtenArgs &args,
                                      llvm::StringRef name, int64_t dflt,
                                      int64_t n);

} // namespace spyre

#endif // SPYRE_TRANSFORMS_DECOMPOSITIONS_SHAPECOMMON_H
