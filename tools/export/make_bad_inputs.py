#!/usr/bin/python3
"""Generates the importer's bad-input fixtures (test/Target/Import/Inputs/).

Each fixture is derived from the good linear_relu_fp32 fixture (x[2,4] ->
aten.linear (weight [3,4], bias [3]) -> aten.relu) by one targeted change, so
every file exercises exactly one failure.  The expected diagnostics are listed in
test/Target/Import/Inputs/README.md.  Deterministic.

    /usr/bin/python3 tools/export/make_bad_inputs.py \
        --models-dir test/e2e/models --out-dir test/Target/Import/Inputs
"""

import argparse
import copy
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep tools/export free of __pycache__
sys.path.insert(0, HERE)

from pt2_format import read_archive, to_json_bytes, write_zip_records  # noqa: E402

MODEL_JSON = "models/model.json"


def load(path):
    _root, files, order = read_archive(path)
    return [(n, files[n]) for n in order]


def write(path, records):
    # records already contain the trailer (archive_format, .data/version, ...)
    write_zip_records(path, records)


def replace(records, name, data):
    out = [(n, data if n == name else d) for n, d in records]
    assert any(n == name for n, _ in records), name
    return out


def edit_json(records, fn):
    ep = json.loads(dict(records)[MODEL_JSON])
    new = copy.deepcopy(ep)
    new = fn(new) or new
    assert new != ep, "edit had no effect"
    return replace(records, MODEL_JSON, to_json_bytes(new))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models-dir", required=True)
    ap.add_argument("--out-dir", required=True)
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    out = lambda n: os.path.join(a.out_dir, n)  # noqa: E731

    lin_path = os.path.join(a.models_dir, "linear_relu_fp32", "model.pt2")
    relu_path = os.path.join(a.models_dir, "relu_fp16", "model.pt2")
    mlp_path = os.path.join(a.models_dir, "mlp_fp16", "model.pt2")
    lin = load(lin_path)
    relu = lin  # the graph-level edits use the same small archive

    # 1. not a zip at all
    with open(out("not_a_zip.pt2"), "wb") as f:
        f.write(b"this is not a zip archive; spyre-translate --import-pt2 must reject it\n")

    # 2. truncated zip: the first half of a valid archive (no central directory)
    data = open(lin_path, "rb").read()
    with open(out("truncated.pt2"), "wb") as f:
        f.write(data[: len(data) // 2])

    # 3. valid zip, valid pt2 markers, but no models/*.json
    write(out("missing_model_json.pt2"), [(n, d) for n, d in relu if n != MODEL_JSON])

    # 4. models/model.json is not JSON
    write(out("invalid_json.pt2"),
          replace(relu, MODEL_JSON, dict(relu)[MODEL_JSON][:-40] + b",,,"))

    # 5/6. schema major versions 7 and 9
    def major(v):
        def f(ep):
            ep["schema_version"] = {"major": v, "minor": 0}
        return f
    write(out("schema_major_7.pt2"), edit_json(relu, major(7)))
    write(out("schema_major_9.pt2"), edit_json(relu, major(9)))

    # 7. unknown Argument union tag in a node input
    def unknown_tag(ep):
        arg = ep["graph_module"]["graph"]["nodes"][0]["inputs"][0]
        arg["arg"] = {"as_quantum_tensor": arg["arg"]["as_tensor"]}
    write(out("unknown_argument_tag.pt2"), edit_json(relu, unknown_tag))

    # 8. a node reads a tensor that is never defined
    def undefined(ep):
        ep["graph_module"]["graph"]["nodes"][0]["inputs"][0]["arg"] = \
            {"as_tensor": {"name": "never_defined"}}
    write(out("undefined_tensor.pt2"), edit_json(relu, undefined))

    # 9. weight file shorter than its weights_config entry says
    cfg = json.loads(dict(lin)["data/weights/model_weights_config.json"])["config"]
    wpath = "data/weights/" + cfg["linear.weight"]["path_name"]
    write(out("short_weight.pt2"), replace(lin, wpath, dict(lin)[wpath][:20]))

    # 10. unsupported dtype: the user input x as complex64
    #     (ScalarType.COMPLEXFLOAT = 10, a valid schema value Spyre can't run)
    def complex_dtype(ep):
        ep["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = 10
    write(out("unsupported_dtype.pt2"), edit_json(relu, complex_dtype))

    # 11. dtype code that is not a ScalarType at all
    def bogus_dtype(ep):
        ep["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = 99
    write(out("invalid_dtype_code.pt2"), edit_json(relu, bogus_dtype))

    # 12. weights config points at a file that is not in the archive
    write(out("missing_weight_file.pt2"), [(n, d) for n, d in lin if n != wpath])

    # 13/14. valid bare exported-program JSON files (models/model.json alone)
    for src, name in ((relu_path, "relu_fp16.model.json"),
                      (mlp_path, "mlp_fp16.model.json")):
        recs = dict(load(src))
        with open(out(name), "wb") as f:
            f.write(recs[MODEL_JSON])
    print(f"wrote bad-input fixtures to {a.out_dir}")


if __name__ == "__main__":
    main()
