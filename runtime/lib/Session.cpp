//===- Session.cpp - Running a model on host tensors ----------------------===//

#include "spyre/Runtime/Session.h"

#include "spyre/Runtime/Transfer.h"

namespace spyre::rt {

std::string describeTensor(isa::DType dtype,
                           const std::vector<int64_t> &shape) {
  std::string s = std::string(isa::dtypeName(uint8_t(dtype))) + " [";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

Status Session::create(Device &device, std::shared_ptr<const Model> model,
                       std::unique_ptr<Session> &out) {
  auto session = std::unique_ptr<Session>(new Session());
  session->device_ = &device;
  SPYRE_RETURN_IF_ERROR(
      LoadedModel::load(device, std::move(model), session->loaded_));
  SPYRE_RETURN_IF_ERROR(
      Workspace::create(*session->loaded_, session->workspace_));
  const Model &m = session->loaded_->model();
  auto allocate = [&](uint32_t tensor, DeviceAddr &addr) {
    const TensorInfo &t = m.tensors()[tensor];
    Status s = device.allocate(t.size, t.alignment, MemoryKind::Data, addr);
    if (s.ok())
      session->owned_.push_back(addr);
    return s.withContext("allocating '" + t.displayName() + "'");
  };
  for (uint32_t t : m.inputs()) {
    DeviceAddr addr;
    SPYRE_RETURN_IF_ERROR(allocate(t, addr));
    session->inputs_.push_back(addr);
  }
  for (uint32_t t : m.outputs()) {
    DeviceAddr addr;
    SPYRE_RETURN_IF_ERROR(allocate(t, addr));
    session->outputs_.push_back(addr);
  }
  out = std::move(session);
  return Status::success();
}

Session::~Session() {
  for (DeviceAddr a : owned_)
    (void)device_->free(a);
}

Status Session::run(const std::vector<HostTensor> &inputs,
                    std::vector<HostTensor> &outputs) {
  return runWith(inputs, outputs, [&] {
    return loaded_->launch(*workspace_, inputs_.data(), inputs_.size(),
                           outputs_.data(), outputs_.size());
  });
}

Status Session::runChecked(const std::vector<HostTensor> &inputs,
                           std::vector<HostTensor> &outputs,
                           const std::map<std::string, NodeReference> &nodes,
                           CheckReport &report) {
  return runWith(inputs, outputs, [&] {
    return checkLaunch(*loaded_, *workspace_, inputs_.data(), inputs_.size(),
                       outputs_.data(), outputs_.size(), nodes, report);
  });
}

Status Session::runWith(const std::vector<HostTensor> &inputs,
                        std::vector<HostTensor> &outputs,
                        const std::function<Status()> &launch) {
  const Model &m = model();
  if (inputs.size() != m.inputs().size())
    return invalidArgument("the model takes " +
                           std::to_string(m.inputs().size()) + " inputs, got " +
                           std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorInfo &t = m.tensors()[m.inputs()[i]];
    const HostTensor &h = inputs[i];
    if (h.dtype != t.dtype || h.shape != t.shape)
      return invalidArgument("input " + std::to_string(i) + " ('" +
                             t.displayName() + "'): expected " +
                             describeTensor(t.dtype, t.shape) + ", got " +
                             describeTensor(h.dtype, h.shape));
    if (h.data.size() != hostBytes(t))
      return invalidArgument(
          "input " + std::to_string(i) + " ('" + t.displayName() +
          "'): " + std::to_string(h.data.size()) + " bytes of data, expected " +
          std::to_string(hostBytes(t)));
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    SPYRE_RETURN_IF_ERROR(copyToDevice(*device_, m.tensors()[m.inputs()[i]],
                                       inputs[i].data.data(),
                                       inputs[i].data.size(), inputs_[i]));
  SPYRE_RETURN_IF_ERROR(launch());
  outputs.clear();
  for (size_t o = 0; o < m.outputs().size(); ++o) {
    const TensorInfo &t = m.tensors()[m.outputs()[o]];
    HostTensor h;
    h.dtype = t.dtype;
    h.shape = t.shape;
    h.data.assign(size_t(hostBytes(t)), 0);
    SPYRE_RETURN_IF_ERROR(
        copyFromDevice(*device_, t, outputs_[o], h.data.data(), h.data.size()));
    outputs.push_back(std::move(h));
  }
  return Status::success();
}

void Session::applyInputMutations(
    std::vector<HostTensor> &inputs,
    const std::vector<HostTensor> &outputs) const {
  const Model &m = model();
  for (size_t o = 0; o < m.outputs().size() && o < outputs.size(); ++o) {
    int32_t input = m.tensors()[m.outputs()[o]].aliasesInput;
    if (input >= 0 && size_t(input) < inputs.size())
      inputs[size_t(input)].data = outputs[o].data;
  }
}

} // namespace spyre::rt
