//===- Pt2Importer.h - torch.export programs to graph-level IR --*- C++ -*-===//

#ifndef SPYRE_TARGET_PT2_PT2IMPORTER_H
#define SPYRE_TARGET_PT2_PT2IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>

namespace spyre {

struct Pt2ImportOptions {
  /// Machine description to attach (empty: the built-in one).
  std::string archFile;
  /// Values for symbolic dims (`--bind-dims s0=128,s1=4`).
  std::map<std::string, int64_t> boundDims;
  /// Weights up to this many bytes become dense attributes; larger ones
  /// stay in the archive (`#spyre.external`) and are streamed by the emitter.
  int64_t inlineWeightBytes = 16 * 1024;
  /// How diagnostics and `spyre.source` name the input (default: the path);
  /// `<stdin>` for a model a tool read from standard input.
  std::string sourceName;
};

/// Imports a torch.export `.pt2` archive or a bare exported-program `.json`
/// (docs/importer.md). Diagnostics go to the context's handler, located at
/// the file or at the offending node's Python source line.
mlir::OwningOpRef<mlir::ModuleOp> importPt2(llvm::StringRef path,
                                            mlir::MLIRContext *ctx,
                                            const Pt2ImportOptions &options);

/// Parses `s0=128,s1=4`; false (with `error`) on malformed text.
bool parseBoundDims(llvm::StringRef text, std::map<std::string, int64_t> &out,
                    std::string &error);

} // namespace spyre

#endif // SPYRE_TARGET_PT2_PT2IMPORTER_H
