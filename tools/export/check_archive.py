#!/usr/bin/python3
"""Consistency checker for .pt2 archives (and fixture directories).

    /usr/bin/python3 tools/export/check_archive.py PATH [PATH ...]

PATH is a .pt2 file, a bare exported-program .json, or a fixture directory
(model.pt2 + input_*.npy + output_*.npy + fixture.json).  Needs only the
Python standard library (numpy for fixture directories).  Checks:

* zip layout: one root folder, archive_format == "pt2", archive_version,
  exactly one models/<name>.json per model
* JSON: schema_version.major == 8, every union object has exactly one known
  tag, every TensorMeta is well formed
* graph: every tensor a node reads is a graph input or an earlier node output,
  every name is defined once, every defined tensor has a tensor_values entry
* signature: input_specs/output_specs match graph inputs/outputs one to one,
  in order
* weights: every parameter/persistent buffer has a weights config entry whose
  file exists and is large enough for sizes/strides/storage_offset/dtype;
  non-persistent buffers and tensor constants likewise in the constants config
* fixture: input_<i>.npy / output_<i>.npy match the user inputs/outputs
  (shape and dtype; bfloat16 stored as float32 when fixture.json says so)
* symbolic shapes: SymInt values ({"as_expr": ...}) are well formed, every
  as_sym_int / as_sym_ints name is defined (sym_int_values) before use
* torch 2.6-2.8 layout (data/weights/model.pt pickles, no payload configs):
  reported as a note, and every pickle in the archive (nested torch.save
  zips included) is scanned with pickletools.genops -- never unpickled --
  for GLOBAL / STACK_GLOBAL / INST names outside the weights-only allowlist

Exit status 0 when everything passes; problems are printed one a line.
"""

import json
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep tools/export free of __pycache__
sys.path.insert(0, HERE)

from pt2_format import (ARGUMENT_TAGS, INPUT_SPEC_TAGS, OUTPUT_SPEC_TAGS,  # noqa: E402
                        SCALAR_TYPE, SCALAR_TYPE_ITEMSIZE, storage_nbytes_needed)

NP_DTYPE_TO_SCALAR = {"float16": 6, "float32": 7, "float64": 8, "int64": 5,
                      "int32": 4, "int16": 3, "int8": 2, "uint8": 1, "bool": 12}


NOTES = []

# globals a weights-only unpickler of torch.save'd tensors needs (a subset of
# torch/_weights_only_unpickler.py _get_allowed_globals)
ALLOWED_GLOBALS = {
    ("collections", "OrderedDict"), ("torch._utils", "_rebuild_tensor_v2"),
    ("torch._utils", "_rebuild_parameter"), ("torch._utils", "_rebuild_parameter_with_state"),
    ("torch._tensor", "_rebuild_from_type_v2"), ("torch", "Size"), ("torch", "device"),
    ("torch.nn.parameter", "Parameter"), ("torch", "Tensor"), ("_codecs", "encode"),
    ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "bytearray"),
    ("torch.serialization", "_get_layout"),
} | {("torch", f"{t}Storage") for t in (
    "Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool",
    "ComplexFloat", "ComplexDouble")} | {("torch.storage", "UntypedStorage")} | {
    ("torch", d) for d in ("float16", "float32", "float64", "bfloat16", "int64", "int32",
                           "int16", "int8", "uint8", "bool", "strided")}


def pickle_globals(data):
    """(module, name) of every GLOBAL / STACK_GLOBAL / INST in a pickle, read
    with pickletools.genops (which decodes opcodes and never executes).
    Strings are followed through the memo: STACK_GLOBAL's operands are the
    last two strings pushed, directly or by a memo get."""
    import pickletools
    out, strings, memo = [], [], {}
    top = None  # the string on top of the stack, when the last push was one
    for op, arg, _pos in pickletools.genops(data):
        if op.name in ("GLOBAL", "INST"):
            mod, _, name = arg.partition(" ")
            out.append((mod, name))
        elif op.name == "STACK_GLOBAL":
            out.append((strings[-2], strings[-1]) if len(strings) >= 2 else ("?", "?"))
        if isinstance(arg, str) and op.name.endswith(("UNICODE", "STRING", "BINSTRING")):
            strings.append(arg)
            top = arg
        elif op.name == "MEMOIZE":
            memo[len(memo)] = top  # every memoized object takes an index
        elif op.name in ("BINPUT", "LONG_BINPUT", "PUT"):
            memo[arg] = top
        elif op.name in ("BINGET", "LONG_BINGET", "GET"):
            top = memo.get(arg)
            if top is not None:
                strings.append(top)
        elif op.name not in ("FRAME", "PROTO"):
            top = None
    return out


def scan_pickles(name, data):
    """Problems with the pickles in one archive member: a nested torch.save
    zip is opened and its data.pkl scanned; a bare pickle is scanned."""
    import io
    msgs = []
    blobs = []
    if data[:4] == b"PK\x03\x04":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                for n in z.namelist():
                    if n.endswith(".pkl"):
                        blobs.append((f"{name}:{n}", z.read(n)))
        except Exception as e:  # noqa: BLE001
            return [f"{name}: not a readable zip: {e}"]
    elif data[:1] == b"\x80":
        blobs.append((name, data))
    for where, blob in blobs:
        try:
            globs = pickle_globals(blob)
        except Exception as e:  # noqa: BLE001
            msgs.append(f"{where}: malformed pickle: {e}")
            continue
        for mod, gname in globs:
            if (mod, gname) not in ALLOWED_GLOBALS:
                msgs.append(f"{where}: pickle references disallowed global {mod}.{gname}")
    return msgs


class Problems(list):
    def add(self, where, msg):
        self.append(f"{where}: {msg}")


def _union(p, where, obj, tags):
    if not isinstance(obj, dict) or len(obj) != 1:
        p.add(where, f"union must be an object with exactly one key, got {obj!r}"[:200])
        return None, None
    tag, val = next(iter(obj.items()))
    if tag not in tags:
        p.add(where, f"unknown union tag '{tag}'")
        return None, None
    return tag, val


def _check_sym_int(p, where, s):
    tag, val = _union(p, where, s, ("as_expr", "as_int"))
    if tag == "as_expr":
        if not isinstance(val, dict) or not isinstance(val.get("expr_str"), str):
            p.add(where, f"as_expr needs an expr_str string, got {val!r}"[:200])
        elif val.get("hint") is not None:
            _union(p, where + ".hint", val["hint"], ("as_int", "as_bool", "as_float"))
    elif tag == "as_int" and not isinstance(val, int):
        p.add(where, f"as_int is not an integer: {val!r}")


def _int_or_none(s):
    return s.get("as_int") if isinstance(s, dict) else None


def _check_tensor_meta(p, where, tm):
    keys = ["dtype", "sizes", "requires_grad", "device", "strides",
            "storage_offset", "layout"]
    for k in keys:
        if k not in tm:
            p.add(where, f"TensorMeta missing '{k}'")
            return
    if tm["dtype"] not in SCALAR_TYPE.values():
        p.add(where, f"unknown ScalarType {tm['dtype']}")
    if len(tm["sizes"]) != len(tm["strides"]):
        p.add(where, "sizes and strides differ in rank")
    for v in tm["sizes"] + tm["strides"] + [tm["storage_offset"]]:
        _check_sym_int(p, where + ".sym_int", v)


def _arg_tensor_names(p, where, arg):
    """Tensor names an Argument reads."""
    tag, val = _union(p, where, arg, ARGUMENT_TAGS)
    if tag == "as_tensor":
        return [val["name"]]
    if tag == "as_tensors":
        return [v["name"] for v in val]
    if tag == "as_optional_tensors":
        out = []
        for v in val:
            t, vv = _union(p, where, v, ("as_tensor", "as_none"))
            if t == "as_tensor":
                out.append(vv["name"])
        return out
    if tag == "as_optional_tensor":
        t, vv = _union(p, where, val, ("as_tensor", "as_none"))
        return [vv["name"]] if t == "as_tensor" else []
    return []


def _arg_sym_names(p, where, arg):
    """SymInt/SymFloat/SymBool names an Argument reads ({"as_name": n})."""
    if not isinstance(arg, dict) or len(arg) != 1:
        return []
    tag, val = next(iter(arg.items()))
    items = []
    if tag in ("as_sym_int", "as_sym_float", "as_sym_bool"):
        items = [val]
    elif tag in ("as_sym_ints", "as_sym_floats", "as_sym_bools"):
        items = val
    out = []
    for v in items:
        t, vv = _union(p, where, v, ("as_name", "as_int", "as_float", "as_bool"))
        if t == "as_name":
            out.append(vv)
    return out


def check_program(p, ep, where="model.json"):
    sv = ep.get("schema_version", {})
    if sv.get("major") != 8:
        p.add(where, f"schema_version.major is {sv.get('major')}, expected 8")
    for k in ("graph_module", "opset_version", "range_constraints", "schema_version"):
        if k not in ep:
            p.add(where, f"missing top-level key '{k}'")
    gm = ep.get("graph_module", {})
    g = gm.get("graph", {})
    tv = g.get("tensor_values", {})
    for name, tm in tv.items():
        _check_tensor_meta(p, f"{where}: tensor_values[{name}]", tm)
    sym_values = g.get("sym_int_values", {}) or {}
    for name, sv in sym_values.items():
        _check_sym_int(p, f"{where}: sym_int_values[{name}]", sv)
    defined = []
    sym_defined = set()
    for i, a in enumerate(g.get("inputs", [])):
        defined += _arg_tensor_names(p, f"{where}: graph.inputs[{i}]", a)
        sym_defined.update(_arg_sym_names(p, f"{where}: graph.inputs[{i}]", a))
    node_names = set()
    seen = set()
    for n in defined:
        if n in seen:
            p.add(where, f"graph input '{n}' defined twice")
        seen.add(n)
    for i, node in enumerate(g.get("nodes", [])):
        nw = f"{where}: node[{i}] {node.get('target')}"
        for k in ("target", "inputs", "outputs", "metadata"):
            if k not in node:
                p.add(nw, f"missing '{k}'")
        if node.get("name") is not None:  # schema >= 8.15: the FX node name
            if not isinstance(node["name"], str) or node["name"] in node_names:
                p.add(nw, f"node name {node['name']!r} is not a unique string")
            node_names.add(node["name"])
        for na in node.get("inputs", []):
            for k in ("name", "arg"):
                if k not in na:
                    p.add(nw, f"NamedArgument missing '{k}'")
            for t in _arg_tensor_names(p, nw + f" input '{na.get('name')}'", na.get("arg")):
                if t not in seen:
                    p.add(nw, f"reads tensor '{t}' that is not defined before this node")
            for t in _arg_sym_names(p, nw + f" input '{na.get('name')}'", na.get("arg")):
                if t not in sym_defined:
                    p.add(nw, f"reads SymInt '{t}' that is not defined before this node")
        for o in node.get("outputs", []):
            for t in _arg_tensor_names(p, nw + " output", o):
                if t in seen:
                    p.add(nw, f"output '{t}' defined twice")
                seen.add(t)
                if t not in tv:
                    p.add(nw, f"output '{t}' has no tensor_values entry")
            for t in _arg_sym_names(p, nw + " output", o):
                if t in sym_defined:
                    p.add(nw, f"SymInt output '{t}' defined twice")
                sym_defined.add(t)
                if t not in sym_values:
                    p.add(nw, f"SymInt output '{t}' has no sym_int_values entry")
    for t in defined:
        if t not in tv:
            p.add(where, f"graph input '{t}' has no tensor_values entry")
    outs = []
    for i, a in enumerate(g.get("outputs", [])):
        names = _arg_tensor_names(p, f"{where}: graph.outputs[{i}]", a)
        for t in names:
            if t not in seen:
                p.add(where, f"graph output '{t}' is never defined")
        outs.append(names)

    sig = gm.get("signature", {})
    ins = sig.get("input_specs", [])
    if len(ins) != len(g.get("inputs", [])):
        p.add(where, f"{len(ins)} input_specs for {len(g.get('inputs', []))} graph inputs")
    spec_inputs = []
    for i, (spec, a) in enumerate(zip(ins, g.get("inputs", []))):
        tag, val = _union(p, f"{where}: input_specs[{i}]", spec, INPUT_SPEC_TAGS)
        if tag is None:
            continue
        if tag == "user_input":
            names = _arg_tensor_names(p, f"{where}: input_specs[{i}]", val["arg"])
        elif tag == "constant_input":
            names = []
        else:
            names = [val["arg"]["name"]]
        if names != _arg_tensor_names(p, f"{where}: graph.inputs[{i}]", a):
            p.add(where, f"input_specs[{i}] names {names} do not match graph input {a}")
        spec_inputs.append((tag, val))
    osp = sig.get("output_specs", [])
    if len(osp) != len(outs):
        p.add(where, f"{len(osp)} output_specs for {len(outs)} graph outputs")
    for i, (spec, names) in enumerate(zip(osp, outs)):
        tag, val = _union(p, f"{where}: output_specs[{i}]", spec, OUTPUT_SPEC_TAGS)
        if tag is None:
            continue
        if tag == "user_output":
            sn = _arg_tensor_names(p, f"{where}: output_specs[{i}]", val["arg"])
        else:
            sn = [val["arg"]["name"]]
        if sn != names:
            p.add(where, f"output_specs[{i}] names {sn} do not match graph output {names}")
    return spec_inputs, tv, outs


def _check_payloads(p, files, config_name, directory, wanted, tv):
    if config_name not in files:
        if wanted:
            p.add(config_name, "missing")
        return
    try:
        cfg = json.loads(files[config_name])["config"]
    except Exception as e:  # noqa: BLE001
        p.add(config_name, f"invalid: {e}")
        return
    for fqn, arg_name in wanted:
        if fqn not in cfg:
            p.add(config_name, f"no entry for '{fqn}'")
            continue
        pm = cfg[fqn]
        if pm.get("use_pickle"):
            continue
        tm = pm.get("tensor_meta")
        _check_tensor_meta(p, f"{config_name}[{fqn}]", tm)
        fname = directory + pm["path_name"]
        if fname not in files:
            p.add(config_name, f"'{fqn}' -> {fname} is not in the archive")
            continue
        need = storage_nbytes_needed(tm)
        have = len(files[fname])
        if have < need:
            p.add(fname, f"{have} bytes, but '{fqn}' needs {need}")
        if have % SCALAR_TYPE_ITEMSIZE.get(tm["dtype"], 1):
            p.add(fname, f"{have} bytes is not a whole number of elements")
        g = tv.get(arg_name)
        if g is not None and ([_int_or_none(v) for v in g["sizes"]] !=
                              [_int_or_none(v) for v in tm["sizes"]] or g["dtype"] != tm["dtype"]):
            p.add(config_name, f"'{fqn}' shape/dtype differ from graph value '{arg_name}'")


def check_archive(path):
    p = Problems()
    try:
        z = zipfile.ZipFile(path)
    except Exception as e:  # noqa: BLE001
        p.add(path, f"not a zip archive: {e}")
        return p, None
    with z:
        names = z.namelist()
        if not names:
            p.add(path, "empty archive")
            return p, None
        root = names[0].split("/", 1)[0] + "/"
        files = {}
        for n in names:
            if not n.startswith(root):
                p.add(path, f"'{n}' is not under the root folder '{root}'")
                continue
            try:
                files[n[len(root):]] = z.read(n)
            except Exception as e:  # noqa: BLE001
                p.add(path, f"cannot read '{n}': {e}")
    for name, data in files.items():
        if name.endswith((".pt", ".pkl")) or data[:2] == b"PK" and name.endswith(".pt"):
            for msg in scan_pickles(name, data):
                p.add(path, msg)
    if files.get("archive_format") != b"pt2":
        p.add(path, f"archive_format is {files.get('archive_format')!r}, expected b'pt2'")
    if files.get("archive_version") != b"0":
        p.add(path, f"archive_version is {files.get('archive_version')!r}, expected b'0'")
    models = [n for n in files if n.startswith("models/") and n.endswith(".json")]
    if not models:
        p.add(path, "no models/<name>.json in the archive")
        return p, None
    result = None
    for m in models:
        model_name = m[len("models/"):-len(".json")]
        try:
            ep = json.loads(files[m])
        except Exception as e:  # noqa: BLE001
            p.add(m, f"invalid JSON: {e}")
            continue
        spec_inputs, tv, outs = check_program(p, ep, m)
        weights, consts = [], []
        for tag, val in spec_inputs:
            if tag == "parameter":
                weights.append((val["parameter_name"], val["arg"]["name"]))
            elif tag == "buffer":
                (weights if val["persistent"] else consts).append(
                    (val["buffer_name"], val["arg"]["name"]))
            elif tag == "tensor_constant":
                consts.append((val["tensor_constant_name"], val["arg"]["name"]))
        legacy_w = f"data/weights/{model_name}.pt"
        if legacy_w in files and f"data/weights/{model_name}_weights_config.json" not in files:
            NOTES.append(f"{path}: torch 2.6-2.8 layout: weights/constants are torch.save "
                         f"pickles ({legacy_w}); payload checks skipped")
            for name in (legacy_w, f"data/constants/{model_name}.pt"):
                if name not in files:
                    p.add(path, f"{name} missing")
        else:
            _check_payloads(p, files, f"data/weights/{model_name}_weights_config.json",
                            "data/weights/", weights, tv)
            _check_payloads(p, files, f"data/constants/{model_name}_constants_config.json",
                            "data/constants/", consts, tv)
        if f"data/sample_inputs/{model_name}.pt" not in files:
            p.add(path, f"data/sample_inputs/{model_name}.pt missing (torch.export.load needs it)")
        result = (ep, spec_inputs, tv, outs)
    return p, result


def _npy_matches(a, tm, entry):
    """input/output .npy vs TensorMeta; bfloat16 is stored as float32 when
    the fixture.json entry says "stored_as": "float32"."""
    sizes = [s.get("as_int") for s in tm["sizes"]]
    if list(a.shape) != sizes:
        return False
    want = tm["dtype"]
    if want == SCALAR_TYPE["BFLOAT16"]:
        return str(a.dtype) == "float32" and (entry or {}).get("stored_as") == "float32"
    return NP_DTYPE_TO_SCALAR.get(str(a.dtype)) == want


def check_fixture_dir(d):
    import numpy as np
    p, result = check_archive(os.path.join(d, "model.pt2"))
    if result is None:
        return p
    ep, spec_inputs, tv, outs = result
    user_inputs = [val["arg"]["as_tensor"]["name"] for tag, val in spec_inputs
                   if tag == "user_input"]
    fx = json.load(open(os.path.join(d, "fixture.json")))
    fin, fout = fx.get("inputs", []), fx.get("outputs", [])
    for i, name in enumerate(user_inputs):
        f = os.path.join(d, f"input_{i}.npy")
        if not os.path.exists(f):
            p.add(d, f"missing input_{i}.npy")
            continue
        a = np.load(f)
        if not _npy_matches(a, tv[name], fin[i] if i < len(fin) else None):
            p.add(f, f"{a.shape} {a.dtype} does not match graph input '{name}'")
    for i, names in enumerate(outs):
        f = os.path.join(d, f"output_{i}.npy")
        if not os.path.exists(f):
            p.add(d, f"missing output_{i}.npy")
            continue
        a = np.load(f)
        if not _npy_matches(a, tv[names[0]], fout[i] if i < len(fout) else None):
            p.add(f, f"{a.shape} {a.dtype} does not match graph output '{names[0]}'")
        if not fx.get("nonfinite_outputs") and not np.all(np.isfinite(a.astype(np.float64))):
            p.add(f, "non-finite reference values (fixture.json does not declare "
                     "nonfinite_outputs)")
    if len(fin) != len(user_inputs) or len(fout) != len(outs):
        p.add(d, "fixture.json input/output lists do not match the graph")
    tols = fx.get("output_tolerances")
    if tols is not None and len(tols) != len(outs):
        p.add(d, "fixture.json output_tolerances does not have one entry per output")
    return p


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    bad = 0
    for path in argv:
        if os.path.isdir(path):
            p = check_fixture_dir(path)
        elif path.endswith(".json"):
            p = Problems()
            try:
                check_program(p, json.load(open(path)), path)
            except Exception as e:  # noqa: BLE001
                p.add(path, f"invalid: {e}")
        else:
            p, _ = check_archive(path)
        for line in p:
            print(line)
        for line in NOTES:
            print("note:", line)
        NOTES.clear()
        print(f"{'FAIL' if p else 'ok  '} {path}")
        bad += bool(p)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
