//===- ExternalData.h - Weight bytes kept outside the IR --------*- C++ -*-===//
//
// `#spyre.external<file, entry, offset, strides>` weights are never loaded
// into memory: ExternalData checks where their bytes are (the archive entry
// exists, is long enough, where its data starts in the file) and returns a
// spy::StreamedImage that the .spy writer pulls the device image from,
// chunk by chunk, reading the archive with pread into a buffer of bounded
// size (include/spyre/Spy/StreamedImage.h). Peak memory of an emission is
// therefore independent of the size of the weights.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TARGET_PT2_EXTERNALDATA_H
#define SPYRE_TARGET_PT2_EXTERNALDATA_H

#include "spyre/Dialect/Spyre/SpyreAttrs.h"
#include "spyre/Spy/StreamedImage.h"
#include "spyre/Target/Pt2/Pt2Archive.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"

#include <memory>

namespace spyre {

/// Opens the data of `#spyre.external` weights. Keeps the archives it has
/// opened (one zip directory parse per archive, not per weight) and the
/// compressed entries it has decompressed (once per entry, shared by the
/// weights in it; the temporary files go when the last of them is written).
class ExternalData {
public:
  ExternalData();
  ~ExternalData();
  ExternalData(const ExternalData &) = delete;
  ExternalData &operator=(const ExternalData &) = delete;

  /// The device image (as `map` describes it) of the weight whose row-major
  /// or strided host data `ext` locates. Only metadata is read here; the
  /// bytes are read when the image is. `budgetBytes` bounds the host bytes
  /// the image buffers at once. Errors are emitted at `op`.
  mlir::FailureOr<std::unique_ptr<spy::StreamedImage>>
  open(mlir::Operation *op, ExternalDataAttr ext, const spy::LayoutMap &map,
       uint64_t budgetBytes = spy::StreamedImage::kDefaultBudgetBytes);

  /// A key of the device image `open` would give, read from metadata only:
  /// the bytes' identity (an archive entry's name, size and CRC-32 from the
  /// zip directory; a plain file's size and modification time), the offset
  /// and strides of the view, and the dtype, shape and layout of `map`.
  /// Equal keys give equal images (the weights file of spy/WeightsFile.h is
  /// reused on it). Errors are emitted at `op`.
  mlir::FailureOr<uint64_t> imageKey(mlir::Operation *op, ExternalDataAttr ext,
                                     const spy::LayoutMap &map);

  /// Compressed entries decompressed so far, for tests.
  uint64_t decompressions() const;

  /// A decompressed entry (ExternalData.cpp); named here for its readers.
  class SpilledEntry;

private:
  llvm::StringMap<std::unique_ptr<Pt2Archive>> archives;
  /// Keyed by file and entry.
  llvm::StringMap<std::shared_ptr<SpilledEntry>> spilled;
};

} // namespace spyre

#endif // SPYRE_TARGET_PT2_EXTERNALDATA_H
