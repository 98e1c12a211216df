//===- CostModel.h - Time of instructions on the machine model --*- C++ -*-===//
//
// The compiler's view of docs/isa.md's timing model, from the machine
// description only. The simulator implements the same model on its own
// (runtime/); bench/ compares the two.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_TRANSFORMS_COSTMODEL_H
#define SPYRE_TRANSFORMS_COSTMODEL_H

#include "spyre/Arch/Arch.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace spyre {

/// Nanoseconds of one PtMatmul of an m x k by k x n tile.
double ptMatmulNs(const Arch &arch, int64_t m, int64_t k, int64_t n);

/// Nanoseconds of one SFP op over `rows` rows of `cols` elements whose
/// widest operand has `elementBytes`-byte elements.
double sfpNs(const Arch &arch, int64_t rows, int64_t cols,
             int64_t elementBytes, bool complex);

/// Nanoseconds to move `bytes` between device memory and one core's LX
/// while `activeCores` cores stream at the same rate (the memory node is
/// shared; one ring link feeds each core).
double dmaNs(const Arch &arch, int64_t bytes, int64_t activeCores);

/// Nanoseconds for each of `activeCores` cores to move its transfers of
/// one pipeline step: `transfers` are (bytes, sharers) per tensor, a tensor
/// read by `sharers` cores at once being one multicast memory read.
double dmaStepNs(const Arch &arch,
                 llvm::ArrayRef<std::pair<int64_t, int64_t>> transfers,
                 int64_t activeCores);

/// The roofline of a piece of work: max(compute at peak, bytes at sustained
/// bandwidth), in nanoseconds.
double rooflineNs(const Arch &arch, int64_t macs, int64_t bytes);

} // namespace spyre

#endif // SPYRE_TRANSFORMS_COSTMODEL_H
