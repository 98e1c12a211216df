//===- Trace.cpp - Chrome trace of a simulation ---------------------------===//

#include "Trace.h"

#include "DecodedProgram.h"
#include "spyre/ISA/Disassembler.h"
#include "spyre/ISA/ISA.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
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

/// The name and the disassembly of each instruction of a program image.
struct InstTexts {
  std::vector<std::string> names, texts;
};

InstTexts disassembleImage(const std::string &image) {
  InstTexts out;
  for (size_t off = 0; off + isa::kInstBytes <= image.size();
       off += isa::kInstBytes) {
    isa::Inst inst;
    std::memcpy(&inst, image.data() + off, sizeof(inst));
    out.names.push_back(isa::instName(inst));
    // The image is patched: memAddr is the device address a DMA starts
    // from, printed as its base.
    char base[24];
    std::snprintf(base, sizeof(base), "0x%" PRIx64, inst.memAddr);
    inst.memAddr = 0;
    out.texts.push_back(quoted(isa::disassemble(inst, base)));
  }
  return out;
}

} // namespace

uint32_t TraceRecorder::addStep(std::string name, const uint8_t *image,
                                uint32_t numInsts, uint64_t startPs,
                                uint64_t endPs) {
  std::string bytes(reinterpret_cast<const char *>(image),
                    size_t(numInsts) * isa::kInstBytes);
  auto [it, added] =
      programIndex_.try_emplace(std::move(bytes), uint32_t(programs_.size()));
  if (added)
    programs_.push_back(&it->first);
  steps_.push_back({std::move(name), startPs, endPs, it->second});
  return uint32_t(steps_.size() - 1);
}

void TraceRecorder::addHostSpan(const std::string &track,
                                const std::string &name, uint64_t startPs,
                                uint64_t endPs) {
  if (hostSpans_.size() + insts_.size() >= maxEvents_) {
    ++dropped_;
    return;
  }
  auto it = std::find(tracks_.begin(), tracks_.end(), track);
  uint32_t t = uint32_t(it - tracks_.begin());
  if (it == tracks_.end())
    tracks_.push_back(track);
  hostSpans_.push_back({t, name, startPs, endPs});
}

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
            << ",\"name\":\"thread_name\",\"args\":{\"name\":\"" << unitName(u)
            << "\"}}";
  }
  uint32_t hostPid = numCores + 1;
  if (!tracks_.empty())
    sep() << "{\"ph\":\"M\",\"pid\":" << hostPid
          << ",\"name\":\"process_name\",\"args\":{\"name\":\"host\"}}";
  for (size_t t = 0; t < tracks_.size(); ++t)
    sep() << "{\"ph\":\"M\",\"pid\":" << hostPid << ",\"tid\":" << t
          << ",\"name\":\"thread_name\",\"args\":{\"name\":"
          << quoted(tracks_[t]) << "}}";
  for (const HostSpan &h : hostSpans_)
    sep() << "{\"ph\":\"X\",\"pid\":" << hostPid << ",\"tid\":" << h.track
          << ",\"name\":" << quoted(h.name) << ",\"ts\":" << micros(h.startPs)
          << ",\"dur\":" << micros(h.endPs - h.startPs) << "}";
  for (const StepSpan &s : steps_)
    sep() << "{\"ph\":\"X\",\"pid\":0,\"tid\":0,\"name\":" << quoted(s.name)
          << ",\"ts\":" << micros(s.startPs)
          << ",\"dur\":" << micros(s.endPs - s.startPs) << "}";
  std::vector<InstTexts> programs;
  for (const std::string *image : programs_)
    programs.push_back(disassembleImage(*image));
  for (const InstEvent &e : insts_) {
    const StepSpan &step = steps_[e.step];
    const InstTexts &texts = programs[step.program];
    sep() << "{\"ph\":\"X\",\"pid\":" << e.core + 1
          << ",\"tid\":" << unsigned(e.unit)
          << ",\"name\":" << quoted(texts.names[e.pc])
          << ",\"ts\":" << micros(e.startPs)
          << ",\"dur\":" << micros(e.endPs - e.startPs)
          << ",\"args\":{\"pc\":" << e.pc << ",\"step\":" << quoted(step.name)
          << ",\"inst\":" << texts.texts[e.pc] << "}}";
  }
  os << "\n],\"otherData\":{\"dropped_events\":" << dropped_ << "}}\n";
}

} // namespace spyre::rt::sim
