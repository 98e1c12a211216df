"""A batch of calls as one exported program, and PyTorch's answer for it.

Each call's text is compiled as a function named ``forward`` in a file
named after the call (``add.Tensor-17.py``): the exporter keeps ``forward``
frames in each node's stack trace, so compiler diagnostics point at the
call (``add.Tensor-17.py:2:0: error: ...``).
"""

import linecache
import os
import re
import sys
import warnings
from typing import List, Optional, Tuple

import numpy as np
import torch
from torch.utils import _pytree as pytree

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "export"))

import export_model  # noqa: E402
import keep_ops  # noqa: E402
import legacy_tracer  # noqa: E402

from gen import Call  # noqa: E402

# PyTorch's warnings about generated calls (padding='same' copies, ...)
# are noise in a fuzz run
warnings.filterwarnings("ignore", category=UserWarning)

# names the calls' code uses: keep(name) is the keep op recorded as the aten
# op of that name; the shims are torch >= 2.x functions torch 1.13 lacks
ENV = {"torch": torch, "F": torch.nn.functional, "keep": keep_ops.keep,
       "rms_norm": keep_ops.rms_norm, "sdpa": keep_ops.scaled_dot_product_attention,
       "native_batch_norm_legit_no_training": keep_ops.native_batch_norm_legit_no_training}


class ExportError(Exception):
    """PyTorch or the exporter rejected a call: a bug of its generator."""


def compile_call(call: Call):
    text = call.text()
    filename = f"{call.label}.py"
    # the source lines make the nodes' stack traces readable
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    env = dict(ENV)
    exec(compile(text, filename, "exec"), env)
    return env["forward"]


class Batch(torch.nn.Module):
    """forward(*inputs of every call) -> the flattened outputs of all calls."""

    def __init__(self, calls: List[Call]):
        super().__init__()
        self.fns = [compile_call(c) for c in calls]
        self.arity = [len(c.inputs) for c in calls]
        self._spyre_arg_names = [f"c{j}_a{k}" for j, c in enumerate(calls)
                                 for k in range(len(c.inputs))]

    def forward(self, *args):
        outs, pos = [], 0
        for fn, n in zip(self.fns, self.arity):
            outs += pytree.tree_flatten(fn(*args[pos:pos + n]))[0]
            pos += n
        return tuple(outs)


def exact_reference(call: Call) -> Optional[List[torch.Tensor]]:
    """The call evaluated with floating inputs in fp64: a second opinion
    where PyTorch's fp32 answer is itself off (a long fp32 sum that cancels
    can lose more than the tolerance). None when PyTorch rejects fp64."""
    fn = compile_call(call)
    xs = [x.double() if x.is_floating_point() else x.clone() for x in call.inputs]
    try:
        with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False):
            return [o.detach() for o in pytree.tree_flatten(fn(*xs))[0]]
    except Exception:
        return None


def reference(call: Call) -> List[torch.Tensor]:
    """export_model.reference_outputs' rule, per call: floating inputs in
    fp32, each floating output rounded to its own dtype afterwards (the
    caller rounds to the graph's dtypes)."""
    fn = compile_call(call)
    xs = [x.float() if x.is_floating_point() else x.clone() for x in call.inputs]

    def evaluate():
        try:
            # Without oneDNN: torch 1.13's oneDNN conv2d gets a permuted
            # (channels-last) input with a transposed weight wrong, in fp32
            # too (off by 3.4 at seed 1321, conv2d call 1107); the native
            # kernels are right.
            with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False):
                out = pytree.tree_flatten(fn(*xs))[0]
        except Exception as e:
            raise ExportError(f"PyTorch rejects the call: {type(e).__name__}: {e}") from e
        return [o.detach().clone() for o in out]

    # PyTorch itself can read memory it never wrote (torch 1.13's CPU
    # baddbmm with beta=0 returns NaN now and then): a reference counts only
    # when two evaluations agree. `empty` has no values to agree on.
    if call.shape_only:
        return evaluate()
    for _ in range(REFERENCE_TRIES):
        first, second = evaluate(), evaluate()
        if all(same_values(a, b) for a, b in zip(first, second)):
            return first
    raise ExportError(f"PyTorch's answer changes from one evaluation to the next "
                      f"({REFERENCE_TRIES} tries)")


REFERENCE_TRIES = 3


def same_values(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bitwise equal values, NaN equal to NaN."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point() or a.is_complex():
        return bool(torch.equal(torch.nan_to_num(a, nan=0.0), torch.nan_to_num(b, nan=0.0))
                    and torch.equal(torch.isnan(a), torch.isnan(b)))
    return bool(torch.equal(a, b))


def export(calls: List[Call], path: str) -> Tuple[dict, List[List[torch.Tensor]]]:
    """Writes the archive; returns the program JSON and, per call, the
    reference outputs in the graph's dtypes."""
    inputs = [x for c in calls for x in c.inputs]
    refs = [reference(c) for c in calls]
    try:
        ep, state, constants, notes = legacy_tracer.export_program(Batch(calls), tuple(inputs))
    except Exception as e:
        raise ExportError(f"the exporter fails: {type(e).__name__}: {e}") from e
    g = ep["graph_module"]["graph"]
    dtypes = [export_model.SCALAR_TYPE_TO_TORCH[g["tensor_values"][o["as_tensor"]["name"]]["dtype"]]
              for o in g["outputs"]]
    if len(dtypes) != sum(len(r) for r in refs):
        raise ExportError(f"{len(dtypes)} graph outputs for {sum(len(r) for r in refs)} "
                          "reference outputs")
    it = iter(dtypes)
    refs = [[_to_graph_dtype(o, next(it)) for o in r] for r in refs]
    for c in calls:
        ops = call_ops(g, c)
        if c.op not in ops:
            raise ExportError(f"{c.label}: the graph records {sorted(ops) or 'no op'}, "
                              f"not {c.op}")
    provenance = {"producer": "spyre-mlir tools/fuzz", "calls": [c.label for c in calls],
                  "tracer": "make_fx", "torch_version": torch.__version__,
                  "normalizations": notes}
    export_model.write_legacy_archive(path, ep, state, constants, inputs, provenance)
    return ep, refs


def _to_graph_dtype(o: torch.Tensor, dt: torch.dtype) -> torch.Tensor:
    if o.is_floating_point() and dt.is_floating_point:
        o = o.to(dt)
    if o.dtype != dt:
        raise ExportError(f"reference output dtype {o.dtype} != graph dtype {dt}")
    return o


def call_ops(graph: dict, call: Call) -> List[str]:
    """The targets ("aten.add.Tensor") of the nodes the call's code made.
    The call's file name is relative to the working directory, which the
    tracer may prefix (a directory of the repository: its path there)."""
    mark = re.compile(r'File "(?:[^"]*/)?' + re.escape(call.label) + r'\.py"')
    return [n["target"][len("torch.ops."):] for n in graph["nodes"]
            if mark.search(n.get("metadata", {}).get("stack_trace", ""))]


def to_numpy(t: torch.Tensor) -> np.ndarray:
    return export_model._np(t)
