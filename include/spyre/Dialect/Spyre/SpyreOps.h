//===- SpyreOps.h - spyre operations ----------------------------*- C++ -*-===//

#ifndef SPYRE_DIALECT_SPYRE_SPYREOPS_H
#define SPYRE_DIALECT_SPYRE_SPYREOPS_H

#include "spyre/Dialect/Spyre/IterationSpace.h"
#include "spyre/Dialect/Spyre/SpyreAttrs.h"
#include "spyre/Dialect/Spyre/SpyreDialect.h"
#include "spyre/Dialect/Spyre/TileLowering.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace spyre {
/// Encodes instruction ops (InstEncoder.h; not included here: its ISA
/// namespace `spyre::isa` would hide llvm::isa in the dialect's code).
class InstEncoder;
} // namespace spyre

#include "spyre/Dialect/Spyre/SpyreInterfaces.h.inc"

#define GET_OP_CLASSES
#include "spyre/Dialect/Spyre/SpyreOps.h.inc"

namespace spyre {

/// The machine description in effect for `op`: its module's `spyre.arch`
/// attribute, or the built-in default description.
Arch getArch(mlir::Operation *op);

/// Name of the module attribute holding the machine description.
constexpr llvm::StringLiteral kArchAttrName = "spyre.arch";

/// The layout encoding of a tensor type, or null.
LayoutAttr getLayout(mlir::Type type);

/// Bytes of one element of `type` in device storage.
int64_t getElementBytes(mlir::Type elementType);

/// Whether a result with destination `path` stays in its producer's LX for
/// readers there (`lx`, `lx_dma`).
inline bool isKeptInLx(DataPath path) {
  return path == DataPath::lx || path == DataPath::lx_dma;
}
/// Whether a result with destination `path` goes to device memory (`dma`,
/// `lx_dma`).
inline bool isStored(DataPath path) {
  return path == DataPath::dma || path == DataPath::lx_dma;
}

} // namespace spyre

#endif // SPYRE_DIALECT_SPYRE_SPYREOPS_H
