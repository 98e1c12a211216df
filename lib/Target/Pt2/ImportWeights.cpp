//===- ImportWeights.cpp - Parameters, buffers and constants --------------===//
//
// Each parameter, buffer and constant of the program becomes a `spyre.weight`:
// inline (a dense attribute) when small, else external data the emitter
// streams from the archive.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "spyre/Target/Pt2/StridedView.h"

#include "llvm/Support/FileSystem.h"

#include <cstring>

using namespace mlir;

namespace spyre::pt2import {

namespace {

/// Whether a view with `strides` is laid out row-major without gaps (dims
/// of size 1 may have any stride).
bool isContiguous(RankedTensorType type, ArrayRef<int64_t> strides) {
  bool contiguous = true;
  for (int64_t d = type.getRank() - 1, expect = 1; d >= 0; --d) {
    if (type.getDimSize(d) != 1 && strides[d] != expect)
      contiguous = false;
    expect *= type.getDimSize(d);
  }
  return contiguous;
}

/// The elements of a strided view of `raw` (elements of `elem` bytes), in
/// row-major order.
std::vector<char> gatherStridedView(ArrayRef<uint8_t> raw,
                                    RankedTensorType type,
                                    ArrayRef<int64_t> strides,
                                    int64_t storageOffset, int64_t elem) {
  std::vector<char> host(type.getNumElements() * elem);
  SmallVector<int64_t> index(type.getRank(), 0);
  for (int64_t i = 0; i < type.getNumElements(); ++i) {
    int64_t src = storageOffset;
    for (int64_t d = 0; d < type.getRank(); ++d)
      src += index[d] * strides[d];
    std::memcpy(host.data() + i * elem, raw.data() + src * elem, elem);
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      if (++index[d] < type.getDimSize(d))
        break;
      index[d] = 0;
    }
  }
  return host;
}

} // namespace

const std::map<std::string, SavedTensor> &
Importer::pickledDict(const std::string &entry,
                      std::optional<std::map<std::string, SavedTensor>> &dict,
                      Location loc) {
  if (dict)
    return *dict;
  if (!archive->contains(entry))
    return dict.emplace();
  // The nested zip is parsed in place when stored (what torch writes);
  // its storages are then addressed inside this entry, never copied.
  std::string error;
  uint64_t size = archive->entrySize(entry).value_or(0);
  MappedRange mapped;
  std::vector<uint8_t> copy;
  std::string_view bytes;
  if (std::optional<uint64_t> at = archive->storedDataOffset(entry, error)) {
    std::optional<MappedRange> m = MappedRange::map(path, *at, size, error);
    if (!m)
      fail(loc, error);
    mapped = std::move(*m);
    bytes = {reinterpret_cast<const char *>(mapped.data()), mapped.size()};
  } else {
    std::optional<std::vector<uint8_t>> r =
        archive->readRange(entry, 0, size, error);
    if (!r)
      fail(loc, error);
    copy = std::move(*r);
    bytes = {reinterpret_cast<const char *>(copy.data()), copy.size()};
  }
  std::optional<std::map<std::string, SavedTensor>> tensors =
      readTorchSave(bytes, entry, error);
  if (!tensors)
    fail(loc, error);
  return dict.emplace(std::move(*tensors));
}

const SavedTensor &Importer::pickledTensor(const std::string &fqn,
                                           bool stateDictFirst, Location loc,
                                           std::string &entry) {
  const std::string weights = "data/weights/model.pt",
                    constants = "data/constants/model.pt";
  if (!archive->contains(weights) && !archive->contains(constants))
    fail(loc, "weight '" + fqn +
                  "' is not in the archive's weights or "
                  "constants config");
  auto find = [&](const std::string &e, auto &dict) -> const SavedTensor * {
    const std::map<std::string, SavedTensor> &d = pickledDict(e, dict, loc);
    auto it = d.find(fqn);
    if (it == d.end())
      return nullptr;
    entry = e;
    return &it->second;
  };
  const SavedTensor *t =
      stateDictFirst ? find(weights, pickledWeights) : nullptr;
  if (!t)
    t = find(constants, pickledConstants);
  if (!t && !stateDictFirst)
    t = find(weights, pickledWeights);
  if (!t)
    fail(loc, "weight '" + fqn + "' is in neither '" + weights + "' nor '" +
                  constants + "' (torch 2.6-2.8 pickles)");
  return *t;
}

Value Importer::weight(const std::string &fqn, const std::string &graphName,
                       WeightKind kind, bool persistent) {
  Location loc = NameLoc::get(b.getStringAttr(fqn), fileLoc);
  RankedTensorType type = tensorType(graphName, loc);
  // Parameters and persistent buffers are in the state dict.
  bool stateDictFirst = persistent || kind == WeightKind::parameter;
  std::string dir;
  const json *config = payloadConfig(fqn, stateDictFirst, dir);
  if (!archive) // A bare JSON: no data to read.
    return createExternalWeight(fqn, kind, type, "", fqn, 0, {}, loc);
  StoredWeight stored = config ? storedFromConfig(fqn, *config, dir, loc)
                               : storedFromPickle(fqn, stateDictFirst, loc);
  uint64_t spanBytes = checkStoredView(fqn, type, stored, loc);
  int64_t elem = getElementBytes(type.getElementType());
  int64_t bytes = type.getNumElements() * elem;
  if (bytes > options.inlineWeightBytes || type.getElementType().isInteger(1)) {
    SmallString<256> abs(path);
    llvm::sys::fs::make_absolute(abs);
    return createExternalWeight(
        fqn, kind, type, abs, stored.entry,
        int64_t(stored.base) + stored.storageOffset * elem,
        isContiguous(type, stored.strides) ? ArrayRef<int64_t>()
                                           : ArrayRef<int64_t>(stored.strides),
        loc);
  }
  DenseElementsAttr value = readInlineWeight(fqn, type, stored, spanBytes, loc);
  return WeightOp::create(b, loc, type, b.getStringAttr(fqn),
                          WeightKindAttr::get(ctx, kind), value,
                          ExternalDataAttr());
}

const json *Importer::payloadConfig(const std::string &fqn, bool stateDictFirst,
                                    std::string &dir) {
  if (weightsConfig.contains(fqn) && stateDictFirst) {
    dir = "data/weights/";
    return &weightsConfig[fqn];
  }
  if (constantsConfig.contains(fqn)) {
    dir = "data/constants/";
    return &constantsConfig[fqn];
  }
  if (weightsConfig.contains(fqn)) {
    dir = "data/weights/";
    return &weightsConfig[fqn];
  }
  return nullptr;
}

Value Importer::createExternalWeight(const std::string &fqn, WeightKind kind,
                                     RankedTensorType type, StringRef file,
                                     StringRef entry, int64_t offset,
                                     ArrayRef<int64_t> strides, Location loc) {
  return WeightOp::create(
      b, loc, type, b.getStringAttr(fqn), WeightKindAttr::get(ctx, kind),
      ElementsAttr(), ExternalDataAttr::get(ctx, file, entry, offset, strides));
}

StoredWeight Importer::storedFromConfig(const std::string &fqn,
                                        const json &config,
                                        const std::string &dir, Location loc) {
  if (config.value("use_pickle", false))
    fail(loc, "weight '" + fqn +
                  "' is a pickled tensor (use_pickle), "
                  "which cannot be read without Python");
  const json &meta = config["tensor_meta"];
  StoredWeight stored;
  stored.type = metaType(meta, fqn, loc);
  for (const json &s : meta["strides"])
    stored.strides.push_back(concreteViewInt(fqn, s, loc));
  stored.storageOffset = concreteViewInt(fqn, meta["storage_offset"], loc);
  stored.entry = dir + config["path_name"].get<std::string>();
  std::optional<uint64_t> fileSize = archive->entrySize(stored.entry);
  if (!fileSize)
    fail(loc, "weight '" + fqn + "': archive entry '" + stored.entry +
                  "' is missing");
  stored.available = *fileSize;
  stored.source = "'" + stored.entry + "'";
  return stored;
}

int64_t Importer::concreteViewInt(const std::string &fqn, const json &j,
                                  Location loc) {
  std::string symbol;
  std::optional<int64_t> v = symInt(j, loc, &symbol);
  if (!v)
    fail(loc, "weight '" + fqn +
                  "' has a symbolic stride or storage "
                  "offset (" +
                  symbol + ")");
  return *v;
}

StoredWeight Importer::storedFromPickle(const std::string &fqn,
                                        bool stateDictFirst, Location loc) {
  StoredWeight stored;
  const SavedTensor &t = pickledTensor(fqn, stateDictFirst, loc, stored.entry);
  Type element = elementType(ctx, t.view.dtype);
  if (!element)
    fail(loc, "weight '" + fqn + "' has dtype " +
                  dtypeInfo(t.view.dtype)->name +
                  ", which Spyre cannot represent");
  stored.type = RankedTensorType::get(t.view.sizes, element);
  stored.strides.assign(t.view.strides.begin(), t.view.strides.end());
  stored.storageOffset = t.view.storageOffset;
  stored.base = t.dataOffset;
  stored.available = t.storageBytes;
  stored.source =
      "storage '" + t.view.storageKey + "' of '" + stored.entry + "'";
  return stored;
}

uint64_t Importer::checkStoredView(const std::string &fqn,
                                   RankedTensorType type,
                                   const StoredWeight &stored, Location loc) {
  if (stored.type.getShape() != type.getShape() ||
      stored.type.getElementType() != type.getElementType())
    fail(loc, "weight '" + fqn + "' is stored as " + typeName(stored.type) +
                  " but the graph uses it as " + typeName(type));
  int64_t elem = getElementBytes(type.getElementType());
  // Bytes the view reaches, checked: the metadata is untrusted.
  std::optional<uint64_t> spanElems =
      stridedViewSpan(type.getShape(), stored.strides, stored.storageOffset);
  uint64_t spanBytes;
  if (!spanElems ||
      __builtin_mul_overflow(*spanElems, uint64_t(elem), &spanBytes))
    fail(loc, "weight '" + fqn + "' has an invalid view: " +
                  std::to_string(stored.strides.size()) + " strides for rank " +
                  std::to_string(type.getRank()) +
                  ", strides and storage offset must be >= 0 and its "
                  "extent must fit in 64 bits");
  if (spanBytes > stored.available)
    fail(loc, "weight '" + fqn + "' needs " + std::to_string(spanBytes) +
                  " bytes but " + stored.source + " has " +
                  std::to_string(stored.available));
  return spanBytes;
}

DenseElementsAttr Importer::readInlineWeight(const std::string &fqn,
                                             RankedTensorType type,
                                             const StoredWeight &stored,
                                             uint64_t spanBytes, Location loc) {
  std::string error;
  std::optional<std::vector<uint8_t>> raw =
      archive->readRange(stored.entry, stored.base, spanBytes, error);
  if (!raw || !archive->verify(stored.entry, stored.base + spanBytes, error))
    fail(loc, "weight '" + fqn + "': " + error);
  std::vector<char> host =
      gatherStridedView(*raw, type, stored.strides, stored.storageOffset,
                        getElementBytes(type.getElementType()));
  return DenseElementsAttr::getFromRawBuffer(type, host);
}

} // namespace spyre::pt2import
