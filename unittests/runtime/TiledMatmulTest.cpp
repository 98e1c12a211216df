//===- TiledMatmulTest.cpp - A tiled matmul on several cores --------------===//
//
// C[100, 192] = A[100, 160] @ B[160, 192] (f16 operands stored as DL16, f32
// result) split by rows over 3 cores (34, 34, 32 rows: a per-core clamp),
// with K tiles of 64 (the last clamped to 32), N tiles of 64, double-buffered
// operand loads and a double-buffered accumulator, through the whole .spy
// path: SpyWriter -> Model (validation) -> load, bind, launch.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "spyre/Runtime/Session.h"

using namespace spyre;
using namespace spyre::test;
using spy::Role;

namespace {

constexpr int M = 100, K = 160, N = 192, kCores = 3, MT = 34, KT = 64, NT = 64;
constexpr int kKTiles = (K + KT - 1) / KT, kNTiles = N / NT;

struct Matmul {
  std::vector<uint8_t> file;
  std::vector<uint16_t> b; // IEEE half
};

Matmul buildMatmul() {
  spy::SpyWriter w(arch());
  spy::TensorDesc a = makeTensor("A", Role::Input, 0, DType::F16, {M, K});
  spy::TensorDesc b = makeTensor("B", Role::Weight, -1, DType::F16, {K, N});
  spy::TensorDesc c = makeTensor("C", Role::Output, 0, DType::F32, {M, N});
  const int32_t aPitch = int32_t(a.layout.paddedShape[1] * 2);
  const int32_t bPitch = int32_t(b.layout.paddedShape[1] * 2);
  const int32_t cPitch = int32_t(c.layout.paddedShape[1] * 4);
  uint32_t at = w.addTensor(a), bt = w.addTensor(b), ct = w.addTensor(c);

  Matmul out;
  std::vector<float> bv = randomFloats(size_t(K * N), 21);
  out.b.resize(bv.size());
  for (size_t i = 0; i < bv.size(); ++i)
    out.b[i] = spy::floatToHalf(bv[i]);
  // The weight goes into the file in device layout (DL16).
  spy::LayoutMap map;
  std::string error;
  EXPECT_TRUE(
      spy::LayoutMap::create(DType::F16, {K, N}, b.layout, arch(), map, error));
  std::vector<uint8_t> image(map.deviceBytes());
  map.hostToDevice(out.b.data(), image.data());
  w.setTensorData(bt, image);

  const uint32_t aTile = MT * KT * 2, bTile = KT * NT * 2, cTile = MT * NT * 4;
  const uint32_t aBase = 0, bBase = 2 * aTile, cBase = bBase + 2 * bTile;
  Inst ldA = dmaLoad(aBase, {MT, 1, 1}, KT * 2, {aPitch, 0, 0});
  ldA.memParam = 0;
  ldA.memLoopStride[1] = KT * 2;
  ldA.lxLoopStride[0][0] = int32_t(kKTiles * aTile);
  ldA.lxLoopStride[0][1] = int32_t(aTile);
  ldA.lxWrap[0] = 2 * aTile;
  ldA.clampLevel = isa::clampSelector(0xf, 0); // this core's rows
  ldA.clampParam = 2;
  ldA.clampTotal = M;
  Inst ldB = dmaLoad(bBase, {KT, 1, 1}, NT * 2, {bPitch, 0, 0});
  ldB.memLoopStride[0] = NT * 2;
  ldB.memLoopStride[1] = KT * bPitch;
  ldB.lxLoopStride[0][0] = int32_t(kKTiles * bTile);
  ldB.lxLoopStride[0][1] = int32_t(bTile);
  ldB.lxWrap[0] = 2 * bTile;
  ldB.clampLevel = isa::clampSelector(1, 0); // the K edge
  ldB.clampStep = KT;
  ldB.clampTotal = K;
  Inst mm = ptMatmul(cBase, aBase, bBase, MT, KT, NT, {NT * 4, KT * 2, NT * 2},
                     DType::F16, DType::F32);
  mm.flags = isa::kFlagAccumulate;
  mm.arg[3] = 1; // initialize on the first K tile
  mm.lxLoopStride[0][0] = int32_t(cTile);
  mm.lxWrap[0] = 2 * cTile;
  for (unsigned l = 0; l < 2; ++l) {
    mm.lxLoopStride[1][l] = ldA.lxLoopStride[0][l];
    mm.lxLoopStride[2][l] = ldB.lxLoopStride[0][l];
  }
  mm.lxWrap[1] = ldA.lxWrap[0];
  mm.lxWrap[2] = ldB.lxWrap[0];
  mm.clampLevel = isa::clampSelector(1, 1);
  mm.clampStep = KT;
  mm.clampTotal = K;
  Inst st = dmaStore(cBase, {MT, 1, 1}, NT * 4, {cPitch, 0, 0});
  st.memParam = 1;
  st.memLoopStride[0] = NT * 4;
  st.lxLoopStride[1][0] = int32_t(cTile);
  st.lxWrap[1] = 2 * cTile;
  st.clampLevel = isa::clampSelector(0xf, 0);
  st.clampParam = 2;
  st.clampTotal = M;

  spy::ProgramDesc p;
  p.name = "matmul";
  p.location = "model.py:12";
  p.numCores = kCores;
  p.numParams = 3;
  for (int core = 0; core < kCores; ++core) {
    int64_t row = core * MT;
    p.params.push_back(row * aPitch);
    p.params.push_back(row * cPitch);
    p.params.push_back(row);
  }
  p.insts = {loop(kNTiles), loop(kKTiles), ldA, ldB, mm, endLoop(), st,
             endLoop()};
  uint32_t prog = w.addProgram(p);
  w.addRelocation(prog, 2, at);
  w.addRelocation(prog, 3, bt);
  w.addRelocation(prog, 6, ct);
  w.addStep(prog);
  out.file = writeSpy(w);
  return out;
}

std::vector<float> reference(const std::vector<uint16_t> &a,
                             const std::vector<uint16_t> &b) {
  auto dl16 = [](uint16_t h) {
    return spy::dl16ToFloat(spy::floatToDL16(spy::halfToFloat(h)));
  };
  std::vector<float> c(size_t(M * N), 0.0f);
  for (int i = 0; i < M; ++i)
    for (int p = 0; p < K; ++p) {
      float x = dl16(a[size_t(i * K + p)]);
      for (int j = 0; j < N; ++j)
        c[size_t(i * N + j)] += x * dl16(b[size_t(p * N + j)]);
    }
  return c;
}

rt::HostTensor halfInput(uint32_t seed, std::vector<uint16_t> &bits) {
  std::vector<float> v = randomFloats(size_t(M * K), seed);
  bits.resize(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    bits[i] = spy::floatToHalf(v[i]);
  rt::HostTensor t;
  t.dtype = DType::F16;
  t.shape = {M, K};
  t.data = toBytes(bits);
  return t;
}

TEST(TiledMatmul, MatchesTheReferenceOnThreeCores) {
  Matmul mm = buildMatmul();
  std::unique_ptr<rt::Model> model;
  ASSERT_OK(rt::Model::fromBuffer(mm.file, &arch(), model));
  rt::SimulatorDevice device(arch());
  std::unique_ptr<rt::Session> session;
  ASSERT_OK(rt::Session::create(device, std::move(model), session));
  for (uint32_t seed : {31u, 32u}) { // the second launch reuses everything
    std::vector<uint16_t> a;
    std::vector<rt::HostTensor> outputs;
    ASSERT_OK(session->run({halfInput(seed, a)}, outputs));
    ASSERT_EQ(outputs.size(), 1u);
    std::vector<float> c = fromBytes<float>(outputs[0].data);
    std::vector<float> ref = reference(a, mm.b);
    ASSERT_EQ(c.size(), ref.size());
    for (size_t i = 0; i < c.size(); ++i)
      ASSERT_NEAR(c[i], ref[i], 1e-5f * (1 + std::fabs(ref[i]))) << i;
  }
  const rt::SimStats &stats = device.stats();
  EXPECT_EQ(stats.launches, 2u);
  // The matmul is not clamped in M: the last core computes (unstored) rows
  // past the edge.
  EXPECT_EQ(stats.macs, 2u * kCores * MT * N * K);
  ASSERT_EQ(stats.kernels.size(), 2u);
  EXPECT_EQ(stats.kernels[0].name, "matmul");
  EXPECT_EQ(stats.kernels[0].durationPs, stats.kernels[1].durationPs);
  for (int c = 0; c < kCores; ++c)
    EXPECT_GT(stats.cores[size_t(c)].ptBusyPs, 0u);
  EXPECT_EQ(stats.cores[kCores].ptBusyPs, 0u);
}

TEST(TiledMatmul, TimingOnlyGivesTheSameTime) {
  Matmul mm = buildMatmul();
  uint64_t total[2];
  for (int timingOnly = 0; timingOnly < 2; ++timingOnly) {
    std::unique_ptr<rt::Model> model;
    ASSERT_OK(rt::Model::fromBuffer(mm.file, &arch(), model));
    rt::SimOptions options;
    options.timingOnly = timingOnly;
    rt::SimulatorDevice device(arch(), options);
    std::unique_ptr<rt::Session> session;
    ASSERT_OK(rt::Session::create(device, std::move(model), session));
    std::vector<uint16_t> a;
    std::vector<rt::HostTensor> outputs;
    ASSERT_OK(session->run({halfInput(31, a)}, outputs));
    total[timingOnly] = device.stats().totalPs;
    if (timingOnly) {
      // Nothing but the program image was stored.
      EXPECT_LE(device.residentBytes(), uint64_t(1) << 17);
      EXPECT_EQ(outputs[0].data, std::vector<uint8_t>(outputs[0].data.size()));
    }
  }
  EXPECT_EQ(total[0], total[1]);
}

} // namespace
