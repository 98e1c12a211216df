//===- Check.cpp - Kernel-by-kernel golden comparison ---------------------===//

#include "spyre/Runtime/Check.h"

#include "ReferenceEval.h"
#include "spyre/Runtime/Npy.h"
#include "spyre/Runtime/Transfer.h"
#include "spyre/Spy/DL16.h"
#include "spyre/Spy/Layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

namespace spyre::rt {

Tolerance checkTolerance(isa::DType dtype) {
  switch (dtype) {
  case isa::DType::F16:
  case isa::DType::BF16:
    return {1e-2, 1e-2};
  case isa::DType::F32:
    return {1e-4, 1e-4};
  default:
    return {0, 0};
  }
}

namespace {

/// A node compared with PyTorch's value: errors of every kernel before it
/// add up, so the bound is the end-to-end one (test/e2e/tolerances.json's
/// "block" class).
Tolerance nodeTolerance(isa::DType dtype) {
  if (dtype == isa::DType::F16 || dtype == isa::DType::BF16)
    return {5e-2, 5e-2};
  if (dtype == isa::DType::F32)
    return {1e-3, 1e-3};
  return {0, 0};
}

std::string formatValue(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string formatIndex(const std::vector<int64_t> &index) {
  std::string s = "[";
  for (size_t d = 0; d < index.size(); ++d)
    s += (d ? ", " : "") + std::to_string(index[d]);
  return s + "]";
}

std::vector<int64_t> unflatten(uint64_t k, const std::vector<int64_t> &shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? int64_t(k % uint64_t(shape[d])) : 0;
    k = shape[d] ? k / uint64_t(shape[d]) : 0;
  }
  return index;
}

/// Whether a row-major reshape between `a` and `b` only splits or merges
/// dims (size-1 dims aside): then element k of one is element k of the
/// other in the same sense. A node that PyTorch computes as [B, H, S, D]
/// and a kernel stores permuted ([B, S, H, D]: a transpose folded into it)
/// have as many elements but are not comparable.
bool sameElementOrder(std::vector<int64_t> a, std::vector<int64_t> b) {
  auto squeeze = [](std::vector<int64_t> &s) {
    s.erase(std::remove(s.begin(), s.end(), int64_t(1)), s.end());
  };
  squeeze(a);
  squeeze(b);
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t pa = a[i++], pb = b[j++];
    size_t na = 1, nb = 1;
    while (pa != pb) {
      if (pa < pb && i < a.size())
        pa *= a[i++], ++na;
      else if (pb < pa && j < b.size())
        pb *= b[j++], ++nb;
      else
        return false;
    }
    if (na > 1 && nb > 1) // neither a split nor a merge
      return false;
  }
  return i == a.size() && j == b.size();
}

bool within(double got, double want, Tolerance t) {
  if (std::isnan(got) || std::isnan(want))
    return std::isnan(got) && std::isnan(want);
  if (std::isinf(want) || std::isinf(got))
    return got == want;
  return std::fabs(got - want) <= t.atol + t.rtol * std::fabs(want);
}

/// The elements of `got` outside `t` of `want` (both of `count` elements),
/// the worst first; nullopt when all are within.
template <typename Want>
std::optional<Divergence> compare(const HostValue &got, Want &&want,
                                  uint64_t count, Tolerance t) {
  Divergence d;
  d.tolerance = t;
  d.elements = count;
  double worst = -1;
  for (uint64_t k = 0; k < count; ++k) {
    double g = got.at(int64_t(k)), w = want(k);
    if (within(g, w, t))
      continue;
    ++d.mismatches;
    double excess = std::isfinite(g - w) ? std::fabs(g - w) : INFINITY;
    if (excess > worst) {
      worst = excess;
      d.index = unflatten(k, got.shape);
      d.device = g;
      d.reference = w;
    }
  }
  if (!d.mismatches)
    return std::nullopt;
  return d;
}

class Checker {
public:
  Checker(LoadedModel &loaded, Workspace &workspace, const DeviceAddr *inputs,
          const DeviceAddr *outputs,
          const std::map<std::string, NodeReference> &nodes,
          CheckReport &report)
      : loaded(loaded), model(loaded.model()), workspace(workspace),
        inputs(inputs), outputs(outputs), nodes(nodes), report(report) {
    findComparableNodes();
  }

  /// The observer of LoadedModel::launchObserved.
  Status observe(size_t step, bool after) {
    const ProgramInfo &program = model.programs()[model.plan()[step]];
    if (!after) {
      KernelCheck k;
      k.step = step;
      k.kernel = program.name;
      k.checked = program.reference.has_value();
      if (k.checked) {
        for (const spy::RefOpDesc &op : program.reference->ops)
          if (op.kind != spy::RefKind::Constant)
            k.ops.push_back(describeOp(op));
        for (const spy::RefValueDesc &v : program.reference->inputs)
          if (const TensorInfo &t = model.tensors()[v.tensor];
              t.role == spy::Role::OnChip)
            k.onChipInputs.push_back(t.displayName());
      }
      report.kernels.push_back(std::move(k));
      if (!program.reference)
        return Status::success();
      // Read before the step: a kernel may write over its inputs.
      return readValues(program.reference->inputs, kernelInputs);
    }
    if (!program.reference)
      return Status::success();
    return judge(step, *program.reference);
  }

private:
  LoadedModel &loaded;
  const Model &model;
  Workspace &workspace;
  const DeviceAddr *inputs;
  const DeviceAddr *outputs;
  const std::map<std::string, NodeReference> &nodes;
  CheckReport &report;
  std::vector<HostValue> kernelInputs;
  /// The reference's value of each on-chip tensor (kept in LX between two
  /// kernels, never in device memory): its consumer's input, since the
  /// device's own bytes cannot be read back.
  std::map<uint32_t, HostValue> onChipValues;
  /// (step, result) -> node name, for results that are a node's final value.
  std::map<std::pair<size_t, size_t>, std::string> nodeOfResult;

  /// "binary add at model.py:54, layers.0.mlp (linear_3)".
  static std::string describeOp(const spy::RefOpDesc &op) {
    std::string s = spy::refOpName(op);
    if (!op.location.empty())
      s += " at " + op.location;
    return s;
  }

  /// The nodes whose last op in the plan is a kernel result: a value the
  /// device stores, that PyTorch's node computed as a whole.
  void findComparableNodes() {
    if (nodes.empty())
      return;
    std::map<std::string, std::pair<size_t, size_t>> lastOp;
    const auto &plan = model.plan();
    for (size_t step = 0; step < plan.size(); ++step) {
      const auto &ref = model.programs()[plan[step]].reference;
      for (size_t i = 0; ref && i < ref->ops.size(); ++i)
        if (!ref->ops[i].node.empty() && nodes.count(ref->ops[i].node))
          lastOp[ref->ops[i].node] = {step, i};
    }
    for (const auto &[node, at] : lastOp) {
      const auto &ref = *model.programs()[plan[at.first]].reference;
      uint32_t value = uint32_t(ref.inputs.size() + at.second);
      for (size_t j = 0; j < ref.yields.size(); ++j)
        if (ref.yields[j] == value) {
          nodeOfResult[{at.first, j}] = node;
          break; // one result per node
        }
    }
  }

  DeviceAddr addressOf(uint32_t tensor) const {
    const TensorInfo &t = model.tensors()[tensor];
    switch (t.role) {
    case spy::Role::Input:
      return inputs[t.ioIndex];
    case spy::Role::Output:
      return outputs[t.ioIndex];
    case spy::Role::Workspace:
      return workspace.tensorAddress(tensor);
    default:
      return loaded.tensorAddress(tensor);
    }
  }

  Status readValues(const std::vector<spy::RefValueDesc> &values,
                    std::vector<HostValue> &out) {
    out.clear();
    for (const spy::RefValueDesc &v : values) {
      const TensorInfo &t = model.tensors()[v.tensor];
      int64_t elements = 1;
      for (int64_t d : v.shape)
        elements *= d;
      if (elements * int64_t(isa::dtypeBytes(t.dtype)) != int64_t(hostBytes(t)))
        return invalidFile("kernel reference: a view of tensor '" +
                           t.displayName() + "' of another size");
      out.emplace_back();
      if (t.role == spy::Role::OnChip) {
        auto kept = onChipValues.find(v.tensor);
        if (kept == onChipValues.end())
          return invalidFile("kernel reference: on-chip tensor '" +
                             t.displayName() + "' is read before it is made");
        out.back() = kept->second;
      } else {
        SPYRE_RETURN_IF_ERROR(readValue(t, addressOf(v.tensor), out.back()));
      }
      out.back().shape = v.shape;
    }
    return Status::success();
  }

  /// Tensor `t` at `addr` as the device holds it: DLFloat16 elements are
  /// decoded from the image (the host's IEEE half would flush the small
  /// ones and saturate the large), others go through the host format.
  Status readValue(const TensorInfo &t, DeviceAddr addr, HostValue &out) {
    Device &device = loaded.device();
    spy::LayoutMap map;
    std::string error;
    if (!spy::LayoutMap::create(t.dtype, t.shape, t.layout, device.arch(), map,
                                error))
      return invalidFile("tensor '" + t.displayName() + "': " + error);
    std::vector<uint8_t> bytes;
    if (!spy::isDL16(map.storage())) {
      bytes.resize(size_t(hostBytes(t)));
      SPYRE_RETURN_IF_ERROR(
          copyFromDevice(device, t, addr, bytes.data(), bytes.size()));
      out = hostValueFromBytes(t.dtype, t.shape, bytes.data());
      return Status::success();
    }
    bytes.resize(size_t(map.deviceBytes()));
    SPYRE_RETURN_IF_ERROR(device.read(addr, bytes.data(), bytes.size()));
    out.dtype = t.dtype;
    out.shape = t.shape;
    out.f.resize(size_t(map.numElements()));
    for (uint64_t k = 0; k < map.numElements(); ++k) {
      uint16_t code;
      std::memcpy(&code, bytes.data() + map.deviceOffsetOfLinear(k), 2);
      out.f[k] = spy::dl16ToFloat(code);
    }
    return Status::success();
  }

  /// F16 when a value of the kernel is a 16-bit float, else F32: the
  /// device may round where the reference does not (a fused kernel keeps
  /// some intermediates in fp32), so every float result is judged at the
  /// precision of the least precise value it may depend on.
  isa::DType leastPreciseFloat(const spy::KernelReferenceDesc &ref) const {
    auto is16 = [](isa::DType t) {
      return t == isa::DType::F16 || t == isa::DType::BF16;
    };
    for (const HostValue &v : kernelInputs)
      if (is16(v.dtype))
        return isa::DType::F16;
    for (const spy::RefOpDesc &op : ref.ops)
      if (is16(op.dtype))
        return isa::DType::F16;
    return isa::DType::F32;
  }

  Status judge(size_t step, const spy::KernelReferenceDesc &ref) {
    KernelCheck &k = report.kernels.back();
    std::vector<HostValue> expected, got;
    size_t failedOp = 0;
    Status evaluated = evaluateReference(
        ref, kernelInputs, spy::usesDL16Storage(loaded.device().arch()),
        expected, failedOp);
    if (!evaluated.ok())
      return Status::error(evaluated.code(), "kernel '" + k.kernel + "', op " +
                                                 std::to_string(failedOp) +
                                                 ": " + evaluated.message());
    // A result kept on chip is judged through its consumer's results.
    for (size_t j = 0; j < ref.results.size(); ++j)
      if (model.tensors()[ref.results[j].tensor].role == spy::Role::OnChip)
        onChipValues[ref.results[j].tensor] = expected[j];
    SPYRE_RETURN_IF_ERROR(readValues(ref.results, got));
    isa::DType floats = leastPreciseFloat(ref);
    for (size_t j = 0; j < got.size(); ++j) {
      if (model.tensors()[ref.results[j].tensor].role == spy::Role::OnChip)
        continue;
      const HostValue &want = expected[j];
      std::optional<Divergence> d = compare(
          got[j], [&](uint64_t e) { return want.at(int64_t(e)); },
          uint64_t(got[j].numElements()),
          checkTolerance(got[j].isInt() ? got[j].dtype : floats));
      if (d) {
        d->result = j;
        d->tensor = model.tensors()[ref.results[j].tensor].displayName();
        k.divergences.push_back(std::move(*d));
      }
      compareNode(step, j, got[j], floats);
    }
    if (!k.ok() && report.firstDivergent < 0)
      report.firstDivergent = int64_t(report.kernels.size() - 1);
    return Status::success();
  }

  void compareNode(size_t step, size_t result, const HostValue &got,
                   isa::DType floats) {
    auto it = nodeOfResult.find({step, result});
    if (it == nodeOfResult.end())
      return;
    const NodeReference &want = nodes.at(it->second);
    if (int64_t(want.values.size()) != got.numElements() ||
        !sameElementOrder(want.shape, got.shape))
      return;
    ++report.nodesCompared;
    std::optional<Divergence> d = compare(
        got, [&](uint64_t e) { return want.values[e]; },
        uint64_t(got.numElements()),
        nodeTolerance(got.isInt() ? got.dtype : floats));
    if (!d || !report.firstDivergentNode.empty())
      return;
    report.firstDivergentNode = it->second;
    report.nodeDetail =
        "kernel '" + report.kernels.back().kernel + "' " +
        std::to_string(d->mismatches) + " of " + std::to_string(d->elements) +
        " elements differ from PyTorch's; worst at " + formatIndex(d->index) +
        ": device " + formatValue(d->device) + ", PyTorch " +
        formatValue(d->reference);
  }
};

} // namespace

Status readNodeReferences(const std::string &dir,
                          std::map<std::string, NodeReference> &nodes) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec)
    return Status::error(StatusCode::IoError, "cannot read reference "
                                              "directory '" +
                                                  dir + "': " + ec.message());
  std::vector<std::filesystem::path> files;
  for (const auto &entry : it)
    if (entry.path().extension() == ".npy")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path &file : files) {
    NpyArray array;
    SPYRE_RETURN_IF_ERROR(readNpy(file.string(), array));
    NodeReference ref;
    ref.shape = array.shape;
    uint32_t item = npyItemBytes(array.dtype);
    for (uint64_t k = 0; k < array.numElements(); ++k) {
      const uint8_t *p = array.data.data() + k * item;
      auto read = [&](auto type) {
        decltype(type) x;
        std::memcpy(&x, p, sizeof(x));
        return double(x);
      };
      switch (array.dtype) {
      case NpyDType::F2:
        ref.values.push_back(spy::halfToFloat(uint16_t(read(uint16_t()))));
        break;
      case NpyDType::F4:
        ref.values.push_back(read(float()));
        break;
      case NpyDType::F8:
        ref.values.push_back(read(double()));
        break;
      case NpyDType::I1:
        ref.values.push_back(read(int8_t()));
        break;
      case NpyDType::I4:
        ref.values.push_back(read(int32_t()));
        break;
      case NpyDType::I8:
        ref.values.push_back(read(int64_t()));
        break;
      case NpyDType::U1:
      case NpyDType::B1:
        ref.values.push_back(read(uint8_t()));
        break;
      }
    }
    nodes[file.stem().string()] = std::move(ref);
  }
  return Status::success();
}

std::string CheckReport::text() const {
  size_t checked = 0;
  for (const KernelCheck &k : kernels)
    checked += k.checked;
  std::string s;
  if (firstDivergent < 0) {
    s = "check: " + std::to_string(checked) + " of " +
        std::to_string(kernels.size()) + " kernels match their reference\n";
  } else {
    const KernelCheck &k = kernels[size_t(firstDivergent)];
    size_t diverging = 0;
    for (const KernelCheck &other : kernels)
      diverging += !other.ok();
    s = "check: kernel " + std::to_string(k.step) + " '" + k.kernel +
        "' is the first of " + std::to_string(diverging) +
        " diverging from its reference (" + std::to_string(checked) + " of " +
        std::to_string(kernels.size()) + " kernels checked)\n";
    for (const Divergence &d : k.divergences)
      s += "  result " + std::to_string(d.result) + " ('" + d.tensor +
           "'): " + std::to_string(d.mismatches) + " of " +
           std::to_string(d.elements) + " elements outside rtol " +
           formatValue(d.tolerance.rtol) + " atol " +
           formatValue(d.tolerance.atol) + "; worst at " +
           formatIndex(d.index) + ": device " + formatValue(d.device) +
           ", reference " + formatValue(d.reference) + "\n";
    s += "  its ops:\n";
    for (const std::string &op : k.ops)
      s += "    " + op + "\n";
    // Its producer's device value never reached memory: the divergence
    // may start there.
    for (const std::string &t : k.onChipInputs)
      s += "  its input '" + t +
           "' was kept on chip and is judged only through this kernel: "
           "its producer may be the one diverging\n";
  }
  if (nodesCompared) {
    if (firstDivergentNode.empty())
      s += "check: " + std::to_string(nodesCompared) +
           " nodes match PyTorch's values\n";
    else
      s += "check: node '" + firstDivergentNode +
           "' is the first to differ from PyTorch (" +
           std::to_string(nodesCompared) + " nodes compared): " + nodeDetail +
           "\n";
  }
  return s;
}

Status checkLaunch(LoadedModel &loaded, Workspace &workspace,
                   const DeviceAddr *inputs, size_t numInputs,
                   const DeviceAddr *outputs, size_t numOutputs,
                   const std::map<std::string, NodeReference> &nodes,
                   CheckReport &report) {
  report = CheckReport();
  Checker checker(loaded, workspace, inputs, outputs, nodes, report);
  return loaded.launchObserved(
      workspace, inputs, numInputs, outputs, numOutputs,
      [&](size_t step, bool after) { return checker.observe(step, after); });
}

} // namespace spyre::rt
