//===- NativeModule.cpp - spyre._native: the runtime for Python -----------===//
//
// The pybind11 half of the `spyre` package (python/spyre/__init__.py is the
// other): devices (simulators), models loaded on them, device tensors, and
// numpy arrays in and out. Names, keyword arguments and mutated host arrays
// are Python's; this file checks dtypes, shapes and layouts against the
// model, converts, runs (without the GIL) and reports. A runtime Status
// that fails becomes a `spyre.Error` carrying the runtime's message;
// nothing else crosses.
//
//===----------------------------------------------------------------------===//

#include "spyre/Runtime/Check.h"
#include "spyre/Runtime/Npy.h"
#include "spyre/Runtime/Session.h"
#include "spyre/Runtime/SimulatorDevice.h"
#include "spyre/Runtime/Stats.h"
#include "spyre/Runtime/Transfer.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace py = pybind11;
using namespace spyre;
using namespace spyre::rt;

namespace {

/// A runtime failure, raised in Python as spyre.Error.
struct RuntimeFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A kernel that diverges from its reference under run(check=True), raised
/// as spyre.CheckError (a spyre.Error) carrying the report.
struct CheckFailure : RuntimeFailure {
  using RuntimeFailure::RuntimeFailure;
};

void check(const Status &s) {
  if (!s.ok())
    throw RuntimeFailure(s.message());
}

/// numpy's name of the dtype a .npy descriptor stands for.
const char *numpyName(NpyDType d) {
  switch (d) {
  case NpyDType::F2:
    return "float16";
  case NpyDType::F4:
    return "float32";
  case NpyDType::F8:
    return "float64";
  case NpyDType::I1:
    return "int8";
  case NpyDType::I4:
    return "int32";
  case NpyDType::I8:
    return "int64";
  case NpyDType::U1:
    return "uint8";
  case NpyDType::B1:
    return "bool";
  }
  return "?";
}

/// The .npy dtype of a numpy array's dtype, if it is one the runtime reads.
bool npyDTypeOf(const py::dtype &dtype, NpyDType &out) {
  std::string descr = py::str(dtype.attr("str"));
  for (NpyDType d : {NpyDType::F2, NpyDType::F4, NpyDType::F8, NpyDType::I1,
                     NpyDType::I4, NpyDType::I8, NpyDType::U1, NpyDType::B1})
    if (descr == npyDescr(d)) {
      out = d;
      return true;
    }
  return false;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t d = 0; d < shape.size(); ++d)
    s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + "]";
}

/// One input or output of a model, as Python sees it.
py::dict describe(const TensorInfo &t, const Model &m) {
  py::dict d;
  d["name"] = t.displayName();
  d["shape"] = py::tuple(py::cast(t.shape));
  d["dtype"] = isa::dtypeName(uint8_t(t.dtype));
  d["numpy_dtype"] = numpyName(npyDTypeFor(t.dtype));
  d["aliases_input"] = t.aliasesInput;
  d["updates_buffer"] =
      t.updatesTensor >= 0
          ? py::object(
                py::str(m.tensors()[size_t(t.updatesTensor)].displayName()))
          : py::object(py::none());
  return d;
}

/// A simulator and what the statistics need to name kernels: shared by the
/// models loaded on it and the device tensors made on it, which keep it
/// alive.
struct DeviceState {
  Arch arch = Arch::builtinDefault();
  std::unique_ptr<SimulatorDevice> device;
  /// Held by every use of the device: run() lets other Python threads go
  /// on while it simulates. Never wait for the GIL while holding it.
  std::mutex lock;
  /// Kernel locations of every model loaded on it (the first model to use a
  /// kernel name gives its location).
  KernelLocations locations;
};

class PyDevice {
public:
  PyDevice(const std::string &archPath, bool timingOnly, bool trace)
      : state_(std::make_shared<DeviceState>()) {
    if (!archPath.empty()) {
      std::string error;
      if (!Arch::load(archPath, state_->arch, error))
        throw RuntimeFailure(error);
    }
    SimOptions sim;
    sim.timingOnly = timingOnly;
    sim.trace = trace;
    state_->device = std::make_unique<SimulatorDevice>(state_->arch, sim);
  }

  const std::shared_ptr<DeviceState> &state() const { return state_; }
  bool timingOnly() const { return state_->device->options().timingOnly; }

  std::string statsJson() const {
    std::lock_guard<std::mutex> lock(state_->lock);
    std::ostringstream os;
    writeStatsJson(state_->device->stats(), state_->arch, os,
                   state_->locations);
    return os.str();
  }

  std::string profile() const {
    std::lock_guard<std::mutex> lock(state_->lock);
    std::ostringstream os;
    writeProfile(state_->device->stats(), state_->arch, state_->locations, os);
    return os.str();
  }

  void resetStats() {
    std::lock_guard<std::mutex> lock(state_->lock);
    state_->device->resetStats();
  }

  void writeTrace(const std::string &path) const {
    std::lock_guard<std::mutex> lock(state_->lock);
    if (!state_->device->options().trace)
      throw RuntimeFailure("the device was created without trace=True");
    check(state_->device->writeTrace(path));
  }

private:
  std::shared_ptr<DeviceState> state_;
};

/// A tensor in device memory (DeviceTensor.h) and the device it is on.
class PyDeviceTensor {
public:
  PyDeviceTensor(std::shared_ptr<DeviceState> state,
                 std::shared_ptr<DeviceTensor> tensor)
      : state_(std::move(state)), tensor_(std::move(tensor)) {}
  PyDeviceTensor(const PyDeviceTensor &) = default;
  /// The memory may go with this reference: under the device lock.
  ~PyDeviceTensor() {
    std::lock_guard<std::mutex> lock(state_->lock);
    tensor_.reset();
  }

  const DeviceTensor &tensor() const { return *tensor_; }
  const std::shared_ptr<DeviceTensor> &shared() const { return tensor_; }

  py::dict spec() const {
    const TensorInfo &t = tensor_->info();
    py::dict d;
    d["name"] = t.displayName();
    d["shape"] = py::tuple(py::cast(t.shape));
    d["dtype"] = isa::dtypeName(uint8_t(t.dtype));
    d["numpy_dtype"] = numpyName(npyDTypeFor(t.dtype));
    return d;
  }

  uint64_t address() const { return tensor_->address(); }

  void upload(const py::array &array) {
    HostTensor h =
        toHost(array, tensor_->info(),
               "device tensor '" + tensor_->info().displayName() + "'");
    check(tensor_->upload(h.data.data(), h.data.size()));
  }

  py::array download() const {
    const TensorInfo &t = tensor_->info();
    HostTensor h;
    h.dtype = t.dtype;
    h.shape = t.shape;
    h.data.assign(size_t(hostBytes(t)), 0);
    {
      std::lock_guard<std::mutex> lock(state_->lock);
      check(tensor_->download(h.data.data(), h.data.size()));
    }
    return toNumpy(h);
  }

  /// Checks `array` (C order, native byte order) against `t` (dtype and
  /// shape; messages start with `what`) and converts it.
  static HostTensor toHost(const py::array &a, const TensorInfo &t,
                           const std::string &what) {
    NpyArray npy;
    npy.shape.assign(a.shape(), a.shape() + a.ndim());
    bool known = npyDTypeOf(a.dtype(), npy.dtype);
    NpyDType expected = npyDTypeFor(t.dtype);
    if (!known || npy.dtype != expected || npy.shape != t.shape)
      throw RuntimeFailure(what + ": expected " + numpyName(expected) + " " +
                           shapeText(t.shape) + " (" +
                           describeTensor(t.dtype, t.shape) + "), got " +
                           std::string(py::str(a.dtype())) + " " +
                           shapeText(npy.shape));
    const auto *bytes = static_cast<const uint8_t *>(a.data());
    npy.data.assign(bytes, bytes + a.nbytes());
    HostTensor h;
    std::string error;
    if (!npyToHost(npy, t.dtype, h.data, error))
      throw RuntimeFailure(what + ": " + error);
    h.dtype = t.dtype;
    h.shape = t.shape;
    return h;
  }

  static py::array toNumpy(const HostTensor &h) {
    NpyArray npy = hostToNpy(h.dtype, h.shape, h.data);
    py::array a(py::dtype(npyDescr(npy.dtype)),
                std::vector<py::ssize_t>(npy.shape.begin(), npy.shape.end()));
    if (!npy.data.empty())
      std::memcpy(a.mutable_data(), npy.data.data(), npy.data.size());
    return a;
  }

private:
  std::shared_ptr<DeviceState> state_;
  std::shared_ptr<DeviceTensor> tensor_;
};

/// A model loaded on a device, with one workspace and io buffers (a
/// Session).
class LoadedPyModel {
public:
  LoadedPyModel(const std::string &path, const PyDevice &device, bool verify,
                const std::string &weights)
      : state_(device.state()) {
    std::lock_guard<std::mutex> lock(state_->lock);
    std::unique_ptr<Model> model;
    LoadOptions load;
    load.verifyData = verify;
    load.weightsPath = weights;
    check(Model::open(path, &state_->arch, model, load));
    model_ = std::move(model);
    for (const ProgramInfo &p : model_->programs())
      state_->locations.emplace(p.name, p.location);
    check(Session::create(*state_->device, model_, session_));
  }

  /// The session frees its buffers on the device: under the device lock.
  ~LoadedPyModel() {
    std::lock_guard<std::mutex> lock(state_->lock);
    session_.reset();
  }

  py::list inputs() const { return describeAll(model_->inputs()); }
  py::list outputs() const { return describeAll(model_->outputs()); }
  std::vector<std::string> warnings() const { return model_->warnings(); }

  /// The weights that outputs update (buffers: a KV cache, a counter).
  py::list buffers() const {
    std::vector<uint32_t> updated;
    for (uint32_t o : model_->outputs()) {
      int32_t t = model_->tensors()[o].updatesTensor;
      if (t >= 0)
        updated.push_back(uint32_t(t));
    }
    return describeAll(updated);
  }

  /// A new device tensor in the layout of input (or output) `index`.
  PyDeviceTensor newTensor(bool input, size_t index) const {
    const auto &list = input ? model_->inputs() : model_->outputs();
    if (index >= list.size())
      throw RuntimeFailure(
          std::string(input ? "input " : "output ") + std::to_string(index) +
          " out of range (the model has " + std::to_string(list.size()) + ")");
    std::lock_guard<std::mutex> lock(state_->lock);
    std::shared_ptr<DeviceTensor> t;
    check(DeviceTensor::create(*state_->device, model_->tensors()[list[index]],
                               t));
    return PyDeviceTensor(state_, std::move(t));
  }

  PyDeviceTensor weight(const std::string &name) const {
    std::lock_guard<std::mutex> lock(state_->lock);
    uint32_t t;
    check(session_->loaded().findWeight(name, t));
    return PyDeviceTensor(state_, session_->loaded().weight(t));
  }

  void bindWeight(const std::string &name, const PyDeviceTensor &tensor) {
    std::lock_guard<std::mutex> lock(state_->lock);
    uint32_t t;
    check(session_->loaded().findWeight(name, t));
    check(session_->loaded().bindWeight(t, tensor.shared()));
  }

  /// Runs once. `inputs` in input order, each a numpy array (C order,
  /// native byte order: the Python layer made it so), copied into the
  /// session's buffer, or a device tensor, used in place. `outputs` in
  /// output order: a device tensor receives that output in place, None
  /// returns it as a numpy array (None in timing-only mode). With no inputs
  /// in timing-only mode, it launches on the session's buffers.
  py::list run(const py::list &inputs, const py::list &outputs, bool checked,
               const std::string &referenceDir) {
    const Model &m = *model_;
    size_t numIn = m.inputs().size(), numOut = m.outputs().size();
    bool noData = inputs.empty() && timingOnly();
    if (!noData && inputs.size() != numIn)
      throw RuntimeFailure("the model takes " + std::to_string(numIn) +
                           " input(s), got " + std::to_string(inputs.size()));
    if (outputs.size() != numOut)
      throw RuntimeFailure("the model has " + std::to_string(numOut) +
                           " output(s), got " + std::to_string(outputs.size()) +
                           " in outputs=");
    std::vector<DeviceAddr> in = session_->inputBuffers();
    std::vector<DeviceAddr> out = session_->outputBuffers();
    std::vector<HostTensor> hostInputs(noData ? 0 : numIn);
    for (size_t i = 0; i < hostInputs.size(); ++i)
      bindIo(inputs[i], m.inputs()[i], "input " + std::to_string(i), in[i],
             &hostInputs[i]);
    std::vector<bool> onDevice(numOut, false);
    std::vector<HostTensor> hostOutputs(numOut);
    for (size_t o = 0; o < numOut; ++o)
      onDevice[o] = bindIo(outputs[o], m.outputs()[o],
                           "output " + std::to_string(o), out[o], nullptr);
    {
      py::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> lock(state_->lock);
      for (size_t i = 0; i < hostInputs.size(); ++i)
        if (!hostInputs[i].data.empty())
          check(copyToDevice(*state_->device, m.tensors()[m.inputs()[i]],
                             hostInputs[i].data.data(),
                             hostInputs[i].data.size(), in[i]));
      if (checked)
        runChecked(in, out, referenceDir);
      else
        check(session_->loaded().launch(session_->workspace(), in.data(),
                                        in.size(), out.data(), out.size()));
      // Read back under the same lock: another run of this model would
      // overwrite the session's output buffers.
      for (size_t o = 0; o < numOut; ++o) {
        if (onDevice[o] || timingOnly())
          continue;
        const TensorInfo &t = m.tensors()[m.outputs()[o]];
        hostOutputs[o].dtype = t.dtype;
        hostOutputs[o].shape = t.shape;
        hostOutputs[o].data.assign(size_t(hostBytes(t)), 0);
        check(copyFromDevice(*state_->device, t, out[o],
                             hostOutputs[o].data.data(),
                             hostOutputs[o].data.size()));
      }
    }
    py::list result;
    for (size_t o = 0; o < numOut; ++o) {
      if (onDevice[o])
        result.append(outputs[o]);
      else if (timingOnly())
        result.append(py::none());
      else
        result.append(PyDeviceTensor::toNumpy(hostOutputs[o]));
    }
    return result;
  }

  /// The report of the last run(check=True).
  std::string checkReport() const { return checkReport_; }

private:
  bool timingOnly() const { return state_->device->options().timingOnly; }

  /// The launch of run(check=True): every kernel against its reference
  /// (spyre/Runtime/Check.h); throws CheckFailure on a divergence.
  void runChecked(const std::vector<DeviceAddr> &in,
                  const std::vector<DeviceAddr> &out,
                  const std::string &referenceDir) {
    if (timingOnly())
      throw RuntimeFailure("check=True needs data: the device is "
                           "timing-only");
    std::map<std::string, NodeReference> nodes;
    if (!referenceDir.empty())
      check(readNodeReferences(referenceDir, nodes));
    CheckReport report;
    check(checkLaunch(session_->loaded(), session_->workspace(), in.data(),
                      in.size(), out.data(), out.size(), nodes, report));
    checkReport_ = report.text();
    if (report.firstDivergent >= 0 || !report.firstDivergentNode.empty())
      throw CheckFailure(checkReport_);
  }

  std::string checkReport_;

  /// Binds one io value: a device tensor (checked, its address in `addr`;
  /// returns true), None for an output (false), else a numpy array for an
  /// input (checked and converted into `*host`; false).
  bool bindIo(const py::handle &value, uint32_t tensor, const std::string &slot,
              DeviceAddr &addr, HostTensor *host) const {
    const TensorInfo &t = model_->tensors()[tensor];
    std::string what = slot + " ('" + t.displayName() + "')";
    if (py::isinstance<PyDeviceTensor>(value)) {
      const DeviceTensor &d = value.cast<const PyDeviceTensor &>().tensor();
      if (&d.device() != state_->device.get())
        throw RuntimeFailure("the device tensor for " + what +
                             " is on another device");
      check(d.checkFits(t, what));
      addr = d.address();
      return true;
    }
    if (value.is_none() && !host)
      return false;
    if (!host)
      throw RuntimeFailure(what + ": outputs= takes device tensors or None");
    *host = PyDeviceTensor::toHost(py::array::ensure(value), t, what);
    return false;
  }

  py::list describeAll(const std::vector<uint32_t> &tensors) const {
    py::list out;
    for (uint32_t t : tensors)
      out.append(describe(model_->tensors()[t], *model_));
    return out;
  }

  // Declared first: the device outlives the session's buffers.
  std::shared_ptr<DeviceState> state_;
  std::shared_ptr<const Model> model_;
  std::unique_ptr<Session> session_;
};

} // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "The spyre runtime (use the `spyre` package, not this module).";
  auto error =
      py::register_exception<RuntimeFailure>(m, "Error", PyExc_RuntimeError);
  py::register_exception<CheckFailure>(m, "CheckError", error);
  m.attr("runtime_version") = SPYRE_VERSION_STRING;

  py::class_<PyDevice>(m, "Device")
      .def(py::init<const std::string &, bool, bool>(), py::arg("arch"),
           py::arg("timing_only"), py::arg("trace"))
      .def_property_readonly("timing_only", &PyDevice::timingOnly)
      .def("stats_json", &PyDevice::statsJson)
      .def("profile", &PyDevice::profile)
      .def("reset_stats", &PyDevice::resetStats)
      .def("write_trace", &PyDevice::writeTrace, py::arg("path"));

  py::class_<PyDeviceTensor>(m, "DeviceTensor")
      .def("spec", &PyDeviceTensor::spec)
      .def_property_readonly("address", &PyDeviceTensor::address)
      .def("upload", &PyDeviceTensor::upload, py::arg("array"))
      .def("download", &PyDeviceTensor::download);

  py::class_<LoadedPyModel>(m, "LoadedModel")
      .def(py::init<const std::string &, const PyDevice &, bool,
                    const std::string &>(),
           py::arg("path"), py::arg("device"), py::arg("verify"),
           py::arg("weights"))
      .def("inputs", &LoadedPyModel::inputs)
      .def("outputs", &LoadedPyModel::outputs)
      .def("buffers", &LoadedPyModel::buffers)
      .def("warnings", &LoadedPyModel::warnings)
      .def("new_tensor", &LoadedPyModel::newTensor, py::arg("input"),
           py::arg("index"))
      .def("weight", &LoadedPyModel::weight, py::arg("name"))
      .def("bind_weight", &LoadedPyModel::bindWeight, py::arg("name"),
           py::arg("tensor"))
      .def("run", &LoadedPyModel::run, py::arg("inputs"), py::arg("outputs"),
           py::arg("check") = false, py::arg("reference") = "")
      .def("check_report", &LoadedPyModel::checkReport);
}
