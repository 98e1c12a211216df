//===- CApi.cpp - C API of the Spyre runtime ------------------------------===//
//
// Thin wrappers over the C++ API. Every entry point catches every exception
// (none may cross into C) and records failures as the thread's last error.
//
//===----------------------------------------------------------------------===//

#include "spyre/spyre_runtime.h"

#include "spyre/Runtime/Executable.h"
#include "spyre/Runtime/SimulatorDevice.h"
#include "spyre/Runtime/Stats.h"
#include "spyre/Runtime/Transfer.h"
#include "spyre/Spy/SpyFormat.h"

#include <exception>
#include <memory>
#include <string>

#ifndef SPYRE_VERSION_STRING
#define SPYRE_VERSION_STRING "unknown"
#endif

using namespace spyre;
using namespace spyre::rt;

struct spyre_device {
  std::shared_ptr<SimulatorDevice> device;
};
struct spyre_model {
  std::shared_ptr<const Model> model;
};
struct spyre_executable {
  std::shared_ptr<SimulatorDevice> device;
  std::unique_ptr<LoadedModel> loaded;
};
struct spyre_workspace {
  std::unique_ptr<Workspace> workspace;
};

static_assert(int(StatusCode::Internal) == SPYRE_ERROR_INTERNAL,
              "C status codes mirror StatusCode");
static_assert(int(isa::DType::Bool) == SPYRE_DTYPE_BOOL,
              "C dtypes mirror isa::DType");

namespace {

thread_local std::string lastError;

spyre_status_t report(const Status &s) {
  if (s.ok())
    return SPYRE_OK;
  lastError = s.message();
  return spyre_status_t(s.code());
}

spyre_status_t report(StatusCode code, const std::string &message) {
  return report(Status::error(code, message));
}

/// Runs `body` (returning a Status), turning exceptions into errors.
template <typename F> spyre_status_t guarded(F &&body) {
  try {
    return report(body());
  } catch (const std::bad_alloc &) {
    return report(StatusCode::OutOfMemory, "out of host memory");
  } catch (const std::exception &e) {
    return report(StatusCode::Internal,
                  std::string("internal error: ") + e.what());
  } catch (...) {
    return report(StatusCode::Internal, "internal error");
  }
}

Status fillInfo(const Model &m, const std::vector<uint32_t> &list, size_t index,
                const char *what, spyre_tensor_info_t *out) {
  if (!out)
    return invalidArgument("null output pointer");
  if (index >= list.size())
    return invalidArgument(std::string(what) + " " + std::to_string(index) +
                           " out of range (the model has " +
                           std::to_string(list.size()) + ")");
  const TensorInfo &t = m.tensors()[list[index]];
  out->name = t.displayName().c_str();
  out->dtype = spyre_dtype_t(t.dtype);
  out->rank = t.shape.size();
  out->shape = t.shape.data();
  out->host_bytes = hostBytes(t);
  out->device_bytes = t.size;
  out->device_alignment = t.alignment;
  out->aliases_input = t.aliasesInput;
  out->updates_buffer =
      t.updatesTensor >= 0
          ? m.tensors()[size_t(t.updatesTensor)].displayName().c_str()
          : nullptr;
  return Status::success();
}

} // namespace

extern "C" {

const char *spyre_last_error(void) { return lastError.c_str(); }

const char *spyre_runtime_version(void) { return SPYRE_VERSION_STRING; }

const char *spyre_spy_format_version(void) {
  static const std::string v = std::to_string(spy::kFormatMajor) + "." +
                               std::to_string(spy::kFormatMinor);
  return v.c_str();
}

spyre_status_t spyre_simulator_create(const char *arch_path, int timing_only,
                                      int trace, spyre_device_t **out) {
  return guarded([&] {
    if (!out)
      return invalidArgument("null output pointer");
    *out = nullptr;
    Arch arch = Arch::builtinDefault();
    if (arch_path) {
      std::string error;
      if (!Arch::load(arch_path, arch, error))
        return Status::error(StatusCode::InvalidFile, error);
    }
    SimOptions options;
    options.timingOnly = timing_only != 0;
    options.trace = trace != 0;
    auto handle = std::make_unique<spyre_device>();
    handle->device = std::make_shared<SimulatorDevice>(arch, options);
    *out = handle.release();
    return Status::success();
  });
}

void spyre_device_destroy(spyre_device_t *device) { delete device; }

spyre_status_t spyre_device_alloc(spyre_device_t *device, uint64_t size,
                                  uint64_t alignment,
                                  spyre_device_addr_t *out) {
  return guarded([&] {
    if (!device || !out)
      return invalidArgument("null argument");
    return device->device->allocate(size, alignment, MemoryKind::Data, *out);
  });
}

spyre_status_t spyre_device_free(spyre_device_t *device,
                                 spyre_device_addr_t addr) {
  return guarded([&] {
    if (!device)
      return invalidArgument("null device");
    return device->device->free(addr);
  });
}

spyre_status_t spyre_device_write(spyre_device_t *device,
                                  spyre_device_addr_t dst, const void *src,
                                  uint64_t size) {
  return guarded([&] {
    if (!device || (size && !src))
      return invalidArgument("null argument");
    return device->device->write(dst, src, size);
  });
}

spyre_status_t spyre_device_read(spyre_device_t *device,
                                 spyre_device_addr_t src, void *dst,
                                 uint64_t size) {
  return guarded([&] {
    if (!device || (size && !dst))
      return invalidArgument("null argument");
    return device->device->read(src, dst, size);
  });
}

spyre_status_t spyre_simulator_stats(const spyre_device_t *device,
                                     spyre_sim_stats_t *out) {
  return guarded([&] {
    if (!device || !out)
      return invalidArgument("null argument");
    const SimStats &s = device->device->stats();
    out->total_ns = s.totalNs();
    out->roofline_ns = rooflineNs(s, device->device->arch());
    out->num_kernels = s.kernels.size();
    out->bytes_read = s.bytesRead;
    out->bytes_written = s.bytesWritten;
    out->ring_bytes = s.ringBytes;
    out->macs = s.macs;
    out->launches = s.launches;
    return Status::success();
  });
}

spyre_status_t spyre_simulator_reset_stats(spyre_device_t *device) {
  return guarded([&] {
    if (!device)
      return invalidArgument("null device");
    device->device->resetStats();
    return Status::success();
  });
}

spyre_status_t spyre_simulator_write_stats(const spyre_device_t *device,
                                           const char *path) {
  return guarded([&] {
    if (!device || !path)
      return invalidArgument("null argument");
    return writeStatsJson(device->device->stats(), device->device->arch(),
                          path);
  });
}

spyre_status_t spyre_simulator_write_trace(const spyre_device_t *device,
                                           const char *path) {
  return guarded([&] {
    if (!device || !path)
      return invalidArgument("null argument");
    if (!device->device->options().trace)
      return invalidArgument("the simulator was created without tracing");
    return device->device->writeTrace(std::string(path));
  });
}

spyre_status_t spyre_model_open(const char *path, const spyre_device_t *device,
                                spyre_model_t **out) {
  return guarded([&] {
    if (!path || !out)
      return invalidArgument("null argument");
    *out = nullptr;
    std::unique_ptr<Model> model;
    SPYRE_RETURN_IF_ERROR(
        Model::open(path, device ? &device->device->arch() : nullptr, model));
    auto handle = std::make_unique<spyre_model>();
    handle->model = std::move(model);
    *out = handle.release();
    return Status::success();
  });
}

void spyre_model_destroy(spyre_model_t *model) { delete model; }

size_t spyre_model_num_inputs(const spyre_model_t *model) {
  return model ? model->model->inputs().size() : 0;
}

size_t spyre_model_num_outputs(const spyre_model_t *model) {
  return model ? model->model->outputs().size() : 0;
}

size_t spyre_model_num_warnings(const spyre_model_t *model) {
  return model ? model->model->warnings().size() : 0;
}

const char *spyre_model_warning(const spyre_model_t *model, size_t index) {
  if (!model || index >= model->model->warnings().size())
    return nullptr;
  return model->model->warnings()[index].c_str();
}

spyre_status_t spyre_model_input_info(const spyre_model_t *model, size_t index,
                                      spyre_tensor_info_t *out) {
  return guarded([&] {
    if (!model)
      return invalidArgument("null model");
    return fillInfo(*model->model, model->model->inputs(), index, "input", out);
  });
}

spyre_status_t spyre_model_output_info(const spyre_model_t *model, size_t index,
                                       spyre_tensor_info_t *out) {
  return guarded([&] {
    if (!model)
      return invalidArgument("null model");
    return fillInfo(*model->model, model->model->outputs(), index, "output",
                    out);
  });
}

spyre_status_t spyre_executable_load(spyre_device_t *device,
                                     const spyre_model_t *model,
                                     spyre_executable_t **out) {
  return guarded([&] {
    if (!device || !model || !out)
      return invalidArgument("null argument");
    *out = nullptr;
    auto handle = std::make_unique<spyre_executable>();
    handle->device = device->device;
    SPYRE_RETURN_IF_ERROR(
        LoadedModel::load(*handle->device, model->model, handle->loaded));
    *out = handle.release();
    return Status::success();
  });
}

void spyre_executable_destroy(spyre_executable_t *executable) {
  delete executable;
}

spyre_status_t spyre_workspace_create(spyre_executable_t *executable,
                                      spyre_workspace_t **out) {
  return guarded([&] {
    if (!executable || !out)
      return invalidArgument("null argument");
    *out = nullptr;
    auto handle = std::make_unique<spyre_workspace>();
    SPYRE_RETURN_IF_ERROR(
        Workspace::create(*executable->loaded, handle->workspace));
    *out = handle.release();
    return Status::success();
  });
}

void spyre_workspace_destroy(spyre_workspace_t *workspace) { delete workspace; }

spyre_status_t
spyre_launch(spyre_executable_t *executable, spyre_workspace_t *workspace,
             const spyre_device_addr_t *inputs, size_t num_inputs,
             const spyre_device_addr_t *outputs, size_t num_outputs) {
  return guarded([&] {
    if (!executable || !workspace)
      return invalidArgument("null argument");
    return executable->loaded->launch(*workspace->workspace, inputs, num_inputs,
                                      outputs, num_outputs);
  });
}

spyre_status_t spyre_copy_input_to_device(const spyre_model_t *model,
                                          spyre_device_t *device, size_t index,
                                          const void *host, uint64_t size,
                                          spyre_device_addr_t dst) {
  return guarded([&] {
    if (!model || !device || (size && !host))
      return invalidArgument("null argument");
    const Model &m = *model->model;
    if (index >= m.inputs().size())
      return invalidArgument("input " + std::to_string(index) +
                             " out of range");
    return copyToDevice(*device->device, m.tensors()[m.inputs()[index]], host,
                        size, dst);
  });
}

spyre_status_t spyre_copy_output_from_device(const spyre_model_t *model,
                                             spyre_device_t *device,
                                             size_t index,
                                             spyre_device_addr_t src,
                                             void *host, uint64_t size) {
  return guarded([&] {
    if (!model || !device || (size && !host))
      return invalidArgument("null argument");
    const Model &m = *model->model;
    if (index >= m.outputs().size())
      return invalidArgument("output " + std::to_string(index) +
                             " out of range");
    return copyFromDevice(*device->device, m.tensors()[m.outputs()[index]], src,
                          host, size);
  });
}

} // extern "C"
