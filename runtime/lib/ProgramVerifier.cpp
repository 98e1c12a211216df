//===- ProgramVerifier.cpp - Static checks of a program image -------------===//

#include "spyre/Runtime/ProgramVerifier.h"

#include "LxAccess.h"
#include "spyre/Arch/Arch.h"

#include <cstring>

namespace spyre::rt {

using isa::Opcode;

namespace {

constexpr uint8_t kKnownFlags =
    isa::kFlagAccumulate | isa::kFlagBcastCol0 | isa::kFlagBcastCol1 |
    isa::kFlagReduceRows | isa::kFlagMulticast;

/// Flags each opcode may carry.
uint8_t allowedFlags(Opcode op) {
  switch (op) {
  case Opcode::DmaLoad:
    return isa::kFlagMulticast;
  case Opcode::PtMatmul:
    return isa::kFlagAccumulate;
  case Opcode::SfpUnary:
    return isa::kFlagBcastCol0;
  case Opcode::SfpBinary:
  case Opcode::SfpSelect:
    return isa::kFlagBcastCol0 | isa::kFlagBcastCol1;
  case Opcode::SfpReduce:
    return isa::kFlagAccumulate | isa::kFlagReduceRows;
  default:
    return 0;
  }
}

/// arg[] entries a clamp may replace, per opcode (bit i for arg[i]).
unsigned clampableArgs(Opcode op) {
  switch (op) {
  case Opcode::DmaLoad:
  case Opcode::DmaStore:
    return 0xf;
  case Opcode::DmaGather:
  case Opcode::DmaScatter:
    return 0x9; // rows and bytes per row
  case Opcode::PtMatmul:
    return 0x7; // m, k, n
  case Opcode::SfpUnary:
  case Opcode::SfpBinary:
  case Opcode::SfpSelect:
  case Opcode::SfpReduce:
  case Opcode::SfpTranspose:
    return 0x3; // rows, cols
  case Opcode::RingSend:
  case Opcode::RingRecv:
    return 0x4; // bytes (the peer comes from memParam)
  default:
    return 0;
  }
}

std::string hex(unsigned v) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 0xf]);
    v >>= 4;
  } while (v);
  return "0x" + s;
}

bool isFloat(uint8_t dtype) {
  return dtype == uint8_t(isa::DType::F32) ||
         dtype == uint8_t(isa::DType::F16) ||
         dtype == uint8_t(isa::DType::BF16);
}

} // namespace

bool usesDeviceAddress(uint16_t opcode) {
  return opcode == uint16_t(Opcode::DmaLoad) ||
         opcode == uint16_t(Opcode::DmaStore) ||
         opcode == uint16_t(Opcode::DmaGather) ||
         opcode == uint16_t(Opcode::DmaScatter);
}

bool isComplexSfpOp(const isa::Inst &inst) {
  using isa::BinaryOp;
  using isa::UnaryOp;
  if (inst.opcode == uint16_t(Opcode::SfpUnary)) {
    switch (UnaryOp(inst.op)) {
    case UnaryOp::Exp:
    case UnaryOp::Log:
    case UnaryOp::Sqrt:
    case UnaryOp::Rsqrt:
    case UnaryOp::Reciprocal:
    case UnaryOp::Tanh:
    case UnaryOp::Sigmoid:
    case UnaryOp::GeluErf:
    case UnaryOp::GeluTanh:
    case UnaryOp::Silu:
    case UnaryOp::Sin:
    case UnaryOp::Cos:
    case UnaryOp::Erf:
    case UnaryOp::Softplus:
      return true;
    default:
      return false;
    }
  }
  if (inst.opcode == uint16_t(Opcode::SfpBinary))
    return inst.op == uint16_t(BinaryOp::Div) ||
           inst.op == uint16_t(BinaryOp::Pow);
  return false;
}

bool verifyProgram(const uint8_t *image, size_t numInsts, uint32_t numCores,
                   uint32_t numParams, const Arch &arch, std::string &error) {
  unsigned depth = 0;
  uint64_t lxBytes = uint64_t(arch.lxBytes);
  for (size_t i = 0; i < numInsts; ++i) {
    isa::Inst inst;
    std::memcpy(&inst, image + i * isa::kInstBytes, sizeof(inst));
    auto fail = [&](const std::string &what) {
      error = "instruction " + std::to_string(i) + " (" +
              isa::opcodeName(inst.opcode) + "): " + what;
      return false;
    };
    if (inst.opcode > uint16_t(Opcode::LastOpcode)) {
      error = "instruction " + std::to_string(i) + ": invalid opcode " +
              std::to_string(inst.opcode);
      return false;
    }
    Opcode op = Opcode(inst.opcode);
    for (unsigned o = 0; o < 3; ++o)
      if (inst.dtype[o] > uint8_t(isa::DType::LastDType))
        return fail("invalid dtype[" + std::to_string(o) +
                    "] = " + std::to_string(inst.dtype[o]));
    if (inst.flags & ~kKnownFlags)
      return fail("unknown flag bits " +
                  hex(unsigned(inst.flags & ~kKnownFlags)));
    if (inst.flags & ~allowedFlags(op))
      return fail("flags " + hex(inst.flags) + " not valid for this opcode");
    auto checkSlot = [&](uint8_t slot, const char *what) {
      if (slot != isa::kNone && slot >= numParams)
        return fail(std::string(what) + " parameter slot " +
                    std::to_string(slot) + " out of range (the program has " +
                    std::to_string(numParams) + " parameters)");
      return true;
    };
    if (!checkSlot(inst.memParam, "memParam") ||
        !checkSlot(inst.clampParam, "clampParam") ||
        !checkSlot(inst.countParam, "countParam"))
      return false;

    switch (op) {
    case Opcode::Loop:
      if (depth == isa::kMaxLoopDepth)
        return fail("loops nested deeper than " +
                    std::to_string(isa::kMaxLoopDepth));
      ++depth;
      continue;
    case Opcode::EndLoop:
      if (depth == 0)
        return fail("end of loop without a matching loop");
      --depth;
      continue;
    case Opcode::Nop:
      continue;
    case Opcode::SfpUnary:
      if (inst.op > uint16_t(isa::UnaryOp::LastUnaryOp))
        return fail("invalid unary op " + std::to_string(inst.op));
      break;
    case Opcode::SfpBinary:
      if (inst.op > uint16_t(isa::BinaryOp::LastBinaryOp))
        return fail("invalid binary op " + std::to_string(inst.op));
      break;
    case Opcode::SfpReduce:
      if (inst.op > uint16_t(isa::ReduceOp::LastReduceOp))
        return fail("invalid reduce op " + std::to_string(inst.op));
      break;
    case Opcode::DmaGather:
      if (inst.dtype[1] != uint8_t(isa::DType::I32) &&
          inst.dtype[1] != uint8_t(isa::DType::I64))
        return fail("gather indices must be i32 or i64");
      break;
    case Opcode::DmaScatter:
      if (inst.dtype[2] != uint8_t(isa::DType::I32) &&
          inst.dtype[2] != uint8_t(isa::DType::I64))
        return fail("scatter indices must be i32 or i64");
      break;
    case Opcode::RingSend:
    case Opcode::RingRecv:
      // The peer is arg[0] + P(memParam); with a parameter it is checked
      // when the instruction runs.
      if (inst.memParam == isa::kNone && inst.arg[0] >= numCores)
        return fail("ring peer core " + std::to_string(inst.arg[0]) +
                    " out of range (the program runs on " +
                    std::to_string(numCores) + " cores)");
      break;
    default:
      break;
    }
    if (op == Opcode::PtMatmul || op == Opcode::SfpReduce) {
      uint32_t level = inst.arg[3];
      if (level >= isa::kMaxLoopDepth && level != isa::kNone)
        return fail("accumulate loop level arg[3] = " + std::to_string(level) +
                    " must be 0.." + std::to_string(isa::kMaxLoopDepth - 1) +
                    " or none (255)");
    }
    if (op == Opcode::PtMatmul && !isFloat(inst.dtype[0]))
      return fail("matmul accumulator (dtype[0]) must be a float type");
    if (inst.clampLevel != isa::kNone) {
      unsigned level = inst.clampLevel & 0xf;
      unsigned argIndex = inst.clampLevel >> 4;
      if (level >= isa::kMaxLoopDepth && level != 0xf)
        return fail("clamp loop level " + std::to_string(level) +
                    " out of range");
      if (argIndex > 3 || !(clampableArgs(op) & (1u << argIndex)))
        return fail("arg[" + std::to_string(argIndex) +
                    "] of this opcode cannot be clamped");
    }
    bool lxOp = op >= Opcode::PtMatmul && op <= Opcode::SfpTranspose &&
                op != Opcode::RingSend && op != Opcode::RingRecv;
    // No operand has more (logical) elements than the scratchpad has bytes:
    // true of every real tile, and it bounds the work and memory of one
    // instruction even when row pitches of 0 or overlapping rows make its
    // footprint small.
    auto checkElements = [&](uint64_t a, uint64_t b, const char *what) {
      if (a * b > lxBytes) // a, b < 2^32: no overflow
        return fail(std::string(what) + " of " + std::to_string(a) + " x " +
                    std::to_string(b) + " elements exceeds the " +
                    std::to_string(lxBytes) + "-byte scratchpad");
      return true;
    };
    if (op == Opcode::PtMatmul &&
        (!checkElements(inst.arg[0], inst.arg[1], "operand A") ||
         !checkElements(inst.arg[1], inst.arg[2], "operand B") ||
         !checkElements(inst.arg[0], inst.arg[2], "result C")))
      return false;
    if (lxOp && op != Opcode::PtMatmul &&
        !checkElements(inst.arg[0], inst.arg[1], "an operand"))
      return false;
    if (lxOp)
      for (unsigned o = 0; o < 3; ++o)
        if (inst.pitch[o] < 0)
          return fail("negative LX row pitch[" + std::to_string(o) + "]");
    // Static LX footprint: loop counters 0, unclamped sizes.
    unsigned used = detail::lxOperandsUsed(inst);
    for (unsigned o = 0; o < 3; ++o)
      if ((used & (1u << o)) && inst.lx[o] > lxBytes)
        return fail("LX offset lx[" + std::to_string(o) + "] = " +
                    std::to_string(inst.lx[o]) + " outside the " +
                    std::to_string(lxBytes) + "-byte scratchpad");
    int64_t lx[3] = {inst.lx[0], inst.lx[1], inst.lx[2]};
    detail::LxAccess access;
    detail::computeLxAccess(inst, inst.arg, lx, access);
    for (unsigned r = 0; r < access.numReads + access.numWrites; ++r) {
      const detail::LxRegion &reg = r < access.numReads
                                        ? access.reads[r]
                                        : access.writes[r - access.numReads];
      if (!detail::regionInside(reg, lxBytes)) {
        Int128 end = reg.end();
        std::string endText =
            end > Int128(UINT64_MAX) ? "beyond 2^64"
                                       : std::to_string(uint64_t(end));
        return fail("LX access [" + std::to_string(reg.base) + ", " +
                    endText + ") outside the " + std::to_string(lxBytes) +
                    "-byte scratchpad");
      }
    }
  }
  if (depth != 0) {
    error = "program ends inside " + std::to_string(depth) +
            " unterminated loop(s)";
    return false;
  }
  return true;
}

} // namespace spyre::rt
