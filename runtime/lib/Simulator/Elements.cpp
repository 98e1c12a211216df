//===- Elements.cpp - Element loads and stores of the simulator -----------===//

#include "Elements.h"

#include "spyre/Spy/DL16.h"

#include <cstring>

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
  case ElementStorage::DL16Saturating: {
    const float *table = spy::dl16DecodeTable();
    for (size_t i = 0; i < n; ++i)
      out[i] = table[loadAs<uint16_t>(src + 2 * i)];
    return;
  }
  case ElementStorage::IeeeF16: {
    const float *table = spy::halfDecodeTable();
    for (size_t i = 0; i < n; ++i)
      out[i] = table[loadAs<uint16_t>(src + 2 * i)];
    return;
  }
  case ElementStorage::BF16:
    for (size_t i = 0; i < n; ++i)
      out[i] = spy::bf16ToFloat(loadAs<uint16_t>(src + 2 * i));
    return;
  case ElementStorage::I8:
    for (size_t i = 0; i < n; ++i)
      out[i] = float(int8_t(src[i]));
    return;
  case ElementStorage::Bool:
    for (size_t i = 0; i < n; ++i)
      out[i] = src[i] ? 1.0f : 0.0f;
    return;
  case ElementStorage::I32:
    for (size_t i = 0; i < n; ++i)
      out[i] = float(loadAs<int32_t>(src + 4 * i));
    return;
  case ElementStorage::I64:
    for (size_t i = 0; i < n; ++i)
      out[i] = float(loadAs<int64_t>(src + 8 * i));
    return;
  }
}

void storeF32(ElementStorage s, const float *in, size_t n, uint8_t *dst) {
  switch (s) {
  case ElementStorage::F32:
    std::memcpy(dst, in, n * 4);
    return;
  case ElementStorage::DL16:
    for (size_t i = 0; i < n; ++i)
      storeAs<uint16_t>(dst + 2 * i, spy::floatToDL16(in[i]));
    return;
  case ElementStorage::DL16Saturating:
    for (size_t i = 0; i < n; ++i)
      storeAs<uint16_t>(dst + 2 * i, spy::floatToDL16Saturating(in[i]));
    return;
  case ElementStorage::IeeeF16:
    for (size_t i = 0; i < n; ++i)
      storeAs<uint16_t>(dst + 2 * i, spy::floatToHalf(in[i]));
    return;
  case ElementStorage::BF16:
    for (size_t i = 0; i < n; ++i)
      storeAs<uint16_t>(dst + 2 * i, spy::floatToBF16(in[i]));
    return;
  case ElementStorage::I8:
    for (size_t i = 0; i < n; ++i)
      dst[i] = uint8_t(uint64_t(floatToInt64(in[i])));
    return;
  case ElementStorage::Bool:
    for (size_t i = 0; i < n; ++i)
      dst[i] = in[i] != 0.0f ? 1 : 0;
    return;
  case ElementStorage::I32:
    for (size_t i = 0; i < n; ++i)
      storeAs<int32_t>(dst + 4 * i,
                       int32_t(uint32_t(uint64_t(floatToInt64(in[i])))));
    return;
  case ElementStorage::I64:
    for (size_t i = 0; i < n; ++i)
      storeAs<int64_t>(dst + 8 * i, floatToInt64(in[i]));
    return;
  }
}

void loadI64(ElementStorage s, const uint8_t *src, size_t n, int64_t *out) {
  switch (s) {
  case ElementStorage::I8:
    for (size_t i = 0; i < n; ++i)
      out[i] = int8_t(src[i]);
    return;
  case ElementStorage::Bool:
    for (size_t i = 0; i < n; ++i)
      out[i] = src[i] ? 1 : 0;
    return;
  case ElementStorage::I32:
    for (size_t i = 0; i < n; ++i)
      out[i] = loadAs<int32_t>(src + 4 * i);
    return;
  case ElementStorage::I64:
    std::memcpy(out, src, n * 8);
    return;
  default: {
    // Float storage: through fp32, truncated.
    float buf[64];
    for (size_t i = 0; i < n; i += 64) {
      size_t m = n - i < 64 ? n - i : 64;
      loadF32(s, src + i * storageBytes(s), m, buf);
      for (size_t j = 0; j < m; ++j)
        out[i + j] = floatToInt64(buf[j]);
    }
    return;
  }
  }
}

void storeI64(ElementStorage s, const int64_t *in, size_t n, uint8_t *dst) {
  switch (s) {
  case ElementStorage::I8:
    for (size_t i = 0; i < n; ++i)
      dst[i] = uint8_t(uint64_t(in[i]));
    return;
  case ElementStorage::Bool:
    for (size_t i = 0; i < n; ++i)
      dst[i] = in[i] != 0 ? 1 : 0;
    return;
  case ElementStorage::I32:
    for (size_t i = 0; i < n; ++i)
      storeAs<int32_t>(dst + 4 * i, int32_t(uint32_t(uint64_t(in[i]))));
    return;
  case ElementStorage::I64:
    std::memcpy(dst, in, n * 8);
    return;
  default: {
    float buf[64];
    for (size_t i = 0; i < n; i += 64) {
      size_t m = n - i < 64 ? n - i : 64;
      for (size_t j = 0; j < m; ++j)
        buf[j] = float(in[i + j]);
      storeF32(s, buf, m, dst + i * storageBytes(s));
    }
    return;
  }
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
