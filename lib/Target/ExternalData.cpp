//===- ExternalData.cpp - Weight bytes kept outside the IR ----------------===//

#include "spyre/Target/ExternalData.h"

using namespace mlir;

namespace spyre {

FailureOr<std::unique_ptr<ExternalData>>
ExternalData::open(Operation *op, ExternalDataAttr ext, uint64_t hostBytes,
                   int64_t elementBytes, ArrayRef<int64_t> shape) {
  if (ext.getFile().empty())
    return op->emitError("weight has no data: it was imported from a bare "
                         "exported-program JSON; import the .pt2 archive to "
                         "compile its weights");
  // Bytes the (possibly strided) view spans from its first element.
  ArrayRef<int64_t> strides = ext.getStrides();
  bool contiguous = strides.empty();
  uint64_t spanElems = 1;
  if (!contiguous) {
    int64_t expect = 1;
    contiguous = true;
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (shape[d] != 1 && strides[d] != expect)
        contiguous = false;
      expect *= shape[d];
    }
    for (auto [s, st] : llvm::zip(shape, strides))
      if (s == 0)
        spanElems = 0;
    if (spanElems)
      for (auto [s, st] : llvm::zip(shape, strides))
        spanElems += uint64_t(s - 1) * uint64_t(st);
  }
  uint64_t spanBytes = contiguous ? hostBytes : spanElems * elementBytes;

  auto data = std::make_unique<ExternalData>();
  std::string error;
  std::string file = ext.getFile().str();
  uint64_t offset = uint64_t(ext.getOffset());
  const uint8_t *base = nullptr;
  auto mapFile = [&](uint64_t at) -> LogicalResult {
    std::optional<MappedRange> m = MappedRange::map(file, at, spanBytes, error);
    if (!m)
      return op->emitError(error);
    data->mapped = std::move(*m);
    base = data->mapped.data();
    return success();
  };
  if (ext.getEntry().empty()) {
    if (failed(mapFile(offset)))
      return failure();
  } else {
    std::unique_ptr<Pt2Archive> archive = Pt2Archive::open(file, error);
    if (!archive)
      return op->emitError(error);
    std::string entry = ext.getEntry().str();
    std::optional<uint64_t> size = archive->entrySize(entry);
    if (!size)
      return op->emitError("archive '") << file << "' has no entry '"
                                        << entry << "'";
    if (offset > *size || spanBytes > *size - offset)
      return op->emitError("weight needs ")
             << offset + spanBytes << " bytes of '" << entry
             << "', which has " << *size;
    if (std::optional<uint64_t> at = archive->storedDataOffset(entry, error)) {
      // Stored entries (what torch writes) are mapped in place.
      if (failed(mapFile(*at + offset)))
        return failure();
    } else {
      std::optional<std::vector<uint8_t>> bytes =
          archive->readRange(entry, offset, spanBytes, error);
      if (!bytes)
        return op->emitError(error);
      data->copy = std::move(*bytes);
      base = data->copy.data();
    }
  }
  if (contiguous)
    return data;
  // Gather the strided view into row-major order.
  std::vector<uint8_t> gathered(hostBytes);
  SmallVector<int64_t> index(shape.size(), 0);
  uint64_t count = hostBytes / uint64_t(elementBytes);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t src = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      src += uint64_t(index[d]) * uint64_t(strides[d]);
    std::memcpy(gathered.data() + i * elementBytes,
                base + src * elementBytes, elementBytes);
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  data->copy = std::move(gathered);
  data->mapped = MappedRange();
  return data;
}

} // namespace spyre
