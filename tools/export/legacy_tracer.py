"""torch < 2.9 path: trace with make_fx and emit what torch 2.9 would.

torch 2.9's ``torch.export.export`` (non-strict, the default) traces with
``make_fx(pre_dispatch=True, record_module_stack=True)`` above autograd, so
CompositeImplicitAutograd (CIA) ops such as ``aten.linear`` and
``aten.matmul`` stay in the graph.  torch 1.13's ``make_fx`` traces below
autograd, where those ops are already decomposed (``linear`` -> ``t`` +
``addmm``).  To get the torch 2.9 op set we intercept the CIA ops at the
Python API level (a ``TorchFunctionMode``) and route them through opaque
library ops (``spyre_keep::linear`` ...) that ``make_fx`` records as single
nodes; afterwards they are renamed back to their aten names.  Every other op
is recorded by ``make_fx`` as the ATen op torch 2.9 records too.

The same ``TorchFunctionMode`` captures the node metadata torch 2.9 records:
``stack_trace`` (``forward`` frames only, like ``_ModuleStackTracer``),
``nn_module_stack`` (via global module hooks) and ``torch_fn``.
"""

import contextlib
import inspect
import os
import traceback
from typing import Any, Dict, List, Optional, Tuple

import torch
import torch.nn.functional as F
from torch.fx.experimental import proxy_tensor
from torch.fx.experimental.proxy_tensor import make_fx
from torch.overrides import TorchFunctionMode
from torch.utils import _pytree as pytree

from pt2_format import (ARGUMENT_KIND_KEYWORD, ARGUMENT_KIND_POSITIONAL,
                        LAYOUT, MEMORY_FORMAT, SCHEMA_VERSION,
                        TORCH_DTYPE_TO_SCALAR_TYPE, json_float, sym_int,
                        tensor_meta, treespec_dumps, treespec_of)

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))

# ----------------------------------------------------------------------------
# CIA ops that torch 2.9 export keeps, routed through opaque library ops
# ----------------------------------------------------------------------------

_KEEP_NS = "spyre_keep"
_KEEP_LIB = None
# keep-op name -> (aten target string, aten OpOverload for the schema)
KEPT_CIA_OPS = {
    "linear": ("torch.ops.aten.linear.default", torch.ops.aten.linear.default),
    "matmul": ("torch.ops.aten.matmul.default", torch.ops.aten.matmul.default),
}


def _keep_lib():
    global _KEEP_LIB
    if _KEEP_LIB is None:
        lib = torch.library.Library(_KEEP_NS, "DEF")
        lib.define("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor")
        lib.define("matmul(Tensor self, Tensor other) -> Tensor")

        def _linear(input, weight, bias=None):
            return F.linear(input, weight, bias)

        def _matmul(a, b):
            return torch.matmul(a, b)

        for key in ("CPU", "Meta"):
            lib.impl("linear", _linear, key)
            lib.impl("matmul", _matmul, key)
        _KEEP_LIB = lib
    return _KEEP_LIB


# ----------------------------------------------------------------------------
# Metadata capture
# ----------------------------------------------------------------------------

_CURRENT_META: Optional[Dict[str, Any]] = None


def _display_path(filename: str) -> str:
    """Repo files relative to the repo root, torch files as torch/...; keeps
    archives byte-identical across checkouts."""
    f = os.path.abspath(filename)
    if f.startswith(TORCH_DIR + os.sep):
        return "torch/" + os.path.relpath(f, TORCH_DIR).replace(os.sep, "/")
    if f.startswith(REPO_ROOT + os.sep):
        return os.path.relpath(f, REPO_ROOT).replace(os.sep, "/")
    return os.path.basename(f)


# tracing machinery that has functions named "forward" (torch 2.9 drops these
# through symbolic_shapes.uninteresting_files() / its own tracer layout)
_INTERNAL_PREFIXES = ("torch/fx/", "torch/_", "torch/nn/utils/", "torch/utils/",
                      "torch/nn/modules/module.py", "torch/overrides.py")


def _forward_stack_trace() -> Optional[str]:
    """Like TracerBase._filter_traceback_frames(_record_forward_stack_traces_only):
    keep frames named 'forward', outermost first, formatted by
    StackSummary.format() and stripped."""
    frames = [fs for fs in traceback.extract_stack()[:-1]
              if fs.name == "forward"
              and not _display_path(fs.filename).startswith(_INTERNAL_PREFIXES)]
    if not frames:
        return None
    summary = traceback.StackSummary.from_list(
        [(_display_path(fs.filename), fs.lineno, fs.name, fs.line) for fs in frames])
    return "".join(summary.format()).strip()


class _ModuleStack:
    """nn_module_stack as torch 2.9 non-strict export records it:
    {"L__self__": ("", "<root type>"), "L__self__<fqn>": ("<fqn>", "<type>")}
    (keys from torch/export/_trace.py _fixup_key; '@<n>' for the n-th repeated
    call of the same submodule)."""

    def __init__(self, root: torch.nn.Module):
        self.names = {}
        self.types = {}
        # record types now: stateless.functional_call swaps module classes
        for name, m in _named_modules(root):
            self.names.setdefault(id(m), name)
            self.types.setdefault(id(m), self._type_str(m))
        self.stack: List[Tuple[str, Tuple[str, str]]] = []
        self.calls: Dict[str, int] = {}

    @staticmethod
    def _type_str(m) -> str:
        t = type(m)
        return f"{t.__module__}.{t.__qualname__}"

    def pre(self, module, _inputs):
        fqn = self.names.get(id(module))
        if fqn is None:
            self.stack.append(None)
            return
        n = self.calls.get(fqn, 0)
        self.calls[fqn] = n + 1
        key = "L__self__" + (f"{fqn}@{n}" if n > 0 else fqn)
        self.stack.append((key, (fqn, self.types[id(module)])))

    def post(self, _module, _inputs, _output):
        self.stack.pop()

    def snapshot(self) -> Dict[str, Tuple[str, str]]:
        return {k: v for k, v in (e for e in self.stack if e is not None)}


class _CaptureMode(TorchFunctionMode):
    """Routes kept CIA ops to the keep library and records per-call metadata
    that the patched tracer attaches to every node created during the call."""

    def __init__(self, module_stack: _ModuleStack):
        super().__init__()
        self.module_stack = module_stack
        self.fn_counts: Dict[Any, int] = {}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        global _CURRENT_META
        kwargs = kwargs or {}
        count = self.fn_counts.get(func, 0) + 1
        self.fn_counts[func] = count
        name = getattr(func, "__name__", str(func))
        meta = {
            "stack_trace": _forward_stack_trace(),
            "nn_module_stack": self.module_stack.snapshot(),
            "torch_fn": (f"{name}_{count}", f"{type(func).__name__}.{name}"),
        }
        prev = _CURRENT_META
        _CURRENT_META = meta
        try:
            if func is F.linear or func is torch._C._nn.linear:
                return getattr(torch.ops, _KEEP_NS).linear(*args, **kwargs)
            if func in (torch.matmul, torch.Tensor.matmul, torch.Tensor.__matmul__):
                return getattr(torch.ops, _KEEP_NS).matmul(*args, **kwargs)
            return func(*args, **kwargs)
        finally:
            _CURRENT_META = prev


@contextlib.contextmanager
def _patched_tracer():
    orig = proxy_tensor.PythonKeyTracer.create_node

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = orig(self, kind, target, args, kwargs, name, type_expr)
        if kind == "call_function" and _CURRENT_META is not None:
            node.meta["spyre_meta"] = _CURRENT_META
        return node

    proxy_tensor.PythonKeyTracer.create_node = create_node
    try:
        yield
    finally:
        proxy_tensor.PythonKeyTracer.create_node = orig


# ----------------------------------------------------------------------------
# Tracing
# ----------------------------------------------------------------------------


def _named_modules(module):
    return list(module.named_modules(remove_duplicate=False))


def _forward_arg_names(module, n_args: int) -> List[str]:
    sig = inspect.signature(module.forward)
    names = []
    params = list(sig.parameters.values())
    for i in range(n_args):
        p = params[min(i, len(params) - 1)]
        if p.kind == inspect.Parameter.VAR_POSITIONAL:
            names.append(f"{p.name}_{i - params.index(p)}")
        else:
            names.append(p.name)
    return names


def _placeholder_name(prefix: str, fqn: str) -> str:
    # torch/_export/utils.py placeholder_naming_pass: "p_" / "b_" / "c_" + fqn
    # with non-identifier characters replaced by '_'
    import re
    return prefix + re.sub(r"[^a-zA-Z0-9_]", "_", fqn)


def trace(module: torch.nn.Module, args: Tuple[torch.Tensor, ...]):
    """Traces `module(*args)`; returns the fx GraphModule plus bookkeeping."""
    _keep_lib()
    try:
        params = list(module.named_parameters(remove_duplicate=False))
    except TypeError:  # torch < 2.0
        params = list(module.named_parameters())
    # named_buffers() order; persistent ones go to the weights, the others to
    # the constants (torch/export/_trace.py _move_non_persistent_buffers_to_tensor_constants)
    buffers = []
    seen = set()
    for mname, m in _named_modules(module):
        for bname, b in m._buffers.items():
            if b is None or id(b) in seen:
                continue
            seen.add(id(b))
            fqn = f"{mname}.{bname}" if mname else bname
            buffers.append((fqn, b, bname not in m._non_persistent_buffers_set))
    state = params + [(fqn, b) for fqn, b, _ in buffers]
    n_state = len(state)
    out_structure = {}
    mstack = _ModuleStack(module)

    def fn(*flat):
        from torch.nn.utils import stateless
        p = {k: v for (k, _), v in zip(state, flat[:n_state])}
        with _CaptureMode(mstack):
            out = stateless.functional_call(module, p, tuple(flat[n_state:]))
        leaves, spec = pytree.tree_flatten(out)
        out_structure["value"] = out
        return tuple(leaves)

    hooks = [
        torch.nn.modules.module.register_module_forward_pre_hook(mstack.pre),
        torch.nn.modules.module.register_module_forward_hook(mstack.post),
    ]
    try:
        with _patched_tracer():
            gm = make_fx(fn, tracing_mode="fake")(*[t for _, t in state], *args)
    finally:
        for h in hooks:
            h.remove()

    return gm, params, buffers, out_structure["value"]


# ----------------------------------------------------------------------------
# Graph -> schema 8.x JSON
# ----------------------------------------------------------------------------


def _dtype_code(dtype: torch.dtype) -> int:
    return TORCH_DTYPE_TO_SCALAR_TYPE[str(dtype).replace("torch.", "")]


def _meta_of(val, requires_grad: bool) -> Dict[str, Any]:
    dev = val.device
    return tensor_meta(_dtype_code(val.dtype), list(val.shape), list(val.stride()),
                       int(val.storage_offset()), requires_grad,
                       (dev.type, dev.index), LAYOUT["Strided"])


class _ArgSerializer:
    """GraphModuleSerializer.serialize_input, for the argument kinds an
    aten-level graph of this zoo can carry."""

    def __init__(self, names: Dict[Any, str]):
        self.names = names

    def __call__(self, arg, arg_type=None):
        if isinstance(arg, torch.fx.Node):
            return {"as_tensor": {"name": self.names[arg]}}
        if type(arg) is bool:
            return {"as_bool": arg}
        if type(arg) is str:
            return {"as_string": arg}
        if type(arg) is int:
            return {"as_int": arg}
        if type(arg) is float:
            return {"as_float": json_float(arg)}
        if type(arg) is complex:
            return {"as_complex": {"real": arg.real, "imag": arg.imag}}
        if arg is None:
            return {"as_none": True}
        if isinstance(arg, (list, tuple)):
            if len(arg) == 0:
                t = str(arg_type) if arg_type is not None else ""
                for key, tag in (("bool", "as_bools"), ("int", "as_ints"),
                                 ("SymInt", "as_ints"), ("float", "as_floats"),
                                 ("str", "as_strings"), ("Tensor", "as_tensors")):
                    if key in t:
                        return {tag: []}
                return {"as_tensors": []}
            if all(type(a) is bool for a in arg):
                return {"as_bools": list(arg)}
            if all(type(a) is int for a in arg):
                return {"as_ints": list(arg)}
            if all(type(a) is float for a in arg):
                return {"as_floats": [json_float(a) for a in arg]}
            if all(type(a) is str for a in arg):
                return {"as_strings": list(arg)}
            if all(isinstance(a, torch.fx.Node) for a in arg):
                return {"as_tensors": [{"name": self.names[a]} for a in arg]}
            if all(isinstance(a, torch.fx.Node) or a is None for a in arg):
                return {"as_optional_tensors": [
                    {"as_none": True} if a is None else {"as_tensor": {"name": self.names[a]}}
                    for a in arg]}
            raise NotImplementedError(f"list argument {arg!r}")
        if isinstance(arg, torch.dtype):
            return {"as_scalar_type": _dtype_code(arg)}
        if isinstance(arg, torch.device):
            return {"as_device": {"type": arg.type, "index": arg.index}}
        if isinstance(arg, torch.memory_format):
            m = {torch.contiguous_format: "ContiguousFormat",
                 torch.channels_last: "ChannelsLast",
                 torch.channels_last_3d: "ChannelsLast3d",
                 torch.preserve_format: "PreserveFormat"}[arg]
            return {"as_memory_format": MEMORY_FORMAT[m]}
        if isinstance(arg, torch.layout):
            return {"as_layout": LAYOUT["Strided"] if arg == torch.strided else LAYOUT["Unknown"]}
        raise NotImplementedError(f"argument of type {type(arg)}")


def _target_and_schema(node) -> Tuple[str, Any]:
    t = node.target
    if isinstance(t, torch._ops.OpOverload):
        ns = t.namespace if hasattr(t, "namespace") else t._schema.name.split("::")[0]
        packet = t._schema.name.split("::")[1]
        if ns == _KEEP_NS:
            target, aten_op = KEPT_CIA_OPS[packet]
            return target, aten_op._schema
        overload = t._overloadname
        return f"torch.ops.{ns}.{packet}.{overload}", t._schema
    raise NotImplementedError(f"call_function target {t!r}")


def _serialize_metadata(meta: Optional[Dict[str, Any]]) -> Dict[str, str]:
    """GraphModuleSerializer.serialize_metadata."""
    ret: Dict[str, str] = {}
    if not meta:
        return ret
    if meta.get("stack_trace"):
        ret["stack_trace"] = meta["stack_trace"]
    if meta.get("nn_module_stack"):
        ret["nn_module_stack"] = ";".join(
            f"{k},{path},{ty}" for k, (path, ty) in meta["nn_module_stack"].items())
    if meta.get("torch_fn"):
        ret["torch_fn"] = ";".join(meta["torch_fn"])
    return ret


def export_program(module: torch.nn.Module, args: Tuple[torch.Tensor, ...]):
    """Returns (exported_program_json_dict, state list, constants list, notes).

    state: [(fqn, tensor, is_param)] in torch.export state_dict order.
    """
    gm, params, buffers, out_value = trace(module, args)
    normalizations: List[str] = []

    # Dead-code: torch 2.9 export DCEs unused detach nodes etc.
    removed = []
    for node in reversed(list(gm.graph.nodes)):
        if node.op == "call_function" and not node.users:
            removed.append(str(node.target))
            gm.graph.erase_node(node)
    if removed:
        normalizations.append(f"removed dead nodes: {sorted(set(removed))}")

    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    n_params, n_bufs = len(params), len(buffers)
    user_names = _forward_arg_names(module, len(args))
    names: Dict[Any, str] = {}
    input_specs = []
    graph_inputs = []
    requires_grad: Dict[Any, bool] = {}
    for i, ph in enumerate(placeholders):
        if i < n_params:
            fqn, p = params[i]
            names[ph] = _placeholder_name("p_", fqn)
            input_specs.append({"parameter": {"arg": {"name": names[ph]},
                                              "parameter_name": fqn}})
            requires_grad[ph] = bool(p.requires_grad)
        elif i < n_params + n_bufs:
            fqn, b, is_persistent = buffers[i - n_params]
            names[ph] = _placeholder_name("b_", fqn)
            input_specs.append({"buffer": {"arg": {"name": names[ph]},
                                           "buffer_name": fqn,
                                           "persistent": is_persistent}})
            requires_grad[ph] = bool(b.requires_grad)
        else:
            names[ph] = user_names[i - n_params - n_bufs]
            input_specs.append({"user_input": {"arg": {"as_tensor": {"name": names[ph]}}}})
            requires_grad[ph] = bool(args[i - n_params - n_bufs].requires_grad)
    normalizations.append("placeholders renamed per torch.export placeholder_naming_pass "
                          "(p_<fqn>, b_<fqn>, forward() argument names)")

    # Node names: keep make_fx names (same scheme as torch 2.9: op name + _<n>)
    used = set(names.values())
    for node in gm.graph.nodes:
        if node.op == "call_function":
            nm = node.name
            base, k = nm, 1
            while nm in used:
                nm = f"{base}_{k}"
                k += 1
            names[node] = nm
            used.add(nm)

    tensor_values: Dict[str, Any] = {}
    for ph in placeholders:
        tensor_values[names[ph]] = _meta_of(ph.meta["val"], requires_grad[ph])
        graph_inputs.append({"as_tensor": {"name": names[ph]}})

    ser = _ArgSerializer(names)
    nodes_json = []
    kept = set()
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        target, schema = _target_and_schema(node)
        if str(node.target).startswith(_KEEP_NS):
            kept.add(target)
        inputs = []
        kwargs = dict(node.kwargs)
        for i, a in enumerate(schema.arguments):
            if a.name in kwargs:
                inputs.append({"name": a.name, "arg": ser(kwargs[a.name], a.type),
                               "kind": ARGUMENT_KIND_KEYWORD})
            elif not a.kwarg_only and i < len(node.args):
                inputs.append({"name": a.name, "arg": ser(node.args[i], a.type),
                               "kind": ARGUMENT_KIND_POSITIONAL})
        rg = any(requires_grad.get(a, False)
                 for a in node.all_input_nodes)
        requires_grad[node] = rg
        val = node.meta["val"]
        if not isinstance(val, torch.Tensor):
            raise NotImplementedError(f"non-tensor output of {target}")
        tensor_values[names[node]] = _meta_of(val, rg)
        nodes_json.append({
            "target": target,
            "inputs": inputs,
            "outputs": [{"as_tensor": {"name": names[node]}}],
            "metadata": _serialize_metadata(node.meta.get("spyre_meta")),
            "is_hop_single_tensor_return": None,
        })
    if kept:
        normalizations.append(
            "CompositeImplicitAutograd ops kept as single nodes like torch>=2.9 pre-dispatch "
            f"export (make_fx in torch {torch.__version__} would decompose them): {sorted(kept)}")

    out_node = next(n for n in gm.graph.nodes if n.op == "output")
    out_args = out_node.args[0]
    graph_outputs = []
    output_specs = []
    for a in out_args:
        if not isinstance(a, torch.fx.Node):
            raise NotImplementedError("non-tensor graph output")
        arg = {"as_tensor": {"name": names[a]}}
        graph_outputs.append(arg)
        output_specs.append({"user_output": {"arg": {"as_tensor": {"name": names[a]}}}})

    def is_tensor_leaf(x):
        return isinstance(x, torch.Tensor)

    in_spec = treespec_dumps(treespec_of((tuple(args), {}), is_tensor_leaf))
    out_spec = treespec_dumps(treespec_of(out_value, is_tensor_leaf))
    module_call_graph = []
    for fqn, _m in _named_modules(module):
        sig = None
        if fqn == "":
            sig = {"inputs": [], "outputs": [], "in_spec": in_spec,
                   "out_spec": out_spec, "forward_arg_names": user_names}
        module_call_graph.append({"fqn": fqn, "signature": sig})

    ep = {
        "graph_module": {
            "graph": {
                "inputs": graph_inputs,
                "outputs": graph_outputs,
                "nodes": nodes_json,
                "tensor_values": tensor_values,
                "sym_int_values": {},
                "sym_bool_values": {},
                "is_single_tensor_return": False,
                "custom_obj_values": {},
                "sym_float_values": {},
            },
            "signature": {"input_specs": input_specs, "output_specs": output_specs},
            "module_call_graph": module_call_graph,
            "metadata": {},
            "treespec_namedtuple_fields": {},
        },
        "opset_version": {"aten": int(torch._C._get_max_operator_version())},
        "range_constraints": {},
        "schema_version": {"major": SCHEMA_VERSION[0], "minor": SCHEMA_VERSION[1]},
        "verifiers": ["TRAINING"],
        "torch_version": torch.__version__,
        "guards_code": [],
    }
    state = [(fqn, t, True) for fqn, t in params] + \
        [(fqn, t, False) for fqn, t, persistent in buffers if persistent]
    constants = [(fqn, t) for fqn, t, persistent in buffers if not persistent]
    return ep, state, constants, normalizations
