"""spyre: compile PyTorch programs for IBM Spyre and run them on the simulator.

    import spyre
    path = spyre.compile("model.pt2")              # -> "model.spy"
    m = spyre.load(path)
    outs = m.run(x=array)                          # or m.run(array)
    m.inputs, m.outputs                            # names, shapes, dtypes
    m.stats["total_ns"]; print(m.profile())

Device tensors stay on the device between runs and models:

    dev = spyre.Device()
    prefill, decode = spyre.load("p.spy", device=dev), spyre.load("d.spy", device=dev)
    decode.bind_weight("cache", prefill.weight("cache"))   # one KV cache
    x = prefill.new_input("x"); x.upload(array)
    y = prefill.new_output(0)
    prefill.run(x, outputs=[y]); y.download()

docs/python.md has the whole interface. Errors raise `spyre.Error` (a
RuntimeError) carrying the runtime's message; a failed compile raises
`spyre.CompileError` with the compiler's diagnostics.
"""

import json
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._compiler import CompileError, compile

#: Every failure of the runtime, with its message (CompileError is one too).
Error = _native.Error
CheckError = _native.CheckError
__version__ = _native.runtime_version

__all__ = ["compile", "load", "Device", "DeviceTensor", "Model", "TensorSpec",
           "Error", "CompileError", "CheckError"]


class TensorSpec(NamedTuple):
    """An input, output, buffer or device tensor of a compiled model."""

    name: str
    shape: Tuple[int, ...]
    #: The model's element type: "f16", "bf16", "f32", "i8", "i32", "i64",
    #: "bool".
    dtype: str
    #: The numpy dtype of the arrays that carry it (bf16 travels as float32).
    numpy_dtype: np.dtype
    #: For an output holding the new contents of a mutated input: that
    #: input's index (run() also writes it into the caller's array), else -1.
    aliases_input: int = -1
    #: For an output holding the new contents of a mutated buffer: the
    #: buffer's name (the loaded model keeps the state), else None.
    updates_buffer: Optional[str] = None


def _spec(d: dict) -> TensorSpec:
    return TensorSpec(d["name"], tuple(d["shape"]), d["dtype"],
                      np.dtype(d["numpy_dtype"]), d.get("aliases_input", -1),
                      d.get("updates_buffer"))


class Device:
    """A simulated Spyre device. Models loaded on one device share its
    memory (device tensors, bound weights) and its statistics."""

    def __init__(self, arch: Optional[str] = None, timing_only: bool = False,
                 trace: bool = False):
        """arch: machine description JSON (default: the built-in one).
        timing_only: simulate time, compute no data. trace: record a Chrome
        trace (write_trace)."""
        self._native = _native.Device(str(arch or ""), timing_only, trace)

    @property
    def timing_only(self) -> bool:
        return self._native.timing_only

    @property
    def stats(self) -> Dict:
        """Simulated time, per-kernel figures, bytes and the roofline of
        every run since creation (or reset_stats()): the JSON of
        `spyre-run --stats` as a dict."""
        return json.loads(self._native.stats_json())

    def reset_stats(self) -> None:
        self._native.reset_stats()

    def profile(self) -> str:
        """Where the simulated time went, as `spyre-run --profile` prints it."""
        return self._native.profile()

    def write_trace(self, path) -> None:
        """Writes a Chrome trace (create with trace=True)."""
        self._native.write_trace(str(path))


class DeviceTensor:
    """A tensor in device memory, in the layout of a model's input, output or
    weight (Model.new_input, new_output, weight). Passed to run() it is used
    in place, without copies."""

    def __init__(self, native):
        self._native = native
        #: Name (the tensor it was made for), shape and dtypes.
        self.spec: TensorSpec = _spec(native.spec())

    def __repr__(self) -> str:
        return f"<spyre.DeviceTensor {self.spec.name}: {self.spec.dtype}{list(self.spec.shape)}>"

    def upload(self, array) -> "DeviceTensor":
        """Writes `array` (its spec's shape and numpy dtype) to the device."""
        self._native.upload(_native_array(array))
        return self

    def download(self) -> np.ndarray:
        """Reads the tensor back."""
        return self._native.download()


def _native_array(value) -> np.ndarray:
    """`value` as the runtime reads it: C order, native byte order."""
    a = np.ascontiguousarray(value)
    return a if a.dtype.isnative else a.astype(a.dtype.newbyteorder("="))


class Model:
    """A compiled model loaded on a device (spyre.load)."""

    def __init__(self, path, device: Device, verify: bool = True,
                 weights: Optional[str] = None):
        self.path = str(path)
        self.device = device
        self._native = _native.LoadedModel(self.path, device._native, verify,
                                           "" if weights is None else str(weights))
        #: The inputs, in order.
        self.inputs: List[TensorSpec] = [_spec(d) for d in self._native.inputs()]
        #: The outputs, in order (those of mutations included).
        self.outputs: List[TensorSpec] = [_spec(d) for d in self._native.outputs()]
        #: The buffers the model updates (a KV cache, a counter): their
        #: state stays in the loaded model between runs.
        self.buffers: List[TensorSpec] = [_spec(d) for d in self._native.buffers()]
        #: What validation found but did not refuse (a newer minor format).
        self.warnings: List[str] = list(self._native.warnings())

    def __repr__(self) -> str:
        def show(specs):
            return ", ".join(f"{s.name}: {s.dtype}{list(s.shape)}" for s in specs)

        return f"<spyre.Model {self.path!r} ({show(self.inputs)}) -> ({show(self.outputs)})>"

    @property
    def timing_only(self) -> bool:
        return self.device.timing_only

    def _index(self, specs: List[TensorSpec], key: Union[int, str], what: str) -> int:
        if isinstance(key, str):
            names = [s.name for s in specs]
            if key not in names:
                raise Error(f"the model has no {what} '{key}' (its {what}s: {', '.join(names)})")
            return names.index(key)
        return int(key)

    def new_input(self, key: Union[int, str]) -> DeviceTensor:
        """A device tensor in the layout of input `key` (index or name)."""
        return DeviceTensor(self._native.new_tensor(True, self._index(self.inputs, key, "input")))

    def new_output(self, key: Union[int, str]) -> DeviceTensor:
        """A device tensor in the layout of output `key` (index or name)."""
        return DeviceTensor(self._native.new_tensor(False, self._index(self.outputs, key, "output")))

    def weight(self, name: str) -> DeviceTensor:
        """The device memory of weight or buffer `name` (its FQN), not a copy."""
        return DeviceTensor(self._native.weight(name))

    def bind_weight(self, name: str, tensor: DeviceTensor) -> None:
        """From now on the model reads and updates weight or buffer `name`
        in `tensor`, as it is (same device, type and layout): bind one
        model's buffer into another and both share it."""
        self._native.bind_weight(name, tensor._native)

    def _bind(self, args, kwargs) -> list:
        """run()'s arguments in input order: positional ones first, then by
        (exported) name."""
        n = len(self.inputs)
        names = [s.name for s in self.inputs]
        if len(args) > n:
            raise Error(
                f"the model takes {n} input(s) ({', '.join(names)}), got {len(args)} positional"
            )
        bound: List[Optional[object]] = list(args) + [None] * (n - len(args))
        for name, value in kwargs.items():
            if name not in names:
                raise Error(
                    f"the model has no input '{name}' (its inputs: {', '.join(names)})"
                )
            i = names.index(name)
            if bound[i] is not None:
                raise Error(f"input {i} ('{name}') is given twice")
            bound[i] = value
        missing = [f"{i} ('{names[i]}')" for i in range(n) if bound[i] is None]
        if missing:
            raise Error(f"no value for input {', '.join(missing)}")
        return bound

    def run(self, *args, outputs: Optional[Sequence[Optional[DeviceTensor]]] = None,
            check: bool = False, reference=None, **kwargs) -> Optional[list]:
        """Runs the model once and returns its outputs in output order.

        Inputs, positional in input order or by exported name: numpy arrays
        (or anything np.asarray takes) of the input's shape and numpy dtype
        exactly (no silent casts), copied in; or DeviceTensors, used in
        place. outputs=: per output a DeviceTensor to receive it in place
        (returned as is) or None (returned as a numpy array). An output that
        holds the new contents of a mutated input is also written into the
        caller's array or device tensor, as PyTorch would have changed it.
        On a timing-only device the inputs are optional and numpy outputs
        are None; with no inputs run() returns None.

        check=True runs kernel by kernel and compares each with a host
        reference of its compute ops (spyre-run --check): a divergence
        raises spyre.CheckError naming the first kernel that diverges, its
        ops and their source lines; reference= a directory of PyTorch's node
        values (tools/export --intermediates) names the first node that
        differs too. check_report holds the last report."""
        out_list = list(outputs) if outputs is not None else [None] * len(self.outputs)
        if self.timing_only and not args and not kwargs:
            self._native.run([], out_list)
            return None
        given = self._bind(args, kwargs)
        native_in = [v._native if isinstance(v, DeviceTensor) else _native_array(v)
                     for v in given]
        native_out = [t._native if isinstance(t, DeviceTensor) else t for t in out_list]
        results = self._native.run(native_in, native_out, check,
                                   str(reference) if reference is not None else "")
        outs = [out_list[i] if isinstance(out_list[i], DeviceTensor) else r
                for i, r in enumerate(results)]
        for spec, out in zip(self.outputs, outs):
            target = given[spec.aliases_input] if spec.aliases_input >= 0 else None
            if isinstance(target, np.ndarray) and target.flags.writeable and out is not None:
                np.copyto(target, out, casting="same_kind")
        return outs

    @property
    def check_report(self) -> str:
        """The report of the last run(check=True) ("" before any)."""
        return self._native.check_report()

    @property
    def stats(self) -> Dict:
        """The device's statistics (Device.stats): every run since load on
        a device of its own."""
        return self.device.stats

    def reset_stats(self) -> None:
        self.device.reset_stats()

    def profile(self) -> str:
        """Where the simulated time went, as `spyre-run --profile` prints it."""
        return self.device.profile()

    def write_trace(self, path) -> None:
        """Writes a Chrome trace (load with trace=True)."""
        self.device.write_trace(path)


def load(path, arch: Optional[str] = None, timing_only: bool = False,
         trace: bool = False, verify: bool = True,
         device: Optional[Device] = None,
         weights: Optional[str] = None) -> Model:
    """Loads and validates a .spy model, on `device` or on a new simulator
    made with arch, timing_only and trace (see Device).

    The model must have been compiled for the device's machine description.
    verify=False skips the per-segment content hashes (spyre-run
    --no-verify). weights names the model's weights file when it is not
    where the .spy says (spyre-run --weights)."""
    if device is None:
        device = Device(arch, timing_only, trace)
    elif arch is not None or timing_only or trace:
        raise Error("arch, timing_only and trace describe a new device; "
                    "with device= they are the device's")
    return Model(path, device, verify, weights)
