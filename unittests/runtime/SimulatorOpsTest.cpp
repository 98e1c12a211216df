//===- SimulatorOpsTest.cpp - Functional semantics of every opcode --------===//
//
// Hand-assembled programs run directly on a SimulatorDevice, each checked
// against a reference computed here from docs/isa.md.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "spyre/ISA/ElementMath.h"

#include <cmath>
#include <functional>
#include <numeric>

using namespace spyre;
using namespace spyre::test;
using isa::BinaryOp;
using isa::ReduceOp;
using isa::UnaryOp;

namespace {

std::vector<uint8_t> iota(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = uint8_t(i * 7 + 3);
  return v;
}

TEST(SimOps, DmaLoadBoxWithPitchesAndLoopStride) {
  SimHarness h;
  std::vector<uint8_t> src = iota(4096);
  rt::DeviceAddr mem = h.upload(src);
  // Box 3 x 2 x 2 of 8-byte rows with device pitches 256, 64, 16; twice, the
  // second iteration 1024 bytes further in memory and 96 bytes further in LX.
  Inst ld = dmaLoad(512, {3, 2, 2}, 8, {256, 64, 16});
  ld.memAddr = mem;
  ld.memLoopStride[0] = 1024;
  ld.lxLoopStride[0][0] = 96;
  ASSERT_OK(h.run({loop(2), ld, endLoop()}));
  std::vector<uint8_t> lx = h.readLx<uint8_t>(0, 512, 192);
  for (int it = 0; it < 2; ++it)
    for (int i0 = 0; i0 < 3; ++i0)
      for (int i1 = 0; i1 < 2; ++i1)
        for (int i2 = 0; i2 < 2; ++i2)
          for (int b = 0; b < 8; ++b) {
            size_t from = size_t(it * 1024 + i0 * 256 + i1 * 64 + i2 * 16 + b);
            size_t to = size_t(it * 96 + ((i0 * 2 + i1) * 2 + i2) * 8 + b);
            ASSERT_EQ(lx[to], src[from]) << it << i0 << i1 << i2 << b;
          }
}

TEST(SimOps, DmaClampOnEdgeTiles) {
  SimHarness h;
  std::vector<uint8_t> src = iota(10 * 16);
  rt::DeviceAddr mem = h.upload(src);
  std::vector<uint8_t> fill(3 * 4 * 16, 0xaa);
  h.writeLxVec(0, 0, fill);
  // 10 rows in tiles of 4 rows: 4, 4, 2; each tile in its own 64-byte slot.
  Inst ld = dmaLoad(0, {4, 1, 1}, 16, {16, 0, 0});
  ld.memAddr = mem;
  ld.memLoopStride[0] = 64;
  ld.lxLoopStride[0][0] = 64;
  ld.clampLevel = isa::clampSelector(0, 0);
  ld.clampStep = 4;
  ld.clampTotal = 10;
  ASSERT_OK(h.run({loop(3), ld, endLoop()}));
  std::vector<uint8_t> lx = h.readLx<uint8_t>(0, 0, fill.size());
  for (size_t i = 0; i < 160; ++i)
    EXPECT_EQ(lx[i], src[i]) << i;
  for (size_t i = 160; i < lx.size(); ++i)
    EXPECT_EQ(lx[i], 0xaa) << "beyond the clamped tile: " << i;
  // The clamp start can come from a parameter (a per-core offset).
  SimHarness h2;
  mem = h2.upload(src);
  h2.writeLxVec(0, 0, fill);
  h2.writeLxVec(1, 0, fill);
  ld.memAddr = mem;
  ld.memParam = 0;
  ld.clampParam = 1;
  ld.clampLevel = isa::clampSelector(0xf, 0);   // no loop term
  std::vector<int64_t> params = {0, 0, 128, 8}; // core 1: rows 8..9
  ASSERT_OK(h2.run({ld}, 2, 2, params));
  lx = h2.readLx<uint8_t>(1, 0, 64);
  for (size_t i = 0; i < 32; ++i)
    EXPECT_EQ(lx[i], src[128 + i]);
  for (size_t i = 32; i < 64; ++i)
    EXPECT_EQ(lx[i], 0xaa);
}

TEST(SimOps, DmaStoreBox) {
  SimHarness h;
  std::vector<uint8_t> data = iota(96);
  h.writeLxVec(0, 256, data);
  rt::DeviceAddr mem = h.upload(std::vector<uint8_t>(2048, 0));
  Inst st = dmaStore(256, {2, 3, 2}, 8, {512, 128, 32});
  st.memAddr = mem;
  ASSERT_OK(h.run({st}));
  std::vector<uint8_t> out = h.download(mem, 2048);
  std::vector<uint8_t> expected(2048, 0);
  for (int i0 = 0; i0 < 2; ++i0)
    for (int i1 = 0; i1 < 3; ++i1)
      for (int i2 = 0; i2 < 2; ++i2)
        for (int b = 0; b < 8; ++b)
          expected[size_t(i0 * 512 + i1 * 128 + i2 * 32 + b)] =
              data[size_t(((i0 * 3 + i1) * 2 + i2) * 8 + b)];
  EXPECT_EQ(out, expected);
}

TEST(SimOps, RotatingBuffersKeepProgramOrder) {
  SimHarness h;
  std::vector<uint8_t> src = iota(8 * 128);
  rt::DeviceAddr in = h.upload(src);
  rt::DeviceAddr out = h.upload(std::vector<uint8_t>(8 * 128, 0));
  // Row i goes through LX buffer i % 2 (stride 128, wrap 256).
  Inst ld = dmaLoad(1024, {1, 1, 1}, 128, {0, 0, 0});
  ld.memAddr = in;
  ld.memLoopStride[0] = 128;
  ld.lxLoopStride[0][0] = 128;
  ld.lxWrap[0] = 256;
  Inst neg = sfpUnary(UnaryOp::Copy, 2048, 1024, 1, 128, 128, 128, DType::I8,
                      DType::I8);
  neg.lxLoopStride[0][0] = neg.lxLoopStride[1][0] = 128;
  neg.lxWrap[0] = neg.lxWrap[1] = 256;
  Inst st = dmaStore(2048, {1, 1, 1}, 128, {0, 0, 0});
  st.memAddr = out;
  st.memLoopStride[0] = 128;
  st.lxLoopStride[1][0] = 128;
  st.lxWrap[1] = 256;
  ASSERT_OK(h.run({loop(8), ld, neg, st, endLoop()}));
  EXPECT_EQ(h.download(out, src.size()), src);
  // The buffers hold the last two rows.
  std::vector<uint8_t> lx = h.readLx<uint8_t>(0, 1024, 256);
  EXPECT_TRUE(std::equal(lx.begin(), lx.begin() + 128, src.begin() + 6 * 128));
  EXPECT_TRUE(std::equal(lx.begin() + 128, lx.end(), src.begin() + 7 * 128));
}

TEST(SimOps, WriteAfterReadHazardIsRespected) {
  // An SFP copy reads X; a later DMA overwrites X. The DMA unit is idle and
  // could start first: the scoreboard must hold it back.
  SimHarness h;
  std::vector<float> old = randomFloats(32, 1), fresh = randomFloats(32, 2);
  h.writeLxVec(0, 0, old);
  rt::DeviceAddr mem = h.upload(toBytes(fresh));
  Inst copy = sfpUnary(UnaryOp::Copy, 4096, 0, 1, 32, 128, 128);
  Inst ld = dmaLoad(0, {1, 1, 1}, 128, {0, 0, 0});
  ld.memAddr = mem;
  // A long SFP op first keeps the SFP unit busy so that the copy waits.
  Inst slow = sfpUnary(UnaryOp::Exp, 8192, 8192, 512, 64, 256, 256);
  ASSERT_OK(h.run({slow, copy, ld}));
  EXPECT_EQ(h.readLx<float>(0, 4096, 32), old);
  EXPECT_EQ(h.readLx<float>(0, 0, 32), fresh);
}

std::vector<float> matmulRef(const std::vector<float> &a,
                             const std::vector<float> &b, int m, int k, int n,
                             int lda, int ldb) {
  std::vector<float> c(size_t(m * n), 0.0f);
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j)
        c[size_t(i * n + j)] += a[size_t(i * lda + p)] * b[size_t(p * ldb + j)];
  return c;
}

TEST(SimOps, PtMatmulF32AndDL16Inputs) {
  SimHarness h;
  const int m = 5, k = 40, n = 24;
  std::vector<float> a = randomFloats(m * k, 3), b = randomFloats(k * n, 4);
  h.writeLxVec(0, 0, a);
  h.writeLxVec(0, 4096, b);
  ASSERT_OK(h.run({ptMatmul(16384, 0, 4096, m, k, n, {n * 4, k * 4, n * 4})}));
  std::vector<float> c = h.readLx<float>(0, 16384, m * n);
  std::vector<float> ref = matmulRef(a, b, m, k, n, k, n);
  for (size_t i = 0; i < c.size(); ++i)
    EXPECT_NEAR(c[i], ref[i], 1e-5f) << i;

  // F16 operands are DL16 in LX; products and sums in fp32.
  std::vector<uint16_t> a16 = toDL16(a), b16 = toDL16(b);
  h.writeLxVec(0, 0, a16);
  h.writeLxVec(0, 4096, b16);
  ASSERT_OK(h.run(
      {ptMatmul(16384, 0, 4096, m, k, n, {n * 4, k * 2, n * 2}, DType::F16)}));
  c = h.readLx<float>(0, 16384, m * n);
  ref = matmulRef(fromDL16(a16), fromDL16(b16), m, k, n, k, n);
  for (size_t i = 0; i < c.size(); ++i)
    EXPECT_NEAR(c[i], ref[i], 1e-5f) << i;

  // A DL16 accumulator rounds the result.
  ASSERT_OK(h.run({ptMatmul(16384, 0, 4096, m, k, n, {n * 2, k * 2, n * 2},
                            DType::F16, DType::F16)}));
  std::vector<uint16_t> c16 = h.readLx<uint16_t>(0, 16384, m * n);
  for (size_t i = 0; i < c16.size(); ++i)
    EXPECT_EQ(c16[i], spy::floatToDL16(ref[i])) << i;
}

TEST(SimOps, PtMatmulAccumulatesAcrossClampedKTiles) {
  // C = A[:, :80] @ B[:80, :] in K tiles of 32 (32, 32, 16 after the clamp),
  // accumulating except on iteration 0 of loop level 0; C starts as garbage.
  SimHarness h;
  const int m = 6, kPad = 96, kReal = 80, n = 16, kt = 32;
  std::vector<float> a = randomFloats(m * kPad, 5),
                     b = randomFloats(kPad * n, 6);
  for (int i = 0; i < m; ++i)
    for (int p = kReal; p < kPad; ++p)
      a[size_t(i * kPad + p)] = 1e6f; // must never be read
  h.writeLxVec(0, 0, a);
  h.writeLxVec(0, 8192, b);
  h.writeLxVec(0, 32768, std::vector<float>(m * n, 123.0f));
  Inst mm = ptMatmul(32768, 0, 8192, m, kt, n, {n * 4, kPad * 4, n * 4});
  mm.flags = isa::kFlagAccumulate;
  mm.arg[3] = 0;
  mm.lxLoopStride[1][0] = kt * 4;     // next K columns of A
  mm.lxLoopStride[2][0] = kt * n * 4; // next K rows of B
  mm.clampLevel = isa::clampSelector(0, 1);
  mm.clampStep = kt;
  mm.clampTotal = kReal;
  ASSERT_OK(h.run({loop(3), mm, endLoop()}));
  std::vector<float> c = h.readLx<float>(0, 32768, m * n);
  std::vector<float> ref = matmulRef(a, b, m, kReal, n, kPad, n);
  for (size_t i = 0; i < c.size(); ++i)
    EXPECT_NEAR(c[i], ref[i], 1e-4f) << i;
  // Without an init level, Accumulate always adds.
  mm.arg[3] = isa::kNone;
  ASSERT_OK(h.run({loop(3), mm, endLoop()}));
  c = h.readLx<float>(0, 32768, m * n);
  for (size_t i = 0; i < c.size(); ++i)
    EXPECT_NEAR(c[i], 2 * ref[i], 2e-4f) << i;
}

double unaryRef(UnaryOp op, double x) {
  switch (op) {
  case UnaryOp::Copy:
    return x;
  case UnaryOp::Neg:
    return -x;
  case UnaryOp::Abs:
    return std::fabs(x);
  case UnaryOp::Exp:
    return std::exp(x);
  case UnaryOp::Log:
    return std::log(x);
  case UnaryOp::Sqrt:
    return std::sqrt(x);
  case UnaryOp::Rsqrt:
    return 1 / std::sqrt(x);
  case UnaryOp::Reciprocal:
    return 1 / x;
  case UnaryOp::Tanh:
    return std::tanh(x);
  case UnaryOp::Sigmoid:
    return 1 / (1 + std::exp(-x));
  case UnaryOp::Relu:
    return x > 0 ? x : 0;
  case UnaryOp::GeluErf:
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  case UnaryOp::GeluTanh:
    return 0.5 * x *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  case UnaryOp::Silu:
    return x / (1 + std::exp(-x));
  case UnaryOp::Sin:
    return std::sin(x);
  case UnaryOp::Cos:
    return std::cos(x);
  case UnaryOp::Floor:
    return std::floor(x);
  case UnaryOp::Ceil:
    return std::ceil(x);
  case UnaryOp::LogicalNot:
    return x == 0;
  case UnaryOp::Erf:
    return std::erf(x);
  case UnaryOp::Softplus:
    return std::log1p(std::exp(x));
  case UnaryOp::Round:
    return std::nearbyint(x);
  case UnaryOp::Sign:
    return (x > 0) - (x < 0);
  }
  return 0;
}

TEST(SimOps, EveryUnaryOpMatchesItsReference) {
  const int rows = 3, cols = 40;
  std::vector<float> x = randomFloats(rows * cols, 7, -4.0f, 4.0f);
  x[0] = 0.0f;
  x[1] = 2.5f; // round half to even
  x[2] = -1.5f;
  std::vector<float> positive = randomFloats(rows * cols, 8, 0.1f, 9.0f);
  for (unsigned o = 0; o <= unsigned(UnaryOp::LastUnaryOp); ++o) {
    auto op = UnaryOp(o);
    bool needsPositive =
        op == UnaryOp::Log || op == UnaryOp::Sqrt || op == UnaryOp::Rsqrt;
    const std::vector<float> &in = needsPositive ? positive : x;
    SimHarness h;
    // Source rows are 256 bytes apart, destination rows 192.
    for (int r = 0; r < rows; ++r)
      h.writeLx(0, uint32_t(r * 256), in.data() + r * cols, cols * 4);
    ASSERT_OK(h.run({sfpUnary(op, 8192, 0, rows, cols, 192, 256)}));
    for (int r = 0; r < rows; ++r) {
      std::vector<float> out =
          h.readLx<float>(0, uint32_t(8192 + r * 192), cols);
      for (int c = 0; c < cols; ++c) {
        double ref = unaryRef(op, in[size_t(r * cols + c)]);
        if (std::isinf(ref)) {
          EXPECT_EQ(out[size_t(c)], ref);
          continue;
        }
        EXPECT_NEAR(out[size_t(c)], ref, 2e-6 * (1 + std::fabs(ref)))
            << isa::unaryOpName(uint16_t(op)) << " of "
            << in[size_t(r * cols + c)];
      }
    }
    // Stored as DL16: the fp32 result rounded once.
    ASSERT_OK(h.run({sfpUnary(op, 8192, 0, 1, cols, 192, 256, DType::F16)}));
    std::vector<uint16_t> out16 = h.readLx<uint16_t>(0, 8192, cols);
    for (int c = 0; c < cols; ++c) {
      float ref = float(unaryRef(op, in[size_t(c)]));
      if (std::isinf(ref)) {
        EXPECT_EQ(spy::dl16ToFloat(out16[size_t(c)]), ref);
        continue;
      }
      EXPECT_NEAR(spy::dl16ToFloat(out16[size_t(c)]), ref,
                  std::fabs(ref) / 500 + 1e-6)
          << isa::unaryOpName(uint16_t(op));
    }
  }
}

TEST(SimOps, UnaryBroadcastsAndCasts) {
  SimHarness h;
  std::vector<float> x = {1.5f, -2.0f, 3.0f, 4.0f, -7.9f, 6.0f, 7.0f, 8.0f};
  h.writeLxVec(0, 0, x);
  // Column 0 of each row (rows 16 bytes apart) to every column.
  Inst b = sfpUnary(UnaryOp::Neg, 1024, 0, 2, 4, 16, 16);
  b.flags = isa::kFlagBcastCol0;
  // Row pitch 0 on the source: every row reads row 0.
  Inst rowb = sfpUnary(UnaryOp::Copy, 2048, 0, 3, 4, 16, 0);
  // f32 -> i32 truncates toward zero; i32 -> f32 back.
  Inst toInt =
      sfpUnary(UnaryOp::Copy, 3072, 0, 1, 8, 32, 32, DType::I32, DType::F32);
  Inst absInt =
      sfpUnary(UnaryOp::Abs, 3200, 3072, 1, 8, 32, 32, DType::I64, DType::I32);
  ASSERT_OK(h.run({b, rowb, toInt, absInt}));
  EXPECT_EQ(
      h.readLx<float>(0, 1024, 8),
      (std::vector<float>{-1.5f, -1.5f, -1.5f, -1.5f, 7.9f, 7.9f, 7.9f, 7.9f}));
  std::vector<float> rb = h.readLx<float>(0, 2048, 12);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(rb[size_t(r * 4 + c)], x[size_t(c)]);
  EXPECT_EQ(h.readLx<int32_t>(0, 3072, 8),
            (std::vector<int32_t>{1, -2, 3, 4, -7, 6, 7, 8}));
  EXPECT_EQ(h.readLx<int64_t>(0, 3200, 8),
            (std::vector<int64_t>{1, 2, 3, 4, 7, 6, 7, 8}));
}

// On a DL16 machine fp16 and bf16 tensors are both DL16 codes, but a store
// to a bf16 tensor keeps finite values finite (bf16 reaches 3.4e38, and a
// finfo(bfloat16).min mask must not become -inf), while fp16 overflows to
// NINF as IEEE fp16 overflows to infinity.
TEST(SimOps, Bf16StoresSaturateFp16StoresOverflow) {
  SimHarness h;
  float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {1e10f, -3.0e38f, inf, 2.0f};
  h.writeLxVec(0, 0, x);
  Inst toBf16 =
      sfpUnary(UnaryOp::Copy, 1024, 0, 1, 4, 8, 16, DType::BF16, DType::F32);
  Inst toF16 =
      sfpUnary(UnaryOp::Copy, 2048, 0, 1, 4, 8, 16, DType::F16, DType::F32);
  ASSERT_OK(h.run({toBf16, toF16}));
  EXPECT_EQ(h.readLx<uint16_t>(0, 1024, 4),
            (std::vector<uint16_t>{spy::kDL16Max, 0x8000 | spy::kDL16Max,
                                   spy::kDL16Ninf, spy::floatToDL16(2.0f)}));
  EXPECT_EQ(h.readLx<uint16_t>(0, 2048, 4),
            (std::vector<uint16_t>{spy::kDL16Ninf, 0x8000 | spy::kDL16Ninf,
                                   spy::kDL16Ninf, spy::floatToDL16(2.0f)}));
}

double binaryRef(BinaryOp op, double a, double b) {
  switch (op) {
  case BinaryOp::Add:
    return a + b;
  case BinaryOp::Sub:
    return a - b;
  case BinaryOp::Mul:
    return a * b;
  case BinaryOp::Div:
    return a / b;
  case BinaryOp::Max:
    return std::max(a, b);
  case BinaryOp::Min:
    return std::min(a, b);
  case BinaryOp::Pow:
    return std::pow(a, b);
  case BinaryOp::Eq:
    return a == b;
  case BinaryOp::Ne:
    return a != b;
  case BinaryOp::Lt:
    return a < b;
  case BinaryOp::Le:
    return a <= b;
  case BinaryOp::Gt:
    return a > b;
  case BinaryOp::Ge:
    return a >= b;
  case BinaryOp::And:
    return a != 0 && b != 0;
  case BinaryOp::Or:
    return a != 0 || b != 0;
  case BinaryOp::FloorDiv:
    return std::floor(a / b);
  case BinaryOp::Remainder:
    return a - std::floor(a / b) * b;
  }
  return 0;
}

TEST(SimOps, EveryBinaryOpMatchesItsReference) {
  const int cols = 48;
  std::vector<float> a = randomFloats(cols, 9, -5.0f, 5.0f);
  std::vector<float> b = randomFloats(cols, 10, 0.5f, 3.0f);
  for (int c = 0; c < cols; c += 3)
    b[size_t(c)] = -b[size_t(c)];
  a[4] = b[4]; // equality cases
  a[5] = 0.0f;
  for (unsigned o = 0; o <= unsigned(BinaryOp::LastBinaryOp); ++o) {
    auto op = BinaryOp(o);
    std::vector<float> av = a;
    if (op == BinaryOp::Pow)
      for (float &v : av)
        v = std::fabs(v) + 0.1f;
    SimHarness h;
    h.writeLxVec(0, 0, av);
    h.writeLxVec(0, 1024, b);
    ASSERT_OK(h.run({sfpBinary(op, 2048, 0, 1024, 1, cols, {0, 0, 0})}));
    std::vector<float> out = h.readLx<float>(0, 2048, cols);
    for (int c = 0; c < cols; ++c) {
      double ref = binaryRef(op, av[size_t(c)], b[size_t(c)]);
      EXPECT_NEAR(out[size_t(c)], ref, 2e-6 * (1 + std::fabs(ref)))
          << isa::binaryOpName(uint16_t(op)) << "(" << av[size_t(c)] << ", "
          << b[size_t(c)] << ")";
    }
  }
}

TEST(SimOps, IntegerBinaryOpsAndComparisons) {
  SimHarness h;
  std::vector<int32_t> a = {7, -7, 7, -7, 0, 5, INT32_MAX, 3};
  std::vector<int32_t> b = {2, 2, -2, -2, 3, 0, 1, 3};
  h.writeLxVec(0, 0, a);
  h.writeLxVec(0, 128, b);
  std::array<DType, 3> ints = {DType::I32, DType::I32, DType::I32};
  std::array<DType, 3> cmp = {DType::Bool, DType::I32, DType::I32};
  ASSERT_OK(
      h.run({sfpBinary(BinaryOp::FloorDiv, 256, 0, 128, 1, 8, {0, 0, 0}, ints),
             sfpBinary(BinaryOp::Remainder, 384, 0, 128, 1, 8, {0, 0, 0}, ints),
             sfpBinary(BinaryOp::Add, 512, 0, 128, 1, 8, {0, 0, 0}, ints),
             sfpBinary(BinaryOp::Eq, 640, 0, 128, 1, 8, {0, 0, 0}, cmp),
             sfpBinary(BinaryOp::Pow, 768, 0, 128, 1, 8, {0, 0, 0}, ints),
             sfpBinary(BinaryOp::Div, 896, 0, 128, 1, 8, {0, 0, 0},
                       {DType::F32, DType::I32, DType::I32})}));
  EXPECT_EQ(h.readLx<int32_t>(0, 256, 8),
            (std::vector<int32_t>{3, -4, -4, 3, 0, 0, INT32_MAX, 1}));
  EXPECT_EQ(h.readLx<int32_t>(0, 384, 8),
            (std::vector<int32_t>{1, 1, -1, -1, 0, 0, 0, 0}));
  // int64 arithmetic wraps to the element width on store.
  EXPECT_EQ(h.readLx<int32_t>(0, 512, 8)[6], INT32_MIN);
  EXPECT_EQ(h.readLx<uint8_t>(0, 640, 8),
            (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(h.readLx<int32_t>(0, 768, 8)[0], 49);
  EXPECT_EQ(h.readLx<int32_t>(0, 768, 8)[7], 27);
  EXPECT_FLOAT_EQ(h.readLx<float>(0, 896, 8)[0], 3.5f); // true division
}

TEST(SimOps, BinaryBroadcastColumn) {
  SimHarness h;
  std::vector<float> a = randomFloats(2 * 8, 11), s = {10.0f, 0, 0, 0, 20.0f};
  h.writeLxVec(0, 0, a);
  h.writeLxVec(0, 256, s);
  // dst[r, c] = a[r, c] - s[r, 0], rows of s 16 bytes apart.
  Inst sub = sfpBinary(BinaryOp::Sub, 512, 0, 256, 2, 8, {32, 32, 16});
  sub.flags = isa::kFlagBcastCol1;
  ASSERT_OK(h.run({sub}));
  std::vector<float> out = h.readLx<float>(0, 512, 16);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 8; ++c)
      EXPECT_FLOAT_EQ(out[size_t(r * 8 + c)],
                      a[size_t(r * 8 + c)] - (r ? 20.0f : 10.0f));
}

TEST(SimOps, Select) {
  SimHarness h;
  std::vector<uint8_t> cond = {1, 0, 1, 0, 0, 1};
  std::vector<float> val = {1, 2, 3, 4, 5, 6}, dst = {-1, -2, -3, -4, -5, -6};
  h.writeLxVec(0, 0, cond);
  h.writeLxVec(0, 128, val);
  h.writeLxVec(0, 256, dst);
  Inst sel = isa::makeInst(Opcode::SfpSelect);
  sel.dtype[0] = uint8_t(DType::F32);
  sel.dtype[1] = uint8_t(DType::Bool);
  sel.dtype[2] = uint8_t(DType::F32);
  sel.lx[0] = 256;
  sel.lx[1] = 0;
  sel.lx[2] = 128;
  sel.arg[0] = 2;
  sel.arg[1] = 3;
  sel.pitch[0] = 12;
  sel.pitch[1] = 3;
  sel.pitch[2] = 12;
  ASSERT_OK(h.run({sel}));
  EXPECT_EQ(h.readLx<float>(0, 256, 6),
            (std::vector<float>{1, -2, 3, -4, -5, 6}));
  // Converting select: an f32 candidate into a DL16 destination.
  sel.dtype[0] = uint8_t(DType::F16);
  sel.pitch[0] = 6;
  h.writeLxVec(0, 512, std::vector<uint16_t>(6, 0));
  sel.lx[0] = 512;
  ASSERT_OK(h.run({sel}));
  std::vector<uint16_t> out = h.readLx<uint16_t>(0, 512, 6);
  EXPECT_EQ(spy::dl16ToFloat(out[0]), 1.0f);
  EXPECT_EQ(out[1], 0);
}

TEST(SimOps, Reductions) {
  const int rows = 4, cols = 37;
  std::vector<float> x = randomFloats(rows * cols, 12, -3, 3);
  x[10] = 5.0f; // row 0 max at column 10
  x[cols + 36] = -9.0f;
  SimHarness h;
  h.writeLxVec(0, 0, x);
  auto reduce = [&](ReduceOp op, bool rowsMode, uint32_t dst, DType dt) {
    Inst r = isa::makeInst(Opcode::SfpReduce);
    r.op = uint16_t(op);
    r.dtype[0] = uint8_t(dt);
    r.dtype[1] = uint8_t(DType::F32);
    r.lx[0] = dst;
    r.lx[1] = 0;
    r.arg[0] = rows;
    r.arg[1] = cols;
    r.arg[3] = isa::kNone;
    r.pitch[0] = 4 * int32_t(isa::dtypeBytes(dt));
    r.pitch[1] = cols * 4;
    if (rowsMode)
      r.flags = isa::kFlagReduceRows;
    return r;
  };
  ASSERT_OK(h.run({reduce(ReduceOp::Sum, false, 8192, DType::F32),
                   reduce(ReduceOp::Max, false, 8320, DType::F32),
                   reduce(ReduceOp::Min, false, 8448, DType::F32),
                   reduce(ReduceOp::ArgMax, false, 8576, DType::I64),
                   reduce(ReduceOp::ArgMin, false, 8832, DType::I32),
                   reduce(ReduceOp::Sum, true, 9216, DType::F32),
                   reduce(ReduceOp::ArgMax, true, 10240, DType::I64)}));
  for (int r = 0; r < rows; ++r) {
    const float *row = x.data() + r * cols;
    float sum = 0;
    for (int c = 0; c < cols; ++c)
      sum += row[c];
    auto mx = std::max_element(row, row + cols);
    auto mn = std::min_element(row, row + cols);
    // Column mode: dst[r, 0], rows 4 elements apart.
    EXPECT_NEAR(h.readLx<float>(0, uint32_t(8192 + r * 16), 1)[0], sum, 1e-5);
    EXPECT_EQ(h.readLx<float>(0, uint32_t(8320 + r * 16), 1)[0], *mx);
    EXPECT_EQ(h.readLx<float>(0, uint32_t(8448 + r * 16), 1)[0], *mn);
    EXPECT_EQ(h.readLx<int64_t>(0, uint32_t(8576 + r * 32), 1)[0], mx - row);
    EXPECT_EQ(h.readLx<int32_t>(0, uint32_t(8832 + r * 16), 1)[0], mn - row);
  }
  std::vector<float> colSums = h.readLx<float>(0, 9216, cols);
  std::vector<int64_t> colArg = h.readLx<int64_t>(0, 10240, cols);
  for (int c = 0; c < cols; ++c) {
    float sum = 0;
    int best = 0;
    for (int r = 0; r < rows; ++r) {
      sum += x[size_t(r * cols + c)];
      if (x[size_t(r * cols + c)] > x[size_t(best * cols + c)])
        best = r;
    }
    EXPECT_NEAR(colSums[size_t(c)], sum, 1e-5);
    EXPECT_EQ(colArg[size_t(c)], best);
  }
}

// A long row's float sum adds lane-wise (isa::sumRowF): over the 201088
// terms of a vocabulary softmax it stays within 1e-5 of the exact sum, where
// one running fp32 accumulator falls 3e-4 short.
TEST(SimOps, LongRowSumsAddLaneWise) {
  std::vector<float> x(201088);
  uint32_t state = 1;
  double exact = 0;
  for (float &v : x) {
    state = state * 1664525u + 1013904223u;
    v = std::exp(-12.0f * float(state >> 8) / float(1u << 24));
    exact += v;
  }
  float sequential = 0;
  for (float v : x)
    sequential += v;
  EXPECT_GT(std::fabs(sequential / exact - 1), 1e-4);
  EXPECT_LT(std::fabs(isa::sumRowF(x.data(), x.size()) / exact - 1), 1e-5);
  // Short rows add in order.
  EXPECT_EQ(isa::sumRowF(x.data(), 3), (x[0] + x[1]) + x[2]);
}

TEST(SimOps, ReductionsAccumulateAcrossTiles) {
  // A row of 96 values reduced in 3 tiles of 32 (loop level 0): sum, max and
  // argmax with the running maximum kept in lx(2).
  std::vector<float> x = randomFloats(96, 13, -1, 1);
  x[70] = 4.0f;
  x[20] = 4.0f - 1e-3f;
  SimHarness h;
  h.writeLxVec(0, 0, x);
  h.writeLxVec(0, 4096, std::vector<float>(4, 99.0f)); // garbage destinations
  auto tile = [&](ReduceOp op, uint32_t dst, DType dt) {
    Inst r = isa::makeInst(Opcode::SfpReduce);
    r.op = uint16_t(op);
    r.flags = isa::kFlagAccumulate;
    r.dtype[0] = uint8_t(dt);
    r.dtype[1] = uint8_t(DType::F32);
    r.dtype[2] = uint8_t(DType::F32);
    r.lx[0] = dst;
    r.lx[1] = 0;
    r.lx[2] = 4608;
    r.lxLoopStride[1][0] = 128;
    r.arg[0] = 1;
    r.arg[1] = 32;
    r.arg[2] = 32; // index offset per tile
    r.arg[3] = 0;
    r.pitch[0] = r.pitch[1] = r.pitch[2] = 128;
    return r;
  };
  ASSERT_OK(h.run({loop(3), tile(ReduceOp::Sum, 4096, DType::F32),
                   tile(ReduceOp::Max, 4100, DType::F32),
                   tile(ReduceOp::ArgMax, 4104, DType::I32), endLoop()}));
  float sum = 0;
  for (float v : x)
    sum += v;
  EXPECT_NEAR(h.readLx<float>(0, 4096, 1)[0], sum, 1e-5);
  EXPECT_EQ(h.readLx<float>(0, 4100, 1)[0], 4.0f);
  EXPECT_EQ(h.readLx<int32_t>(0, 4104, 1)[0], 70);
  EXPECT_EQ(h.readLx<float>(0, 4608, 1)[0], 4.0f);
}

TEST(SimOps, Transpose) {
  SimHarness h;
  const int rows = 5, cols = 70;
  std::vector<uint16_t> x(rows * cols);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = uint16_t(i + 1);
  h.writeLxVec(0, 0, x);
  Inst t = isa::makeInst(Opcode::SfpTranspose);
  t.dtype[0] = t.dtype[1] = uint8_t(DType::F16);
  t.lx[0] = 4096;
  t.lx[1] = 0;
  t.arg[0] = rows;
  t.arg[1] = cols;
  t.pitch[0] = 16; // dst rows: 5 elements padded to 8
  t.pitch[1] = cols * 2;
  ASSERT_OK(h.run({t}));
  for (int c = 0; c < cols; ++c) {
    std::vector<uint16_t> row =
        h.readLx<uint16_t>(0, uint32_t(4096 + c * 16), rows);
    for (int r = 0; r < rows; ++r)
      EXPECT_EQ(row[size_t(r)], x[size_t(r * cols + c)]);
  }
}

TEST(SimOps, Gather) {
  SimHarness h;
  // A table of 10 rows of 32 bytes, 64 bytes apart.
  std::vector<uint8_t> table = iota(640);
  rt::DeviceAddr mem = h.upload(table);
  std::vector<int64_t> idx = {3, 0, 9, 3};
  h.writeLxVec(0, 0, idx);
  Inst g = isa::makeInst(Opcode::DmaGather);
  g.dtype[1] = uint8_t(DType::I64);
  g.memAddr = mem;
  g.lx[0] = 1024;
  g.lx[1] = 0;
  g.arg[0] = 4;
  g.arg[1] = 10;
  g.arg[3] = 32;
  g.pitch[0] = 64;
  ASSERT_OK(h.run({g}));
  std::vector<uint8_t> out = h.readLx<uint8_t>(0, 1024, 128);
  for (size_t r = 0; r < 4; ++r)
    for (size_t b = 0; b < 32; ++b)
      EXPECT_EQ(out[r * 32 + b], table[size_t(idx[r]) * 64 + b]);
  // i32 indices.
  std::vector<int32_t> idx32 = {1, 2};
  h.writeLxVec(0, 0, idx32);
  g.dtype[1] = uint8_t(DType::I32);
  g.arg[0] = 2;
  ASSERT_OK(h.run({g}));
  out = h.readLx<uint8_t>(0, 1024, 64);
  EXPECT_EQ(out[0], table[64]);
  EXPECT_EQ(out[32], table[128]);
}

TEST(SimOps, RingPassesDataAroundCores) {
  // Each of 4 cores sends its row to core (c + 1) % 4 and receives from
  // (c + 3) % 4; the peer comes from parameter slot 0 / 1 (arg[0] +
  // P(memParam)).
  const uint32_t n = 4;
  SimHarness h;
  for (uint32_t c = 0; c < n; ++c)
    h.writeLxVec(c, 0, std::vector<float>(32, float(c + 1)));
  Inst send = isa::makeInst(Opcode::RingSend);
  send.lx[1] = 0;
  send.arg[1] = 5;
  send.arg[2] = 128;
  send.memParam = 0;
  Inst recv = isa::makeInst(Opcode::RingRecv);
  recv.lx[0] = 1024;
  recv.arg[1] = 5;
  recv.arg[2] = 128;
  recv.memParam = 1;
  std::vector<int64_t> params;
  for (uint32_t c = 0; c < n; ++c) {
    params.push_back((c + 1) % n);
    params.push_back((c + n - 1) % n);
  }
  ASSERT_OK(h.run({send, recv}, n, 2, params));
  for (uint32_t c = 0; c < n; ++c)
    EXPECT_EQ(h.readLx<float>(c, 1024, 32),
              std::vector<float>(32, float((c + n - 1) % n + 1)));
  EXPECT_EQ(h.device.stats().ringBytes, 4u * 128);
  // Receive before send, and messages with different tags, in order.
  SimHarness h2;
  for (uint32_t c = 0; c < 2; ++c)
    h2.writeLxVec(c, 0, std::vector<float>{float(c), float(c + 10)});
  Inst recvA = recv, recvB = recv, sendA = send, sendB = send;
  recvA.arg[1] = 1;
  recvB.arg[1] = 2;
  recvB.lx[0] = 2048;
  sendA.arg[1] = 2; // sent first, received second
  sendB.arg[1] = 1;
  sendB.lx[1] = 4;
  recvA.arg[2] = recvB.arg[2] = sendA.arg[2] = sendB.arg[2] = 4;
  // Core 0 only sends (its receive loops run 0 times), core 1 only receives.
  std::vector<int64_t> p2 = {1, 0, 1, 0, 0, 0, 0, 1};
  Inst sendLoop = loop(1, 2), recvLoop = loop(1, 3);
  ASSERT_OK(h2.run(
      {recvLoop, recvA, recvB, endLoop(), sendLoop, sendA, sendB, endLoop()}, 2,
      4, p2));
  EXPECT_EQ(h2.readLx<float>(1, 1024, 1)[0], 10.0f); // tag 1: core 0's [1]
  EXPECT_EQ(h2.readLx<float>(1, 2048, 1)[0], 0.0f);  // tag 2: core 0's [0]
}

TEST(SimOps, RingMessagesOfOneTagArriveInOrder) {
  // The compiler's gathers send every piece with tag 0: core 0 sends 16
  // rows to core 1 one message each, and core 1 must receive them in the
  // order they were sent, whatever their size (rows alternate 128 and 4
  // bytes, so a later, shorter message could overtake an earlier one).
  SimHarness h;
  std::vector<float> rows;
  for (int r = 0; r < 16; ++r)
    for (int i = 0; i < 32; ++i)
      rows.push_back(float(r * 100 + i));
  h.writeLxVec(0, 0, rows);
  std::vector<Inst> program;
  for (int r = 0; r < 16; ++r) {
    Inst send = isa::makeInst(Opcode::RingSend);
    send.lx[1] = uint32_t(r * 128);
    send.arg[0] = 1;
    send.arg[2] = r % 2 ? 4 : 128;
    Inst recv = isa::makeInst(Opcode::RingRecv);
    recv.lx[0] = uint32_t(8192 + r * 128);
    recv.arg[2] = send.arg[2];
    program.push_back(loop(1, 0)); // core 0 sends
    program.push_back(send);
    program.push_back(endLoop());
    program.push_back(loop(1, 1)); // core 1 receives
    program.push_back(recv);
    program.push_back(endLoop());
  }
  ASSERT_OK(h.run(program, 2, 2, {1, 0, 0, 1}));
  for (int r = 0; r < 16; ++r) {
    size_t n = r % 2 ? 1 : 32;
    std::vector<float> got = h.readLx<float>(1, 8192 + r * 128, n);
    std::vector<float> want(rows.begin() + r * 32, rows.begin() + r * 32 + n);
    EXPECT_EQ(got, want) << "row " << r;
  }
}

TEST(SimOps, PartialSumsAddUpDownTheChain) {
  // A K-split's reduction: core 2 sends its partial sums to core 1, which
  // adds them to its own and sends the total to core 0, which adds it to
  // its own (accumulating receives over the partial-sum ring).
  const uint32_t n = 3, count = 64, bytes = count * 4;
  SimHarness h;
  for (uint32_t c = 0; c < n; ++c) {
    std::vector<float> part;
    for (uint32_t i = 0; i < count; ++i)
      part.push_back(float(c + 1) * 0.5f + float(i));
    h.writeLxVec(c, 0, part);
  }
  Inst recv = isa::makeInst(Opcode::RingRecv);
  recv.arg[2] = bytes;
  recv.memParam = 0;
  recv.flags = isa::kFlagPartialSum | isa::kFlagAccumulate;
  Inst send = isa::makeInst(Opcode::RingSend);
  send.arg[2] = bytes;
  send.memParam = 1;
  send.flags = isa::kFlagPartialSum;
  // Params per core: receive peer, send peer, receives, sends.
  ASSERT_OK(h.run({loop(1, 2), recv, endLoop(), loop(1, 3), send, endLoop()}, n,
                  4, {1, 0, 1, 0, 2, 0, 1, 1, 0, 1, 0, 1}));
  std::vector<float> want;
  for (uint32_t i = 0; i < count; ++i)
    want.push_back(3.0f + 3.0f * float(i));
  EXPECT_EQ(h.readLx<float>(0, 0, count), want);
  EXPECT_EQ(h.device.stats().ringBytes, 2u * bytes);
}

TEST(SimOps, MulticastLoadReadsMemoryOnce) {
  SimHarness h;
  std::vector<uint8_t> tile = iota(4096);
  rt::DeviceAddr mem = h.upload(tile);
  Inst ld = dmaLoad(0, {1, 1, 1}, 4096, {0, 0, 0});
  ld.memAddr = mem;
  ld.flags = isa::kFlagMulticast;
  ASSERT_OK(h.run({ld}, 4));
  for (uint32_t c = 0; c < 4; ++c)
    EXPECT_EQ(h.readLx<uint8_t>(c, 0, 4096), tile);
  EXPECT_EQ(h.device.stats().bytesRead, 4096u);
  h.device.resetStats();
  ld.flags = 0;
  ASSERT_OK(h.run({ld}, 4));
  EXPECT_EQ(h.device.stats().bytesRead, 4u * 4096);
}

TEST(SimOps, LxPersistsAcrossSteps) {
  SimHarness h;
  std::vector<float> x = randomFloats(32, 14);
  h.writeLxVec(0, 0, x);
  ASSERT_OK(h.runSteps({{sfpUnary(UnaryOp::Neg, 128, 0, 1, 32, 128, 128)},
                        {sfpUnary(UnaryOp::Neg, 256, 128, 1, 32, 128, 128)}}));
  EXPECT_EQ(h.readLx<float>(0, 256, 32), x);
  EXPECT_EQ(h.device.stats().kernels.size(), 2u);
}

} // namespace
