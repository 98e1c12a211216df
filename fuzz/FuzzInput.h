//===- FuzzInput.h - The entry point every fuzz target defines --*- C++ -*-===//
//
// Each target of this directory is one file defining LLVMFuzzerTestOneInput
// (libFuzzer's entry point). It is linked either with -fsanitize=fuzzer
// (clang, SPYRE_ENABLE_LIBFUZZER: coverage-guided, scripts/fuzz.sh) or with
// StandaloneMain.cpp (any compiler: replays files and mutates them, the
// smoke run of the test suite). A target must never crash, hang or read out
// of bounds, whatever the bytes; it aborts when the code under test breaks
// a promise of its own (an error without a message).
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_FUZZ_FUZZINPUT_H
#define SPYRE_FUZZ_FUZZINPUT_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace spyre::fuzz {

/// Aborts (a finding) when `condition` is false.
inline void require(bool condition, const char *what) {
  if (!condition) {
    std::fprintf(stderr, "fuzz target: %s\n", what);
    std::abort();
  }
}

} // namespace spyre::fuzz

#endif // SPYRE_FUZZ_FUZZINPUT_H
