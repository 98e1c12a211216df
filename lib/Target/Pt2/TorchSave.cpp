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

} // namespace

std::optional<std::map<std::string, SavedTensor>>
readTorchSave(std::string_view file, const std::string &what,
              std::string &error) {
  std::unique_ptr<ZipIndex> zip = ZipIndex::openMemory(file, what, error);
  if (!zip)
    return std::nullopt;
  if (zip->entries().empty() ||
      zip->entries().front().name.find('/') == std::string::npos) {
    error = what + ": " +
            (zip->entries().empty()
                 ? std::string("an empty zip")
                 : "entry '" + zip->entries().front().name +
                       "' is not under a folder (not a torch.save file)");
    return std::nullopt;
  }
  /// A stored, CRC-checked entry and the offset of its data in `file`.
  struct Record {
    uint64_t dataOffset, size;
  };
  auto stored = [&](const std::string &name) -> std::optional<Record> {
    const ZipIndex::Entry *e = zip->find(name);
    if (!e) {
      error = what + ": no entry '" + name + "'";
      return std::nullopt;
    }
    if (!e->stored) {
      error = what + ": entry '" + name + "' is compressed; torch.save " +
              "writes its records uncompressed";
      return std::nullopt;
    }
    std::optional<uint64_t> at = zip->dataOffset(*e, error);
    if (!at || !zip->verify(*e, e->size, error))
      return std::nullopt;
    return Record{*at, e->size};
  };
  const std::string &first = zip->entries().front().name;
  std::string prefix = first.substr(0, first.find('/') + 1);
  if (zip->find(prefix + "byteorder")) {
    std::optional<Record> b = stored(prefix + "byteorder");
    if (!b)
      return std::nullopt;
    std::string_view order = file.substr(b->dataOffset, b->size);
    if (order == "big") {
      error = what + ": storages are big-endian; only little-endian is "
                     "supported";
      return std::nullopt;
    }
    if (order != "little") {
      // Any bytes at all: quote them only when short and printable.
      bool printable = order.size() <= 16 &&
                       std::all_of(order.begin(), order.end(), [](char c) {
                         return c >= 0x20 && c < 0x7f;
                       });
      error = what + ": record '" + prefix + "byteorder' holds " +
              (printable ? "'" + std::string(order) + "'"
                         : std::to_string(order.size()) + " bytes") +
              ", not 'little' or 'big'";
      return std::nullopt;
    }
  }
  std::optional<Record> pkl = stored(prefix + "data.pkl");
  if (!pkl)
    return std::nullopt;
  std::optional<std::map<std::string, PickledTensor>> tensors =
      unpickleTensorDict(file.substr(pkl->dataOffset, pkl->size), what, error);
  if (!tensors)
    return std::nullopt;
  std::map<std::string, SavedTensor> out;
  for (auto &[name, view] : *tensors) {
    std::string record = prefix + "data/" + view.storageKey;
    std::optional<Record> data = stored(record);
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
    out[name] = SavedTensor{view, data->dataOffset, data->size};
  }
  return out;
}

} // namespace spyre
