//===- Preconditions.h - What a pass expects of its input -------*- C++ -*-===//
//
// The IR-level checks a pass makes before it runs, so that a pass run out
// of order says which pass must come first instead of failing later with a
// message about something else (docs/passes.md lists what each expects).
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_LIB_TRANSFORMS_PRECONDITIONS_H
#define SPYRE_LIB_TRANSFORMS_PRECONDITIONS_H

#include "mlir/IR/BuiltinOps.h"

namespace spyre {

/// No graph-level `spyre.aten` op is left (spyre-decompose has run).
mlir::LogicalResult requireComputeLevel(mlir::ModuleOp module,
                                        llvm::StringRef pass);
/// Every tensor of every compute op outside kernels has a layout
/// (spyre-assign-layouts has run).
mlir::LogicalResult requireLayouts(mlir::ModuleOp module, llvm::StringRef pass);
/// Every compute op is inside a kernel (spyre-form-kernels has run).
mlir::LogicalResult requireKernels(mlir::ModuleOp module, llvm::StringRef pass);

} // namespace spyre

#endif // SPYRE_LIB_TRANSFORMS_PRECONDITIONS_H
