//===- PickleBytes.h - Hand-built pickles for the tests ---------*- C++ -*-===//
//
// Opcode-level builders of pickle byte strings, so that each test says
// exactly which opcodes the reader sees.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_UNITTESTS_TARGET_PICKLEBYTES_H
#define SPYRE_UNITTESTS_TARGET_PICKLEBYTES_H

#include <cstdint>
#include <string>
#include <vector>

namespace spyre::test {

/// `n` bytes of `v`, little-endian.
inline std::string le(uint64_t v, int n) {
  std::string s;
  for (int k = 0; k < n; ++k)
    s += char((v >> (8 * k)) & 0xff);
  return s;
}

/// BINUNICODE.
inline std::string str(const std::string &s) {
  return "X" + le(s.size(), 4) + s;
}
/// SHORT_BINUNICODE (protocol 4).
inline std::string shortStr(const std::string &s) {
  return "\x8c" + le(s.size(), 1) + s;
}
/// GLOBAL "module\nname\n".
inline std::string global(const std::string &module, const std::string &name) {
  return "c" + module + "\n" + name + "\n";
}
/// BININT2 / BININT, whichever fits.
inline std::string integer(int64_t v) {
  if (v >= 0 && v < 65536)
    return "M" + le(uint64_t(v), 2);
  return "J" + le(uint64_t(v), 4);
}
inline std::string tuple(const std::vector<int64_t> &values) {
  std::string s = "(";
  for (int64_t v : values)
    s += integer(v);
  return s + "t";
}

/// `_rebuild_tensor_v2(storage, offset, sizes, strides, False,
/// OrderedDict())` on the storage ('storage', torch.<storageClass>, key,
/// 'cpu', numel), as torch.save writes a tensor (protocol 2 opcodes).
inline std::string tensor(const std::string &storageClass,
                          const std::string &key, int64_t numel, int64_t offset,
                          const std::vector<int64_t> &sizes,
                          const std::vector<int64_t> &strides) {
  return global("torch._utils", "_rebuild_tensor_v2") + "((" + str("storage") +
         global("torch", storageClass) + str(key) + str("cpu") +
         integer(numel) + "tQ" + integer(offset) + tuple(sizes) +
         tuple(strides) + "\x89" + global("collections", "OrderedDict") +
         ")RtR";
}

/// `_rebuild_parameter(tensor, True, OrderedDict())`.
inline std::string parameter(const std::string &tensorPickle) {
  return global("torch._utils", "_rebuild_parameter") + "(" + tensorPickle +
         "\x88" + global("collections", "OrderedDict") + ")RtR";
}

/// Protocol 2 `{name: value, ...}` (EMPTY_DICT, MARK, SETITEMS, STOP).
inline std::string
dict(const std::vector<std::pair<std::string, std::string>> &items) {
  std::string s = std::string("\x80\x02}q\x00(", 6);
  for (auto &[name, value] : items)
    s += str(name) + value;
  return s + "u.";
}

} // namespace spyre::test

#endif // SPYRE_UNITTESTS_TARGET_PICKLEBYTES_H
