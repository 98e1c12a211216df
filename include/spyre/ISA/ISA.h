//===- ISA.h - The Spyre core instruction encoding --------------*- C++ -*-===//
//
// The binary encoding of per-core program instructions, shared by the emitter
// (lib/Target) and the runtime/simulator (runtime/). Plain C++, no LLVM.
//
// The full semantics (addressing, loops, clamps, hazards, timing) are written
// down in docs/isa.md; this header is the bit-level contract.
//
// A program is an array of 128-byte instructions (one stick each), shared by
// every core that runs it. What differs between cores comes from a per-core
// parameter table (int64 values, `numParams` per core): instructions name a
// parameter slot instead of holding a core-specific immediate.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_ISA_ISA_H
#define SPYRE_ISA_ISA_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace spyre::isa {

/// Size of one encoded instruction in bytes.
constexpr uint32_t kInstBytes = 128;
/// Hardware loop nesting depth.
constexpr unsigned kMaxLoopDepth = 3;
/// Marks an unused parameter slot, loop level or clamp.
constexpr uint8_t kNone = 0xff;

enum class Opcode : uint16_t {
  Nop = 0,
  /// Hardware loop: runs the instructions up to the matching EndLoop
  /// `count` times (arg[0], or param[countParam] when countParam != kNone).
  Loop = 1,
  EndLoop = 2,
  /// Device memory -> LX box copy (see DmaLoad in docs/isa.md).
  DmaLoad = 3,
  /// LX -> device memory box copy.
  DmaStore = 4,
  /// Systolic (PT) matrix multiply on LX tiles: C[m,n] (+)= A[m,k] * B[k,n].
  PtMatmul = 5,
  /// Vector (SFP) unary op on a 2-D LX region.
  SfpUnary = 6,
  /// Vector (SFP) binary op on 2-D LX regions.
  SfpBinary = 7,
  /// Vector select: dst = src0 != 0 ? src1 : dst.
  SfpSelect = 8,
  /// Vector reduction along the columns (or rows with kFlagReduceRows).
  SfpReduce = 9,
  /// Send arg[2] bytes from LX lx[1] to core arg[0] with tag arg[1].
  RingSend = 10,
  /// Receive arg[2] bytes into LX lx[0] from core arg[0] with tag arg[1].
  RingRecv = 11,
  /// Copy a 2-D LX region to another LX location, transposing it:
  /// dst[c, r] = src0[r, c] for r < rows, c < cols (element size of dtype[1]).
  SfpTranspose = 12,
  /// Gather rows: for r < rows, dst row r = table row index[r] where the
  /// table is in device memory (see docs/isa.md).
  DmaGather = 13,
  /// Scatter rows: for r < rows, table row index[r] in device memory =
  /// LX row r (the inverse of DmaGather; see docs/isa.md).
  DmaScatter = 14,
  LastOpcode = DmaScatter,
};

/// Element types of operands (dtype[] fields).
enum class DType : uint8_t {
  F32 = 0,
  /// fp16; stored as DL16 when the machine's fp16_storage is "dl16".
  F16 = 1,
  /// bf16; stored as DL16 when the machine's fp16_storage is "dl16".
  BF16 = 2,
  I8 = 3,
  I32 = 4,
  I64 = 5,
  /// One byte, 0 or 1.
  Bool = 6,
  LastDType = Bool,
};

/// Bytes per element of a dtype.
constexpr uint32_t dtypeBytes(DType t) {
  switch (t) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I64:
    return 8;
  case DType::I8:
  case DType::Bool:
    return 1;
  }
  return 0;
}

/// How many functions each SFP instruction has (SfpOps.def).
namespace detail {
enum : uint16_t {
#define SPYRE_SFP_UNARY(Enum, ...) Unary##Enum,
#include "spyre/ISA/SfpOps.def"
  kNumUnaryOps
};
enum : uint16_t {
#define SPYRE_SFP_BINARY(Enum, ...) Binary##Enum,
#include "spyre/ISA/SfpOps.def"
  kNumBinaryOps
};
enum : uint16_t {
#define SPYRE_SFP_REDUCE(Enum, ...) Reduce##Enum,
#include "spyre/ISA/SfpOps.def"
  kNumReduceOps
};
} // namespace detail

/// SFP unary operations (op field of SfpUnary). Computed in fp32 (or in the
/// integer domain for integer dtypes), result converted to dtype[0].
enum class UnaryOp : uint16_t {
#define SPYRE_SFP_UNARY(Enum, ...) Enum,
#include "spyre/ISA/SfpOps.def"
  LastUnaryOp = detail::kNumUnaryOps - 1,
};

/// SFP binary operations (op field of SfpBinary).
enum class BinaryOp : uint16_t {
#define SPYRE_SFP_BINARY(Enum, ...) Enum,
#include "spyre/ISA/SfpOps.def"
  LastBinaryOp = detail::kNumBinaryOps - 1,
};

/// SFP reductions (op field of SfpReduce).
enum class ReduceOp : uint16_t {
#define SPYRE_SFP_REDUCE(Enum, ...) Enum,
#include "spyre/ISA/SfpOps.def"
  LastReduceOp = detail::kNumReduceOps - 1,
};

/// Whether the function runs in the int64 domain on integer sources.
constexpr bool hasIntegerForm(UnaryOp op) {
  switch (op) {
#define SPYRE_SFP_UNARY(Enum, Name, IntegerForm, ComplexPath)                  \
  case UnaryOp::Enum:                                                          \
    return IntegerForm;
#include "spyre/ISA/SfpOps.def"
  }
  return false;
}
constexpr bool hasIntegerForm(BinaryOp op) {
  switch (op) {
#define SPYRE_SFP_BINARY(Enum, Name, IntegerForm, ComplexPath)                 \
  case BinaryOp::Enum:                                                         \
    return IntegerForm;
#include "spyre/ISA/SfpOps.def"
  }
  return false;
}

/// Whether the function takes the SFP's complex (transcendental) path.
constexpr bool takesComplexPath(UnaryOp op) {
  switch (op) {
#define SPYRE_SFP_UNARY(Enum, Name, IntegerForm, ComplexPath)                  \
  case UnaryOp::Enum:                                                          \
    return ComplexPath;
#include "spyre/ISA/SfpOps.def"
  }
  return false;
}
constexpr bool takesComplexPath(BinaryOp op) {
  switch (op) {
#define SPYRE_SFP_BINARY(Enum, Name, IntegerForm, ComplexPath)                 \
  case BinaryOp::Enum:                                                         \
    return ComplexPath;
#include "spyre/ISA/SfpOps.def"
  }
  return false;
}

/// Bits of the flags field.
enum Flags : uint8_t {
  /// PtMatmul/SfpReduce: combine with the destination instead of
  /// overwriting it, except on iteration 0 of the loop level in arg[3]
  /// (when arg[3] != kNone): that iteration initializes the destination.
  kFlagAccumulate = 1 << 0,
  /// Sfp*: src0 reads column 0 of its row for every column (scalar per row).
  kFlagBcastCol0 = 1 << 1,
  /// Sfp*: src1 reads column 0 of its row for every column.
  kFlagBcastCol1 = 1 << 2,
  /// SfpReduce: reduce along rows (dst[0, c]) instead of columns (dst[r, 0]).
  kFlagReduceRows = 1 << 3,
  /// DmaLoad: one device memory read delivered to every core of the step
  /// that issues the identical load (ring multicast); see docs/isa.md.
  kFlagMulticast = 1 << 4,
  /// RingSend/RingRecv: over the partial-sum ring instead of the data ring
  /// (docs/isa.md). A RingRecv with kFlagAccumulate as well adds the f32
  /// values it receives to its destination instead of overwriting it.
  kFlagPartialSum = 1 << 5,
};

/// The clamp selector packed in `clampLevel`: low nibble = loop level (or
/// 0xf for none), high nibble = index of the arg[] entry that is clamped.
constexpr uint8_t clampSelector(uint8_t level, uint8_t argIndex) {
  return uint8_t((argIndex << 4) | (level & 0xf));
}

/// One instruction. Field meaning depends on the opcode; docs/isa.md has the
/// table. Addresses: device memory addresses are 64-bit and patched by
/// relocations; LX addresses are byte offsets into the core's scratchpad.
struct Inst {
  uint16_t opcode;            //   0 Opcode
  uint16_t op;                //   2 UnaryOp/BinaryOp/ReduceOp
  uint8_t dtype[3];           //   4 [dst, src0, src1] DType
  uint8_t flags;              //   7 Flags
  uint64_t memAddr;           //   8 device address (relocation target)
  int32_t memLoopStride[3];   //  16 bytes added per iteration of loop 0..2
  int32_t pitch[3];           //  28 DMA: device strides of box dims 0..2;
                              //     PT/SFP: row pitches of [dst, src0, src1]
  uint32_t lx[3];             //  40 LX offsets of [dst, src0, src1]; for
                              //     DmaLoad/DmaStore lx[2] is the LX row
                              //     pitch of box dim 0 (0: packed)
  int32_t lxLoopStride[3][3]; //  52 [operand][loop level] bytes per iteration
  uint32_t lxWrap[3];         //  88 per operand: loop offset taken modulo this
                              //     (rotating buffers); 0 = no wrap
  uint32_t arg[4];            // 100 counts and sizes (see docs/isa.md)
  uint32_t clampStep;         // 116 clamp: elements per loop iteration
  uint32_t clampTotal;        // 120 clamp: extent of the clamped dimension
  uint8_t clampLevel;         // 124 clampSelector(level, arg index) or kNone
  uint8_t clampParam; // 125 param slot holding the clamp start, or kNone
  uint8_t memParam;   // 126 param slot added to memAddr, or kNone
  uint8_t countParam; // 127 Loop: param slot holding the trip count
};

static_assert(sizeof(Inst) == kInstBytes, "instruction must be one stick");
static_assert(offsetof(Inst, memAddr) == 8, "relocations patch offset 8");

/// Byte offset, within an instruction, of the only relocatable field.
constexpr uint32_t kRelocFieldOffset = offsetof(Inst, memAddr);

/// A zeroed instruction with every optional selector set to "none".
inline Inst makeInst(Opcode opcode) {
  Inst inst{};
  inst.opcode = uint16_t(opcode);
  inst.op = 0;
  inst.clampLevel = kNone;
  inst.clampParam = kNone;
  inst.memParam = kNone;
  inst.countParam = kNone;
  return inst;
}

/// Name of an opcode for dumps and diagnostics ("?" when out of range).
const char *opcodeName(uint16_t opcode);
const char *unaryOpName(uint16_t op);
const char *binaryOpName(uint16_t op);
const char *reduceOpName(uint16_t op);
const char *dtypeName(uint8_t dtype);

/// docs/generated/SfpFunctions.md: every SFP function of SfpOps.def.
std::string sfpFunctionsMarkdown();

} // namespace spyre::isa

#endif // SPYRE_ISA_ISA_H
