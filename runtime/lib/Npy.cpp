//===- Npy.cpp - Reading and writing NumPy .npy files ---------------------===//

#include "spyre/Runtime/Npy.h"

#include "spyre/Spy/DL16.h"
#include "spyre/Support/MathExtras.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>

namespace spyre::rt {

namespace {

constexpr char kNpyMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;
/// Largest header accepted (NumPy's own limit is far smaller in practice).
constexpr uint64_t kMaxHeaderBytes = 1 << 20;
constexpr size_t kMaxNpyRank = 64;

struct DTypeEntry {
  NpyDType dtype;
  const char *descr;
  uint32_t bytes;
};
const DTypeEntry kDTypes[] = {
    {NpyDType::F2, "<f2", 2}, {NpyDType::F4, "<f4", 4},
    {NpyDType::F8, "<f8", 8}, {NpyDType::I1, "|i1", 1},
    {NpyDType::I4, "<i4", 4}, {NpyDType::I8, "<i8", 8},
    {NpyDType::U1, "|u1", 1}, {NpyDType::B1, "|b1", 1},
};

/// Parses the Python dict literal of a .npy header.
class HeaderParser {
public:
  HeaderParser(const char *text, size_t size) : p_(text), end_(text + size) {}

  Status parse(NpyArray &out) {
    Seen seen;
    skipSpace();
    if (!consume('{'))
      return bad("header does not start with '{'");
    skipSpace();
    while (!peek('}'))
      SPYRE_RETURN_IF_ERROR(parseEntry(seen, out));
    consume('}');
    skipPadding();
    if (p_ != end_)
      return bad("trailing characters after the header dictionary");
    if (!seen.descr || !seen.order || !seen.shape)
      return bad("header lacks 'descr', 'fortran_order' or 'shape'");
    return Status::success();
  }

private:
  static Status bad(const std::string &what) {
    return invalidFile("malformed .npy header: " + what);
  }

  /// The keys read so far.
  struct Seen {
    bool descr = false, order = false, shape = false;
  };

  /// One `'key': value` entry and the separator after it.
  Status parseEntry(Seen &seen, NpyArray &out) {
    std::string key;
    if (!parseString(key))
      return bad("expected a quoted key");
    skipSpace();
    if (!consume(':'))
      return bad("expected ':' after '" + key + "'");
    skipSpace();
    SPYRE_RETURN_IF_ERROR(parseValue(key, seen, out));
    skipSpace();
    if (consume(',')) {
      skipSpace();
      return Status::success();
    }
    if (!peek('}'))
      return bad("expected ',' or '}'");
    return Status::success();
  }

  Status parseValue(const std::string &key, Seen &seen, NpyArray &out) {
    if (key == "descr") {
      std::string descr;
      if (seen.descr || !parseString(descr))
        return bad("invalid or repeated 'descr'");
      seen.descr = true;
      return parseDescr(descr, out.dtype);
    }
    if (key == "fortran_order") {
      if (seen.order)
        return bad("repeated 'fortran_order'");
      seen.order = true;
      return parseOrder();
    }
    if (key == "shape") {
      if (seen.shape)
        return bad("repeated 'shape'");
      seen.shape = true;
      return parseShape(out.shape);
    }
    return bad("unexpected key '" + key + "'");
  }

  Status parseOrder() {
    if (consumeWord("False"))
      return Status::success();
    if (consumeWord("True"))
      return invalidFile("Fortran-order .npy arrays are not supported");
    return bad("'fortran_order' must be True or False");
  }
  /// Skips the spaces, newline and NULs that pad a header to its length.
  void skipPadding() {
    auto isPadding = [](char c) {
      return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\0';
    };
    while (p_ < end_ && isPadding(*p_))
      ++p_;
  }
  void skipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t'))
      ++p_;
  }
  bool peek(char c) const { return p_ < end_ && *p_ == c; }
  bool consume(char c) {
    if (!peek(c))
      return false;
    ++p_;
    return true;
  }
  bool consumeWord(const char *word) {
    size_t n = std::strlen(word);
    if (size_t(end_ - p_) < n || std::memcmp(p_, word, n) != 0)
      return false;
    p_ += n;
    return true;
  }
  bool parseString(std::string &out) {
    if (!peek('\'') && !peek('"'))
      return false;
    char quote = *p_++;
    const char *start = p_;
    while (p_ < end_ && *p_ != quote) {
      if (*p_ == '\\' || *p_ == '\n')
        return false;
      ++p_;
    }
    if (p_ == end_)
      return false;
    out.assign(start, p_);
    ++p_;
    return true;
  }
  static bool isByteOrder(char c) {
    return c == '<' || c == '>' || c == '|' || c == '=';
  }
  /// The known dtype whose type code (the descr after its byte order)
  /// `descr` names, null when the descr is malformed or unknown. Each code
  /// appears once in kDTypes.
  static const DTypeEntry *findDType(const std::string &descr, char order) {
    if (descr.size() != 3 || !isByteOrder(order))
      return nullptr;
    for (const DTypeEntry &e : kDTypes)
      if (descr.compare(1, 2, e.descr + 1) == 0)
        return &e;
    return nullptr;
  }
  /// Byte order is irrelevant for one-byte types; '=' is native, which the
  /// runtime requires to be little-endian.
  static bool readsAsLittleEndian(const DTypeEntry &e, char order) {
    return e.bytes == 1 || order == '<' || order == '=';
  }
  static Status parseDescr(const std::string &descr, NpyDType &out) {
    char order = descr.empty() ? '?' : descr[0];
    const DTypeEntry *e = findDType(descr, order);
    if (e && readsAsLittleEndian(*e, order)) {
      out = e->dtype;
      return Status::success();
    }
    if (e && order == '>')
      return invalidFile("big-endian .npy data ('" + descr +
                         "') is not supported");
    return invalidFile("unsupported .npy dtype '" + descr +
                       "' (supported: f2 f4 f8 i1 i4 i8 u1 b1)");
  }
  /// One non-negative integer of the shape tuple (with Python 2's optional
  /// long suffix).
  Status parseShapeEntry(uint64_t &v) {
    if (p_ == end_ || !std::isdigit(static_cast<unsigned char>(*p_)))
      return bad("shape entries must be non-negative integers");
    v = 0;
    while (p_ < end_ && std::isdigit(static_cast<unsigned char>(*p_))) {
      v = v * 10 + uint64_t(*p_ - '0');
      if (v > uint64_t(INT64_MAX) / 16)
        return bad("shape entry too large");
      ++p_;
    }
    if (p_ < end_ && *p_ == 'L') // Python 2 long suffix
      ++p_;
    return Status::success();
  }
  Status parseShape(std::vector<int64_t> &shape) {
    if (!consume('('))
      return bad("'shape' must be a tuple");
    skipSpace();
    while (!peek(')')) {
      uint64_t v = 0;
      SPYRE_RETURN_IF_ERROR(parseShapeEntry(v));
      if (shape.size() == kMaxNpyRank)
        return bad("too many dimensions");
      shape.push_back(int64_t(v));
      skipSpace();
      if (consume(',')) {
        skipSpace();
        continue;
      }
      if (!peek(')'))
        return bad("expected ',' or ')' in the shape");
    }
    consume(')');
    return Status::success();
  }

  const char *p_;
  const char *end_;
};

} // namespace

const char *npyDescr(NpyDType dtype) {
  for (const DTypeEntry &e : kDTypes)
    if (e.dtype == dtype)
      return e.descr;
  return "?";
}

uint32_t npyItemBytes(NpyDType dtype) {
  for (const DTypeEntry &e : kDTypes)
    if (e.dtype == dtype)
      return e.bytes;
  return 1;
}

uint64_t NpyArray::numElements() const {
  uint64_t n = 1;
  for (int64_t d : shape)
    n *= uint64_t(d);
  return n;
}

namespace {

/// Checks the magic string and the format version; `major` gets the version.
Status checkMagicAndVersion(const uint8_t *bytes, size_t size, uint8_t &major) {
  if (size < kMagicBytes + 2 || std::memcmp(bytes, kNpyMagic, kMagicBytes))
    return invalidFile("not a .npy file (bad magic)");
  major = bytes[6];
  uint8_t minor = bytes[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return invalidFile("unsupported .npy version " + std::to_string(major) +
                       "." + std::to_string(minor));
  return Status::success();
}

/// Reads the header's length field: `prefix` gets the bytes before the
/// header and `headerBytes` its length, checked to lie within the file.
Status readHeaderLength(const uint8_t *bytes, size_t size, uint8_t major,
                        size_t &prefix, uint64_t &headerBytes) {
  size_t lengthBytes = major == 1 ? 2 : 4;
  prefix = kMagicBytes + 2 + lengthBytes;
  if (size < prefix)
    return invalidFile(".npy file truncated in its header");
  headerBytes = bytes[8] | (uint64_t(bytes[9]) << 8);
  if (lengthBytes == 4)
    headerBytes |= (uint64_t(bytes[10]) << 16) | (uint64_t(bytes[11]) << 24);
  if (headerBytes > kMaxHeaderBytes || headerBytes > size - prefix)
    return invalidFile(".npy file truncated in its header");
  return Status::success();
}

/// The bytes of data `array`'s shape and dtype need, failing on overflow.
Status dataBytesOf(const NpyArray &array, uint64_t &dataBytes) {
  uint64_t elements = 1;
  for (int64_t d : array.shape)
    if (__builtin_mul_overflow(elements, uint64_t(d), &elements))
      return invalidFile(".npy shape is too large");
  if (__builtin_mul_overflow(elements, uint64_t(npyItemBytes(array.dtype)),
                             &dataBytes))
    return invalidFile(".npy shape is too large");
  return Status::success();
}

/// Makes every bool 0 or 1, whatever nonzero byte the file held.
void normalizeBools(NpyArray &array) {
  if (array.dtype == NpyDType::B1)
    for (uint8_t &b : array.data)
      b = b ? 1 : 0;
}

} // namespace

Status parseNpy(const uint8_t *bytes, size_t size, NpyArray &out) {
  uint8_t major = 0;
  SPYRE_RETURN_IF_ERROR(checkMagicAndVersion(bytes, size, major));
  size_t prefix = 0;
  uint64_t headerBytes = 0;
  SPYRE_RETURN_IF_ERROR(
      readHeaderLength(bytes, size, major, prefix, headerBytes));
  NpyArray array;
  HeaderParser parser(reinterpret_cast<const char *>(bytes + prefix),
                      size_t(headerBytes));
  SPYRE_RETURN_IF_ERROR(parser.parse(array));
  uint64_t dataBytes = 0;
  SPYRE_RETURN_IF_ERROR(dataBytesOf(array, dataBytes));
  uint64_t available = size - prefix - headerBytes;
  if (available != dataBytes)
    return invalidFile(".npy data is " + std::to_string(available) +
                       " bytes, the shape needs " + std::to_string(dataBytes));
  const uint8_t *data = bytes + prefix + headerBytes;
  array.data.assign(data, data + dataBytes);
  normalizeBools(array);
  out = std::move(array);
  return Status::success();
}

Status readNpy(const std::string &path, NpyArray &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error(StatusCode::IoError, "cannot open '" + path + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad())
    return Status::error(StatusCode::IoError, "cannot read '" + path + "'");
  return parseNpy(bytes.data(), bytes.size(), out).withContext(path);
}

std::vector<uint8_t> serializeNpy(const NpyArray &array) {
  std::string dict = std::string("{'descr': '") + npyDescr(array.dtype) +
                     "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < array.shape.size(); ++i)
    dict += (i ? ", " : "") + std::to_string(array.shape[i]);
  if (array.shape.size() == 1)
    dict += ",";
  dict += "), }";
  // Pad so that the data starts at a multiple of 64 bytes.
  size_t lengthBytes = 2;
  auto padded = [&](size_t prefix) {
    size_t total = prefix + dict.size() + 1;
    return alignTo(total, 64) - prefix;
  };
  size_t headerBytes = padded(kMagicBytes + 2 + 2);
  if (headerBytes > 0xffff) {
    lengthBytes = 4;
    headerBytes = padded(kMagicBytes + 2 + 4);
  }
  std::vector<uint8_t> out(kNpyMagic, kNpyMagic + kMagicBytes);
  out.push_back(lengthBytes == 2 ? 1 : 2);
  out.push_back(0);
  for (size_t i = 0; i < lengthBytes; ++i)
    out.push_back(uint8_t(headerBytes >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), headerBytes - dict.size() - 1, ' ');
  out.push_back('\n');
  out.insert(out.end(), array.data.begin(), array.data.end());
  return out;
}

Status writeNpy(const std::string &path, const NpyArray &array) {
  std::vector<uint8_t> bytes = serializeNpy(array);
  std::ofstream os(path, std::ios::binary);
  if (!os)
    return Status::error(StatusCode::IoError, "cannot create '" + path + "'");
  os.write(reinterpret_cast<const char *>(bytes.data()),
           std::streamsize(bytes.size()));
  if (!os)
    return Status::error(StatusCode::IoError, "cannot write '" + path + "'");
  return Status::success();
}

NpyDType npyDTypeFor(isa::DType dtype) {
  switch (dtype) {
  case isa::DType::F16:
    return NpyDType::F2;
  case isa::DType::F32:
  case isa::DType::BF16:
    return NpyDType::F4;
  case isa::DType::I8:
    return NpyDType::I1;
  case isa::DType::I32:
    return NpyDType::I4;
  case isa::DType::I64:
    return NpyDType::I8;
  case isa::DType::Bool:
    return NpyDType::B1;
  }
  return NpyDType::F4;
}

bool npyToHost(const NpyArray &array, isa::DType dtype,
               std::vector<uint8_t> &host, std::string &error) {
  NpyDType expected = npyDTypeFor(dtype);
  if (array.dtype != expected) {
    error = std::string("expected '") + npyDescr(expected) + "' data for " +
            isa::dtypeName(uint8_t(dtype)) + ", got '" + npyDescr(array.dtype) +
            "'";
    return false;
  }
  if (dtype != isa::DType::BF16) {
    host = array.data;
    return true;
  }
  uint64_t n = array.numElements();
  host.resize(size_t(n * 2));
  for (uint64_t i = 0; i < n; ++i) {
    float f;
    std::memcpy(&f, array.data.data() + i * 4, 4);
    uint16_t b = spy::floatToBF16(f);
    std::memcpy(host.data() + i * 2, &b, 2);
  }
  return true;
}

NpyArray hostToNpy(isa::DType dtype, const std::vector<int64_t> &shape,
                   const std::vector<uint8_t> &host) {
  NpyArray a;
  a.dtype = npyDTypeFor(dtype);
  a.shape = shape;
  if (dtype != isa::DType::BF16) {
    a.data = host;
    return a;
  }
  size_t n = host.size() / 2;
  a.data.resize(n * 4);
  for (size_t i = 0; i < n; ++i) {
    uint16_t b;
    std::memcpy(&b, host.data() + i * 2, 2);
    float f = spy::bf16ToFloat(b);
    std::memcpy(a.data.data() + i * 4, &f, 4);
  }
  return a;
}

} // namespace spyre::rt
