//===- ElementMath.h - Per-element semantics of the SFP ops -----*- C++ -*-===//
//
// What one SFP unary or binary op computes on one element, in the two compute
// domains of the SFP: fp32 for floats, int64 (wrapping) for integers. Shared
// by the simulator (runtime/lib/Simulator/Kernels.cpp), which runs them over
// rows, and the compiler's constant folder (lib/Dialect/Spyre/
// ConstantFolding.cpp), so that a folded constant is exactly what the device
// would have computed. docs/isa.md states the same semantics in prose.
// Reductions fold one element at a time, in order along the line.
//
// Ops are template arguments so that a caller can hoist the dispatch out of
// its element loop: `visit(op, [&](auto tag) { ... unaryF<tag.value>(x) })`
// instantiates the loop once per op. Plain C++, no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_ISA_ELEMENTMATH_H
#define SPYRE_ISA_ELEMENTMATH_H

#include "spyre/ISA/ISA.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace spyre::isa {

/// fp32 -> int64 as every conversion into integer storage: truncation toward
/// zero, NaN -> 0, saturating at the int64 range.
inline int64_t floatToInt64(float v) {
  if (!(v == v))
    return 0;
  if (v >= 9.2233720368547758e18f)
    return INT64_MAX;
  if (v <= -9.2233720368547758e18f)
    return INT64_MIN;
  return int64_t(v);
}

/// Two's-complement arithmetic of the integer domain (no UB on overflow).
inline int64_t wrapAdd(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) + uint64_t(b));
}
inline int64_t wrapSub(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) - uint64_t(b));
}
inline int64_t wrapMul(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) * uint64_t(b));
}

/// base ** exponent with wrapping; a negative exponent gives the truncated
/// rational (0 unless |base| == 1), as torch does for integer pow.
inline int64_t intPow(int64_t base, int64_t exponent) {
  if (exponent < 0)
    return base == 1 ? 1 : base == -1 ? (exponent & 1 ? -1 : 1) : 0;
  uint64_t result = 1, b = uint64_t(base);
  for (uint64_t e = uint64_t(exponent); e; e >>= 1) {
    if (e & 1)
      result *= b;
    b *= b;
  }
  return int64_t(result);
}

template <UnaryOp Op> inline float unaryF(float x) {
  if constexpr (Op == UnaryOp::Copy)
    return x;
  else if constexpr (Op == UnaryOp::Neg)
    return -x;
  else if constexpr (Op == UnaryOp::Abs)
    return std::fabs(x);
  else if constexpr (Op == UnaryOp::Exp)
    return std::exp(x);
  else if constexpr (Op == UnaryOp::Log)
    return std::log(x);
  else if constexpr (Op == UnaryOp::Sqrt)
    return std::sqrt(x);
  else if constexpr (Op == UnaryOp::Rsqrt)
    return 1.0f / std::sqrt(x);
  else if constexpr (Op == UnaryOp::Reciprocal)
    return 1.0f / x;
  else if constexpr (Op == UnaryOp::Tanh)
    return std::tanh(x);
  else if constexpr (Op == UnaryOp::Sigmoid)
    return 1.0f / (1.0f + std::exp(-x));
  else if constexpr (Op == UnaryOp::Relu)
    return x > 0.0f || std::isnan(x) ? x : 0.0f;
  else if constexpr (Op == UnaryOp::GeluErf)
    return 0.5f * x * (1.0f + std::erf(x * 0.70710678f));
  else if constexpr (Op == UnaryOp::GeluTanh)
    return 0.5f * x *
           (1.0f + std::tanh(0.7978845608f /* sqrt(2/pi) */ *
                             (x + 0.044715f * x * x * x)));
  else if constexpr (Op == UnaryOp::Silu)
    return x / (1.0f + std::exp(-x));
  else if constexpr (Op == UnaryOp::Sin)
    return std::sin(x);
  else if constexpr (Op == UnaryOp::Cos)
    return std::cos(x);
  else if constexpr (Op == UnaryOp::Floor)
    return std::floor(x);
  else if constexpr (Op == UnaryOp::Ceil)
    return std::ceil(x);
  else if constexpr (Op == UnaryOp::LogicalNot)
    return x == 0.0f ? 1.0f : 0.0f;
  else if constexpr (Op == UnaryOp::Erf)
    return std::erf(x);
  else if constexpr (Op == UnaryOp::Softplus)       // torch defaults: beta 1,
    return x > 20.0f ? x : std::log1p(std::exp(x)); // threshold 20
  else if constexpr (Op == UnaryOp::Round) // half to even, as torch.round
    return std::nearbyint(x);
  else {
    static_assert(Op == UnaryOp::Sign, "every unary op has a float form");
    return std::isnan(x) ? x : float((x > 0.0f) - (x < 0.0f));
  }
}

/// The integer form (only meaningful where hasIntegerForm, ISA.h).
template <UnaryOp Op> inline int64_t unaryI(int64_t x) {
  if constexpr (Op == UnaryOp::Neg)
    return wrapSub(0, x);
  else if constexpr (Op == UnaryOp::Abs)
    return x < 0 ? wrapSub(0, x) : x;
  else if constexpr (Op == UnaryOp::Relu)
    return x > 0 ? x : 0;
  else if constexpr (Op == UnaryOp::Sign)
    return (x > 0) - (x < 0);
  else if constexpr (Op == UnaryOp::LogicalNot)
    return x == 0;
  else // Copy, Floor, Ceil, Round: identity on integers
    return x;
}

constexpr bool isComparison(BinaryOp op) {
  return op >= BinaryOp::Eq && op <= BinaryOp::Ge;
}

/// The six comparisons, alike in both domains.
template <BinaryOp Op, typename T> inline bool compare(T a, T b) {
  static_assert(isComparison(Op), "a comparison");
  if constexpr (Op == BinaryOp::Eq)
    return a == b;
  else if constexpr (Op == BinaryOp::Ne)
    return a != b;
  else if constexpr (Op == BinaryOp::Lt)
    return a < b;
  else if constexpr (Op == BinaryOp::Le)
    return a <= b;
  else if constexpr (Op == BinaryOp::Gt)
    return a > b;
  else
    return a >= b;
}

template <BinaryOp Op> inline float binaryF(float a, float b) {
  if constexpr (Op == BinaryOp::Add)
    return a + b;
  else if constexpr (Op == BinaryOp::Sub)
    return a - b;
  else if constexpr (Op == BinaryOp::Mul)
    return a * b;
  else if constexpr (Op == BinaryOp::Div)
    return a / b;
  else if constexpr (Op == BinaryOp::Max) // NaN propagates, as torch.maximum
    return std::isnan(a) || std::isnan(b) ? NAN : (a > b ? a : b);
  else if constexpr (Op == BinaryOp::Min)
    return std::isnan(a) || std::isnan(b) ? NAN : (a < b ? a : b);
  else if constexpr (Op == BinaryOp::Pow)
    return std::pow(a, b);
  else if constexpr (isComparison(Op))
    return compare<Op>(a, b);
  else if constexpr (Op == BinaryOp::And)
    return a != 0.0f && b != 0.0f;
  else if constexpr (Op == BinaryOp::Or)
    return a != 0.0f || b != 0.0f;
  else if constexpr (Op == BinaryOp::FloorDiv)
    return std::floor(a / b);
  else { // sign of the divisor, as torch.remainder
    static_assert(Op == BinaryOp::Remainder, "every op has a float form");
    float r = std::fmod(a, b);
    if (r != 0.0f && ((r < 0.0f) != (b < 0.0f)))
      r += b;
    return r;
  }
}

/// The integer form (only meaningful where hasIntegerForm, ISA.h). Division
/// by zero gives 0 rather than trapping.
template <BinaryOp Op> inline int64_t binaryI(int64_t a, int64_t b) {
  if constexpr (Op == BinaryOp::Add)
    return wrapAdd(a, b);
  else if constexpr (Op == BinaryOp::Sub)
    return wrapSub(a, b);
  else if constexpr (Op == BinaryOp::Mul)
    return wrapMul(a, b);
  else if constexpr (Op == BinaryOp::Max)
    return std::max(a, b);
  else if constexpr (Op == BinaryOp::Min)
    return std::min(a, b);
  else if constexpr (Op == BinaryOp::Pow)
    return intPow(a, b);
  else if constexpr (isComparison(Op))
    return compare<Op>(a, b);
  else if constexpr (Op == BinaryOp::And)
    return a & b;
  else if constexpr (Op == BinaryOp::Or)
    return a | b;
  else if constexpr (Op == BinaryOp::FloorDiv) {
    if (b == 0)
      return 0;
    if (b == -1)
      return wrapSub(0, a); // INT64_MIN / -1 would trap
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
      --q;
    return q;
  } else if constexpr (Op == BinaryOp::Remainder) {
    if (b == 0 || b == -1)
      return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
      r += b;
    return r;
  } else { // Div: never in the integer domain
    return 0;
  }
}

//===--- Reductions -------------------------------------------------------===//

/// Running state of one reduction line, folded in order along the line.
struct ReduceState {
  float f = 0;       // value so far, fp32 domain
  int64_t i = 0;     // value so far, int64 domain
  int64_t index = 0; // position of the best element (ArgMax, ArgMin)
};

/// Whether `x` replaces `best` in an ArgMax/ArgMin: strictly better (the
/// first of equal elements wins), and NaN beats everything, as in torch.
inline bool isBetterF(ReduceOp op, float x, float best) {
  if (std::isnan(best))
    return false;
  if (std::isnan(x))
    return true;
  return op == ReduceOp::ArgMax ? x > best : x < best;
}
inline bool isBetterI(ReduceOp op, int64_t x, int64_t best) {
  return op == ReduceOp::ArgMax ? x > best : x < best;
}

/// Folds element `x`, at position `pos` of its line, into `s`.
inline void reduceStepF(ReduceOp op, ReduceState &s, float x, int64_t pos) {
  if (pos == 0) {
    s.f = x;
    s.index = 0;
    return;
  }
  switch (op) {
  case ReduceOp::Sum:
    s.f += x;
    return;
  case ReduceOp::Prod:
    s.f *= x;
    return;
  case ReduceOp::Max:
    s.f = binaryF<BinaryOp::Max>(x, s.f);
    return;
  case ReduceOp::Min:
    s.f = binaryF<BinaryOp::Min>(x, s.f);
    return;
  case ReduceOp::ArgMax:
  case ReduceOp::ArgMin:
    if (isBetterF(op, x, s.f)) {
      s.f = x;
      s.index = pos;
    }
    return;
  }
}

inline void reduceStepI(ReduceOp op, ReduceState &s, int64_t x, int64_t pos) {
  if (pos == 0) {
    s.i = x;
    s.index = 0;
    return;
  }
  switch (op) {
  case ReduceOp::Sum:
    s.i = wrapAdd(s.i, x);
    return;
  case ReduceOp::Prod:
    s.i = wrapMul(s.i, x);
    return;
  case ReduceOp::Max:
    s.i = std::max(s.i, x);
    return;
  case ReduceOp::Min:
    s.i = std::min(s.i, x);
    return;
  case ReduceOp::ArgMax:
  case ReduceOp::ArgMin:
    if (isBetterI(op, x, s.i)) {
      s.i = x;
      s.index = pos;
    }
    return;
  }
}

/// `old` and the reduction `x` of the next part of the same line, for the
/// value reductions (not ArgMax/ArgMin, which compare with isBetter*).
inline float combineF(ReduceOp op, float old, float x) {
  switch (op) {
  case ReduceOp::Sum:
    return old + x;
  case ReduceOp::Prod:
    return old * x;
  case ReduceOp::Max:
    return binaryF<BinaryOp::Max>(x, old);
  default:
    return binaryF<BinaryOp::Min>(x, old);
  }
}
inline int64_t combineI(ReduceOp op, int64_t old, int64_t x) {
  switch (op) {
  case ReduceOp::Sum:
    return wrapAdd(old, x);
  case ReduceOp::Prod:
    return wrapMul(old, x);
  case ReduceOp::Max:
    return std::max(old, x);
  default:
    return std::min(old, x);
  }
}

/// Lanes of a float sum along a row (one fp32 stick).
constexpr size_t kSumLanes = 32;

/// The fp32 sum of a row as the SFP adds it: one partial sum per lane
/// (element i goes to lane i % kSumLanes), then the lanes in order. Rows of
/// up to kSumLanes elements add in order. Besides being how a SIMD unit
/// adds, it keeps long rows accurate: a single accumulator over the 201088
/// terms of a vocabulary softmax loses 3e-4 of their sum to rounding.
inline float sumRowF(const float *x, size_t n) {
  float lanes[kSumLanes] = {};
  for (size_t i = 0; i < n; ++i)
    lanes[i % kSumLanes] += x[i];
  float sum = 0.0f;
  for (size_t l = 0; l < kSumLanes && l < n; ++l)
    sum = l ? sum + lanes[l] : lanes[l];
  return sum;
}

//===--- Dispatch ---------------------------------------------------------===//

template <UnaryOp Op> using UnaryTag = std::integral_constant<UnaryOp, Op>;
template <BinaryOp Op> using BinaryTag = std::integral_constant<BinaryOp, Op>;

/// Calls `fn(UnaryTag<op>{})`: one switch, then code specialized for `op`.
template <typename Fn> decltype(auto) visit(UnaryOp op, Fn &&fn) {
  switch (op) {
#define SPYRE_SFP_UNARY(Enum, ...)                                             \
  case UnaryOp::Enum:                                                          \
    return fn(UnaryTag<UnaryOp::Enum>{});
#include "spyre/ISA/SfpOps.def"
  }
  // Out of range: unreachable for validated programs.
  return fn(UnaryTag<UnaryOp::Copy>{});
}

/// Calls `fn(BinaryTag<op>{})`: one switch, then code specialized for `op`.
template <typename Fn> decltype(auto) visit(BinaryOp op, Fn &&fn) {
  switch (op) {
#define SPYRE_SFP_BINARY(Enum, ...)                                            \
  case BinaryOp::Enum:                                                         \
    return fn(BinaryTag<BinaryOp::Enum>{});
#include "spyre/ISA/SfpOps.def"
  }
  // Out of range: unreachable for validated programs.
  return fn(BinaryTag<BinaryOp::Add>{});
}

/// Per-element forms for callers that dispatch on every element.
inline float unaryF(UnaryOp op, float x) {
  return visit(op, [&](auto tag) { return unaryF<decltype(tag)::value>(x); });
}
inline int64_t unaryI(UnaryOp op, int64_t x) {
  return visit(op, [&](auto tag) { return unaryI<decltype(tag)::value>(x); });
}
inline float binaryF(BinaryOp op, float a, float b) {
  return visit(op,
               [&](auto tag) { return binaryF<decltype(tag)::value>(a, b); });
}
inline int64_t binaryI(BinaryOp op, int64_t a, int64_t b) {
  return visit(op,
               [&](auto tag) { return binaryI<decltype(tag)::value>(a, b); });
}

} // namespace spyre::isa

#endif // SPYRE_ISA_ELEMENTMATH_H
