//===- CompileReport.h - What the compiler decided, as JSON -----*- C++ -*-===//

#ifndef SPYRE_TARGET_SPY_COMPILEREPORT_H
#define SPYRE_TARGET_SPY_COMPILEREPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace spyre {

/// Writes, for a program-level module, one JSON object: the machine, every
/// program (kernel) with its cores, instruction count, the cost model's
/// estimate, MACs, minimum bytes and roofline, and the totals, including
/// the model-level roofline (weights, inputs and outputs moved once).
void writeCompileReport(mlir::ModuleOp module, llvm::raw_ostream &os);

} // namespace spyre

#endif // SPYRE_TARGET_SPY_COMPILEREPORT_H
