//===- Executable.h - Three-phase patching and dispatch ---------*- C++ -*-===//
//
// DESIGN.md section 6: symbolic addresses in program images are patched in
// three ordered phases.
//
//  1. load  (LoadedModel::load): place every program image and every
//     weight/constant on the device and patch the Load relocations; once per
//     load. Also precomputes everything the later phases need: the Bind and
//     Launch patch lists and the step requests of the plan.
//  2. bind  (Workspace::create): allocate a workspace and patch the Bind
//     relocations; once per workspace. Launching with another workspace than
//     the one last bound re-applies its (precomputed) Bind patches.
//  3. launch (LoadedModel::launch): patch the Launch relocations with the
//     caller's input/output buffers from the precomputed list, then dispatch
//     the precomputed plan. Nothing is built on this path.
//
//===----------------------------------------------------------------------===//

#ifndef SPYRE_RUNTIME_EXECUTABLE_H
#define SPYRE_RUNTIME_EXECUTABLE_H

#include "spyre/Runtime/Device.h"
#include "spyre/Runtime/DeviceTensor.h"
#include "spyre/Runtime/Model.h"

#include <functional>
#include <memory>
#include <set>
#include <vector>

namespace spyre::rt {

class Workspace;

/// A model placed on a device (phase 1). Frees its device memory when
/// destroyed; the Device must outlive it.
class LoadedModel {
public:
  /// Phase 1: places programs and weights/constants, patches Load
  /// relocations. The model must have been validated for `device`'s arch.
  static Status load(Device &device, std::shared_ptr<const Model> model,
                     std::unique_ptr<LoadedModel> &out);
  ~LoadedModel();
  LoadedModel(const LoadedModel &) = delete;
  LoadedModel &operator=(const LoadedModel &) = delete;

  const Model &model() const { return *model_; }
  Device &device() const { return device_; }

  /// Phase 3: patches the Launch relocations for `inputs` and `outputs`
  /// (device buffers of at least each tensor's size, in io order) and runs
  /// the plan on the device. `workspace` must come from this model.
  Status launch(Workspace &workspace, const DeviceAddr *inputs,
                size_t numInputs, const DeviceAddr *outputs, size_t numOutputs);

  /// Called before (`after` false) and after each step of the plan by
  /// launchObserved; an error stops the launch.
  using StepObserver = std::function<Status(size_t step, bool after)>;
  /// launch(), one step at a time, calling `observer` around each step
  /// (spyre-run --check reads every kernel's inputs and results).
  Status launchObserved(Workspace &workspace, const DeviceAddr *inputs,
                        size_t numInputs, const DeviceAddr *outputs,
                        size_t numOutputs, const StepObserver &observer);
  /// Phase 3 on device tensors (DeviceTensor.h), no copies: each must fit
  /// its input or output (type and layout), else nothing runs.
  Status launchTensors(Workspace &workspace, const DeviceTensor *const *inputs,
                       size_t numInputs, const DeviceTensor *const *outputs,
                       size_t numOutputs);

  /// Device address of a weight/constant tensor (0 for other roles).
  DeviceAddr tensorAddress(uint32_t tensor) const {
    return tensorAddress_[tensor];
  }

  /// The weight (a parameter or buffer) called `name`, its exported name
  /// (FQN) or symbol: its tensor index, else an error listing the names.
  Status findWeight(const std::string &name, uint32_t &tensor) const;
  /// The device tensor holding weight or constant `tensor`; whoever holds
  /// it keeps it alive (null for other roles).
  std::shared_ptr<DeviceTensor> weight(uint32_t tensor) const {
    return weights_[tensor];
  }
  /// From now on this model reads and updates weight `tensor` in `shared`
  /// (its contents as they are) instead of its own copy, which is released:
  /// two models bound to one tensor share a buffer on the device (a KV
  /// cache). Rewrites the Load relocations of `tensor` in the placed
  /// programs. `shared` must be on this device, of the weight's type and
  /// layout.
  Status bindWeight(uint32_t tensor, std::shared_ptr<DeviceTensor> shared);
  /// Device address of a program's image.
  DeviceAddr programAddress(uint32_t program) const {
    return programAddress_[program];
  }

private:
  friend class Workspace;
  /// An 8-byte patch of a program image on the device.
  struct Patch {
    DeviceAddr where;
    /// Bind: offset into the workspace. Launch: io slot (inputs first).
    uint64_t slotOrOffset;
    int64_t addend;
    /// The patched instruction's window in confine_ and its tensor's bytes.
    DeviceRange *window;
    uint64_t tensorBytes;
  };

  LoadedModel(Device &device, std::shared_ptr<const Model> model);
  // The steps of load(), in order.
  /// Places the weights and constants on the device.
  Status uploadConstants();
  /// Host copies of the program images, to be patched.
  std::vector<std::vector<uint8_t>> copyProgramImages() const;
  /// Every instruction may touch only the tensor its relocation names; one
  /// without a relocation, no device memory at all.
  void initConfineWindows();
  /// Patches the Load relocations on the host copies of the images.
  void patchLoadRelocations(std::vector<std::vector<uint8_t>> &images);
  /// Places the patched program images on the device.
  Status uploadPrograms(const std::vector<std::vector<uint8_t>> &images);
  /// Precomputes the Bind and Launch patch lists for the later phases.
  void buildPatchLists();
  /// The plan as device step requests.
  void buildPlan();
  /// The confine window of the instruction relocation `r` patches.
  DeviceRange *confineWindow(const RelocationInfo &r);

  Status applyBind(const Workspace &workspace);
  /// Checks a launch's workspace and io counts.
  Status checkLaunchCounts(const Workspace &workspace, size_t numInputs,
                           size_t numOutputs) const;
  /// What every launch does before running the plan: checks its arguments,
  /// binds the workspace, patches the io buffers.
  Status prepareLaunch(Workspace &workspace, const DeviceAddr *inputs,
                       size_t numInputs, const DeviceAddr *outputs,
                       size_t numOutputs);
  /// Checks launch()'s workspace and buffer lists.
  Status checkLaunchArgs(const Workspace &workspace, const DeviceAddr *inputs,
                         size_t numInputs, const DeviceAddr *outputs,
                         size_t numOutputs) const;
  /// Patches the Launch relocations for the io buffers (rewriting only the
  /// values that changed since the last launch).
  Status applyLaunchPatches(const DeviceAddr *inputs, size_t numInputs,
                            const DeviceAddr *outputs);
  /// After a launch: mutated inputs and buffers get their new contents.
  Status applyMutations(const DeviceAddr *inputs, const DeviceAddr *outputs);

  Device &device_;
  std::shared_ptr<const Model> model_;
  std::vector<DeviceAddr> programAddress_;
  /// Weights and constants by tensor index (null for other roles), and
  /// their addresses (0 for other roles).
  std::vector<std::shared_ptr<DeviceTensor>> weights_;
  std::vector<DeviceAddr> tensorAddress_;
  /// launchTensors' addresses (kept: the launch path allocates nothing).
  std::vector<DeviceAddr> ioAddresses_;
  std::vector<Patch> bindPatches_;
  std::vector<Patch> launchPatches_;
  /// Last value written by each launch patch (skips rewriting it).
  std::vector<uint64_t> launchPatchValues_;
  std::vector<StepRequest> plan_;
  /// Per program, per instruction: the tensor its relocation names (the
  /// bytes a step may touch: StepRequest::confine), updated as relocations
  /// are patched.
  std::vector<std::vector<DeviceRange>> confine_;
  const Workspace *boundWorkspace_ = nullptr;
  std::set<Workspace *> workspaces_;
};

/// A workspace for one LoadedModel (phase 2). May be destroyed before or
/// after its LoadedModel.
class Workspace {
public:
  /// Phase 2: allocates the workspace and patches the Bind relocations.
  static Status create(LoadedModel &loaded, std::unique_ptr<Workspace> &out);
  ~Workspace();
  Workspace(const Workspace &) = delete;
  Workspace &operator=(const Workspace &) = delete;

  DeviceAddr base() const { return base_; }
  uint64_t size() const { return size_; }
  /// Device address of a workspace tensor.
  DeviceAddr tensorAddress(uint32_t tensor) const;

private:
  friend class LoadedModel;
  Workspace() = default;
  LoadedModel *owner_ = nullptr;
  DeviceAddr base_ = 0;
  uint64_t size_ = 0;
};

} // namespace spyre::rt

#endif // SPYRE_RUNTIME_EXECUTABLE_H
