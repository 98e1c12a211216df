//===- Disassembler.h - Instructions as text --------------------*- C++ -*-===//
//
// One instruction as one line of text: its mnemonic, operation and the
// operands its opcode uses (docs/isa.md). `spyre-translate --spy-to-text`
// prints programs with it and the simulator's trace names instructions with
// it. Plain C++, no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_ISA_DISASSEMBLER_H
#define SPYRE_ISA_DISASSEMBLER_H

#include "spyre/ISA/ISA.h"

#include <string>

namespace spyre::isa {

/// The text of `inst`, e.g. "sfp_unary exp dst=lx:0 src0=lx:512 rows=8
/// cols=128 pitch=[512, 512, 0] types=f32,f32". `memBase` is printed as the
/// base of a DMA's device address (the dump names the relocated tensor
/// there, "@w0(load)"); a non-zero memAddr of a load or store, the memParam
/// and the loop strides follow it.
std::string disassemble(const Inst &inst, const std::string &memBase);

/// The mnemonic and, for the SFP ops that have one, the operation
/// ("sfp_binary add", "dma_load").
std::string instName(const Inst &inst);

} // namespace spyre::isa

#endif // SPYRE_ISA_DISASSEMBLER_H
