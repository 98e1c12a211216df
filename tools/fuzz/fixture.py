"""A directory per batch in the end-to-end fixture format
(test/e2e/models/<name>/: model.pt2, input_<i>.npy, output_<i>.npy,
fixture.json), plus calls.py with the generated code.  A failing call's
directory is its reproducer: copy it into test/e2e/models/ as a fixture."""

import json
import os
from dataclasses import dataclass
from typing import List

import numpy as np

import compare
import program
from gen import Call

SHORT = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32"}


@dataclass
class Output:
    call: int            # index of the call in the batch
    file: str
    dtype: str           # torch's name (bfloat16 ones are stored as float32)
    rtol: float
    atol: float
    shape_only: bool


def _dtype_name(t) -> str:
    return program.export_model.NP_DTYPE_NAME[t.dtype]


def write(calls: List[Call], work: str, seed: int) -> List[Output]:
    """Exports the calls into `work`; raises program.ExportError."""
    os.makedirs(work, exist_ok=True)
    ep, refs = program.export(calls, os.path.join(work, "model.pt2"))
    inputs = [x for c in calls for x in c.inputs]
    for i, x in enumerate(inputs):
        np.save(os.path.join(work, f"input_{i}.npy"), program.to_numpy(x))
    outputs, entries, tols = [], [], []
    for j, (c, rs) in enumerate(zip(calls, refs)):
        in_dtypes = [_dtype_name(x) for x in c.inputs]
        for r in rs:
            k = len(outputs)
            if c.shape_only:  # contents undefined (empty): the compiler's zeros
                r = r.new_zeros(r.shape)
            np.save(os.path.join(work, f"output_{k}.npy"), program.to_numpy(r))
            rtol, atol = compare.tolerance(_dtype_name(r), in_dtypes, c.tol)
            outputs.append(Output(j, f"output_{k}.npy", _dtype_name(r), rtol, atol,
                                  c.shape_only))
            entries.append(program.export_model._tensor_entry(f"output_{k}.npy", r))
            tols.append({"rtol": rtol, "atol": atol})
    with open(os.path.join(work, "calls.py"), "w") as f:
        for c in calls:
            f.write(f"# {c.label} (seed {seed}; inputs: {', '.join(c.kinds) or 'none'})\n")
            f.write(c.text() + "\n")
    g = ep["graph_module"]["graph"]
    in_dtypes = {_dtype_name(x) for x in inputs} | {e["dtype"] for e in entries}
    floats = sorted(SHORT[d] for d in in_dtypes if d in SHORT)
    one = calls[0] if len(calls) == 1 else None
    fixture = {
        "name": f"fuzz_{one.label.replace('.', '_').replace('-', '_')}_s{seed}" if one
        else f"fuzz_batch_s{seed}",
        "model": "fuzz",
        "description": one.src if one else f"{len(calls)} fuzzer calls (calls.py)",
        "dtype": floats[0] if len(floats) == 1 and len(in_dtypes) == 1 else "mixed",
        "seed": seed,
        "source": f"torch-{program.torch.__version__.split('+')[0]} make_fx (tools/fuzz)",
        "schema_version": list(program.export_model.SCHEMA_VERSION),
        "ops": [n["target"][len("torch.ops."):] for n in g["nodes"]],
        "inputs": [program.export_model._tensor_entry(f"input_{i}.npy", x)
                   for i, x in enumerate(inputs)],
        "outputs": entries,
        "tolerance": tols[0] if tols else {"rtol": 0.0, "atol": 0.0},
        "tolerance_class": calls[0].tol if len({c.tol for c in calls}) == 1 else "reduction",
        "reference": "computed in fp32 from the (exactly converted) inputs, each output "
                     "rounded to its dtype (export_model.reference_outputs' rule)",
        "input_generators": [k for c in calls for k in c.kinds],
    }
    if any(t != fixture["tolerance"] for t in tols):
        fixture["output_tolerances"] = tols
    if any(c.shape_only for c in calls):
        fixture["notes"] = "outputs of empty-like ops have undefined contents: the " \
                           "reference holds zeros, as the compiler writes"
    if any(not np.isfinite(program.to_numpy(r).astype(np.float64)).all()
           for rs in refs for r in rs if r.is_floating_point()):
        fixture["nonfinite_outputs"] = True
    with open(os.path.join(work, "fixture.json"), "w") as f:
        json.dump(fixture, f, indent=2)
        f.write("\n")
    return outputs
