#!/usr/bin/python3
"""Export a zoo model to a torch.export ``.pt2`` archive plus reference data.

    /usr/bin/python3 tools/export/export_model.py --model NAME --out-dir DIR \
        [--dtype fp16|fp32] [--seed N] [--tracer auto|torch.export|make_fx]
    /usr/bin/python3 tools/export/export_model.py --module SPEC \
        --input-shape 1,16,128 [--input-shape ...] --out-dir DIR [--dtype ...]

--module exports your own nn.Module instead of a zoo model: SPEC is
`pkg.mod:factory` (a module on sys.path; the current directory is on it) or
`path/to/file.py:factory`, where factory is an nn.Module class or a function
returning a module, called with no arguments. One --input-shape per
forward() argument, in order: comma-separated sizes, optionally `:DTYPE`
(fp16, fp32, bf16, int64, int32, bool; default the --dtype) and `:GEN` (an
input generator of models.In, default normal), e.g. `4,16:int64:int:0:100`.

Writes into DIR:
  model.pt2        the archive (layout of torch 2.9's torch.export.save)
  input_<i>.npy    the example inputs, in forward() argument order
  output_<i>.npy   reference outputs (flattened forward() result), computed
                   with the module itself
  fixture.json     name, dtype, shapes, tolerance suggestion, provenance

With torch >= 2.9 the archive is produced by torch.export.export +
torch.export.save, untouched (plus an extra/ provenance file).  With older
torch (Debian's 1.13 here) the graph is traced with make_fx and written by
this tool in the same archive layout and schema-8.x JSON (legacy_tracer.py).

fp16 reference outputs: torch 1.13 on CPU lacks several half kernels (addmm,
gelu, ...), so for fp16 models the module is copied to fp32 (its fp16
weights convert exactly), run on the fp32 conversion of the fp16 inputs, and
the result is rounded to fp16.  The same rule is used with every torch
version so that fixtures do not depend on CPU half-precision kernels.

Runs are deterministic: same arguments -> byte-identical files.
"""

import argparse
import copy
import io
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep tools/export free of __pycache__
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import torch  # noqa: E402

import models  # noqa: E402
from pt2_format import (CONSTANTS_CONFIG_FILENAME_FORMAT, DEFAULT_MODEL_NAME,  # noqa: E402
                        EXTRA_DIR, MODELS_FILENAME_FORMAT, PROVENANCE_FILE,
                        SAMPLE_INPUTS_FILENAME_FORMAT, SCHEMA_VERSION,
                        WEIGHT_FILENAME_PREFIX, WEIGHTS_CONFIG_FILENAME_FORMAT,
                        WEIGHTS_DIR, CONSTANTS_DIR, TENSOR_CONSTANT_FILENAME_PREFIX,
                        finish_records, payload_meta, tensor_meta,
                        to_json_bytes, write_zip_records)

TOLERANCES = {
    # elementwise ops: a few ulp of the storage type
    ("fp16", "elementwise"): {"rtol": 1e-2, "atol": 1e-3},
    ("bf16", "elementwise"): {"rtol": 1e-2, "atol": 1e-3},
    ("fp32", "elementwise"): {"rtol": 1e-5, "atol": 1e-6},
    # reductions over K (matmul, softmax, norms): accumulation order differs
    ("fp16", "matmul"): {"rtol": 2e-2, "atol": 2e-2},
    ("bf16", "matmul"): {"rtol": 3e-2, "atol": 3e-2},
    ("fp32", "matmul"): {"rtol": 1e-4, "atol": 1e-4},
    # whole blocks / models: fp16 intermediates between many ops
    ("fp16", "block"): {"rtol": 3e-2, "atol": 3e-2},
    ("fp32", "block"): {"rtol": 1e-3, "atol": 1e-3},
}
EXACT = {"rtol": 0.0, "atol": 0.0}
MATMUL_OPS = {"aten.linear.default", "aten.addmm.default", "aten.mm.default",
              "aten.matmul.default", "aten.bmm.default", "aten.baddbmm.default",
              "aten.scaled_dot_product_attention.default"}
# ops that reduce over many elements (tolerance class "matmul")
REDUCTION_OPS = MATMUL_OPS | {
    "aten.sum.dim_IntList", "aten.mean.dim", "aten.var.correction", "aten.var_mean.correction",
    "aten.softmax.int", "aten._softmax.default", "aten.log_softmax.int",
    "aten._log_softmax.default", "aten.layer_norm.default", "aten.native_layer_norm.default",
    "aten.rms_norm.default", "aten.batch_norm.default",
    "aten._native_batch_norm_legit_no_training.default"}
NP_DTYPE_NAME = {torch.float16: "float16", torch.float32: "float32", torch.bfloat16: "bfloat16",
                 torch.float64: "float64", torch.int64: "int64", torch.int32: "int32",
                 torch.bool: "bool", torch.int16: "int16", torch.int8: "int8",
                 torch.uint8: "uint8"}
SHORT = {torch.float16: "fp16", torch.float32: "fp32", torch.bfloat16: "bf16"}
SCALAR_TYPE_TO_TORCH = {6: torch.float16, 7: torch.float32, 8: torch.float64, 13: torch.bfloat16,
                        5: torch.int64, 4: torch.int32, 12: torch.bool, 3: torch.int16,
                        2: torch.int8, 1: torch.uint8}


def torch_version_tuple():
    v = torch.__version__.split("+")[0]
    parts = []
    for p in v.split(".")[:2]:
        digits = "".join(ch for ch in p if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def _raw_storage_bytes(t: torch.Tensor) -> bytes:
    """Bytes of the tensor's whole storage, like _package.py _get_raw_tensor_bytes."""
    t = t.detach()
    st = t.storage()
    flat = torch.empty(0, dtype=t.dtype).set_(st, 0, (st.size(),), (1,))
    return flat.numpy().tobytes() if flat.dtype != torch.bfloat16 else \
        flat.view(torch.int16).numpy().tobytes()


def _dtype_code(t: torch.Tensor) -> int:
    from pt2_format import TORCH_DTYPE_TO_SCALAR_TYPE
    return TORCH_DTYPE_TO_SCALAR_TYPE[str(t.dtype).replace("torch.", "")]


def _payload_tensor_meta(t: torch.Tensor):
    return tensor_meta(_dtype_code(t), list(t.shape), list(t.stride()),
                       int(t.storage_offset()), t.requires_grad,
                       (t.device.type, t.device.index))


def _package_payloads(state, directory, prefix, is_param_default=None):
    """_package_state_dict / _package_constants: one raw-bytes file per
    distinct storage, config {fqn: PayloadMeta}."""
    records, config, storage_map = [], {}, {}
    idx = 0
    for entry in state:
        fqn, t = entry[0], entry[1]
        is_param = entry[2] if len(entry) > 2 else bool(is_param_default)
        key = (t.storage().data_ptr(), t.storage().size(), t.dtype)
        if key in storage_map:
            path_name = storage_map[key]
        else:
            path_name = f"{prefix}{idx}"
            idx += 1
            storage_map[key] = path_name
            records.append((directory + path_name, _raw_storage_bytes(t)))
        config[fqn] = payload_meta(path_name, is_param, _payload_tensor_meta(t))
    return records, {"config": config}


def write_legacy_archive(path, ep_json, state, constants, example_args, provenance,
                         model_name=DEFAULT_MODEL_NAME):
    """Record order follows torch 2.9 package_pt2 -> _package_exported_programs:
    weights, weights config, constants, constants config, models/<m>.json,
    sample inputs; then extra/ files; then the trailer records."""
    records = []
    w_records, w_config = _package_payloads(state, WEIGHTS_DIR, WEIGHT_FILENAME_PREFIX)
    records += w_records
    records.append((WEIGHTS_CONFIG_FILENAME_FORMAT.format(model_name),
                    json.dumps(w_config).encode()))
    c_records, c_config = _package_payloads(constants, CONSTANTS_DIR,
                                            TENSOR_CONSTANT_FILENAME_PREFIX, False)
    records += c_records
    records.append((CONSTANTS_CONFIG_FILENAME_FORMAT.format(model_name),
                    json.dumps(c_config).encode()))
    records.append((MODELS_FILENAME_FORMAT.format(model_name), to_json_bytes(ep_json)))
    buf = io.BytesIO()
    torch.save((tuple(example_args), {}), buf, pickle_protocol=2)
    records.append((SAMPLE_INPUTS_FILENAME_FORMAT.format(model_name), buf.getvalue()))
    records.append((EXTRA_DIR + PROVENANCE_FILE,
                    json.dumps(provenance, indent=1, sort_keys=True).encode()))
    write_zip_records(path, finish_records(records))


def reference_outputs(module, inputs, mode, out_dtypes):
    """Runs the module itself (a copy, so in-place buffer updates do not leak).

    mode "fp32": a float32 copy of the module runs on float32 conversions of
    the floating inputs (fp16/bf16 values convert exactly) and each output is
    rounded to its graph dtype (torch 1.13 lacks many CPU half kernels; the
    reference is the correctly rounded value of an fp32 computation).
    mode "native": the module runs as is (casts, integer ops)."""
    m = copy.deepcopy(module)
    # Without oneDNN: torch 1.13's oneDNN conv2d gets a permuted input with a
    # transposed weight wrong (tools/fuzz/program.py reference()).
    with torch.no_grad(), torch.backends.mkldnn.flags(enabled=False):
        if mode == "fp32":
            m = m.float()
            xs = [x.float().clone() if x.is_floating_point() else x.clone() for x in inputs]
        else:
            xs = [x.clone() for x in inputs]
        out = m(*xs)
        leaves, _ = torch.utils._pytree.tree_flatten(out)
    res = []
    for o, dt in zip(leaves, out_dtypes):
        if mode == "fp32" and o.is_floating_point() and dt.is_floating_point:
            o = o.to(dt)
        if o.dtype != dt:
            raise RuntimeError(f"reference output dtype {o.dtype} != graph dtype {dt}")
        res.append(o)
    return res


def _np(t: torch.Tensor) -> np.ndarray:
    """bfloat16 has no numpy dtype: stored as float32 (exact)."""
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.numpy()


def _tensor_entry(fname, t):
    e = {"file": fname, "shape": list(t.shape), "dtype": NP_DTYPE_NAME[t.dtype]}
    if t.dtype == torch.bfloat16:
        e["stored_as"] = "float32"
    return e


def fixture_dir_name(model, dtype):
    e = models.ZOO[model]
    return e.dir_name or f"{model}_{dtype}"


def export(name, dtype, seed, out_dir, tracer="auto"):
    module, inputs, entry = models.build(name, dtype, seed)
    use_export = tracer == "torch.export" or (
        tracer == "auto" and torch_version_tuple() >= (2, 9))
    os.makedirs(out_dir, exist_ok=True)
    pt2_path = os.path.join(out_dir, "model.pt2")

    provenance = {
        "producer": "spyre-mlir tools/export/export_model.py",
        "model": name,
        "dtype": dtype,
        "seed": seed,
        "torch_version": torch.__version__,
        "emulated_schema_version": list(SCHEMA_VERSION),
    }
    if use_export:
        ep = torch.export.export(module, inputs)
        provenance.update({
            "tracer": "torch.export",
            "emulates": None,
            "normalizations": [],
        })
        torch.export.save(ep, pt2_path, extra_files={
            PROVENANCE_FILE: json.dumps(provenance, indent=1, sort_keys=True)})
        ops = [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]
        outs = [n for n in ep.graph.nodes if n.op == "output"][0].args[0]
        out_dtypes = [o.meta["val"].dtype for o in outs]
        source = f"torch-{torch.__version__} torch.export"
    else:
        import legacy_tracer
        ep_json, state, constants, normalizations = legacy_tracer.export_program(module, inputs)
        provenance.update({
            "tracer": "make_fx",
            "tracing_mode": "fake",
            "emulates": "torch 2.9 torch.export.export (non-strict, training IR, "
                        "verifiers=['TRAINING']) + torch.export.save",
            "normalizations": normalizations,
            "metadata": "stack_trace keeps forward() frames (paths relative to the repo "
                        "root or to the torch package); nn_module_stack/torch_fn follow "
                        "torch 2.9 non-strict export; torch_version is the producing torch",
        })
        write_legacy_archive(pt2_path, ep_json, state, constants, inputs, provenance)
        g = ep_json["graph_module"]["graph"]
        ops = [n["target"].replace("torch.ops.", "") for n in g["nodes"]]
        out_dtypes = [SCALAR_TYPE_TO_TORCH[g["tensor_values"][o["as_tensor"]["name"]]["dtype"]]
                      for o in g["outputs"]]
        source = f"torch-{torch.__version__.split('+')[0]} make_fx"

    outputs = reference_outputs(module, inputs, entry.reference, out_dtypes)
    for i, x in enumerate(inputs):
        np.save(os.path.join(out_dir, f"input_{i}.npy"), _np(x))
    for i, y in enumerate(outputs):
        np.save(os.path.join(out_dir, f"output_{i}.npy"), _np(y))

    if entry.tol_kind:
        kind = entry.tol_kind
    else:
        kind = "matmul" if any(op in REDUCTION_OPS for op in ops) else "elementwise"
    float_outs = [SHORT[y.dtype] for y in outputs if y.dtype in SHORT]
    base_dt = dtype if dtype in ("fp16", "fp32") else (float_outs[0] if float_outs else "fp32")
    out_tols = [TOLERANCES[(SHORT[y.dtype], kind)] if y.dtype in SHORT else EXACT
                for y in outputs]
    if dtype == "mixed" and kind == "elementwise":
        ref_text = "computed by the module itself on CPU (casts are exact)"
    elif entry.reference == "fp32" and dtype == "fp16":
        ref_text = ("computed in fp32 from the fp16-rounded weights and inputs, "
                    "rounded to fp16")
    elif entry.reference == "fp32":
        ref_text = "computed by the fp32 module on CPU"
    else:
        ref_text = "computed by the module itself on CPU"
    if entry.reference_note:
        ref_text += "; " + entry.reference_note
    if any(y.dtype == torch.bfloat16 for y in list(outputs) + list(inputs)):
        ref_text += ("; bfloat16 tensors are stored in the .npy files as float32 (exact, "
                     "see stored_as)")
    fixture = {
        "name": fixture_dir_name(name, dtype),
        "model": name,
        "description": entry.description,
        "dtype": dtype,
        "seed": seed,
        "source": source,
        "schema_version": list(SCHEMA_VERSION),
        "ops": ops,
        "inputs": [_tensor_entry(f"input_{i}.npy", x) for i, x in enumerate(inputs)],
        "outputs": [_tensor_entry(f"output_{i}.npy", y) for i, y in enumerate(outputs)],
        "tolerance": TOLERANCES[(base_dt, kind)],
        "reference": ref_text,
    }
    if len(set(json.dumps(t) for t in out_tols)) > 1 or \
            (out_tols and out_tols[0] != fixture["tolerance"]):
        fixture["output_tolerances"] = out_tols
    if any(not torch.isfinite(y.double()).all() for y in outputs if y.is_floating_point()):
        fixture["nonfinite_outputs"] = True
    if entry.inputs is not None:
        # the class test/e2e/fixture_format.py looks up in test/e2e/tolerances.json
        # (only for the zoo entries added with it: keeps older fixture.json files)
        if kind == "block":
            fixture["tolerance_class"] = "block"
        elif any(op in MATMUL_OPS for op in ops):
            fixture["tolerance_class"] = "matmul"
        elif kind == "matmul":
            fixture["tolerance_class"] = "reduction"
        else:
            fixture["tolerance_class"] = "elementwise"
        fixture["input_generators"] = [s.gen for s in entry.inputs]
    if entry.notes:
        fixture["notes"] = entry.notes
    with open(os.path.join(out_dir, "fixture.json"), "w") as f:
        json.dump(fixture, f, indent=2)
        f.write("\n")
    return fixture


def _load_factory(spec):
    """The callable SPEC (`pkg.mod:factory` or `file.py:factory`) names."""
    import importlib
    import importlib.util
    where, sep, attr = spec.rpartition(":")
    if not sep or not where or not attr:
        raise ValueError(f"--module '{spec}': expected MODULE:FACTORY or FILE.py:FACTORY")
    if where.endswith(".py"):
        if not os.path.isfile(where):
            raise ValueError(f"--module '{spec}': no file '{where}'")
        name = "_spyre_user_" + os.path.splitext(os.path.basename(where))[0]
        mod_spec = importlib.util.spec_from_file_location(name, where)
        mod = importlib.util.module_from_spec(mod_spec)
        sys.modules[name] = mod
        mod_spec.loader.exec_module(mod)
    else:
        sys.path.insert(0, os.getcwd())
        mod = importlib.import_module(where)
    factory = getattr(mod, attr, None)
    if not callable(factory):
        raise ValueError(f"--module '{spec}': '{where}' has no callable '{attr}'")
    return factory


def _input_spec(text):
    """models.In of one --input-shape value: SIZES[:DTYPE[:GEN]]."""
    sizes, _, rest = text.partition(":")
    dtype, _, gen = rest.partition(":")
    try:
        shape = tuple(int(v) for v in sizes.split(",")) if sizes.strip() else ()
    except ValueError:
        raise ValueError(f"--input-shape '{text}': sizes must be integers, e.g. 1,16,128")
    if any(v < 0 for v in shape):
        raise ValueError(f"--input-shape '{text}': sizes must not be negative")
    if dtype and dtype not in models.DTYPE_NAMES:
        raise ValueError(f"--input-shape '{text}': unknown dtype '{dtype}' "
                         f"(known: {', '.join(models.DTYPE_NAMES)})")
    return models.In(shape, dtype or "f", gen or "normal")


def register_user_module(spec, input_shapes):
    """Adds the user's module to the zoo (this process only) under the name
    `module:SPEC` and returns that name."""
    factory = _load_factory(spec)
    if not input_shapes:
        raise ValueError("--module needs one --input-shape per forward() argument")
    name = "module:" + spec
    factory_name = spec.rpartition(":")[2]
    models.ZOO[name] = models.ZooEntry(
        name, f"{spec} (--module)", factory, [], ("fp32",), "fp32",
        inputs=[_input_spec(t) for t in input_shapes],
        dir_name="".join(c if c.isalnum() or c == "_" else "_" for c in factory_name))
    return name


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", help="zoo model name (see --list)")
    p.add_argument("--module", metavar="SPEC",
                   help="your own nn.Module: pkg.mod:factory or file.py:factory")
    p.add_argument("--input-shape", action="append", default=[], metavar="SIZES[:DTYPE[:GEN]]",
                   help="with --module: one per forward() argument, e.g. 1,16,128 or 4,8:int64")
    p.add_argument("--out-dir", required=False)
    p.add_argument("--dtype", choices=["fp16", "fp32", "mixed"], default=None,
                   help="default: the model's default dtype")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tracer", choices=["auto", "torch.export", "make_fx"],
                   default="auto")
    p.add_argument("--intermediates", action="store_true",
                   help="also write the value of every graph node as "
                        "OUT_DIR/intermediates/NODE.npy (computed from the archive by "
                        "reference_interpreter.py): spyre-run --check --reference "
                        "OUT_DIR/intermediates names the first node that differs")
    p.add_argument("--list", action="store_true", help="list zoo models and exit")
    p.add_argument("--list-fixtures", action="store_true",
                   help="print '<model> <dtype>' for every committed fixture and exit")
    if argv is None:
        argv = sys.argv[1:]
    if "--list" in argv:
        for n, e in models.ZOO.items():
            print(f"{n:36s} {','.join(e.dtypes):10s} {e.description}")
        return 0
    if "--all" in argv:  # every committed fixture into ROOT/<dir>, one process
        root = argv[argv.index("--all") + 1]
        seed = 0
        for n, e in models.ZOO.items():
            for d in e.dtypes:
                out = os.path.join(root, fixture_dir_name(n, d))
                if os.path.isdir(out):
                    for f in os.listdir(out):
                        os.remove(os.path.join(out, f))
                export(n, d, seed, out)
                print(f"wrote {out}")
        return 0
    if "--list-fixtures" in argv:  # "<model> <dtype> <dir>" per committed fixture
        for n, e in models.ZOO.items():
            for d in e.dtypes:
                print(n, d, fixture_dir_name(n, d))
        return 0
    a = p.parse_args(argv)
    if not a.out_dir:
        p.error("--out-dir is required")
    if bool(a.model) == bool(a.module):
        p.error("give one of --model and --module")
    if a.module:
        try:
            a.model = register_user_module(a.module, a.input_shape)
        except (ValueError, ImportError) as e:
            p.error(str(e))
    elif a.input_shape:
        p.error("--input-shape goes with --module (zoo models have their own inputs)")
    if a.model not in models.ZOO:
        p.error(f"unknown model '{a.model}'; known: {', '.join(models.ZOO)}")
    dtype = a.dtype or models.ZOO[a.model].default_dtype
    if a.module:
        try:
            fx = export(a.model, dtype, a.seed, a.out_dir, a.tracer)
        except Exception as e:  # the user's code: say which step failed, no traceback
            p.error(f"exporting --module {a.module} failed: {type(e).__name__}: {e}")
    else:
        fx = export(a.model, dtype, a.seed, a.out_dir, a.tracer)
    print(f"wrote {a.out_dir}: {fx['name']} ops={fx['ops']}")
    if a.intermediates:
        import reference_interpreter
        nodes = os.path.join(a.out_dir, "intermediates")
        reference_interpreter.run(a.out_dir, intermediates=nodes)
        print(f"wrote {nodes}: {len(os.listdir(nodes))} node values")
    return 0


if __name__ == "__main__":
    sys.exit(main())
