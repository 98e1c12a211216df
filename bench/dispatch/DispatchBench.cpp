//===- DispatchBench.cpp - Host time of loading and launching a model -----===//
//
// What the runtime costs on the host, without the device's own time: the
// device is a NullDevice that allocates addresses, drops data and accepts
// every launch at once. Measured with libbenchmark, per model given on the
// command line:
//   * Open:   Model::open (map the file, validate every table, no segment
//             digests: --no-verify, as a cache of trusted files would);
//   * Load:   phase 1, LoadedModel::load (place programs and weights, patch
//             the Load relocations);
//   * Launch: phase 3 with the same io buffers every time (bind once,
//             launch many: the precomputed plan, nothing to re-patch);
//   * LaunchNewBuffers: phase 3 alternating between two sets of io
//             buffers, so every launch re-patches every io relocation.
//
//   spyre-dispatch-bench MODEL.spy... [--benchmark_* flags]
//
// bench/dispatch/run.sh compiles the models and records the table.
//
//===----------------------------------------------------------------------===//

#include "spyre/Runtime/Device.h"
#include "spyre/Runtime/DeviceTensor.h"
#include "spyre/Runtime/Executable.h"
#include "spyre/Runtime/Model.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace spyre;
using namespace spyre::rt;

namespace {

/// A device with no memory contents and no time: allocation hands out
/// increasing addresses, writes are dropped, reads give zeros and a launch
/// returns at once.
class NullDevice final : public Device {
public:
  explicit NullDevice(const Arch &arch) : arch_(arch) {}

  const Arch &arch() const override { return arch_; }
  Status allocate(uint64_t size, uint64_t alignment, MemoryKind,
                  DeviceAddr &out) override {
    uint64_t align = alignment ? alignment : 1;
    next_ = (next_ + align - 1) / align * align;
    out = next_;
    next_ += size ? size : 1;
    return Status::success();
  }
  Status free(DeviceAddr) override { return Status::success(); }
  Status write(DeviceAddr, const void *, uint64_t) override {
    return Status::success();
  }
  Status read(DeviceAddr, void *dst, uint64_t size) override {
    std::memset(dst, 0, size);
    return Status::success();
  }
  Status launch(const StepRequest *, size_t numSteps) override {
    steps_ += numSteps;
    return Status::success();
  }
  bool holdsData() const override { return false; }

  uint64_t steps() const { return steps_; }

private:
  Arch arch_;
  DeviceAddr next_ = 4096; // 0 is never an allocation
  uint64_t steps_ = 0;
};

/// Aborts the benchmark run with the runtime's message.
void check(const Status &s, const std::string &what) {
  if (!s.ok()) {
    std::fprintf(stderr, "spyre-dispatch-bench: %s: %s\n", what.c_str(),
                 s.message().c_str());
    std::exit(1);
  }
}

std::shared_ptr<const Model> openModel(const std::string &path) {
  std::unique_ptr<Model> model;
  LoadOptions options;
  options.verifyData = false;
  check(Model::open(path, nullptr, model, options), path);
  return std::shared_ptr<const Model>(std::move(model));
}

/// Device buffers for the model's inputs and outputs, one per tensor.
void allocateIo(Device &device, const Model &model,
                std::vector<DeviceAddr> &inputs,
                std::vector<DeviceAddr> &outputs) {
  auto allocate = [&](uint32_t tensor) {
    const TensorInfo &t = model.tensors()[tensor];
    DeviceAddr addr = 0;
    check(device.allocate(t.size, t.alignment, MemoryKind::Data, addr),
          "allocate");
    return addr;
  };
  for (uint32_t t : model.inputs())
    inputs.push_back(allocate(t));
  for (uint32_t t : model.outputs())
    outputs.push_back(allocate(t));
}

void benchOpen(benchmark::State &state, std::string path) {
  for (auto _ : state)
    benchmark::DoNotOptimize(openModel(path));
}

void benchLoad(benchmark::State &state, std::string path) {
  std::shared_ptr<const Model> model = openModel(path);
  NullDevice device(model->arch());
  for (auto _ : state) {
    std::unique_ptr<LoadedModel> loaded;
    check(LoadedModel::load(device, model, loaded), "load");
    benchmark::DoNotOptimize(loaded.get());
  }
}

/// A model loaded (phase 1) and bound (phase 2) on a NullDevice: what the
/// launch benchmarks start from.
struct BoundModel {
  std::shared_ptr<const Model> model;
  NullDevice device;
  std::unique_ptr<LoadedModel> loaded;
  std::unique_ptr<Workspace> workspace;

  explicit BoundModel(const std::string &path)
      : model(openModel(path)), device(model->arch()) {
    check(LoadedModel::load(device, model, loaded), "load");
    check(Workspace::create(*loaded, workspace), "bind");
  }
};

/// Phase 3 over `sets` sets of io buffers, one set per launch in turn.
void benchLaunch(benchmark::State &state, std::string path, int sets) {
  BoundModel b(path);
  const Model &model = *b.model;
  std::vector<std::vector<DeviceAddr>> inputs(sets), outputs(sets);
  for (int s = 0; s < sets; ++s)
    allocateIo(b.device, model, inputs[s], outputs[s]);
  int s = 0;
  for (auto _ : state) {
    check(b.loaded->launch(*b.workspace, inputs[s].data(), inputs[s].size(),
                           outputs[s].data(), outputs[s].size()),
          "launch");
    s = (s + 1) % sets;
  }
  state.counters["steps"] = double(model.plan().size());
}

/// Phase 3 on device tensors (LaunchTensors): each tensor's type and
/// layout checked against its slot on every launch.
void benchLaunchTensors(benchmark::State &state, std::string path) {
  BoundModel b(path);
  const Model &model = *b.model;
  std::vector<std::shared_ptr<DeviceTensor>> owned;
  std::vector<const DeviceTensor *> inputs, outputs;
  auto create = [&](uint32_t tensor, std::vector<const DeviceTensor *> &list) {
    std::shared_ptr<DeviceTensor> t;
    check(DeviceTensor::create(b.device, model.tensors()[tensor], t), "tensor");
    list.push_back(t.get());
    owned.push_back(std::move(t));
  };
  for (uint32_t t : model.inputs())
    create(t, inputs);
  for (uint32_t t : model.outputs())
    create(t, outputs);
  for (auto _ : state)
    check(b.loaded->launchTensors(*b.workspace, inputs.data(), inputs.size(),
                                  outputs.data(), outputs.size()),
          "launch");
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  std::vector<std::string> models;
  for (int i = 1; i < argc; ++i)
    models.push_back(argv[i]);
  if (models.empty()) {
    std::fprintf(stderr, "usage: spyre-dispatch-bench MODEL.spy... "
                         "[--benchmark_* flags]\n");
    return 2;
  }
  for (const std::string &path : models) {
    std::string name = path.substr(path.find_last_of('/') + 1);
    benchmark::RegisterBenchmark(("Open/" + name).c_str(), benchOpen, path);
    benchmark::RegisterBenchmark(("Load/" + name).c_str(), benchLoad, path);
    benchmark::RegisterBenchmark(("Launch/" + name).c_str(), benchLaunch, path,
                                 1);
    benchmark::RegisterBenchmark(("LaunchNewBuffers/" + name).c_str(),
                                 benchLaunch, path, 2);
    benchmark::RegisterBenchmark(("LaunchTensors/" + name).c_str(),
                                 benchLaunchTensors, path);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
