//===- SpyDump.cpp - .spy binaries as text --------------------------------===//

#include "spyre/Target/Spy/SpyDump.h"
#include "spyre/ISA/ISA.h"
#include "spyre/Runtime/Model.h"

#include "llvm/Support/Format.h"

#include <cstring>

namespace spyre {

namespace {

template <typename Range>
void printList(llvm::raw_ostream &os, const Range &values) {
  os << '[';
  bool first = true;
  for (const auto &v : values) {
    if (!first)
      os << ", ";
    os << v;
    first = false;
  }
  os << ']';
}

void printLx(llvm::raw_ostream &os, const isa::Inst &inst, unsigned slot,
             const char *name) {
  os << ' ' << name << "=lx:" << inst.lx[slot];
  const int32_t *s = inst.lxLoopStride[slot];
  if (s[0] || s[1] || s[2])
    os << "+iv*[" << s[0] << ", " << s[1] << ", " << s[2] << ']';
  if (inst.lxWrap[slot])
    os << "%" << inst.lxWrap[slot];
}

void printClamp(llvm::raw_ostream &os, const isa::Inst &inst) {
  if (inst.clampLevel == isa::kNone)
    return;
  os << " clamp(arg" << (inst.clampLevel >> 4) << ", level "
     << (inst.clampLevel & 0xf) << ", step " << inst.clampStep << ", total "
     << inst.clampTotal;
  if (inst.clampParam != isa::kNone)
    os << ", start=p" << unsigned(inst.clampParam);
  os << ')';
}

void printTypes(llvm::raw_ostream &os, const isa::Inst &inst, unsigned n) {
  os << " types=";
  for (unsigned i = 0; i < n; ++i)
    os << (i ? "," : "") << isa::dtypeName(inst.dtype[i]);
}

void printInst(llvm::raw_ostream &os, const isa::Inst &inst,
               const std::string &reloc) {
  auto op = isa::Opcode(inst.opcode);
  os << isa::opcodeName(inst.opcode);
  switch (op) {
  case isa::Opcode::Loop:
    if (inst.countParam != isa::kNone)
      os << " count=p" << unsigned(inst.countParam);
    else
      os << " count=" << inst.arg[0];
    break;
  case isa::Opcode::DmaGather:
  case isa::Opcode::DmaScatter: {
    bool gather = op == isa::Opcode::DmaGather;
    os << " mem=" << reloc;
    if (inst.memParam != isa::kNone)
      os << "+p" << unsigned(inst.memParam);
    printLx(os, inst, gather ? 0 : 1, "lx");
    printLx(os, inst, gather ? 1 : 2, "indices");
    os << " index_type=" << isa::dtypeName(inst.dtype[gather ? 1 : 2])
       << " rows=" << inst.arg[0] << " table_rows=" << inst.arg[1]
       << " row_pitch=" << inst.pitch[0] << " run=" << inst.arg[3];
    break;
  }
  case isa::Opcode::DmaLoad:
  case isa::Opcode::DmaStore: {
    os << " mem=" << reloc;
    if (inst.memAddr)
      os << "+" << inst.memAddr;
    if (inst.memParam != isa::kNone)
      os << "+p" << unsigned(inst.memParam);
    const int32_t *s = inst.memLoopStride;
    if (s[0] || s[1] || s[2])
      os << "+iv*[" << s[0] << ", " << s[1] << ", " << s[2] << ']';
    printLx(os, inst, op == isa::Opcode::DmaStore ? 1 : 0, "lx");
    os << " box=[" << inst.arg[0] << ", " << inst.arg[1] << ", "
       << inst.arg[2] << "] pitch=[" << inst.pitch[0] << ", " << inst.pitch[1]
       << ", " << inst.pitch[2] << "] run=" << inst.arg[3];
    if (inst.lx[2])
      os << " lx_pitch=" << inst.lx[2];
    if (inst.flags & isa::kFlagMulticast)
      os << " multicast";
    break;
  }
  case isa::Opcode::PtMatmul:
    printLx(os, inst, 0, "dst");
    printLx(os, inst, 1, "lhs");
    printLx(os, inst, 2, "rhs");
    os << " m=" << inst.arg[0] << " k=" << inst.arg[1] << " n=" << inst.arg[2]
       << " pitch=[" << inst.pitch[0] << ", " << inst.pitch[1] << ", "
       << inst.pitch[2] << ']';
    printTypes(os, inst, 3);
    if (inst.flags & isa::kFlagAccumulate) {
      os << " accumulate";
      if (inst.arg[3] != isa::kNone)
        os << "(init level " << inst.arg[3] << ')';
    }
    break;
  case isa::Opcode::SfpUnary:
  case isa::Opcode::SfpBinary:
  case isa::Opcode::SfpSelect:
  case isa::Opcode::SfpReduce:
  case isa::Opcode::SfpTranspose: {
    if (op == isa::Opcode::SfpUnary)
      os << ' ' << isa::unaryOpName(inst.op);
    else if (op == isa::Opcode::SfpBinary)
      os << ' ' << isa::binaryOpName(inst.op);
    else if (op == isa::Opcode::SfpReduce)
      os << ' ' << isa::reduceOpName(inst.op);
    bool two = op == isa::Opcode::SfpBinary || op == isa::Opcode::SfpSelect;
    printLx(os, inst, 0, "dst");
    printLx(os, inst, 1, "src0");
    if (two)
      printLx(os, inst, 2, "src1");
    os << " rows=" << inst.arg[0] << " cols=" << inst.arg[1] << " pitch=["
       << inst.pitch[0] << ", " << inst.pitch[1] << ", " << inst.pitch[2]
       << ']';
    printTypes(os, inst, two ? 3 : 2);
    if (inst.flags & isa::kFlagBcastCol0)
      os << " bcast_col0";
    if (inst.flags & isa::kFlagBcastCol1)
      os << " bcast_col1";
    if (inst.flags & isa::kFlagReduceRows)
      os << " rows_reduction";
    if (inst.flags & isa::kFlagAccumulate)
      os << " accumulate";
    break;
  }
  case isa::Opcode::RingSend:
  case isa::Opcode::RingRecv:
    printLx(os, inst, op == isa::Opcode::RingSend ? 1 : 0, "lx");
    os << " peer=" << inst.arg[0] << " tag=" << inst.arg[1]
       << " bytes=" << inst.arg[2];
    break;
  default:
    break;
  }
  printClamp(os, inst);
}

} // namespace

namespace {
void printModel(const rt::Model &m, llvm::raw_ostream &os);
} // namespace

bool dumpSpy(const std::string &path, llvm::raw_ostream &os,
             std::string &error) {
  std::unique_ptr<rt::Model> model;
  rt::Status status = rt::Model::open(path, nullptr, model);
  if (!status.ok()) {
    error = status.message();
    return false;
  }
  printModel(*model, os);
  return true;
}

bool dumpSpy(std::vector<uint8_t> bytes, llvm::raw_ostream &os,
             std::string &error) {
  std::unique_ptr<rt::Model> model;
  rt::Status status = rt::Model::fromBuffer(std::move(bytes), nullptr, model);
  if (!status.ok()) {
    error = status.message();
    return false;
  }
  printModel(*model, os);
  return true;
}

namespace {
/// Every table and every instruction of a validated model.
void printModel(const rt::Model &m, llvm::raw_ostream &os) {
  os << "spy format " << m.formatMajor() << "." << m.formatMinor()
     << ", arch \"" << m.metadata().archName << "\" hash "
     << llvm::format_hex(m.archHash(), 18) << "\n";
  os << "metadata: source \"" << m.metadata().sourceModel << "\", compiler \""
     << m.metadata().compilerVersion << "\", pipeline \""
     << m.metadata().pipeline << "\"\n";
  os << "workspace: " << m.workspaceSize() << " bytes\n";
  for (auto [i, t] : llvm::enumerate(m.tensors())) {
    os << "tensor " << i << " \"" << t.name << "\": " << rt::roleName(t.role);
    if (t.ioIndex >= 0)
      os << " #" << t.ioIndex;
    os << ' ' << isa::dtypeName(uint8_t(t.dtype)) << ' ';
    printList(os, t.shape);
    os << " stick_dim=" << t.layout.stickDim << " dim_order=";
    printList(os, t.layout.dimOrder);
    os << " device_shape=";
    printList(os, t.layout.deviceShape);
    os << " bytes=" << t.size;
    if (t.segment >= 0)
      os << " segment=" << t.segment;
    if (t.role == spy::Role::Workspace)
      os << " workspace_offset=" << t.workspaceOffset;
    if (t.aliasesInput >= 0)
      os << " aliases_input=" << t.aliasesInput;
    if (t.updatesTensor >= 0)
      os << " updates=" << t.updatesTensor << " (\""
         << m.tensors()[size_t(t.updatesTensor)].name << "\")";
    os << "\n";
  }
  for (auto [i, s] : llvm::enumerate(m.segments()))
    os << "segment " << i << ": offset " << s.offset << " bytes " << s.size
       << " align " << s.alignment << "\n";
  for (auto [p, prog] : llvm::enumerate(m.programs())) {
    os << "program " << p << " \"" << prog.name << "\": cores "
       << prog.numCores << ", params " << prog.numParams << ", instructions "
       << prog.numInsts << ", segment " << prog.codeSegment << "\n";
    if (prog.numParams) {
      for (uint32_t c = 0; c < prog.numCores; ++c) {
        os << "  core " << c << " params ";
        std::vector<int64_t> row(prog.params.begin() + c * prog.numParams,
                                 prog.params.begin() + (c + 1) * prog.numParams);
        printList(os, row);
        os << "\n";
      }
    }
    const uint8_t *image = m.programImage(uint32_t(p));
    unsigned depth = 0;
    for (uint32_t n = 0; n < prog.numInsts; ++n) {
      isa::Inst inst;
      std::memcpy(&inst, image + uint64_t(n) * isa::kInstBytes, sizeof(inst));
      std::string reloc = "?";
      for (const rt::RelocationInfo &r : m.relocations())
        if (r.program == p && r.offset == uint64_t(n) * isa::kInstBytes +
                                              isa::kRelocFieldOffset)
          reloc = "@" + m.tensors()[r.tensor].name +
                  (r.addend ? "+" + std::to_string(r.addend) : "") + "(" +
                  rt::phaseName(r.phase) + ")";
      if (inst.opcode == uint16_t(isa::Opcode::EndLoop) && depth)
        --depth;
      os << "  " << llvm::format_decimal(n, 3) << ": "
         << std::string(2 * depth, ' ');
      printInst(os, inst, reloc);
      os << "\n";
      if (inst.opcode == uint16_t(isa::Opcode::Loop))
        ++depth;
    }
  }
  os << "plan:";
  for (uint32_t p : m.plan())
    os << ' ' << m.programs()[p].name;
  os << "\n";
  for (const std::string &w : m.warnings())
    os << "warning: " << w << "\n";
}
} // namespace

} // namespace spyre
