//===- CApi.cpp - C API of the Spyre runtime ------------------------------===//
//
// Thin wrappers over the C++ API. Every entry point catches every exception
// (none may cross into C) and records failures as the thread's last error.
// Every call that touches a device holds the device's lock, so handles may
// be used from several threads (docs/runtime.md, "Threads").
//
//===----------------------------------------------------------------------===//

#include "spyre/spyre_runtime.h"

#include "spyre/Runtime/Executable.h"
#include "spyre/Runtime/SimulatorDevice.h"
#include "spyre/Runtime/Stats.h"
#include "spyre/Runtime/Streams.h"
#include "spyre/Runtime/Transfer.h"
#include "spyre/Spy/SpyFormat.h"

#include <exception>
#include <memory>
#include <mutex>
#include <string>

#ifndef SPYRE_VERSION_STRING
#define SPYRE_VERSION_STRING "unknown"
#endif

using namespace spyre;
using namespace spyre::rt;

namespace {

/// A simulator shared by the handles made on it, with the lock every call
/// that touches it takes (the C API is thread-safe), and its streams.
struct DeviceContext {
  explicit DeviceContext(const Arch &arch, const SimOptions &options)
      : device(arch, options) {}
  SimulatorDevice device;
  std::mutex lock;
  /// Created with the first stream or event; declared last, so its
  /// executor stops before the device goes.
  std::mutex streamsLock;
  std::unique_ptr<StreamEngine> streams;

  StreamEngine &engine() {
    std::lock_guard<std::mutex> guard(streamsLock);
    if (!streams)
      streams = std::make_unique<StreamEngine>(device, lock);
    return *streams;
  }
};

using ContextPtr = std::shared_ptr<DeviceContext>;

} // namespace

// Every handle that owns device memory holds its context; the memory is
// released under the context's lock (`release`).
struct spyre_device {
  ContextPtr ctx;
};
struct spyre_model {
  std::shared_ptr<const Model> model;
};
struct spyre_executable {
  ContextPtr ctx;
  std::shared_ptr<LoadedModel> loaded;
};
struct spyre_workspace {
  ContextPtr ctx;
  std::shared_ptr<Workspace> workspace;
};
struct spyre_tensor {
  ContextPtr ctx;
  std::shared_ptr<DeviceTensor> tensor;
};
struct spyre_stream {
  ContextPtr ctx;
  uint32_t id;
};
struct spyre_event {
  ContextPtr ctx;
  std::shared_ptr<Event> event;
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

Status checkIndex(const std::vector<uint32_t> &list, size_t index,
                  const char *what) {
  if (index >= list.size())
    return invalidArgument(std::string(what) + " " + std::to_string(index) +
                           " out of range (the model has " +
                           std::to_string(list.size()) + ")");
  return Status::success();
}

/// Describes `t`; `m` names the buffer an output updates (may be null).
void describe(const TensorInfo &t, const Model *m, spyre_tensor_info_t *out) {
  out->name = t.displayName().c_str();
  out->dtype = spyre_dtype_t(t.dtype);
  out->rank = t.shape.size();
  out->shape = t.shape.data();
  out->host_bytes = hostBytes(t);
  out->device_bytes = t.size;
  out->device_alignment = t.alignment;
  out->aliases_input = t.aliasesInput;
  out->updates_buffer =
      m && t.updatesTensor >= 0
          ? m->tensors()[size_t(t.updatesTensor)].displayName().c_str()
          : nullptr;
}

Status fillInfo(const Model &m, const std::vector<uint32_t> &list, size_t index,
                const char *what, spyre_tensor_info_t *out) {
  if (!out)
    return invalidArgument("null output pointer");
  SPYRE_RETURN_IF_ERROR(checkIndex(list, index, what));
  describe(m.tensors()[list[index]], &m, out);
  return Status::success();
}

/// Releases what `handle` owns on its device under the device's lock, then
/// the handle (the context may die with it: it is kept until the end).
template <typename Handle> void release(Handle *handle) {
  if (!handle)
    return;
  ContextPtr ctx = handle->ctx;
  {
    std::lock_guard<std::mutex> lock(ctx->lock);
    delete handle;
  }
}

/// A device tensor in the layout of io tensor `index` of `list`.
Status createIoTensor(spyre_device_t *device, const spyre_model_t *model,
                      bool input, size_t index, spyre_tensor_t **out) {
  if (!device || !model || !out)
    return invalidArgument("null argument");
  *out = nullptr;
  const Model &m = *model->model;
  const auto &list = input ? m.inputs() : m.outputs();
  SPYRE_RETURN_IF_ERROR(checkIndex(list, index, input ? "input" : "output"));
  auto handle = std::make_unique<spyre_tensor>();
  handle->ctx = device->ctx;
  std::lock_guard<std::mutex> lock(device->ctx->lock);
  SPYRE_RETURN_IF_ERROR(DeviceTensor::create(
      device->ctx->device, m.tensors()[list[index]], handle->tensor));
  *out = handle.release();
  return Status::success();
}

/// The device tensors of a launch, checked non-null.
Status tensorList(spyre_tensor_t *const *list, size_t n, const char *what,
                  std::vector<const DeviceTensor *> &out) {
  if (n && !list)
    return invalidArgument(std::string("missing ") + what + " tensor list");
  out.assign(n, nullptr);
  for (size_t i = 0; i < n; ++i)
    out[i] = list[i] ? list[i]->tensor.get() : nullptr;
  return Status::success();
}

/// Handles used together must belong to one device.
Status sameDevice(const ContextPtr &a, const ContextPtr &b, const char *what) {
  if (a != b)
    return invalidArgument(std::string(what) + " is on another device");
  return Status::success();
}

/// A stream transfer's arguments: non-null, one device.
Status checkTransfer(const spyre_stream_t *stream, const spyre_tensor_t *tensor,
                     const void *host, uint64_t size) {
  if (!stream || !tensor || (size && !host))
    return invalidArgument("null argument");
  return sameDevice(stream->ctx, tensor->ctx, "the tensor");
}

/// A stream and an event of one device.
Status checkStreamEvent(const spyre_stream_t *stream,
                        const spyre_event_t *event) {
  if (!stream || !event)
    return invalidArgument("null argument");
  return sameDevice(stream->ctx, event->ctx, "the event");
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
    handle->ctx = std::make_shared<DeviceContext>(arch, options);
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
    std::lock_guard<std::mutex> lock(device->ctx->lock);
    return device->ctx->device.allocate(size, alignment, MemoryKind::Data,
                                        *out);
  });
}

spyre_status_t spyre_device_free(spyre_device_t *device,
                                 spyre_device_addr_t addr) {
  return guarded([&] {
    if (!device)
      return invalidArgument("null device");
    std::lock_guard<std::mutex> lock(device->ctx->lock);
    return device->ctx->device.free(addr);
  });
}

spyre_status_t spyre_device_write(spyre_device_t *device,
                                  spyre_device_addr_t dst, const void *src,
                                  uint64_t size) {
  return guarded([&] {
    if (!device || (size && !src))
      return invalidArgument("null argument");
    std::lock_guard<std::mutex> lock(device->ctx->lock);
    return device->ctx->device.write(dst, src, size);
  });
}

spyre_status_t spyre_device_read(spyre_device_t *device,
                                 spyre_device_addr_t src, void *dst,
                                 uint64_t size) {
  return guarded([&] {
    if (!device || (size && !dst))
      return invalidArgument("null argument");
    std::lock_guard<std::mutex> lock(device->ctx->lock);
    return device->ctx->device.read(src, dst, size);
  });
}

spyre_status_t spyre_simulator_stats(const spyre_device_t *device,
                                     spyre_sim_stats_t *out) {
  return guarded([&] {
    if (!device || !out)
      return invalidArgument("null argument");
    std::lock_guard<std::mutex> lock(device->ctx->lock);
    const SimulatorDevice &d = device->ctx->device;
    const SimStats &s = d.stats();
    out->total_ns = s.totalNs();
    out->roofline_ns = rooflineNs(s, d.arch());
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
    std::lock_guard<std::mutex> lock(device->ctx->lock);
    device->ctx->device.resetStats();
    return Status::success();
  });
}

spyre_status_t spyre_simulator_write_stats(const spyre_device_t *device,
                                           const char *path) {
  return guarded([&] {
    if (!device || !path)
      return invalidArgument("null argument");
    std::lock_guard<std::mutex> lock(device->ctx->lock);
    const SimulatorDevice &d = device->ctx->device;
    return writeStatsJson(d.stats(), d.arch(), path);
  });
}

spyre_status_t spyre_simulator_write_trace(const spyre_device_t *device,
                                           const char *path) {
  return guarded([&] {
    if (!device || !path)
      return invalidArgument("null argument");
    std::lock_guard<std::mutex> lock(device->ctx->lock);
    const SimulatorDevice &d = device->ctx->device;
    if (!d.options().trace)
      return invalidArgument("the simulator was created without tracing");
    return d.writeTrace(std::string(path));
  });
}

spyre_status_t spyre_model_open(const char *path, const spyre_device_t *device,
                                spyre_model_t **out) {
  return guarded([&] {
    if (!path || !out)
      return invalidArgument("null argument");
    *out = nullptr;
    std::unique_ptr<Model> model;
    SPYRE_RETURN_IF_ERROR(Model::open(
        path, device ? &device->ctx->device.arch() : nullptr, model));
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
    handle->ctx = device->ctx;
    std::unique_ptr<LoadedModel> loaded;
    std::lock_guard<std::mutex> lock(device->ctx->lock);
    SPYRE_RETURN_IF_ERROR(
        LoadedModel::load(device->ctx->device, model->model, loaded));
    handle->loaded = std::move(loaded);
    *out = handle.release();
    return Status::success();
  });
}

void spyre_executable_destroy(spyre_executable_t *executable) {
  release(executable);
}

spyre_status_t spyre_workspace_create(spyre_executable_t *executable,
                                      spyre_workspace_t **out) {
  return guarded([&] {
    if (!executable || !out)
      return invalidArgument("null argument");
    *out = nullptr;
    auto handle = std::make_unique<spyre_workspace>();
    handle->ctx = executable->ctx;
    std::unique_ptr<Workspace> workspace;
    std::lock_guard<std::mutex> lock(executable->ctx->lock);
    SPYRE_RETURN_IF_ERROR(Workspace::create(*executable->loaded, workspace));
    handle->workspace = std::move(workspace);
    *out = handle.release();
    return Status::success();
  });
}

void spyre_workspace_destroy(spyre_workspace_t *workspace) {
  release(workspace);
}

spyre_status_t
spyre_launch(spyre_executable_t *executable, spyre_workspace_t *workspace,
             const spyre_device_addr_t *inputs, size_t num_inputs,
             const spyre_device_addr_t *outputs, size_t num_outputs) {
  return guarded([&] {
    if (!executable || !workspace)
      return invalidArgument("null argument");
    std::lock_guard<std::mutex> lock(executable->ctx->lock);
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
    SPYRE_RETURN_IF_ERROR(checkIndex(m.inputs(), index, "input"));
    std::lock_guard<std::mutex> lock(device->ctx->lock);
    return copyToDevice(device->ctx->device, m.tensors()[m.inputs()[index]],
                        host, size, dst);
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
    SPYRE_RETURN_IF_ERROR(checkIndex(m.outputs(), index, "output"));
    std::lock_guard<std::mutex> lock(device->ctx->lock);
    return copyFromDevice(device->ctx->device, m.tensors()[m.outputs()[index]],
                          src, host, size);
  });
}

spyre_status_t spyre_tensor_create_input(spyre_device_t *device,
                                         const spyre_model_t *model,
                                         size_t index, spyre_tensor_t **out) {
  return guarded(
      [&] { return createIoTensor(device, model, true, index, out); });
}

spyre_status_t spyre_tensor_create_output(spyre_device_t *device,
                                          const spyre_model_t *model,
                                          size_t index, spyre_tensor_t **out) {
  return guarded(
      [&] { return createIoTensor(device, model, false, index, out); });
}

spyre_status_t spyre_executable_weight(spyre_executable_t *executable,
                                       const char *name, spyre_tensor_t **out) {
  return guarded([&] {
    if (!executable || !name || !out)
      return invalidArgument("null argument");
    *out = nullptr;
    std::lock_guard<std::mutex> lock(executable->ctx->lock);
    uint32_t t;
    SPYRE_RETURN_IF_ERROR(executable->loaded->findWeight(name, t));
    auto handle = std::make_unique<spyre_tensor>();
    handle->ctx = executable->ctx;
    handle->tensor = executable->loaded->weight(t);
    *out = handle.release();
    return Status::success();
  });
}

spyre_status_t spyre_executable_bind_weight(spyre_executable_t *executable,
                                            const char *name,
                                            spyre_tensor_t *tensor) {
  return guarded([&] {
    if (!executable || !name || !tensor)
      return invalidArgument("null argument");
    std::lock_guard<std::mutex> lock(executable->ctx->lock);
    uint32_t t;
    SPYRE_RETURN_IF_ERROR(executable->loaded->findWeight(name, t));
    return executable->loaded->bindWeight(t, tensor->tensor);
  });
}

void spyre_tensor_destroy(spyre_tensor_t *tensor) { release(tensor); }

spyre_status_t spyre_tensor_info(const spyre_tensor_t *tensor,
                                 spyre_tensor_info_t *out) {
  return guarded([&] {
    if (!tensor || !out)
      return invalidArgument("null argument");
    describe(tensor->tensor->info(), nullptr, out);
    out->aliases_input = -1;
    return Status::success();
  });
}

spyre_device_addr_t spyre_tensor_address(const spyre_tensor_t *tensor) {
  return tensor ? tensor->tensor->address() : 0;
}

spyre_status_t spyre_tensor_upload(spyre_tensor_t *tensor, const void *host,
                                   uint64_t size) {
  return guarded([&] {
    if (!tensor || (size && !host))
      return invalidArgument("null argument");
    std::lock_guard<std::mutex> lock(tensor->ctx->lock);
    return tensor->tensor->upload(host, size);
  });
}

spyre_status_t spyre_tensor_download(const spyre_tensor_t *tensor, void *host,
                                     uint64_t size) {
  return guarded([&] {
    if (!tensor || (size && !host))
      return invalidArgument("null argument");
    std::lock_guard<std::mutex> lock(tensor->ctx->lock);
    return tensor->tensor->download(host, size);
  });
}

spyre_status_t spyre_launch_tensors(spyre_executable_t *executable,
                                    spyre_workspace_t *workspace,
                                    spyre_tensor_t *const *inputs,
                                    size_t num_inputs,
                                    spyre_tensor_t *const *outputs,
                                    size_t num_outputs) {
  return guarded([&] {
    if (!executable || !workspace)
      return invalidArgument("null argument");
    std::vector<const DeviceTensor *> in, out;
    SPYRE_RETURN_IF_ERROR(tensorList(inputs, num_inputs, "input", in));
    SPYRE_RETURN_IF_ERROR(tensorList(outputs, num_outputs, "output", out));
    std::lock_guard<std::mutex> lock(executable->ctx->lock);
    return executable->loaded->launchTensors(
        *workspace->workspace, in.data(), num_inputs, out.data(), num_outputs);
  });
}

spyre_status_t spyre_stream_create(spyre_device_t *device,
                                   spyre_stream_t **out) {
  return guarded([&] {
    if (!device || !out)
      return invalidArgument("null argument");
    auto handle = std::make_unique<spyre_stream>();
    handle->ctx = device->ctx;
    handle->id = device->ctx->engine().createStream();
    *out = handle.release();
    return Status::success();
  });
}

spyre_status_t spyre_stream_destroy(spyre_stream_t *stream) {
  if (!stream)
    return SPYRE_OK;
  spyre_status_t s =
      guarded([&] { return stream->ctx->engine().destroyStream(stream->id); });
  delete stream;
  return s;
}

spyre_status_t spyre_stream_upload(spyre_stream_t *stream,
                                   spyre_tensor_t *tensor, const void *host,
                                   uint64_t size) {
  return guarded([&] {
    SPYRE_RETURN_IF_ERROR(checkTransfer(stream, tensor, host, size));
    std::shared_ptr<DeviceTensor> t = tensor->tensor;
    return stream->ctx->engine().enqueue(
        stream->id, StreamEngine::Resource::HostToDevice,
        "upload '" + t->info().displayName() + "'", size,
        [t, host, size] { return t->upload(host, size); });
  });
}

spyre_status_t spyre_stream_download(spyre_stream_t *stream,
                                     const spyre_tensor_t *tensor, void *host,
                                     uint64_t size) {
  return guarded([&] {
    SPYRE_RETURN_IF_ERROR(checkTransfer(stream, tensor, host, size));
    std::shared_ptr<DeviceTensor> t = tensor->tensor;
    return stream->ctx->engine().enqueue(
        stream->id, StreamEngine::Resource::DeviceToHost,
        "download '" + t->info().displayName() + "'", size,
        [t, host, size] { return t->download(host, size); });
  });
}

spyre_status_t
spyre_stream_launch(spyre_stream_t *stream, spyre_executable_t *executable,
                    spyre_workspace_t *workspace, spyre_tensor_t *const *inputs,
                    size_t num_inputs, spyre_tensor_t *const *outputs,
                    size_t num_outputs) {
  return guarded([&] {
    if (!stream || !executable || !workspace)
      return invalidArgument("null argument");
    SPYRE_RETURN_IF_ERROR(
        sameDevice(stream->ctx, executable->ctx, "the executable"));
    // The command keeps everything it uses alive: handles may be destroyed
    // before the stream reaches it.
    std::vector<std::shared_ptr<DeviceTensor>> io;
    for (size_t i = 0; i < num_inputs + num_outputs; ++i) {
      spyre_tensor_t *t = i < num_inputs
                              ? (inputs ? inputs[i] : nullptr)
                              : (outputs ? outputs[i - num_inputs] : nullptr);
      if (!t)
        return invalidArgument(
            std::string("no device tensor for ") +
            (i < num_inputs ? "input " : "output ") +
            std::to_string(i < num_inputs ? i : i - num_inputs));
      SPYRE_RETURN_IF_ERROR(sameDevice(stream->ctx, t->ctx, "a tensor"));
      io.push_back(t->tensor);
    }
    std::shared_ptr<LoadedModel> loaded = executable->loaded;
    std::shared_ptr<Workspace> ws = workspace->workspace;
    std::string label = "launch (" +
                        std::to_string(loaded->model().plan().size()) +
                        " kernels)";
    return stream->ctx->engine().enqueue(
        stream->id, StreamEngine::Resource::Device, label, 0,
        [loaded, ws, io, num_inputs, num_outputs] {
          std::vector<const DeviceTensor *> raw;
          for (const auto &t : io)
            raw.push_back(t.get());
          return loaded->launchTensors(*ws, raw.data(), num_inputs,
                                       raw.data() + num_inputs, num_outputs);
        });
  });
}

spyre_status_t spyre_stream_wait_event(spyre_stream_t *stream,
                                       spyre_event_t *event) {
  return guarded([&] {
    SPYRE_RETURN_IF_ERROR(checkStreamEvent(stream, event));
    return stream->ctx->engine().wait(stream->id, event->event);
  });
}

spyre_status_t spyre_stream_synchronize(spyre_stream_t *stream) {
  return guarded([&] {
    if (!stream)
      return invalidArgument("null stream");
    return stream->ctx->engine().synchronize(stream->id);
  });
}

spyre_status_t spyre_stream_query(spyre_stream_t *stream) {
  if (stream && !stream->ctx->engine().done(stream->id))
    return SPYRE_NOT_READY;
  return spyre_stream_synchronize(stream);
}

spyre_status_t spyre_event_create(spyre_device_t *device, spyre_event_t **out) {
  return guarded([&] {
    if (!device || !out)
      return invalidArgument("null argument");
    auto handle = std::make_unique<spyre_event>();
    handle->ctx = device->ctx;
    handle->event = std::make_shared<Event>();
    *out = handle.release();
    return Status::success();
  });
}

void spyre_event_destroy(spyre_event_t *event) { delete event; }

spyre_status_t spyre_event_record(spyre_event_t *event,
                                  spyre_stream_t *stream) {
  return guarded([&] {
    SPYRE_RETURN_IF_ERROR(checkStreamEvent(stream, event));
    return stream->ctx->engine().record(stream->id, event->event);
  });
}

spyre_status_t spyre_event_synchronize(spyre_event_t *event) {
  return guarded([&] {
    if (!event)
      return invalidArgument("null event");
    event->ctx->engine().synchronize(*event->event);
    return Status::success();
  });
}

spyre_status_t spyre_event_query(spyre_event_t *event) {
  if (!event)
    return spyre_event_synchronize(event);
  return event->ctx->engine().done(*event->event) ? SPYRE_OK : SPYRE_NOT_READY;
}

spyre_status_t spyre_event_elapsed_ns(const spyre_event_t *start,
                                      const spyre_event_t *end, double *ns) {
  return guarded([&] {
    if (!start || !end || !ns)
      return invalidArgument("null argument");
    SPYRE_RETURN_IF_ERROR(sameDevice(start->ctx, end->ctx, "the end event"));
    return start->ctx->engine().elapsedNs(*start->event, *end->event, *ns);
  });
}

} // extern "C"
