//===- TimingTest.cpp - The simulator's timing model ----------------------===//
//
// Sanity of docs/isa.md "Timing" against numbers derived from the Arch (none
// hard-coded): DMA-bound and PT-bound programs, double buffering, launch
// overhead and barriers, ring transfers, multicast, statistics and traces.
// They run on idealMemoryArch(); MemoryTimingTest.cpp pins the memory, ring
// and synchronization effects it switches off.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "spyre/Runtime/Stats.h"

#include "spyre/Support/Json.h"

#include <cmath>
#include <set>
#include <sstream>

using namespace spyre;
using namespace spyre::test;

namespace {

double stepNs(const rt::SimulatorDevice &d, size_t k = 0) {
  return double(d.stats().kernels.at(k).durationPs) * 1e-3;
}

double nsPerByte(double bytesPerSecond) { return 1e9 / bytesPerSecond; }

/// A DmaLoad of `bytes` contiguous bytes from `mem` into LX `lx`.
Inst load(rt::DeviceAddr mem, uint32_t lx, uint32_t bytes) {
  Inst i = dmaLoad(lx, {1, 1, 1}, bytes, {0, 0, 0});
  i.memAddr = mem;
  return i;
}

TEST(Timing, SerialDmaOnOneCorePaysLatencyEachTime) {
  const Arch &a = idealMemoryArch();
  SimHarness h(a);
  const uint32_t bytes = 64 << 10, n = 8;
  rt::DeviceAddr mem = h.upload(std::vector<uint8_t>(bytes * n));
  std::vector<Inst> code;
  for (uint32_t i = 0; i < n; ++i)
    code.push_back(load(mem + i * bytes, i * bytes, bytes));
  ASSERT_OK(h.run(code));
  double perTransfer = std::max(bytes * nsPerByte(a.memoryReadBandwidth()),
                                bytes * nsPerByte(a.ringLinkBandwidth())) +
                       double(a.memoryLatencyNs);
  EXPECT_NEAR(stepNs(h.device), n * perTransfer, n * 0.01);
  EXPECT_EQ(h.device.stats().bytesRead, uint64_t(bytes) * n);
}

TEST(Timing, ManyCoresAreBoundByMemoryBandwidth) {
  const Arch &a = idealMemoryArch();
  SimHarness h(a);
  const uint32_t bytes = 64 << 10, perCore = 16, cores = 16;
  rt::DeviceAddr mem = h.upload(std::vector<uint8_t>(bytes * perCore));
  Inst ld = load(mem, 0, bytes);
  ld.memLoopStride[0] = int32_t(bytes);
  ld.lxLoopStride[0][0] = int32_t(bytes);
  ld.lxWrap[0] = 4 * bytes;
  ASSERT_OK(h.run({loop(perCore), ld, endLoop()}, cores));
  double total = double(bytes) * perCore * cores;
  double floor = total * nsPerByte(a.memoryReadBandwidth());
  EXPECT_GE(stepNs(h.device), floor);
  EXPECT_LE(stepNs(h.device), floor * 1.03 + double(a.memoryLatencyNs));
  // The statistics' roofline agrees.
  EXPECT_NEAR(rt::memoryFloorNs(h.device.stats(), a), floor, floor * 1e-9);
}

TEST(Timing, MatmulIsBoundByMacsPerCycle) {
  const Arch &a = idealMemoryArch();
  SimHarness h(a);
  const uint32_t m = 64, k = 256, n = 128, reps = 20;
  std::vector<Inst> code;
  for (uint32_t i = 0; i < reps; ++i)
    code.push_back(
        ptMatmul(0, 65536, 131072, m, k, n, {n * 4, k * 2, n * 2}, DType::F16));
  ASSERT_OK(h.run(code, 4));
  auto roundUp = [](int64_t v, int64_t to) { return (v + to - 1) / to * to; };
  double macs = double(roundUp(m, a.ptRows) * roundUp(n, a.ptCols * a.ptSimd) *
                       int64_t(k));
  double cycles = macs / double(a.macsPerCycle()) + double(a.ptRows + a.ptCols);
  double expected = reps * a.coreCyclesToNs(cycles);
  EXPECT_NEAR(stepNs(h.device), expected, reps * 0.002);
  // A tile that fills the array exactly: close to the peak rate.
  EXPECT_NEAR(macs / double(a.macsPerCycle()) / cycles, 1.0, 0.01);
  const rt::SimStats &s = h.device.stats();
  EXPECT_EQ(s.macs, uint64_t(4) * reps * m * n * k);
  // PT was busy the whole step on each of the 4 cores.
  EXPECT_EQ(s.cores[0].ptBusyPs, s.kernels[0].durationPs);
  EXPECT_EQ(s.cores[4].ptBusyPs, 0u);
}

TEST(Timing, SfpCyclesPerStickAndComplexOps) {
  const Arch &a = idealMemoryArch();
  SimHarness h(a);
  const uint32_t rows = 64, cols = 100;
  ASSERT_OK(h.run({sfpUnary(isa::UnaryOp::Neg, 0, 32768, rows, cols, 256, 256,
                            DType::F16, DType::F16)}));
  int64_t e = a.elementsPerStick(2);
  double cycles = std::ceil(double(rows) * double((cols + e - 1) / e * e) /
                            double(a.sfpLanesPerCore));
  EXPECT_NEAR(stepNs(h.device), a.coreCyclesToNs(cycles), 0.002);
  h.device.resetStats();
  ASSERT_OK(h.run({sfpUnary(isa::UnaryOp::Exp, 0, 32768, rows, cols, 256, 256,
                            DType::F16, DType::F16)}));
  EXPECT_NEAR(stepNs(h.device),
              a.coreCyclesToNs(cycles * double(a.sfpComplexOpPasses)), 0.002);
  // An f32 operand halves the elements per stick.
  h.device.resetStats();
  ASSERT_OK(h.run({sfpUnary(isa::UnaryOp::Neg, 0, 32768, rows, cols, 512, 256,
                            DType::F32, DType::F16)}));
  int64_t e32 = a.elementsPerStick(4);
  double cycles32 =
      std::ceil(double(rows) * double((cols + e32 - 1) / e32 * e32) /
                double(a.sfpLanesPerCore));
  EXPECT_NEAR(stepNs(h.device), a.coreCyclesToNs(cycles32), 0.002);
}

TEST(Timing, DoubleBufferingOverlapsLoadsWithCompute) {
  SimHarness h(idealMemoryArch());
  const uint32_t m = 128, k = 512, n = 64, tiles = 16;
  const uint32_t tileBytes = m * k * 2;
  rt::DeviceAddr mem = h.upload(std::vector<uint8_t>(tileBytes * tiles));
  Inst mm = ptMatmul(1u << 20, 0, 1u << 19, m, k, n, {n * 4, k * 2, n * 2},
                     DType::F16);
  // The two parts alone.
  ASSERT_OK(h.run({load(mem, 0, tileBytes)}));
  double dma = stepNs(h.device, 0);
  ASSERT_OK(h.run({mm}));
  double pt = stepNs(h.device, 1);
  auto program = [&](bool doubleBuffered) {
    Inst ld = load(mem, 0, tileBytes);
    ld.memLoopStride[0] = int32_t(tileBytes);
    Inst use = mm;
    if (doubleBuffered) {
      ld.lxLoopStride[0][0] = use.lxLoopStride[1][0] = int32_t(tileBytes);
      ld.lxWrap[0] = use.lxWrap[1] = 2 * tileBytes;
    }
    return std::vector<Inst>{loop(tiles), ld, use, endLoop()};
  };
  ASSERT_OK(h.run(program(false)));
  double serialized = stepNs(h.device, 2);
  ASSERT_OK(h.run(program(true)));
  double overlapped = stepNs(h.device, 3);
  EXPECT_NEAR(serialized, tiles * (dma + pt), tiles * (dma + pt) * 0.01);
  double bound = tiles * std::max(dma, pt) + std::min(dma, pt);
  EXPECT_NEAR(overlapped, bound, bound * 0.02);
  EXPECT_LT(overlapped, serialized * 0.85);
}

TEST(Timing, ComputeRunsAheadOfLoadsItDoesNotRead) {
  // A core issues in program order but starts whatever is ready: SFP work
  // behind hundreds of queued loads it does not read overlaps them (an
  // attention kernel's held query tiles are such loads). The issue window
  // bounds the simulator, not the timing, for runs of this size.
  SimHarness h(idealMemoryArch());
  const uint32_t loads = 100, ops = 800, bytes = 65536;
  rt::DeviceAddr mem = h.upload(std::vector<uint8_t>(loads * bytes));
  Inst ld = load(mem, 0, bytes);
  ld.memLoopStride[0] = ld.lxLoopStride[0][0] = int32_t(bytes);
  ld.lxWrap[0] = 4 * bytes; // LX below the SFP's operands
  Inst neg = sfpUnary(isa::UnaryOp::Neg, 1u << 20, (1u << 20) + 65536, 64, 256,
                      1024, 1024);
  std::vector<Inst> loadAll = {loop(loads), ld, endLoop()};
  std::vector<Inst> computeAll = {loop(ops), neg, endLoop()};
  ASSERT_OK(h.run(loadAll));
  double dma = stepNs(h.device, 0);
  ASSERT_OK(h.run(computeAll));
  double sfp = stepNs(h.device, 1);
  std::vector<Inst> both = loadAll;
  both.insert(both.end(), computeAll.begin(), computeAll.end());
  ASSERT_OK(h.run(both));
  double overlapped = stepNs(h.device, 2);
  ASSERT_GT(std::min(dma, sfp), 0.3 * std::max(dma, sfp));
  EXPECT_NEAR(overlapped, std::max(dma, sfp), std::max(dma, sfp) * 0.02);
}

TEST(Timing, LaunchOverheadAndBarriers) {
  const Arch &a = idealMemoryArch();
  SimHarness h(a);
  Inst op = sfpUnary(isa::UnaryOp::Neg, 0, 0, 8, 64, 256, 256);
  ASSERT_OK(h.runSteps({{op}, {op}, {op}}));
  const rt::SimStats &s = h.device.stats();
  ASSERT_EQ(s.kernels.size(), 3u);
  uint64_t steps = 0;
  for (const rt::KernelStats &k : s.kernels)
    steps += k.durationPs;
  EXPECT_EQ(s.totalPs, uint64_t(a.launchOverheadNs) * 1000 + steps +
                           2 * uint64_t(a.barrierLatencyNs) * 1000);
  EXPECT_EQ(s.kernels[1].startPs, s.kernels[0].startPs +
                                      s.kernels[0].durationPs +
                                      uint64_t(a.barrierLatencyNs) * 1000);
  h.device.resetStats();
  ASSERT_OK(h.device.launch(nullptr, 0));
  EXPECT_EQ(h.device.stats().totalPs, uint64_t(a.launchOverheadNs) * 1000);
}

TEST(Timing, RingTransferCostsHopsAndLinkTime) {
  const Arch &a = idealMemoryArch();
  const uint32_t bytes = 16384, peer = 5;
  SimHarness h(idealMemoryArch());
  Inst send = isa::makeInst(Opcode::RingSend);
  send.arg[0] = 0;
  send.memParam = 0;
  send.arg[2] = bytes;
  Inst recv = isa::makeInst(Opcode::RingRecv);
  recv.arg[0] = 0;
  recv.memParam = 0;
  recv.lx[0] = 65536;
  recv.arg[2] = bytes;
  // Core 0 sends to core `peer`, which receives; others idle.
  std::vector<int64_t> params;
  for (uint32_t c = 0; c <= peer; ++c) {
    params.push_back(c == 0 ? peer : 0); // peer
    params.push_back(c == 0 ? 1 : 0);    // send count
    params.push_back(c == peer ? 1 : 0); // receive count
  }
  ASSERT_OK(h.run({loop(1, 1), send, endLoop(), loop(1, 2), recv, endLoop()},
                  peer + 1, 3, params));
  double expected = bytes * nsPerByte(a.ringLinkBandwidth()) +
                    double(a.ringHops(0, peer) * a.ringHopLatencyCycles) * 1e9 /
                        a.ringClockHz;
  EXPECT_NEAR(stepNs(h.device), expected, 0.01);
  EXPECT_EQ(h.device.stats().ringBytes, bytes);
}

TEST(Timing, MulticastReadsOnce) {
  const Arch &a = idealMemoryArch();
  const uint32_t bytes = 1 << 20, cores = 8;
  for (bool multicast : {true, false}) {
    SimHarness h(a);
    rt::DeviceAddr mem = h.upload(std::vector<uint8_t>(bytes));
    Inst ld = load(mem, 0, bytes);
    if (multicast)
      ld.flags = isa::kFlagMulticast;
    ASSERT_OK(h.run({ld}, cores));
    double once = bytes * nsPerByte(a.memoryReadBandwidth());
    double expected = (multicast ? 1 : cores) * once;
    EXPECT_NEAR(stepNs(h.device), expected + double(a.memoryLatencyNs),
                expected * 0.01)
        << multicast;
    EXPECT_EQ(h.device.stats().bytesRead,
              uint64_t(multicast ? 1 : cores) * bytes);
  }
}

TEST(Timing, StatisticsAndTraceFiles) {
  rt::SimOptions options;
  options.trace = true;
  std::string traces[2], statsText[2];
  for (int run = 0; run < 2; ++run) {
    SimHarness h(idealMemoryArch(), options);
    rt::DeviceAddr mem = h.upload(std::vector<uint8_t>(8192));
    Inst ld = load(mem, 0, 4096);
    Inst op = sfpUnary(isa::UnaryOp::Exp, 8192, 0, 8, 128, 512, 512, DType::F32,
                       DType::F32);
    ASSERT_OK(h.run({loop(3), ld, op, endLoop()}, 2, 0, {}, "softmax \"x\""));
    std::ostringstream trace, stats;
    ASSERT_OK(h.device.writeTrace(trace));
    rt::writeStatsJson(h.device.stats(), idealMemoryArch(), stats);
    traces[run] = trace.str();
    statsText[run] = stats.str();
  }
  // Deterministic, byte for byte.
  EXPECT_EQ(traces[0], traces[1]);
  EXPECT_EQ(statsText[0], statsText[1]);

  nlohmann::json stats = nlohmann::json::parse(statsText[0]);
  for (const char *key : {"total_ns", "roofline_ns", "kernels", "cores",
                          "bytes_read", "bytes_written", "ring_bytes", "macs"})
    EXPECT_TRUE(stats.contains(key)) << key;
  EXPECT_EQ(stats["kernels"].size(), 1u);
  EXPECT_EQ(stats["kernels"][0]["name"], "softmax \"x\"");
  EXPECT_EQ(stats["cores"].size(), size_t(arch().cores));
  double total = stats["total_ns"];
  EXPECT_GT(total, double(arch().launchOverheadNs));
  EXPECT_EQ(stats["bytes_read"], 2 * 3 * 4096);
  for (const auto &core : stats["cores"])
    for (const char *unit : {"pt_util", "sfp_util", "dma_util"}) {
      EXPECT_GE(double(core[unit]), 0.0);
      EXPECT_LE(double(core[unit]), 1.0);
    }
  EXPECT_GT(double(stats["cores"][0]["dma_util"]), 0.0);
  EXPECT_LE(double(stats["roofline_ns"]), total);
  // The kernel's own counters: its bytes are the run's, its DMA busy share
  // of its core-time positive, the rest of the time launch and barriers.
  const auto &kernel = stats["kernels"][0];
  EXPECT_EQ(kernel["bytes_read"], 2 * 3 * 4096);
  EXPECT_GT(double(kernel["dma_util"]), 0.0);
  EXPECT_LE(double(kernel["dma_util"]), 1.0);
  EXPECT_GT(double(kernel["sfp_util"]), 0.0);
  EXPECT_EQ(kernel["bound"], "memory");
  EXPECT_NEAR(double(stats["launch_and_barriers_ns"]) + double(kernel["ns"]),
              total, 1e-6);
  EXPECT_EQ(stats["runs_ns"].size(), 1u);

  nlohmann::json trace = nlohmann::json::parse(traces[0]);
  int instructionEvents = 0, stepEvents = 0;
  std::set<std::string> names;
  for (const auto &e : trace["traceEvents"]) {
    if (e["ph"] != "X")
      continue;
    EXPECT_TRUE(e.contains("ts") && e.contains("dur"));
    (e["pid"] == 0 ? stepEvents : instructionEvents)++;
    if (e["pid"] == 0)
      continue;
    // Named by mnemonic and operation, with the disassembly in the args.
    std::string name = e["name"], text = e["args"]["inst"];
    names.insert(name);
    EXPECT_EQ(text.rfind(name + " ", 0), 0u) << text;
  }
  EXPECT_EQ(stepEvents, 1);
  EXPECT_EQ(instructionEvents, 2 * 3 * 2);
  EXPECT_EQ(names, (std::set<std::string>{"dma_load", "sfp_unary exp"}));
}

} // namespace

TEST(Timing, KernelCountersAddUpToTheTotals) {
  // Two launches of two steps: the per-kernel counters sum to the device's,
  // one time per launch.
  SimHarness h;
  rt::DeviceAddr mem = h.upload(std::vector<uint8_t>(8192));
  for (int launch = 0; launch < 2; ++launch) {
    ASSERT_OK(h.run({load(mem, 0, 4096)}, 1, 0, {}, "a"));
    ASSERT_OK(h.run({load(mem, 0, 8192)}, 2, 0, {}, "b"));
  }
  const rt::SimStats &s = h.device.stats();
  uint64_t bytes = 0, kernelPs = 0, dmaBusy = 0, coreDmaBusy = 0;
  for (const rt::KernelStats &k : s.kernels) {
    bytes += k.bytesRead;
    kernelPs += k.durationPs;
    dmaBusy += k.busy.dmaBusyPs;
  }
  for (const rt::CoreStats &c : s.cores)
    coreDmaBusy += c.dmaBusyPs;
  EXPECT_EQ(bytes, s.bytesRead);
  EXPECT_EQ(dmaBusy, coreDmaBusy);
  EXPECT_EQ(s.launchPs.size(), 4u);
  uint64_t launches = 0;
  for (uint64_t ps : s.launchPs)
    launches += ps;
  EXPECT_EQ(launches, s.totalPs);
  EXPECT_LT(kernelPs, s.totalPs);
  // The profile sums each kernel over its runs and names its module.
  std::ostringstream profile;
  rt::writeProfile(s, arch(), {{"b", "loc(fused<\"layers.0.mlp\">[\"x\"])"}},
                   profile);
  EXPECT_NE(profile.str().find("4 run(s)"), std::string::npos) << profile.str();
  EXPECT_NE(profile.str().find("layers.0.mlp"), std::string::npos);
  EXPECT_EQ(rt::moduleOfLocation("loc(fused<\"layers.0.mlp\">[\"x\"])"),
            "layers.0.mlp");
  EXPECT_EQ(rt::moduleOfLocation("loc(\"model.py\":3:0)"), "");
}
