//===- InstEncoder.h - Instruction ops into ISA words -----------*- C++ -*-===//
//
// What an instruction op needs to encode itself (InstructionOpInterface):
// the words so far, a relocation for each word that addresses device
// memory, and checked setters for the fields of isa::Inst (docs/isa.md).
// The .spy emitter gathers a program's words and relocations from it.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_DIALECT_SPYRE_INSTENCODER_H
#define SPYRE_DIALECT_SPYRE_INSTENCODER_H

#include "spyre/Dialect/Spyre/SpyreAttrs.h"
#include "spyre/ISA/ISA.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <limits>
#include <vector>

namespace spyre {

/// The device element type of `t`, or a diagnostic at `op`.
mlir::FailureOr<isa::DType> deviceDType(mlir::Operation *op, mlir::Type t);

class InstEncoder {
public:
  /// The words of the program so far.
  std::vector<isa::Inst> insts;
  /// (word index, device operand) of every word that addresses memory.
  llvm::SmallVector<std::pair<uint32_t, MemAddressAttr>> relocations;

  /// Appends a word; returns its index.
  uint32_t push(const isa::Inst &inst);
  /// Appends a word whose memory operand is `mem` (relocated at load).
  void pushRelocated(const isa::Inst &inst, MemAddressAttr mem);
  /// Encodes every op of `block` (each an InstructionOpInterface).
  mlir::LogicalResult encodeBlock(mlir::Block &block);

  /// `value` into `field`, or an error at `op` naming `what` when it does
  /// not fit the field's type.
  template <typename T>
  mlir::LogicalResult fits(mlir::Operation *op, int64_t value, T &field,
                           llvm::StringRef what) {
    if (value < int64_t(std::numeric_limits<T>::min()) ||
        (value > 0 &&
         uint64_t(value) > uint64_t(std::numeric_limits<T>::max())))
      return op->emitError(what)
             << " " << value << " does not fit its instruction field";
    field = T(value);
    return mlir::success();
  }
  /// LX address of operand `slot` (offset, wrap, per-loop strides).
  mlir::LogicalResult setLx(mlir::Operation *op, isa::Inst &inst, unsigned slot,
                            LxAddressAttr lx);
  /// The memory address's per-loop strides and parameter slot (the base
  /// is relocated).
  mlir::LogicalResult setMem(mlir::Operation *op, isa::Inst &inst,
                             MemAddressAttr mem);
  mlir::LogicalResult setPitch(mlir::Operation *op, isa::Inst &inst,
                               llvm::ArrayRef<int64_t> pitch);
  mlir::LogicalResult setDType(mlir::Operation *op, isa::Inst &inst,
                               unsigned slot, mlir::Type type);
  mlir::LogicalResult setClamp(mlir::Operation *op, isa::Inst &inst,
                               std::optional<ClampAttr> clamp);
};

} // namespace spyre

#endif // SPYRE_DIALECT_SPYRE_INSTENCODER_H
