//===- Trace.cpp - Chrome trace of a simulation ---------------------------===//

#include "Trace.h"

#include "DecodedProgram.h"
#include "spyre/ISA/ISA.h"

#include <cinttypes>
#include <cstdio>
#include <ostream>

namespace spyre::rt::sim {

namespace {

/// Picoseconds as the microseconds of the trace format, exactly (to the ps).
std::string micros(uint64_t ps) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%" PRIu64 ".%06" PRIu64, ps / 1000000,
                ps % 1000000);
  return buf;
}

/// JSON string escaping of a kernel name.
std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

} // namespace

void TraceRecorder::write(std::ostream &os, uint32_t numCores) const {
  os << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&]() -> std::ostream & {
    if (!first)
      os << ",\n";
    first = false;
    return os;
  };
  sep() << "{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\","
           "\"args\":{\"name\":\"device\"}}";
  sep() << "{\"ph\":\"M\",\"pid\":0,\"tid\":0,\"name\":\"thread_name\","
           "\"args\":{\"name\":\"steps\"}}";
  for (uint32_t c = 0; c < numCores; ++c) {
    sep() << "{\"ph\":\"M\",\"pid\":" << c + 1
          << ",\"name\":\"process_name\",\"args\":{\"name\":\"core " << c
          << "\"}}";
    sep() << "{\"ph\":\"M\",\"pid\":" << c + 1
          << ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":"
          << c + 1 << "}}";
    for (unsigned u = 0; u < kNumUnits; ++u)
      sep() << "{\"ph\":\"M\",\"pid\":" << c + 1 << ",\"tid\":" << u
            << ",\"name\":\"thread_name\",\"args\":{\"name\":\""
            << unitName(u) << "\"}}";
  }
  for (const StepSpan &s : steps_)
    sep() << "{\"ph\":\"X\",\"pid\":0,\"tid\":0,\"name\":" << quoted(s.name)
          << ",\"ts\":" << micros(s.startPs)
          << ",\"dur\":" << micros(s.endPs - s.startPs) << "}";
  for (const InstEvent &e : insts_)
    sep() << "{\"ph\":\"X\",\"pid\":" << e.core + 1 << ",\"tid\":"
          << unsigned(e.unit) << ",\"name\":\"" << isa::opcodeName(e.opcode)
          << "\",\"ts\":" << micros(e.startPs)
          << ",\"dur\":" << micros(e.endPs - e.startPs)
          << ",\"args\":{\"pc\":" << e.pc << ",\"step\":"
          << quoted(e.step < steps_.size() ? steps_[e.step].name : "") << "}}";
  os << "\n],\"otherData\":{\"dropped_events\":" << dropped_ << "}}\n";
}

} // namespace spyre::rt::sim
