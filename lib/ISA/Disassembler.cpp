//===- Disassembler.cpp - Instructions as text ----------------------------===//

#include "spyre/ISA/Disassembler.h"

#include <type_traits>

namespace spyre::isa {

namespace {

/// A line of text built with <<; integers print in decimal.
class Line {
public:
  Line &operator<<(const char *text) {
    text_ += text;
    return *this;
  }
  Line &operator<<(const std::string &text) {
    text_ += text;
    return *this;
  }
  Line &operator<<(char c) {
    text_ += c;
    return *this;
  }
  template <typename Int, typename = std::enable_if_t<std::is_integral_v<Int>>>
  Line &operator<<(Int value) {
    text_ += std::to_string(value);
    return *this;
  }
  std::string take() { return std::move(text_); }

private:
  std::string text_;
};

/// "[a, b, c]"
template <typename T> std::string triple(const T (&v)[3]) {
  return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " +
         std::to_string(v[2]) + "]";
}

/// " name=lx:offset", its loop strides and wrap.
void printLx(Line &out, const Inst &inst, unsigned slot, const char *name) {
  out << ' ' << name << "=lx:" << inst.lx[slot];
  const int32_t (&s)[3] = inst.lxLoopStride[slot];
  if (s[0] || s[1] || s[2])
    out << "+iv*" << triple(s);
  if (inst.lxWrap[slot])
    out << '%' << inst.lxWrap[slot];
}

/// " types=a,b[,c]"
void printTypes(Line &out, const Inst &inst, unsigned n) {
  out << " types=";
  for (unsigned i = 0; i < n; ++i)
    out << (i ? "," : "") << dtypeName(inst.dtype[i]);
}

/// The base of a DMA's device address and the memParam added to it.
void printMem(Line &out, const Inst &inst, const std::string &memBase) {
  out << " mem=" << memBase;
  if (Opcode(inst.opcode) == Opcode::DmaLoad ||
      Opcode(inst.opcode) == Opcode::DmaStore) {
    if (inst.memAddr)
      out << '+' << inst.memAddr;
  }
  if (inst.memParam != kNone)
    out << "+p" << unsigned(inst.memParam);
}

void printLoop(Line &out, const Inst &inst, const std::string &) {
  if (inst.countParam != kNone)
    out << " count=p" << unsigned(inst.countParam);
  else
    out << " count=" << inst.arg[0];
  if (int32_t step = int32_t(inst.arg[1]))
    out << '+' << step << "*iv" << inst.arg[2];
}

void printDmaBox(Line &out, const Inst &inst, const std::string &memBase) {
  printMem(out, inst, memBase);
  const int32_t (&s)[3] = inst.memLoopStride;
  if (s[0] || s[1] || s[2])
    out << "+iv*" << triple(s);
  bool store = Opcode(inst.opcode) == Opcode::DmaStore;
  printLx(out, inst, store ? 1 : 0, "lx");
  out << " box=[" << inst.arg[0] << ", " << inst.arg[1] << ", " << inst.arg[2]
      << "] pitch=" << triple(inst.pitch) << " run=" << inst.arg[3];
  if (inst.lx[2])
    out << " lx_pitch=" << inst.lx[2];
  if (inst.flags & kFlagMulticast)
    out << " multicast";
}

void printDmaRows(Line &out, const Inst &inst, const std::string &memBase) {
  bool gather = Opcode(inst.opcode) == Opcode::DmaGather;
  printMem(out, inst, memBase);
  printLx(out, inst, gather ? 0 : 1, "lx");
  printLx(out, inst, gather ? 1 : 2, "indices");
  out << " index_type=" << dtypeName(inst.dtype[gather ? 1 : 2])
      << " rows=" << inst.arg[0] << " table_rows=" << inst.arg[1]
      << " row_pitch=" << inst.pitch[0] << " run=" << inst.arg[3];
}

void printMatmul(Line &out, const Inst &inst, const std::string &) {
  printLx(out, inst, 0, "dst");
  printLx(out, inst, 1, "lhs");
  printLx(out, inst, 2, "rhs");
  out << " m=" << inst.arg[0] << " k=" << inst.arg[1] << " n=" << inst.arg[2]
      << " pitch=" << triple(inst.pitch);
  printTypes(out, inst, 3);
  if (!(inst.flags & kFlagAccumulate))
    return;
  out << " accumulate";
  if (inst.arg[3] != kNone)
    out << "(init level " << inst.arg[3] << ')';
}

/// The flags an SFP instruction prints, in order.
struct FlagName {
  uint8_t flag;
  const char *text;
};
constexpr FlagName kSfpFlags[] = {
    {kFlagBcastCol0, " bcast_col0"},
    {kFlagBcastCol1, " bcast_col1"},
    {kFlagReduceRows, " rows_reduction"},
    {kFlagAccumulate, " accumulate"},
};

void printSfp(Line &out, const Inst &inst, const std::string &) {
  Opcode op = Opcode(inst.opcode);
  bool two = op == Opcode::SfpBinary || op == Opcode::SfpSelect;
  printLx(out, inst, 0, "dst");
  printLx(out, inst, 1, "src0");
  if (two)
    printLx(out, inst, 2, "src1");
  out << " rows=" << inst.arg[0] << " cols=" << inst.arg[1]
      << " pitch=" << triple(inst.pitch);
  printTypes(out, inst, two ? 3 : 2);
  for (const FlagName &f : kSfpFlags)
    if (inst.flags & f.flag)
      out << f.text;
}

void printRing(Line &out, const Inst &inst, const std::string &) {
  bool send = Opcode(inst.opcode) == Opcode::RingSend;
  printLx(out, inst, send ? 1 : 0, "lx");
  out << " peer=" << inst.arg[0];
  if (inst.memParam != kNone) // peer = arg[0] + P(memParam)
    out << "+p" << unsigned(inst.memParam);
  out << " tag=" << inst.arg[1] << " bytes=" << inst.arg[2];
  if (inst.flags & kFlagPartialSum)
    out << " partial_sum";
  if (inst.flags & kFlagAccumulate)
    out << " accumulate";
}

void printClamp(Line &out, const Inst &inst) {
  if (inst.clampLevel == kNone)
    return;
  out << " clamp(arg" << (inst.clampLevel >> 4) << ", level ";
  if (unsigned level = inst.clampLevel & 0xf; level == 0xf)
    out << "none";
  else
    out << level;
  out << ", step " << inst.clampStep << ", total " << inst.clampTotal;
  if (inst.clampParam != kNone)
    out << ", start=p" << unsigned(inst.clampParam);
  out << ')';
}

/// The operands of each opcode (none for nop and endloop), by opcode.
using OperandPrinter = void (*)(Line &, const Inst &, const std::string &);
constexpr OperandPrinter kOperandPrinters[] = {
    nullptr,     printLoop, nullptr,  printDmaBox,  printDmaBox,
    printMatmul, printSfp,  printSfp, printSfp,     printSfp,
    printRing,   printRing, printSfp, printDmaRows, printDmaRows};
static_assert(sizeof(kOperandPrinters) / sizeof(kOperandPrinters[0]) ==
                  size_t(Opcode::LastOpcode) + 1,
              "every opcode has an entry");

} // namespace

std::string instName(const Inst &inst) {
  std::string name = opcodeName(inst.opcode);
  switch (Opcode(inst.opcode)) {
  case Opcode::SfpUnary:
    return name + ' ' + unaryOpName(inst.op);
  case Opcode::SfpBinary:
    return name + ' ' + binaryOpName(inst.op);
  case Opcode::SfpReduce:
    return name + ' ' + reduceOpName(inst.op);
  default:
    return name;
  }
}

std::string disassemble(const Inst &inst, const std::string &memBase) {
  Line out;
  out << instName(inst);
  if (inst.opcode <= uint16_t(Opcode::LastOpcode))
    if (OperandPrinter print = kOperandPrinters[inst.opcode])
      print(out, inst, memBase);
  printClamp(out, inst);
  return out.take();
}

} // namespace spyre::isa
