//===- Kernels.h - Functional semantics of the instructions -----*- C++ -*-===//
//
// What each instruction of docs/isa.md computes, on one core's LX and the
// device memory. The engine (Engine.h) decides when an instruction runs and
// has already checked every LX and device memory range it touches; these
// functions only compute.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_SIMULATOR_KERNELS_H
#define SPYRE_RUNTIME_SIMULATOR_KERNELS_H

#include "Elements.h"
#include "SparseMemory.h"
#include "spyre/ISA/ISA.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spyre::rt::sim {

/// Buffers reused across instructions (no allocation per instruction).
struct Scratch {
  std::vector<float> f[4];
  std::vector<int64_t> i[4];
  std::vector<uint8_t> bytes;
};

/// One dynamic instruction as the kernels see it.
struct ExecView {
  const isa::Inst *inst = nullptr;
  /// Effective (clamped) arg[] values.
  const uint32_t *args = nullptr;
  /// Effective LX byte addresses of [dst, src0, src1].
  const int64_t *lx = nullptr;
  /// Storage formats of [dst, src0, src1].
  ElementStorage storage[3] = {};
  /// Accumulating instructions: whether this iteration overwrites.
  bool init = true;
  /// ArgMax/ArgMin: added to the index found in this tile.
  int64_t indexBase = 0;
  /// DMA: the effective device address.
  uint64_t mem = 0;
};

void execDmaLoad(const ExecView &v, const SparseMemory &memory, uint8_t *lx);
void execDmaStore(const ExecView &v, SparseMemory &memory, const uint8_t *lx);
/// Reads the indices; false (with `error`) when one is outside the table.
/// LX byte offset of box element (i0, i1, i2) of a DMA: packed, or rows
/// lx[2] bytes apart when lx[2] is set.
uint64_t lxBoxOffset(const isa::Inst &inst, uint64_t i0, uint64_t i1,
                     uint64_t i2);
bool execDmaScatter(const ExecView &v, SparseMemory &memory, const uint8_t *lx,
                    std::string &error);
bool execDmaGather(const ExecView &v, const SparseMemory &memory, uint8_t *lx,
                   std::string &error);
void execPtMatmul(const ExecView &v, uint8_t *lx, Scratch &scratch);
void execSfpUnary(const ExecView &v, uint8_t *lx, Scratch &scratch);
void execSfpBinary(const ExecView &v, uint8_t *lx, Scratch &scratch);
void execSfpSelect(const ExecView &v, uint8_t *lx, Scratch &scratch);
void execSfpReduce(const ExecView &v, uint8_t *lx, Scratch &scratch);
void execSfpTranspose(const ExecView &v, uint8_t *lx);

} // namespace spyre::rt::sim

#endif // SPYRE_RUNTIME_SIMULATOR_KERNELS_H
