//===- LoaderFuzz.h - Fuzzing the .spy loader -------------------*- C++ -*-===//
//
// The pieces of the loader fuzz target, shared by the libFuzzer entry point
// (LibFuzzerMain.cpp, built with clang), the standalone mutation driver
// (StandaloneDriver.cpp, any compiler) and the bounded gtest sweep.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_FUZZ_LOADERFUZZ_H
#define SPYRE_RUNTIME_FUZZ_LOADERFUZZ_H

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace spyre::fuzz {

/// What one input did.
enum class FuzzOutcome { Rejected, Loaded, Ran, RunFailed };

/// Validates `data` as a .spy file for the built-in machine description and,
/// when valid, loads and runs it once on a timing-only simulator (with small
/// limits). Must never crash, hang or read out of bounds; checks that every
/// failure carries a message.
FuzzOutcome runLoaderOnce(const uint8_t *data, size_t size);

/// Valid .spy files touching every table (tensors of every role, programs
/// with loops, clamps, parameters, every relocation phase, a plan).
std::vector<std::vector<uint8_t>> loaderSeeds();

/// Applies one to a few random mutations (bit flips, interesting values,
/// truncation, insertion, deletion, duplication).
void mutate(std::vector<uint8_t> &bytes, std::mt19937_64 &rng);

/// Recomputes the header checksum (when the header's FlatBuffer region lies
/// inside the file), so that mutations reach the checks behind it.
void fixChecksum(std::vector<uint8_t> &bytes);

} // namespace spyre::fuzz

#endif // SPYRE_RUNTIME_FUZZ_LOADERFUZZ_H
