//===- ISA.cpp - Names of ISA enumerators ---------------------------------===//

#include "spyre/ISA/ISA.h"

namespace spyre::isa {

namespace {
template <size_t N>
const char *lookup(const char *const (&names)[N], unsigned value) {
  return value < N ? names[value] : "?";
}
} // namespace

const char *opcodeName(uint16_t opcode) {
  static const char *const names[] = {
      "nop",       "loop",      "endloop",       "dma_load",   "dma_store",
      "pt_matmul", "sfp_unary", "sfp_binary",    "sfp_select", "sfp_reduce",
      "ring_send", "ring_recv", "sfp_transpose", "dma_gather", "dma_scatter"};
  static_assert(sizeof(names) / sizeof(names[0]) ==
                    unsigned(Opcode::LastOpcode) + 1,
                "every opcode has a name");
  return lookup(names, opcode);
}

const char *unaryOpName(uint16_t op) {
  static const char *const names[] = {
#define SPYRE_SFP_UNARY(Enum, Name, ...) Name,
#include "spyre/ISA/SfpOps.def"
  };
  return lookup(names, op);
}

const char *binaryOpName(uint16_t op) {
  static const char *const names[] = {
#define SPYRE_SFP_BINARY(Enum, Name, ...) Name,
#include "spyre/ISA/SfpOps.def"
  };
  return lookup(names, op);
}

const char *reduceOpName(uint16_t op) {
  static const char *const names[] = {
#define SPYRE_SFP_REDUCE(Enum, Name) Name,
#include "spyre/ISA/SfpOps.def"
  };
  return lookup(names, op);
}

const char *dtypeName(uint8_t dtype) {
  static const char *const names[] = {"f32", "f16", "bf16", "i8",
                                      "i32", "i64", "bool"};
  static_assert(sizeof(names) / sizeof(names[0]) ==
                    unsigned(DType::LastDType) + 1,
                "every dtype has a name");
  return lookup(names, dtype);
}

} // namespace spyre::isa
