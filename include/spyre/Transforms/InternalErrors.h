//===- InternalErrors.h - Telling compiler bugs from refusals ---*- C++ -*-===//
//
// A pass that refuses its input (an unsupported op, a kernel that fits no
// schedule) reports an error and leaves valid IR. A pass that produces IR
// its own verifiers reject has a bug: for valid input that is never an
// answer. The instrumentation below tells the two apart so that user tools
// exit with a distinct status (kInternalErrorExitCode) and say so.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TRANSFORMS_INTERNALERRORS_H
#define SPYRE_TRANSFORMS_INTERNALERRORS_H

#include "mlir/Pass/PassManager.h"

#include <string>

namespace spyre {

/// Exit status of a user tool for a compiler bug (sysexits.h EX_SOFTWARE);
/// 1 stays the status of an input the compiler refuses.
constexpr int kInternalErrorExitCode = 70;

/// Where an internal error was found, filled in by the instrumentation.
struct InternalErrorRecord {
  /// The pass after which the IR failed to verify; empty if none did.
  std::string pass;
  bool found() const { return !pass.empty(); }
};

/// Adds to `pm` an instrumentation that, when a pass fails, verifies the IR
/// (silently) and records the pass in `record` if the IR is invalid: the
/// pass manager's verifier found a bug, or the pass failed halfway through
/// a rewrite.
void addInternalErrorCheck(mlir::PassManager &pm, InternalErrorRecord &record);

} // namespace spyre

#endif // SPYRE_TRANSFORMS_INTERNALERRORS_H
