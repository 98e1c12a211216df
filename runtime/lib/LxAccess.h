//===- LxAccess.h - The LX bytes an instruction touches ---------*- C++ -*-===//
//
// Shared by the program verifier (static footprints: unclamped sizes, loop
// counters 0) and the simulator (dynamic footprints: hazards and bounds).
// Internal to the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_LXACCESS_H
#define SPYRE_RUNTIME_LXACCESS_H

#include "Int128.h"
#include "spyre/ISA/ISA.h"

#include <cstdint>

namespace spyre::rt::detail {

/// `rows` rows of `rowBytes` bytes each, `pitch` bytes apart, from `base`.
struct LxRegion {
  int64_t base = 0;
  uint64_t rows = 0;
  uint64_t rowBytes = 0;
  uint64_t pitch = 0;

  bool empty() const { return rows == 0 || rowBytes == 0; }
  /// One past the last byte (meaningful when !empty()).
  Int128 end() const {
    return Int128(base) + Int128(rows - 1) * pitch + rowBytes;
  }
  bool contiguous() const { return rows <= 1 || pitch == rowBytes; }
};

/// The LX regions one instruction reads and writes.
struct LxAccess {
  LxRegion reads[3];
  LxRegion writes[2];
  uint8_t numReads = 0;
  uint8_t numWrites = 0;
};

/// Which LX operands (bit o for lx[o]) an opcode uses, and which of them it
/// writes. Unknown opcodes use none.
unsigned lxOperandsUsed(const isa::Inst &inst);

/// Computes the regions of `inst` given its effective `args` (after
/// clamping) and the effective LX addresses `lx` of its operands. The
/// instruction must have passed verifyInstruction's field checks.
void computeLxAccess(const isa::Inst &inst, const uint32_t args[4],
                     const int64_t lx[3], LxAccess &out);

/// Whether a non-empty region lies inside [0, lxBytes).
inline bool regionInside(const LxRegion &r, uint64_t lxBytes) {
  return r.empty() || (r.base >= 0 && r.end() <= Int128(lxBytes));
}

/// Whether two regions share a byte.
bool regionsOverlap(const LxRegion &a, const LxRegion &b);

/// Whether instruction `later` must wait for the unfinished `earlier` (RAW,
/// WAR or WAW on LX bytes).
bool conflicts(const LxAccess &earlier, const LxAccess &later);

} // namespace spyre::rt::detail

#endif // SPYRE_RUNTIME_LXACCESS_H
