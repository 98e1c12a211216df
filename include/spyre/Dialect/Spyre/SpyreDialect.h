//===- SpyreDialect.h - The spyre dialect -----------------------*- C++ -*-===//

#ifndef SPYRE_DIALECT_SPYRE_SPYREDIALECT_H
#define SPYRE_DIALECT_SPYRE_SPYREDIALECT_H

#include "mlir/IR/Dialect.h"

#include "spyre/Dialect/Spyre/SpyreDialect.h.inc"

#endif // SPYRE_DIALECT_SPYRE_SPYREDIALECT_H
