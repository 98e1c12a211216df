//===- Session.h - Running a model on host tensors --------------*- C++ -*-===//
//
// The convenience layer over the three phases: a Session loads a model
// (phase 1), binds one workspace (phase 2) and owns device buffers for the
// inputs and outputs; run() copies host inputs in, launches (phase 3) and
// copies the outputs out. spyre-run is built on it.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_SESSION_H
#define SPYRE_RUNTIME_SESSION_H

#include "spyre/Runtime/Check.h"
#include "spyre/Runtime/Executable.h"

#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace spyre::rt {

/// A tensor in host memory, row-major (see Transfer.h for element formats).
struct HostTensor {
  isa::DType dtype = isa::DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

/// "f16 [2, 3]"
std::string describeTensor(isa::DType dtype, const std::vector<int64_t> &shape);

class Session {
public:
  /// Loads `model` on `device`, binds a workspace and allocates the io
  /// buffers.
  static Status create(Device &device, std::shared_ptr<const Model> model,
                       std::unique_ptr<Session> &out);
  ~Session();

  /// Checks `inputs` against the model's inputs (count, dtype, shape: the
  /// message names the input index, what was expected and what was given),
  /// runs the model once and returns its outputs in output order. On a
  /// device that holds no data the outputs are zero.
  Status run(const std::vector<HostTensor> &inputs,
             std::vector<HostTensor> &outputs);
  /// run(), checking every kernel against its reference (Check.h) and, where
  /// `nodes` has a graph node's PyTorch value, the kernel computing it.
  Status runChecked(const std::vector<HostTensor> &inputs,
                    std::vector<HostTensor> &outputs,
                    const std::map<std::string, NodeReference> &nodes,
                    CheckReport &report);

  /// Host side of input mutation (torch.export user_input_mutation): copies
  /// each output that holds the new contents of an input into that input,
  /// as PyTorch would have changed the caller's tensor. (Mutated buffers
  /// need nothing: the device keeps them between runs.)
  void applyInputMutations(std::vector<HostTensor> &inputs,
                           const std::vector<HostTensor> &outputs) const;

  const Model &model() const { return loaded_->model(); }
  LoadedModel &loaded() { return *loaded_; }
  Workspace &workspace() { return *workspace_; }
  const std::vector<DeviceAddr> &inputBuffers() const { return inputs_; }
  const std::vector<DeviceAddr> &outputBuffers() const { return outputs_; }

private:
  Session() = default;
  /// The steps of run(): inputs in, `launch` on the io buffers, outputs out.
  Status runWith(const std::vector<HostTensor> &inputs,
                 std::vector<HostTensor> &outputs,
                 const std::function<Status()> &launch);
  Device *device_ = nullptr;
  std::unique_ptr<LoadedModel> loaded_;
  std::unique_ptr<Workspace> workspace_;
  std::vector<DeviceAddr> inputs_, outputs_;
  /// Buffers this session allocated.
  std::vector<DeviceAddr> owned_;
};

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_SESSION_H
