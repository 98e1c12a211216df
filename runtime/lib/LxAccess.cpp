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

/// An instruction's operands as the access functions below read them:
/// element bytes, row pitches and effective args and LX addresses.
struct Operands {
  const isa::Inst &inst;
  const int64_t *lx;
  uint64_t e0, e1, e2;
  uint64_t p0, p1, p2;
  uint64_t a0, a1, a2, a3;
  bool bcast0, bcast1, accumulate;

  Operands(const isa::Inst &inst, const uint32_t args[4], const int64_t lx[3])
      : inst(inst), lx(lx), e0(elemBytes(inst.dtype[0])),
        e1(elemBytes(inst.dtype[1])), e2(elemBytes(inst.dtype[2])),
        p0(uint64_t(uint32_t(inst.pitch[0]))),
        p1(uint64_t(uint32_t(inst.pitch[1]))),
        p2(uint64_t(uint32_t(inst.pitch[2]))), a0(args[0]), a1(args[1]),
        a2(args[2]), a3(args[3]), bcast0(inst.flags & isa::kFlagBcastCol0),
        bcast1(inst.flags & isa::kFlagBcastCol1),
        accumulate(inst.flags & isa::kFlagAccumulate) {}

  /// Source operand `o` (1 or 2) of an elementwise op: a0 rows of a1
  /// elements, or of one element when broadcast.
  LxRegion elementwiseSource(unsigned o) const {
    bool bcast = o == 1 ? bcast0 : bcast1;
    uint64_t e = o == 1 ? e1 : e2;
    return region(lx[o], a0, bcast ? e : a1 * e, o == 1 ? p1 : p2);
  }
  /// The destination of an elementwise op.
  LxRegion elementwiseDestination() const {
    return region(lx[0], a0, a1 * e0, p0);
  }
};

/// Adds the non-empty regions to an LxAccess.
struct Recorder {
  LxAccess &out;
  void read(const LxRegion &r) {
    if (!r.empty())
      out.reads[out.numReads++] = r;
  }
  void write(const LxRegion &r) {
    if (!r.empty())
      out.writes[out.numWrites++] = r;
  }
};

/// Saturates a byte count far beyond any scratchpad.
uint64_t clampBytes(UInt128 bytes) {
  return bytes > (UInt128)(UINT64_MAX / 2) ? UINT64_MAX / 2 : uint64_t(bytes);
}

void dmaBoxAccess(const Operands &x, Recorder &rec) {
  const isa::Inst &inst = x.inst;
  if (!x.a0 || !x.a1 || !x.a2 || !x.a3)
    return;
  bool load = Opcode(inst.opcode) == Opcode::DmaLoad;
  int64_t base = load ? x.lx[0] : x.lx[1];
  uint64_t n1 = inst.arg[1], n2 = inst.arg[2], n3 = inst.arg[3];
  LxRegion touched;
  if (inst.lx[2]) {
    // Rows lx[2] bytes apart, each the packed (i1, i2) part.
    UInt128 row = (UInt128)((x.a1 - 1) * n2 + (x.a2 - 1)) * n3 + x.a3;
    touched = region(base, x.a0, clampBytes(row), inst.lx[2]);
  } else {
    // Packed with the unclamped counts: the last byte of the box.
    UInt128 last =
        ((UInt128)((x.a0 - 1) * n1 + (x.a1 - 1)) * n2 + (x.a2 - 1)) * n3 + x.a3;
    touched = contiguous(base, clampBytes(last));
  }
  if (load)
    rec.write(touched);
  else
    rec.read(touched);
}

void gatherAccess(const Operands &x, Recorder &rec) {
  rec.write(region(x.lx[0], x.a0, x.a3, x.inst.arg[3]));
  rec.read(contiguous(x.lx[1], x.a0 * x.e1));
}

void scatterAccess(const Operands &x, Recorder &rec) {
  rec.read(region(x.lx[1], x.a0, x.a3, x.inst.arg[3]));
  rec.read(contiguous(x.lx[2], x.a0 * x.e2));
}

void matmulAccess(const Operands &x, Recorder &rec) {
  rec.read(region(x.lx[1], x.a0, x.a1 * x.e1, x.p1));
  rec.read(region(x.lx[2], x.a1, x.a2 * x.e2, x.p2));
  rec.write(region(x.lx[0], x.a0, x.a2 * x.e0, x.p0));
  if (x.accumulate)
    rec.read(region(x.lx[0], x.a0, x.a2 * x.e0, x.p0));
}

void unaryAccess(const Operands &x, Recorder &rec) {
  rec.read(x.elementwiseSource(1));
  rec.write(x.elementwiseDestination());
}

void binaryAccess(const Operands &x, Recorder &rec) {
  rec.read(x.elementwiseSource(1));
  rec.read(x.elementwiseSource(2));
  rec.write(x.elementwiseDestination());
}

void selectAccess(const Operands &x, Recorder &rec) {
  rec.read(x.elementwiseSource(1));
  rec.read(x.elementwiseSource(2));
  rec.read(x.elementwiseDestination());
  rec.write(x.elementwiseDestination());
}

void reduceAccess(const Operands &x, Recorder &rec) {
  if (!x.a0 || !x.a1)
    return; // nothing to reduce: the destination is untouched
  const isa::Inst &inst = x.inst;
  rec.read(region(x.lx[1], x.a0, x.a1 * x.e1, x.p1));
  bool rowsMode = inst.flags & isa::kFlagReduceRows;
  LxRegion dst = rowsMode ? contiguous(x.lx[0], x.a1 * x.e0)
                          : region(x.lx[0], x.a0, x.e0, x.p0);
  rec.write(dst);
  if (x.accumulate)
    rec.read(dst);
  bool arg = inst.op == uint16_t(isa::ReduceOp::ArgMax) ||
             inst.op == uint16_t(isa::ReduceOp::ArgMin);
  if (!arg || !x.accumulate)
    return;
  LxRegion value = rowsMode ? contiguous(x.lx[2], x.a1 * x.e2)
                            : region(x.lx[2], x.a0, x.e2, x.p2);
  rec.read(value);
  rec.write(value);
}

void transposeAccess(const Operands &x, Recorder &rec) {
  rec.read(region(x.lx[1], x.a0, x.a1 * x.e1, x.p1));
  rec.write(region(x.lx[0], x.a1, x.a0 * x.e1, x.p0));
}

void sendAccess(const Operands &x, Recorder &rec) {
  rec.read(contiguous(x.lx[1], x.a2));
}

void recvAccess(const Operands &x, Recorder &rec) {
  rec.write(contiguous(x.lx[0], x.a2));
  // Partial sums add to what the destination holds.
  if (x.accumulate)
    rec.read(contiguous(x.lx[0], x.a2));
}

/// The LX access of each opcode (none for loops and nops), by opcode.
using AccessFn = void (*)(const Operands &, Recorder &);
constexpr AccessFn kAccessByOpcode[] = {
    nullptr,      nullptr,     nullptr,         dmaBoxAccess, dmaBoxAccess,
    matmulAccess, unaryAccess, binaryAccess,    selectAccess, reduceAccess,
    sendAccess,   recvAccess,  transposeAccess, gatherAccess, scatterAccess};
static_assert(sizeof(kAccessByOpcode) / sizeof(kAccessByOpcode[0]) ==
                  size_t(Opcode::LastOpcode) + 1,
              "every opcode has an entry");

/// A reduction uses lx[0] and lx[1]; an accumulating arg-max or arg-min
/// also carries the running value in lx[2].
unsigned reduceLxOperands(const isa::Inst &inst) {
  bool argAcc = (inst.op == uint16_t(isa::ReduceOp::ArgMax) ||
                 inst.op == uint16_t(isa::ReduceOp::ArgMin)) &&
                (inst.flags & isa::kFlagAccumulate);
  return (1u << 0) | (1u << 1) | (argAcc ? (1u << 2) : 0);
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
  case Opcode::SfpReduce:
    return reduceLxOperands(inst);
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
  if (inst.opcode > uint16_t(Opcode::LastOpcode))
    return;
  if (AccessFn access = kAccessByOpcode[inst.opcode]) {
    Recorder rec{out};
    access(Operands(inst, args, lx), rec);
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
