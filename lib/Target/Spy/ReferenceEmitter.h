//===- ReferenceEmitter.h - spyre.reference to the .spy ---------*- C++ -*-===//
//
// A program's `spyre.reference` as the `reference` table of its .spy program
// (schema/spy.fbs), which spyre-run --check evaluates on the host.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_LIB_TARGET_SPY_REFERENCEEMITTER_H
#define SPYRE_LIB_TARGET_SPY_REFERENCEEMITTER_H

#include "spyre/Dialect/Spyre/SpyreOps.h"
#include "spyre/Spy/KernelReference.h"

#include "llvm/ADT/StringMap.h"

namespace spyre {

/// The reference's ops in schema form; `tensorIndex` maps tensor symbols to
/// their .spy index. Fails, with an error at the op, on an op that is not a
/// compute op.
mlir::FailureOr<spy::KernelReferenceDesc>
buildKernelReference(ReferenceOp ref,
                     const llvm::StringMap<uint32_t> &tensorIndex);

} // namespace spyre

#endif // SPYRE_LIB_TARGET_SPY_REFERENCEEMITTER_H
