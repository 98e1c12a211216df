//===- spyre-npy-compare.cpp - Compare two .npy arrays --------------------===//
//
//   spyre-npy-compare ACTUAL.npy EXPECTED.npy [--rtol R] [--atol A]
//
// Elementwise |actual - expected| <= atol + rtol * |expected| (NumPy's
// allclose; NaNs compare equal to NaNs, infinities to equal infinities).
// Prints the maximum absolute and relative errors; exits 0 when every element
// is within tolerance, 1 when one is not, 2 on errors (unreadable files,
// different shapes).
//
//===----------------------------------------------------------------------===//

#include "spyre/Runtime/Npy.h"
#include "spyre/Spy/DL16.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace spyre;
using namespace spyre::rt;

namespace {

const char *const kUsage =
    "usage: spyre-npy-compare ACTUAL.npy EXPECTED.npy [--rtol R] [--atol A]\n"
    "  Passes (exit 0) when |actual - expected| <= atol + rtol * |expected|\n"
    "  for every element (defaults: rtol 1e-5, atol 1e-8); exit 1 when not,\n"
    "  2 on errors.\n";

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

bool parseDouble(const char *text, double &out) {
  char *end = nullptr;
  out = std::strtod(text, &end);
  return end && end != text && *end == '\0' && out >= 0;
}

std::string shapeText(const NpyArray &a) {
  std::string s = "(";
  for (size_t i = 0; i < a.shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(a.shape[i]);
  return s + ")";
}

} // namespace

int main(int argc, char **argv) {
  std::string paths[2];
  int numPaths = 0;
  double rtol = 1e-5, atol = 1e-8;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", kUsage);
      return 0;
    }
    if (arg == "--rtol" || arg == "--atol") {
      if (i + 1 >= argc ||
          !parseDouble(argv[i + 1], arg == "--rtol" ? rtol : atol))
        return error(arg + " needs a non-negative number");
      ++i;
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-')
      return error("unknown option '" + arg + "'\n" + kUsage);
    if (numPaths == 2)
      return error(std::string("too many arguments\n") + kUsage);
    paths[numPaths++] = arg;
  }
  if (numPaths != 2)
    return error(std::string("two .npy files are needed\n") + kUsage);
  NpyArray a, b;
  Status s = readNpy(paths[0], a);
  if (!s.ok())
    return error(s.message());
  s = readNpy(paths[1], b);
  if (!s.ok())
    return error(s.message());
  if (a.shape != b.shape)
    return error("shapes differ: " + paths[0] + " is " + shapeText(a) +
                 ", " + paths[1] + " is " + shapeText(b));
  uint64_t n = a.numElements(), mismatches = 0;
  double maxAbs = 0, maxRel = 0;
  uint64_t worst = 0;
  for (uint64_t i = 0; i < n; ++i) {
    double x = element(a, i), y = element(b, i);
    if (std::isnan(x) && std::isnan(y))
      continue;
    if (std::isinf(x) && x == y)
      continue;
    double diff = std::fabs(x - y);
    if (std::isnan(diff))
      diff = INFINITY;
    if (diff > maxAbs) {
      maxAbs = diff;
      worst = i;
    }
    if (y != 0)
      maxRel = std::fmax(maxRel, diff / std::fabs(y));
    else if (diff > 0)
      maxRel = INFINITY;
    if (!(diff <= atol + rtol * std::fabs(y)))
      ++mismatches;
  }
  std::printf("max abs error: %.6g\n", maxAbs);
  std::printf("max rel error: %.6g\n", maxRel);
  std::printf("mismatches: %llu of %llu (rtol %g, atol %g)\n",
              (unsigned long long)mismatches, (unsigned long long)n, rtol,
              atol);
  if (mismatches) {
    std::printf("worst element: flat index %llu: %.9g vs %.9g\n",
                (unsigned long long)worst, element(a, worst),
                element(b, worst));
    return 1;
  }
  return 0;
}
