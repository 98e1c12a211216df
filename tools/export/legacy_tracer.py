"""torch < 2.9 path: trace with make_fx and emit what torch 2.9 would.

torch 2.9's ``torch.export.export`` (non-strict, the default) returns the
*training IR*: ``make_fx(pre_dispatch=True, record_module_stack=True)``
above autograd, without functionalization and without decompositions
(``torch/export/_trace.py`` ``_export_to_aten_ir_make_fx``).  So

* every op a Python binding dispatches is recorded as is, including the
  CompositeImplicitAutograd ops (``linear``, ``matmul``, ``softmax.int``,
  ``layer_norm``, ``reshape``, ``contiguous``, ``to.dtype``, ``chunk`` ...);
* in-place ops stay in-place (``add_.Tensor``) and the signature has no
  mutation outputs (functionalization happens in ``run_decompositions()``);
* dead code is kept, except dead ``detach`` nodes (``_is_impure`` in
  ``_export_to_aten_ir_make_fx``); multi-output ops keep one ``getitem``
  per output (``track_tensor_tree`` creates them eagerly);
* ``apply_runtime_assertion_pass`` -> ``_insert_aten_to_metadata_assert_pass``
  puts an ``aten._assert_tensor_metadata.default(x, dtype=, device=,
  layout=)`` node before every ``aten.to.{dtype,dtype_layout,device}``.

torch 1.13's ``make_fx`` traces below autograd, where CIA ops are already
decomposed.  ``keep_ops.py`` intercepts the CIA ops at the Python API level
(a ``TorchFunctionMode``) and routes them through opaque ``spyre_keep::``
library ops with the torch 2.9 schemas, which ``make_fx`` records as single
nodes; the serializer renames them to their aten targets.  Every other op is
recorded by ``make_fx`` as the ATen op torch 2.9 records too (same
dispatcher argument normalization).  The remaining 1.13 artefacts are
repaired after tracing (``_normalize_graph``): the ``detach`` that 1.13 adds
after factory functions, and its doubled ``detach`` for ``Tensor.detach()``.

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
from torch.fx.experimental import proxy_tensor
from torch.fx.experimental.proxy_tensor import make_fx
from torch.overrides import TorchFunctionMode
from torch.utils import _pytree as pytree

import keep_ops
from pt2_format import (ARGUMENT_KIND_KEYWORD, ARGUMENT_KIND_POSITIONAL,
                        LAYOUT, MEMORY_FORMAT, SCHEMA_VERSION,
                        TORCH_DTYPE_TO_SCALAR_TYPE, json_float,
                        tensor_meta, treespec_dumps, treespec_of)

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))

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
        shim = keep_ops.SHIM_TORCH_FN.get(
            func, (getattr(func, "__name__", str(func)), type(func).__name__))
        meta = {
            "stack_trace": _forward_stack_trace(),
            "nn_module_stack": self.module_stack.snapshot(),
            "torch_fn": None if shim is None else (f"{shim[0]}_{count}", f"{shim[1]}.{shim[0]}"),
            "torch_fn_obj": func,
        }
        prev = _CURRENT_META
        _CURRENT_META = meta
        try:
            handler = _HANDLERS.get(func)
            if handler is not None:
                res = handler(args, kwargs)
                if res is not keep_ops.NOT_HANDLED:
                    return res
            return func(*args, **kwargs)
        finally:
            _CURRENT_META = prev


_HANDLERS: Dict[Any, Any] = {}


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
    # zoo op modules forward(*args) to a function; they declare the names the
    # arguments would have in a hand-written forward(self, x, y, ...)
    if getattr(module, "_spyre_arg_names", None):
        return list(module._spyre_arg_names)
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
    keep_ops.keep_lib()
    _HANDLERS.update(keep_ops.handlers())
    # named_parameters(remove_duplicate=False) (torch 2.9 export keeps every
    # FQN of a tied parameter; torch 1.13 has no remove_duplicate argument)
    params = []
    for mname, m in _named_modules(module):
        for pname, p in m._parameters.items():
            if p is not None:
                params.append((f"{mname}.{pname}" if mname else pname, p))
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
    # plain tensor attributes: lifted as tensor constants (c_<fqn>), after
    # params and buffers (torch/_export/passes/lift_constants_pass.py)
    constants = []
    known = {id(t) for _, t in params} | {id(b) for _, b, _ in buffers}
    for mname, m in _named_modules(module):
        for aname, v in vars(m).items():
            if isinstance(v, torch.Tensor) and not isinstance(v, torch.nn.Parameter) \
                    and id(v) not in known and not aname.startswith("_"):
                known.add(id(v))
                constants.append((f"{mname}.{aname}" if mname else aname, v))
    state = params + [(fqn, b) for fqn, b, _ in buffers] + constants
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

    # A tensor made inside forward (torch.tensor(0.0), as transformers'
    # eager mask does) is a get_attr of the traced module here; torch.export
    # lifts it as a tensor constant named lifted_tensor_<n>, after the
    # module's own constants.
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    anchor = placeholders[n_state] if len(placeholders) > n_state else None
    lifted = 0
    for node in list(gm.graph.nodes):
        if node.op != "get_attr" or not isinstance(getattr(gm, node.target, None),
                                                   torch.Tensor):
            continue
        value = getattr(gm, node.target).detach().clone()
        name = f"lifted_tensor_{lifted}"
        lifted += 1
        if anchor is not None:
            with gm.graph.inserting_before(anchor):
                ph = gm.graph.placeholder(name)
        else:
            # no placeholder yet: before the first node (inserting_after(None)
            # would append it after its users)
            where = gm.graph.inserting_after(placeholders[-1]) if placeholders else \
                gm.graph.inserting_before(next(iter(gm.graph.nodes)))
            with where:
                ph = gm.graph.placeholder(name)
        ph.meta["val"] = value
        node.replace_all_uses_with(ph)
        gm.graph.erase_node(node)
        constants.append((name, value))
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    gm.recompile()

    return gm, params, buffers, constants, out_structure["value"]


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


# targets torch 2.9 records as the same aten op that 1.13's make_fx records
# (not CompositeImplicitAutograd in 2.9, so pre-dispatch tracing sees them as
# the Python binding dispatches them).  Anything else in a traced graph means
# a CIA op was decomposed by 1.13 and is not handled by keep_ops: an error.
RECORDED_AS_IS = {
    "aten::" + n for n in """
    add.Tensor add.Scalar sub.Tensor sub.Scalar mul.Tensor mul.Scalar div.Tensor div.Scalar
    div.Tensor_mode div.Scalar_mode rsub.Scalar rsub.Tensor neg abs exp log sqrt rsqrt reciprocal
    pow.Tensor_Scalar pow.Tensor_Tensor pow.Scalar tanh sigmoid relu gelu silu softplus
    clamp clamp.Tensor clamp_min clamp_max minimum maximum where.self masked_fill.Scalar
    masked_fill.Tensor eq.Tensor eq.Scalar ne.Tensor ne.Scalar lt.Tensor lt.Scalar le.Tensor
    le.Scalar gt.Tensor gt.Scalar ge.Tensor ge.Scalar logical_not logical_and logical_or
    sin cos floor ceil trunc round erf _to_copy
    sum sum.dim_IntList mean mean.dim amax amin max.dim min.dim max argmax argmin
    var.correction var_mean.correction _softmax _log_softmax native_layer_norm
    mm bmm addmm baddbmm t transpose.int permute view _unsafe_view unsqueeze squeeze
    squeeze.dim squeeze.dims expand slice.Tensor select.int cat split.Tensor
    split_with_sizes index_select embedding index.Tensor index_copy index_copy_ full zeros ones
    arange arange.start arange.start_step triu tril clone alias detach constant_pad_nd
    add_.Tensor mul_.Tensor copy_ scalar_tensor new_zeros new_ones zeros_like ones_like
    full_like lift_fresh_copy sym_size.int
    logical_xor bitwise_and.Tensor bitwise_or.Tensor bitwise_xor.Tensor bitwise_not
    remainder.Tensor remainder.Scalar floor_divide topk scatter.src scatter_.src scatter.value
    scatter_add
    stack repeat select_scatter index_put cumsum masked_fill_.Scalar gather
    alias_copy bitwise_and.Scalar sign min empty.memory_format empty_like expand_copy
    fill.Scalar new_empty new_full slice_scatter unbind.int view_copy zero
    prod prod.dim_int all all.dim any any.dim sort sort.stable index_add masked_scatter
    convolution
    """.split()
}
# factory functions after which torch 1.13's make_fx inserts a spurious detach
_FACTORIES = {"full", "zeros", "ones", "arange", "empty", "empty_like", "scalar_tensor",
              "full_like", "zeros_like", "ones_like", "new_zeros", "new_ones", "eye", "rand",
              "randn"}


def _schema_key(op) -> str:
    s = op._schema
    return s.name + (f".{s.overload_name}" if s.overload_name else "")


def _target_and_schema(node) -> Tuple[str, Any]:
    t = node.target
    if not isinstance(t, torch._ops.OpOverload):
        raise NotImplementedError(f"call_function target {t!r}")
    s = t._schema
    ns, packet = s.name.split("::")
    overload = t._overloadname
    if ns == keep_ops.KEEP_NS:
        key = packet + ("" if overload == "default" else f".{overload}")
        return keep_ops.aten_target(key), keep_ops.parsed_schema(key)
    full = f"{ns}::{packet}" + ("" if overload == "default" else f".{overload}")
    if full in keep_ops.SCHEMA_OVERRIDES_29:
        return f"torch.ops.{ns}.{packet}.{overload}", keep_ops.parsed_schema(full)
    if full not in RECORDED_AS_IS:
        raise NotImplementedError(
            f"{full}: not known to be recorded unchanged by torch 2.9 pre-dispatch export "
            f"(probably a CompositeImplicitAutograd decomposition of torch 1.13; add a keep op)")
    return f"torch.ops.{ns}.{packet}.{overload}", s


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


def _torch_fn_name(node) -> str:
    m = node.meta.get("spyre_meta") or {}
    f = m.get("torch_fn_obj")
    return getattr(f, "__name__", "") if f is not None else ""


def _normalize_graph(gm, notes: List[str]) -> None:
    """Repairs what torch 1.13's make_fx records differently from 2.9's
    pre-dispatch tracer, then applies 2.9's dead-code rule."""
    g = gm.graph
    fixed = []
    for node in list(g.nodes):
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        if node.target._schema.name != "aten::detach":
            continue
        src = node.args[0]
        src_name = src.target._schema.name.split("::")[1] \
            if src.op == "call_function" and isinstance(src.target, torch._ops.OpOverload) else ""
        user_detach = _torch_fn_name(node) == "detach"
        # (a) 1.13 detaches the result of factory functions (torch.full ...)
        # (b) 1.13 records Tensor.detach() as detach(detach(x))
        if (src_name in _FACTORIES and not user_detach) or \
                (src_name == "detach" and user_detach and
                 src.meta.get("spyre_meta") is node.meta.get("spyre_meta")):
            node.replace_all_uses_with(src)
            g.erase_node(node)
            fixed.append(src_name)
    if fixed:
        notes.append(f"removed torch-1.13-only detach nodes after: {sorted(set(fixed))}")
    # torch 2.9: gm.graph.eliminate_dead_code(_is_impure) where only detach
    # (and profiler / subclass-access) nodes are removable
    dead = []
    for node in reversed(list(g.nodes)):
        if node.op == "call_function" and not node.users and \
                isinstance(node.target, torch._ops.OpOverload) and \
                node.target._schema.name == "aten::detach":
            g.erase_node(node)
            dead.append("detach")
    if dead:
        notes.append("removed dead detach nodes (torch 2.9 export DCE keeps all other dead nodes)")
    g.lint()


def _out_vals(node):
    """Per-output values of a multi-output node, from its getitem users."""
    vals = {}
    for u in node.users:
        if u.op == "call_function" and u.target is __import__("operator").getitem:
            vals[u.args[1]] = u
    return vals


_FLOATING = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def export_program(module: torch.nn.Module, args: Tuple[torch.Tensor, ...]):
    """Returns (exported_program_json_dict, state list, constants list, notes).

    state: [(fqn, tensor, is_param)] in torch.export state_dict order;
    constants: [(fqn, tensor)] (lifted tensor constants, then non-persistent
    buffers), the constants config order.
    """
    import operator
    gm, params, buffers, tconsts, out_value = trace(module, args)
    normalizations: List[str] = []
    _normalize_graph(gm, normalizations)

    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    n_params, n_bufs, n_consts = len(params), len(buffers), len(tconsts)
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
        elif i < n_params + n_bufs + n_consts:
            fqn, c = tconsts[i - n_params - n_bufs]
            names[ph] = _placeholder_name("c_", fqn)
            input_specs.append({"tensor_constant": {"arg": {"name": names[ph]},
                                                    "tensor_constant_name": fqn}})
            requires_grad[ph] = False
        else:
            k = i - n_params - n_bufs - n_consts
            names[ph] = user_names[k]
            input_specs.append({"user_input": {"arg": {"as_tensor": {"name": names[ph]}}}})
            requires_grad[ph] = bool(args[k].requires_grad)
    normalizations.append("placeholders renamed per torch.export placeholder_naming_pass "
                          "(p_<fqn>, b_<fqn>, " + ("c_<fqn>, " if n_consts else "") +
                          "forward() argument names)")

    # Node names: make_fx names (same scheme as torch 2.9: op packet name + _<n>)
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

    def rg_of(node, val):
        if not isinstance(val, torch.Tensor) or val.dtype not in _FLOATING:
            return False
        return any(requires_grad.get(a, False) for a in node.all_input_nodes)

    ser = _ArgSerializer(names)
    nodes_json = []
    kept = set()
    for node in gm.graph.nodes:
        if node.op != "call_function" or node.target is operator.getitem:
            continue
        target, schema = _target_and_schema(node)
        if str(node.target).startswith(keep_ops.KEEP_NS):
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
        returns = schema.returns
        outputs = []
        if len(returns) == 0:
            pass
        elif len(returns) == 1 and isinstance(returns[0].type, torch.ListType):
            # "-> Tensor[]": one as_tensors, named after the getitem users
            items = _out_vals(node)
            elems = []
            for idx in range(len(items)):
                u = items[idx]
                requires_grad[u] = rg_of(node, u.meta["val"])
                tensor_values[names[u]] = _meta_of(u.meta["val"], requires_grad[u])
                elems.append({"name": names[u]})
            outputs.append({"as_tensors": elems})
        elif len(returns) == 1:
            val = node.meta["val"]
            if not isinstance(val, torch.Tensor):
                raise NotImplementedError(f"non-tensor output of {target}")
            requires_grad[node] = rg_of(node, val)
            tensor_values[names[node]] = _meta_of(val, requires_grad[node])
            outputs.append({"as_tensor": {"name": names[node]}})
        else:
            # "-> (Tensor, Tensor, ...)": getitem names, <node>_unused_<i> otherwise
            items = _out_vals(node)
            for idx in range(len(returns)):
                u = items.get(idx)
                if u is None:
                    raise NotImplementedError(f"{target}: output {idx} has no getitem "
                                              "(no tensor metadata to serialize)")
                val = u.meta["val"]
                if val is None:
                    outputs.append({"as_none": True})
                    continue
                requires_grad[u] = rg_of(node, val)
                tensor_values[names[u]] = _meta_of(val, requires_grad[u])
                outputs.append({"as_tensor": {"name": names[u]}})
        nodes_json.append({
            "target": target,
            "inputs": inputs,
            "outputs": outputs,
            "metadata": _serialize_metadata(node.meta.get("spyre_meta")),
            "is_hop_single_tensor_return": None,
        })
    missing = {t for t in kept if not _exists_in_this_torch(t)}
    if kept - missing:
        normalizations.append(
            "CompositeImplicitAutograd ops kept as single nodes like torch>=2.9 pre-dispatch "
            f"export (make_fx in torch {torch.__version__} would decompose them): "
            f"{sorted(kept - missing)}")
    if missing:
        normalizations.append(
            f"ops torch {torch.__version__} does not have, recorded through placeholder ops "
            f"with their torch 2.9 schema: {sorted(missing)}")

    nodes_json = _insert_to_asserts(nodes_json, tensor_values, normalizations)

    out_node = next(n for n in gm.graph.nodes if n.op == "output")
    out_args = out_node.args[0]
    graph_outputs = []
    output_specs = []
    for a in out_args:
        if not isinstance(a, torch.fx.Node):
            raise NotImplementedError("non-tensor graph output")
        if a.op == "placeholder":
            raise NotImplementedError("graph output is a graph input")
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
    # ep.constants: lifted constants first, then non-persistent buffers
    # (_move_non_persistent_buffers_to_tensor_constants runs last)
    constants = list(tconsts) + [(fqn, t) for fqn, t, persistent in buffers if not persistent]
    return ep, state, constants, normalizations


def _exists_in_this_torch(target: str) -> bool:
    _t, _o, _ns, op, overload = target.split(".")
    packet = getattr(torch.ops.aten, op, None)
    if packet is None:
        return False
    if op == "scaled_dot_product_attention":
        return "enable_gqa" in str(getattr(packet, overload)._schema)
    return hasattr(packet, overload)


_TO_TARGETS = ("torch.ops.aten.to.dtype", "torch.ops.aten.to.dtype_layout",
               "torch.ops.aten.to.device")


def _insert_to_asserts(nodes, tensor_values, notes):
    """torch/_export/utils.py _insert_aten_to_metadata_assert_pass: before every
    aten.to.{device,dtype,dtype_layout} node, an
    aten._assert_tensor_metadata.default(x, dtype=, device=, layout=) node
    (kwargs as written by the pass; stack_trace and nn_module_stack of the
    to node, no torch_fn; returns () so it has no outputs)."""
    out = []
    n = 0
    for node in nodes:
        if node["target"] in _TO_TARGETS:
            src = node["inputs"][0]["arg"]["as_tensor"]["name"]
            tm = tensor_values[src]
            md = {k: v for k, v in node["metadata"].items()
                  if k in ("stack_trace", "nn_module_stack")}
            out.append({
                "target": "torch.ops.aten._assert_tensor_metadata.default",
                "inputs": [
                    {"name": "a", "arg": {"as_tensor": {"name": src}},
                     "kind": ARGUMENT_KIND_POSITIONAL},
                    {"name": "dtype", "arg": {"as_scalar_type": tm["dtype"]},
                     "kind": ARGUMENT_KIND_KEYWORD},
                    {"name": "device", "arg": {"as_device": dict(tm["device"])},
                     "kind": ARGUMENT_KIND_KEYWORD},
                    {"name": "layout", "arg": {"as_layout": tm["layout"]},
                     "kind": ARGUMENT_KIND_KEYWORD},
                ],
                "outputs": [],
                "metadata": md,
                "is_hop_single_tensor_return": None,
            })
            n += 1
        out.append(node)
    if n:
        notes.append(f"inserted {n} aten._assert_tensor_metadata.default node(s) before aten.to "
                     "(torch 2.9 _insert_aten_to_metadata_assert_pass)")
    return out
