//===- TorchSave.cpp - Tensors of a torch.save zip ------------------------===//
//
// The zip directory is parsed here from memory (libzip reads files and
// hides where an entry's data starts, which is the one thing needed to
// point at a storage in place). Only stored entries are read.
//
//===----------------------------------------------------------------------===//

#include "spyre/Target/Pt2/TorchSave.h"

#include <algorithm>

namespace spyre {

namespace {

/// One entry of the zip's central directory.
struct ZipEntry {
  uint16_t method = 0;
  uint64_t compressedSize = 0, size = 0;
  /// Offset of the entry's data (after its local header) in the file.
  uint64_t dataOffset = 0;
};

uint64_t le(const char *p, size_t n) {
  uint64_t v = 0;
  for (size_t k = 0; k < n; ++k)
    v |= uint64_t(uint8_t(p[k])) << (8 * k);
  return v;
}

class ZipDirectory {
public:
  ZipDirectory(std::string_view file, const std::string &what,
               std::string &error)
      : file(file), what(what), error(error) {}

  /// Reads the central directory; false with `error` set when malformed.
  bool read();
  /// The top folder of the first entry ("archive/"), as torch derives it.
  const std::string &prefix() const { return prefix_; }
  const ZipEntry *find(const std::string &name) const {
    auto it = entries.find(name);
    return it == entries.end() ? nullptr : &it->second;
  }

private:
  std::string_view file;
  const std::string &what;
  std::string &error;
  std::map<std::string, ZipEntry> entries;
  std::string prefix_;

  bool fail(const std::string &message) {
    error = what + ": " + message;
    return false;
  }
  /// `n` bytes at `offset`, or null when they are not all in the file.
  const char *at(uint64_t offset, uint64_t n) const {
    if (offset > file.size() || n > file.size() - offset)
      return nullptr;
    return file.data() + offset;
  }
  bool entry(uint64_t &pos);
};

bool ZipDirectory::read() {
  // The end-of-central-directory record: 22 bytes and a comment of up to
  // 65535 bytes at the end of the file.
  if (file.size() < 22)
    return fail("not a zip file (" + std::to_string(file.size()) + " bytes)");
  uint64_t eocd = file.size() - 22, lowest = eocd > 65535 ? eocd - 65535 : 0;
  while (le(file.data() + eocd, 4) != 0x06054b50) {
    if (eocd == lowest)
      return fail("not a zip file (no end-of-central-directory record)");
    --eocd;
  }
  const char *e = file.data() + eocd;
  uint64_t count = le(e + 10, 2), offset = le(e + 16, 4);
  // ZIP64: a locator just before the record points at the zip64 record.
  if (const char *loc = eocd >= 20 ? at(eocd - 20, 20) : nullptr;
      loc && le(loc, 4) == 0x07064b50) {
    const char *z = at(le(loc + 8, 8), 56);
    if (!z || le(z, 4) != 0x06064b50)
      return fail("corrupt zip64 end-of-central-directory record");
    count = le(z + 32, 8);
    offset = le(z + 48, 8);
  }
  // Every central entry takes 46 bytes at least.
  if (count > file.size() / 46)
    return fail("zip directory claims " + std::to_string(count) + " entries");
  uint64_t pos = offset;
  for (uint64_t i = 0; i < count; ++i)
    if (!entry(pos))
      return false;
  return true;
}

bool ZipDirectory::entry(uint64_t &pos) {
  const char *h = at(pos, 46);
  if (!h || le(h, 4) != 0x02014b50)
    return fail("corrupt zip central directory at offset " +
                std::to_string(pos));
  uint64_t flags = le(h + 8, 2), nameLen = le(h + 28, 2),
           extraLen = le(h + 30, 2), commentLen = le(h + 32, 2);
  const char *name = at(pos + 46, nameLen + extraLen);
  if (!name)
    return fail("zip central directory runs past the end of the file");
  ZipEntry z;
  z.method = uint16_t(le(h + 10, 2));
  z.compressedSize = le(h + 20, 4);
  z.size = le(h + 24, 4);
  uint64_t local = le(h + 42, 4);
  // ZIP64 extra field: the 8-byte values of the saturated fields, in the
  // order size, compressed size, local header offset.
  const char *extra = name + nameLen;
  for (uint64_t x = 0; x + 4 <= extraLen;) {
    uint64_t id = le(extra + x, 2), len = le(extra + x + 2, 2);
    if (x + 4 + len > extraLen)
      break;
    if (id == 0x0001) {
      uint64_t f = x + 4, end = x + 4 + len;
      for (uint64_t *field : {&z.size, &z.compressedSize, &local})
        if (*field == 0xffffffffu && f + 8 <= end) {
          *field = le(extra + f, 8);
          f += 8;
        }
    }
    x += 4 + len;
  }
  std::string entryName(name, nameLen);
  pos += 46 + nameLen + extraLen + commentLen;
  if (flags & 1)
    return fail("entry '" + entryName + "' is encrypted");
  const char *lh = at(local, 30);
  if (!lh || le(lh, 4) != 0x04034b50)
    return fail("entry '" + entryName + "' has no local header");
  z.dataOffset = local + 30 + le(lh + 26, 2) + le(lh + 28, 2);
  if (!at(z.dataOffset, z.compressedSize))
    return fail("entry '" + entryName + "' runs past the end of the file");
  if (prefix_.empty()) {
    size_t slash = entryName.find('/');
    if (slash == std::string::npos)
      return fail("entry '" + entryName +
                  "' is not under a folder (not a torch.save file)");
    prefix_ = entryName.substr(0, slash + 1);
  }
  entries.emplace(std::move(entryName), z);
  return true;
}

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
  ZipDirectory zip(file, what, error);
  if (!zip.read())
    return std::nullopt;
  auto stored = [&](const std::string &name) -> const ZipEntry * {
    const ZipEntry *e = zip.find(name);
    if (e && (e->method != 0 || e->compressedSize != e->size)) {
      error = what + ": entry '" + name + "' is compressed; torch.save " +
              "writes its records uncompressed";
      return nullptr;
    }
    if (!e)
      error = what + ": no entry '" + name + "'";
    return e;
  };
  std::string prefix = zip.prefix();
  if (zip.find(prefix + "byteorder")) {
    const ZipEntry *b = stored(prefix + "byteorder");
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
  const ZipEntry *pkl = stored(prefix + "data.pkl");
  if (!pkl)
    return std::nullopt;
  std::optional<std::map<std::string, PickledTensor>> tensors =
      unpickleTensorDict(file.substr(pkl->dataOffset, pkl->size), what, error);
  if (!tensors)
    return std::nullopt;
  std::map<std::string, SavedTensor> out;
  for (auto &[name, view] : *tensors) {
    std::string record = prefix + "data/" + view.storageKey;
    const ZipEntry *data = stored(record);
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
