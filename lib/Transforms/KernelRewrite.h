//===- KernelRewrite.h - Rewriting spyre.kernel ops -------------*- C++ -*-===//
//
// What the passes that reshape kernels (spyre-form-kernels,
// spyre-reorder-on-chip) share: rebuilding a kernel with other inputs,
// results or maps, and recognizing a kernel that only permutes. Internal to
// lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_LIB_TRANSFORMS_KERNELREWRITE_H
#define SPYRE_LIB_TRANSFORMS_KERNELREWRITE_H

#include "spyre/Dialect/Spyre/SpyreOps.h"

namespace spyre {

/// A new kernel before `kernel` with `kernel`'s body and attributes and the
/// given inputs, result types and maps; `kernel` is left with no body (the
/// caller replaces its uses and erases it).
KernelOp rebuildKernel(KernelOp kernel, mlir::ValueRange inputs,
                       mlir::TypeRange results,
                       llvm::ArrayRef<mlir::AffineMap> maps);

/// The transpose of a kernel whose body is one transpose keeping the stick
/// dim of its one input (it computes nothing, it only permutes); null
/// otherwise.
TransposeOp onlyPermutation(KernelOp kernel);

} // namespace spyre

#endif // SPYRE_LIB_TRANSFORMS_KERNELREWRITE_H
