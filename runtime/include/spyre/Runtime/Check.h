//===- Check.h - Kernel-by-kernel golden comparison -------------*- C++ -*-===//
//
// spyre-run --check: runs a launch one kernel at a time and, around each,
// reads the kernel's inputs and results from the device and evaluates the
// program's reference (the compute ops of its kernel, on the host, with the
// device's element semantics) on the same inputs. Each kernel is judged on
// its own inputs, so the first kernel that diverges is the one whose
// lowering is wrong, not one downstream of it. docs/debugging.md.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_CHECK_H
#define SPYRE_RUNTIME_CHECK_H

#include "spyre/Runtime/Executable.h"

#include <map>
#include <string>
#include <vector>

namespace spyre::rt {

/// |device - reference| <= atol + rtol * |reference| per element.
struct Tolerance {
  double rtol = 0, atol = 0;
};

/// The tolerance of a result of `dtype`: fp16/bf16 0.01/0.01 (the device
/// stores them as DLFloat16, and sums in another order), fp32 1e-4/1e-4,
/// integers and booleans exact.
Tolerance checkTolerance(isa::DType dtype);

/// One element outside its tolerance, the worst of its result.
struct Divergence {
  /// Which result of the kernel, and its tensor.
  size_t result = 0;
  std::string tensor;
  uint64_t mismatches = 0, elements = 0;
  std::vector<int64_t> index;
  double device = 0, reference = 0;
  Tolerance tolerance;
};

/// The verdict on one step of the plan.
struct KernelCheck {
  size_t step = 0;
  std::string kernel;
  /// Its source ("model.py:54, layers.0.mlp (linear_3)" per op).
  std::vector<std::string> ops;
  /// False when the program carries no reference (not checked).
  bool checked = false;
  /// Inputs kept in LX by their producer (format 3.1): never in device
  /// memory, so compared only through this kernel's results.
  std::vector<std::string> onChipInputs;
  std::vector<Divergence> divergences;
  bool ok() const { return divergences.empty(); }
};

/// Reference values of the model's graph nodes (node name -> .npy) that
/// the kernels computing them are compared with (spyre-run --reference).
struct NodeReference {
  std::vector<int64_t> shape;
  std::vector<double> values;
};

/// Every `NODE.npy` in `dir` (tools/export --intermediates writes them) as
/// node NODE's reference.
Status readNodeReferences(const std::string &dir,
                          std::map<std::string, NodeReference> &nodes);

struct CheckReport {
  std::vector<KernelCheck> kernels;
  /// Position in `kernels` of the first that diverges, or -1.
  int64_t firstDivergent = -1;
  /// With node references: the first node whose kernel's result differs
  /// from PyTorch's beyond the tolerance, and how ("" when none).
  std::string firstDivergentNode;
  std::string nodeDetail;
  /// Nodes compared with a reference.
  size_t nodesCompared = 0;
  /// Human-readable: the verdict, then the first divergence with its ops.
  std::string text() const;
};

/// Launches `loaded` like LoadedModel::launch, checking every kernel.
/// Fails only when the launch itself fails; divergences are in `report`.
Status checkLaunch(LoadedModel &loaded, Workspace &workspace,
                   const DeviceAddr *inputs, size_t numInputs,
                   const DeviceAddr *outputs, size_t numOutputs,
                   const std::map<std::string, NodeReference> &nodes,
                   CheckReport &report);

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_CHECK_H
