//===- TestModels.cpp - Small .spy models for the runtime tests -----------===//

#include "TestModels.h"

#include "spyre/Spy/SpyFormat.h"
#include "spyre/Spy/WeightsFile.h"

#include <cstring>

namespace spyre::test {

using spy::Role;

std::vector<float> basicWeight() { return randomFloats(32 * 32, 42); }

namespace {

/// basicModel's tables in `w`; `setWeight` gives the weight its data.
void buildBasicModel(spy::SpyWriter &w,
                     const std::function<void(uint32_t)> &setWeight) {
  uint32_t x =
      w.addTensor(makeTensor("x", Role::Input, 0, DType::F32, {4, 32}));
  uint32_t wt =
      w.addTensor(makeTensor("w", Role::Weight, -1, DType::F32, {32, 32}));
  spy::TensorDesc tmp =
      makeTensor("t", Role::Workspace, -1, DType::F32, {4, 32});
  tmp.workspaceOffset = 256;
  uint32_t t = w.addTensor(tmp);
  // The output carries the model's name of it (format 2.1), the input not.
  spy::TensorDesc out = makeTensor("y", Role::Output, 0, DType::F32, {4, 32});
  out.sourceName = "logits";
  uint32_t y = w.addTensor(out);
  w.setWorkspaceSize(1024);
  setWeight(wt);
  spy::ProgramDesc p;
  p.name = "mm";
  p.location = "basic.py:3";
  p.insts = {
      dmaLoad(0, {4, 1, 1}, 128, {128, 0, 0}),
      dmaLoad(1024, {32, 1, 1}, 128, {128, 0, 0}),
      ptMatmul(8192, 0, 1024, 4, 32, 32, {128, 128, 128}),
      dmaStore(8192, {4, 1, 1}, 128, {128, 0, 0}),
      dmaLoad(12288, {4, 1, 1}, 128, {128, 0, 0}),
      dmaStore(12288, {4, 1, 1}, 128, {128, 0, 0}),
  };
  uint32_t prog = w.addProgram(p);
  w.addRelocation(prog, 0, x);
  w.addRelocation(prog, 1, wt);
  w.addRelocation(prog, 3, t);
  w.addRelocation(prog, 4, t);
  w.addRelocation(prog, 5, y);
  w.addStep(prog);
  w.setMetadata("basic.pt2", "test", "none");
}

} // namespace

std::vector<uint8_t> basicModel(const Arch &a, uint32_t formatMajor,
                                uint32_t formatMinor) {
  spy::SpyWriter w(a);
  w.setFormatVersion(formatMajor, formatMinor);
  buildBasicModel(
      w, [&](uint32_t wt) { w.setTensorData(wt, toBytes(basicWeight())); });
  return writeSpy(w);
}

std::vector<uint8_t> basicModelWithWeightsFile(const std::string &weightsPath,
                                               const std::string &recorded) {
  std::vector<spy::WeightsImage> images = {
      spy::memoryImage(/*sourceKey=*/7, toBytes(basicWeight()))};
  spy::WeightsIndex index;
  std::string error;
  EXPECT_TRUE(spy::writeWeightsFile(weightsPath, images, 1, index, error))
      << error;
  spy::SpyWriter w(arch());
  buildBasicModel(w, [&](uint32_t wt) {
    const spy::WeightsEntry &e = index.entries.at(0);
    w.setExternalTensorData(wt, {e.offset, e.size, e.digest});
  });
  w.setWeightsFile(recorded, index.key, index.dataSize);
  return writeSpy(w);
}

void fixChecksum(std::vector<uint8_t> &file) {
  spy::FileHeader h;
  if (file.size() < sizeof(h))
    return;
  std::memcpy(&h, file.data(), sizeof(h));
  if (h.flatbufferOffset > file.size() ||
      h.flatbufferSize > file.size() - h.flatbufferOffset)
    return;
  h.checksum = spy::headerChecksum(h, file.data() + h.flatbufferOffset);
  std::memcpy(file.data(), &h, sizeof(h));
}

std::vector<uint8_t> editModel(const std::vector<uint8_t> &file,
                               const std::function<void(spy::ModelT &)> &edit) {
  spy::FileHeader h;
  std::memcpy(&h, file.data(), sizeof(h));
  std::unique_ptr<spy::ModelT> model(
      spy::GetModel(file.data() + h.flatbufferOffset)->UnPack());
  edit(*model);
  flatbuffers::FlatBufferBuilder fbb;
  spy::FinishModelBuffer(fbb, spy::Model::Pack(fbb, model.get()));
  std::vector<uint8_t> data(file.begin() + long(h.dataOffset), file.end());
  h.flatbufferSize = fbb.GetSize();
  h.dataOffset =
      (h.flatbufferOffset + h.flatbufferSize + spy::kFileAlignment - 1) /
      spy::kFileAlignment * spy::kFileAlignment;
  std::vector<uint8_t> out(h.dataOffset, 0);
  std::memcpy(out.data() + h.flatbufferOffset, fbb.GetBufferPointer(),
              fbb.GetSize());
  out.insert(out.end(), data.begin(), data.end());
  std::memcpy(out.data(), &h, sizeof(h));
  fixChecksum(out);
  return out;
}

static uint64_t codeOffset(const std::vector<uint8_t> &file, uint32_t program) {
  spy::FileHeader h;
  std::memcpy(&h, file.data(), sizeof(h));
  const spy::Model *m = spy::GetModel(file.data() + h.flatbufferOffset);
  int32_t seg = m->programs()->Get(program)->code_segment();
  return h.dataOffset + m->segments()->Get(uint32_t(seg))->offset();
}

std::vector<uint8_t> editInst(const std::vector<uint8_t> &file,
                              uint32_t program, uint32_t inst,
                              const std::function<void(isa::Inst &)> &edit) {
  std::vector<uint8_t> out = file;
  uint64_t at = codeOffset(file, program) + uint64_t(inst) * isa::kInstBytes;
  isa::Inst i;
  std::memcpy(&i, out.data() + at, sizeof(i));
  edit(i);
  std::memcpy(out.data() + at, &i, sizeof(i));
  return out;
}

std::vector<uint8_t> replaceCode(const std::vector<uint8_t> &file,
                                 uint32_t program,
                                 const std::vector<isa::Inst> &code) {
  std::vector<uint8_t> out = file;
  std::memcpy(out.data() + codeOffset(file, program), code.data(),
              code.size() * sizeof(isa::Inst));
  return out;
}

} // namespace spyre::test
