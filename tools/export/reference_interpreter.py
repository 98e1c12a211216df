#!/usr/bin/python3
"""Runs a fixture's exported graph with numpy, reading only the archive.

    /usr/bin/python3 tools/export/reference_interpreter.py FIXTURE_DIR [...]

A second, independent reader of the format (zipfile + json + numpy; no
torch): it takes the weights from data/weights/ through the weights config
(dtype, sizes, strides, storage_offset), the inputs from input_<i>.npy,
interprets models/model.json node by node in float64, and compares with
output_<i>.npy using the tolerance in fixture.json.  It is the executable
form of docs/pt2-format.md for the ops of the fixture zoo, and a model for
the C++ importer's reading of the archive.
"""

import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep tools/export free of __pycache__
sys.path.insert(0, HERE)

from pt2_format import read_archive  # noqa: E402

NP_DTYPES = {1: np.uint8, 2: np.int8, 3: np.int16, 4: np.int32, 5: np.int64,
             6: np.float16, 7: np.float32, 8: np.float64, 12: np.bool_}


def _ints(syms):
    out = []
    for s in syms:
        (tag, v), = s.items()
        if tag != "as_int":
            raise ValueError(f"symbolic value {s} not supported")
        out.append(v)
    return out


def load_payload(files, directory, config_file):
    if config_file not in files:
        return {}
    cfg = json.loads(files[config_file])["config"]
    out = {}
    for fqn, pm in cfg.items():
        if pm["use_pickle"]:
            raise ValueError(f"{fqn}: pickled payloads not supported")
        tm = pm["tensor_meta"]
        dt = NP_DTYPES[tm["dtype"]]
        flat = np.frombuffer(files[directory + pm["path_name"]], dtype=dt)
        sizes, strides = _ints(tm["sizes"]), _ints(tm["strides"])
        off = _ints([tm["storage_offset"]])[0]
        item = flat.itemsize
        out[fqn] = np.lib.stride_tricks.as_strided(
            flat[off:], shape=sizes, strides=[s * item for s in strides]).copy()
    return out


def _gelu(x, approximate):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def _scalar(a):
    (tag, v), = a.items()
    if tag in ("as_int", "as_float", "as_bool"):
        return v
    raise ValueError(f"expected a scalar, got {a}")


OPS = {
    "torch.ops.aten.linear.default":
        lambda a: a["input"] @ a["weight"].T + (a["bias"] if a.get("bias") is not None else 0),
    "torch.ops.aten.addmm.default":
        lambda a: a.get("beta", 1) * a["self"] + a.get("alpha", 1) * (a["mat1"] @ a["mat2"]),
    "torch.ops.aten.mm.default": lambda a: a["self"] @ a["mat2"],
    "torch.ops.aten.matmul.default": lambda a: np.matmul(a["self"], a["other"]),
    "torch.ops.aten.t.default": lambda a: a["self"].T,
    "torch.ops.aten.permute.default": lambda a: np.transpose(a["self"], a["dims"]),
    "torch.ops.aten.add.Tensor": lambda a: a["self"] + a.get("alpha", 1) * a["other"],
    "torch.ops.aten.mul.Tensor": lambda a: a["self"] * a["other"],
    "torch.ops.aten.relu.default": lambda a: np.maximum(a["self"], 0),
    "torch.ops.aten.gelu.default": lambda a: _gelu(a["self"], a.get("approximate", "none")),
}


def run(fixture_dir):
    _root, files, _order = read_archive(os.path.join(fixture_dir, "model.pt2"))
    ep = json.loads(files["models/model.json"])
    weights = load_payload(files, "data/weights/", "data/weights/model_weights_config.json")
    consts = load_payload(files, "data/constants/", "data/constants/model_constants_config.json")
    g = ep["graph_module"]["graph"]
    env = {}
    user_i = 0
    for spec in ep["graph_module"]["signature"]["input_specs"]:
        (tag, v), = spec.items()
        if tag == "parameter":
            env[v["arg"]["name"]] = weights[v["parameter_name"]]
        elif tag == "buffer":
            env[v["arg"]["name"]] = (weights if v["persistent"] else consts)[v["buffer_name"]]
        elif tag == "tensor_constant":
            env[v["arg"]["name"]] = consts[v["tensor_constant_name"]]
        elif tag == "user_input":
            env[v["arg"]["as_tensor"]["name"]] = np.load(
                os.path.join(fixture_dir, f"input_{user_i}.npy"))
            user_i += 1
        else:
            raise ValueError(f"input spec {tag} not supported")
    for name, x in list(env.items()):
        tm = g["tensor_values"][name]
        assert list(x.shape) == _ints(tm["sizes"]), (name, x.shape)
        assert x.dtype == NP_DTYPES[tm["dtype"]], (name, x.dtype)
        env[name] = x.astype(np.float64)
    for node in g["nodes"]:
        args = {}
        for na in node["inputs"]:
            (tag, v), = na["arg"].items()
            if tag == "as_tensor":
                args[na["name"]] = env[v["name"]]
            elif tag == "as_none":
                args[na["name"]] = None
            elif tag in ("as_int", "as_float", "as_bool", "as_string", "as_ints", "as_floats"):
                args[na["name"]] = v
            else:
                raise ValueError(f"argument tag {tag} not supported")
        out = OPS[node["target"]](args)
        (otag, ov), = node["outputs"][0].items()
        name = ov["name"]
        assert list(out.shape) == _ints(g["tensor_values"][name]["sizes"]), (node, out.shape)
        env[name] = out
    fx = json.load(open(os.path.join(fixture_dir, "fixture.json")))
    tol = fx["tolerance"]
    worst = 0.0
    for i, o in enumerate(g["outputs"]):
        got = env[o["as_tensor"]["name"]]
        ref = np.load(os.path.join(fixture_dir, f"output_{i}.npy")).astype(np.float64)
        err = np.abs(got - ref) - (tol["atol"] + tol["rtol"] * np.abs(ref))
        worst = max(worst, float(np.max(np.abs(got - ref))))
        if np.any(err > 0):
            return False, worst
    return True, worst


def main(argv):
    bad = 0
    for d in argv:
        ok, worst = run(d)
        print(f"{'ok  ' if ok else 'FAIL'} {d} max|diff|={worst:.3g}")
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
