//===- ReferenceReader.cpp - A program's reference from the .spy ----------===//

#include "ReferenceReader.h"

#include "spyre/Spy/Layout.h"

namespace spyre::rt {

namespace {

/// Copies `v` (absent: nothing); false when its elements are misaligned:
/// the FlatBuffers verifier checks the alignment of a vector's length only,
/// and reading misaligned 8-byte elements is undefined behaviour (a mutated
/// file found it).
template <typename T>
bool copyVector(const flatbuffers::Vector<T> *v, std::vector<T> &dst) {
  if (!v)
    return true;
  if (v->size() && reinterpret_cast<uintptr_t>(v->Data()) % alignof(T) != 0)
    return false;
  dst.assign(v->begin(), v->end());
  return true;
}

std::string str(const flatbuffers::String *s) {
  return s ? std::string(s->c_str(), s->size()) : std::string();
}

/// A shape of at most kMaxRank dims and kMaxReferenceElements elements.
bool readShape(const flatbuffers::Vector<int64_t> *v,
               std::vector<int64_t> &shape) {
  if (v && v->size() > spy::kMaxRank)
    return false;
  return copyVector(v, shape) && referenceElements(shape) >= 0;
}

bool readValues(
    const flatbuffers::Vector<flatbuffers::Offset<spy::RefValue>> *values,
    size_t numTensors, std::vector<spy::RefValueDesc> &out, const char *what,
    std::string &error) {
  for (size_t i = 0; values && i < values->size(); ++i) {
    const spy::RefValue *v = values->Get(flatbuffers::uoffset_t(i));
    spy::RefValueDesc d;
    d.tensor = v->tensor();
    std::string label = std::string(what) + " " + std::to_string(i);
    if (d.tensor >= numTensors) {
      error = label + ": tensor " + std::to_string(d.tensor) + " out of range";
      return false;
    }
    if (!readShape(v->shape(), d.shape)) {
      error = label + ": shape out of range or misaligned";
      return false;
    }
    out.push_back(std::move(d));
  }
  return true;
}

bool readOp(const spy::RefOp &op, size_t index, size_t numValues,
            spy::RefOpDesc &d, std::string &error) {
  std::string label = "op " + std::to_string(index);
  if (op.kind() > spy::RefKind::MAX || op.dtype() > spy::DType::MAX) {
    error = label + ": kind or dtype out of range";
    return false;
  }
  d.kind = op.kind();
  d.code = op.code();
  d.dtype = isa::DType(op.dtype());
  if (!copyVector(op.operands(), d.operands) ||
      !copyVector(op.float_values(), d.floatValues) ||
      !copyVector(op.int_values(), d.intValues)) {
    error = label + ": misaligned vector";
    return false;
  }
  for (uint32_t operand : d.operands)
    if (operand >= numValues) {
      error = label + ": operand " + std::to_string(operand) +
              " is not defined before it";
      return false;
    }
  if (!readShape(op.shape(), d.shape)) {
    error = label + ": shape out of range or misaligned";
    return false;
  }
  if (op.ints() && op.ints()->size() > 2 * spy::kMaxRank) {
    error = label + ": too many integer attributes";
    return false;
  }
  if (!copyVector(op.ints(), d.ints)) {
    error = label + ": misaligned vector";
    return false;
  }
  d.scale = op.scale();
  d.location = str(op.location());
  d.node = str(op.node());
  return true;
}

} // namespace

int64_t referenceElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d && n > kMaxReferenceElements / d))
      return -1;
    n *= d;
  }
  return n;
}

bool readKernelReference(const spy::KernelReference &fb, size_t numTensors,
                         spy::KernelReferenceDesc &out, std::string &error) {
  if (!readValues(fb.inputs(), numTensors, out.inputs, "input", error) ||
      !readValues(fb.results(), numTensors, out.results, "result", error))
    return false;
  size_t numValues = out.inputs.size();
  for (size_t i = 0; fb.ops() && i < fb.ops()->size(); ++i) {
    spy::RefOpDesc d;
    if (!readOp(*fb.ops()->Get(flatbuffers::uoffset_t(i)), i, numValues, d,
                error))
      return false;
    out.ops.push_back(std::move(d));
    ++numValues;
  }
  if (!copyVector(fb.yields(), out.yields)) {
    error = "misaligned yields";
    return false;
  }
  if (out.yields.size() != out.results.size()) {
    error = std::to_string(out.yields.size()) + " yields for " +
            std::to_string(out.results.size()) + " results";
    return false;
  }
  for (uint32_t y : out.yields)
    if (y >= numValues) {
      error = "yield of undefined value " + std::to_string(y);
      return false;
    }
  return true;
}

} // namespace spyre::rt
