//===- AtenSchema.h - The aten op-schema table ------------------*- C++ -*-===//
//
// Argument names, types and defaults of aten ops, generated from PyTorch's
// own schemas (tools/schemas/gen_aten_schemas.py -> AtenSchemas.inc). Used by
// the `spyre.aten` verifier, the importer (defaults torch.export omits) and
// the decompositions.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_DIALECT_SPYRE_ATENSCHEMA_H
#define SPYRE_DIALECT_SPYRE_ATENSCHEMA_H

#include "mlir/IR/Attributes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace spyre {

/// One argument of an aten schema.
struct AtenArgument {
  std::string name;
  /// Type without alias annotations: "Tensor", "Tensor?", "Tensor[]",
  /// "int[]", "int[1]?", "Scalar", "ScalarType?", "str", ...
  std::string type;
  /// Default in schema syntax ("None", "1", "True", "[0, 1]", "\"none\""),
  /// absent when the argument is required.
  std::optional<std::string> defaultValue;
  bool kwargOnly = false;

  /// `Tensor` or `Tensor?`.
  bool isTensor() const;
  /// `Tensor[]` or `Tensor?[]`.
  bool isTensorList() const;
  /// The type ends in `?`.
  bool isOptional() const;
};

/// One aten schema: `aten::name.overload(args) -> returns`.
struct AtenSchema {
  std::string name;     // "linear"
  std::string overload; // "" for the default overload
  llvm::SmallVector<AtenArgument> arguments;
  llvm::SmallVector<std::string> returns; // return types
  std::string text;                       // the schema as written

  /// Index of argument `name`, or -1.
  int findArgument(llvm::StringRef name) const;
  /// A result aliases an input without writing it (`-> Tensor(a)`): a view
  /// (slice, transpose, view...).
  bool returnsView() const;
};

/// Looks up an export target name: "aten.linear.default", "aten.add.Tensor"
/// (also accepts a "torch.ops." prefix). Null when unknown.
const AtenSchema *lookupAtenSchema(llvm::StringRef target);

/// Parses a schema default (in schema syntax) into an attribute of the form
/// the importer gives arguments: integers as i64, floats as f64, bools,
/// strings, lists as arrays, None as a unit attribute. Null on failure.
mlir::Attribute parseAtenDefault(mlir::MLIRContext *ctx,
                                 const AtenArgument &argument);

} // namespace spyre

#endif // SPYRE_DIALECT_SPYRE_ATENSCHEMA_H
