//===- KernelRewrite.h - Rewriting spyre.kernel ops -------------*- C++ -*-===//
//
// What the passes that reshape kernels (spyre-form-kernels,
// spyre-reorder-on-chip) share: rebuilding a kernel with other inputs,
// results or maps, recognizing a kernel that only permutes, and inlining
// an elementwise (or sibling matmul) producer into its consumer. Internal to
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

/// The one op of a kernel with `numInputs` inputs, one result and a body of
/// one op (the kernels that only move data); null otherwise.
mlir::Operation *soleBodyOp(KernelOp kernel, unsigned numInputs);

/// The transpose of a kernel whose body is one transpose keeping the stick
/// dim of its one input (it computes nothing, it only permutes); null
/// otherwise.
TransposeOp onlyPermutation(KernelOp kernel);

/// The consumer of an elementwise producer kernel computing the producer's
/// body itself: every read of `producer`'s one result, where only
/// pointwise ops of `consumer` use it, becomes reads of the producer's
/// inputs (maps composed) and a copy of its body. Likewise a matmul
/// producer over the consumer's loops that multiplies the consumer
/// matmul's lhs (the gated MLP's gate beside its up projection): its
/// inputs keep their maps and its matmul joins the consumer's. A new
/// kernel before `consumer`, which is left as it is (the caller replaces
/// and erases); null when the producer or the reads do not qualify.
KernelOp inlineProducer(KernelOp consumer, KernelOp producer);

/// Whether `first` and `second` (later in the same block) are projections
/// of one lhs a kernel can compute together: matmul kernels over the same
/// loops, iterators and result map, each with one result and pointwise ops
/// after its matmul, multiplying the same lhs tensor (same map) by inputs,
/// `second` reading nothing defined after `first` (k and v beside each
/// other under grouped-query attention: the same N).
bool areSiblingProjections(KernelOp first, KernelOp second);

/// The kernel computing both sibling projections (above), before `first`:
/// its inputs `first`'s then `second`'s (each value and map once), its
/// results `first`'s then `second`'s; null when they do not qualify. The
/// two are left as they are (the caller replaces and erases).
KernelOp mergeSiblingProjections(KernelOp first, KernelOp second);

} // namespace spyre

#endif // SPYRE_LIB_TRANSFORMS_KERNELREWRITE_H
