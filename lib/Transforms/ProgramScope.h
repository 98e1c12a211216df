//===- ProgramScope.h - Building one per-core program -----------*- C++ -*-===//
//
// What every kernel lowering needs while it writes a `spyre.program`: the
// per-core parameter table, the stack of open hardware loops, rotating LX
// addresses and edge clamps. Internal to lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_LIB_TRANSFORMS_PROGRAMSCOPE_H
#define SPYRE_LIB_TRANSFORMS_PROGRAMSCOPE_H

#include "spyre/Dialect/Spyre/SpyreOps.h"

#include "mlir/IR/Builders.h"

namespace spyre {

/// Per-core parameter table under construction: one column per slot.
class ParamTable {
public:
  explicit ParamTable(int64_t cores) : cores(cores) {}
  /// The slot holding `values` (one per core), or -1 when all are zero.
  int64_t slot(llvm::ArrayRef<int64_t> values);
  int64_t numParams() const { return columns.size(); }
  int64_t numCores() const { return cores; }
  /// core-major values, as `spyre.program`'s `params`.
  llvm::SmallVector<int64_t> flatten() const;

private:
  int64_t cores;
  llvm::SmallVector<llvm::SmallVector<int64_t>> columns;
};

class ProgramScope {
public:
  ProgramScope(mlir::OpBuilder &b, mlir::Location loc, int64_t cores)
      : b(b), loc(loc), params(cores), ctx(b.getContext()) {}

  /// Creates the program op with an empty body and moves the insertion
  /// point into it (restored by finish()).
  ProgramOp begin(llvm::StringRef name, llvm::StringRef kernel);
  /// Writes the parameter table and leaves the program.
  void finish();

  /// Opens a hardware loop running `counts[c]` times on core c; `tag`
  /// identifies it for levelOf().
  void openLoop(llvm::ArrayRef<int64_t> counts, int64_t tag);
  /// The same, running `counts[c] + step * iv` times, `iv` counting the
  /// open loop tagged `growsWith` (a triangular nest; `counts` alone when
  /// that loop is not open).
  void openGrowingLoop(llvm::ArrayRef<int64_t> counts, int64_t tag,
                       int64_t growsWith, int64_t step);
  /// Opens a loop running once on the cores where `runs[c]` is 1 and not
  /// at all where it is 0: code for some cores only (a count of 0 skips
  /// the body at no cost). No address advances along it.
  void openGuard(llvm::ArrayRef<int64_t> runs) { openLoop(runs, kGuard); }
  void closeLoop();
  size_t depth() const { return open.size(); }
  /// Level of the open loop tagged `tag`, or -1.
  int64_t levelOf(int64_t tag) const;

  /// LX address of a buffer at `offset` with `copies` copies of `bytes`:
  /// rotating through them once per iteration of the open loop at `level`
  /// (by default the innermost; none when negative).
  LxAddressAttr lx(int64_t offset, int64_t bytes, int64_t copies,
                   std::optional<int64_t> level = std::nullopt);
  /// Memory strides per open loop, from bytes per iteration of each tag.
  llvm::SmallVector<int64_t>
  memStrides(llvm::function_ref<int64_t(int64_t tag)> bytesPerIteration);
  /// The clamp of argument `argIndex` to `total - (start + iv * step)`,
  /// `iv` counting the loop tagged `tag` (0 when it is not open), `starts`
  /// the per-core start; null when `total` is a multiple of `step` and
  /// every start too (no edge).
  ClampAttr clamp(int64_t tag, int64_t argIndex, int64_t step, int64_t total,
                  llvm::ArrayRef<int64_t> starts);

  mlir::IntegerAttr i64(int64_t v) { return b.getI64IntegerAttr(v); }
  mlir::UnitAttr flag(bool v) { return v ? b.getUnitAttr() : mlir::UnitAttr(); }

  mlir::OpBuilder &b;
  mlir::Location loc;
  ParamTable params;

private:
  static constexpr int64_t kGuard = -1; // the tag of guard loops

  mlir::MLIRContext *ctx;
  ProgramOp program;
  llvm::SmallVector<int64_t> open; // tags of open loops, outermost first
  llvm::SmallVector<mlir::OpBuilder::InsertPoint> saved;
  mlir::OpBuilder::InsertPoint outside;
};

} // namespace spyre

#endif // SPYRE_LIB_TRANSFORMS_PROGRAMSCOPE_H
