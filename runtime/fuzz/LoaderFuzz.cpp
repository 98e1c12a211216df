//===- LoaderFuzz.cpp - Fuzzing the .spy loader ---------------------------===//

#include "LoaderFuzz.h"
#include "ReferenceEval.h"
#include "ReferenceReader.h"

#include "spyre/Arch/Arch.h"
#include "spyre/Runtime/Model.h"
#include "spyre/Runtime/Session.h"
#include "spyre/Runtime/SimulatorDevice.h"
#include "spyre/Spy/SpyFormat.h"
#include "spyre/Spy/SpyWriter.h"
#include "spyre/Spy/WeightsFile.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace spyre::fuzz {

using isa::DType;
using isa::Inst;
using isa::Opcode;
using spy::Role;

namespace {

void check(bool condition, const char *what) {
  if (!condition) {
    std::fprintf(stderr, "loader fuzz target: %s\n", what);
    std::abort();
  }
}

spy::TensorDesc tensor(const char *name, Role role, int32_t io, DType dtype,
                       std::vector<int64_t> shape, const Arch &arch) {
  spy::TensorDesc t;
  t.name = name;
  t.role = role;
  t.ioIndex = io;
  t.dtype = dtype;
  t.shape = shape;
  std::string error;
  int32_t stickDim = shape.empty() ? -1 : int32_t(shape.size() - 1);
  check(spy::TensorLayout::make(dtype, shape, stickDim, arch.stickBytes,
                                t.layout, error),
        "seed layout");
  return t;
}

/// Row copy of `rows` rows of `rowBytes` between device and LX.
Inst dma(Opcode op, uint32_t lx, uint32_t rows, uint32_t rowBytes,
         int32_t pitch) {
  Inst i = isa::makeInst(op);
  i.lx[op == Opcode::DmaStore ? 1 : 0] = lx;
  i.arg[0] = rows;
  i.arg[1] = 1;
  i.arg[2] = 1;
  i.arg[3] = rowBytes;
  i.pitch[0] = pitch;
  return i;
}

/// A matmul kernel on two cores splitting the rows, in a loop, with a clamp,
/// parameters, a workspace round trip and every relocation phase.
/// The weight of matmulSeed.
std::vector<uint8_t> matmulWeight() {
  std::vector<uint8_t> weights(64 * 128);
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = uint8_t(i * 7);
  return weights;
}

/// Where the weights file of the external-weight seed is (an absolute path,
/// so that models read from memory find it), written by
/// writeSeedWeightsFile.
std::string seedWeightsPath() {
  const char *tmp = std::getenv("TMPDIR");
  return std::string(tmp && tmp[0] == '/' ? tmp : "/tmp") +
         "/spyre-fuzz-loader-seed.spyw";
}

/// Writes the weights file of the external-weight seed; its index.
spy::WeightsIndex writeSeedWeightsFile() {
  std::vector<spy::WeightsImage> images = {
      spy::memoryImage(/*sourceKey=*/1, matmulWeight())};
  spy::WeightsIndex index;
  std::string error;
  check(spy::writeWeightsFile(seedWeightsPath(), images, 1, index, error),
        "cannot write the seed weights file");
  return index;
}

/// A matmul over two cores; with `external`, its weight is in the weights
/// file (format 3.0).
std::vector<uint8_t> matmulSeed(bool external) {
  const Arch &arch = Arch::builtinDefault();
  spy::SpyWriter w(arch);
  uint32_t x =
      w.addTensor(tensor("x", Role::Input, 0, DType::F16, {8, 64}, arch));
  uint32_t wt =
      w.addTensor(tensor("w", Role::Weight, -1, DType::F16, {64, 64}, arch));
  uint32_t y =
      w.addTensor(tensor("y", Role::Output, 0, DType::F32, {8, 64}, arch));
  spy::TensorDesc tmp =
      tensor("t", Role::Workspace, -1, DType::F32, {8, 64}, arch);
  tmp.workspaceOffset = 0;
  uint32_t t = w.addTensor(tmp);
  w.setWorkspaceSize(4096);
  if (external) {
    spy::WeightsIndex index = writeSeedWeightsFile();
    const spy::WeightsEntry &e = index.entries.at(0);
    w.setExternalTensorData(wt, {e.offset, e.size, e.digest});
    w.setWeightsFile(seedWeightsPath(), index.key, index.dataSize);
  } else {
    w.setTensorData(wt, matmulWeight());
  }

  spy::ProgramDesc p;
  p.name = "matmul";
  p.location = "seed.py:1";
  p.numCores = 2;
  p.numParams = 2;
  p.params = {0, 0, 512, 4};
  std::vector<Inst> &code = p.insts;
  Inst loop = isa::makeInst(Opcode::Loop);
  loop.arg[0] = 2;
  code.push_back(loop);
  Inst lx = dma(Opcode::DmaLoad, 0, 4, 128, 128);
  lx.memParam = 0;
  lx.clampLevel = isa::clampSelector(0, 0);
  lx.clampParam = 1;
  lx.clampStep = 1;
  lx.clampTotal = 8;
  code.push_back(lx);
  code.push_back(dma(Opcode::DmaLoad, 4096, 64, 128, 128));
  Inst mm = isa::makeInst(Opcode::PtMatmul);
  mm.dtype[0] = uint8_t(DType::F32);
  mm.dtype[1] = uint8_t(DType::F16);
  mm.dtype[2] = uint8_t(DType::F16);
  mm.lx[0] = 16384;
  mm.lx[1] = 0;
  mm.lx[2] = 4096;
  mm.pitch[0] = 256;
  mm.pitch[1] = 128;
  mm.pitch[2] = 128;
  mm.arg[0] = 4;
  mm.arg[1] = 64;
  mm.arg[2] = 64;
  mm.arg[3] = isa::kNone;
  code.push_back(mm);
  Inst st = dma(Opcode::DmaStore, 16384, 4, 256, 256);
  st.memParam = 0;
  code.push_back(st);
  Inst wst = dma(Opcode::DmaStore, 16384, 4, 256, 256);
  code.push_back(wst);
  code.push_back(isa::makeInst(Opcode::EndLoop));
  // What it computes (spyre-run --check): y and t are x @ w.
  spy::KernelReferenceDesc ref;
  ref.inputs = {{x, {8, 64}}, {wt, {64, 64}}};
  ref.results = {{y, {8, 64}}, {t, {8, 64}}};
  spy::RefOpDesc mmRef;
  mmRef.kind = spy::RefKind::Matmul;
  mmRef.operands = {0, 1};
  mmRef.dtype = DType::F32;
  mmRef.shape = {8, 64};
  mmRef.ints = {0, 0};
  mmRef.location = "seed.py:1 (mm)";
  ref.ops.push_back(mmRef);
  ref.yields = {2, 2};
  p.reference = std::move(ref);
  uint32_t prog = w.addProgram(p);
  // Core 1 handles rows 4..7: its byte offsets differ per tensor, so the
  // parameter table holds the x offset; y uses the same slot scaled.
  w.addRelocation(prog, 1, x);
  w.addRelocation(prog, 2, wt);
  w.addRelocation(prog, 4, y);
  w.addRelocation(prog, 5, t);
  w.addStep(prog);
  w.addStep(prog);
  w.setMetadata("seed", "fuzz", "none");
  std::vector<uint8_t> out;
  std::string error;
  check(w.writeToBuffer(out, error), "seed write");
  return out;
}

/// SFP ops and a ring exchange between two cores.
std::vector<uint8_t> sfpRingSeed() {
  const Arch &arch = Arch::builtinDefault();
  spy::SpyWriter w(arch);
  uint32_t x =
      w.addTensor(tensor("x", Role::Input, 0, DType::F32, {2, 32}, arch));
  uint32_t c =
      w.addTensor(tensor("c", Role::Constant, -1, DType::F32, {1, 32}, arch));
  uint32_t y =
      w.addTensor(tensor("y", Role::Output, 0, DType::F32, {2, 32}, arch));
  std::vector<uint8_t> ones(128);
  for (size_t i = 0; i < 32; ++i) {
    float f = 1.0f;
    std::memcpy(ones.data() + 4 * i, &f, 4);
  }
  w.setTensorData(c, ones);
  spy::ProgramDesc p;
  p.name = "sfp_ring";
  p.numCores = 2;
  p.numParams = 2;
  p.params = {0, 1, 128, 0}; // x/y row offset, peer
  Inst ld = dma(Opcode::DmaLoad, 0, 1, 128, 128);
  ld.memParam = 0;
  p.insts.push_back(ld);
  p.insts.push_back(dma(Opcode::DmaLoad, 128, 1, 128, 128));
  Inst un = isa::makeInst(Opcode::SfpUnary);
  un.op = uint16_t(isa::UnaryOp::Exp);
  un.lx[0] = 256;
  un.lx[1] = 0;
  un.arg[0] = 1;
  un.arg[1] = 32;
  un.pitch[0] = un.pitch[1] = 128;
  p.insts.push_back(un);
  Inst send = isa::makeInst(Opcode::RingSend);
  send.lx[1] = 256;
  send.arg[0] = 0;
  send.memParam = 1;
  send.arg[1] = 7;
  send.arg[2] = 128;
  p.insts.push_back(send);
  Inst recv = isa::makeInst(Opcode::RingRecv);
  recv.lx[0] = 384;
  recv.arg[0] = 0;
  recv.memParam = 1;
  recv.arg[1] = 7;
  recv.arg[2] = 128;
  p.insts.push_back(recv);
  Inst add = isa::makeInst(Opcode::SfpBinary);
  add.op = uint16_t(isa::BinaryOp::Add);
  add.lx[0] = 512;
  add.lx[1] = 384;
  add.lx[2] = 128;
  add.arg[0] = 1;
  add.arg[1] = 32;
  add.pitch[0] = add.pitch[1] = add.pitch[2] = 128;
  p.insts.push_back(add);
  Inst red = isa::makeInst(Opcode::SfpReduce);
  red.op = uint16_t(isa::ReduceOp::Max);
  red.lx[0] = 640;
  red.lx[1] = 512;
  red.arg[0] = 1;
  red.arg[1] = 32;
  red.arg[3] = isa::kNone;
  red.pitch[0] = red.pitch[1] = 128;
  p.insts.push_back(red);
  Inst st = dma(Opcode::DmaStore, 512, 1, 128, 128);
  st.memParam = 0;
  p.insts.push_back(st);
  uint32_t prog = w.addProgram(p);
  w.addRelocation(prog, 0, x);
  w.addRelocation(prog, 1, c);
  w.addRelocation(prog, 7, y);
  w.addStep(prog);
  std::vector<uint8_t> out;
  std::string error;
  check(w.writeToBuffer(out, error), "seed write");
  return out;
}

} // namespace

/// Evaluates each program's reference on zero inputs where every value is
/// small: the evaluator refuses, with a message, whatever the loader let
/// through and it cannot compute; it never crashes or reads out of bounds.
void evaluateReferences(const rt::Model &m) {
  constexpr int64_t kMaxElements = 4096; // bounds matmul work at 16M MACs
  for (const rt::ProgramInfo &p : m.programs()) {
    if (!p.reference)
      continue;
    const spy::KernelReferenceDesc &ref = *p.reference;
    bool small = true;
    for (const spy::RefValueDesc &v : ref.inputs)
      small &= rt::referenceElements(v.shape) <= kMaxElements;
    for (const spy::RefOpDesc &op : ref.ops)
      small &= rt::referenceElements(op.shape) <= kMaxElements;
    if (!small)
      continue;
    std::vector<rt::HostValue> inputs;
    for (const spy::RefValueDesc &v : ref.inputs) {
      rt::HostValue h;
      h.dtype = m.tensors()[v.tensor].dtype;
      h.shape = v.shape;
      if (h.isInt())
        h.i.assign(size_t(h.numElements()), 0);
      else
        h.f.assign(size_t(h.numElements()), 0.0f);
      inputs.push_back(std::move(h));
    }
    std::vector<rt::HostValue> results;
    size_t failedOp = 0;
    rt::Status s =
        rt::evaluateReference(ref, std::move(inputs), true, results, failedOp);
    check(s.ok() || !s.message().empty(),
          "a reference evaluation failure without a message");
  }
}

FuzzOutcome runLoaderOnce(const uint8_t *data, size_t size) {
  // The weights file that the external-weight seed (and its mutants) name.
  static const bool seedWeights = (writeSeedWeightsFile(), true);
  (void)seedWeights;
  const Arch &arch = Arch::builtinDefault();
  std::unique_ptr<rt::Model> model;
  rt::Status s = rt::Model::fromBuffer(std::vector<uint8_t>(data, data + size),
                                       &arch, model);
  if (!s.ok()) {
    check(!s.message().empty(), "a rejection without a message");
    return FuzzOutcome::Rejected;
  }
  evaluateReferences(*model);
  rt::SimOptions options;
  options.timingOnly = true;
  options.maxInstructionsPerStep = 200000;
  rt::SimulatorDevice device(arch, options);
  std::shared_ptr<const rt::Model> shared(std::move(model));
  std::unique_ptr<rt::Session> session;
  s = rt::Session::create(device, shared, session);
  if (!s.ok()) {
    check(!s.message().empty(), "a load failure without a message");
    return FuzzOutcome::Loaded;
  }
  std::vector<rt::HostTensor> inputs, outputs;
  for (uint32_t t : shared->inputs()) {
    const rt::TensorInfo &info = shared->tensors()[t];
    rt::HostTensor h;
    h.dtype = info.dtype;
    h.shape = info.shape;
    uint64_t bytes = isa::dtypeBytes(info.dtype);
    for (int64_t d : info.shape)
      bytes *= uint64_t(d);
    if (bytes > (uint64_t(64) << 20))
      return FuzzOutcome::Loaded; // not worth the host memory
    h.data.assign(size_t(bytes), 0);
    inputs.push_back(std::move(h));
  }
  s = session->run(inputs, outputs);
  if (!s.ok()) {
    check(!s.message().empty(), "a run failure without a message");
    return FuzzOutcome::RunFailed;
  }
  return FuzzOutcome::Ran;
}

std::vector<std::vector<uint8_t>> loaderSeeds() {
  return {matmulSeed(false), sfpRingSeed(), matmulSeed(true)};
}

void fixChecksum(std::vector<uint8_t> &bytes) {
  spy::FileHeader header;
  if (bytes.size() < sizeof(header))
    return;
  std::memcpy(&header, bytes.data(), sizeof(header));
  if (header.flatbufferOffset > bytes.size() ||
      header.flatbufferSize > bytes.size() - header.flatbufferOffset)
    return;
  header.checksum =
      spy::headerChecksum(header, bytes.data() + header.flatbufferOffset);
  std::memcpy(bytes.data() + offsetof(spy::FileHeader, checksum),
              &header.checksum, sizeof(header.checksum));
}

namespace {

/// A uniform pick in [0, n) (0 when n is 0).
uint64_t pick(std::mt19937_64 &rng, uint64_t n) { return n ? rng() % n : 0; }

/// Writes an interesting little-endian value of 1, 2, 4 or 8 bytes at `at`
/// (cut at the end of the file).
void writeInterestingValue(std::vector<uint8_t> &bytes, size_t at,
                           std::mt19937_64 &rng) {
  static const uint64_t interesting[] = {
      0,          1,      0x7f,   0x80,       0xff,
      0x7fff,     0x8000, 0xffff, 0x7fffffff, 0x80000000,
      0xffffffff, 128,    4096,   UINT64_MAX, 1ull << 40};
  uint64_t v = interesting[pick(rng, sizeof(interesting) / 8)];
  size_t width = size_t(1) << pick(rng, 4);
  for (size_t i = 0; i < width && at + i < bytes.size(); ++i)
    bytes[at + i] = uint8_t(v >> (8 * i));
}

/// Deletes a run of up to 64 bytes at `at`.
void deleteRun(std::vector<uint8_t> &bytes, size_t at, std::mt19937_64 &rng) {
  size_t n = size_t(std::min<uint64_t>(pick(rng, 64) + 1, bytes.size() - at));
  bytes.erase(bytes.begin() + long(at), bytes.begin() + long(at + n));
}

/// Inserts 1 to 16 random bytes at `at`.
void insertRandomBytes(std::vector<uint8_t> &bytes, size_t at,
                       std::mt19937_64 &rng) {
  size_t n = size_t(pick(rng, 16) + 1);
  std::vector<uint8_t> ins(n);
  for (uint8_t &b : ins)
    b = uint8_t(rng());
  bytes.insert(bytes.begin() + long(at), ins.begin(), ins.end());
}

/// Copies a chunk of up to 32 bytes from elsewhere in the file to `at`.
void copyChunk(std::vector<uint8_t> &bytes, size_t at, std::mt19937_64 &rng) {
  size_t from = size_t(pick(rng, bytes.size()));
  size_t n = size_t(std::min<uint64_t>(
      pick(rng, 32) + 1, std::min(bytes.size() - from, bytes.size() - at)));
  std::memmove(bytes.data() + at, bytes.data() + from, n);
}

/// One random mutation (a random byte when the file is empty).
void mutateOnce(std::vector<uint8_t> &bytes, std::mt19937_64 &rng) {
  if (bytes.empty()) {
    bytes.push_back(uint8_t(rng()));
    return;
  }
  size_t at = size_t(pick(rng, bytes.size()));
  switch (pick(rng, 8)) {
  case 0: // bit flip
    bytes[at] ^= uint8_t(1u << pick(rng, 8));
    break;
  case 1: // random byte
    bytes[at] = uint8_t(rng());
    break;
  case 2:
    writeInterestingValue(bytes, at, rng);
    break;
  case 3: // truncate
    bytes.resize(at);
    break;
  case 4:
    deleteRun(bytes, at, rng);
    break;
  case 5:
    insertRandomBytes(bytes, at, rng);
    break;
  case 6:
    copyChunk(bytes, at, rng);
    break;
  default: // add a small delta to a byte
    bytes[at] = uint8_t(bytes[at] + int(pick(rng, 33)) - 16);
    break;
  }
}

} // namespace

void mutate(std::vector<uint8_t> &bytes, std::mt19937_64 &rng) {
  unsigned count = 1 + unsigned(pick(rng, 4));
  for (unsigned m = 0; m < count; ++m)
    mutateOnce(bytes, rng);
}

} // namespace spyre::fuzz
