//===- MemoryTimingTest.cpp - Memory, ring and synchronization effects ----===//
//
// One test per effect of the simulator's calibrated timing (docs/isa.md
// "Timing", docs/performance.md "Calibration"): each starts from
// idealMemoryArch(), switches one effect on and checks the time it adds
// against numbers derived from the Arch (none hard-coded here).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "spyre/Arch/Bursts.h"

using namespace spyre;
using namespace spyre::test;

namespace {

double stepNs(const rt::SimulatorDevice &d, size_t k = 0) {
  return double(d.stats().kernels.at(k).durationPs) * 1e-3;
}

double ns(double bytes, double bytesPerSecond) {
  return bytes / bytesPerSecond * 1e9;
}

/// A contiguous DmaLoad / DmaStore of `bytes` between `mem` and LX `lx`.
Inst load(rt::DeviceAddr mem, uint32_t lx, uint32_t bytes) {
  Inst i = dmaLoad(lx, {1, 1, 1}, bytes, {0, 0, 0});
  i.memAddr = mem;
  return i;
}
Inst store(rt::DeviceAddr mem, uint32_t lx, uint32_t bytes) {
  Inst i = dmaStore(lx, {1, 1, 1}, bytes, {0, 0, 0});
  i.memAddr = mem;
  return i;
}

/// Runs `code` and returns the step's time in ns.
double timeOf(const Arch &a, const std::vector<Inst> &code,
              uint32_t numCores = 1, uint32_t numParams = 0,
              std::vector<int64_t> params = {}) {
  SimHarness h(a);
  h.upload(std::vector<uint8_t>(4 << 20)); // the programs' device memory
  EXPECT_TRUE(h.run(code, numCores, numParams, params).ok());
  return stepNs(h.device);
}

/// The first allocation of a fresh SimHarness (timeOf's 4 MiB).
rt::DeviceAddr base(const Arch &a) {
  SimHarness h(a);
  return h.upload(std::vector<uint8_t>(4 << 20));
}

TEST(MemoryTiming, WritesRunAtTheWriteBandwidth) {
  const Arch &a = idealMemoryArch();
  rt::DeviceAddr mem = base(a);
  const uint32_t bytes = 1 << 20;
  double latency = double(a.memoryLatencyNs);
  EXPECT_NEAR(timeOf(a, {load(mem, 0, bytes)}),
              ns(bytes, a.memoryReadBandwidth()) + latency, 0.01);
  EXPECT_NEAR(timeOf(a, {store(mem, 0, bytes)}),
              ns(bytes, a.memoryWriteBandwidth()) + latency, 0.01);
  ASSERT_LT(a.memoryWriteBandwidth(), a.memoryReadBandwidth());
}

TEST(MemoryTiming, SetupMakesSmallTransfersRealizeLess) {
  Arch a = idealMemoryArch();
  a.memorySetupNs = 100;
  rt::DeviceAddr mem = base(a);
  // 16 cores keep the node busy; per transfer it adds the setup.
  const uint32_t cores = 16, n = 32;
  auto realized = [&](uint32_t bytes) {
    Inst ld = load(mem, 0, bytes);
    ld.memLoopStride[0] = int32_t(bytes);
    double t = timeOf(a, {loop(n), ld, endLoop()}, cores);
    double perTransfer =
        double(a.memorySetupNs) + ns(bytes, a.memoryReadBandwidth());
    EXPECT_NEAR(t, cores * n * perTransfer, cores * n * perTransfer * 0.03)
        << bytes;
    return double(bytes) * cores * n / t; // bytes per ns
  };
  EXPECT_LT(realized(2048), 0.6 * realized(64 << 10));
}

TEST(MemoryTiming, ScatteredRunsPayWholeBursts) {
  Arch a = idealMemoryArch();
  a.memoryBurstBytes = 4096;
  rt::DeviceAddr mem = base(a);
  const uint32_t rows = 256, run = 128;
  double latency = double(a.memoryLatencyNs);
  // Rows a burst or more apart: each run is charged a whole burst.
  Inst scattered = dmaLoad(0, {rows, 1, 1}, run, {8192, 0, 0});
  scattered.memAddr = mem;
  EXPECT_NEAR(timeOf(a, {scattered}),
              ns(double(rows) * a.memoryBurstBytes, a.memoryReadBandwidth()) +
                  latency,
              0.01);
  // The same bytes contiguous: charged what they cover.
  Inst dense = dmaLoad(0, {rows, 1, 1}, run, {int32_t(run), 0, 0});
  dense.memAddr = mem;
  EXPECT_NEAR(timeOf(a, {dense}),
              ns(double(rows) * run, a.memoryReadBandwidth()) + latency, 0.01);
  // Runs closer than a burst share it.
  uint64_t counts[1] = {rows};
  int64_t pitch[1] = {1024};
  EXPECT_EQ(burstChargedBytes(4096, run, counts, pitch, 1),
            uint64_t(rows) * 1024);
}

TEST(MemoryTiming, SwitchingBetweenReadAndWriteCostsATurnaround) {
  Arch a = idealMemoryArch();
  a.memoryTurnaroundNs = 50;
  rt::DeviceAddr mem = base(a);
  const uint32_t bytes = 4096;
  double read = ns(bytes, a.memoryReadBandwidth()) + double(a.memoryLatencyNs);
  double write =
      ns(bytes, a.memoryWriteBandwidth()) + double(a.memoryLatencyNs);
  // Load, store, load, store from one core: three switches.
  std::vector<Inst> code = {load(mem, 0, bytes), store(mem + bytes, 0, bytes),
                            load(mem, 0, bytes), store(mem + bytes, 0, bytes)};
  EXPECT_NEAR(timeOf(a, code),
              2 * (read + write) + 3 * double(a.memoryTurnaroundNs), 0.01);
  // Reads only: none.
  EXPECT_NEAR(timeOf(a, {load(mem, 0, bytes), load(mem, 0, bytes)}), 2 * read,
              0.01);
}

TEST(MemoryTiming, MemoryStreamsAndRingMessagesShareLinks) {
  const Arch &a = idealMemoryArch();
  rt::DeviceAddr mem = base(a);
  const uint32_t bytes = 1 << 20;
  // Core 0 sends to core 2 while core 2 loads from memory: the memory
  // node's clockwise path to core 2 runs through core 0 and 1, the links
  // the message holds.
  Inst send = isa::makeInst(Opcode::RingSend);
  send.arg[2] = bytes;
  send.memParam = 0;
  Inst recv = isa::makeInst(Opcode::RingRecv);
  recv.lx[0] = 1 << 20;
  recv.arg[2] = bytes;
  recv.memParam = 0;
  Inst ld = load(mem, 0, bytes);
  // Params per core: peer, sends, receives, loads.
  std::vector<int64_t> params = {2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1};
  std::vector<Inst> code = {loop(1, 1), send,       endLoop(), loop(1, 2), recv,
                            endLoop(),  loop(1, 3), ld,        endLoop()};
  ASSERT_EQ(a.ringHops(a.memoryRingPosition, 2), 3);
  double link = ns(bytes, a.ringLinkBandwidth());
  double shared = timeOf(a, code, 3, 4, params);
  EXPECT_NEAR(shared, 2 * link + double(a.memoryLatencyNs), 0.01);
  // Without the message the load is bound by the memory node.
  params[1] = params[10] = 0;
  EXPECT_NEAR(timeOf(a, code, 3, 4, params),
              ns(bytes, a.memoryReadBandwidth()) + double(a.memoryLatencyNs),
              0.01);
}

/// A ring send or receive of `bytes` with the peer in parameter slot 0;
/// over the partial-sum rings when `partialSum`.
Inst ringOp(Opcode op, uint32_t bytes, bool partialSum) {
  Inst i = isa::makeInst(op);
  i.arg[2] = bytes;
  i.memParam = 0;
  if (op == Opcode::RingRecv)
    i.lx[0] = 1 << 20;
  if (partialSum)
    i.flags = isa::kFlagPartialSum;
  return i;
}

TEST(MemoryTiming, PartialSumRingsAreLinksOfTheirOwn) {
  const Arch &a = idealMemoryArch();
  const uint32_t bytes = 65536;
  double psum = ns(bytes, a.psumLinkBandwidth());
  double hop = a.psumHopsNs(1);
  double data = ns(bytes, a.ringLinkBandwidth()) +
                2 * double(a.ringHopLatencyCycles) * 1e9 / a.ringClockHz;
  // Params per core: peer, then how often it sends and receives over the
  // partial-sum rings and over the data ring.
  std::vector<Inst> code = {
      loop(1, 1), ringOp(Opcode::RingSend, bytes, true),  endLoop(),
      loop(1, 2), ringOp(Opcode::RingRecv, bytes, true),  endLoop(),
      loop(1, 3), ringOp(Opcode::RingSend, bytes, false), endLoop(),
      loop(1, 4), ringOp(Opcode::RingRecv, bytes, false), endLoop()};
  auto run = [&](std::vector<int64_t> params) {
    return timeOf(a, code, 4, 5, std::move(params));
  };
  // Core 0 to core 2: two hops at the partial-sum link rate.
  EXPECT_NEAR(run({2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}),
              psum + 2 * hop, 0.01);
  // Cores 0 -> 2 and 1 -> 3 share the link from 1 to 2: one waits.
  EXPECT_NEAR(run({2, 1, 0, 0, 0, 3, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0}),
              2 * psum + 2 * hop, 0.01);
  // The same two with 1 -> 3 on the data ring: neither waits.
  EXPECT_NEAR(run({2, 1, 0, 0, 0, 3, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1}),
              std::max(psum + 2 * hop, data), 0.01);
}

TEST(MemoryTiming, MulticastHoldsTheLinksToItsFarthestCore) {
  const Arch &a = idealMemoryArch();
  rt::DeviceAddr mem = base(a);
  const uint32_t bytes = 1 << 20, message = 4096;
  // Three cores multicast-load one operand (clockwise from the memory node
  // through 0, 1, 2) while core 1 sends to core 2 (clockwise, a link the
  // multicast holds) or core 2 to core 1 (counter-clockwise: free).
  Inst ld = load(mem, 0, bytes);
  ld.flags = isa::kFlagMulticast;
  Inst send = isa::makeInst(Opcode::RingSend);
  send.arg[2] = message;
  send.memParam = 0;
  send.lx[1] = 1 << 20;
  Inst recv = isa::makeInst(Opcode::RingRecv);
  recv.lx[0] = 1 << 20;
  recv.arg[2] = message;
  recv.memParam = 0;
  std::vector<Inst> code = {ld,         loop(1, 1), send,     endLoop(),
                            loop(1, 2), recv,       endLoop()};
  // When the receiver has the message: its RING unit's busy time.
  auto messageArrival = [&](uint32_t from, uint32_t to) {
    std::vector<int64_t> params(9, 0);
    params[from * 3] = to; // peer of the sender
    params[from * 3 + 1] = 1;
    params[to * 3] = from; // peer of the receiver
    params[to * 3 + 2] = 1;
    SimHarness h(a);
    h.upload(std::vector<uint8_t>(4 << 20));
    EXPECT_TRUE(h.run(code, 3, 3, params).ok());
    return double(h.device.stats().cores[to].ringBusyPs) * 1e-3;
  };
  double link = ns(bytes, a.ringLinkBandwidth());
  double transfer = ns(message, a.ringLinkBandwidth());
  double hop = double(a.ringHopLatencyCycles) * 1e9 / a.ringClockHz;
  // Clockwise: the message waits for the multicast's hold of the link.
  EXPECT_NEAR(messageArrival(1, 2), link + transfer + hop, 0.01);
  // Counter-clockwise: it goes at once.
  EXPECT_NEAR(messageArrival(2, 1), transfer + hop, 0.01);
}

TEST(MemoryTiming, KernelsPaySynchronizationPerKernelAndPerCore) {
  Arch a = idealMemoryArch();
  a.kernelSyncNs = 3000;
  a.coreSyncNs = 100;
  Inst op = sfpUnary(isa::UnaryOp::Neg, 0, 0, 8, 64, 256, 256);
  double work = timeOf(idealMemoryArch(), {op});
  for (uint32_t cores : {1u, 4u, 32u})
    EXPECT_NEAR(timeOf(a, {op}, cores),
                work + double(a.kernelSyncNs) + cores * double(a.coreSyncNs),
                0.01)
        << cores;
}

} // namespace
