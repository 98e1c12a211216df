//===- TestUtil.h - Helpers for the runtime unit tests ----------*- C++ -*-===//
//
// Hand assembly of instructions, tensor descriptors, running a program
// directly on a simulator, and building .spy files with SpyWriter.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_UNITTESTS_RUNTIME_TESTUTIL_H
#define SPYRE_UNITTESTS_RUNTIME_TESTUTIL_H

#include "spyre/Arch/Arch.h"
#include "spyre/ISA/ISA.h"
#include "spyre/Runtime/SimulatorDevice.h"
#include "spyre/Spy/DL16.h"
#include "spyre/Spy/SpyWriter.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

/// Asserts that a Status-returning expression succeeds, printing its message.
#define ASSERT_OK(expr)                                                        \
  do {                                                                         \
    ::spyre::rt::Status assertStatus_ = (expr);                                \
    ASSERT_TRUE(assertStatus_.ok()) << assertStatus_.message();                \
  } while (false)

namespace spyre::test {

using isa::DType;
using isa::Inst;
using isa::Opcode;

/// The built-in machine description.
inline const Arch &arch() { return Arch::builtinDefault(); }

/// A path for file `name` in the test temp directory, private to this
/// process and test: ctest runs the cases of a binary in parallel
/// processes, and a case rewriting a file that another has mapped would
/// kill that one with SIGBUS.
inline std::string tempPath(const std::string &name) {
  const ::testing::TestInfo *info =
      ::testing::UnitTest::GetInstance()->current_test_info();
  return ::testing::TempDir() + "/spyre-" + std::to_string(::getpid()) + "-" +
         (info ? std::string(info->test_suite_name()) + "." + info->name()
               : std::string("global")) +
         "-" + name;
}

/// The built-in machine with the memory's per-transfer effects and the
/// kernel synchronization switched off (no setup, turnaround or sync,
/// stick-sized bursts): what a timing test that isolates another effect
/// runs on. MemoryTimingTest switches each back on by itself.
inline const Arch &idealMemoryArch() {
  static const Arch a = [] {
    Arch x = Arch::builtinDefault();
    x.memorySetupNs = x.memoryTurnaroundNs = 0;
    x.kernelSyncNs = x.coreSyncNs = 0;
    x.memoryBurstBytes = x.stickBytes;
    return x;
  }();
  return a;
}

/// A tensor with the usual layout (stick on the last dimension unless
/// `stickDim` says otherwise).
spy::TensorDesc makeTensor(const std::string &name, spy::Role role,
                           int32_t ioIndex, DType dtype,
                           std::vector<int64_t> shape, int32_t stickDim = -2,
                           std::vector<int32_t> dimOrder = {});

//===--- Instructions -----------------------------------------------------===//

/// DmaLoad / DmaStore of a 3-D box: counts[0..2] rows of `bytes` bytes with
/// device pitches `pitch`.
Inst dmaLoad(uint32_t lx, std::array<uint32_t, 3> counts, uint32_t bytes,
             std::array<int32_t, 3> pitch);
Inst dmaStore(uint32_t lx, std::array<uint32_t, 3> counts, uint32_t bytes,
              std::array<int32_t, 3> pitch);
Inst ptMatmul(uint32_t c, uint32_t a, uint32_t b, uint32_t m, uint32_t k,
              uint32_t n, std::array<int32_t, 3> pitch, DType in = DType::F32,
              DType acc = DType::F32);
Inst sfpUnary(isa::UnaryOp op, uint32_t dst, uint32_t src, uint32_t rows,
              uint32_t cols, int32_t pitchDst, int32_t pitchSrc,
              DType dstType = DType::F32, DType srcType = DType::F32);
Inst sfpBinary(isa::BinaryOp op, uint32_t dst, uint32_t a, uint32_t b,
               uint32_t rows, uint32_t cols, std::array<int32_t, 3> pitch,
               std::array<DType, 3> types = {DType::F32, DType::F32,
                                             DType::F32});
Inst loop(uint32_t count, uint8_t countParam = isa::kNone);
Inst endLoop();

//===--- Running programs directly on a simulator -------------------------===//

/// A simulator plus helpers to run one hand-written program on it.
class SimHarness {
public:
  explicit SimHarness(const Arch &a = arch(), rt::SimOptions options = {})
      : device(a, options) {}

  /// Runs `insts` once as a single-step launch.
  rt::Status run(const std::vector<Inst> &insts, uint32_t numCores = 1,
                 uint32_t numParams = 0, std::vector<int64_t> params = {},
                 const char *name = "test");
  /// Runs several programs as the steps of one launch.
  rt::Status runSteps(const std::vector<std::vector<Inst>> &programs,
                      uint32_t numCores = 1);

  /// Allocates device memory holding `bytes`.
  rt::DeviceAddr upload(const std::vector<uint8_t> &bytes,
                        uint64_t alignment = 128);
  std::vector<uint8_t> download(rt::DeviceAddr addr, uint64_t size);

  void writeLx(uint32_t core, uint32_t offset, const void *data, size_t size) {
    ASSERT_TRUE(device.writeLx(core, offset, data, size).ok());
  }
  template <typename T>
  void writeLxVec(uint32_t core, uint32_t offset, const std::vector<T> &v) {
    writeLx(core, offset, v.data(), v.size() * sizeof(T));
  }
  template <typename T>
  std::vector<T> readLx(uint32_t core, uint32_t offset, size_t count) {
    std::vector<T> v(count);
    EXPECT_TRUE(device.readLx(core, offset, v.data(), count * sizeof(T)).ok());
    return v;
  }

  rt::SimulatorDevice device;
};

//===--- Data -------------------------------------------------------------===//

/// Deterministic pseudo-random floats in [lo, hi).
std::vector<float> randomFloats(size_t n, uint32_t seed, float lo = -1.0f,
                                float hi = 1.0f);
template <typename T> std::vector<uint8_t> toBytes(const std::vector<T> &v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <typename T> std::vector<T> fromBytes(const std::vector<uint8_t> &b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}
/// fp32 values rounded through DL16 (what an F16 LX buffer holds).
std::vector<uint16_t> toDL16(const std::vector<float> &v);
std::vector<float> fromDL16(const std::vector<uint16_t> &v);

/// Writes a SpyWriter's file into a buffer (fails the test on error).
std::vector<uint8_t> writeSpy(spy::SpyWriter &writer);

} // namespace spyre::test

#endif // SPYRE_UNITTESTS_RUNTIME_TESTUTIL_H
