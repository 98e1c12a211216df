//===- Npy.h - Reading and writing NumPy .npy files -------------*- C++ -*-===//
//
// The .npy format, versions 1.0, 2.0 and 3.0 (header length u16 or u32),
// little-endian, C order, for the dtypes the runtime exchanges: f2 f4 f8 i1
// i4 i8 u1 b1 (NumPy has no bfloat16). The reader is strict: a malformed
// header, an unsupported dtype, Fortran order, or a data size that does not
// match the shape is an error.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_NPY_H
#define SPYRE_RUNTIME_NPY_H

#include "spyre/ISA/ISA.h"
#include "spyre/Runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spyre::rt {

enum class NpyDType : uint8_t { F2, F4, F8, I1, I4, I8, U1, B1 };

/// The dtype string of the header ("<f4", "|b1").
const char *npyDescr(NpyDType dtype);
/// Bytes per element.
uint32_t npyItemBytes(NpyDType dtype);

/// An array: dtype, shape and the raw little-endian, C-order data.
struct NpyArray {
  NpyDType dtype = NpyDType::F4;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  uint64_t numElements() const;
};

/// Parses the bytes of a .npy file.
Status parseNpy(const uint8_t *bytes, size_t size, NpyArray &out);
/// Reads a .npy file.
Status readNpy(const std::string &path, NpyArray &out);
/// The bytes of a .npy file (version 1.0 unless the header needs 2.0).
std::vector<uint8_t> serializeNpy(const NpyArray &array);
/// Writes a .npy file.
Status writeNpy(const std::string &path, const NpyArray &array);

/// The .npy dtype that carries a model dtype: F16 f2, F32 f4, I8 i1, I32 i4,
/// I64 i8, Bool b1, and BF16 f4 (converted, as NumPy has no bfloat16).
NpyDType npyDTypeFor(isa::DType dtype);

/// Converts an array to a host tensor of `dtype` (see Transfer.h): the
/// array's dtype must be npyDTypeFor(dtype). False with `error` otherwise.
bool npyToHost(const NpyArray &array, isa::DType dtype,
               std::vector<uint8_t> &host, std::string &error);
/// Converts a host tensor to an array of npyDTypeFor(dtype).
NpyArray hostToNpy(isa::DType dtype, const std::vector<int64_t> &shape,
                   const std::vector<uint8_t> &host);

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_NPY_H
