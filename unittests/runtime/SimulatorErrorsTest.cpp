//===- SimulatorErrorsTest.cpp - Programs that fail on the device ---------===//
//
// Programs that pass the static checks but go wrong when they run: each must
// fail the launch with a message naming program, core and instruction, and
// never crash.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

using namespace spyre;
using namespace spyre::test;

namespace {

void expectFailure(const rt::Status &s, const std::string &what) {
  ASSERT_FALSE(s.ok()) << "expected failure: " << what;
  EXPECT_NE(s.message().find(what), std::string::npos)
      << "message: " << s.message() << "\nexpected: " << what;
}

TEST(SimErrors, LxOutOfBoundsThroughLoopStride) {
  SimHarness h;
  Inst neg = sfpUnary(isa::UnaryOp::Neg, 0, 0, 1, 32, 128, 128);
  neg.lxLoopStride[0][0] = int32_t(arch().lxBytes / 2);
  expectFailure(h.run({loop(3), neg, endLoop()}, 1, 0, {}, "kern"),
                "program 'kern' core 0 instruction 1 (sfp_unary) at "
                "iteration [2]: LX access");
  neg.lxLoopStride[0][0] = -128;
  expectFailure(h.run({loop(3), neg, endLoop()}), "LX access [-128");
}

TEST(SimErrors, DeviceMemoryOutOfBounds) {
  SimHarness h;
  rt::DeviceAddr mem = h.upload(std::vector<uint8_t>(1024, 1));
  Inst ld = dmaLoad(0, {5, 1, 1}, 128, {256, 0, 0});
  ld.memAddr = mem;
  expectFailure(h.run({ld}), "is not inside one allocation");
  ld.arg[0] = 4; // rows at 0, 256, 512, 768: inside
  ASSERT_OK(h.run({ld}));
  ld.arg[0] = 2;
  ld.memParam = 0;
  expectFailure(h.run({ld}, 2, 1, {0, 768}),
                "core 1 instruction 0 (dma_load): device memory access");
  ld.memParam = isa::kNone;
  ld.memAddr = 0; // never relocated
  expectFailure(h.run({ld}), "not inside one allocation");
  ld.memAddr = mem;
  ld.pitch[0] = -256; // below the allocation
  expectFailure(h.run({ld}), "not inside one allocation");
  ld.memAddr = UINT64_MAX - 64;
  ld.pitch[0] = 256;
  expectFailure(h.run({ld}), "beyond the address space");
  Inst st = dmaStore(0, {1, 1, 1}, 2048, {0, 0, 0});
  st.memAddr = mem;
  expectFailure(h.run({st}), "not inside one allocation");
}

TEST(SimErrors, GatherIndexOutOfRange) {
  SimHarness h;
  rt::DeviceAddr mem = h.upload(std::vector<uint8_t>(640, 1));
  h.writeLxVec(0, 0, std::vector<int32_t>{3, 10});
  Inst g = isa::makeInst(Opcode::DmaGather);
  g.dtype[1] = uint8_t(DType::I32);
  g.memAddr = mem;
  g.lx[0] = 1024;
  g.arg[0] = 2;
  g.arg[1] = 10;
  g.arg[3] = 32;
  g.pitch[0] = 64;
  expectFailure(h.run({g}), "gather index 10 (row 1) outside the table of 10");
  h.writeLxVec(0, 0, std::vector<int32_t>{-1});
  expectFailure(h.run({g}), "gather index -1");
}

TEST(SimErrors, RingDeadlocksAndMismatches) {
  Inst recv = isa::makeInst(Opcode::RingRecv);
  recv.arg[0] = 1;
  recv.arg[1] = 3;
  recv.arg[2] = 16;
  Inst send = isa::makeInst(Opcode::RingSend);
  send.arg[0] = 1;
  send.arg[1] = 3;
  send.arg[2] = 16;
  {
    // Core 0 waits for core 1, which never sends (a param peer of 0).
    SimHarness h;
    recv.memParam = 0;
    expectFailure(
        h.run({recv}, 2, 1, {0, -1}),
        "deadlock: waiting for a ring message from core 1 with tag 3");
  }
  {
    // Sent but never received.
    SimHarness h;
    send.memParam = 0;
    Inst only = loop(1, 1);
    expectFailure(h.run({only, send, endLoop()}, 2, 2, {0, 1, -1, 0}),
                  "sent 16 bytes to core 1 with tag 3 that were never "
                  "received");
  }
  {
    // An endless stream of sends nobody receives.
    SimHarness h;
    Inst big = send;
    big.memParam = isa::kNone;
    big.arg[2] = uint32_t(arch().lxBytes / 2);
    Inst only = loop(1, 0);
    expectFailure(
        h.run({only, loop(100), big, endLoop(), endLoop()}, 2, 1, {1, 0}),
        "bytes of ring messages wait to be received");
  }
  {
    // A partial-sum message meets a data-ring receive.
    SimHarness h;
    Inst s = send, r = recv;
    s.flags = isa::kFlagPartialSum;
    s.arg[0] = r.arg[0] = 0;
    s.memParam = r.memParam = 0;
    expectFailure(h.run({loop(1, 1), s, endLoop(), loop(1, 2), r, endLoop()}, 2,
                        3, {1, 1, 0, 0, 0, 1}),
                  "partial-sum ring from core 0 meets a receive on the other "
                  "ring");
  }
  {
    // Sizes differ.
    SimHarness h;
    send.memParam = recv.memParam = 0;
    Inst r = recv;
    r.arg[2] = 32;
    r.arg[0] = 0;
    Inst s = send;
    s.arg[0] = 0;
    Inst sendLoop = loop(1, 1), recvLoop = loop(1, 2);
    expectFailure(h.run({sendLoop, s, endLoop(), recvLoop, r, endLoop()}, 2, 3,
                        {1, 1, 0, 0, 0, 1}),
                  "does not match the 32 bytes expected");
  }
  {
    // To its own core, and outside the step.
    SimHarness h;
    send.memParam = 0;
    send.arg[0] = 0;
    expectFailure(h.run({send}, 2, 1, {0, 1}),
                  "ring transfer with its own core");
    expectFailure(h.run({send}, 2, 1, {1, 5}),
                  "ring peer core 5 out of range (the step runs on 2 cores)");
  }
}

TEST(SimErrors, RunawayAndNegativeLoops) {
  rt::SimOptions options;
  options.maxInstructionsPerStep = 10000;
  SimHarness h(arch(), options);
  Inst neg = sfpUnary(isa::UnaryOp::Neg, 0, 0, 1, 32, 128, 128);
  expectFailure(h.run({loop(1u << 30), neg, endLoop()}),
                "limit of 10000 dynamic instructions");
  // Loops whose bodies do nothing are skipped, however long.
  ASSERT_OK(
      h.run({loop(0xffffffffu), loop(0xffffffffu), endLoop(), endLoop(), neg}));
  Inst counted = loop(0, 0);
  expectFailure(h.run({counted, neg, endLoop()}, 1, 1, {-5}),
                "negative loop trip count -5");
}

TEST(SimErrors, WorkIsBoundedNotOnlyInstructions) {
  // One 64 x 64 x 64 matmul is 262144 MACs: 40 of them pass a budget of
  // 10^7 units within the instruction limit.
  rt::SimOptions options;
  options.maxWorkPerStep = 10000000;
  SimHarness h(arch(), options);
  Inst mm = ptMatmul(0, 0, 0, 64, 64, 64, {0, 0, 0}); // pitch 0: tiny LX
  expectFailure(h.run({loop(1000), mm, endLoop()}),
                "limit of 10000000 units of work per step (MACs, SFP "
                "elements, bytes moved) (SimOptions::maxWorkPerStep");
  ASSERT_OK(h.run({loop(10), mm, endLoop()}));
  // Per launch: steps each under the step's budget add up.
  options.maxWorkPerStep = uint64_t(1) << 36;
  options.maxWorkPerLaunch = 5000000;
  SimHarness launch(arch(), options);
  ASSERT_OK(launch.run({loop(10), mm, endLoop()}));
  expectFailure(launch.run({loop(30), mm, endLoop()}),
                "units of work per launch");
  // Timing-only simulation computes nothing: only instructions count.
  options.timingOnly = true;
  SimHarness timing(arch(), options);
  ASSERT_OK(timing.run({loop(1000), mm, endLoop()}));
  options.maxInstructionsPerLaunch = 100;
  SimHarness few(arch(), options);
  expectFailure(few.run({loop(1000), mm, endLoop()}),
                "limit of 100 dynamic instructions per launch");
}

TEST(SimErrors, InvalidRequests) {
  SimHarness h;
  Inst bad = isa::makeInst(Opcode::Nop);
  bad.opcode = 77;
  expectFailure(h.run({bad}), "invalid program: instruction 0: invalid opcode");
  expectFailure(h.run({isa::makeInst(Opcode::Nop)}, uint32_t(arch().cores + 1)),
                "cores requested");
  rt::StepRequest step;
  step.code = 12345;
  step.numInsts = 4;
  expectFailure(h.device.launch(&step, 1), "not inside one allocation");
  step.numInsts = 0;
  step.numParams = 2;
  expectFailure(h.device.launch(&step, 1), "missing parameter table");
  // Device memory API misuse.
  rt::DeviceAddr a;
  EXPECT_FALSE(h.device.allocate(16, 3, rt::MemoryKind::Data, a).ok());
  rt::Status s = h.device.allocate(uint64_t(arch().memoryBytes), 128,
                                   rt::MemoryKind::Data, a);
  EXPECT_EQ(s.code(), rt::StatusCode::OutOfMemory);
  EXPECT_FALSE(h.device.free(999).ok());
  uint8_t byte = 0;
  EXPECT_FALSE(h.device.write(7, &byte, 1).ok());
  EXPECT_FALSE(h.device.read(7, &byte, 1).ok());
  EXPECT_FALSE(h.device.readLx(0, uint64_t(arch().lxBytes), &byte, 1).ok());
}

TEST(SimErrors, SparseMemoryCostsOnlyWhatIsTouched) {
  SimHarness h;
  rt::DeviceAddr big;
  // Almost all of device memory.
  uint64_t size = uint64_t(arch().memoryBytes) / 2;
  ASSERT_OK(h.device.allocate(size, 4096, rt::MemoryKind::Data, big));
  uint8_t v = 42;
  ASSERT_OK(h.device.write(big + size - 1, &v, 1));
  ASSERT_OK(h.device.write(big, &v, 1));
  EXPECT_LE(h.device.residentBytes(), uint64_t(1) << 18);
  uint8_t back[2] = {};
  ASSERT_OK(h.device.read(big + size - 2, back, 2));
  EXPECT_EQ(back[0], 0);
  EXPECT_EQ(back[1], 42);
  // Freed memory reads as zero when allocated again.
  ASSERT_OK(h.device.free(big));
  EXPECT_EQ(h.device.residentBytes(), 0u);
}

TEST(SimErrors, HostMemoryOfDeviceContentsIsBounded) {
  // Four 64 KiB pages allowed: the fifth page written is OutOfMemory, with
  // the figures and the option to raise.
  rt::SimOptions options;
  options.maxHostMemoryBytes = 4 * 65536;
  SimHarness h(arch(), options);
  rt::DeviceAddr buf;
  ASSERT_OK(
      h.device.allocate(uint64_t(1) << 30, 4096, rt::MemoryKind::Data, buf));
  std::vector<uint8_t> page(65536, 7);
  for (uint64_t i = 0; i < 4; ++i)
    ASSERT_OK(h.device.write(buf + i * (uint64_t(1) << 20), page.data(),
                             page.size()));
  rt::Status s = h.device.write(buf + (uint64_t(5) << 20), page.data(), 1);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), rt::StatusCode::OutOfMemory);
  EXPECT_NE(s.message().find("holds 262144 bytes of host memory, at most "
                             "262144: SimOptions::maxHostMemoryBytes"),
            std::string::npos)
      << s.message();
}

} // namespace
