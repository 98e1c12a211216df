//===- TorchSave.cpp - Tensors of a torch.save zip ------------------------===//
//
// The zip is read by libzip from memory (ZipIndex, which also finds where
// each entry's data starts, to point at a storage in place). Only stored
// entries are read, each CRC checked.
//
//===----------------------------------------------------------------------===//

#include "spyre/Target/Pt2/TorchSave.h"
#include "spyre/Target/Pt2/ZipIndex.h"

#include <algorithm>

namespace spyre {

namespace {

/// Elements a strided view reaches from the storage start (0 when empty),
/// or nullopt on overflow.
std::optional<uint64_t> viewSpan(const PickledTensor &t) {
  for (int64_t size : t.sizes)
    if (size == 0)
      return 0;
  uint64_t last = uint64_t(t.storageOffset), step;
  for (size_t d = 0; d < t.sizes.size(); ++d)
    if (__builtin_mul_overflow(uint64_t(t.sizes[d] - 1), uint64_t(t.strides[d]),
                               &step) ||
        __builtin_add_overflow(last, step, &last))
      return std::nullopt;
  return last + 1;
}

/// Checks that the zip has entries and that they are under a folder, as
/// torch.save writes them.
bool checkUnderFolder(const ZipIndex &zip, const std::string &what,
                      std::string &error) {
  if (!zip.entries().empty() &&
      zip.entries().front().name.find('/') != std::string::npos)
    return true;
  error = what + ": " +
          (zip.entries().empty()
               ? std::string("an empty zip")
               : "entry '" + zip.entries().front().name +
                     "' is not under a folder (not a torch.save file)");
  return false;
}

/// A stored, CRC-checked entry and the offset of its data in `file`.
struct Record {
  uint64_t dataOffset, size;
};

/// The record `name`, which must exist, be stored and pass its CRC check.
std::optional<Record> storedRecord(ZipIndex &zip, const std::string &name,
                                   const std::string &what,
                                   std::string &error) {
  const ZipIndex::Entry *e = zip.find(name);
  if (!e) {
    error = what + ": no entry '" + name + "'";
    return std::nullopt;
  }
  if (!e->stored) {
    error = what + ": entry '" + name + "' is compressed; torch.save " +
            "writes its records uncompressed";
    return std::nullopt;
  }
  std::optional<uint64_t> at = zip.dataOffset(*e, error);
  if (!at || !zip.verify(*e, e->size, error))
    return std::nullopt;
  return Record{*at, e->size};
}

/// `bytes` for a message: quoted when short and printable, else counted.
std::string describeBytes(std::string_view bytes) {
  bool printable = bytes.size() <= 16 &&
                   std::all_of(bytes.begin(), bytes.end(),
                               [](char c) { return c >= 0x20 && c < 0x7f; });
  return printable ? "'" + std::string(bytes) + "'"
                   : std::to_string(bytes.size()) + " bytes";
}

/// Checks the optional `byteorder` record: storages must be little-endian.
bool checkByteOrder(ZipIndex &zip, std::string_view file,
                    const std::string &prefix, const std::string &what,
                    std::string &error) {
  if (!zip.find(prefix + "byteorder"))
    return true;
  std::optional<Record> b =
      storedRecord(zip, prefix + "byteorder", what, error);
  if (!b)
    return false;
  std::string_view order = file.substr(b->dataOffset, b->size);
  if (order == "big") {
    error = what + ": storages are big-endian; only little-endian is "
                   "supported";
    return false;
  }
  if (order != "little") {
    // Any bytes at all: quote them only when short and printable.
    error = what + ": record '" + prefix + "byteorder' holds " +
            describeBytes(order) + ", not 'little' or 'big'";
    return false;
  }
  return true;
}

/// The tensor `name` viewing the storage record `record`, checked to hold
/// its elements and to contain the view.
std::optional<SavedTensor> locateTensor(ZipIndex &zip, const std::string &name,
                                        const PickledTensor &view,
                                        const std::string &record,
                                        const std::string &what,
                                        std::string &error) {
  std::optional<Record> data = storedRecord(zip, record, what, error);
  if (!data) {
    error += " (storage of '" + name + "')";
    return std::nullopt;
  }
  uint64_t storageBytes;
  if (__builtin_mul_overflow(uint64_t(view.storageNumel),
                             uint64_t(view.elementBytes), &storageBytes) ||
      storageBytes > data->size) {
    error = what + ": storage '" + record + "' of '" + name + "' has " +
            std::to_string(data->size) + " bytes, fewer than its " +
            std::to_string(view.storageNumel) + " elements of " +
            std::to_string(view.elementBytes) + " bytes";
    return std::nullopt;
  }
  std::optional<uint64_t> span = viewSpan(view);
  if (!span || *span > uint64_t(view.storageNumel)) {
    error = what + ": tensor '" + name + "' reaches past the " +
            std::to_string(view.storageNumel) + " elements of storage '" +
            record + "'";
    return std::nullopt;
  }
  return SavedTensor{view, data->dataOffset, data->size};
}

} // namespace

std::optional<std::map<std::string, SavedTensor>>
readTorchSave(std::string_view file, const std::string &what,
              std::string &error) {
  std::unique_ptr<ZipIndex> zip = ZipIndex::openMemory(file, what, error);
  if (!zip)
    return std::nullopt;
  if (!checkUnderFolder(*zip, what, error))
    return std::nullopt;
  const std::string &first = zip->entries().front().name;
  std::string prefix = first.substr(0, first.find('/') + 1);
  if (!checkByteOrder(*zip, file, prefix, what, error))
    return std::nullopt;
  std::optional<Record> pkl =
      storedRecord(*zip, prefix + "data.pkl", what, error);
  if (!pkl)
    return std::nullopt;
  std::optional<std::map<std::string, PickledTensor>> tensors =
      unpickleTensorDict(file.substr(pkl->dataOffset, pkl->size), what, error);
  if (!tensors)
    return std::nullopt;
  std::map<std::string, SavedTensor> out;
  for (auto &[name, view] : *tensors) {
    std::optional<SavedTensor> tensor = locateTensor(
        *zip, name, view, prefix + "data/" + view.storageKey, what, error);
    if (!tensor)
      return std::nullopt;
    out[name] = *tensor;
  }
  return out;
}

} // namespace spyre
