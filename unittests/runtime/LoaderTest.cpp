//===- LoaderTest.cpp - Validation of .spy files --------------------------===//
//
// Builds valid files with SpyWriter, corrupts them one way at a time and
// checks that each is refused with a clear message (and nothing crashes).
//
//===----------------------------------------------------------------------===//

#include "LoaderFuzz.h"
#include "TestModels.h"

#include "spyre/Runtime/Model.h"
#include "spyre/Spy/SpyFormat.h"

#include <fstream>

using namespace spyre;
using namespace spyre::test;
using rt::Model;
using rt::Status;
using rt::StatusCode;

namespace {

Status load(const std::vector<uint8_t> &bytes,
            std::unique_ptr<Model> *out = nullptr) {
  std::unique_ptr<Model> m;
  Status s = Model::fromBuffer(bytes, &arch(), m);
  if (out)
    *out = std::move(m);
  return s;
}

/// Expects `bytes` to be refused with a message containing `what`.
void expectRejected(const std::vector<uint8_t> &bytes, const std::string &what,
                    StatusCode code = StatusCode::InvalidFile) {
  Status s = load(bytes);
  ASSERT_FALSE(s.ok()) << "accepted; expected: " << what;
  EXPECT_EQ(s.code(), code) << s.message();
  EXPECT_NE(s.message().find(what), std::string::npos)
      << "message: " << s.message() << "\nexpected to contain: " << what;
}

TEST(Loader, AcceptsAValidModel) {
  std::unique_ptr<Model> m;
  Status s = load(basicModel(), &m);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m->tensors().size(), 4u);
  EXPECT_EQ(m->inputs(), (std::vector<uint32_t>{0}));
  EXPECT_EQ(m->outputs(), (std::vector<uint32_t>{3}));
  // Messages name a tensor by the model's name when it has one.
  EXPECT_EQ(m->tensors()[3].sourceName, "logits");
  EXPECT_EQ(m->tensors()[3].displayName(), "logits");
  EXPECT_EQ(m->tensors()[0].sourceName, "");
  EXPECT_EQ(m->tensors()[0].displayName(), "x");
  EXPECT_EQ(m->programs().size(), 1u);
  EXPECT_EQ(m->programs()[0].numInsts, 6u);
  EXPECT_EQ(m->programs()[0].location, "basic.py:3");
  EXPECT_EQ(m->relocations().size(), 5u);
  EXPECT_EQ(m->plan(), (std::vector<uint32_t>{0}));
  EXPECT_EQ(m->workspaceSize(), 1024u);
  EXPECT_EQ(m->metadata().sourceModel, "basic.pt2");
  EXPECT_EQ(m->metadata().archName, arch().name);
  EXPECT_EQ(m->archHash(), arch().hash());
  EXPECT_TRUE(m->warnings().empty());
  // Without a device arch, the embedded description is used.
  std::unique_ptr<Model> embedded;
  ASSERT_TRUE(Model::fromBuffer(basicModel(), nullptr, embedded).ok());
  EXPECT_EQ(embedded->arch().hash(), arch().hash());
}

TEST(Loader, OpensFilesThroughMmap) {
  std::string path = tempPath("loader_basic.spy");
  std::vector<uint8_t> bytes = basicModel();
  {
    std::FILE *f = std::fopen(path.c_str(), "wb");
    ASSERT_TRUE(f);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  std::unique_ptr<Model> m;
  Status s = Model::open(path, &arch(), m);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m->fileSize(), bytes.size());
  s = Model::open(path + ".missing", &arch(), m);
  EXPECT_EQ(s.code(), StatusCode::IoError);
  EXPECT_NE(s.message().find("cannot open"), std::string::npos);
}

TEST(Loader, TruncatedAtEveryLength) {
  std::vector<uint8_t> bytes = basicModel();
  for (size_t n = 0; n < bytes.size(); n += (n < 256 ? 1 : 61)) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + long(n));
    Status s = load(cut);
    ASSERT_FALSE(s.ok()) << n;
    EXPECT_FALSE(s.message().empty());
  }
  std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 1);
  expectRejected(cut, "truncated");
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  expectRejected(longer, "after its data area");
}

TEST(Loader, FlippedBytes) {
  std::vector<uint8_t> bytes = basicModel();
  spy::FileHeader h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  for (size_t at = 0; at < bytes.size(); at += 7) {
    std::vector<uint8_t> bad = bytes;
    bad[at] ^= 0x20;
    Status s = load(bad);
    bool covered = at < 56 || (at >= h.flatbufferOffset &&
                               at < h.flatbufferOffset + h.flatbufferSize);
    if (covered) {
      EXPECT_FALSE(s.ok()) << at;
    }
    if (!s.ok()) {
      EXPECT_FALSE(s.message().empty());
    }
    // With the checksum repaired the flip reaches the deeper checks.
    fixChecksum(bad);
    Status t = load(bad);
    if (!t.ok()) {
      EXPECT_FALSE(t.message().empty());
    }
  }
  std::vector<uint8_t> bad = bytes;
  bad[h.flatbufferOffset + 40] ^= 1;
  expectRejected(bad, "checksum");
}

TEST(Loader, WrongMagic) {
  std::vector<uint8_t> bytes = basicModel();
  bytes[3] = 'X';
  expectRejected(bytes, "bad magic");
}

TEST(Loader, WrongMajorVersionNamesBothVersions) {
  std::vector<uint8_t> bytes = basicModel(arch(), spy::kFormatMajor + 1, 3);
  std::string theirs = std::to_string(spy::kFormatMajor + 1) + ".3";
  std::string ours = std::to_string(spy::kFormatMajor) + "." +
                     std::to_string(spy::kFormatMinor);
  expectRejected(bytes, theirs, StatusCode::VersionMismatch);
  expectRejected(bytes, ours, StatusCode::VersionMismatch);
}

TEST(Loader, NewerMinorVersionIsAWarning) {
  std::unique_ptr<Model> m;
  Status s =
      load(basicModel(arch(), spy::kFormatMajor, spy::kFormatMinor + 1), &m);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(m->warnings().size(), 1u);
  EXPECT_NE(m->warnings()[0].find("newer"), std::string::npos);
}

/// The file offset of segment `i`'s data in `bytes`.
uint64_t segmentOffset(const std::vector<uint8_t> &bytes, uint32_t i) {
  spy::FileHeader h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  const spy::Model *m = spy::GetModel(bytes.data() + h.flatbufferOffset);
  return h.dataOffset + m->segments()->Get(i)->offset();
}

TEST(Loader, CorruptDataNamesTheSegmentAndItsTensor) {
  std::vector<uint8_t> bytes = basicModel();
  bytes[segmentOffset(bytes, 1) + 5] ^= 1; // the weight
  expectRejected(bytes, "segment 1 (tensor 1 'w') is corrupt");
  bytes = basicModel();
  bytes[segmentOffset(bytes, 0) + 130] ^= 1; // the code
  expectRejected(bytes, "segment 0 (program 'mm') is corrupt");
  bytes = basicModel();
  bytes[segmentOffset(bytes, 2)] ^= 1; // a recorded digest
  expectRejected(bytes, "segment 0 (program 'mm') is corrupt");
  // Hashed on several threads, reported in segment order: the first.
  bytes = basicModel();
  bytes[segmentOffset(bytes, 1) + 5] ^= 1;
  bytes[segmentOffset(bytes, 0) + 130] ^= 1;
  expectRejected(bytes, "segment 0 (program 'mm') is corrupt");
  // Trusted as is when asked: it loads.
  std::unique_ptr<Model> m;
  rt::LoadOptions trust;
  trust.verifyData = false;
  EXPECT_TRUE(Model::fromBuffer(bytes, &arch(), m, trust).ok());
}

TEST(Loader, FormatWithoutDigestsLoadsWithAWarning) {
  std::unique_ptr<Model> m;
  Status s = load(basicModel(arch(), 2, spy::kFirstMinorWithDigests - 1), &m);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(m->warnings().size(), 1u);
  EXPECT_NE(m->warnings()[0].find("no segment digests"), std::string::npos);
}

TEST(Loader, WrongArchNamesBothHashesAndNames) {
  Arch other = arch();
  other.name = "other-machine";
  other.lxBytes /= 2;
  std::vector<uint8_t> bytes = basicModel(other);
  char ours[32], theirs[32];
  std::snprintf(ours, sizeof(ours), "0x%016llx",
                (unsigned long long)arch().hash());
  std::snprintf(theirs, sizeof(theirs), "0x%016llx",
                (unsigned long long)other.hash());
  expectRejected(bytes, ours, StatusCode::ArchMismatch);
  expectRejected(bytes, theirs, StatusCode::ArchMismatch);
  expectRejected(bytes, "other-machine", StatusCode::ArchMismatch);
  expectRejected(bytes, arch().name, StatusCode::ArchMismatch);
  // The embedded description must match the stamped hash.
  std::vector<uint8_t> lying = editModel(
      basicModel(), [](spy::ModelT &m) { m.arch_json = "{\"name\": 1}"; });
  std::unique_ptr<Model> m;
  Status s = Model::fromBuffer(lying, nullptr, m);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("embedded machine description"),
            std::string::npos);
}

TEST(Loader, HeaderFieldsOutOfRange) {
  auto withHeader = [](auto edit) {
    std::vector<uint8_t> bytes = basicModel();
    spy::FileHeader h;
    std::memcpy(&h, bytes.data(), sizeof(h));
    edit(h);
    std::memcpy(bytes.data(), &h, sizeof(h));
    return bytes;
  };
  expectRejected(withHeader([](spy::FileHeader &h) {
                   h.flatbufferOffset = UINT64_MAX - 4095;
                 }),
                 "FlatBuffer");
  expectRejected(withHeader([](spy::FileHeader &h) { h.flatbufferOffset = 0; }),
                 "FlatBuffer offset");
  expectRejected(
      withHeader([](spy::FileHeader &h) { h.flatbufferSize = UINT64_MAX; }),
      "FlatBuffer size");
  expectRejected(
      withHeader([](spy::FileHeader &h) { h.dataSize = UINT64_MAX; }),
      "truncated");
  expectRejected(withHeader([](spy::FileHeader &h) { h.dataOffset = 100; }),
                 "data area offset");
  expectRejected(
      withHeader([](spy::FileHeader &h) { h.dataOffset += 1ull << 62; }),
      "truncated");
}

TEST(Loader, TablesAgreeWithTheHeader) {
  expectRejected(
      editModel(basicModel(), [](spy::ModelT &m) { m.format_minor += 1; }),
      "differs from the header");
  expectRejected(
      editModel(basicModel(), [](spy::ModelT &m) { m.arch_hash ^= 1; }),
      "arch hash in the tables");
  // Not a Model at all.
  std::vector<uint8_t> bytes = basicModel();
  spy::FileHeader h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  bytes[h.flatbufferOffset + 4] = 'X'; // file identifier
  fixChecksum(bytes);
  expectRejected(bytes, "FlatBuffers verification failed");
}

TEST(Loader, IndicesOutOfRange) {
  std::vector<uint8_t> base = basicModel();
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.tensors[1]->segment = 99; }),
      "segment 99 out of range");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.tensors[0]->segment = 0; }),
      "cannot have a data segment");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.programs[0]->code_segment = -1; }),
      "code segment -1 out of range");
  expectRejected(editModel(base,
                           [](spy::ModelT &m) {
                             m.relocations[0] =
                                 spy::Relocation(7, m.relocations[0].offset(),
                                                 0, 0, spy::Phase::Launch);
                           }),
                 "program 7 out of range");
  expectRejected(editModel(base,
                           [](spy::ModelT &m) {
                             m.relocations[0] =
                                 spy::Relocation(0, m.relocations[0].offset(),
                                                 99, 0, spy::Phase::Launch);
                           }),
                 "tensor 99 out of range");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.plan[0]->program = 3; }),
      "plan step 0: program 3 out of range");
  expectRejected(
      editModel(base,
                [](spy::ModelT &m) { m.plan[0]->kind = spy::StepKind(5); }),
      "invalid kind");
  expectRejected(editModel(base,
                           [](spy::ModelT &m) {
                             m.relocations[0] =
                                 spy::Relocation(0, 8, 0, 0, spy::Phase(9));
                           }),
                 "invalid phase");
  expectRejected(
      editModel(base,
                [](spy::ModelT &m) { m.tensors[0]->role = spy::Role(12); }),
      "invalid role");
  expectRejected(
      editModel(base,
                [](spy::ModelT &m) { m.tensors[0]->dtype = spy::DType(12); }),
      "invalid dtype");
}

TEST(Loader, BadRelocations) {
  std::vector<uint8_t> base = basicModel();
  auto withReloc = [&](uint64_t offset, uint32_t tensor, spy::Phase phase,
                       int64_t addend = 0) {
    return editModel(base, [=](spy::ModelT &m) {
      m.relocations[0] = spy::Relocation(0, offset, tensor, addend, phase);
    });
  };
  expectRejected(withReloc(9, 0, spy::Phase::Launch), "is not the memAddr");
  expectRejected(withReloc(0, 0, spy::Phase::Launch), "is not the memAddr");
  expectRejected(withReloc(6 * 128 + 8, 0, spy::Phase::Launch),
                 "is not the memAddr");
  expectRejected(withReloc(UINT64_MAX - 7, 0, spy::Phase::Launch),
                 "is not the memAddr");
  expectRejected(withReloc(2 * 128 + 8, 0, spy::Phase::Launch),
                 "(pt_matmul) does not address device memory");
  expectRejected(withReloc(8, 0, spy::Phase::Load),
                 "phase load is wrong for input");
  expectRejected(withReloc(8, 1, spy::Phase::Bind),
                 "phase bind is wrong for weight");
  expectRejected(withReloc(8, 2, spy::Phase::Launch),
                 "phase launch is wrong for workspace");
  // A tensor kept on chip (format 3.1) has no device memory to point at.
  expectRejected(editModel(base,
                           [](spy::ModelT &m) {
                             m.tensors[2]->role = spy::Role::OnChip;
                             m.relocations[0] =
                                 spy::Relocation(0, 8, 2, 0, spy::Phase::Bind);
                           }),
                 "is kept on chip and has no device memory to relocate to");
  expectRejected(withReloc(8, 0, spy::Phase::Launch, -8), "addend -8");
  expectRejected(withReloc(8, 0, spy::Phase::Launch, 1 << 20), "addend");
  expectRejected(withReloc(128 + 8, 0, spy::Phase::Launch), "relocated twice");
}

TEST(Loader, TensorChecks) {
  std::vector<uint8_t> base = basicModel();
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.tensors[0]->size += 1; }),
      "does not match its layout");
  expectRejected(editModel(base,
                           [](spy::ModelT &m) {
                             m.tensors[0]->layout->device_shape[0] = 5;
                           }),
                 "invalid layout");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.tensors[0]->layout.reset(); }),
      "missing layout");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.tensors[0]->alignment = 3; }),
      "not a power of two");
  expectRejected(editModel(base,
                           [](spy::ModelT &m) {
                             m.segments[size_t(m.tensors[1]->segment)]->size =
                                 128;
                           }),
                 "needs exactly");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.workspace_size = 300; }),
      "does not fit in the 300-byte workspace");
  expectRejected(
      editModel(base,
                [](spy::ModelT &m) { m.tensors[2]->workspace_offset = 7; }),
      "not aligned");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.tensors[0]->io_index = 1; }),
      "input io_index 0 is missing");
  expectRejected(
      editModel(base,
                [](spy::ModelT &m) { m.tensors[3]->role = spy::Role::Input; }),
      "duplicate input io_index 0");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.tensors[2]->io_index = 0; }),
      "cannot have an io_index");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.tensors[0]->io_index = 1 << 30; }),
      "out of range");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.tensors[3]->aliases_input = 2; }),
      "aliases input 2 out of range");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.tensors[0]->aliases_input = 0; }),
      "only outputs may alias");
  expectRejected(editModel(base,
                           [](spy::ModelT &m) {
                             m.tensors[0]->shape = std::vector<int64_t>(20, 1);
                           }),
                 "rank 20");
  // Buffer mutation records (tensors: 0 x input, 1 w weight [32, 32],
  // 2 workspace, 3 y output [4, 32]).
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.tensors[0]->updates_tensor = 1; }),
      "only outputs may update a buffer");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.tensors[3]->updates_tensor = 9; }),
      "updates tensor 9 out of range (the file has 4 tensors)");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.tensors[3]->updates_tensor = 0; }),
      "updates tensor 0, which is not a weight (buffer)");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.tensors[3]->updates_tensor = 1; }),
      "updates tensor 1 of a different type or layout");
  expectRejected(editModel(base,
                           [](spy::ModelT &m) {
                             m.tensors[3]->updates_tensor = 1;
                             m.tensors[3]->aliases_input = 0;
                           }),
                 "updates both an input and a buffer");
  // Aliasing an input of the same type is fine.
  std::unique_ptr<Model> m;
  Status s = load(
      editModel(base, [](spy::ModelT &m) { m.tensors[3]->aliases_input = 0; }),
      &m);
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST(Loader, SegmentChecks) {
  std::vector<uint8_t> base = basicModel();
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.segments[0]->offset = 64; }),
      "is not aligned");
  expectRejected(
      editModel(base,
                [](spy::ModelT &m) { m.segments[0]->offset = 1ull << 40; }),
      "lies outside");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.segments[0]->size = UINT64_MAX; }),
      "lies outside");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.segments[0]->alignment = 96; }),
      "alignment 96");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.segments[0]->size = 100; }),
      "not a multiple of 128");
}

TEST(Loader, ProgramChecks) {
  std::vector<uint8_t> base = basicModel();
  expectRejected(editModel(base,
                           [](spy::ModelT &m) {
                             m.programs[0]->num_cores =
                                 int32_t(arch().cores + 1);
                           }),
                 "the device has " + std::to_string(arch().cores) + " cores");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.programs[0]->num_cores = 0; }),
      "num_cores 0");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.programs[0]->num_params = 2; }),
      "expected num_cores * num_params = 2");
  expectRejected(
      editModel(base, [](spy::ModelT &m) { m.programs[0]->num_params = 300; }),
      "num_params 300");
}

TEST(Loader, BadInstructions) {
  std::vector<uint8_t> base = basicModel();
  auto inst = [&](uint32_t i, std::function<void(isa::Inst &)> f) {
    return editInst(base, 0, i, f);
  };
  expectRejected(inst(2, [](isa::Inst &i) { i.opcode = 99; }),
                 "instruction 2: invalid opcode 99");
  expectRejected(inst(2, [](isa::Inst &i) { i.dtype[1] = 9; }),
                 "invalid dtype[1]");
  expectRejected(inst(2, [](isa::Inst &i) { i.flags = 0x80; }),
                 "unknown flag bits");
  expectRejected(inst(2, [](isa::Inst &i) { i.flags = isa::kFlagReduceRows; }),
                 "not valid for this opcode");
  expectRejected(inst(0, [](isa::Inst &i) { i.memParam = 0; }),
                 "memParam parameter slot 0 out of range");
  expectRejected(inst(2, [](isa::Inst &i) { i.lx[0] = 1u << 30; }),
                 "outside the");
  expectRejected(inst(2, [](isa::Inst &i) { i.arg[0] = 1u << 14; }),
                 "outside the");
  expectRejected(inst(1, [](isa::Inst &i) { i.arg[0] = 0xffffffffu; }),
                 "outside the");
  // Row pitches of 0 keep the footprint small, not the work.
  expectRejected(inst(2,
                      [](isa::Inst &i) {
                        i.arg[0] = 1u << 30;
                        i.pitch[0] = i.pitch[1] = 0;
                      }),
                 "operand A of 1073741824 x 32 elements exceeds");
  expectRejected(inst(2, [](isa::Inst &i) { i.arg[3] = 7; }),
                 "accumulate loop level");
  expectRejected(inst(2, [](isa::Inst &i) { i.pitch[1] = -128; }),
                 "negative LX row pitch");
  expectRejected(inst(2, [](isa::Inst &i) { i.dtype[0] = 5; }), "accumulator");
  expectRejected(inst(2, [](isa::Inst &i) { i.clampLevel = 0x37; }),
                 "clamp loop level");
  expectRejected(inst(2, [](isa::Inst &i) { i.clampLevel = 0x30; }),
                 "cannot be clamped");
  expectRejected(inst(2,
                      [](isa::Inst &i) {
                        i.opcode = uint16_t(isa::Opcode::SfpUnary);
                        i.op = 99;
                      }),
                 "invalid unary op 99");
  expectRejected(inst(2,
                      [](isa::Inst &i) {
                        i.opcode = uint16_t(isa::Opcode::SfpReduce);
                        i.op = 9;
                      }),
                 "invalid reduce op");
  expectRejected(
      inst(0,
           [](isa::Inst &i) { i.opcode = uint16_t(isa::Opcode::DmaGather); }),
      "gather indices");
  expectRejected(inst(2,
                      [](isa::Inst &i) {
                        i = isa::makeInst(isa::Opcode::RingSend);
                        i.arg[0] = 5;
                      }),
                 "ring peer core 5 out of range");
}

/// A model with one program of the given code and nothing else, on
/// `cores` cores with `params` (numParams per core).
std::vector<uint8_t> codeOnlyModel(const std::vector<isa::Inst> &code,
                                   int32_t cores = 1, int32_t numParams = 0,
                                   std::vector<int64_t> params = {}) {
  spy::SpyWriter w(arch());
  spy::ProgramDesc p;
  p.name = "code";
  p.insts = code;
  p.numCores = cores;
  p.numParams = numParams;
  p.params = std::move(params);
  w.addStep(w.addProgram(p));
  return writeSpy(w);
}

TEST(Loader, RingSendsAndReceivesMustPairUp) {
  // Core 0 sends P(0) messages to core 1, which receives P(1) of them.
  isa::Inst send = isa::makeInst(isa::Opcode::RingSend);
  send.arg[0] = 1;
  send.arg[1] = 3;
  send.arg[2] = 16;
  isa::Inst recv = isa::makeInst(isa::Opcode::RingRecv);
  recv.arg[0] = 0;
  recv.arg[1] = 3;
  recv.arg[2] = 16;
  std::vector<isa::Inst> code = {loop(0, 0), send, endLoop(),
                                 loop(0, 1), recv, endLoop()};
  EXPECT_TRUE(load(codeOnlyModel(code, 2, 2, {2, 0, 0, 2})).ok());
  expectRejected(codeOnlyModel(code, 2, 2, {2, 0, 0, 1}),
                 "program 0 'code': ring messages with tag 3 from core 0 to "
                 "core 1 do not pair up: sent 2 message(s) of 32 bytes in all, "
                 "received 1 message(s) of 16 bytes in all; the program would "
                 "deadlock or leave messages behind");
  // Same count, other sizes.
  std::vector<isa::Inst> sizes = code;
  sizes[4].arg[2] = 32;
  expectRejected(codeOnlyModel(sizes, 2, 2, {1, 0, 0, 1}),
                 "sent 1 message(s) of 16 bytes in all, received 1 "
                 "message(s) of 32 bytes in all");
  // A peer from the parameters outside the program's cores.
  std::vector<isa::Inst> far = code;
  far[1].memParam = 1;
  expectRejected(codeOnlyModel(far, 2, 2, {1, 5, 0, 1}),
                 "instruction 1 (ring_send) on core 0: ring peer 6 out of "
                 "range (the program runs on 2 cores)");
  // The same counts over different rings: a partial-sum send and a
  // data-ring receive are two flows, neither paired.
  std::vector<isa::Inst> rings = code;
  rings[1].flags = isa::kFlagPartialSum;
  expectRejected(codeOnlyModel(rings, 2, 2, {1, 0, 0, 1}),
                 "ring messages with tag 3 from core 0 to core 1 do not pair "
                 "up: sent 0 message(s)");
  rings[4].flags = isa::kFlagPartialSum | isa::kFlagAccumulate;
  EXPECT_TRUE(load(codeOnlyModel(rings, 2, 2, {1, 0, 0, 1})).ok());
  expectRejected(codeOnlyModel(rings, 2, 2, {2, 0, 0, 1}),
                 "partial-sum ring messages with tag 3 from core 0 to core 1 "
                 "do not pair up: sent 2 message(s)");
  // Partial sums add f32 values, over the partial-sum ring only.
  std::vector<isa::Inst> adds = code;
  adds[4].flags = isa::kFlagAccumulate;
  expectRejected(codeOnlyModel(adds, 2, 2, {1, 0, 0, 1}),
                 "an accumulating receive adds f32 partial sums: it needs the "
                 "partial-sum ring and a multiple of 4 bytes, got 16");
  adds[1].flags = isa::kFlagPartialSum;
  adds[4].flags = isa::kFlagPartialSum | isa::kFlagAccumulate;
  adds[1].arg[2] = adds[4].arg[2] = 18;
  expectRejected(codeOnlyModel(adds, 2, 2, {1, 0, 0, 1}),
                 "multiple of 4 bytes, got 18");
  adds[1].flags = isa::kFlagAccumulate;
  expectRejected(codeOnlyModel(adds, 2, 2, {1, 0, 0, 1}),
                 "not valid for this opcode");
  // A triangular loop: counts left to the run.
  std::vector<isa::Inst> triangle = {loop(2), loop(1), send, endLoop(),
                                     endLoop()};
  triangle[1].arg[1] = 1;
  triangle[1].arg[2] = 0;
  EXPECT_TRUE(load(codeOnlyModel(triangle, 2)).ok());
}

TEST(Loader, MisalignedReferenceVectorsAreRefused) {
  // Found by libFuzzer (UBSan): a kernel reference whose shape vector is
  // not 8-byte aligned was read element by element.
  std::ifstream in(
      std::string(SPYRE_SOURCE_DIR) +
          "/runtime/fuzz/regressions/misaligned-reference-shape.spy",
      std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  ASSERT_FALSE(bytes.empty());
  fuzz::fixChecksum(bytes);
  expectRejected(bytes, "misaligned");
}

TEST(Loader, UnbalancedLoops) {
  isa::Inst work = sfpUnary(isa::UnaryOp::Neg, 0, 0, 1, 32, 128, 128);
  expectRejected(codeOnlyModel({work, endLoop()}),
                 "instruction 1 (endloop): end of loop without a matching "
                 "loop");
  expectRejected(codeOnlyModel({loop(2), work}), "1 unterminated loop(s)");
  expectRejected(codeOnlyModel({loop(1), loop(1), loop(1), loop(1), work,
                                endLoop(), endLoop(), endLoop(), endLoop()}),
                 "instruction 3 (loop): loops nested deeper than 3");
  std::unique_ptr<Model> m;
  Status s = load(codeOnlyModel({loop(2), loop(3), loop(1), work, endLoop(),
                                 endLoop(), endLoop()}),
                  &m);
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST(Loader, DeterministicMutationSweep) {
  std::vector<std::vector<uint8_t>> seeds = fuzz::loaderSeeds();
  seeds.push_back(basicModel());
  for (const auto &seed : seeds)
    EXPECT_EQ(fuzz::runLoaderOnce(seed.data(), seed.size()),
              fuzz::FuzzOutcome::Ran);
  std::mt19937_64 rng(2024);
  int outcomes[4] = {};
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> bytes = seeds[size_t(rng() % seeds.size())];
    fuzz::mutate(bytes, rng);
    if (i % 2)
      fuzz::fixChecksum(bytes);
    ++outcomes[int(fuzz::runLoaderOnce(bytes.data(), bytes.size()))];
  }
  EXPECT_GT(outcomes[int(fuzz::FuzzOutcome::Rejected)], 0);
  EXPECT_GT(outcomes[int(fuzz::FuzzOutcome::Ran)], 0);
}

} // namespace
