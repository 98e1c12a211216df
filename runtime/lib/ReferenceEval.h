//===- ReferenceEval.h - Host evaluation of a kernel reference --*- C++ -*-===//
//
// Evaluates the compute ops of a program's reference (spy/KernelReference.h)
// on host tensors with the device's element semantics (spyre/ISA/
// ElementMath.h, which the simulator and the compiler's constant folder
// share): floats in fp32, integers in int64 (wrapping); every op's result
// is stored as the device stores it (fp16 and bf16 as DLFloat16, integers
// wrapped to their width). Matmul and attention accumulate in fp32 in k
// order, so a float result may differ from the device's by rounding only.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_LIB_REFERENCEEVAL_H
#define SPYRE_RUNTIME_LIB_REFERENCEEVAL_H

#include "spyre/Runtime/Status.h"
#include "spyre/Spy/KernelReference.h"

#include <cstdint>
#include <vector>

namespace spyre::rt {

/// A tensor in its compute domain: `f` for float dtypes, `i` for integers
/// and booleans; row-major.
struct HostValue {
  isa::DType dtype = isa::DType::F32;
  std::vector<int64_t> shape;
  std::vector<float> f;
  std::vector<int64_t> i;

  bool isInt() const;
  int64_t numElements() const;
  /// Element `k` as a double, whatever the domain.
  double at(int64_t k) const { return isInt() ? double(i[k]) : double(f[k]); }
};

/// The host value of `count` row-major elements of `dtype` at `data` (the
/// runtime's host format: F16 as IEEE half, BF16 as bfloat16 bits).
HostValue hostValueFromBytes(isa::DType dtype, std::vector<int64_t> shape,
                             const void *data);

/// Evaluates `ref` on `inputs` (one per reference input, of its shape and
/// dtype) into `results` (one per reference result); `dl16`: the device
/// stores fp16/bf16 as DLFloat16 (else IEEE half, bfloat16). On an error (an op
/// whose operands do not fit it, an index out of range), `failedOp` is the
/// op's position.
Status evaluateReference(const spy::KernelReferenceDesc &ref,
                         std::vector<HostValue> inputs, bool dl16,
                         std::vector<HostValue> &results, size_t &failedOp);

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_LIB_REFERENCEEVAL_H
