//===- ProgramVerifier.cpp - Static checks of a program image -------------===//

#include "spyre/Runtime/ProgramVerifier.h"

#include "LxAccess.h"
#include "spyre/Arch/Arch.h"

#include <cstring>

namespace spyre::rt {

using isa::Opcode;

namespace {

constexpr uint8_t kKnownFlags = isa::kFlagAccumulate | isa::kFlagBcastCol0 |
                                isa::kFlagBcastCol1 | isa::kFlagReduceRows |
                                isa::kFlagMulticast | isa::kFlagPartialSum;

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
  case Opcode::RingSend:
    return isa::kFlagPartialSum;
  case Opcode::RingRecv:
    return isa::kFlagPartialSum | isa::kFlagAccumulate;
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

bool isIndexType(uint8_t dtype) {
  return dtype == uint8_t(isa::DType::I32) || dtype == uint8_t(isa::DType::I64);
}

/// Whether an opcode computes on LX operands (the PT and SFP units).
bool isLxOp(Opcode op) {
  return op >= Opcode::PtMatmul && op <= Opcode::SfpTranspose &&
         op != Opcode::RingSend && op != Opcode::RingRecv;
}

/// What the checks of one instruction need to know about its program.
struct Limits {
  uint32_t numCores;
  uint32_t numParams;
  uint64_t lxBytes;
};

/// Each check returns the first problem it finds in an instruction ("" when
/// there is none); verifyProgram names the instruction.
using Check = std::string (*)(const isa::Inst &inst, const Limits &limits);

std::string checkSlot(uint8_t slot, const char *what, uint32_t numParams) {
  if (slot != isa::kNone && slot >= numParams)
    return std::string(what) + " parameter slot " + std::to_string(slot) +
           " out of range (the program has " + std::to_string(numParams) +
           " parameters)";
  return {};
}

/// dtype, flags and parameter slot fields.
std::string checkFields(const isa::Inst &inst, const Limits &limits) {
  for (unsigned o = 0; o < 3; ++o)
    if (inst.dtype[o] > uint8_t(isa::DType::LastDType))
      return "invalid dtype[" + std::to_string(o) +
             "] = " + std::to_string(inst.dtype[o]);
  if (inst.flags & ~kKnownFlags)
    return "unknown flag bits " + hex(unsigned(inst.flags & ~kKnownFlags));
  if (inst.flags & ~allowedFlags(Opcode(inst.opcode)))
    return "flags " + hex(inst.flags) + " not valid for this opcode";
  std::string problem = checkSlot(inst.memParam, "memParam", limits.numParams);
  if (problem.empty())
    problem = checkSlot(inst.clampParam, "clampParam", limits.numParams);
  if (problem.empty())
    problem = checkSlot(inst.countParam, "countParam", limits.numParams);
  return problem;
}

/// The opcodes whose op field selects an operation, and its last value.
struct OpField {
  Opcode opcode;
  uint16_t last;
  const char *kind;
};
constexpr OpField kOpFields[] = {
    {Opcode::SfpUnary, uint16_t(isa::UnaryOp::LastUnaryOp), "unary"},
    {Opcode::SfpBinary, uint16_t(isa::BinaryOp::LastBinaryOp), "binary"},
    {Opcode::SfpReduce, uint16_t(isa::ReduceOp::LastReduceOp), "reduce"},
};

/// The operand holding the row indices of a gather or scatter.
struct IndexOperand {
  Opcode opcode;
  unsigned operand;
  const char *what;
};
constexpr IndexOperand kIndexOperands[] = {
    {Opcode::DmaGather, 1, "gather"},
    {Opcode::DmaScatter, 2, "scatter"},
};

/// The op field and index types.
std::string checkOperation(const isa::Inst &inst, const Limits &) {
  Opcode op = Opcode(inst.opcode);
  for (const OpField &f : kOpFields)
    if (op == f.opcode && inst.op > f.last)
      return "invalid " + std::string(f.kind) + " op " +
             std::to_string(inst.op);
  for (const IndexOperand &x : kIndexOperands)
    if (op == x.opcode && !isIndexType(inst.dtype[x.operand]))
      return std::string(x.what) + " indices must be i32 or i64";
  return {};
}

/// A ring peer given as an immediate is a core of the program. (The peer is
/// arg[0] + P(memParam); with a parameter it is checked when the instruction
/// runs.)
std::string checkRingPeer(const isa::Inst &inst, const Limits &limits) {
  Opcode op = Opcode(inst.opcode);
  if (op != Opcode::RingSend && op != Opcode::RingRecv)
    return {};
  if (inst.memParam == isa::kNone && inst.arg[0] >= limits.numCores)
    return "ring peer core " + std::to_string(inst.arg[0]) +
           " out of range (the program runs on " +
           std::to_string(limits.numCores) + " cores)";
  return {};
}

/// The accumulator's init level and type.
std::string checkAccumulator(const isa::Inst &inst, const Limits &) {
  Opcode op = Opcode(inst.opcode);
  uint32_t initLevel = inst.arg[3];
  if ((op == Opcode::PtMatmul || op == Opcode::SfpReduce) &&
      initLevel >= isa::kMaxLoopDepth && initLevel != isa::kNone)
    return "accumulate loop level arg[3] = " + std::to_string(initLevel) +
           " must be 0.." + std::to_string(isa::kMaxLoopDepth - 1) +
           " or none (255)";
  if (op == Opcode::PtMatmul && !isFloat(inst.dtype[0]))
    return "matmul accumulator (dtype[0]) must be a float type";
  // Partial sums are f32 (docs/isa.md RingRecv).
  if (op == Opcode::RingRecv && (inst.flags & isa::kFlagAccumulate) &&
      (!(inst.flags & isa::kFlagPartialSum) || inst.arg[2] % 4 != 0))
    return "an accumulating receive adds f32 partial sums: it needs the "
           "partial-sum ring and a multiple of 4 bytes, got " +
           std::to_string(inst.arg[2]);
  return {};
}

/// The clamp selector: a loop level (or none) and an arg the opcode lets be
/// clamped.
std::string checkClamp(const isa::Inst &inst, const Limits &) {
  if (inst.clampLevel == isa::kNone)
    return {};
  unsigned level = inst.clampLevel & 0xf;
  unsigned argIndex = inst.clampLevel >> 4;
  if (level >= isa::kMaxLoopDepth && level != 0xf)
    return "clamp loop level " + std::to_string(level) + " out of range";
  if (argIndex > 3 || !(clampableArgs(Opcode(inst.opcode)) & (1u << argIndex)))
    return "arg[" + std::to_string(argIndex) +
           "] of this opcode cannot be clamped";
  return {};
}

std::string checkElements(uint64_t a, uint64_t b, const char *what,
                          uint64_t lxBytes) {
  if (a * b > lxBytes) // a, b < 2^32: no overflow
    return std::string(what) + " of " + std::to_string(a) + " x " +
           std::to_string(b) + " elements exceeds the " +
           std::to_string(lxBytes) + "-byte scratchpad";
  return {};
}

/// No operand has more (logical) elements than the scratchpad has bytes:
/// true of every real tile, and it bounds the work and memory of one
/// instruction even when row pitches of 0 or overlapping rows make its
/// footprint small. Row pitches are not negative.
std::string checkOperandSizes(const isa::Inst &inst, const Limits &limits) {
  Opcode op = Opcode(inst.opcode);
  if (!isLxOp(op))
    return {};
  const uint32_t *arg = inst.arg;
  std::string problem;
  if (op == Opcode::PtMatmul) {
    problem = checkElements(arg[0], arg[1], "operand A", limits.lxBytes);
    if (problem.empty())
      problem = checkElements(arg[1], arg[2], "operand B", limits.lxBytes);
    if (problem.empty())
      problem = checkElements(arg[0], arg[2], "result C", limits.lxBytes);
  } else {
    problem = checkElements(arg[0], arg[1], "an operand", limits.lxBytes);
  }
  for (unsigned o = 0; o < 3 && problem.empty(); ++o)
    if (inst.pitch[o] < 0)
      problem = "negative LX row pitch[" + std::to_string(o) + "]";
  return problem;
}

/// The static LX footprint (loop counters 0, unclamped sizes) lies inside
/// the scratchpad.
std::string checkLxFootprint(const isa::Inst &inst, const Limits &limits) {
  uint64_t lxBytes = limits.lxBytes;
  unsigned used = detail::lxOperandsUsed(inst);
  for (unsigned o = 0; o < 3; ++o)
    if ((used & (1u << o)) && inst.lx[o] > lxBytes)
      return "LX offset lx[" + std::to_string(o) +
             "] = " + std::to_string(inst.lx[o]) + " outside the " +
             std::to_string(lxBytes) + "-byte scratchpad";
  int64_t lx[3] = {inst.lx[0], inst.lx[1], inst.lx[2]};
  detail::LxAccess access;
  detail::computeLxAccess(inst, inst.arg, lx, access);
  for (unsigned r = 0; r < access.numReads + access.numWrites; ++r) {
    const detail::LxRegion &reg = r < access.numReads
                                      ? access.reads[r]
                                      : access.writes[r - access.numReads];
    if (detail::regionInside(reg, lxBytes))
      continue;
    Int128 end = reg.end();
    std::string endText = end > Int128(UINT64_MAX)
                              ? "beyond 2^64"
                              : std::to_string(uint64_t(end));
    return "LX access [" + std::to_string(reg.base) + ", " + endText +
           ") outside the " + std::to_string(lxBytes) + "-byte scratchpad";
  }
  return {};
}

/// The checks of a computing instruction, in order.
constexpr Check kInstructionChecks[] = {checkOperation,    checkRingPeer,
                                        checkAccumulator,  checkClamp,
                                        checkOperandSizes, checkLxFootprint};

/// Loop structure: balanced, at most kMaxLoopDepth deep; a count growing
/// with a loop (arg[1] != 0) grows with an enclosing one (arg[2]).
std::string checkNesting(const isa::Inst &inst, unsigned &depth) {
  Opcode op = Opcode(inst.opcode);
  if (op == Opcode::Loop) {
    if (depth == isa::kMaxLoopDepth)
      return "loops nested deeper than " + std::to_string(isa::kMaxLoopDepth);
    if (inst.arg[1] != 0 && inst.arg[2] >= depth)
      return "loop count grows with loop level " + std::to_string(inst.arg[2]) +
             ", which does not enclose it";
    ++depth;
  } else if (op == Opcode::EndLoop) {
    if (depth == 0)
      return "end of loop without a matching loop";
    --depth;
  }
  return {};
}

/// The first problem of an instruction with a valid opcode; `depth` is the
/// loop depth before it, updated.
std::string checkInstruction(const isa::Inst &inst, const Limits &limits,
                             unsigned &depth) {
  std::string problem = checkFields(inst, limits);
  if (!problem.empty())
    return problem;
  Opcode op = Opcode(inst.opcode);
  if (op == Opcode::Loop || op == Opcode::EndLoop || op == Opcode::Nop)
    return checkNesting(inst, depth);
  for (Check check : kInstructionChecks) {
    problem = check(inst, limits);
    if (!problem.empty())
      return problem;
  }
  return {};
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
  if (inst.opcode == uint16_t(Opcode::SfpUnary))
    return isa::takesComplexPath(UnaryOp(inst.op));
  if (inst.opcode == uint16_t(Opcode::SfpBinary))
    return isa::takesComplexPath(BinaryOp(inst.op));
  return false;
}

bool verifyProgram(const uint8_t *image, size_t numInsts, uint32_t numCores,
                   uint32_t numParams, const Arch &arch, std::string &error) {
  Limits limits{numCores, numParams, uint64_t(arch.lxBytes)};
  unsigned depth = 0;
  for (size_t i = 0; i < numInsts; ++i) {
    isa::Inst inst;
    std::memcpy(&inst, image + i * isa::kInstBytes, sizeof(inst));
    if (inst.opcode > uint16_t(Opcode::LastOpcode)) {
      error = "instruction " + std::to_string(i) + ": invalid opcode " +
              std::to_string(inst.opcode);
      return false;
    }
    std::string problem = checkInstruction(inst, limits, depth);
    if (!problem.empty()) {
      error = "instruction " + std::to_string(i) + " (" +
              isa::opcodeName(inst.opcode) + "): " + problem;
      return false;
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
