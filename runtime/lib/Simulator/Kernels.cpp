//===- Kernels.cpp - Functional semantics of the instructions -------------===//

#include "Kernels.h"

#include "spyre/ISA/ElementMath.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace spyre::rt::sim {

using isa::BinaryOp;
using isa::ReduceOp;
using isa::UnaryOp;

namespace {

//===--- Element-wise operations ------------------------------------------===//

// The per-element semantics live in spyre/ISA/ElementMath.h (shared with the
// constant folder); these run them over a row with the dispatch hoisted.

void unaryF(UnaryOp op, float *x, size_t n) {
  isa::visit(op, [&](auto tag) {
    for (size_t i = 0; i < n; ++i)
      x[i] = isa::unaryF<decltype(tag)::value>(x[i]);
  });
}

void unaryI(UnaryOp op, int64_t *x, size_t n) {
  isa::visit(op, [&](auto tag) {
    for (size_t i = 0; i < n; ++i)
      x[i] = isa::unaryI<decltype(tag)::value>(x[i]);
  });
}

void binaryF(BinaryOp op, const float *a, const float *b, float *out,
             size_t n) {
  isa::visit(op, [&](auto tag) {
    for (size_t i = 0; i < n; ++i)
      out[i] = isa::binaryF<decltype(tag)::value>(a[i], b[i]);
  });
}

void binaryI(BinaryOp op, const int64_t *a, const int64_t *b, int64_t *out,
             size_t n) {
  isa::visit(op, [&](auto tag) {
    for (size_t i = 0; i < n; ++i)
      out[i] = isa::binaryI<decltype(tag)::value>(a[i], b[i]);
  });
}

//===--- Row access -------------------------------------------------------===//

/// Loads one row of `cols` elements (or one element broadcast when `bcast`)
/// as fp32.
void loadRowF(ElementStorage s, const uint8_t *row, size_t cols, bool bcast,
              float *out) {
  if (bcast) {
    float v;
    loadF32(s, row, 1, &v);
    std::fill(out, out + cols, v);
  } else {
    loadF32(s, row, cols, out);
  }
}

void loadRowI(ElementStorage s, const uint8_t *row, size_t cols, bool bcast,
              int64_t *out) {
  if (bcast) {
    int64_t v;
    loadI64(s, row, 1, &v);
    std::fill(out, out + cols, v);
  } else {
    loadI64(s, row, cols, out);
  }
}

template <typename T> T *grow(std::vector<T> &v, size_t n) {
  if (v.size() < n)
    v.resize(n);
  return v.data();
}

} // namespace

//===--- DMA --------------------------------------------------------------===//

uint64_t lxBoxOffset(const isa::Inst &inst, uint64_t i0, uint64_t i1,
                     uint64_t i2) {
  uint64_t n1 = inst.arg[1], n2 = inst.arg[2], n3 = inst.arg[3];
  if (inst.lx[2])
    return i0 * inst.lx[2] + (i1 * n2 + i2) * n3;
  return ((i0 * n1 + i1) * n2 + i2) * n3;
}

void execDmaLoad(const ExecView &v, const SparseMemory &memory, uint8_t *lx) {
  const isa::Inst &inst = *v.inst;
  for (uint64_t i0 = 0; i0 < v.args[0]; ++i0)
    for (uint64_t i1 = 0; i1 < v.args[1]; ++i1)
      for (uint64_t i2 = 0; i2 < v.args[2]; ++i2) {
        uint64_t src = v.mem + uint64_t(int64_t(i0) * inst.pitch[0] +
                                        int64_t(i1) * inst.pitch[1] +
                                        int64_t(i2) * inst.pitch[2]);
        uint64_t dst = uint64_t(v.lx[0]) + lxBoxOffset(inst, i0, i1, i2);
        memory.read(src, lx + dst, v.args[3]);
      }
}

void execDmaStore(const ExecView &v, SparseMemory &memory, const uint8_t *lx) {
  const isa::Inst &inst = *v.inst;
  for (uint64_t i0 = 0; i0 < v.args[0]; ++i0)
    for (uint64_t i1 = 0; i1 < v.args[1]; ++i1)
      for (uint64_t i2 = 0; i2 < v.args[2]; ++i2) {
        uint64_t dst = v.mem + uint64_t(int64_t(i0) * inst.pitch[0] +
                                        int64_t(i1) * inst.pitch[1] +
                                        int64_t(i2) * inst.pitch[2]);
        uint64_t src = uint64_t(v.lx[1]) + lxBoxOffset(inst, i0, i1, i2);
        memory.write(dst, lx + src, v.args[3]);
      }
}

bool execDmaScatter(const ExecView &v, SparseMemory &memory, const uint8_t *lx,
                    std::string &error) {
  const isa::Inst &inst = *v.inst;
  bool wide = inst.dtype[2] == uint8_t(isa::DType::I64);
  for (uint64_t r = 0; r < v.args[0]; ++r) {
    int64_t index;
    if (wide) {
      std::memcpy(&index, lx + v.lx[2] + r * 8, 8);
    } else {
      int32_t narrow;
      std::memcpy(&narrow, lx + v.lx[2] + r * 4, 4);
      index = narrow;
    }
    if (index < 0 || uint64_t(index) >= inst.arg[1]) {
      error = "scatter index " + std::to_string(index) + " (row " +
              std::to_string(r) + ") outside the table of " +
              std::to_string(inst.arg[1]) + " rows";
      return false;
    }
    uint64_t dst = v.mem + uint64_t(index * int64_t(inst.pitch[0]));
    memory.write(dst, lx + v.lx[1] + r * uint64_t(inst.arg[3]), v.args[3]);
  }
  return true;
}

bool execDmaGather(const ExecView &v, const SparseMemory &memory, uint8_t *lx,
                   std::string &error) {
  const isa::Inst &inst = *v.inst;
  bool wide = inst.dtype[1] == uint8_t(isa::DType::I64);
  for (uint64_t r = 0; r < v.args[0]; ++r) {
    int64_t index;
    if (wide) {
      std::memcpy(&index, lx + v.lx[1] + r * 8, 8);
    } else {
      int32_t narrow;
      std::memcpy(&narrow, lx + v.lx[1] + r * 4, 4);
      index = narrow;
    }
    if (index < 0 || uint64_t(index) >= inst.arg[1]) {
      error = "gather index " + std::to_string(index) + " (row " +
              std::to_string(r) + ") outside the table of " +
              std::to_string(inst.arg[1]) + " rows";
      return false;
    }
    uint64_t src = v.mem + uint64_t(index * int64_t(inst.pitch[0]));
    memory.read(src, lx + v.lx[0] + r * uint64_t(inst.arg[3]), v.args[3]);
  }
  return true;
}

//===--- PT ---------------------------------------------------------------===//

void execPtMatmul(const ExecView &v, uint8_t *lx, Scratch &scratch) {
  const isa::Inst &inst = *v.inst;
  size_t m = v.args[0], k = v.args[1], n = v.args[2];
  if (!m || !n)
    return;
  // Read both operands before writing C (C may overlap them).
  float *a = grow(scratch.f[0], m * k);
  float *b = grow(scratch.f[1], k * n);
  float *c = grow(scratch.f[2], n);
  for (size_t i = 0; i < m; ++i)
    loadF32(v.storage[1], lx + v.lx[1] + i * uint64_t(inst.pitch[1]), k,
            a + i * k);
  for (size_t p = 0; p < k; ++p)
    loadF32(v.storage[2], lx + v.lx[2] + p * uint64_t(inst.pitch[2]), n,
            b + p * n);
  for (size_t i = 0; i < m; ++i) {
    uint8_t *row = lx + v.lx[0] + i * uint64_t(inst.pitch[0]);
    if (v.init)
      std::fill(c, c + n, 0.0f);
    else
      loadF32(v.storage[0], row, n, c);
    const float *ai = a + i * k;
    for (size_t p = 0; p < k; ++p) {
      float x = ai[p];
      const float *bp = b + p * n;
      for (size_t j = 0; j < n; ++j)
        c[j] += x * bp[j];
    }
    storeF32(v.storage[0], c, n, row);
  }
}

//===--- SFP --------------------------------------------------------------===//

void execSfpUnary(const ExecView &v, uint8_t *lx, Scratch &scratch) {
  const isa::Inst &inst = *v.inst;
  size_t rows = v.args[0], cols = v.args[1];
  auto op = UnaryOp(inst.op);
  bool bcast = inst.flags & isa::kFlagBcastCol0;
  ElementStorage dstS = v.storage[0], srcS = v.storage[1];
  uint64_t p0 = uint64_t(inst.pitch[0]), p1 = uint64_t(inst.pitch[1]);
  if (op == UnaryOp::Copy && dstS == srcS && !bcast) {
    size_t bytes = cols * storageBytes(srcS);
    uint8_t *tmp = grow(scratch.bytes, bytes);
    for (size_t r = 0; r < rows; ++r) {
      std::memcpy(tmp, lx + v.lx[1] + r * p1, bytes);
      std::memcpy(lx + v.lx[0] + r * p0, tmp, bytes);
    }
    return;
  }
  if (isIntegerStorage(srcS) && isa::hasIntegerForm(op)) {
    int64_t *x = grow(scratch.i[0], cols);
    for (size_t r = 0; r < rows; ++r) {
      loadRowI(srcS, lx + v.lx[1] + r * p1, cols, bcast, x);
      unaryI(op, x, cols);
      storeI64(dstS, x, cols, lx + v.lx[0] + r * p0);
    }
    return;
  }
  float *x = grow(scratch.f[0], cols);
  for (size_t r = 0; r < rows; ++r) {
    loadRowF(srcS, lx + v.lx[1] + r * p1, cols, bcast, x);
    unaryF(op, x, cols);
    storeF32(dstS, x, cols, lx + v.lx[0] + r * p0);
  }
}

void execSfpBinary(const ExecView &v, uint8_t *lx, Scratch &scratch) {
  const isa::Inst &inst = *v.inst;
  size_t rows = v.args[0], cols = v.args[1];
  auto op = BinaryOp(inst.op);
  bool bcast0 = inst.flags & isa::kFlagBcastCol0;
  bool bcast1 = inst.flags & isa::kFlagBcastCol1;
  uint64_t p0 = uint64_t(inst.pitch[0]), p1 = uint64_t(inst.pitch[1]),
           p2 = uint64_t(inst.pitch[2]);
  if (isIntegerStorage(v.storage[1]) && isIntegerStorage(v.storage[2]) &&
      isa::hasIntegerForm(op)) {
    int64_t *a = grow(scratch.i[0], cols), *b = grow(scratch.i[1], cols),
            *out = grow(scratch.i[2], cols);
    for (size_t r = 0; r < rows; ++r) {
      loadRowI(v.storage[1], lx + v.lx[1] + r * p1, cols, bcast0, a);
      loadRowI(v.storage[2], lx + v.lx[2] + r * p2, cols, bcast1, b);
      binaryI(op, a, b, out, cols);
      storeI64(v.storage[0], out, cols, lx + v.lx[0] + r * p0);
    }
    return;
  }
  float *a = grow(scratch.f[0], cols), *b = grow(scratch.f[1], cols),
        *out = grow(scratch.f[2], cols);
  for (size_t r = 0; r < rows; ++r) {
    loadRowF(v.storage[1], lx + v.lx[1] + r * p1, cols, bcast0, a);
    loadRowF(v.storage[2], lx + v.lx[2] + r * p2, cols, bcast1, b);
    binaryF(op, a, b, out, cols);
    storeF32(v.storage[0], out, cols, lx + v.lx[0] + r * p0);
  }
}

namespace {

/// Copies a row of candidate values already in the destination's storage
/// (`bcast`: one value for every column).
void copyRowRaw(const uint8_t *valRow, size_t cols, uint32_t bytes, bool bcast,
                uint8_t *vals) {
  if (bcast)
    for (size_t c = 0; c < cols; ++c)
      std::memcpy(vals + c * bytes, valRow, bytes);
  else
    std::memcpy(vals, valRow, cols * bytes);
}

/// Writes the candidate value of each column whose condition is non-zero
/// (`bcastCond`: one condition for every column).
void selectRow(ElementStorage condS, const uint8_t *condRow, bool bcastCond,
               const uint8_t *vals, size_t cols, uint32_t condBytes,
               uint32_t dstBytes, uint8_t *dstRow) {
  for (size_t c = 0; c < cols; ++c)
    if (isNonZero(condS, condRow + (bcastCond ? 0 : c * condBytes)))
      std::memcpy(dstRow + c * dstBytes, vals + c * dstBytes, dstBytes);
}

} // namespace

void execSfpSelect(const ExecView &v, uint8_t *lx, Scratch &scratch) {
  const isa::Inst &inst = *v.inst;
  size_t rows = v.args[0], cols = v.args[1];
  bool bcast0 = inst.flags & isa::kFlagBcastCol0;
  bool bcast1 = inst.flags & isa::kFlagBcastCol1;
  uint64_t p0 = uint64_t(inst.pitch[0]), p1 = uint64_t(inst.pitch[1]),
           p2 = uint64_t(inst.pitch[2]);
  ElementStorage dstS = v.storage[0], condS = v.storage[1], valS = v.storage[2];
  uint32_t condBytes = storageBytes(condS);
  uint32_t dstBytes = storageBytes(dstS);
  bool raw = dstS == valS;
  bool viaInt = !raw && isIntegerStorage(dstS) && isIntegerStorage(valS);
  uint8_t *vals = grow(scratch.bytes, cols * dstBytes);
  float *f = grow(scratch.f[0], cols);
  int64_t *iv = grow(scratch.i[0], cols);
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t *condRow = lx + v.lx[1] + r * p1;
    const uint8_t *valRow = lx + v.lx[2] + r * p2;
    uint8_t *dstRow = lx + v.lx[0] + r * p0;
    // The candidate values, converted to the destination's storage.
    if (raw) {
      copyRowRaw(valRow, cols, dstBytes, bcast1, vals);
    } else if (viaInt) {
      loadRowI(valS, valRow, cols, bcast1, iv);
      storeI64(dstS, iv, cols, vals);
    } else {
      loadRowF(valS, valRow, cols, bcast1, f);
      storeF32(dstS, f, cols, vals);
    }
    selectRow(condS, condRow, bcast0, vals, cols, condBytes, dstBytes, dstRow);
  }
}

namespace {

/// Steps the running state of each column (`rowsMode`: one line per
/// column, at row `r`) or of row `r` (one line per row) over one loaded row.
void reduceRow(ReduceOp op, bool intDomain, bool rowsMode, size_t r,
               size_t cols, const float *f, const int64_t *iv,
               std::vector<isa::ReduceState> &state) {
  if (!rowsMode && op == ReduceOp::Sum && !intDomain) {
    state[r].f = isa::sumRowF(f, cols);
    return;
  }
  for (size_t c = 0; c < cols; ++c) {
    isa::ReduceState &s = rowsMode ? state[c] : state[r];
    int64_t index = int64_t(rowsMode ? r : c);
    if (intDomain)
      isa::reduceStepI(op, s, iv[c], index);
    else
      isa::reduceStepF(op, s, f[c], index);
  }
}

/// The running states of a reduction tile: one per row, or per column with
/// kFlagReduceRows.
std::vector<isa::ReduceState> reduceTile(const ExecView &v, const uint8_t *lx,
                                         Scratch &scratch) {
  const isa::Inst &inst = *v.inst;
  size_t rows = v.args[0], cols = v.args[1];
  auto op = ReduceOp(inst.op);
  bool rowsMode = inst.flags & isa::kFlagReduceRows;
  bool intDomain = isIntegerStorage(v.storage[1]);
  uint64_t p1 = uint64_t(inst.pitch[1]);
  std::vector<isa::ReduceState> state(rowsMode ? cols : rows);
  float *f = grow(scratch.f[0], cols);
  int64_t *iv = grow(scratch.i[0], cols);
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t *row = lx + v.lx[1] + r * p1;
    if (intDomain)
      loadI64(v.storage[1], row, cols, iv);
    else
      loadF32(v.storage[1], row, cols, f);
    reduceRow(op, intDomain, rowsMode, r, cols, f, iv, state);
  }
  return state;
}

/// ArgMax/ArgMin: stores the index of line `s` at `dst`. When accumulating,
/// the best value so far is kept at `value` and the index is stored only
/// when this tile's is better (or on the initializing iteration).
void storeArgResult(const ExecView &v, const isa::ReduceState &s, uint8_t *dst,
                    uint8_t *value) {
  auto op = ReduceOp(v.inst->op);
  bool intDomain = isIntegerStorage(v.storage[1]);
  int64_t index = s.index + v.indexBase;
  if (value) {
    bool replace = v.init;
    if (!replace && intDomain) {
      int64_t stored;
      loadI64(v.storage[2], value, 1, &stored);
      replace = isa::isBetterI(op, s.i, stored);
    } else if (!replace) {
      float stored;
      loadF32(v.storage[2], value, 1, &stored);
      replace = isa::isBetterF(op, s.f, stored);
    }
    if (!replace)
      return;
    if (intDomain)
      storeI64(v.storage[2], &s.i, 1, value);
    else
      storeF32(v.storage[2], &s.f, 1, value);
  }
  storeI64(v.storage[0], &index, 1, dst);
}

/// Stores the reduced value of line `s` at `dst`, combined with what is
/// there unless this iteration initializes it.
void storeValueResult(const ExecView &v, const isa::ReduceState &s,
                      uint8_t *dst) {
  auto op = ReduceOp(v.inst->op);
  if (isIntegerStorage(v.storage[1])) {
    int64_t result = s.i;
    if (!v.init) {
      int64_t old;
      loadI64(v.storage[0], dst, 1, &old);
      result = isa::combineI(op, old, result);
    }
    storeI64(v.storage[0], &result, 1, dst);
    return;
  }
  float result = s.f;
  if (!v.init) {
    float old;
    loadF32(v.storage[0], dst, 1, &old);
    result = isa::combineF(op, old, result);
  }
  storeF32(v.storage[0], &result, 1, dst);
}

} // namespace

void execSfpReduce(const ExecView &v, uint8_t *lx, Scratch &scratch) {
  const isa::Inst &inst = *v.inst;
  if (!v.args[0] || !v.args[1])
    return;
  auto op = ReduceOp(inst.op);
  bool rowsMode = inst.flags & isa::kFlagReduceRows;
  bool isArg = op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
  bool accumulate = inst.flags & isa::kFlagAccumulate;
  uint64_t p0 = uint64_t(inst.pitch[0]), p2 = uint64_t(inst.pitch[2]);
  std::vector<isa::ReduceState> state = reduceTile(v, lx, scratch);
  uint32_t e0 = storageBytes(v.storage[0]), e2 = storageBytes(v.storage[2]);
  for (size_t l = 0; l < state.size(); ++l) {
    uint8_t *dst = lx + v.lx[0] + (rowsMode ? l * e0 : l * p0);
    if (!isArg) {
      storeValueResult(v, state[l], dst);
      continue;
    }
    uint8_t *value =
        accumulate ? lx + v.lx[2] + (rowsMode ? l * e2 : l * p2) : nullptr;
    storeArgResult(v, state[l], dst, value);
  }
}

void execSfpTranspose(const ExecView &v, uint8_t *lx) {
  const isa::Inst &inst = *v.inst;
  size_t rows = v.args[0], cols = v.args[1];
  uint32_t es = storageBytes(v.storage[1]);
  uint64_t p0 = uint64_t(inst.pitch[0]), p1 = uint64_t(inst.pitch[1]);
  // Through a copy of the source: source and destination may overlap.
  std::vector<uint8_t> src(rows * cols * es);
  for (size_t r = 0; r < rows; ++r)
    std::memcpy(src.data() + r * cols * es, lx + v.lx[1] + r * p1, cols * es);
  for (size_t c = 0; c < cols; ++c) {
    uint8_t *dstRow = lx + v.lx[0] + c * p0;
    for (size_t r = 0; r < rows; ++r)
      std::memcpy(dstRow + r * es, src.data() + (r * cols + c) * es, es);
  }
}

} // namespace spyre::rt::sim
