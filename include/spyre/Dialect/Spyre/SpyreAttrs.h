//===- SpyreAttrs.h - spyre attributes and enums ----------------*- C++ -*-===//

#ifndef SPYRE_DIALECT_SPYRE_SPYREATTRS_H
#define SPYRE_DIALECT_SPYRE_SPYREATTRS_H

#include "spyre/Arch/Arch.h"
#include "spyre/Dialect/Spyre/SpyreDialect.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TensorEncoding.h"

#include "mlir/IR/DialectImplementation.h"

namespace spyre {
/// `[1, 2, 3]` lists in attribute parameters.
mlir::FailureOr<llvm::SmallVector<int64_t>>
parseI64List(mlir::AsmParser &parser);
void printI64List(mlir::AsmPrinter &printer, llvm::ArrayRef<int64_t> values);
} // namespace spyre

#include "spyre/Dialect/Spyre/SpyreEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "spyre/Dialect/Spyre/SpyreAttrs.h.inc"

#endif // SPYRE_DIALECT_SPYRE_SPYREATTRS_H
