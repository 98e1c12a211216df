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

  /// Where the device images of `#spyre.external` weights go
  /// (docs/spy-format.md, "Weights file").
  enum class WeightsPlacement {
    /// A weights file when they total kAutoWeightsFileBytes or more and the
    /// .spy is written to a file; else into the .spy.
    Auto,
    /// Into the .spy.
    Inline,
    /// Into the weights file.
    File,
  };
  WeightsPlacement weights = WeightsPlacement::Auto;
  /// The weights file; empty: beside the .spy, its name with `.spyw` for
  /// `.spy` (model.spy -> model.spyw). A file already there that holds the
  /// same images (same key) is reused, not rewritten.
  std::string weightsFile;
  /// Host threads converting weights into the weights file (0: all cores).
  unsigned weightThreads = 0;
};

/// The size from which WeightsPlacement::Auto writes a weights file.
constexpr uint64_t kAutoWeightsFileBytes = uint64_t(1) << 30;

/// The default weights file of a .spy written to `spyPath`.
std::string defaultWeightsFile(llvm::StringRef spyPath);

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
