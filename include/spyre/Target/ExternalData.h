//===- ExternalData.h - Weight bytes kept outside the IR --------*- C++ -*-===//

#ifndef SPYRE_TARGET_EXTERNALDATA_H
#define SPYRE_TARGET_EXTERNALDATA_H

#include "spyre/Dialect/Spyre/SpyreAttrs.h"
#include "spyre/Target/Pt2Archive.h"

#include "mlir/IR/Operation.h"

#include <memory>
#include <vector>

namespace spyre {

/// The row-major host bytes of a `#spyre.external` weight: a memory mapping
/// of the archive entry when the stored tensor is contiguous (so that
/// emitting a multi-GB model never holds its weights in memory), a gathered
/// copy when it is a strided view.
class ExternalData {
public:
  /// Opens the data of `ext` for a tensor of `shape` with elements of
  /// `elementBytes` (`hostBytes` in all). Errors are emitted at `op`.
  static mlir::FailureOr<std::unique_ptr<ExternalData>>
  open(mlir::Operation *op, ExternalDataAttr ext, uint64_t hostBytes,
       int64_t elementBytes, llvm::ArrayRef<int64_t> shape);

  const uint8_t *data() const {
    return copy.empty() ? mapped.data() : copy.data();
  }

private:
  MappedRange mapped;
  std::vector<uint8_t> copy;
};

} // namespace spyre

#endif // SPYRE_TARGET_EXTERNALDATA_H
