//===- Executable.cpp - Three-phase patching and dispatch -----------------===//

#include "spyre/Runtime/Executable.h"

#include "spyre/Arch/Arch.h"

#include <cstring>

namespace spyre::rt {

using spy::Phase;
using spy::Role;

LoadedModel::LoadedModel(Device &device, std::shared_ptr<const Model> model)
    : device_(device), model_(std::move(model)) {}

LoadedModel::~LoadedModel() {
  for (Workspace *w : workspaces_) {
    if (w->base_)
      (void)device_.free(w->base_);
    w->owner_ = nullptr;
    w->base_ = 0;
  }
  for (DeviceAddr a : programAddress_)
    if (a)
      (void)device_.free(a);
}

Status LoadedModel::load(Device &device, std::shared_ptr<const Model> model,
                         std::unique_ptr<LoadedModel> &out) {
  if (!model)
    return invalidArgument("no model");
  if (model->arch().hash() != device.arch().hash())
    return Status::error(
        StatusCode::ArchMismatch,
        "model validated for machine description '" + model->arch().name +
            "' cannot be loaded on a device of '" + device.arch().name + "'");
  auto loaded =
      std::unique_ptr<LoadedModel>(new LoadedModel(device, std::move(model)));
  SPYRE_RETURN_IF_ERROR(loaded->uploadConstants());
  std::vector<std::vector<uint8_t>> images = loaded->copyProgramImages();
  loaded->initConfineWindows();
  loaded->patchLoadRelocations(images);
  SPYRE_RETURN_IF_ERROR(loaded->uploadPrograms(images));
  loaded->buildPatchLists();
  loaded->buildPlan();
  out = std::move(loaded);
  return Status::success();
}

Status LoadedModel::uploadConstants() {
  const Model &m = *model_;
  const auto &tensors = m.tensors();
  tensorAddress_.assign(tensors.size(), 0);
  weights_.assign(tensors.size(), nullptr);
  for (size_t t = 0; t < tensors.size(); ++t) {
    const TensorInfo &info = tensors[t];
    if (info.role != Role::Weight && info.role != Role::Constant)
      continue;
    SPYRE_RETURN_IF_ERROR(
        DeviceTensor::create(device_, info, weights_[t])
            .withContext("loading tensor '" + info.displayName() + "'"));
    DeviceAddr addr = weights_[t]->address();
    tensorAddress_[t] = addr;
    SPYRE_RETURN_IF_ERROR(
        device_.write(addr, m.segmentData(uint32_t(info.segment)), info.size));
  }
  return Status::success();
}

std::vector<std::vector<uint8_t>> LoadedModel::copyProgramImages() const {
  const Model &m = *model_;
  const auto &programs = m.programs();
  std::vector<std::vector<uint8_t>> images(programs.size());
  for (size_t p = 0; p < programs.size(); ++p) {
    uint64_t bytes = uint64_t(programs[p].numInsts) * isa::kInstBytes;
    const uint8_t *src = m.programImage(uint32_t(p));
    images[p].assign(src, src + bytes);
  }
  return images;
}

void LoadedModel::initConfineWindows() {
  const auto &programs = model_->programs();
  confine_.resize(programs.size());
  for (size_t p = 0; p < programs.size(); ++p)
    confine_[p].assign(programs[p].numInsts, DeviceRange());
}

DeviceRange *LoadedModel::confineWindow(const RelocationInfo &r) {
  return &confine_[r.program][r.offset / isa::kInstBytes];
}

void LoadedModel::patchLoadRelocations(
    std::vector<std::vector<uint8_t>> &images) {
  const Model &m = *model_;
  for (const RelocationInfo &r : m.relocations()) {
    if (r.phase != Phase::Load)
      continue;
    DeviceAddr base = tensorAddress_[r.tensor];
    uint64_t value = base + uint64_t(r.addend);
    std::memcpy(images[r.program].data() + r.offset, &value, sizeof(value));
    *confineWindow(r) = {base, base + m.tensors()[r.tensor].size};
  }
}

Status
LoadedModel::uploadPrograms(const std::vector<std::vector<uint8_t>> &images) {
  const auto &programs = model_->programs();
  programAddress_.assign(programs.size(), 0);
  for (size_t p = 0; p < programs.size(); ++p) {
    DeviceAddr addr;
    SPYRE_RETURN_IF_ERROR(
        device_
            .allocate(images[p].size(), isa::kInstBytes, MemoryKind::Code, addr)
            .withContext("loading program '" + programs[p].name + "'"));
    programAddress_[p] = addr;
    SPYRE_RETURN_IF_ERROR(
        device_.write(addr, images[p].data(), images[p].size()));
  }
  return Status::success();
}

void LoadedModel::buildPatchLists() {
  const Model &m = *model_;
  uint64_t numInputs = m.inputs().size();
  for (const RelocationInfo &r : m.relocations()) {
    DeviceAddr where = programAddress_[r.program] + r.offset;
    const TensorInfo &t = m.tensors()[r.tensor];
    if (r.phase == Phase::Bind)
      bindPatches_.push_back(
          {where, t.workspaceOffset, r.addend, confineWindow(r), t.size});
    else if (r.phase == Phase::Launch)
      launchPatches_.push_back(
          {where, (t.role == Role::Input ? 0 : numInputs) + uint64_t(t.ioIndex),
           r.addend, confineWindow(r), t.size});
  }
  launchPatchValues_.assign(launchPatches_.size(), 0);
}

void LoadedModel::buildPlan() {
  const Model &m = *model_;
  for (uint32_t p : m.plan()) {
    const ProgramInfo &prog = m.programs()[p];
    StepRequest step;
    step.name = prog.name.c_str();
    step.code = programAddress_[p];
    step.numInsts = prog.numInsts;
    step.numCores = prog.numCores;
    step.numParams = prog.numParams;
    step.params = prog.params.data();
    step.confine = confine_[p].data();
    plan_.push_back(step);
  }
}

Status LoadedModel::applyBind(const Workspace &workspace) {
  for (const Patch &p : bindPatches_) {
    DeviceAddr base = workspace.base_ + p.slotOrOffset;
    uint64_t value = base + uint64_t(p.addend);
    SPYRE_RETURN_IF_ERROR(device_.write(p.where, &value, sizeof(value)));
    *p.window = {base, base + p.tensorBytes};
  }
  boundWorkspace_ = &workspace;
  return Status::success();
}

Status LoadedModel::checkLaunchArgs(const Workspace &workspace,
                                    const DeviceAddr *inputs, size_t numInputs,
                                    const DeviceAddr *outputs,
                                    size_t numOutputs) const {
  SPYRE_RETURN_IF_ERROR(checkLaunchCounts(workspace, numInputs, numOutputs));
  if ((numInputs && !inputs) || (numOutputs && !outputs))
    return invalidArgument("missing input or output buffer list");
  return Status::success();
}

Status LoadedModel::checkLaunchCounts(const Workspace &workspace,
                                      size_t numInputs,
                                      size_t numOutputs) const {
  const Model &m = *model_;
  if (workspace.owner_ != this)
    return invalidArgument("workspace belongs to another loaded model");
  if (numInputs != m.inputs().size() || numOutputs != m.outputs().size())
    return invalidArgument("launch with " + std::to_string(numInputs) +
                           " inputs and " + std::to_string(numOutputs) +
                           " outputs; the model has " +
                           std::to_string(m.inputs().size()) + " and " +
                           std::to_string(m.outputs().size()));
  return Status::success();
}

Status LoadedModel::applyLaunchPatches(const DeviceAddr *inputs,
                                       size_t numInputs,
                                       const DeviceAddr *outputs) {
  for (size_t i = 0; i < launchPatches_.size(); ++i) {
    const Patch &p = launchPatches_[i];
    DeviceAddr buffer = p.slotOrOffset < numInputs
                            ? inputs[p.slotOrOffset]
                            : outputs[p.slotOrOffset - numInputs];
    uint64_t value = buffer + uint64_t(p.addend);
    *p.window = {buffer, buffer + p.tensorBytes};
    if (value == launchPatchValues_[i])
      continue;
    SPYRE_RETURN_IF_ERROR(device_.write(p.where, &value, sizeof(value)));
    launchPatchValues_[i] = value;
  }
  return Status::success();
}

Status LoadedModel::prepareLaunch(Workspace &workspace,
                                  const DeviceAddr *inputs, size_t numInputs,
                                  const DeviceAddr *outputs,
                                  size_t numOutputs) {
  SPYRE_RETURN_IF_ERROR(
      checkLaunchArgs(workspace, inputs, numInputs, outputs, numOutputs));
  if (boundWorkspace_ != &workspace)
    SPYRE_RETURN_IF_ERROR(applyBind(workspace));
  return applyLaunchPatches(inputs, numInputs, outputs);
}

Status LoadedModel::launch(Workspace &workspace, const DeviceAddr *inputs,
                           size_t numInputs, const DeviceAddr *outputs,
                           size_t numOutputs) {
  SPYRE_RETURN_IF_ERROR(
      prepareLaunch(workspace, inputs, numInputs, outputs, numOutputs));
  SPYRE_RETURN_IF_ERROR(device_.launch(plan_.data(), plan_.size()));
  return applyMutations(inputs, outputs);
}

Status LoadedModel::launchObserved(Workspace &workspace,
                                   const DeviceAddr *inputs, size_t numInputs,
                                   const DeviceAddr *outputs, size_t numOutputs,
                                   const StepObserver &observer) {
  SPYRE_RETURN_IF_ERROR(
      prepareLaunch(workspace, inputs, numInputs, outputs, numOutputs));
  for (size_t step = 0; step < plan_.size(); ++step) {
    SPYRE_RETURN_IF_ERROR(observer(step, false));
    SPYRE_RETURN_IF_ERROR(device_.launch(&plan_[step], 1));
    SPYRE_RETURN_IF_ERROR(observer(step, true));
  }
  return applyMutations(inputs, outputs);
}

Status LoadedModel::launchTensors(Workspace &workspace,
                                  const DeviceTensor *const *inputs,
                                  size_t numInputs,
                                  const DeviceTensor *const *outputs,
                                  size_t numOutputs) {
  SPYRE_RETURN_IF_ERROR(checkLaunchCounts(workspace, numInputs, numOutputs));
  if ((numInputs && !inputs) || (numOutputs && !outputs))
    return invalidArgument("missing input or output tensor list");
  const Model &m = *model_;
  ioAddresses_.clear();
  for (size_t i = 0; i < numInputs + numOutputs; ++i) {
    bool isInput = i < numInputs;
    size_t index = isInput ? i : i - numInputs;
    const DeviceTensor *t = isInput ? inputs[i] : outputs[index];
    if (!t)
      return invalidArgument(std::string("no device tensor for ") +
                             (isInput ? "input " : "output ") +
                             std::to_string(index));
    const TensorInfo &io =
        m.tensors()[isInput ? m.inputs()[index] : m.outputs()[index]];
    if (&t->device() != &device_)
      return invalidArgument("the device tensor for '" + io.displayName() +
                             "' is on another device");
    SPYRE_RETURN_IF_ERROR(t->checkFits(
        io, std::string(isInput ? "input " : "output ") +
                std::to_string(index) + " ('" + io.displayName() + "')"));
    ioAddresses_.push_back(t->address());
  }
  return launch(workspace, ioAddresses_.data(), numInputs,
                ioAddresses_.data() + numInputs, numOutputs);
}

Status LoadedModel::findWeight(const std::string &name,
                               uint32_t &tensor) const {
  const auto &tensors = model_->tensors();
  std::string names;
  for (size_t t = 0; t < tensors.size(); ++t) {
    if (tensors[t].role != Role::Weight)
      continue;
    if (tensors[t].sourceName == name || tensors[t].name == name) {
      tensor = uint32_t(t);
      return Status::success();
    }
    names += (names.empty() ? "" : ", ") + tensors[t].displayName();
  }
  return invalidArgument("the model has no weight or buffer '" + name +
                         "' (its weights: " + (names.empty() ? "none" : names) +
                         ")");
}

Status LoadedModel::bindWeight(uint32_t tensor,
                               std::shared_ptr<DeviceTensor> shared) {
  const Model &m = *model_;
  if (tensor >= m.tensors().size() || m.tensors()[tensor].role != Role::Weight)
    return invalidArgument("tensor " + std::to_string(tensor) +
                           " is not a weight or buffer");
  const TensorInfo &info = m.tensors()[tensor];
  if (!shared)
    return invalidArgument("no device tensor for weight '" +
                           info.displayName() + "'");
  if (&shared->device() != &device_)
    return invalidArgument("the device tensor for weight '" +
                           info.displayName() + "' is on another device");
  SPYRE_RETURN_IF_ERROR(
      shared->checkFits(info, "weight '" + info.displayName() + "'"));
  DeviceAddr base = shared->address();
  for (const RelocationInfo &r : m.relocations()) {
    if (r.phase != Phase::Load || r.tensor != tensor)
      continue;
    uint64_t value = base + uint64_t(r.addend);
    SPYRE_RETURN_IF_ERROR(device_.write(programAddress_[r.program] + r.offset,
                                        &value, sizeof(value)));
    *confineWindow(r) = {base, base + info.size};
  }
  tensorAddress_[tensor] = base;
  weights_[tensor] = std::move(shared);
  return Status::success();
}

Status LoadedModel::applyMutations(const DeviceAddr *inputs,
                                   const DeviceAddr *outputs) {
  // torch.export mutations: outputs carrying the new contents of an input
  // or a buffer are copied over it once every kernel has read the old one.
  const Model &m = *model_;
  for (size_t o = 0; o < m.outputs().size(); ++o) {
    const TensorInfo &t = m.tensors()[m.outputs()[o]];
    // Messages are built on failure only: this is the launch path.
    if (t.aliasesInput >= 0)
      if (Status s = device_.copy(inputs[t.aliasesInput], outputs[o], t.size);
          !s.ok())
        return s.withContext("writing back mutated input " +
                             std::to_string(t.aliasesInput));
    if (t.updatesTensor >= 0)
      if (Status s = device_.copy(tensorAddress_[size_t(t.updatesTensor)],
                                  outputs[o], t.size);
          !s.ok())
        return s.withContext("updating buffer '" +
                             m.tensors()[size_t(t.updatesTensor)].name + "'");
  }
  return Status::success();
}

Status Workspace::create(LoadedModel &loaded, std::unique_ptr<Workspace> &out) {
  auto ws = std::unique_ptr<Workspace>(new Workspace());
  ws->owner_ = &loaded;
  ws->size_ = loaded.model().workspaceSize();
  if (ws->size_) {
    uint64_t alignment = uint64_t(loaded.device().arch().stickBytes);
    for (const TensorInfo &t : loaded.model().tensors())
      if (t.role == Role::Workspace && t.alignment > alignment)
        alignment = t.alignment;
    SPYRE_RETURN_IF_ERROR(
        loaded.device()
            .allocate(ws->size_, alignment, MemoryKind::Data, ws->base_)
            .withContext("allocating the workspace"));
  }
  loaded.workspaces_.insert(ws.get());
  SPYRE_RETURN_IF_ERROR(loaded.applyBind(*ws));
  out = std::move(ws);
  return Status::success();
}

Workspace::~Workspace() {
  if (!owner_)
    return;
  if (base_)
    (void)owner_->device_.free(base_);
  if (owner_->boundWorkspace_ == this)
    owner_->boundWorkspace_ = nullptr;
  owner_->workspaces_.erase(this);
}

DeviceAddr Workspace::tensorAddress(uint32_t tensor) const {
  if (!owner_)
    return 0;
  return base_ + owner_->model().tensors()[tensor].workspaceOffset;
}

} // namespace spyre::rt
