//===- Decompositions.h - The aten decomposition registry -------*- C++ -*-===//
//
// spyre-decompose rewrites each `spyre.aten` through the entry registered for
// its target. Entries live in lib/Transforms/Decompositions, one op family a
// file; docs/supported-ops.md is generated from this registry
// (`spyre-opt --spyre-list-decompositions`), so it never goes stale.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TRANSFORMS_DECOMPOSITIONS_H
#define SPYRE_TRANSFORMS_DECOMPOSITIONS_H

#include "spyre/Dialect/Spyre/AtenSchema.h"
#include "spyre/Dialect/Spyre/ShapeUtils.h"
#include "spyre/Dialect/Spyre/SpyreOps.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringMap.h"

#include <functional>

namespace spyre {

/// Typed access to the arguments of a `spyre.aten`, with the schema's
/// defaults for those torch.export left out. Accessors report a diagnostic
/// at the op (and return failure/nullopt) when an argument has the wrong
/// kind.
class AtenArgs {
public:
  AtenArgs(AtenOp op, const AtenSchema *schema) : op(op), schema(schema) {}

  AtenOp getOp() const { return op; }
  /// The single tensor bound to `name`; emits an error when absent.
  mlir::FailureOr<mlir::Value> tensor(llvm::StringRef name) const;
  /// The tensor bound to `name`, or null when None/absent.
  mlir::Value optionalTensor(llvm::StringRef name) const;
  /// All tensors bound to a `Tensor[]` argument.
  llvm::SmallVector<mlir::Value> tensorList(llvm::StringRef name) const;
  /// The argument as an attribute (given or default), or null.
  mlir::Attribute attr(llvm::StringRef name) const;
  /// Whether the argument is None (given as None or defaulting to it).
  bool isNone(llvm::StringRef name) const;

  mlir::FailureOr<int64_t> getInt(llvm::StringRef name) const;
  /// A number (int or float argument) as a double.
  mlir::FailureOr<double> getDouble(llvm::StringRef name) const;
  mlir::FailureOr<bool> getBool(llvm::StringRef name) const;
  mlir::FailureOr<std::string> getString(llvm::StringRef name) const;
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  getIntList(llvm::StringRef name) const;

private:
  mlir::InFlightDiagnostic argError(llvm::StringRef name,
                                    llvm::StringRef expected) const;
  mutable AtenOp op;
  const AtenSchema *schema;
};

/// Rewrites one `spyre.aten` (already matched by target). Replaces the op
/// and returns success, or emits an error at the op and returns failure.
using DecomposeFn = std::function<mlir::LogicalResult(AtenOp, const AtenArgs &,
                                                      mlir::RewriterBase &)>;

/// One registry entry.
struct Decomposition {
  std::string target; // "aten.linear.default"
  std::string family; // "matmul", "pointwise", ...
  std::string dtypes; // element types handled, for the docs
  std::string notes;  // limits and adapters, for the docs
  DecomposeFn rewrite;
};

/// The registry, keyed by target, in registration order.
class DecompositionRegistry {
public:
  void add(Decomposition d);
  const Decomposition *lookup(llvm::StringRef target) const;
  llvm::ArrayRef<Decomposition> entries() const { return list; }

private:
  llvm::SmallVector<Decomposition> list;
  llvm::StringMap<size_t> index;
};

/// The registry with every family registered.
const DecompositionRegistry &getDecompositionRegistry();

// One function per family file (lib/Transforms/Decompositions/*.cpp).
void registerMatmulDecompositions(DecompositionRegistry &registry);
void registerPointwiseDecompositions(DecompositionRegistry &registry);
// The "shape" family, in three files.
void registerViewDecompositions(DecompositionRegistry &registry);
void registerIndexingDecompositions(DecompositionRegistry &registry);
void registerCreationDecompositions(DecompositionRegistry &registry);
void registerReductionDecompositions(DecompositionRegistry &registry);
void registerNormalizationDecompositions(DecompositionRegistry &registry);
void registerAttentionDecompositions(DecompositionRegistry &registry);
void registerConvolutionDecompositions(DecompositionRegistry &registry);

/// Writes docs/supported-ops.md's content (Markdown) from the registry.
void printSupportedOpsMarkdown(llvm::raw_ostream &os);

//===--- Helpers shared by the family files -------------------------------===//

/// A splat constant of `elementType` and `shape` holding `value`.
mlir::Value createSplat(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Type elementType, double value,
                        llvm::ArrayRef<int64_t> shape = {});
/// `v` converted to `elementType` (no-op when it already is).
mlir::Value castTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                   mlir::Type elementType);
/// The element type of a tensor value.
mlir::Type elementTypeOf(mlir::Value v);
/// The shape of a tensor value.
llvm::ArrayRef<int64_t> shapeOf(mlir::Value v);
/// Normalizes a possibly negative dimension; emits an error when out of range.
mlir::FailureOr<int64_t> normalizeDim(AtenOp op, int64_t dim, int64_t rank);
/// A scalar or tensor operand `name` as a tensor of `elementType`: scalars
/// become rank-0 splat constants (the hardware has no immediates).
mlir::FailureOr<mlir::Value> tensorOrScalar(const AtenArgs &args,
                                            llvm::StringRef name,
                                            mlir::Type elementType,
                                            mlir::OpBuilder &b);
/// The result type of result `i` of the aten op.
mlir::RankedTensorType resultType(AtenOp op, unsigned i = 0);
/// `parts` (one element type) concatenated along `dim`; the part itself
/// when there is one.
mlir::Value concatAlong(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::ArrayRef<mlir::Value> parts, int64_t dim);
/// `v` reshaped to `shape` (no-op when it has it).
mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                      llvm::ArrayRef<int64_t> shape);
/// `kind` of `x` along `dim`, the dim kept with size 1 (argmax/argmin give
/// i64 indices).
mlir::Value reduceAlong(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                        int64_t dim, ReduceKind kind);
/// The dims of an aten `dim` argument (int, int[], or None/[] meaning all),
/// normalized and sorted; emits an error on an out-of-range dim.
mlir::FailureOr<llvm::SmallVector<int64_t>>
reductionDims(const AtenArgs &args, llvm::StringRef name, int64_t rank);
/// softmax (or log_softmax) of `x` along `dim`, in x's element type.
/// `safe` (softmax only) is PyTorch's _safe_softmax: a row that is all
/// -inf (fully masked) gives 0 instead of NaN.
mlir::Value createSoftmax(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                          int64_t dim, bool log = false, bool safe = false);
/// The positions 0..n-1 along `dim` of a rank-`rank` tensor: an i32
/// constant of shape [1, ..., n, ..., 1], compared with indices (cast to
/// i32) to build one-hot masks; i32 halves what a vocabulary-long iota
/// takes of LX.
mlir::Value createIota(mlir::OpBuilder &b, mlir::Location loc, int64_t n,
                       int64_t dim, int64_t rank);
/// PyTorch's is_causal mask (top-left aligned: column j is kept for row i
/// when j <= i) as an additive [rows, cols] tensor of `type` (0 kept, -inf
/// masked), built on the device from two iotas (no rows x cols constant in
/// the binary, unless folding makes one within its limits).
mlir::Value createCausalMask(mlir::OpBuilder &b, mlir::Location loc,
                             int64_t rows, int64_t cols, mlir::Type type);
/// The operands of `spyre.attention` (`mask`, `sinks` null when there are
/// none).
struct AttentionOperands {
  mlir::Value q, k, v, mask, sinks;
};
/// Views attention operands for `groups` query heads per key/value head,
/// the heads being dim `headDim` of q, k and v (mask and sinks of q's rank):
/// the G heads become rows of one tile when the mask reads them alike (and not
/// `causal`), else q is [..., Hk, G, L, E] over k, v [..., Hk, 1, S, E].
/// Neither way copies K or V.
AttentionOperands groupAttentionHeads(mlir::OpBuilder &b, mlir::Location loc,
                                      const AttentionOperands &in,
                                      int64_t headDim, int64_t groups,
                                      bool causal);
/// The longest dim createPrefixSum scans (its n x n triangle is built on
/// the device).
constexpr int64_t kMaxPrefixSumLength = 8192;
/// Prefix sums of `x` (a float tensor) along `dim`: x @ T with T[i, j] =
/// (i <= j), or (i < j) when `exclusive`, built from two iotas on the device
/// (no n x n constant in the binary): the PT array does the sums, exact for
/// integers below 2^24 in f32. Other dims move last through transposes.
mlir::Value createPrefixSum(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value x, int64_t dim, bool exclusive);
/// Element type reductions and normalizations compute in: f32 for f16 and
/// bf16 (as PyTorch accumulates), the input's otherwise.
mlir::Type accumulationType(mlir::Type elementType);

} // namespace spyre

#endif // SPYRE_TRANSFORMS_DECOMPOSITIONS_H
