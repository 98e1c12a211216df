//===- SpyEmitter.h - Program-level IR to .spy ------------------*- C++ -*-===//

#ifndef SPYRE_TARGET_SPY_SPYEMITTER_H
#define SPYRE_TARGET_SPY_SPYEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace spyre {

/// Metadata recorded in the .spy; empty fields come from the module's
/// `spyre.source` and `spyre.pipeline` attributes.
struct SpyEmitOptions {
  std::string sourceModel;
  std::string pipeline;
  /// Host bytes of an external weight held at once while its device image
  /// is written (0: spy::StreamedImage::kDefaultBudgetBytes). Peak memory
  /// does not depend on the size of the weights, only on this.
  uint64_t weightBufferBytes = 0;
};

/// Serializes a program-level module (`spyre.tensor`, `spyre.program`,
/// `spyre.plan`; the output of spyre-lower-to-program) to `path` as a .spy
/// file. Weight data is streamed, never copied whole: external weights are
/// read from their archive in bounded pieces while the file is written.
/// Emits diagnostics on the module and fails when the module is not at
/// program level or holds something the binary cannot express.
mlir::LogicalResult emitSpyFile(mlir::ModuleOp module, llvm::StringRef path,
                                const SpyEmitOptions &options);

/// Same, writing to a stream (for `-o -`).
mlir::LogicalResult emitSpy(mlir::ModuleOp module, llvm::raw_ostream &os,
                            const SpyEmitOptions &options);

} // namespace spyre

#endif // SPYRE_TARGET_SPY_SPYEMITTER_H
