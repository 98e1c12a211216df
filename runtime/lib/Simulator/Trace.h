//===- Trace.h - Chrome trace of a simulation -------------------*- C++ -*-===//
//
// Records one event per executed instruction and one per step, and writes
// them in the Chrome trace event format (JSON object with "traceEvents"),
// which Perfetto and chrome://tracing load: process 0 is the device (one
// span per step), process c + 1 is core c, with one thread per unit. An
// instruction event is named by its mnemonic and operation and carries the
// disassembled instruction (spyre/ISA/Disassembler.h) in its args. Host
// spans (stream commands, PCIe transfers: Streams.h) go to one more
// process, "host", with a thread per track.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_SIMULATOR_TRACE_H
#define SPYRE_RUNTIME_SIMULATOR_TRACE_H

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace spyre::rt::sim {

class TraceRecorder {
public:
  struct InstEvent {
    uint64_t startPs, endPs;
    uint32_t step;
    uint32_t pc;
    uint16_t core;
    uint8_t unit;
  };
  struct StepSpan {
    std::string name;
    uint64_t startPs, endPs;
    /// The program the step ran (an index into programs_).
    uint32_t program;
  };

  explicit TraceRecorder(uint64_t maxEvents = 0) : maxEvents_(maxEvents) {}
  void setMaxEvents(uint64_t n) { maxEvents_ = n; }
  /// Records an instruction; false once the cap is reached (counted).
  void addInst(const InstEvent &e) {
    if (insts_.size() < maxEvents_)
      insts_.push_back(e);
    else
      ++dropped_;
  }
  /// Starts a step running the `numInsts` instructions at `image` (as
  /// patched for the step); returns its index.
  uint32_t addStep(std::string name, const uint8_t *image, uint32_t numInsts,
                   uint64_t startPs, uint64_t endPs);
  void setStepEnd(uint32_t step, uint64_t endPs) { steps_[step].endPs = endPs; }
  /// Records a host-side span on `track` (counted against the cap).
  void addHostSpan(const std::string &track, const std::string &name,
                   uint64_t startPs, uint64_t endPs);
  uint64_t dropped() const { return dropped_; }
  void clear() {
    insts_.clear();
    steps_.clear();
    programs_.clear();
    programIndex_.clear();
    hostSpans_.clear();
    tracks_.clear();
    dropped_ = 0;
  }
  /// Writes the JSON trace for a device of `numCores` cores.
  void write(std::ostream &os, uint32_t numCores) const;

private:
  uint64_t maxEvents_;
  uint64_t dropped_ = 0;
  std::vector<InstEvent> insts_;
  std::vector<StepSpan> steps_;
  /// The distinct program images the steps ran (keys of programIndex_), so
  /// that repeated launches of a kernel keep one copy.
  std::vector<const std::string *> programs_;
  std::map<std::string, uint32_t> programIndex_;
  struct HostSpan {
    uint32_t track;
    std::string name;
    uint64_t startPs, endPs;
  };
  std::vector<HostSpan> hostSpans_;
  /// Host track names, in order of first use (their thread ids).
  std::vector<std::string> tracks_;
};

} // namespace spyre::rt::sim

#endif // SPYRE_RUNTIME_SIMULATOR_TRACE_H
