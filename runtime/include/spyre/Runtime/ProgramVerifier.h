//===- ProgramVerifier.h - Static checks of a program image -----*- C++ -*-===//
//
// Checks that every instruction of a program decodes (docs/isa.md): opcode,
// op and dtype fields in range, known flags only, loops balanced and at most
// kMaxLoopDepth deep, parameter slots below numParams, clamp selectors valid,
// ring peers below numCores, and the LX footprint of every operand (loop
// counters 0, unclamped sizes) inside lx_bytes; and, given the per-core
// parameters, that ring sends and receives pair up. The loader runs it on every
// program of a file; the simulator runs it again on what it is asked to
// execute, so that a program handed to a Device directly is checked too.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_PROGRAMVERIFIER_H
#define SPYRE_RUNTIME_PROGRAMVERIFIER_H

#include "spyre/ISA/ISA.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace spyre {
struct Arch;
} // namespace spyre

namespace spyre::rt {

/// Whether `opcode` addresses device memory through memAddr (the only
/// instructions a relocation may patch).
bool usesDeviceAddress(uint16_t opcode);

/// Whether transcendental timing (sfp_complex_op_passes) applies.
bool isComplexSfpOp(const isa::Inst &inst);

/// Verifies `numInsts` instructions at `image` (any alignment). On failure
/// returns false and sets `error` ("instruction 7 (pt_matmul): ...").
bool verifyProgram(const uint8_t *image, size_t numInsts, uint32_t numCores,
                   uint32_t numParams, const Arch &arch, std::string &error);

/// Verifies that the ring sends and receives of a program pair up on the
/// cores it runs on: per (sender, receiver, tag), as many receives as sends
/// and as many bytes, each instruction counted as often as its loops run on
/// its core (`params`: numCores * numParams values). Programs whose ring
/// instructions sit in a triangular loop are left to the run. On failure
/// returns false and sets `error` (RingMatching.cpp).
bool verifyRingMatching(const uint8_t *image, size_t numInsts,
                        uint32_t numCores, uint32_t numParams,
                        const std::vector<int64_t> &params, std::string &error);

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_PROGRAMVERIFIER_H
