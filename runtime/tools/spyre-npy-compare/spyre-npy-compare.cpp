//===- spyre-npy-compare.cpp - Compare two .npy arrays --------------------===//
//
//   spyre-npy-compare ACTUAL.npy EXPECTED.npy [--rtol R] [--atol A]
//
// Elementwise |actual - expected| <= atol + rtol * |expected| (NumPy's
// allclose; a NaN equals a NaN, an infinity the same infinity). Prints the
// largest absolute and relative errors with the index where each occurs,
// how many elements are not zero where the reference is (their relative
// error is undefined, not infinite), how many are NaN in one array only, and
// the worst element; exits 0 when every element is within tolerance, 1 when
// one is not, 2 on errors (unreadable files, different shapes, usage).
//
//===----------------------------------------------------------------------===//

#include "spyre/Runtime/Npy.h"
#include "spyre/Spy/DL16.h"

#include "../CommandLine.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace spyre;
using namespace spyre::rt;

namespace {

const char *const kUsage =
    "usage: spyre-npy-compare ACTUAL.npy EXPECTED.npy [--rtol R] [--atol A]\n";

int error(const std::string &message) {
  std::fprintf(stderr, "spyre-npy-compare: error: %s\n", message.c_str());
  return 2;
}

double element(const NpyArray &a, uint64_t i) {
  const uint8_t *p = a.data.data() + i * npyItemBytes(a.dtype);
  switch (a.dtype) {
  case NpyDType::F2: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return spy::halfToFloat(h);
  }
  case NpyDType::F4: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case NpyDType::F8: {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  case NpyDType::I1:
    return int8_t(*p);
  case NpyDType::I4: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case NpyDType::I8: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return double(v);
  }
  case NpyDType::U1:
  case NpyDType::B1:
    return *p;
  }
  return 0;
}

std::string shapeText(const NpyArray &a) {
  std::string s = "(";
  for (size_t i = 0; i < a.shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(a.shape[i]);
  return s + ")";
}

/// The index of row-major element `flat` of an array of `shape`: "[1, 2]".
std::string indexText(const std::vector<int64_t> &shape, uint64_t flat) {
  std::vector<uint64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    uint64_t extent = uint64_t(shape[d]);
    index[d] = flat % extent;
    flat /= extent;
  }
  std::string s = "[";
  for (size_t d = 0; d < index.size(); ++d)
    s += (d ? ", " : "") + std::to_string(index[d]);
  return s + "]";
}

struct Options {
  std::vector<std::string> paths;
  std::string rtolText, atolText;
  double rtol = 1e-5, atol = 1e-8;
};

/// A tolerance given as text; false unless it is a non-negative number.
bool parseTolerance(const std::string &text, double &out) {
  if (text.empty())
    return true; // not given: the default
  char *end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0' && out >= 0;
}

/// The checks CLI11 cannot make; "" when the options are usable.
std::string checkArgs(const tools::CommandLine &cl, Options &opts) {
  std::string error = cl.unknownOption();
  if (!error.empty())
    return error;
  std::string extra = cl.extraArgument();
  if (extra.empty() && opts.paths.size() > 2)
    extra = opts.paths[2];
  if (!extra.empty())
    return "too many arguments ('" + extra + "')";
  if (opts.paths.size() != 2)
    return "two .npy files are needed";
  if (!parseTolerance(opts.rtolText, opts.rtol))
    return "--rtol needs a non-negative number, got '" + opts.rtolText + "'";
  if (!parseTolerance(opts.atolText, opts.atol))
    return "--atol needs a non-negative number, got '" + opts.atolText + "'";
  return {};
}

/// Returns -1 to continue, else the exit code.
int parseArgs(int argc, char **argv, Options &opts) {
  tools::CommandLine cl(
      "spyre-npy-compare",
      "Compares an array with a reference elementwise, as NumPy's allclose.",
      kUsage);
  CLI::App &app = cl.app();
  app.footer("Passes (exit 0) when |actual - expected| <= atol + rtol * "
             "|expected|\nfor every element; exit 1 when not, 2 on errors.");
  app.add_option("files", opts.paths,
                 "the array to check and the reference (.npy: f2 f4 f8 i1 "
                 "i4 i8 u1 b1)")
      ->type_name("ACTUAL.npy EXPECTED.npy")
      ->expected(0, 2)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--rtol", opts.rtolText,
                 "relative tolerance, times |expected| (default 1e-5)")
      ->type_name("R");
  app.add_option("--atol", opts.atolText, "absolute tolerance (default 1e-8)")
      ->type_name("A");
  int code = cl.parse(argc, argv);
  if (code >= 0)
    return code;
  std::string error = checkArgs(cl, opts);
  return error.empty() ? -1 : cl.usageError(error);
}

/// Where and how much two arrays of the same shape differ. Errors are taken
/// over the elements both hold as numbers (not NaN); relative errors only
/// where the reference is not 0.
struct Comparison {
  uint64_t mismatches = 0;
  double maxAbs = 0, maxRel = 0;
  uint64_t maxAbsAt = 0, maxRelAt = 0;
  /// Elements not 0 where the reference is 0 (relative error undefined).
  uint64_t zeroReference = 0, firstZeroReference = 0;
  /// Elements NaN in one array only.
  uint64_t nanMismatches = 0, firstNanMismatch = 0;

  void add(uint64_t i, double x, double y, double rtol, double atol) {
    if (std::isnan(x) || std::isnan(y)) {
      if (!(std::isnan(x) && std::isnan(y)))
        addNanMismatch(i);
      return;
    }
    if (std::isinf(x) && x == y)
      return;
    double diff = std::fabs(x - y);
    addError(i, x, y, diff);
    // An infinity is close only to the same infinity (returned above).
    if (std::isinf(x) || std::isinf(y) || !(diff <= atol + rtol * std::fabs(y)))
      ++mismatches;
  }

private:
  void addNanMismatch(uint64_t i) {
    if (nanMismatches++ == 0)
      firstNanMismatch = i;
    ++mismatches;
  }

  /// Tracks the largest errors of numbers `x` and `y`, `diff` apart.
  void addError(uint64_t i, double x, double y, double diff) {
    if (diff > maxAbs) {
      maxAbs = diff;
      maxAbsAt = i;
    }
    if (y == 0) {
      if (x != 0 && zeroReference++ == 0)
        firstZeroReference = i;
      return;
    }
    if (diff / std::fabs(y) > maxRel) {
      maxRel = diff / std::fabs(y);
      maxRelAt = i;
    }
  }
};

void report(const Comparison &c, const NpyArray &a, const NpyArray &b,
            const Options &opts) {
  auto at = [&](double error, uint64_t i) {
    return error > 0 ? " at " + indexText(a.shape, i) : std::string();
  };
  auto values = [&](uint64_t i) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.9g vs %.9g", element(a, i),
                  element(b, i));
    return std::string(buf);
  };
  std::printf("max abs error: %.6g%s\n", c.maxAbs,
              at(c.maxAbs, c.maxAbsAt).c_str());
  std::printf("max rel error: %.6g%s\n", c.maxRel,
              at(c.maxRel, c.maxRelAt).c_str());
  if (c.zeroReference)
    std::printf("nonzero where the reference is 0: %llu element(s), first at "
                "%s: %s (relative error undefined, left out of max rel "
                "error)\n",
                (unsigned long long)c.zeroReference,
                indexText(a.shape, c.firstZeroReference).c_str(),
                values(c.firstZeroReference).c_str());
  if (c.nanMismatches)
    std::printf("NaN mismatches: %llu element(s) NaN in one array only, "
                "first at %s: %s\n",
                (unsigned long long)c.nanMismatches,
                indexText(a.shape, c.firstNanMismatch).c_str(),
                values(c.firstNanMismatch).c_str());
  std::printf("mismatches: %llu of %llu (rtol %g, atol %g)\n",
              (unsigned long long)c.mismatches,
              (unsigned long long)a.numElements(), opts.rtol, opts.atol);
  if (c.mismatches && c.maxAbs > 0)
    std::printf("worst element: %s (flat index %llu): %s\n",
                indexText(a.shape, c.maxAbsAt).c_str(),
                (unsigned long long)c.maxAbsAt, values(c.maxAbsAt).c_str());
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  int code = parseArgs(argc, argv, opts);
  if (code >= 0)
    return code;
  const std::string &actual = opts.paths[0], &expected = opts.paths[1];
  NpyArray a, b;
  Status s = readNpy(actual, a);
  if (s.ok())
    s = readNpy(expected, b);
  if (!s.ok())
    return error(s.message());
  if (a.shape != b.shape)
    return error("shapes differ: " + actual + " is " + shapeText(a) + ", " +
                 expected + " is " + shapeText(b));
  Comparison c;
  for (uint64_t i = 0, n = a.numElements(); i < n; ++i)
    c.add(i, element(a, i), element(b, i), opts.rtol, opts.atol);
  report(c, a, b, opts);
  return c.mismatches ? 1 : 0;
}
