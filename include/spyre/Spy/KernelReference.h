//===- KernelReference.h - What a program computes -------------*- C++ -*-===//
//
// The compute ops of the kernel a program was lowered from, on whole
// tensors (the `reference` of a .spy program, schema/spy.fbs): written by
// the emitter from `spyre.reference`, read by the runtime, which evaluates
// it on the host for `spyre-run --check`. Plain C++, no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_SPY_KERNELREFERENCE_H
#define SPYRE_SPY_KERNELREFERENCE_H

#include "spyre/ISA/ISA.h"
#include "spyre/Spy/spy_generated.h"

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace spyre::spy {

/// One compute op (kinds: RefKind of schema/spy.fbs); the meaning of its
/// fields per kind is schema/spy.fbs's RefOp.
struct RefOpDesc {
  RefKind kind = RefKind::Unary;
  int32_t code = 0;
  std::vector<uint32_t> operands;
  isa::DType dtype = isa::DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> ints;
  double scale = 0;
  std::vector<float> floatValues;
  std::vector<int64_t> intValues;
  std::string location;
  std::string node;
};

/// A kernel input or result: a tensor of the model seen with `shape`.
struct RefValueDesc {
  uint32_t tensor = 0;
  std::vector<int64_t> shape;
};

struct KernelReferenceDesc {
  std::vector<RefValueDesc> inputs;
  std::vector<RefValueDesc> results;
  std::vector<RefOpDesc> ops;
  /// The value (inputs first, then op results) of each result.
  std::vector<uint32_t> yields;
};

/// "binary add", "matmul": the op's kind and, for SFP ops, its function.
inline std::string refOpName(const RefOpDesc &op) {
  std::string s = EnumNameRefKind(op.kind);
  for (char &c : s)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  uint16_t code = uint16_t(op.code);
  if (op.kind == RefKind::Unary)
    s += std::string(" ") + isa::unaryOpName(code);
  else if (op.kind == RefKind::Binary || op.kind == RefKind::Compare)
    s += std::string(" ") + isa::binaryOpName(code);
  else if (op.kind == RefKind::Reduce)
    s += std::string(" ") + isa::reduceOpName(code);
  return s;
}

} // namespace spyre::spy

#endif // SPYRE_SPY_KERNELREFERENCE_H
