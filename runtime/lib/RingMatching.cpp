//===- RingMatching.cpp - Ring sends and receives pair up -----------------===//
//
// Every core's ring messages are counted per (sender, receiver, tag), each
// instruction as many times as its enclosing loops run on that core (trip
// counts and peers read from the core's parameters), and every flow must
// have as many receives as sends, of as many bytes, on the same ring (the
// data ring or the partial-sum rings). A program that fails
// would deadlock or leave messages behind: the loader refuses it instead
// of the run failing halfway. Counting cannot see an order that deadlocks
// with matching counts (two cores that both receive first); the simulator
// still reports those when they run.
//
//===----------------------------------------------------------------------===//

#include "spyre/Runtime/ProgramVerifier.h"

#include <cstring>
#include <map>
#include <tuple>
#include <vector>

namespace spyre::rt {

using isa::Opcode;

namespace {

uint64_t saturatingMul(uint64_t a, uint64_t b) {
  return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}
uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

struct Traffic {
  uint64_t messages = 0, bytes = 0;
  void add(uint64_t times, uint64_t size) {
    messages = saturatingAdd(messages, times);
    bytes = saturatingAdd(bytes, saturatingMul(times, size));
  }
  bool operator==(const Traffic &o) const {
    return messages == o.messages && bytes == o.bytes;
  }
};

/// (sender, receiver, tag, over the partial-sum ring) -> what is sent and
/// what is received.
using Flows = std::map<std::tuple<int64_t, int64_t, uint32_t, bool>,
                       std::pair<Traffic, Traffic>>;

std::string describe(const Traffic &t) {
  return std::to_string(t.messages) + " message(s) of " +
         std::to_string(t.bytes) + " bytes in all";
}

/// Every flow has as many receives as sends, of as many bytes.
bool pairUp(const Flows &flows, std::string &error) {
  for (const auto &[key, flow] : flows) {
    if (flow.first == flow.second)
      continue;
    auto [sender, receiver, tag, partialSum] = key;
    error = std::string(partialSum ? "partial-sum " : "") +
            "ring messages with tag " + std::to_string(tag) + " from core " +
            std::to_string(sender) + " to core " + std::to_string(receiver) +
            " do not pair up: sent " + describe(flow.first) + ", received " +
            describe(flow.second) + "; the program would deadlock or leave " +
            "messages behind";
    return false;
  }
  return true;
}

/// How often an instruction runs: the product of its loops' trip counts.
uint64_t timesRun(const std::vector<uint64_t> &trips) {
  uint64_t times = 1;
  for (uint64_t t : trips)
    times = saturatingMul(times, t);
  return times;
}

/// Counts one core's ring messages into the flows.
class CoreMessages {
public:
  CoreMessages(uint32_t core, uint32_t numCores, uint32_t numParams,
               const std::vector<int64_t> &params, Flows &flows)
      : core(core), numCores(numCores), numParams(numParams), params(params),
        flows(flows) {}

  enum class Result { Counted, LeftToRun, Error };

  /// Walks the program: loops push and pop trip counts, ring instructions
  /// add to their flow.
  Result walk(const uint8_t *image, size_t numInsts, bool &anyRing,
              std::string &error) {
    for (size_t i = 0; i < numInsts; ++i) {
      isa::Inst inst;
      std::memcpy(&inst, image + i * isa::kInstBytes, sizeof(inst));
      Opcode op = Opcode(inst.opcode);
      if (op == Opcode::Loop) {
        enterLoop(inst);
        continue;
      }
      if (op == Opcode::EndLoop) {
        if (!trips.empty())
          trips.pop_back();
        continue;
      }
      if (op != Opcode::RingSend && op != Opcode::RingRecv)
        continue;
      anyRing = true;
      if (triangular)
        return Result::LeftToRun;
      if (!count(i, inst, error))
        return Result::Error;
    }
    return Result::Counted;
  }

private:
  uint32_t core, numCores, numParams;
  const std::vector<int64_t> &params;
  Flows &flows;
  /// Trip counts of the enclosing loops; a triangular loop (its count
  /// varies with an outer counter) makes the counts unknowable here.
  std::vector<uint64_t> trips;
  unsigned triangular = 0;

  int64_t param(uint8_t slot) const {
    if (slot == isa::kNone || slot >= numParams ||
        size_t(core) * numParams + slot >= params.size())
      return 0;
    return params[size_t(core) * numParams + slot];
  }

  void enterLoop(const isa::Inst &inst) {
    int64_t n = inst.countParam != isa::kNone ? param(inst.countParam)
                                              : int64_t(inst.arg[0]);
    trips.push_back(n > 0 ? uint64_t(n) : 0);
    triangular += int32_t(inst.arg[1]) != 0;
  }

  /// Adds ring instruction `i` to its flow, as often as its loops run.
  bool count(size_t i, const isa::Inst &inst, std::string &error) {
    uint64_t times = timesRun(trips);
    if (!times)
      return true;
    int64_t peer;
    if (__builtin_add_overflow(int64_t(inst.arg[0]), param(inst.memParam),
                               &peer))
      peer = -1; // out of range either way
    if (peer < 0 || peer >= int64_t(numCores)) {
      error = "instruction " + std::to_string(i) + " (" +
              isa::opcodeName(inst.opcode) + ") on core " +
              std::to_string(core) + ": ring peer " + std::to_string(peer) +
              " out of range (the program runs on " + std::to_string(numCores) +
              " cores)";
      return false;
    }
    bool send = Opcode(inst.opcode) == Opcode::RingSend;
    int64_t sender = send ? core : peer, receiver = send ? peer : core;
    bool partialSum = inst.flags & isa::kFlagPartialSum;
    auto &flow = flows[{sender, receiver, inst.arg[1], partialSum}];
    (send ? flow.first : flow.second).add(times, inst.arg[2]);
    return true;
  }
};

} // namespace

bool verifyRingMatching(const uint8_t *image, size_t numInsts,
                        uint32_t numCores, uint32_t numParams,
                        const std::vector<int64_t> &params,
                        std::string &error) {
  Flows flows;
  bool anyRing = false;
  for (uint32_t core = 0; core < numCores; ++core) {
    CoreMessages messages(core, numCores, numParams, params, flows);
    switch (messages.walk(image, numInsts, anyRing, error)) {
    case CoreMessages::Result::Counted:
      break;
    case CoreMessages::Result::LeftToRun:
      return true;
    case CoreMessages::Result::Error:
      return false;
    }
  }
  return !anyRing || pairUp(flows, error);
}

} // namespace spyre::rt
