//===- Elements.cpp - Element loads and stores of the simulator -----------===//

#include "Elements.h"

#include "spyre/Spy/DL16.h"

#include <cstring>
#include <type_traits>

namespace spyre::rt::sim {

namespace {

template <typename T> T loadAs(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T> void storeAs(uint8_t *p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

/// Decodes `n` 16-bit codes through a 65536-entry table.
void decodeByTable(const float *table, const uint8_t *src, size_t n,
                   float *out) {
  for (size_t i = 0; i < n; ++i)
    out[i] = table[loadAs<uint16_t>(src + 2 * i)];
}

/// Decodes `n` bf16 values.
void decodeBF16(const uint8_t *src, size_t n, float *out) {
  for (size_t i = 0; i < n; ++i)
    out[i] = spy::bf16ToFloat(loadAs<uint16_t>(src + 2 * i));
}

/// Encodes `n` floats as 16-bit codes with `Encode`.
template <uint16_t (*Encode)(float)>
void encode16(const float *in, size_t n, uint8_t *dst) {
  for (size_t i = 0; i < n; ++i)
    storeAs<uint16_t>(dst + 2 * i, Encode(in[i]));
}

/// Converts `n` stored integers of type T to float.
template <typename T> void intsToF32(const uint8_t *src, size_t n, float *out) {
  for (size_t i = 0; i < n; ++i)
    out[i] = float(loadAs<T>(src + sizeof(T) * i));
}

/// Loads `n` stored integers of type T, sign- or zero-extended.
template <typename T>
void intsToI64(const uint8_t *src, size_t n, int64_t *out) {
  for (size_t i = 0; i < n; ++i)
    out[i] = loadAs<T>(src + sizeof(T) * i);
}

/// Stores `n` integers wrapped to T's width (two's complement).
template <typename T>
void storeWrapped(const int64_t *in, size_t n, uint8_t *dst) {
  using Unsigned = std::make_unsigned_t<T>;
  for (size_t i = 0; i < n; ++i)
    storeAs<T>(dst + sizeof(T) * i, T(Unsigned(uint64_t(in[i]))));
}

/// Stores `n` floats truncated to integers and wrapped to T's width.
template <typename T>
void storeTruncated(const float *in, size_t n, uint8_t *dst) {
  using Unsigned = std::make_unsigned_t<T>;
  for (size_t i = 0; i < n; ++i)
    storeAs<T>(dst + sizeof(T) * i, T(Unsigned(uint64_t(floatToInt64(in[i])))));
}

/// Stores `n` floats truncated to 64-bit integers.
void storeTruncatedI64(const float *in, size_t n, uint8_t *dst) {
  for (size_t i = 0; i < n; ++i)
    storeAs<int64_t>(dst + 8 * i, floatToInt64(in[i]));
}

void boolsToF32(const uint8_t *src, size_t n, float *out) {
  for (size_t i = 0; i < n; ++i)
    out[i] = src[i] ? 1.0f : 0.0f;
}

void boolsToI64(const uint8_t *src, size_t n, int64_t *out) {
  for (size_t i = 0; i < n; ++i)
    out[i] = src[i] ? 1 : 0;
}

void f32ToBools(const float *in, size_t n, uint8_t *dst) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = in[i] != 0.0f ? 1 : 0;
}

void i64ToBools(const int64_t *in, size_t n, uint8_t *dst) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = in[i] != 0 ? 1 : 0;
}

} // namespace

uint32_t storageBytes(ElementStorage s) {
  switch (s) {
  case ElementStorage::F32:
  case ElementStorage::I32:
    return 4;
  case ElementStorage::IeeeF16:
  case ElementStorage::BF16:
  case ElementStorage::DL16:
  case ElementStorage::DL16Saturating:
    return 2;
  case ElementStorage::I64:
    return 8;
  case ElementStorage::I8:
  case ElementStorage::Bool:
    return 1;
  }
  return 1;
}

void loadF32(ElementStorage s, const uint8_t *src, size_t n, float *out) {
  switch (s) {
  case ElementStorage::F32:
    std::memcpy(out, src, n * 4);
    return;
  case ElementStorage::DL16:
  case ElementStorage::DL16Saturating:
    decodeByTable(spy::dl16DecodeTable(), src, n, out);
    return;
  case ElementStorage::IeeeF16:
    decodeByTable(spy::halfDecodeTable(), src, n, out);
    return;
  case ElementStorage::BF16:
    decodeBF16(src, n, out);
    return;
  case ElementStorage::I8:
    intsToF32<int8_t>(src, n, out);
    return;
  case ElementStorage::Bool:
    boolsToF32(src, n, out);
    return;
  case ElementStorage::I32:
    intsToF32<int32_t>(src, n, out);
    return;
  case ElementStorage::I64:
    intsToF32<int64_t>(src, n, out);
    return;
  }
}

void storeF32(ElementStorage s, const float *in, size_t n, uint8_t *dst) {
  switch (s) {
  case ElementStorage::F32:
    std::memcpy(dst, in, n * 4);
    return;
  case ElementStorage::DL16:
    encode16<spy::floatToDL16>(in, n, dst);
    return;
  case ElementStorage::DL16Saturating:
    encode16<spy::floatToDL16Saturating>(in, n, dst);
    return;
  case ElementStorage::IeeeF16:
    encode16<spy::floatToHalf>(in, n, dst);
    return;
  case ElementStorage::BF16:
    encode16<spy::floatToBF16>(in, n, dst);
    return;
  case ElementStorage::I8:
    storeTruncated<uint8_t>(in, n, dst);
    return;
  case ElementStorage::Bool:
    f32ToBools(in, n, dst);
    return;
  case ElementStorage::I32:
    storeTruncated<int32_t>(in, n, dst);
    return;
  case ElementStorage::I64:
    storeTruncatedI64(in, n, dst);
    return;
  }
}

namespace {

/// Loads float storage through fp32, truncated, 64 elements at a time.
void loadI64ViaF32(ElementStorage s, const uint8_t *src, size_t n,
                   int64_t *out) {
  float buf[64];
  for (size_t i = 0; i < n; i += 64) {
    size_t m = n - i < 64 ? n - i : 64;
    loadF32(s, src + i * storageBytes(s), m, buf);
    for (size_t j = 0; j < m; ++j)
      out[i + j] = floatToInt64(buf[j]);
  }
}

/// Stores integers to float storage through fp32, 64 elements at a time.
void storeI64ViaF32(ElementStorage s, const int64_t *in, size_t n,
                    uint8_t *dst) {
  float buf[64];
  for (size_t i = 0; i < n; i += 64) {
    size_t m = n - i < 64 ? n - i : 64;
    for (size_t j = 0; j < m; ++j)
      buf[j] = float(in[i + j]);
    storeF32(s, buf, m, dst + i * storageBytes(s));
  }
}

} // namespace

void loadI64(ElementStorage s, const uint8_t *src, size_t n, int64_t *out) {
  switch (s) {
  case ElementStorage::I8:
    intsToI64<int8_t>(src, n, out);
    return;
  case ElementStorage::Bool:
    boolsToI64(src, n, out);
    return;
  case ElementStorage::I32:
    intsToI64<int32_t>(src, n, out);
    return;
  case ElementStorage::I64:
    std::memcpy(out, src, n * 8);
    return;
  default:
    // Float storage: through fp32, truncated.
    loadI64ViaF32(s, src, n, out);
    return;
  }
}

void storeI64(ElementStorage s, const int64_t *in, size_t n, uint8_t *dst) {
  switch (s) {
  case ElementStorage::I8:
    storeWrapped<uint8_t>(in, n, dst);
    return;
  case ElementStorage::Bool:
    i64ToBools(in, n, dst);
    return;
  case ElementStorage::I32:
    storeWrapped<int32_t>(in, n, dst);
    return;
  case ElementStorage::I64:
    std::memcpy(dst, in, n * 8);
    return;
  default:
    storeI64ViaF32(s, in, n, dst);
    return;
  }
}

bool isNonZero(ElementStorage s, const uint8_t *p) {
  switch (s) {
  case ElementStorage::I8:
  case ElementStorage::Bool:
    return p[0] != 0;
  case ElementStorage::I32:
    return loadAs<int32_t>(p) != 0;
  case ElementStorage::I64:
    return loadAs<int64_t>(p) != 0;
  default: {
    float v;
    loadF32(s, p, 1, &v);
    return v != 0.0f;
  }
  }
}

} // namespace spyre::rt::sim
