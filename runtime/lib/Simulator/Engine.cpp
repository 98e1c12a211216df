//===- Engine.cpp - Discrete-event execution of one step ------------------===//

#include "Engine.h"

#include "../LxAccess.h"
#include "MemoryNode.h"
#include "RingLinks.h"
#include "spyre/Arch/Bursts.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <queue>
#include <tuple>

namespace spyre::rt::sim {

using isa::Opcode;

namespace {

struct LoopFrame {
  uint32_t loopPc;
  uint64_t count;
  uint64_t iv;
};

enum class SlotState : uint8_t { Free, Queued, Running, Done };

/// One dynamic instruction in a core's issue window.
struct Slot {
  uint64_t iv[isa::kMaxLoopDepth] = {};
  uint64_t execIndex = 0;
  uint64_t mem = 0;
  uint64_t startPs = 0, endPs = 0;
  int64_t lx[3] = {};
  uint32_t args[4] = {};
  uint32_t pc = 0;
  uint32_t pendingDeps = 0;
  /// Loop nesting depth at this instruction (entries of iv in use).
  uint8_t depth = 0;
  SlotState state = SlotState::Free;
  bool init = true;
  int64_t indexBase = 0;
  detail::LxAccess access;
  /// Sequence numbers of later instructions waiting for this one.
  std::vector<uint64_t> dependents;
};

struct Core {
  uint32_t id = 0;
  // The walker.
  uint32_t pc = 0;
  unsigned depth = 0;
  LoopFrame loops[isa::kMaxLoopDepth] = {};
  bool walkDone = false;
  // The issue window: sequence numbers [head, tail).
  uint64_t head = 0, tail = 0;
  std::vector<Slot> slots;
  std::deque<uint64_t> queues[kNumUnits];
  bool unitBusy[kNumUnits] = {};
  /// The instruction each busy unit runs.
  uint64_t running[kNumUnits] = {};
  // A receive waiting for its message.
  bool waitingRecv = false;
  uint64_t waitingSeq = 0;
  uint32_t waitingSrc = 0, waitingTag = 0;
  uint64_t lastEndPs = 0;
  std::vector<uint64_t> execCount;
  uint8_t *lx = nullptr;
};

struct Event {
  uint64_t time;
  uint64_t order;
  uint32_t core;
  uint64_t seq;
};
struct EventAfter {
  bool operator()(const Event &a, const Event &b) const {
    return a.time != b.time ? a.time > b.time : a.order > b.order;
  }
};

using MessageKey = std::tuple<uint32_t, uint32_t, uint32_t>; // src, dst, tag
struct Message {
  uint64_t arrivalPs;
  uint64_t bytes;
  /// Sent over the partial-sum ring.
  bool partialSum;
  std::vector<uint8_t> data;
};
using MulticastKey = std::tuple<uint32_t, uint64_t, uint64_t, uint64_t>;
struct Multicast {
  uint64_t endPs;
  uint32_t cores;
};
/// Multicast loads waiting for the rest of their cores, at most.
constexpr size_t kMaxPendingMulticasts = size_t(1) << 20;

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
  return buf;
}

uint64_t saturate(UInt128 v) {
  return v > UInt128(UINT64_MAX / 4) ? UINT64_MAX / 4 : uint64_t(v);
}

class StepEngine {
public:
  StepEngine(SimulatorDevice::Impl &dev, const StepRequest &step,
             const DecodedProgram &program, uint32_t traceStep,
             uint64_t startPs)
      : dev_(dev), step_(step), prog_(program), traceStep_(traceStep),
        startPs_(startPs), functional_(!dev.options.timingOnly),
        lxBytes_(uint64_t(dev.arch.lxBytes)), memory_(dev.timing, startPs),
        links_(uint32_t(dev.arch.memoryRingPosition + 1), startPs),
        psumLinks_(uint32_t(dev.arch.cores), startPs) {
    cores_.resize(step.numCores);
    for (uint32_t c = 0; c < step.numCores; ++c) {
      Core &core = cores_[c];
      core.id = c;
      core.slots.resize(kInitialSlots);
      core.lastEndPs = startPs;
      if (prog_.hasMulticast)
        core.execCount.assign(prog_.insts.size(), 0);
      if (functional_)
        core.lx = dev.lx(c);
    }
    multicastPaths_ = farthestPaths(step.numCores);
  }

  Status run(uint64_t &endPs) {
    if (!simulate() || !checkCoresFinished() || !checkMessagesReceived())
      return deviceError(error_);
    endPs = latestEnd();
    return Status::success();
  }

private:
  /// Starts every core, then processes events in time order until none is
  /// left. False on error.
  bool simulate() {
    for (Core &c : cores_)
      if (!advance(c, startPs_))
        return false;
    while (!events_.empty()) {
      Event e = events_.top();
      events_.pop();
      Core &c = cores_[e.core];
      finish(c, e.seq, e.time);
      if (!advance(c, e.time))
        return false;
    }
    return true;
  }

  /// With no events left every core must have finished its program; one
  /// that has not is deadlocked. False (with error_ set) then.
  bool checkCoresFinished() {
    for (Core &c : cores_) {
      if (c.walkDone && c.head == c.tail)
        continue;
      if (c.waitingRecv) {
        const Slot &s = slot(c, c.waitingSeq);
        fail(c, s.pc, s.iv, s.depth,
             "deadlock: waiting for a ring message from core " +
                 std::to_string(c.waitingSrc) + " with tag " +
                 std::to_string(c.waitingTag) + " that is never sent");
      } else {
        fail(c, c.pc, nullptr, 0, "deadlock: the core cannot make progress");
      }
      return false;
    }
    return true;
  }

  /// Every ring message sent must have been received. False (with error_
  /// set) otherwise.
  bool checkMessagesReceived() {
    for (const auto &[key, queue] : mailbox_) {
      if (queue.empty())
        continue;
      error_ = "program '" + std::string(step_.name) + "': core " +
               std::to_string(std::get<0>(key)) + " sent " +
               std::to_string(queue.front().bytes) + " bytes to core " +
               std::to_string(std::get<1>(key)) + " with tag " +
               std::to_string(std::get<2>(key)) + " that were never received";
      return false;
    }
    return true;
  }

  /// The end of the step: when its last core finished (at least its start).
  uint64_t latestEnd() const {
    uint64_t endPs = startPs_;
    for (const Core &c : cores_)
      endPs = std::max(endPs, c.lastEndPs);
    return endPs;
  }

  Slot &slot(Core &c, uint64_t seq) {
    return c.slots[seq & (c.slots.size() - 1)];
  }

  /// Doubles `c`'s ring of slots, each in-flight instruction moving to its
  /// place in the larger ring: a core pays for the window it uses, not for
  /// the whole of it on every step.
  static void growSlots(Core &c) {
    std::vector<Slot> grown(c.slots.size() * 2);
    for (uint64_t seq = c.head; seq < c.tail; ++seq)
      grown[seq & (grown.size() - 1)] =
          std::move(c.slots[seq & (c.slots.size() - 1)]);
    c.slots.swap(grown);
  }

  int64_t param(uint32_t core, uint8_t index) const {
    if (index == isa::kNone)
      return 0;
    return step_.params[size_t(core) * step_.numParams + index];
  }

  /// Records an error at instruction `pc` of core `c`, at loop iteration
  /// iv[0..depth-1]; returns false.
  bool fail(const Core &c, uint32_t pc, const uint64_t *iv, unsigned depth,
            const std::string &message) {
    std::string where = "program '" + std::string(step_.name) + "' core " +
                        std::to_string(c.id);
    if (pc < prog_.insts.size()) {
      where += " instruction " + std::to_string(pc) + " (" +
               isa::opcodeName(prog_.insts[pc].inst.opcode) + ")";
      if (iv && depth > 0) {
        where += " at iteration [";
        for (unsigned l = 0; l < depth; ++l)
          where += (l ? ", " : "") + std::to_string(iv[l]);
        where += "]";
      }
    }
    error_ = where + ": " + message;
    return false;
  }

  void schedule(const Core &c, uint64_t seq, uint64_t time) {
    events_.push(Event{time, order_++, c.id, seq});
  }

  /// Issues what it can, then starts every unit's next instruction that is
  /// ready. False on error.
  bool advance(Core &c, uint64_t now) {
    if (!issue(c))
      return false;
    for (unsigned u = 0; u < kNumUnits; ++u) {
      if (c.unitBusy[u] || c.queues[u].empty())
        continue;
      uint64_t seq = c.queues[u].front();
      if (slot(c, seq).pendingDeps)
        continue;
      c.queues[u].pop_front();
      if (!start(c, seq, now))
        return false;
    }
    return true;
  }

  /// The loop counters of the walker's current position, zero beyond its
  /// depth.
  static void currentIterations(const Core &c,
                                uint64_t iv[isa::kMaxLoopDepth]) {
    for (unsigned l = 0; l < isa::kMaxLoopDepth; ++l)
      iv[l] = l < c.depth ? c.loops[l].iv : 0;
  }

  /// Walks into the loop at c.pc, or past it when it runs no work; false
  /// (with error_ set) on a negative trip count.
  bool enterLoop(Core &c, const DecodedInst &d) {
    int64_t count = d.inst.countParam != isa::kNone
                        ? param(c.id, d.inst.countParam)
                        : int64_t(d.inst.arg[0]);
    // Triangular nests: the count grows with an enclosing loop.
    if (int32_t step = int32_t(d.inst.arg[1]))
      count += int64_t(step) * int64_t(c.loops[d.inst.arg[2]].iv);
    if (count < 0) {
      uint64_t cur[isa::kMaxLoopDepth];
      currentIterations(c, cur);
      fail(c, c.pc, cur, c.depth,
           "negative loop trip count " + std::to_string(count));
      return false;
    }
    if (count == 0 || !d.bodyHasWork) {
      c.pc = d.partner + 1;
      return true;
    }
    c.loops[c.depth++] = LoopFrame{c.pc, uint64_t(count), 0};
    ++c.pc;
    return true;
  }

  /// Walks back to the top of the innermost loop, or out of it after its
  /// last iteration.
  static void endLoop(Core &c) {
    LoopFrame &f = c.loops[c.depth - 1];
    if (++f.iv < f.count) {
      c.pc = f.loopPc + 1;
    } else {
      --c.depth;
      ++c.pc;
    }
  }

  /// The next dynamic instruction of the walker; false when the program is
  /// done (or on error, with error_ set).
  bool walk(Core &c, uint32_t &pc, uint64_t iv[isa::kMaxLoopDepth],
            unsigned &depth) {
    const auto &insts = prog_.insts;
    while (c.pc < insts.size()) {
      if (!withinLimits(c))
        return false;
      const DecodedInst &d = insts[c.pc];
      switch (d.kind) {
      case DecodedInst::Kind::Nop:
        ++c.pc;
        continue;
      case DecodedInst::Kind::Loop:
        if (!enterLoop(c, d))
          return false;
        continue;
      case DecodedInst::Kind::EndLoop:
        endLoop(c);
        continue;
      case DecodedInst::Kind::Exec:
        pc = c.pc++;
        depth = c.depth;
        currentIterations(c, iv);
        return true;
      }
    }
    return false;
  }

  /// Fills the slot of a newly issued instruction.
  static void initSlot(Slot &s, uint32_t pc, const uint64_t *iv,
                       unsigned depth) {
    s.pc = pc;
    s.depth = uint8_t(depth);
    std::copy(iv, iv + isa::kMaxLoopDepth, s.iv);
    s.state = SlotState::Queued;
    s.pendingDeps = 0;
    s.dependents.clear();
  }

  /// The newest unfinished instruction of unit `u` (queued or running)
  /// whose LX access conflicts with `s`'s; UINT64_MAX when none does.
  uint64_t newestConflict(Core &c, unsigned u, const Slot &s) {
    for (auto it = c.queues[u].rbegin(); it != c.queues[u].rend(); ++it)
      if (detail::conflicts(slot(c, *it).access, s.access))
        return *it;
    if (c.unitBusy[u] &&
        detail::conflicts(slot(c, c.running[u]).access, s.access))
      return c.running[u];
    return UINT64_MAX;
  }

  /// Instructions of the same unit finish in order before this one
  /// starts; on every other unit only the newest unfinished instruction
  /// that conflicts matters (the older ones finish before it).
  void addDependencies(Core &c, Slot &s, uint64_t seq, Unit unit) {
    for (unsigned u = 0; u < kNumUnits; ++u) {
      if (u == unit)
        continue;
      uint64_t dependency = newestConflict(c, u, s);
      if (dependency != UINT64_MAX) {
        slot(c, dependency).dependents.push_back(seq);
        ++s.pendingDeps;
      }
    }
  }

  bool issue(Core &c) {
    while (!c.walkDone && c.tail - c.head < kIssueWindow) {
      if (c.tail - c.head == c.slots.size())
        growSlots(c);
      uint32_t pc;
      uint64_t iv[isa::kMaxLoopDepth];
      unsigned depth = 0;
      if (!walk(c, pc, iv, depth)) {
        if (!error_.empty())
          return false;
        c.walkDone = true;
        break;
      }
      uint64_t seq = c.tail;
      Slot &s = slot(c, seq);
      initSlot(s, pc, iv, depth);
      if (!prepare(c, s))
        return false;
      Unit unit = prog_.insts[pc].unit;
      addDependencies(c, s, seq, unit);
      c.queues[unit].push_back(seq);
      ++c.tail;
    }
    return true;
  }

  /// Works out the effective operands of a dynamic instruction and checks
  /// every LX and device memory range it will touch.
  bool prepare(Core &c, Slot &s) {
    const DecodedInst &d = prog_.insts[s.pc];
    const isa::Inst &inst = d.inst;
    clampArgs(c, s, inst);
    for (unsigned o = 0; o < 3; ++o)
      s.lx[o] = lxAddress(s, inst, o);
    setAccumulation(s, inst);
    detail::computeLxAccess(inst, s.args, s.lx, s.access);
    if (!checkLxAccess(c, s))
      return false;
    if (prog_.hasMulticast)
      s.execIndex = c.execCount[s.pc]++;
    if (d.unit == kUnitDma)
      return prepareDeviceAccess(c, s, inst);
    return true;
  }

  /// The effective args: the clamped one cut to what is left of its
  /// dimension at this iteration.
  void clampArgs(const Core &c, Slot &s, const isa::Inst &inst) const {
    std::copy(inst.arg, inst.arg + 4, s.args);
    if (inst.clampLevel == isa::kNone)
      return;
    unsigned level = inst.clampLevel & 0xf;
    unsigned a = inst.clampLevel >> 4;
    Int128 iv = level < isa::kMaxLoopDepth ? Int128(s.iv[level]) : 0;
    Int128 start = Int128(param(c.id, inst.clampParam)) + iv * inst.clampStep;
    Int128 v = Int128(inst.clampTotal) - start;
    s.args[a] = v < 0 ? 0 : v > inst.arg[a] ? inst.arg[a] : uint32_t(v);
  }

  /// The LX address of operand `o` at this iteration.
  static int64_t lxAddress(const Slot &s, const isa::Inst &inst, unsigned o) {
    Int128 offset = 0;
    for (unsigned l = 0; l < isa::kMaxLoopDepth; ++l)
      offset += Int128(s.iv[l]) * inst.lxLoopStride[o][l];
    if (uint32_t wrap = inst.lxWrap[o]) {
      offset %= wrap;
      if (offset < 0)
        offset += wrap;
    }
    Int128 address = Int128(inst.lx[o]) + offset;
    // Far outside LX either way: keep the value representable.
    if (address > Int128(INT64_MAX / 4) || address < -Int128(INT64_MAX / 4))
      address = INT64_MAX / 4;
    return int64_t(address);
  }

  /// Accumulating matmuls and reductions: whether this iteration
  /// initializes the destination, and the arg index base of the tile.
  static void setAccumulation(Slot &s, const isa::Inst &inst) {
    s.init = true;
    s.indexBase = 0;
    Opcode op = Opcode(inst.opcode);
    if (!(inst.flags & isa::kFlagAccumulate) ||
        (op != Opcode::PtMatmul && op != Opcode::SfpReduce))
      return;
    uint32_t level = inst.arg[3];
    s.init = level < isa::kMaxLoopDepth ? s.iv[level] == 0 : false;
    if (level < isa::kMaxLoopDepth)
      s.indexBase = int64_t(uint64_t(inst.arg[2]) * s.iv[level]);
  }

  /// Every LX region of the slot lies inside the scratchpad.
  bool checkLxAccess(const Core &c, const Slot &s) {
    const detail::LxAccess &access = s.access;
    for (unsigned r = 0; r < access.numReads + access.numWrites; ++r) {
      const detail::LxRegion &reg = r < access.numReads
                                        ? access.reads[r]
                                        : access.writes[r - access.numReads];
      if (detail::regionInside(reg, lxBytes_))
        continue;
      Int128 end = reg.end();
      return fail(c, s.pc, s.iv, s.depth,
                  "LX access [" + std::to_string(reg.base) + ", " +
                      (end > Int128(INT64_MAX) ? std::string("overflow")
                                               : std::to_string(int64_t(end))) +
                      ") outside the " + std::to_string(lxBytes_) +
                      "-byte scratchpad");
    }
    return true;
  }

  /// Sets s.mem to the device address of a DMA at this iteration; false
  /// (with error_ set) when it is outside the address space.
  bool computeDeviceAddress(Core &c, Slot &s, const isa::Inst &inst,
                            Int128 &base) {
    base = Int128(inst.memAddr) + param(c.id, inst.memParam);
    for (unsigned l = 0; l < isa::kMaxLoopDepth; ++l)
      base += Int128(s.iv[l]) * inst.memLoopStride[l];
    if (base < 0 || base > Int128(UINT64_MAX))
      return fail(c, s.pc, s.iv, s.depth, "device address out of range");
    s.mem = uint64_t(base);
    return true;
  }

  /// [lo, hi) as the messages show it.
  static std::string describeDeviceRange(Int128 lo, Int128 hi,
                                         bool representable) {
    return representable
               ? "[" + hex(uint64_t(lo)) + ", " + hex(uint64_t(hi)) + ")"
               : std::string("beyond the address space");
  }

  /// The bytes [lo, hi) must lie inside the tensor the instruction's
  /// relocation names (its confine window).
  bool checkConfineWindow(Core &c, Slot &s, Int128 lo, Int128 hi,
                          bool representable, const std::string &range) {
    const DeviceRange &w = step_.confine[s.pc];
    if (representable && w.lo < w.hi && lo >= Int128(w.lo) &&
        hi <= Int128(w.hi))
      return true;
    return fail(c, s.pc, s.iv, s.depth,
                "device memory access " + range +
                    (w.lo < w.hi ? " leaves the tensor its relocation "
                                   "names, [" +
                                       hex(w.lo) + ", " + hex(w.hi) + ")"
                                 : " by an instruction that no relocation "
                                   "names a tensor for"));
  }

  /// The device address of a DMA at this iteration; checks that the bytes
  /// it touches lie inside the tensor its relocation names (the step's
  /// confine windows) or, for a bare step, inside one allocation.
  bool prepareDeviceAccess(Core &c, Slot &s, const isa::Inst &inst) {
    Int128 base;
    if (!computeDeviceAddress(c, s, inst, base))
      return false;
    Int128 lo = base, hi = base;
    if (!deviceSpan(s, inst, lo, hi))
      return true;
    bool representable = lo >= 0 && hi <= Int128(UINT64_MAX);
    std::string range = describeDeviceRange(lo, hi, representable);
    if (step_.confine)
      return checkConfineWindow(c, s, lo, hi, representable, range);
    if (representable && dev_.allocator.find(uint64_t(lo), uint64_t(hi - lo)))
      return true;
    return fail(c, s.pc, s.iv, s.depth,
                "device memory access " + range +
                    " is not inside one allocation");
  }

  /// Widens [lo, hi) by `count` - 1 steps of `pitch` bytes (down for a
  /// negative pitch).
  static void extendSpan(Int128 &lo, Int128 &hi, uint64_t count,
                         int32_t pitch) {
    Int128 span = Int128(count - 1) * pitch;
    (span < 0 ? lo : hi) += span;
  }

  /// A gather or scatter touches the rows of its table: arg[1] rows
  /// pitch[0] apart. Whether it touches any.
  static bool gatherSpan(const Slot &s, const isa::Inst &inst, Int128 &lo,
                         Int128 &hi) {
    bool touches = s.args[0] && s.args[3] && inst.arg[1];
    if (touches)
      extendSpan(lo, hi, inst.arg[1], inst.pitch[0]);
    return touches;
  }

  /// A strided DMA touches args[0..2] rows of its three dimensions.
  /// Whether it touches any.
  static bool stridedSpan(const Slot &s, const isa::Inst &inst, Int128 &lo,
                          Int128 &hi) {
    bool touches = s.args[0] && s.args[1] && s.args[2] && s.args[3];
    for (unsigned dim = 0; touches && dim < 3; ++dim)
      extendSpan(lo, hi, s.args[dim], inst.pitch[dim]);
    return touches;
  }

  /// Widens [lo, hi) (the DMA's base address) to the device bytes it
  /// touches; false when it touches none.
  static bool deviceSpan(const Slot &s, const isa::Inst &inst, Int128 &lo,
                         Int128 &hi) {
    Opcode op = Opcode(inst.opcode);
    bool touches = op == Opcode::DmaGather || op == Opcode::DmaScatter
                       ? gatherSpan(s, inst, lo, hi)
                       : stridedSpan(s, inst, lo, hi);
    hi += s.args[3];
    return touches;
  }

  /// The ring position of the memory node.
  uint32_t memoryNode() const { return links_.nodes() - 1; }

  /// The ring paths a memory transfer holds: one per direction (a path of
  /// no hops holds nothing).
  using Route = std::array<RingLinks::Path, 2>;

  /// The paths from the memory node to the farthest of cores 0..cores-1
  /// in each direction: what a multicast to all of them holds.
  Route farthestPaths(uint32_t cores) const {
    Route way = {RingLinks::Path{memoryNode(), 0, false},
                 RingLinks::Path{memoryNode(), 0, true}};
    for (uint32_t c = 0; c < cores; ++c) {
      RingLinks::Path p = links_.shortest(memoryNode(), c);
      way[p.clockwise].hops = std::max(way[p.clockwise].hops, p.hops);
    }
    return way;
  }

  /// A transfer of `bytes` (charged `charged` at the memory node) between
  /// the memory node and the cores at the ends of `paths`: the node serves
  /// it in arrival order, the links of the paths carry it from the start of
  /// that service. It ends when both are done, plus the memory latency.
  uint64_t memoryTransfer(uint64_t now, uint64_t bytes, uint64_t charged,
                          bool write, const Route &paths) {
    MemoryNode::Service service = memory_.serve(now, charged, write);
    uint64_t link = dev_.timing.linkPs(bytes), end = service.endPs;
    for (const RingLinks::Path &path : paths)
      end = std::max(end, links_.reserve(path, service.startPs, link) + link);
    return end + dev_.timing.memoryLatencyPs();
  }

  /// The path between core `core` and the memory node, in the direction
  /// the data flows.
  Route corePath(uint32_t core, bool write) const {
    return {write ? links_.shortest(core, memoryNode())
                  : links_.shortest(memoryNode(), core),
            RingLinks::Path{}};
  }

  /// Starts the instruction in `seq` on its unit at `now`: accounts its time
  /// and, in functional mode, computes it.
  bool start(Core &c, uint64_t seq, uint64_t now) {
    Slot &s = slot(c, seq);
    const DecodedInst &d = prog_.insts[s.pc];
    s.state = SlotState::Running;
    s.startPs = now;
    c.unitBusy[d.unit] = true;
    c.running[d.unit] = seq;
    uint64_t end = now;
    switch (d.unit) {
    case kUnitDma:
      if (!startDma(c, s, now, end))
        return false;
      break;
    case kUnitPt:
      end = startMatmul(c, s, now);
      break;
    case kUnitSfp:
      end = startSfp(c, s, now);
      break;
    default:
      if (Opcode(d.inst.opcode) == Opcode::RingSend)
        return startSend(c, s, seq, now);
      return startRecv(c, s, seq, now);
    }
    if (!withinWorkLimits(c, s))
      return false;
    s.endPs = end;
    schedule(c, seq, end);
    return true;
  }

  /// What the kernels see of a slot.
  ExecView view(const Slot &s) const {
    const DecodedInst &d = prog_.insts[s.pc];
    ExecView v;
    v.inst = &d.inst;
    v.args = s.args;
    v.lx = s.lx;
    std::copy(d.storage, d.storage + 3, v.storage);
    v.init = s.init;
    v.indexBase = s.indexBase;
    v.mem = s.mem;
    return v;
  }

  bool startDma(Core &c, Slot &s, uint64_t now, uint64_t &end) {
    Opcode op = Opcode(prog_.insts[s.pc].inst.opcode);
    bool rows = op == Opcode::DmaGather || op == Opcode::DmaScatter;
    uint64_t bytes = rows
                         ? uint64_t(s.args[0]) * s.args[3]
                         : saturate((UInt128)(uint64_t(s.args[0]) * s.args[1]) *
                                    (uint64_t(s.args[2]) * s.args[3]));
    end = dmaTransfer(c, s, now, bytes, chargedBytes(s, rows));
    if (!functional_)
      return true;
    ExecView v = view(s);
    std::string error;
    switch (op) {
    case Opcode::DmaLoad:
      execDmaLoad(v, dev_.memory, c.lx);
      return true;
    case Opcode::DmaStore:
      execDmaStore(v, dev_.memory, c.lx);
      return true;
    case Opcode::DmaGather:
      return execDmaGather(v, dev_.memory, c.lx, error) ||
             fail(c, s.pc, s.iv, s.depth, error);
    default:
      return execDmaScatter(v, dev_.memory, c.lx, error) ||
             fail(c, s.pc, s.iv, s.depth, error);
    }
  }

  /// The bytes the memory node charges a DMA: its runs at burst
  /// granularity (a gather's or scatter's rows are scattered runs).
  uint64_t chargedBytes(const Slot &s, bool rows) const {
    const isa::Inst &inst = prog_.insts[s.pc].inst;
    uint64_t burst = dev_.timing.memoryBurstBytes();
    if (rows)
      return saturate(
          UInt128(burstChargedBytes(burst, s.args[3], nullptr, nullptr, 0)) *
          s.args[0]);
    uint64_t counts[3] = {s.args[0], s.args[1], s.args[2]};
    int64_t pitches[3] = {inst.pitch[0], inst.pitch[1], inst.pitch[2]};
    return burstChargedBytes(burst, s.args[3], counts, pitches, 3);
  }

  /// The end time of a DMA of `bytes` (charged `charged`) started at `now`
  /// by core `c`; counts the bytes.
  uint64_t dmaTransfer(const Core &c, const Slot &s, uint64_t now,
                       uint64_t bytes, uint64_t charged) {
    chargeWork(bytes);
    const isa::Inst &inst = prog_.insts[s.pc].inst;
    SimStats &stats = dev_.stats;
    if (!(inst.flags & isa::kFlagMulticast)) {
      Opcode op = Opcode(inst.opcode);
      bool store = op == Opcode::DmaStore || op == Opcode::DmaScatter;
      (store ? stats.bytesWritten : stats.bytesRead) += bytes;
      return memoryTransfer(now, bytes, charged, store, corePath(c.id, store));
    }
    MulticastKey key{s.pc, s.execIndex, s.mem, bytes};
    auto it = multicast_.find(key);
    if (it != multicast_.end()) {
      // Delivered by the first issuer's read.
      uint64_t end =
          std::max(it->second.endPs, now + dev_.timing.linkPs(bytes));
      if (++it->second.cores == step_.numCores)
        multicast_.erase(it); // everyone has it
      return end;
    }
    uint64_t end = memoryTransfer(now, bytes, charged, false,
                                  step_.numCores > 1 ? multicastPaths_
                                                     : corePath(c.id, false));
    // Bound the bookkeeping of loads some cores never join.
    if (multicast_.size() >= kMaxPendingMulticasts)
      multicast_.clear();
    if (step_.numCores > 1)
      multicast_[key] = Multicast{end, 1};
    stats.bytesRead += bytes;
    return end;
  }

  uint64_t startMatmul(Core &c, const Slot &s, uint64_t now) {
    SimStats &stats = dev_.stats;
    uint64_t m = s.args[0], k = s.args[1], n = s.args[2];
    stats.macs += m * k * n;
    chargeWork(m * k * n);
    stats.paddedMacs += dev_.timing.paddedMacs(m, k, n);
    if (functional_)
      execPtMatmul(view(s), c.lx, dev_.scratch);
    return now + dev_.timing.ptPs(m, k, n);
  }

  uint64_t startSfp(Core &c, const Slot &s, uint64_t now) {
    const DecodedInst &d = prog_.insts[s.pc];
    chargeWork(s.args[0] * s.args[1]);
    if (functional_) {
      ExecView v = view(s);
      switch (Opcode(d.inst.opcode)) {
      case Opcode::SfpUnary:
        execSfpUnary(v, c.lx, dev_.scratch);
        break;
      case Opcode::SfpBinary:
        execSfpBinary(v, c.lx, dev_.scratch);
        break;
      case Opcode::SfpSelect:
        execSfpSelect(v, c.lx, dev_.scratch);
        break;
      case Opcode::SfpReduce:
        execSfpReduce(v, c.lx, dev_.scratch);
        break;
      default:
        execSfpTranspose(v, c.lx);
        break;
      }
    }
    return now + dev_.timing.sfpPs(s.args[0], s.args[1], d.sfpElemsPerStick,
                                   d.complexOp);
  }

  /// The peer of a ring instruction: arg[0] + P(memParam), a core of the
  /// step other than `c`.
  bool ringPeer(Core &c, Slot &s, uint32_t &peer) {
    const isa::Inst &inst = prog_.insts[s.pc].inst;
    Int128 p = Int128(s.args[0]) + param(c.id, inst.memParam);
    if (p < 0 || p >= Int128(step_.numCores))
      return fail(c, s.pc, s.iv, s.depth,
                  "ring peer core " + std::to_string(int64_t(p)) +
                      " out of range (the step runs on " +
                      std::to_string(step_.numCores) + " cores)");
    peer = uint32_t(p);
    if (peer == c.id)
      return fail(c, s.pc, s.iv, s.depth, "ring transfer with its own core");
    return true;
  }

  bool startSend(Core &c, Slot &s, uint64_t seq, uint64_t now) {
    uint32_t peer, tag = s.args[1];
    uint64_t bytes = s.args[2];
    chargeWork(bytes);
    if (!ringPeer(c, s, peer))
      return false;
    // The shortest way round; every link on the path carries the transfer
    // for the same interval. Partial sums take their own rings.
    bool partialSum = prog_.insts[s.pc].inst.flags & isa::kFlagPartialSum;
    RingLinks &ring = partialSum ? psumLinks_ : links_;
    RingLinks::Path path = ring.shortest(c.id, peer);
    uint64_t transfer =
        partialSum ? dev_.timing.psumLinkPs(bytes) : dev_.timing.linkPs(bytes);
    uint64_t end = ring.reserve(path, now, transfer) + transfer;
    uint64_t hops = partialSum ? dev_.timing.psumHopsPs(path.hops)
                               : dev_.timing.hopsPs(path.hops);
    Message msg;
    msg.arrivalPs = end + hops;
    msg.bytes = bytes;
    msg.partialSum = partialSum;
    if (functional_)
      msg.data.assign(c.lx + s.lx[1], c.lx + s.lx[1] + bytes);
    dev_.stats.ringBytes += bytes;
    s.endPs = end;
    schedule(c, seq, end);
    Core &r = cores_[peer];
    if (r.waitingRecv && r.waitingSrc == c.id && r.waitingTag == tag)
      return deliver(r, msg);
    // Messages wait in (modelled) ring buffers; more than all the LX of the
    // step's cores cannot be in flight.
    mailboxBytes_ += bytes;
    if (mailboxBytes_ > uint64_t(step_.numCores) * lxBytes_)
      return fail(c, s.pc, s.iv, s.depth,
                  "more than " +
                      std::to_string(uint64_t(step_.numCores) * lxBytes_) +
                      " bytes of ring messages wait to be received (a "
                      "missing receive?)");
    mailbox_[MessageKey{c.id, peer, tag}].push_back(std::move(msg));
    return true;
  }

  bool startRecv(Core &c, Slot &s, uint64_t seq, uint64_t) {
    uint32_t peer, tag = s.args[1];
    if (!ringPeer(c, s, peer))
      return false;
    c.waitingRecv = true;
    c.waitingSeq = seq;
    c.waitingSrc = peer;
    c.waitingTag = tag;
    auto it = mailbox_.find(MessageKey{peer, c.id, tag});
    if (it == mailbox_.end() || it->second.empty())
      return true; // the unit stays busy until the message comes
    Message msg = std::move(it->second.front());
    it->second.pop_front();
    mailboxBytes_ -= msg.bytes;
    if (it->second.empty())
      mailbox_.erase(it);
    return deliver(c, msg);
  }

  /// Completes the waiting receive of `r` with `msg`.
  bool deliver(Core &r, const Message &msg) {
    r.waitingRecv = false;
    Slot &s = slot(r, r.waitingSeq);
    if (msg.bytes != s.args[2])
      return fail(r, s.pc, s.iv, s.depth,
                  "ring message of " + std::to_string(msg.bytes) +
                      " bytes from core " + std::to_string(r.waitingSrc) +
                      " does not match the " + std::to_string(s.args[2]) +
                      " bytes expected");
    uint8_t flags = prog_.insts[s.pc].inst.flags;
    if (msg.partialSum != bool(flags & isa::kFlagPartialSum))
      return fail(r, s.pc, s.iv, s.depth,
                  std::string("a message over the ") +
                      (msg.partialSum ? "partial-sum" : "data") +
                      " ring from core " + std::to_string(r.waitingSrc) +
                      " meets a receive on the other ring");
    if (functional_ && msg.bytes)
      receiveInto(r.lx + s.lx[0], msg, flags & isa::kFlagAccumulate);
    s.endPs = std::max(msg.arrivalPs, s.startPs);
    schedule(r, r.waitingSeq, s.endPs);
    return true;
  }

  /// A message's bytes into LX, or its f32 partial sums added to what is
  /// there (an accumulating receive).
  static void receiveInto(uint8_t *dst, const Message &msg, bool accumulate) {
    if (!accumulate) {
      std::memcpy(dst, msg.data.data(), msg.bytes);
      return;
    }
    for (uint64_t at = 0; at + 4 <= msg.bytes; at += 4) {
      float sum, part;
      std::memcpy(&sum, dst + at, 4);
      std::memcpy(&part, msg.data.data() + at, 4);
      sum += part;
      std::memcpy(dst + at, &sum, 4);
    }
  }

  void finish(Core &c, uint64_t seq, uint64_t now) {
    Slot &s = slot(c, seq);
    const DecodedInst &d = prog_.insts[s.pc];
    s.state = SlotState::Done;
    c.unitBusy[d.unit] = false;
    c.lastEndPs = std::max(c.lastEndPs, now);
    CoreStats &cs = dev_.stats.cores[c.id];
    uint64_t busy = now - s.startPs;
    switch (d.unit) {
    case kUnitDma:
      cs.dmaBusyPs += busy;
      break;
    case kUnitPt:
      cs.ptBusyPs += busy;
      break;
    case kUnitSfp:
      cs.sfpBusyPs += busy;
      break;
    default:
      cs.ringBusyPs += busy;
      break;
    }
    ++cs.instructions;
    ++dev_.stats.instructions;
    ++instructions_;
    if (dev_.options.trace)
      dev_.trace.addInst(TraceRecorder::InstEvent{
          s.startPs, now, traceStep_, s.pc, uint16_t(c.id), uint8_t(d.unit)});
    for (uint64_t dep : s.dependents)
      --slot(c, dep).pendingDeps;
    s.dependents.clear();
    while (c.head < c.tail && slot(c, c.head).state == SlotState::Done) {
      slot(c, c.head).state = SlotState::Free;
      ++c.head;
    }
  }

public:
  uint64_t instructions_ = 0;

private:
  SimulatorDevice::Impl &dev_;
  const StepRequest &step_;
  const DecodedProgram &prog_;
  uint32_t traceStep_;
  uint64_t startPs_;
  bool functional_;
  uint64_t lxBytes_;
  MemoryNode memory_;
  RingLinks links_;
  /// The two partial-sum rings (one per direction) join the cores only.
  RingLinks psumLinks_;
  /// What a multicast load to the step's cores holds of the ring.
  Route multicastPaths_;
  std::vector<Core> cores_;
  std::priority_queue<Event, std::vector<Event>, EventAfter> events_;
  uint64_t order_ = 0;
  std::map<MessageKey, std::deque<Message>> mailbox_;
  std::map<MulticastKey, Multicast> multicast_;
  /// Payload bytes of ring messages sent but not yet received.
  uint64_t mailboxBytes_ = 0;
  uint64_t dynamicCount_ = 0;
  /// Functional work of this step (SimOptions::maxWorkPerStep).
  uint64_t work_ = 0;

  /// Counts the host work of an instruction being started (functional
  /// simulation only; withinWorkLimits checks it).
  void chargeWork(uint64_t units) {
    if (!functional_)
      return;
    work_ += units;
    dev_.launchWork += units;
  }

  /// One more dynamic instruction: false (and the step fails) once it
  /// passes a limit of SimOptions.
  bool withinLimits(Core &c) {
    const SimOptions &o = dev_.options;
    auto stop = [&](uint64_t limit, const char *what, const char *option) {
      fail(c, c.pc, nullptr, 0,
           "exceeded the simulator's limit of " + std::to_string(limit) + " " +
               what + " (SimOptions::" + option + "; runaway loop?)");
      return false;
    };
    if (++dynamicCount_ > o.maxInstructionsPerStep)
      return stop(o.maxInstructionsPerStep, "dynamic instructions per step",
                  "maxInstructionsPerStep");
    if (++dev_.launchInstructions > o.maxInstructionsPerLaunch)
      return stop(o.maxInstructionsPerLaunch, "dynamic instructions per launch",
                  "maxInstructionsPerLaunch");
    return true;
  }

  /// False (and the step fails) once the work started so far passes a
  /// limit of SimOptions; checked as each instruction starts, before its
  /// successor can.
  bool withinWorkLimits(Core &c, const Slot &s) {
    const SimOptions &o = dev_.options;
    auto stop = [&](uint64_t limit, const char *per, const char *option) {
      fail(c, s.pc, s.iv, s.depth,
           "exceeded the simulator's limit of " + std::to_string(limit) +
               " units of work per " + per +
               " (MACs, SFP elements, bytes moved) (SimOptions::" + option +
               "; runaway loop?)");
      return false;
    };
    if (work_ > o.maxWorkPerStep)
      return stop(o.maxWorkPerStep, "step", "maxWorkPerStep");
    if (dev_.launchWork > o.maxWorkPerLaunch)
      return stop(o.maxWorkPerLaunch, "launch", "maxWorkPerLaunch");
    return true;
  }
  std::string error_;
};

} // namespace

Status runStep(SimulatorDevice::Impl &device, const StepRequest &step,
               const DecodedProgram &program, uint32_t traceStep,
               uint64_t startPs, uint64_t &endPs) {
  StepEngine engine(device, step, program, traceStep, startPs);
  return engine.run(endPs);
}

} // namespace spyre::rt::sim
