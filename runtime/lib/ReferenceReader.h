//===- ReferenceReader.h - A program's reference from the .spy --*- C++ -*-===//
//
// Reads and validates the `reference` table of a .spy program (format 2.3):
// every index in range, every shape bounded, so that evaluating it
// (ReferenceEval.h) never reads outside its values. What each op's operands
// must be is checked when it is evaluated.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_LIB_REFERENCEREADER_H
#define SPYRE_RUNTIME_LIB_REFERENCEREADER_H

#include "spyre/Spy/KernelReference.h"

#include <string>

namespace spyre::rt {

/// Most elements of one reference value: a check of a bigger kernel would
/// not fit the host anyway.
constexpr int64_t kMaxReferenceElements = int64_t(1) << 31;

/// `fb` as a description; false with `error` when an index or shape is out
/// of range. `numTensors`: the model's tensors.
bool readKernelReference(const spy::KernelReference &fb, size_t numTensors,
                         spy::KernelReferenceDesc &out, std::string &error);

/// Elements of `shape`, or -1 when a dim is negative or the product exceeds
/// kMaxReferenceElements.
int64_t referenceElements(const std::vector<int64_t> &shape);

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_LIB_REFERENCEREADER_H
