//===- SpyDump.cpp - .spy binaries as text --------------------------------===//

#include "spyre/Target/Spy/SpyDump.h"
#include "spyre/ISA/Disassembler.h"
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

} // namespace

namespace {
void printModel(const rt::Model &m, llvm::raw_ostream &os);
} // namespace

bool dumpSpy(const std::string &path, llvm::raw_ostream &os, std::string &error,
             const std::string &weightsFile) {
  std::unique_ptr<rt::Model> model;
  rt::LoadOptions options;
  options.weightsPath = weightsFile;
  rt::Status status = rt::Model::open(path, nullptr, model, options);
  if (!status.ok()) {
    error = status.message();
    return false;
  }
  printModel(*model, os);
  return true;
}

bool dumpSpy(std::vector<uint8_t> bytes, llvm::raw_ostream &os,
             std::string &error, const std::string &weightsFile) {
  std::unique_ptr<rt::Model> model;
  rt::LoadOptions options;
  options.weightsPath = weightsFile;
  rt::Status status =
      rt::Model::fromBuffer(std::move(bytes), nullptr, model, options);
  if (!status.ok()) {
    error = status.message();
    return false;
  }
  printModel(*model, os);
  return true;
}

namespace {
/// The format, architecture, metadata and workspace lines.
void printHeader(const rt::Model &m, llvm::raw_ostream &os) {
  os << "spy format " << m.formatMajor() << "." << m.formatMinor()
     << ", arch \"" << m.metadata().archName << "\" hash "
     << llvm::format_hex(m.archHash(), 18) << "\n";
  os << "metadata: source \"" << m.metadata().sourceModel << "\", compiler \""
     << m.metadata().compilerVersion << "\", pipeline \""
     << m.metadata().pipeline << "\"\n";
  os << "workspace: " << m.workspaceSize() << " bytes\n";
  if (!m.weightsPath().empty())
    os << "weights file: " << m.weightsPath() << "\n";
}

/// The optional fields of a tensor's line, each only where it is set.
void printTensorOptionals(const rt::Model &m, const rt::TensorInfo &t,
                          llvm::raw_ostream &os) {
  if (t.segment >= 0)
    os << " segment=" << t.segment;
  if (t.role == spy::Role::Workspace)
    os << " workspace_offset=" << t.workspaceOffset;
  if (t.aliasesInput >= 0)
    os << " aliases_input=" << t.aliasesInput;
  if (t.updatesTensor >= 0)
    os << " updates=" << t.updatesTensor << " (\""
       << m.tensors()[size_t(t.updatesTensor)].name << "\")";
  if (!t.sourceName.empty())
    os << " source=\"" << t.sourceName << "\"";
}

/// One line of the tensor table.
void printTensor(const rt::Model &m, size_t i, const rt::TensorInfo &t,
                 llvm::raw_ostream &os) {
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
  printTensorOptionals(m, t, os);
  os << "\n";
}

/// Each core's parameter row of a program that has parameters.
void printProgramParams(const rt::ProgramInfo &prog, llvm::raw_ostream &os) {
  if (!prog.numParams)
    return;
  for (uint32_t c = 0; c < prog.numCores; ++c) {
    os << "  core " << c << " params ";
    std::vector<int64_t> row(prog.params.begin() + c * prog.numParams,
                             prog.params.begin() + (c + 1) * prog.numParams);
    printList(os, row);
    os << "\n";
  }
}

/// The relocation of instruction `n` of program `p` as the disassembler
/// shows it ("@tensor+addend(phase)"), or "?" when it has none; the last
/// matching relocation wins.
std::string relocationText(const rt::Model &m, size_t p, uint32_t n) {
  std::string reloc = "?";
  for (const rt::RelocationInfo &r : m.relocations())
    if (r.program == p &&
        r.offset == uint64_t(n) * isa::kInstBytes + isa::kRelocFieldOffset)
      reloc = "@" + m.tensors()[r.tensor].name +
              (r.addend ? "+" + std::to_string(r.addend) : "") + "(" +
              rt::phaseName(r.phase) + ")";
  return reloc;
}

/// The program's instructions, indented by loop depth.
void printInstructions(const rt::Model &m, size_t p,
                       const rt::ProgramInfo &prog, llvm::raw_ostream &os) {
  const uint8_t *image = m.programImage(uint32_t(p));
  unsigned depth = 0;
  for (uint32_t n = 0; n < prog.numInsts; ++n) {
    isa::Inst inst;
    std::memcpy(&inst, image + uint64_t(n) * isa::kInstBytes, sizeof(inst));
    std::string reloc = relocationText(m, p, n);
    if (inst.opcode == uint16_t(isa::Opcode::EndLoop) && depth)
      --depth;
    os << "  " << llvm::format_decimal(n, 3) << ": "
       << std::string(2 * depth, ' ');
    os << isa::disassemble(inst, reloc) << "\n";
    if (inst.opcode == uint16_t(isa::Opcode::Loop))
      ++depth;
  }
}

/// "%2 = matmul(%0, %1) : f32 [4, 32]  // basic.py:3 (mm)"
void printRefOp(const spy::RefOpDesc &op, size_t value, llvm::raw_ostream &os) {
  os << "    %" << value << " = " << spy::refOpName(op) << "(";
  llvm::interleaveComma(op.operands, os, [&](uint32_t v) { os << '%' << v; });
  os << ") : " << isa::dtypeName(uint8_t(op.dtype)) << " [";
  llvm::interleaveComma(op.shape, os);
  os << "]";
  if (!op.ints.empty()) {
    os << " {";
    llvm::interleaveComma(op.ints, os);
    os << "}";
  }
  if (!op.location.empty())
    os << "  // " << op.location;
  os << "\n";
}

/// What the program computes (spyre-run --check): its kernel's compute ops.
void printReference(const rt::Model &m, const rt::ProgramInfo &prog,
                    llvm::raw_ostream &os) {
  if (!prog.reference)
    return;
  const spy::KernelReferenceDesc &ref = *prog.reference;
  auto values = [&](const std::vector<spy::RefValueDesc> &list) {
    llvm::interleaveComma(list, os, [&](const spy::RefValueDesc &v) {
      os << '\'' << m.tensors()[v.tensor].name << "' [";
      llvm::interleaveComma(v.shape, os);
      os << ']';
    });
  };
  os << "  reference (";
  values(ref.inputs);
  os << ") -> (";
  values(ref.results);
  os << ")\n";
  for (auto [i, op] : llvm::enumerate(ref.ops))
    printRefOp(op, ref.inputs.size() + i, os);
  os << "    yield";
  for (uint32_t y : ref.yields)
    os << " %" << y;
  os << "\n";
}

/// A program's summary line, parameters and instructions.
void printProgram(const rt::Model &m, size_t p, const rt::ProgramInfo &prog,
                  llvm::raw_ostream &os) {
  os << "program " << p << " \"" << prog.name << "\": cores " << prog.numCores
     << ", params " << prog.numParams << ", instructions " << prog.numInsts
     << ", segment " << prog.codeSegment << "\n";
  printProgramParams(prog, os);
  printInstructions(m, p, prog, os);
  printReference(m, prog, os);
}

/// Every table and every instruction of a validated model.
void printModel(const rt::Model &m, llvm::raw_ostream &os) {
  printHeader(m, os);
  for (auto [i, t] : llvm::enumerate(m.tensors()))
    printTensor(m, i, t, os);
  for (auto [i, s] : llvm::enumerate(m.segments()))
    os << "segment " << i << ": offset " << s.offset << " bytes " << s.size
       << " align " << s.alignment << (s.external ? " in the weights file" : "")
       << "\n";
  for (auto [p, prog] : llvm::enumerate(m.programs()))
    printProgram(m, p, prog, os);
  os << "plan:";
  for (uint32_t p : m.plan())
    os << ' ' << m.programs()[p].name;
  os << "\n";
  for (const std::string &w : m.warnings())
    os << "warning: " << w << "\n";
}
} // namespace

} // namespace spyre
