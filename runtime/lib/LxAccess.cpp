//===- LxAccess.cpp - The LX bytes an instruction touches -----------------===//

#include "LxAccess.h"

namespace spyre::rt::detail {

using isa::Opcode;

namespace {

/// Regions with more rows than this are compared by their bounding intervals
/// only (conservative: a false overlap only delays an instruction).
constexpr uint64_t kExactOverlapRowLimit = 4096;

uint64_t elemBytes(uint8_t dtype) {
  return dtype <= uint8_t(isa::DType::LastDType)
             ? isa::dtypeBytes(isa::DType(dtype))
             : 1;
}

LxRegion region(int64_t base, uint64_t rows, uint64_t rowBytes,
                uint64_t pitch) {
  LxRegion r;
  r.base = base;
  r.rows = rows;
  r.rowBytes = rowBytes;
  r.pitch = pitch;
  if (pitch == 0 && rows > 1)
    r.rows = 1; // every row at the same address
  return r;
}

LxRegion contiguous(int64_t base, uint64_t bytes) {
  return region(base, bytes ? 1 : 0, bytes, bytes);
}

Int128 floorDiv(Int128 a, Int128 b) {
  Int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

/// Whether row set `s` (rows of `s`) overlaps any row of `l`.
bool rowsOverlap(const LxRegion &s, const LxRegion &l) {
  for (uint64_t i = 0; i < s.rows; ++i) {
    Int128 lo = Int128(s.base) + Int128(i) * s.pitch;
    Int128 hi = lo + s.rowBytes;
    if (l.contiguous()) {
      if (lo < l.end() && Int128(l.base) < hi)
        return true;
      continue;
    }
    // Smallest j with l.base + j * pitch + rowBytes > lo.
    Int128 j = floorDiv(lo - Int128(l.rowBytes) - l.base, l.pitch) + 1;
    if (j < 0)
      j = 0;
    if (j < Int128(l.rows) && Int128(l.base) + j * l.pitch < hi)
      return true;
  }
  return false;
}

} // namespace

unsigned lxOperandsUsed(const isa::Inst &inst) {
  switch (Opcode(inst.opcode)) {
  case Opcode::DmaLoad:
  case Opcode::RingRecv:
    return 1u << 0;
  case Opcode::DmaStore:
  case Opcode::RingSend:
    return 1u << 1;
  case Opcode::DmaGather:
  case Opcode::SfpUnary:
  case Opcode::SfpTranspose:
    return (1u << 0) | (1u << 1);
  case Opcode::DmaScatter:
    return (1u << 1) | (1u << 2);
  case Opcode::SfpReduce: {
    bool argAcc = (inst.op == uint16_t(isa::ReduceOp::ArgMax) ||
                   inst.op == uint16_t(isa::ReduceOp::ArgMin)) &&
                  (inst.flags & isa::kFlagAccumulate);
    return (1u << 0) | (1u << 1) | (argAcc ? (1u << 2) : 0);
  }
  case Opcode::PtMatmul:
  case Opcode::SfpBinary:
  case Opcode::SfpSelect:
    return 7u;
  default:
    return 0;
  }
}

void computeLxAccess(const isa::Inst &inst, const uint32_t args[4],
                     const int64_t lx[3], LxAccess &out) {
  out.numReads = 0;
  out.numWrites = 0;
  auto read = [&](const LxRegion &r) {
    if (!r.empty())
      out.reads[out.numReads++] = r;
  };
  auto write = [&](const LxRegion &r) {
    if (!r.empty())
      out.writes[out.numWrites++] = r;
  };
  uint64_t e0 = elemBytes(inst.dtype[0]);
  uint64_t e1 = elemBytes(inst.dtype[1]);
  uint64_t e2 = elemBytes(inst.dtype[2]);
  uint64_t p0 = uint64_t(uint32_t(inst.pitch[0]));
  uint64_t p1 = uint64_t(uint32_t(inst.pitch[1]));
  uint64_t p2 = uint64_t(uint32_t(inst.pitch[2]));
  uint64_t a0 = args[0], a1 = args[1], a2 = args[2], a3 = args[3];
  bool bcast0 = inst.flags & isa::kFlagBcastCol0;
  bool bcast1 = inst.flags & isa::kFlagBcastCol1;
  bool accumulate = inst.flags & isa::kFlagAccumulate;
  switch (Opcode(inst.opcode)) {
  case Opcode::DmaLoad:
  case Opcode::DmaStore: {
    if (!a0 || !a1 || !a2 || !a3)
      break;
    uint64_t n1 = inst.arg[1], n2 = inst.arg[2], n3 = inst.arg[3];
    LxRegion touched;
    if (inst.lx[2]) {
      // Rows lx[2] bytes apart, each the packed (i1, i2) part.
      UInt128 row = (UInt128)((a1 - 1) * n2 + (a2 - 1)) * n3 + a3;
      touched = region(Opcode(inst.opcode) == Opcode::DmaLoad ? lx[0] : lx[1],
                       a0,
                       row > (UInt128)(UINT64_MAX / 2) ? UINT64_MAX / 2
                                                      : uint64_t(row),
                       inst.lx[2]);
    } else {
      // Packed with the unclamped counts: the last byte of the box.
      UInt128 last =
          ((UInt128)((a0 - 1) * n1 + (a1 - 1)) * n2 + (a2 - 1)) * n3 + a3;
      uint64_t bytes = last > (UInt128)(UINT64_MAX / 2)
                           ? UINT64_MAX / 2
                           : uint64_t(last);
      touched = contiguous(
          Opcode(inst.opcode) == Opcode::DmaLoad ? lx[0] : lx[1], bytes);
    }
    if (Opcode(inst.opcode) == Opcode::DmaLoad)
      write(touched);
    else
      read(touched);
    break;
  }
  case Opcode::DmaGather:
    write(region(lx[0], a0, a3, inst.arg[3]));
    read(contiguous(lx[1], a0 * e1));
    break;
  case Opcode::DmaScatter:
    read(region(lx[1], a0, a3, inst.arg[3]));
    read(contiguous(lx[2], a0 * e2));
    break;
  case Opcode::PtMatmul:
    read(region(lx[1], a0, a1 * e1, p1));
    read(region(lx[2], a1, a2 * e2, p2));
    write(region(lx[0], a0, a2 * e0, p0));
    if (accumulate)
      read(region(lx[0], a0, a2 * e0, p0));
    break;
  case Opcode::SfpUnary:
    read(region(lx[1], a0, bcast0 ? e1 : a1 * e1, p1));
    write(region(lx[0], a0, a1 * e0, p0));
    break;
  case Opcode::SfpBinary:
    read(region(lx[1], a0, bcast0 ? e1 : a1 * e1, p1));
    read(region(lx[2], a0, bcast1 ? e2 : a1 * e2, p2));
    write(region(lx[0], a0, a1 * e0, p0));
    break;
  case Opcode::SfpSelect:
    read(region(lx[1], a0, bcast0 ? e1 : a1 * e1, p1));
    read(region(lx[2], a0, bcast1 ? e2 : a1 * e2, p2));
    read(region(lx[0], a0, a1 * e0, p0));
    write(region(lx[0], a0, a1 * e0, p0));
    break;
  case Opcode::SfpReduce: {
    if (!a0 || !a1)
      break; // nothing to reduce: the destination is untouched
    read(region(lx[1], a0, a1 * e1, p1));
    bool rowsMode = inst.flags & isa::kFlagReduceRows;
    LxRegion dst = rowsMode ? contiguous(lx[0], a1 * e0)
                            : region(lx[0], a0, e0, p0);
    write(dst);
    if (accumulate)
      read(dst);
    bool arg = inst.op == uint16_t(isa::ReduceOp::ArgMax) ||
               inst.op == uint16_t(isa::ReduceOp::ArgMin);
    if (arg && accumulate) {
      LxRegion value = rowsMode ? contiguous(lx[2], a1 * e2)
                                : region(lx[2], a0, e2, p2);
      read(value);
      write(value);
    }
    break;
  }
  case Opcode::SfpTranspose:
    read(region(lx[1], a0, a1 * e1, p1));
    write(region(lx[0], a1, a0 * e1, p0));
    break;
  case Opcode::RingSend:
    read(contiguous(lx[1], a2));
    break;
  case Opcode::RingRecv:
    write(contiguous(lx[0], a2));
    break;
  default:
    break;
  }
}

bool regionsOverlap(const LxRegion &a, const LxRegion &b) {
  if (a.empty() || b.empty())
    return false;
  if (a.end() <= Int128(b.base) || b.end() <= Int128(a.base))
    return false;
  if (a.contiguous() && b.contiguous())
    return true;
  const LxRegion &s = a.rows <= b.rows ? a : b;
  const LxRegion &l = a.rows <= b.rows ? b : a;
  if (s.rows > kExactOverlapRowLimit)
    return true;
  return rowsOverlap(s, l);
}

bool conflicts(const LxAccess &earlier, const LxAccess &later) {
  // RAW: later reads what earlier writes; WAW: both write.
  for (unsigned w = 0; w < earlier.numWrites; ++w) {
    for (unsigned r = 0; r < later.numReads; ++r)
      if (regionsOverlap(earlier.writes[w], later.reads[r]))
        return true;
    for (unsigned v = 0; v < later.numWrites; ++v)
      if (regionsOverlap(earlier.writes[w], later.writes[v]))
        return true;
  }
  // WAR: later writes what earlier reads.
  for (unsigned v = 0; v < later.numWrites; ++v)
    for (unsigned r = 0; r < earlier.numReads; ++r)
      if (regionsOverlap(earlier.reads[r], later.writes[v]))
        return true;
  return false;
}

} // namespace spyre::rt::detail
