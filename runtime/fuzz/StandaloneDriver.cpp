//===- StandaloneDriver.cpp - Loader fuzzing without libFuzzer ------------===//
//
//   spyre-fuzz-loader [--iterations N] [--seed S] [FILE...]
//   spyre-fuzz-loader --write-seeds DIR
//
// Replays the given files (e.g. crashers found by the libFuzzer build), then
// runs N (default 10000) deterministic mutations of the built-in seed corpus
// and of the files, half of them with the header checksum repaired so that
// they reach the checks behind it. Exits non-zero only if the target aborts.
// --write-seeds writes the seed corpus (valid .spy files) to DIR, e.g. as the
// initial corpus of the libFuzzer build.
//
//===----------------------------------------------------------------------===//

#include "LoaderFuzz.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

using namespace spyre::fuzz;

namespace {

using Corpus = std::vector<std::vector<uint8_t>>;

/// Writes the seed corpus to `dir` as seed<N>.spy; the exit status.
int writeSeeds(const std::string &dir, const Corpus &corpus) {
  for (size_t s = 0; s < corpus.size(); ++s) {
    std::string path = dir + "/seed" + std::to_string(s) + ".spy";
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(corpus[s].data()),
              std::streamsize(corpus[s].size()));
    if (!out) {
      std::fprintf(stderr, "spyre-fuzz-loader: error: cannot write '%s'\n",
                   path.c_str());
      return 2;
    }
  }
  return 0;
}

/// Runs the loader on the file at `path` and adds it to the corpus; false
/// (after the error) when it cannot be opened.
bool replayFile(const std::string &path, Corpus &corpus) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "spyre-fuzz-loader: error: cannot open '%s'\n",
                 path.c_str());
    return false;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  // As the libFuzzer entry: as is, then with its checksum repaired.
  runLoaderOnce(bytes.data(), bytes.size());
  std::vector<uint8_t> fixed = bytes;
  fixChecksum(fixed);
  runLoaderOnce(fixed.data(), fixed.size());
  corpus.push_back(std::move(bytes));
  return true;
}

/// Runs `iterations` deterministic mutations of the corpus, every other one
/// with its checksum repaired, and prints how they fared.
void fuzzCorpus(const Corpus &corpus, uint64_t iterations, uint64_t seed) {
  std::mt19937_64 rng(seed);
  uint64_t outcomes[4] = {};
  for (uint64_t i = 0; i < iterations; ++i) {
    std::vector<uint8_t> bytes = corpus[rng() % corpus.size()];
    mutate(bytes, rng);
    if (i % 2)
      fixChecksum(bytes);
    ++outcomes[int(runLoaderOnce(bytes.data(), bytes.size()))];
  }
  std::printf("%llu inputs: %llu rejected, %llu loaded, %llu ran, "
              "%llu failed while running\n",
              (unsigned long long)iterations, (unsigned long long)outcomes[0],
              (unsigned long long)outcomes[1], (unsigned long long)outcomes[2],
              (unsigned long long)outcomes[3]);
}

} // namespace

int main(int argc, char **argv) {
  uint64_t iterations = 10000, seed = 1;
  Corpus corpus = loaderSeeds();
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "--iterations" || arg == "--seed") && i + 1 < argc) {
      (arg == "--iterations" ? iterations : seed) =
          std::strtoull(argv[++i], nullptr, 10);
      continue;
    }
    if (arg == "--help") {
      std::printf("usage: spyre-fuzz-loader [--iterations N] [--seed S] "
                  "[FILE...]\n       spyre-fuzz-loader --write-seeds DIR\n");
      return 0;
    }
    if (arg == "--write-seeds" && i + 1 < argc)
      return writeSeeds(argv[++i], corpus);
    if (!replayFile(arg, corpus))
      return 2;
  }
  fuzzCorpus(corpus, iterations, seed);
  return 0;
}
