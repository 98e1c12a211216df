//===- ExecutableTest.cpp - Load, bind, launch ----------------------------===//

#include "TestModels.h"

#include "spyre/Runtime/Executable.h"
#include "spyre/Runtime/Session.h"
#include "spyre/Runtime/Transfer.h"

using namespace spyre;
using namespace spyre::test;
using rt::DeviceAddr;

namespace {

std::shared_ptr<const rt::Model> loadModel(const std::vector<uint8_t> &bytes) {
  std::unique_ptr<rt::Model> m;
  rt::Status s = rt::Model::fromBuffer(bytes, &arch(), m);
  EXPECT_TRUE(s.ok()) << s.message();
  return std::shared_ptr<const rt::Model>(std::move(m));
}

std::vector<float> basicReference(const std::vector<float> &x) {
  std::vector<float> w = basicWeight(), y(4 * 32, 0.0f);
  for (int i = 0; i < 4; ++i)
    for (int p = 0; p < 32; ++p)
      for (int j = 0; j < 32; ++j)
        y[size_t(i * 32 + j)] += x[size_t(i * 32 + p)] * w[size_t(p * 32 + j)];
  return y;
}

/// An address as the simulator's messages print it.
std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
  return buf;
}

uint64_t readU64(rt::Device &d, DeviceAddr at) {
  uint64_t v = 0;
  EXPECT_TRUE(d.read(at, &v, 8).ok());
  return v;
}

TEST(Executable, ThreePhases) {
  auto model = loadModel(basicModel());
  rt::SimulatorDevice device(arch());
  std::unique_ptr<rt::LoadedModel> loaded;
  ASSERT_OK(rt::LoadedModel::load(device, model, loaded));
  // Phase 1 patched the weight's address into instruction 1.
  DeviceAddr code = loaded->programAddress(0);
  EXPECT_EQ(readU64(device, code + 1 * 128 + 8), loaded->tensorAddress(1));
  // Phase 2: two workspaces; the bind patches point into the last bound one.
  std::unique_ptr<rt::Workspace> ws1, ws2;
  ASSERT_OK(rt::Workspace::create(*loaded, ws1));
  EXPECT_EQ(readU64(device, code + 3 * 128 + 8), ws1->base() + 256);
  ASSERT_OK(rt::Workspace::create(*loaded, ws2));
  EXPECT_EQ(readU64(device, code + 3 * 128 + 8), ws2->base() + 256);
  EXPECT_EQ(ws1->tensorAddress(2), ws1->base() + 256);

  const rt::TensorInfo &x = model->tensors()[0], &y = model->tensors()[3];
  DeviceAddr in[2], out[2];
  for (int i = 0; i < 2; ++i) {
    ASSERT_OK(
        device.allocate(x.size, x.alignment, rt::MemoryKind::Data, in[i]));
    ASSERT_OK(
        device.allocate(y.size, y.alignment, rt::MemoryKind::Data, out[i]));
  }
  std::vector<float> xs[2] = {randomFloats(128, 1), randomFloats(128, 2)};
  for (int i = 0; i < 2; ++i)
    ASSERT_OK(rt::copyToDevice(device, x, xs[i].data(), 512, in[i]));
  // Phase 3 with different buffers and workspaces: each launch patches the
  // input/output addresses (and re-binds when the workspace changes).
  for (int round = 0; round < 4; ++round) {
    int i = round % 2;
    rt::Workspace &ws = round < 2 ? *ws1 : *ws2;
    ASSERT_OK(loaded->launch(ws, &in[i], 1, &out[i], 1));
    EXPECT_EQ(readU64(device, code + 0 * 128 + 8), in[i]);
    EXPECT_EQ(readU64(device, code + 5 * 128 + 8), out[i]);
    EXPECT_EQ(readU64(device, code + 4 * 128 + 8), ws.base() + 256);
    std::vector<float> result(128);
    ASSERT_OK(rt::copyFromDevice(device, y, out[i], result.data(), 512));
    std::vector<float> ref = basicReference(xs[i]);
    for (size_t k = 0; k < ref.size(); ++k)
      ASSERT_NEAR(result[k], ref[k], 1e-5f);
  }
  // Wrong buffer counts, and a workspace of another model.
  rt::Status s = loaded->launch(*ws1, in, 2, out, 1);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("the model has 1 and 1"), std::string::npos);
  std::unique_ptr<rt::LoadedModel> other;
  ASSERT_OK(rt::LoadedModel::load(device, model, other));
  s = other->launch(*ws1, in, 1, out, 1);
  EXPECT_NE(s.message().find("another loaded model"), std::string::npos);
  // A workspace may outlive its model (it is then inert).
  other.reset();
  loaded.reset();
  ws1.reset();
  ws2.reset();
}

/// A model that copies 4096 bytes from its 512-byte input x, `delta` bytes
/// past where x's relocation points (a parameter added to the address), to
/// its output: the file's own numbers may aim anywhere in device memory.
std::vector<uint8_t> peekingModel(int64_t delta) {
  spy::SpyWriter w(arch());
  uint32_t x =
      w.addTensor(makeTensor("x", spy::Role::Input, 0, DType::F32, {4, 32}));
  uint32_t y =
      w.addTensor(makeTensor("y", spy::Role::Output, 0, DType::F32, {32, 32}));
  spy::ProgramDesc p;
  p.name = "peek";
  isa::Inst load = dmaLoad(0, {32, 1, 1}, 128, {128, 0, 0});
  load.memParam = 0;
  p.insts = {load, dmaStore(0, {32, 1, 1}, 128, {128, 0, 0})};
  p.numParams = 1;
  p.params = {delta};
  uint32_t prog = w.addProgram(p);
  w.addRelocation(prog, 0, x);
  w.addRelocation(prog, 1, y);
  w.addStep(prog);
  return writeSpy(w);
}

// Two models on one device: the second aims its input's relocation at the
// first one's weight. Every access lies inside one allocation (the weight),
// which the device alone would allow; the loaded model confines each
// instruction to the tensor its relocation names.
TEST(Executable, AModelCannotReadAnotherModelsWeights) {
  rt::SimulatorDevice device(arch());
  std::unique_ptr<rt::LoadedModel> victim, thief;
  ASSERT_OK(rt::LoadedModel::load(device, loadModel(basicModel()), victim));
  DeviceAddr weight = victim->tensorAddress(1);
  DeviceAddr in, out;
  ASSERT_OK(device.allocate(512, 128, rt::MemoryKind::Data, in));
  ASSERT_OK(device.allocate(4096, 128, rt::MemoryKind::Data, out));
  auto model = loadModel(peekingModel(int64_t(weight) - int64_t(in)));
  ASSERT_OK(rt::LoadedModel::load(device, model, thief));
  std::unique_ptr<rt::Workspace> ws;
  ASSERT_OK(rt::Workspace::create(*thief, ws));
  rt::Status s = thief->launch(*ws, &in, 1, &out, 1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("leaves the tensor its relocation names, [" +
                             hex(in) + ", " + hex(in + 512) + ")"),
            std::string::npos)
      << s.message();
  // The same program, launched bare on the device (no confine windows),
  // stays inside one allocation and is not stopped: the windows are what
  // confines it.
  std::vector<rt::StepRequest> plan(1);
  plan[0].code = thief->programAddress(0);
  plan[0].numInsts = 2;
  plan[0].numParams = 1;
  int64_t delta = int64_t(weight) - int64_t(in);
  plan[0].params = &delta;
  EXPECT_TRUE(device.launch(plan.data(), 1).ok());
}

TEST(Executable, SessionRunsAndChecksInputs) {
  rt::SimulatorDevice device(arch());
  std::unique_ptr<rt::Session> session;
  ASSERT_OK(rt::Session::create(device, loadModel(basicModel()), session));
  std::vector<float> x = randomFloats(128, 3);
  rt::HostTensor in;
  in.dtype = DType::F32;
  in.shape = {4, 32};
  in.data = toBytes(x);
  std::vector<rt::HostTensor> out;
  ASSERT_OK(session->run({in}, out));
  std::vector<float> y = fromBytes<float>(out[0].data), ref = basicReference(x);
  for (size_t k = 0; k < ref.size(); ++k)
    EXPECT_NEAR(y[k], ref[k], 1e-5f);

  rt::HostTensor bad = in;
  bad.shape = {4, 33};
  rt::Status s = session->run({bad}, out);
  EXPECT_NE(s.message().find("input 0 ('x'): expected f32 [4, 32], got f32 "
                             "[4, 33]"),
            std::string::npos)
      << s.message();
  bad = in;
  bad.dtype = DType::F16;
  s = session->run({bad}, out);
  EXPECT_NE(s.message().find("got f16"), std::string::npos) << s.message();
  s = session->run({}, out);
  EXPECT_NE(s.message().find("takes 1 inputs, got 0"), std::string::npos);
}

TEST(Executable, MutatedInputGetsTheOutputAfterALaunch) {
  // Output 0 holds input 0's new contents: it has its own buffer (kernels
  // may still read the old input) and is copied over the input after the
  // launch; the host side applies it to the caller's tensors on request.
  auto bytes = editModel(
      basicModel(), [](spy::ModelT &m) { m.tensors[3]->aliases_input = 0; });
  rt::SimulatorDevice device(arch());
  std::unique_ptr<rt::Session> session;
  ASSERT_OK(rt::Session::create(device, loadModel(bytes), session));
  EXPECT_NE(session->inputBuffers()[0], session->outputBuffers()[0]);
  rt::HostTensor in{DType::F32, {4, 32}, std::vector<uint8_t>(4 * 32 * 4, 0)};
  for (size_t i = 0; i < 4 * 32; ++i) {
    float v = float(i % 7) - 3.0f;
    std::memcpy(in.data.data() + 4 * i, &v, 4);
  }
  std::vector<rt::HostTensor> inputs{in}, outputs;
  ASSERT_OK(session->run(inputs, outputs));
  const rt::TensorInfo &t = session->model().tensors()[0];
  std::vector<uint8_t> inDevice(t.size), outDevice(t.size);
  ASSERT_OK(device.read(session->inputBuffers()[0], inDevice.data(), t.size));
  ASSERT_OK(device.read(session->outputBuffers()[0], outDevice.data(), t.size));
  EXPECT_EQ(inDevice, outDevice);
  EXPECT_NE(outputs[0].data, in.data);
  session->applyInputMutations(inputs, outputs);
  EXPECT_EQ(inputs[0].data, outputs[0].data);
}

TEST(Executable, DestroyingFreesDeviceMemory) {
  rt::SimulatorDevice device(arch());
  DeviceAddr first;
  ASSERT_OK(device.allocate(64, 128, rt::MemoryKind::Data, first));
  ASSERT_OK(device.free(first));
  {
    std::unique_ptr<rt::Session> session;
    ASSERT_OK(rt::Session::create(device, loadModel(basicModel()), session));
  }
  // Everything was returned: the next allocation lands where the first did.
  DeviceAddr again;
  ASSERT_OK(device.allocate(64, 128, rt::MemoryKind::Data, again));
  EXPECT_EQ(again, first);
}

/// Runs `loaded` once on x = xs and returns y.
std::vector<float> runOnce(rt::SimulatorDevice &device, rt::LoadedModel &loaded,
                           const std::vector<float> &xs) {
  const rt::Model &m = loaded.model();
  std::shared_ptr<rt::DeviceTensor> in, out;
  EXPECT_TRUE(rt::DeviceTensor::create(device, m.tensors()[0], in).ok());
  EXPECT_TRUE(rt::DeviceTensor::create(device, m.tensors()[3], out).ok());
  EXPECT_TRUE(in->upload(xs.data(), 512).ok());
  std::unique_ptr<rt::Workspace> ws;
  EXPECT_TRUE(rt::Workspace::create(loaded, ws).ok());
  const rt::DeviceTensor *ins[] = {in.get()}, *outs[] = {out.get()};
  rt::Status s = loaded.launchTensors(*ws, ins, 1, outs, 1);
  EXPECT_TRUE(s.ok()) << s.message();
  std::vector<float> y(128);
  EXPECT_TRUE(out->download(y.data(), 512).ok());
  return y;
}

TEST(Executable, LaunchesOnDeviceTensorsWithoutCopies) {
  auto model = loadModel(basicModel());
  rt::SimulatorDevice device(arch());
  std::unique_ptr<rt::LoadedModel> loaded;
  ASSERT_OK(rt::LoadedModel::load(device, model, loaded));
  std::vector<float> xs = randomFloats(128, 3), ref = basicReference(xs);
  std::vector<float> y = runOnce(device, *loaded, xs);
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(y[i], ref[i], 1e-4f);

  // A tensor of another type or layout, a missing one, another device's.
  std::shared_ptr<rt::DeviceTensor> in, out, weightLike;
  ASSERT_OK(rt::DeviceTensor::create(device, model->tensors()[0], in));
  ASSERT_OK(rt::DeviceTensor::create(device, model->tensors()[3], out));
  ASSERT_OK(rt::DeviceTensor::create(device, model->tensors()[1], weightLike));
  std::unique_ptr<rt::Workspace> ws;
  ASSERT_OK(rt::Workspace::create(*loaded, ws));
  const rt::DeviceTensor *wrong[] = {weightLike.get()}, *outs[] = {out.get()};
  rt::Status s = loaded->launchTensors(*ws, wrong, 1, outs, 1);
  EXPECT_NE(s.message().find("input 0 ('x') is f32 [4, 32]"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("the device tensor ('w') is f32 [32, 32]"),
            std::string::npos)
      << s.message();
  const rt::DeviceTensor *none[] = {nullptr};
  EXPECT_NE(loaded->launchTensors(*ws, none, 1, outs, 1)
                .message()
                .find("no device tensor for input 0"),
            std::string::npos);
  rt::SimulatorDevice other(arch());
  std::shared_ptr<rt::DeviceTensor> elsewhere;
  ASSERT_OK(rt::DeviceTensor::create(other, model->tensors()[0], elsewhere));
  const rt::DeviceTensor *foreign[] = {elsewhere.get()};
  EXPECT_NE(loaded->launchTensors(*ws, foreign, 1, outs, 1)
                .message()
                .find("is on another device"),
            std::string::npos);
}

TEST(Executable, TwoModelsShareABoundWeight) {
  auto model = loadModel(basicModel());
  rt::SimulatorDevice device(arch());
  std::unique_ptr<rt::LoadedModel> a, b;
  ASSERT_OK(rt::LoadedModel::load(device, model, a));
  ASSERT_OK(rt::LoadedModel::load(device, model, b));
  uint32_t w;
  ASSERT_OK(a->findWeight("w", w));
  EXPECT_NE(a->findWeight("nope", w).message().find("(its weights: w)"),
            std::string::npos);
  ASSERT_OK(a->findWeight("w", w));

  // A's weight doubled in a tensor of its own, then B bound to A's.
  std::vector<float> doubled = basicWeight();
  for (float &v : doubled)
    v *= 2;
  std::shared_ptr<rt::DeviceTensor> shared;
  ASSERT_OK(rt::DeviceTensor::create(device, model->tensors()[w], shared));
  ASSERT_OK(shared->upload(doubled.data(), doubled.size() * 4));
  ASSERT_OK(a->bindWeight(w, shared));
  EXPECT_EQ(a->weight(w), shared);
  EXPECT_EQ(readU64(device, a->programAddress(0) + 1 * 128 + 8),
            shared->address());
  std::vector<float> xs = randomFloats(128, 4), ref = basicReference(xs);
  std::vector<float> ya = runOnce(device, *a, xs), yb = runOnce(device, *b, xs);
  for (size_t i = 0; i < ref.size(); ++i) {
    EXPECT_NEAR(ya[i], 2 * ref[i], 1e-4f);
    EXPECT_NEAR(yb[i], ref[i], 1e-4f);
  }
  ASSERT_OK(b->bindWeight(w, a->weight(w)));
  shared.reset();
  a.reset(); // B keeps the shared tensor alive.
  yb = runOnce(device, *b, xs);
  for (size_t i = 0; i < ref.size(); ++i)
    EXPECT_NEAR(yb[i], 2 * ref[i], 1e-4f);

  // Refused: another layout, another device, a tensor that is no weight.
  std::shared_ptr<rt::DeviceTensor> inputLike;
  ASSERT_OK(rt::DeviceTensor::create(device, model->tensors()[0], inputLike));
  EXPECT_NE(b->bindWeight(w, inputLike).message().find("weight 'w' is f32"),
            std::string::npos);
  rt::SimulatorDevice other(arch());
  std::shared_ptr<rt::DeviceTensor> elsewhere; // Freed before `other` goes.
  ASSERT_OK(rt::DeviceTensor::create(other, model->tensors()[w], elsewhere));
  EXPECT_NE(b->bindWeight(w, elsewhere).message().find("on another device"),
            std::string::npos);
  EXPECT_NE(b->bindWeight(0, inputLike).message().find("is not a weight"),
            std::string::npos);
}

TEST(Executable, RefusesAModelValidatedForAnotherArch) {
  Arch other = arch();
  other.name = "small";
  other.cores = 4;
  std::unique_ptr<rt::Model> m;
  ASSERT_OK(rt::Model::fromBuffer(basicModel(other), &other, m));
  rt::SimulatorDevice device(arch());
  std::unique_ptr<rt::LoadedModel> loaded;
  rt::Status s = rt::LoadedModel::load(device, std::move(m), loaded);
  EXPECT_EQ(s.code(), rt::StatusCode::ArchMismatch);
}

TEST(Executable, WeightsStayUntouchedInTimingOnlyMode) {
  // A 64 MiB weight: in timing-only mode the simulator stores none of it.
  spy::SpyWriter w(arch());
  spy::TensorDesc big =
      makeTensor("w", spy::Role::Weight, -1, DType::F16, {8192, 4096});
  uint32_t t = w.addTensor(big);
  uint64_t size = big.layout.deviceBytes(DType::F16);
  w.setTensorData(
      t, size, [](uint64_t offset, void *buffer, uint64_t n, std::string &) {
        std::memset(buffer, int(offset / spy::SpyWriter::kStreamChunkBytes), n);
        return true;
      });
  spy::ProgramDesc p;
  p.name = "touch";
  p.insts = {dmaLoad(0, {64, 1, 1}, 128, {128, 0, 0})};
  uint32_t prog = w.addProgram(p);
  w.addRelocation(prog, 0, t, int64_t(size / 2));
  w.addStep(prog);
  std::string path = tempPath("big.spy");
  std::string error;
  ASSERT_TRUE(w.write(path, error)) << error;
  std::unique_ptr<rt::Model> m;
  ASSERT_OK(rt::Model::open(path, &arch(), m));
  rt::SimOptions options;
  options.timingOnly = true;
  rt::SimulatorDevice device(arch(), options);
  std::unique_ptr<rt::Session> session;
  ASSERT_OK(rt::Session::create(device, std::move(m), session));
  std::vector<rt::HostTensor> out;
  ASSERT_OK(session->run({}, out));
  EXPECT_LT(device.residentBytes(), uint64_t(1) << 20);
  EXPECT_GT(device.stats().totalPs, 0u);
  std::remove(path.c_str());
}

} // namespace
