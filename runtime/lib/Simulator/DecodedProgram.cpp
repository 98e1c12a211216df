//===- DecodedProgram.cpp - A program prepared for simulation -------------===//

#include "DecodedProgram.h"

#include "spyre/Arch/Arch.h"
#include "spyre/Runtime/ProgramVerifier.h"

#include <algorithm>
#include <cstring>

namespace spyre::rt::sim {

using isa::Opcode;

const char *unitName(unsigned unit) {
  static const char *const names[] = {"DMA", "PT", "SFP", "RING"};
  return unit < kNumUnits ? names[unit] : "?";
}

namespace {

/// The unit that executes an instruction that does work.
Unit unitOf(Opcode op) {
  switch (op) {
  case Opcode::DmaLoad:
  case Opcode::DmaStore:
  case Opcode::DmaGather:
  case Opcode::DmaScatter:
    return kUnitDma;
  case Opcode::PtMatmul:
    return kUnitPt;
  case Opcode::RingSend:
  case Opcode::RingRecv:
    return kUnitRing;
  default:
    return kUnitSfp;
  }
}

/// Elements per stick of the widest operand an SFP instruction streams over
/// rows x cols: a reduction's destination is one element per row (or
/// column), a transpose moves src0's elements.
uint32_t sfpElemsPerStick(const isa::Inst &inst, const Arch &arch) {
  unsigned used = 7; // dst, src0, src1
  switch (Opcode(inst.opcode)) {
  case Opcode::SfpUnary:
    used = 3; // dst, src0
    break;
  case Opcode::SfpReduce:
  case Opcode::SfpTranspose:
    used = 2; // src0
    break;
  default:
    break;
  }
  uint32_t widest = 1;
  for (unsigned o = 0; o < 3; ++o)
    if (used & (1u << o))
      widest = std::max(widest, isa::dtypeBytes(isa::DType(inst.dtype[o])));
  return uint32_t(std::max<int64_t>(1, arch.elementsPerStick(widest)));
}

/// Decodes a Nop, Loop or EndLoop at `index`: pairs each loop with its end
/// (`open` holds the loops not yet ended). False for other opcodes.
bool decodeControl(std::vector<DecodedInst> &insts, uint32_t index,
                   std::vector<uint32_t> &open) {
  DecodedInst &d = insts[index];
  switch (Opcode(d.inst.opcode)) {
  case Opcode::Nop:
    d.kind = DecodedInst::Kind::Nop;
    return true;
  case Opcode::Loop:
    d.kind = DecodedInst::Kind::Loop;
    open.push_back(index);
    return true;
  case Opcode::EndLoop:
    d.kind = DecodedInst::Kind::EndLoop;
    d.partner = open.back();
    insts[open.back()].partner = index;
    open.pop_back();
    return true;
  default:
    return false;
  }
}

} // namespace

bool DecodedProgram::decode(const uint8_t *image, uint32_t numInsts,
                            uint32_t numCores, uint32_t numParams,
                            const Arch &arch, DecodedProgram &out,
                            std::string &error) {
  if (!verifyProgram(image, numInsts, numCores, numParams, arch, error))
    return false;
  bool dl16 = spy::usesDL16Storage(arch);
  out.insts.assign(numInsts, DecodedInst());
  out.hasMulticast = false;
  std::vector<uint32_t> open;
  for (uint32_t i = 0; i < numInsts; ++i) {
    DecodedInst &d = out.insts[i];
    std::memcpy(&d.inst, image + size_t(i) * isa::kInstBytes, sizeof(d.inst));
    const isa::Inst &inst = d.inst;
    for (unsigned o = 0; o < 3; ++o)
      d.storage[o] = spy::storageOf(isa::DType(inst.dtype[o]), dl16);
    if (decodeControl(out.insts, i, open))
      continue;
    d.kind = DecodedInst::Kind::Exec;
    d.unit = unitOf(Opcode(inst.opcode));
    if (d.unit == kUnitDma && (inst.flags & isa::kFlagMulticast))
      out.hasMulticast = true;
    // Every enclosing loop has work.
    for (uint32_t l : open)
      out.insts[l].bodyHasWork = true;
    if (d.unit == kUnitSfp) {
      d.complexOp = isComplexSfpOp(inst);
      d.sfpElemsPerStick = sfpElemsPerStick(inst, arch);
    }
  }
  return true;
}

} // namespace spyre::rt::sim
