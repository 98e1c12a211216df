//===- StandaloneMain.cpp - Running a fuzz target without libFuzzer -------===//
//
//   spyre-fuzz-TARGET [--iterations N] [--seed S] FILE|DIR...
//
// Runs the target on every file given (directories: every regular file in
// them, in name order), then N (default 1000) deterministic mutations of
// them (runtime/fuzz's mutator: bit flips, interesting values, truncation,
// insertion, deletion, duplication). Exits 0 unless the target aborts; the
// libFuzzer build of the same target (scripts/fuzz.sh) is the long run.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"
#include "LoaderFuzz.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

bool readFile(const std::string &path, std::vector<std::vector<uint8_t>> &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  out.emplace_back(std::istreambuf_iterator<char>(in),
                   std::istreambuf_iterator<char>());
  return true;
}

} // namespace

int main(int argc, char **argv) {
  uint64_t iterations = 1000, seed = 1;
  std::vector<std::vector<uint8_t>> corpus;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "--iterations" || arg == "--seed") && i + 1 < argc) {
      (arg == "--iterations" ? iterations : seed) =
          std::strtoull(argv[++i], nullptr, 10);
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      std::printf("usage: %s [--iterations N] [--seed S] FILE|DIR...\n",
                  argv[0]);
      return 0;
    }
    std::vector<std::string> files;
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      for (const auto &e : std::filesystem::directory_iterator(arg, ec))
        if (e.is_regular_file())
          files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
    } else {
      files.push_back(arg);
    }
    for (const std::string &f : files)
      if (!readFile(f, corpus)) {
        std::fprintf(stderr, "%s: error: cannot read '%s'\n", argv[0],
                     f.c_str());
        return 2;
      }
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "%s: error: no input files (give seeds)\n", argv[0]);
    return 2;
  }
  for (const std::vector<uint8_t> &input : corpus)
    LLVMFuzzerTestOneInput(input.data(), input.size());
  std::mt19937_64 rng(seed);
  for (uint64_t i = 0; i < iterations; ++i) {
    std::vector<uint8_t> input = corpus[rng() % corpus.size()];
    spyre::fuzz::mutate(input, rng);
    LLVMFuzzerTestOneInput(input.data(), input.size());
  }
  std::printf("%s: %zu seeds, %llu mutations, no crash\n", argv[0],
              corpus.size(), (unsigned long long)iterations);
  return 0;
}
