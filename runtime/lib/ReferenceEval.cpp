//===- ReferenceEval.cpp - Host evaluation of a kernel reference ----------===//

#include "ReferenceEval.h"

#include "ReferenceReader.h"

#include "spyre/ISA/ElementMath.h"
#include "spyre/Spy/DL16.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace spyre::rt {

using spy::RefKind;
using spy::RefOpDesc;

bool HostValue::isInt() const {
  return dtype != isa::DType::F32 && dtype != isa::DType::F16 &&
         dtype != isa::DType::BF16;
}

int64_t HostValue::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

namespace {

int64_t storeInt(int64_t x, isa::DType dtype) {
  switch (dtype) {
  case isa::DType::I8:
    return int8_t(uint8_t(uint64_t(x)));
  case isa::DType::I32:
    return int32_t(uint32_t(uint64_t(x)));
  case isa::DType::Bool:
    return x != 0;
  default:
    return x;
  }
}

/// An empty value of `op`'s type, its elements allocated.
HostValue resultOf(const RefOpDesc &op) {
  HostValue r;
  r.dtype = op.dtype;
  r.shape = op.shape;
  if (r.isInt())
    r.i.resize(size_t(r.numElements()));
  else
    r.f.resize(size_t(r.numElements()));
  return r;
}

/// How results are stored: converted as a store into a tensor of the
/// result's dtype on the device converts (fp16/bf16 as DLFloat16 on Spyre,
/// else IEEE half / bfloat16; integers wrapped; booleans nonzero).
struct Store {
  bool dl16 = true;

  /// `x` as the device stores it in a tensor of `dtype`.
  float rounded(float x, isa::DType dtype) const {
    switch (dtype) {
    case isa::DType::F16:
      return dl16 ? spy::dl16ToFloat(spy::floatToDL16(x))
                  : spy::halfToFloat(spy::floatToHalf(x));
    case isa::DType::BF16:
      return dl16 ? spy::dl16ToFloat(spy::floatToDL16Saturating(x))
                  : spy::bf16ToFloat(spy::floatToBF16(x));
    default:
      return x;
    }
  }

  /// Sets element `k` of `r` from a value of either domain.
  void setFloat(HostValue &r, int64_t k, float x) const {
    if (r.dtype == isa::DType::Bool)
      r.i[k] = x != 0.0f; // as the device's bool store: nonzero, NaN too
    else if (r.isInt())
      r.i[k] = storeInt(isa::floatToInt64(x), r.dtype);
    else
      r.f[k] = rounded(x, r.dtype);
  }
  void setInt(HostValue &r, int64_t k, int64_t x) const {
    if (r.isInt())
      r.i[k] = storeInt(x, r.dtype);
    else
      r.f[k] = rounded(float(x), r.dtype);
  }
  /// Element `src` of `x` to element `k` of `r`.
  void copy(const HostValue &x, int64_t src, HostValue &r, int64_t k) const {
    if (x.isInt())
      setInt(r, k, x.i[src]);
    else
      setFloat(r, k, x.f[src]);
  }
};

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    s[d - 1] = s[d] * shape[d];
  return s;
}

/// Calls fn(k, index) for every element of `shape` in row-major order.
template <typename Fn>
void forEachIndex(const std::vector<int64_t> &shape, Fn &&fn) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    fn(k, index);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

/// For each element of `to`, the element of `from` numpy broadcasting
/// reads; false when `from` does not broadcast to `to`.
bool broadcastIndices(const std::vector<int64_t> &from,
                      const std::vector<int64_t> &to,
                      std::vector<int64_t> &out) {
  if (from.size() > to.size())
    return false;
  size_t lead = to.size() - from.size();
  std::vector<int64_t> fromStrides = stridesOf(from);
  std::vector<int64_t> strides(to.size(), 0);
  for (size_t d = 0; d < from.size(); ++d) {
    if (from[d] != 1 && from[d] != to[lead + d])
      return false;
    strides[lead + d] = from[d] == 1 ? 0 : fromStrides[d];
  }
  out.clear();
  forEachIndex(to, [&](int64_t, const std::vector<int64_t> &index) {
    int64_t k = 0;
    for (size_t d = 0; d < to.size(); ++d)
      k += index[d] * strides[d];
    out.push_back(k);
  });
  return true;
}

Status opError(const std::string &what) {
  return invalidFile("reference: " + what);
}

class Evaluator {
public:
  Evaluator(std::vector<HostValue> inputs, bool dl16)
      : values(std::move(inputs)) {
    store.dl16 = dl16;
  }

  Status run(const RefOpDesc &op) {
    for (uint32_t operand : op.operands)
      if (operand >= values.size())
        return opError("operand not defined");
    if (referenceElements(op.shape) < 0)
      return opError("result shape out of range");
    HostValue r = resultOf(op);
    SPYRE_RETURN_IF_ERROR(compute(op, r));
    values.push_back(std::move(r));
    return Status::success();
  }

  std::vector<HostValue> values;

private:
  Store store;

  const HostValue &operand(const RefOpDesc &op, size_t i) const {
    return values[op.operands[i]];
  }

  Status arity(const RefOpDesc &op, size_t n) const {
    if (op.operands.size() != n)
      return opError("expects " + std::to_string(n) + " operands, has " +
                     std::to_string(op.operands.size()));
    return Status::success();
  }

  Status compute(const RefOpDesc &op, HostValue &r) {
    switch (op.kind) {
    case RefKind::Unary:
      return unary(op, r);
    case RefKind::Binary:
    case RefKind::Compare:
      return binary(op, r);
    case RefKind::Select:
      return select(op, r);
    case RefKind::Reduce:
      return reduce(op, r);
    case RefKind::Cast:
    case RefKind::Broadcast:
      return broadcast(op, r);
    case RefKind::Constant:
      return constant(op, r);
    case RefKind::Transpose:
      return transpose(op, r);
    case RefKind::Reshape:
    case RefKind::Restickify:
      return reshape(op, r);
    case RefKind::Slice:
      return slice(op, r);
    case RefKind::Concat:
      return concat(op, r);
    case RefKind::Gather:
      return gather(op, r);
    case RefKind::Scatter:
      return scatter(op, r);
    case RefKind::Matmul:
      return matmul(op, r);
    case RefKind::Attention:
      return attention(op, r);
    }
    return opError("unknown op kind");
  }

  /// The broadcast element indices of every operand for an elementwise op.
  Status elementwise(const RefOpDesc &op,
                     std::vector<std::vector<int64_t>> &indices) const {
    for (uint32_t v : op.operands) {
      indices.emplace_back();
      if (!broadcastIndices(values[v].shape, op.shape, indices.back()))
        return opError("operand does not broadcast to the result");
    }
    return Status::success();
  }

  Status unary(const RefOpDesc &op, HostValue &r) {
    SPYRE_RETURN_IF_ERROR(arity(op, 1));
    std::vector<std::vector<int64_t>> ix;
    SPYRE_RETURN_IF_ERROR(elementwise(op, ix));
    auto fn = isa::UnaryOp(op.code);
    if (op.code < 0 || fn > isa::UnaryOp::LastUnaryOp)
      return opError("unknown unary op");
    const HostValue &x = operand(op, 0);
    bool intDomain = x.isInt() && isa::hasIntegerForm(fn);
    for (size_t k = 0; k < ix[0].size(); ++k) {
      if (intDomain)
        store.setInt(r, int64_t(k), isa::unaryI(fn, x.i[ix[0][k]]));
      else
        store.setFloat(r, int64_t(k), isa::unaryF(fn, float(x.at(ix[0][k]))));
    }
    return Status::success();
  }

  /// Binary and Compare: the SFP op `code` on both operands' domain.
  Status binary(const RefOpDesc &op, HostValue &r) {
    SPYRE_RETURN_IF_ERROR(arity(op, 2));
    std::vector<std::vector<int64_t>> ix;
    SPYRE_RETURN_IF_ERROR(elementwise(op, ix));
    auto fn = isa::BinaryOp(op.code);
    if (op.code < 0 || fn > isa::BinaryOp::LastBinaryOp)
      return opError("unknown binary op");
    const HostValue &a = operand(op, 0), &b = operand(op, 1);
    bool intDomain = a.isInt() && b.isInt() && isa::hasIntegerForm(fn);
    for (size_t k = 0; k < ix[0].size(); ++k) {
      if (intDomain)
        store.setInt(r, int64_t(k),
                     isa::binaryI(fn, a.i[ix[0][k]], b.i[ix[1][k]]));
      else
        store.setFloat(
            r, int64_t(k),
            isa::binaryF(fn, float(a.at(ix[0][k])), float(b.at(ix[1][k]))));
    }
    return Status::success();
  }

  Status select(const RefOpDesc &op, HostValue &r) {
    SPYRE_RETURN_IF_ERROR(arity(op, 3));
    std::vector<std::vector<int64_t>> ix;
    SPYRE_RETURN_IF_ERROR(elementwise(op, ix));
    const HostValue &c = operand(op, 0);
    for (size_t k = 0; k < ix[0].size(); ++k) {
      const HostValue &pick =
          c.at(ix[0][k]) != 0 ? operand(op, 1) : operand(op, 2);
      int64_t src = ix[c.at(ix[0][k]) != 0 ? 1 : 2][k];
      if (pick.isInt())
        store.setInt(r, int64_t(k), pick.i[src]);
      else
        store.setFloat(r, int64_t(k), pick.f[src]);
    }
    return Status::success();
  }

  /// Cast and Broadcast: each element converted by the store.
  Status broadcast(const RefOpDesc &op, HostValue &r) {
    SPYRE_RETURN_IF_ERROR(arity(op, 1));
    std::vector<std::vector<int64_t>> ix;
    SPYRE_RETURN_IF_ERROR(elementwise(op, ix));
    const HostValue &x = operand(op, 0);
    for (size_t k = 0; k < ix[0].size(); ++k) {
      if (x.isInt())
        store.setInt(r, int64_t(k), x.i[ix[0][k]]);
      else
        store.setFloat(r, int64_t(k), x.f[ix[0][k]]);
    }
    return Status::success();
  }

  Status constant(const RefOpDesc &op, HostValue &r) {
    SPYRE_RETURN_IF_ERROR(arity(op, 0));
    int64_t n = r.numElements();
    size_t count = op.floatValues.size() + op.intValues.size();
    if (count != 1 && int64_t(count) != n)
      return opError("constant has " + std::to_string(count) + " values for " +
                     std::to_string(n) + " elements");
    for (int64_t k = 0; k < n; ++k) {
      size_t src = count == 1 ? 0 : size_t(k);
      if (op.floatValues.empty())
        store.setInt(r, k, op.intValues[src]);
      else
        store.setFloat(r, k, op.floatValues[src]);
    }
    return Status::success();
  }

  Status transpose(const RefOpDesc &op, HostValue &r) {
    SPYRE_RETURN_IF_ERROR(arity(op, 1));
    const HostValue &x = operand(op, 0);
    size_t rank = x.shape.size();
    if (op.ints.size() != rank || op.shape.size() != rank)
      return opError("transpose permutation does not fit its operand");
    std::vector<bool> seen(rank, false);
    for (size_t d = 0; d < rank; ++d) {
      int64_t p = op.ints[d];
      if (p < 0 || size_t(p) >= rank || seen[p] || op.shape[d] != x.shape[p])
        return opError("transpose permutation does not fit its operand");
      seen[p] = true;
    }
    std::vector<int64_t> xs = stridesOf(x.shape);
    forEachIndex(op.shape, [&](int64_t k, const std::vector<int64_t> &index) {
      int64_t src = 0;
      for (size_t d = 0; d < rank; ++d)
        src += index[d] * xs[op.ints[d]];
      store.copy(x, src, r, k);
    });
    return Status::success();
  }

  Status reshape(const RefOpDesc &op, HostValue &r) {
    SPYRE_RETURN_IF_ERROR(arity(op, 1));
    const HostValue &x = operand(op, 0);
    if (x.numElements() != r.numElements())
      return opError("reshape changes the number of elements");
    for (int64_t k = 0; k < r.numElements(); ++k)
      store.copy(x, k, r, k);
    return Status::success();
  }

  Status slice(const RefOpDesc &op, HostValue &r) {
    SPYRE_RETURN_IF_ERROR(arity(op, 1));
    const HostValue &x = operand(op, 0);
    size_t rank = x.shape.size();
    if (op.ints.size() != 2 * rank || op.shape.size() != rank)
      return opError("slice offsets and strides do not fit its operand");
    for (size_t d = 0; d < rank; ++d) {
      int64_t first = op.ints[d], step = op.ints[rank + d];
      int64_t last = op.shape[d] ? first + (op.shape[d] - 1) * step : first;
      if (op.shape[d] &&
          (first < 0 || first >= x.shape[d] || last < 0 || last >= x.shape[d]))
        return opError("slice window outside its operand");
    }
    std::vector<int64_t> xs = stridesOf(x.shape);
    forEachIndex(op.shape, [&](int64_t k, const std::vector<int64_t> &index) {
      int64_t src = 0;
      for (size_t d = 0; d < rank; ++d)
        src += (op.ints[d] + index[d] * op.ints[rank + d]) * xs[d];
      store.copy(x, src, r, k);
    });
    return Status::success();
  }

  /// [outer, dim, inner] sizes of `shape` around dim `dim`.
  static void splitAround(const std::vector<int64_t> &shape, size_t dim,
                          int64_t &outer, int64_t &inner) {
    outer = inner = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (d < dim)
        outer *= shape[d];
      else if (d > dim)
        inner *= shape[d];
    }
  }

  Status concat(const RefOpDesc &op, HostValue &r) {
    if (op.ints.size() != 1 || op.ints[0] < 0 ||
        size_t(op.ints[0]) >= op.shape.size())
      return opError("concat dim out of range");
    size_t dim = size_t(op.ints[0]);
    int64_t outer, inner;
    splitAround(op.shape, dim, outer, inner);
    int64_t at = 0;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const HostValue &x = operand(op, i);
      if (x.shape.size() != op.shape.size())
        return opError("concat operand of another rank");
      for (size_t d = 0; d < x.shape.size(); ++d)
        if (d != dim && x.shape[d] != op.shape[d])
          return opError("concat operand of another shape");
      if (at + x.shape[dim] > op.shape[dim])
        return opError("concat operands exceed the result");
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < x.shape[dim] * inner; ++j)
          store.copy(x, o * x.shape[dim] * inner + j, r,
                     (o * op.shape[dim] + at) * inner + j);
      at += x.shape[dim];
    }
    if (at != op.shape[dim])
      return opError("concat operands do not fill the result");
    return Status::success();
  }

  Status gather(const RefOpDesc &op, HostValue &r) {
    SPYRE_RETURN_IF_ERROR(arity(op, 2));
    const HostValue &table = operand(op, 0), &indices = operand(op, 1);
    if (table.shape.size() != 2 || !indices.isInt() ||
        r.numElements() != indices.numElements() * table.shape[1])
      return opError("gather operands do not fit its result");
    int64_t cols = table.shape[1];
    for (int64_t k = 0; k < indices.numElements(); ++k) {
      int64_t row = indices.i[k];
      if (row < 0 || row >= table.shape[0])
        return opError("gather index " + std::to_string(row) +
                       " outside the table of " +
                       std::to_string(table.shape[0]) + " rows");
      for (int64_t c = 0; c < cols; ++c)
        store.copy(table, row * cols + c, r, k * cols + c);
    }
    return Status::success();
  }

  Status scatter(const RefOpDesc &op, HostValue &r) {
    SPYRE_RETURN_IF_ERROR(arity(op, 3));
    const HostValue &dest = operand(op, 0), &indices = operand(op, 1),
                    &source = operand(op, 2);
    if (op.ints.size() != 1 || op.ints[0] < 0 ||
        size_t(op.ints[0]) >= dest.shape.size() || dest.shape != op.shape ||
        source.shape.size() != dest.shape.size() || !indices.isInt() ||
        indices.numElements() != source.shape[size_t(op.ints[0])])
      return opError("scatter operands do not fit its result");
    size_t dim = size_t(op.ints[0]);
    for (size_t d = 0; d < dest.shape.size(); ++d)
      if (d != dim && source.shape[d] != dest.shape[d])
        return opError("scatter source of another shape");
    for (int64_t k = 0; k < dest.numElements(); ++k)
      store.copy(dest, k, r, k);
    int64_t outer, inner;
    splitAround(dest.shape, dim, outer, inner);
    for (int64_t s = 0; s < indices.numElements(); ++s) {
      int64_t at = indices.i[s];
      if (at < 0 || at >= dest.shape[dim])
        return opError("scatter index " + std::to_string(at) + " out of range");
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < inner; ++j)
          store.copy(source, (o * source.shape[dim] + s) * inner + j, r,
                     (o * dest.shape[dim] + at) * inner + j);
    }
    return Status::success();
  }

  /// The batch dims of `x` (all but its last two) broadcast to `batch`:
  /// for each batch of the result, the first element of x's matrix.
  static bool batchOffsets(const HostValue &x,
                           const std::vector<int64_t> &batch,
                           std::vector<int64_t> &offsets) {
    if (x.shape.size() < 2)
      return false;
    std::vector<int64_t> xBatch(x.shape.begin(), x.shape.end() - 2);
    if (!broadcastIndices(xBatch, batch, offsets))
      return false;
    int64_t matrix = x.shape[x.shape.size() - 2] * x.shape.back();
    for (int64_t &o : offsets)
      o *= matrix;
    return true;
  }

  Status reduce(const RefOpDesc &op, HostValue &r) {
    SPYRE_RETURN_IF_ERROR(arity(op, 1));
    const HostValue &x = operand(op, 0);
    if (op.ints.size() != 1 || op.ints[0] < 0 ||
        size_t(op.ints[0]) >= x.shape.size())
      return opError("reduce dim out of range");
    auto fn = isa::ReduceOp(op.code);
    if (op.code < 0 || fn > isa::ReduceOp::LastReduceOp)
      return opError("unknown reduction");
    size_t dim = size_t(op.ints[0]);
    int64_t outer, inner, n = x.shape[dim];
    splitAround(x.shape, dim, outer, inner);
    if (r.numElements() != outer * inner || n == 0)
      return opError("reduce result does not fit its operand");
    bool isArg = fn == isa::ReduceOp::ArgMax || fn == isa::ReduceOp::ArgMin;
    std::vector<float> line(static_cast<size_t>(n));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        int64_t base = o * n * inner + in, k = o * inner + in;
        isa::ReduceState s;
        if (x.isInt()) {
          for (int64_t j = 0; j < n; ++j)
            isa::reduceStepI(fn, s, x.i[base + j * inner], j);
          store.setInt(r, k, isArg ? s.index : s.i);
          continue;
        }
        for (int64_t j = 0; j < n; ++j)
          line[j] = x.f[base + j * inner];
        if (fn == isa::ReduceOp::Sum) {
          store.setFloat(r, k, isa::sumRowF(line.data(), size_t(n)));
          continue;
        }
        for (int64_t j = 0; j < n; ++j)
          isa::reduceStepF(fn, s, line[j], j);
        if (isArg)
          store.setInt(r, k, s.index);
        else
          store.setFloat(r, k, s.f);
      }
    return Status::success();
  }

  /// A product's sizes and the strides of element (row, col) of each
  /// operand as it reads them (`ta`, `tb`: transposed).
  struct MatmulGeometry {
    int64_t m, k, kb, n;
    int64_t aRow, aCol, bRow, bCol;
  };

  static MatmulGeometry matmulGeometry(const HostValue &a, const HostValue &b,
                                       bool ta, bool tb) {
    size_t ra = a.shape.size(), rb = b.shape.size();
    MatmulGeometry g;
    g.m = ta ? a.shape[ra - 1] : a.shape[ra - 2];
    g.k = ta ? a.shape[ra - 2] : a.shape[ra - 1];
    g.kb = tb ? b.shape[rb - 1] : b.shape[rb - 2];
    g.n = tb ? b.shape[rb - 2] : b.shape[rb - 1];
    g.aRow = ta ? 1 : g.k;
    g.aCol = ta ? g.m : 1;
    g.bRow = tb ? 1 : g.n;
    g.bCol = tb ? g.k : 1;
    return g;
  }

  Status matmul(const RefOpDesc &op, HostValue &r) {
    SPYRE_RETURN_IF_ERROR(arity(op, 2));
    const HostValue &a = operand(op, 0), &b = operand(op, 1);
    if (op.ints.size() != 2 || a.isInt() || b.isInt() || r.isInt() ||
        a.shape.size() < 2 || b.shape.size() < 2 || op.shape.size() < 2)
      return opError("matmul operands do not fit it");
    MatmulGeometry g = matmulGeometry(a, b, op.ints[0] != 0, op.ints[1] != 0);
    size_t rr = op.shape.size();
    if (g.k != g.kb || op.shape[rr - 2] != g.m || op.shape[rr - 1] != g.n)
      return opError("matmul operand shapes do not fit its result");
    std::vector<int64_t> batch(op.shape.begin(), op.shape.end() - 2);
    std::vector<int64_t> offA, offB;
    if (!batchOffsets(a, batch, offA) || !batchOffsets(b, batch, offB))
      return opError("matmul batch dims do not broadcast");
    for (size_t bt = 0; bt < offA.size(); ++bt)
      for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j) {
          float acc = 0;
          for (int64_t p = 0; p < g.k; ++p)
            acc += a.f[offA[bt] + i * g.aRow + p * g.aCol] *
                   b.f[offB[bt] + p * g.bRow + j * g.bCol];
          store.setFloat(r, int64_t(bt) * g.m * g.n + i * g.n + j, acc);
        }
    return Status::success();
  }

  /// Scores `p` (their max `rowMax`) to probabilities in place, fp32,
  /// rounded to `dtype`; a row of -inf gives 0 (PyTorch's _safe_softmax).
  /// `sink`: one more logit in the sum (attention sinks), or none.
  void softmax(std::vector<float> &p, float rowMax, isa::DType dtype,
               std::optional<float> sink = std::nullopt) const {
    if (sink)
      rowMax = std::max(rowMax, *sink);
    float sum = 0;
    for (float &x : p) {
      x = std::isinf(rowMax) && rowMax < 0 ? 0.0f : std::exp(x - rowMax);
      sum += x;
    }
    if (sink && !(std::isinf(rowMax) && rowMax < 0))
      sum += std::exp(*sink - rowMax);
    for (float &x : p)
      x = store.rounded(sum > 0 ? x / sum : 0.0f, dtype);
  }

  /// The shapes of q [.., M, D], key [.., S, D] and value [.., S, Dv] fit
  /// each other and the result [.., M, Dv].
  static bool attentionShapesFit(const HostValue &q, const HostValue &key,
                                 const HostValue &value, const HostValue &r) {
    size_t rank = q.shape.size();
    if (q.isInt() || key.isInt() || value.isInt() || r.isInt() || rank < 2 ||
        key.shape.size() != rank || value.shape.size() != rank ||
        r.shape.size() != rank)
      return false;
    return key.shape[rank - 1] == q.shape[rank - 1] &&
           value.shape[rank - 2] == key.shape[rank - 2] &&
           r.shape[rank - 2] == q.shape[rank - 2] &&
           r.shape[rank - 1] == value.shape[rank - 1];
  }

  /// The query rotated by a rope: q * cos + (q @ rotation) * sin, each step
  /// rounded to q's type (cos and sin broadcast to q, the rotation [D, D]).
  Status rotateQuery(const HostValue &q, const HostValue &cos,
                     const HostValue &sin, const HostValue &rotation,
                     std::vector<float> &out) const {
    int64_t d = q.shape.back();
    std::vector<int64_t> cosIx, sinIx;
    if (cos.isInt() || sin.isInt() || rotation.isInt() ||
        !broadcastIndices(cos.shape, q.shape, cosIx) ||
        !broadcastIndices(sin.shape, q.shape, sinIx) ||
        rotation.shape != std::vector<int64_t>{d, d})
      return opError("attention rope tables do not fit the query");
    out.assign(q.f.begin(), q.f.end());
    for (int64_t base = 0; base < q.numElements(); base += d)
      for (int64_t c = 0; c < d; ++c) {
        float product = 0;
        for (int64_t p = 0; p < d; ++p)
          product += q.f[base + p] * float(rotation.at(p * d + c));
        int64_t i = base + c;
        float cosTerm =
            store.rounded(q.f[i] * float(cos.at(cosIx[i])), q.dtype);
        float sinTerm = store.rounded(
            store.rounded(product, q.dtype) * float(sin.at(sinIx[i])), q.dtype);
        out[i] = store.rounded(cosTerm + sinTerm, q.dtype);
      }
    return Status::success();
  }

  /// An attention op's operands: flags from its ints (causal, has a mask,
  /// has sinks, has a rope; files before sinks: two, before the rope:
  /// three), the mask and sinks or null, and the query, rotated when the
  /// op has a rope.
  struct AttentionArgs {
    bool causal = false;
    const HostValue *mask = nullptr, *sinks = nullptr;
    std::vector<float> rotated;
    const std::vector<float> *query = nullptr;
  };

  Status attentionArgs(const RefOpDesc &op, AttentionArgs &a) const {
    if (op.ints.size() < 2 || op.ints.size() > 4)
      return opError("attention attributes missing");
    a.causal = op.ints[0] != 0;
    bool hasMask = op.ints[1] != 0;
    bool hasSinks = op.ints.size() >= 3 && op.ints[2] != 0;
    bool hasRope = op.ints.size() == 4 && op.ints[3] != 0;
    SPYRE_RETURN_IF_ERROR(
        arity(op, 3 + int(hasMask) + int(hasSinks) + 3 * int(hasRope)));
    a.mask = hasMask ? &operand(op, 3) : nullptr;
    a.sinks = hasSinks ? &operand(op, hasMask ? 4 : 3) : nullptr;
    const HostValue &q = operand(op, 0);
    a.query = &q.f;
    if (hasRope) {
      int64_t rope = 3 + int(hasMask) + int(hasSinks);
      SPYRE_RETURN_IF_ERROR(rotateQuery(q, operand(op, rope),
                                        operand(op, rope + 1),
                                        operand(op, rope + 2), a.rotated));
      a.query = &a.rotated;
    }
    return Status::success();
  }

  /// Query row `i`'s scores against every key into `p`: scaled, plus the
  /// mask (its elements `maskRow`), -inf past the diagonal when causal.
  /// Returns their max.
  float scoreRow(const RefOpDesc &op, const AttentionArgs &a, const float *qRow,
                 const float *keys, int64_t d, int64_t i,
                 const int64_t *maskRow, std::vector<float> &p) const {
    const float inf = std::numeric_limits<float>::infinity();
    float rowMax = -inf;
    for (size_t j = 0; j < p.size(); ++j) {
      float dot = 0;
      for (int64_t c = 0; c < d; ++c)
        dot += qRow[c] * keys[int64_t(j) * d + c];
      float score = float(op.scale) * dot;
      if (maskRow)
        score += float(a.mask->at(maskRow[j]));
      if (a.causal && int64_t(j) > i)
        score = -inf;
      p[j] = score;
      rowMax = std::max(rowMax, score);
    }
    return rowMax;
  }

  Status attention(const RefOpDesc &op, HostValue &r) {
    AttentionArgs a;
    SPYRE_RETURN_IF_ERROR(attentionArgs(op, a));
    const HostValue &q = operand(op, 0), &key = operand(op, 1),
                    &value = operand(op, 2);
    if (!attentionShapesFit(q, key, value, r))
      return opError("attention operand shapes do not fit its result");
    const std::vector<float> &qf = *a.query;
    size_t rank = q.shape.size();
    int64_t m = q.shape[rank - 2], d = q.shape[rank - 1];
    int64_t s = key.shape[rank - 2], dv = value.shape[rank - 1];
    std::vector<int64_t> batch(op.shape.begin(), op.shape.end() - 2);
    std::vector<int64_t> offQ, offK, offV, maskIx;
    if (!batchOffsets(q, batch, offQ) || !batchOffsets(key, batch, offK) ||
        !batchOffsets(value, batch, offV))
      return opError("attention batch dims do not broadcast");
    std::vector<int64_t> scoreShape = batch;
    scoreShape.push_back(m);
    scoreShape.push_back(s);
    if (a.mask && !broadcastIndices(a.mask->shape, scoreShape, maskIx))
      return opError("attention mask does not broadcast to the scores");
    std::vector<int64_t> rowShape(scoreShape), sinkIx;
    rowShape.back() = 1;
    if (a.sinks && (a.sinks->isInt() ||
                    !broadcastIndices(a.sinks->shape, rowShape, sinkIx)))
      return opError("attention sinks do not broadcast to the score rows");
    std::vector<float> p(static_cast<size_t>(s));
    for (size_t bt = 0; bt < offQ.size(); ++bt)
      for (int64_t i = 0; i < m; ++i) {
        float rowMax =
            scoreRow(op, a, &qf[offQ[bt] + i * d], &key.f[offK[bt]], d, i,
                     a.mask ? &maskIx[(int64_t(bt) * m + i) * s] : nullptr, p);
        std::optional<float> sink;
        if (a.sinks)
          sink = float(a.sinks->at(sinkIx[int64_t(bt) * m + i]));
        softmax(p, rowMax, value.dtype, sink);
        for (int64_t c = 0; c < dv; ++c) {
          float acc = 0;
          for (int64_t j = 0; j < s; ++j)
            acc += p[j] * value.f[offV[bt] + j * dv + c];
          store.setFloat(r, (int64_t(bt) * m + i) * dv + c, acc);
        }
      }
    return Status::success();
  }
};

} // namespace

HostValue hostValueFromBytes(isa::DType dtype, std::vector<int64_t> shape,
                             const void *data) {
  HostValue v;
  v.dtype = dtype;
  v.shape = std::move(shape);
  int64_t n = v.numElements();
  const auto *bytes = static_cast<const uint8_t *>(data);
  auto read = [&](auto type, int64_t k) {
    decltype(type) x;
    std::memcpy(&x, bytes + k * sizeof(x), sizeof(x));
    return x;
  };
  if (v.isInt())
    v.i.resize(size_t(n));
  else
    v.f.resize(size_t(n));
  for (int64_t k = 0; k < n; ++k) {
    switch (dtype) {
    case isa::DType::F32:
      v.f[k] = read(float(), k);
      break;
    case isa::DType::F16:
      v.f[k] = spy::halfToFloat(read(uint16_t(), k));
      break;
    case isa::DType::BF16:
      v.f[k] = spy::bf16ToFloat(read(uint16_t(), k));
      break;
    case isa::DType::I8:
      v.i[k] = read(int8_t(), k);
      break;
    case isa::DType::I32:
      v.i[k] = read(int32_t(), k);
      break;
    case isa::DType::I64:
      v.i[k] = read(int64_t(), k);
      break;
    case isa::DType::Bool:
      v.i[k] = read(uint8_t(), k) != 0;
      break;
    }
  }
  return v;
}

Status evaluateReference(const spy::KernelReferenceDesc &ref,
                         std::vector<HostValue> inputs, bool dl16,
                         std::vector<HostValue> &results, size_t &failedOp) {
  Evaluator e(std::move(inputs), dl16);
  for (size_t i = 0; i < ref.ops.size(); ++i) {
    failedOp = i;
    SPYRE_RETURN_IF_ERROR(e.run(ref.ops[i]));
  }
  results.clear();
  for (uint32_t y : ref.yields) {
    if (y >= e.values.size())
      return opError("yield of an undefined value");
    results.push_back(e.values[y]);
  }
  return Status::success();
}

} // namespace spyre::rt
