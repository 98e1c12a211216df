//===- ConstantFolding.h - Compile-time evaluation of compute ops -*- C++
//-*-===//
//
// Evaluates compute ops on constant operands (dense elements attributes) the
// way the device does (spyre/ISA/ElementMath.h, shared with the simulator):
// float elements in fp32, integer elements in int64 (wrapping), each result
// rounded once to its element type (IEEE f16/bf16 round to nearest even;
// float -> integer truncates toward zero, NaN -> 0, saturating; -> i1 tests
// != 0). The only
// difference from the device is its storage: it keeps f16/bf16 as DLFloat16,
// so a folded f16 constant is the IEEE rounding of the fp32 value, which
// the emitter then converts to DL16 like any f16 constant.
//
// Every function returns a null attribute when it does not fold: an operand
// that is not a dense elements attribute of a supported element type (f16,
// bf16, f32, i1, i8, i32, i64), a dynamic result shape, or an operand or
// result over the size limits (splats count as one element; elementwise ops
// on splats give a splat of any size).
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_LIB_DIALECT_SPYRE_CONSTANTFOLDING_H
#define SPYRE_LIB_DIALECT_SPYRE_CONSTANTFOLDING_H

#include "spyre/Dialect/Spyre/SpyreOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace spyre::constfold {

/// Most elements of one operand or result that a fold reads or writes:
/// compile time stays small and big tensors are never copied.
inline constexpr int64_t kMaxElements = int64_t(1) << 16;
/// Most multiply-accumulates (matmul) or element reads (reduce) of one fold.
inline constexpr int64_t kMaxWork = int64_t(1) << 22;

/// Whether `attr` is a dense attribute the folders can read (supported
/// element type, at most kMaxElements elements unless a splat).
bool isFoldable(mlir::Attribute attr);

mlir::Attribute foldUnary(UnaryKind kind, mlir::Attribute input,
                          mlir::Type resultType);
mlir::Attribute foldBinary(BinaryKind kind, mlir::Attribute lhs,
                           mlir::Attribute rhs, mlir::Type resultType);
mlir::Attribute foldCompare(ComparePredicate predicate, mlir::Attribute lhs,
                            mlir::Attribute rhs, mlir::Type resultType);
mlir::Attribute foldSelect(mlir::Attribute condition, mlir::Attribute onTrue,
                           mlir::Attribute onFalse, mlir::Type resultType);
mlir::Attribute foldCast(mlir::Attribute input, mlir::Type resultType);
mlir::Attribute foldReduce(ReduceKind kind, mlir::Attribute input, int64_t dim,
                           mlir::Type resultType);
mlir::Attribute foldMatmul(mlir::Attribute lhs, mlir::Attribute rhs,
                           bool transposeLhs, bool transposeRhs,
                           mlir::Type resultType);
mlir::Attribute foldTranspose(mlir::Attribute input,
                              llvm::ArrayRef<int64_t> permutation,
                              mlir::Type resultType);
/// Reshape, broadcast: same elements in row-major order / numpy broadcast.
mlir::Attribute foldReshape(mlir::Attribute input, mlir::Type resultType);
mlir::Attribute foldBroadcast(mlir::Attribute input, mlir::Type resultType);
mlir::Attribute foldSlice(mlir::Attribute input,
                          llvm::ArrayRef<int64_t> offsets,
                          llvm::ArrayRef<int64_t> strides,
                          mlir::Type resultType);
mlir::Attribute foldConcat(llvm::ArrayRef<mlir::Attribute> inputs, int64_t dim,
                           mlir::Type resultType);

} // namespace spyre::constfold

#endif // SPYRE_LIB_DIALECT_SPYRE_CONSTANTFOLDING_H
