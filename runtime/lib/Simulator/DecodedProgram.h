//===- DecodedProgram.h - A program prepared for simulation -----*- C++ -*-===//
//
// A verified program with everything the engine needs per instruction worked
// out once per step: its unit, loop structure, operand storage formats and
// timing class. The hot loop never re-decodes an instruction.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_SIMULATOR_DECODEDPROGRAM_H
#define SPYRE_RUNTIME_SIMULATOR_DECODEDPROGRAM_H

#include "Elements.h"
#include "spyre/ISA/ISA.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spyre {
struct Arch;
} // namespace spyre

namespace spyre::rt::sim {

/// The execution units of a core.
enum Unit : uint8_t { kUnitDma = 0, kUnitPt, kUnitSfp, kUnitRing, kNumUnits };

/// Name of a unit ("DMA", "PT", ...).
const char *unitName(unsigned unit);

struct DecodedInst {
  enum class Kind : uint8_t { Exec, Loop, EndLoop, Nop };

  isa::Inst inst;
  Kind kind = Kind::Nop;
  Unit unit = kUnitDma;
  /// Loop: index of its EndLoop; EndLoop: index of its Loop.
  uint32_t partner = 0;
  /// Loop: whether the body holds anything but loops and nops.
  bool bodyHasWork = false;
  /// SFP: a transcendental op (sfp_complex_op_passes applies).
  bool complexOp = false;
  /// SFP: elements per stick of the widest operand.
  uint32_t sfpElemsPerStick = 1;
  /// Storage formats of [dst, src0, src1].
  ElementStorage storage[3] = {};
};

struct DecodedProgram {
  std::vector<DecodedInst> insts;
  /// Whether any instruction is a multicast load.
  bool hasMulticast = false;

  /// Verifies (ProgramVerifier.h) and decodes `numInsts` instructions.
  static bool decode(const uint8_t *image, uint32_t numInsts, uint32_t numCores,
                     uint32_t numParams, const Arch &arch, DecodedProgram &out,
                     std::string &error);
};

} // namespace spyre::rt::sim

#endif // SPYRE_RUNTIME_SIMULATOR_DECODEDPROGRAM_H
