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
    switch (Opcode(inst.opcode)) {
    case Opcode::Nop:
      d.kind = DecodedInst::Kind::Nop;
      continue;
    case Opcode::Loop:
      d.kind = DecodedInst::Kind::Loop;
      open.push_back(i);
      continue;
    case Opcode::EndLoop: {
      d.kind = DecodedInst::Kind::EndLoop;
      uint32_t start = open.back();
      open.pop_back();
      d.partner = start;
      out.insts[start].partner = i;
      continue;
    }
    case Opcode::DmaLoad:
    case Opcode::DmaStore:
    case Opcode::DmaGather:
    case Opcode::DmaScatter:
      d.unit = kUnitDma;
      if (inst.flags & isa::kFlagMulticast)
        out.hasMulticast = true;
      break;
    case Opcode::PtMatmul:
      d.unit = kUnitPt;
      break;
    case Opcode::RingSend:
    case Opcode::RingRecv:
      d.unit = kUnitRing;
      break;
    default:
      d.unit = kUnitSfp;
      break;
    }
    d.kind = DecodedInst::Kind::Exec;
    // Every enclosing loop has work.
    for (uint32_t l : open)
      out.insts[l].bodyHasWork = true;
    if (d.unit == kUnitSfp) {
      d.complexOp = isComplexSfpOp(inst);
      uint32_t widest = 1;
      unsigned used = 0;
      // The operands streamed over rows x cols: a reduction's destination
      // is one element per row (or column), a transpose moves src0's
      // elements.
      switch (Opcode(inst.opcode)) {
      case Opcode::SfpUnary:
        used = 3; // dst, src0
        break;
      case Opcode::SfpReduce:
      case Opcode::SfpTranspose:
        used = 2; // src0
        break;
      default:
        used = 7;
        break;
      }
      for (unsigned o = 0; o < 3; ++o)
        if (used & (1u << o))
          widest = std::max(widest, isa::dtypeBytes(isa::DType(inst.dtype[o])));
      d.sfpElemsPerStick =
          uint32_t(std::max<int64_t>(1, arch.elementsPerStick(widest)));
    }
  }
  return true;
}

} // namespace spyre::rt::sim
