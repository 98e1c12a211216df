//===- Arch.cpp - Reading and hashing the machine description -------------===//
//
// Built with -fexceptions: nlohmann/json reports type errors by throwing, and
// every throw is caught at this file's boundary.
//
//===----------------------------------------------------------------------===//

#include "spyre/Arch/Arch.h"

#include "spyre/Support/Json.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

using nlohmann::json;

namespace spyre {

// Generated from arch/spyre.json by CMake (see lib/Arch/CMakeLists.txt).
extern const char kBuiltinArchJson[];

namespace {

template <typename T>
bool readField(const json &j, const char *key, T &out, std::string &error) {
  auto it = j.find(key);
  if (it == j.end()) {
    error = std::string("missing field '") + key + "'";
    return false;
  }
  if constexpr (std::is_same_v<T, int64_t>) {
    if (!it->is_number_integer()) {
      error = std::string("field '") + key + "' must be an integer";
      return false;
    }
    out = it->template get<int64_t>();
  } else if constexpr (std::is_same_v<T, double>) {
    if (!it->is_number()) {
      error = std::string("field '") + key + "' must be a number";
      return false;
    }
    out = it->template get<double>();
  } else {
    if (!it->is_string()) {
      error = std::string("field '") + key + "' must be a string";
      return false;
    }
    out = it->template get<std::string>();
  }
  return true;
}

} // namespace

bool Arch::parse(const std::string &jsonText, Arch &out, std::string &error) {
  try {
    json j = parseJsonUntrusted(jsonText);
    if (!j.is_object()) {
      error = "machine description must be a JSON object";
      return false;
    }
    std::set<std::string> known;
    Arch a;
#define SPYRE_ARCH_READ(type, member, key, doc)                                \
  known.insert(key);                                                           \
  if (!readField(j, key, a.member, error))                                     \
    return false;
    SPYRE_ARCH_INT_FIELDS(SPYRE_ARCH_READ)
    SPYRE_ARCH_FLOAT_FIELDS(SPYRE_ARCH_READ)
    SPYRE_ARCH_STRING_FIELDS(SPYRE_ARCH_READ)
#undef SPYRE_ARCH_READ
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!known.count(it.key())) {
        error = "unknown field '" + it.key() + "'";
        return false;
      }
    }
    if (!a.validate(error))
      return false;
    out = std::move(a);
    return true;
  } catch (const std::exception &e) {
    error = std::string("invalid JSON: ") + e.what();
    return false;
  }
}

bool Arch::load(const std::string &path, Arch &out, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open machine description '" + path + "'";
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  if (!parse(ss.str(), out, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

const char *Arch::builtinDefaultJson() { return kBuiltinArchJson; }

const Arch &Arch::builtinDefault() {
  static const Arch arch = [] {
    Arch a;
    std::string error;
    if (!parse(kBuiltinArchJson, a, error)) {
      std::fprintf(stderr, "internal error: built-in arch/spyre.json: %s\n",
                   error.c_str());
      std::abort();
    }
    return a;
  }();
  return arch;
}

std::string Arch::canonicalJson() const {
  // nlohmann::json objects are std::map-backed: keys come out sorted.
  json j;
#define SPYRE_ARCH_WRITE(type, member, key, doc) j[key] = member;
  SPYRE_ARCH_INT_FIELDS(SPYRE_ARCH_WRITE)
  SPYRE_ARCH_FLOAT_FIELDS(SPYRE_ARCH_WRITE)
  SPYRE_ARCH_STRING_FIELDS(SPYRE_ARCH_WRITE)
#undef SPYRE_ARCH_WRITE
  return j.dump(2);
}

uint64_t Arch::hash() const {
  // 64-bit FNV-1a over the canonical JSON: stable across compilers and runs.
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : canonicalJson()) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

namespace {

/// Sets `error` and fails unless `v` is positive.
bool requirePositive(int64_t v, const char *what, std::string &error) {
  if (v > 0)
    return true;
  error = std::string(what) + " must be positive";
  return false;
}

/// Whether an integer field may be zero: the latencies, overheads and
/// synchronization terms (the *_ns fields) and the memory's ring position.
bool mayBeZero(const std::string &key) {
  return key == "memory_ring_position" ||
         (key.size() > 3 && key.compare(key.size() - 3, 3, "_ns") == 0);
}

/// Every other integer field must be positive.
bool checkPositiveFields(const Arch &a, std::string &error) {
#define SPYRE_ARCH_POSITIVE(type, member, key, doc)                            \
  if (!mayBeZero(key) && !requirePositive(a.member, key, error))               \
    return false;
  SPYRE_ARCH_INT_FIELDS(SPYRE_ARCH_POSITIVE)
#undef SPYRE_ARCH_POSITIVE
  return true;
}

/// The first negative latency or non-positive clock; null when none is.
const char *timingProblem(const Arch &a) {
  if (a.memoryLatencyNs < 0 || a.memorySetupNs < 0 ||
      a.memoryTurnaroundNs < 0 || a.launchOverheadNs < 0 ||
      a.barrierLatencyNs < 0 || a.kernelSyncNs < 0 || a.coreSyncNs < 0)
    return "latencies, overheads and synchronization times must not be "
           "negative";
  if (!(a.coreClockHz > 0) || !(a.ringClockHz > 0) || !(a.memoryClockHz > 0))
    return "clocks must be positive";
  return nullptr;
}

/// The first fraction out of its range; null when none is.
const char *fractionProblem(const Arch &a) {
  if (!(a.memoryEfficiency > 0 && a.memoryEfficiency <= 1))
    return "memory_efficiency must be in (0, 1]";
  if (!(a.memoryWriteEfficiency > 0 && a.memoryWriteEfficiency <= 1))
    return "memory_write_efficiency must be in (0, 1]";
  if (!(a.lxReservedFraction >= 0 && a.lxReservedFraction < 1))
    return "lx_reserved_fraction must be in [0, 1)";
  return nullptr;
}

/// The first inconsistency of sizes, ring positions or fp16 storage; null
/// when none is.
const char *geometryProblem(const Arch &a) {
  if (a.stickBytes % 8 != 0)
    return "stick_bytes must be a multiple of 8";
  if (a.lxAlignment % a.stickBytes != 0 && a.stickBytes % a.lxAlignment != 0)
    return "lx_alignment and stick_bytes must divide one another";
  if (a.lxBytes % a.lxAlignment != 0)
    return "lx_bytes must be a multiple of lx_alignment";
  if (a.memoryRingPosition < a.cores)
    return "memory_ring_position must follow the cores (>= cores)";
  if (a.fp16Storage != "dl16" && a.fp16Storage != "ieee")
    return "fp16_storage must be \"dl16\" or \"ieee\"";
  return nullptr;
}

} // namespace

bool Arch::validate(std::string &error) const {
  if (!checkPositiveFields(*this, error))
    return false;
  const char *problem = timingProblem(*this);
  if (!problem)
    problem = fractionProblem(*this);
  if (!problem)
    problem = geometryProblem(*this);
  if (!problem)
    return true;
  error = problem;
  return false;
}

int64_t Arch::usableLxBytes() const {
  auto usable =
      int64_t(std::floor(double(lxBytes) * (1.0 - lxReservedFraction)));
  return usable / lxAlignment * lxAlignment;
}

int64_t Arch::ringHops(int64_t a, int64_t b) const {
  int64_t nodes = memoryRingPosition + 1;
  int64_t d = a > b ? a - b : b - a;
  d %= nodes;
  return d < nodes - d ? d : nodes - d;
}

} // namespace spyre
