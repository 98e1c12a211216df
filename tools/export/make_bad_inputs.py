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
import zipfile
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

    # 7b. unknown union tags outside the nodes: a graph input (an Argument),
    #     an InputSpec and a size (a SymInt); none may be skipped
    def unknown_graph_input_tag(ep):
        g = ep["graph_module"]["graph"]
        g["inputs"][0] = {"as_qubit": g["inputs"][0]["as_tensor"]}
    write(out("unknown_graph_input_tag.pt2"), edit_json(relu, unknown_graph_input_tag))

    def unknown_input_spec_tag(ep):
        specs = ep["graph_module"]["signature"]["input_specs"]
        specs[0] = {"user_qubit": next(iter(specs[0].values()))}
    write(out("unknown_input_spec_tag.pt2"), edit_json(relu, unknown_input_spec_tag))

    def unknown_sym_int_tag(ep):
        values = ep["graph_module"]["graph"]["tensor_values"]
        meta = values[sorted(values)[0]]
        meta["sizes"][0] = {"as_symbol": meta["sizes"][0]["as_int"]}
    write(out("unknown_sym_int_tag.pt2"), edit_json(relu, unknown_sym_int_tag))

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

    # 15-18. hostile tensor_meta in the weights config: views that would
    #        read outside their file if the importer trusted them
    def edit_config(fn):
        name = "data/weights/model_weights_config.json"
        doc = json.loads(dict(lin)[name])
        fn(doc["config"]["linear.weight"]["tensor_meta"])
        return replace(lin, name, json.dumps(doc).encode())

    def negative_stride(meta):
        meta["strides"] = [{"as_int": -4}, {"as_int": 1}]
        meta["storage_offset"] = {"as_int": 8}
    write(out("weight_negative_stride.pt2"), edit_config(negative_stride))

    def missing_strides(meta):
        meta["strides"] = [{"as_int": 4}]
    write(out("weight_missing_strides.pt2"), edit_config(missing_strides))

    def symbolic_offset(meta):
        meta["storage_offset"] = {"as_expr": {"expr_str": "Symbol('s9')", "hint": {"as_int": 0}}}
    write(out("weight_symbolic_offset.pt2"), edit_config(symbolic_offset))

    def overflowing_stride(meta):
        # (3 - 1) * 2^62 wraps to 2^63 and, times 4 bytes, to 0 in 64 bits.
        meta["strides"] = [{"as_int": 2 ** 62}, {"as_int": 1}]
    write(out("weight_overflowing_stride.pt2"), edit_config(overflowing_stride))

    # 19. the torch <= 2.7 torch.export.save zip: a plain zipfile zip (no
    #     root folder, no alignment), not the PT2 archive layout
    ep_json = dict(lin)[MODEL_JSON]
    with zipfile.ZipFile(out("legacy_export_save_2_7.pt2"), "w",
                         zipfile.ZIP_STORED) as z:
        for name, data in (("serialized_exported_program.json", ep_json),
                           ("serialized_state_dict.pt", b""),
                           ("serialized_constants.pt", b""),
                           ("version", b"8.2")):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            z.writestr(info, data)

    # 20-25. bare JSON variants of symbolic_batch.model.json (written by
    #        make_import_inputs.py, run first): broken symbolic values and
    #        nodes, and the shape guards of a dynamic export
    sym_path = out("symbolic_batch.model.json")
    if os.path.exists(sym_path):
        sym = json.load(open(sym_path))

        def variant(name, fn):
            doc = copy.deepcopy(sym)
            fn(doc["graph_module"]["graph"])
            with open(out(name), "w") as f:
                json.dump(doc, f, sort_keys=True)

        def node(graph, target):
            return next(n for n in graph["nodes"] if n["target"] == target)

        def undefined_sym(graph):
            size = node(graph, "torch.ops.aten.view.default")["inputs"][1]["arg"]
            size["as_sym_ints"][0] = {"as_name": "sym_size_int_9"}
        variant("sym_undefined.model.json", undefined_sym)

        def missing_sym_value(graph):
            del graph["sym_int_values"]["sym_size_int_1"]
        variant("sym_missing_value.model.json", missing_sym_value)

        def bad_expr(graph):
            graph["tensor_values"]["x"]["sizes"][0]["as_expr"]["expr_str"] = \
                "Symbol('s0') $ 2"
        variant("sym_bad_expr.model.json", bad_expr)

        def zero_division(graph):
            graph["tensor_values"]["x"]["sizes"][0]["as_expr"]["expr_str"] = \
                "FloorDiv(Symbol('s0', integer=True), Integer(0))"
        variant("sym_zero_division.model.json", zero_division)

        def defined_twice(graph):
            graph["nodes"].insert(1, copy.deepcopy(graph["nodes"][1]))
        variant("node_defined_twice.model.json", defined_twice)

        def malformed_union(graph):
            node(graph, "torch.ops.aten.relu.default")["inputs"][0]["arg"] = []
        variant("malformed_union.model.json", malformed_union)

        def guards(graph):
            # torch.export's guard on the batch: sym_size(x, 0) <= 64,
            # asserted (the bool is computed by an operator node).
            i = graph["nodes"].index(node(graph, "torch.ops.aten.view.default"))
            graph["nodes"][i:i] = [
                {"target": "_operator.le",
                 "inputs": [{"name": "", "arg": {"as_sym_int": {"as_name": "sym_size_int_1"}}, "kind": 1},
                            {"name": "", "arg": {"as_int": 64}, "kind": 1}],
                 "outputs": [{"as_sym_bool": {"as_name": "le"}}], "metadata": {}},
                {"target": "torch.ops.aten._assert_scalar.default",
                 "inputs": [{"name": "self", "arg": {"as_sym_bool": {"as_name": "le"}}, "kind": 1},
                            {"name": "assert_msg", "arg": {"as_string": "Runtime assertion failed for expression s0 <= 64"}, "kind": 1}],
                 "outputs": [{"as_none": True}], "metadata": {}},
            ]
            graph["sym_bool_values"] = {"le": {"as_expr": {"expr_str": "s0 <= 64"}}}
        variant("sym_guards.model.json", guards)

        def inplace(graph, nodes, values):
            i = graph["nodes"].index(node(graph, "torch.ops.aten.view.default"))
            graph["nodes"][i:i] = nodes
            graph["tensor_values"].update(values)

        def tensor(name):
            return {"as_tensor": {"name": name}}

        def inplace_view(graph):
            # x[:, :64].add_(relu): writes through a view of the input x
            tv = graph["tensor_values"]
            inplace(graph, [
                {"target": "torch.ops.aten.slice.Tensor",
                 "inputs": [{"name": "self", "arg": tensor("x"), "kind": 1},
                            {"name": "dim", "arg": {"as_int": 1}, "kind": 1},
                            {"name": "start", "arg": {"as_int": 0}, "kind": 1},
                            {"name": "end", "arg": {"as_int": 64}, "kind": 1}],
                 "outputs": [tensor("slice_1")], "metadata": {}},
                {"target": "torch.ops.aten.add_.Tensor",
                 "inputs": [{"name": "self", "arg": tensor("slice_1"), "kind": 1},
                            {"name": "other", "arg": tensor("relu"), "kind": 1}],
                 "outputs": [tensor("add_")], "metadata": {}},
            ], {"slice_1": copy.deepcopy(tv["relu"]), "add_": copy.deepcopy(tv["relu"])})
        variant("inplace_view.model.json", inplace_view)

        def inplace_expand_view(graph):
            # relu.expand(-1, -1).add_(relu): an expand view has no inverse
            tv = graph["tensor_values"]
            inplace(graph, [
                {"target": "torch.ops.aten.expand.default",
                 "inputs": [{"name": "self", "arg": tensor("relu"), "kind": 1},
                            {"name": "size", "arg": {"as_ints": [-1, -1]}, "kind": 1}],
                 "outputs": [tensor("expand_1")], "metadata": {}},
                {"target": "torch.ops.aten.add_.Tensor",
                 "inputs": [{"name": "self", "arg": tensor("expand_1"), "kind": 1},
                            {"name": "other", "arg": tensor("relu"), "kind": 1}],
                 "outputs": [tensor("add_")], "metadata": {}},
            ], {"expand_1": copy.deepcopy(tv["relu"]), "add_": copy.deepcopy(tv["relu"])})
        variant("inplace_expand_view.model.json", inplace_expand_view)

        def stale_view(graph):
            # a = x[:, :64]; b = x[:, 64:]; a.add_(relu); then b is read:
            # b still holds x's old contents, which is not supported
            tv = graph["tensor_values"]
            def slice_node(name, start, end):
                return {"target": "torch.ops.aten.slice.Tensor",
                        "inputs": [{"name": "self", "arg": tensor("x"), "kind": 1},
                                   {"name": "dim", "arg": {"as_int": 1}, "kind": 1},
                                   {"name": "start", "arg": {"as_int": start}, "kind": 1},
                                   {"name": "end", "arg": {"as_int": end}, "kind": 1}],
                        "outputs": [tensor(name)], "metadata": {}}
            inplace(graph, [
                slice_node("slice_1", 0, 64), slice_node("slice_2", 64, 128),
                {"target": "torch.ops.aten.add_.Tensor",
                 "inputs": [{"name": "self", "arg": tensor("slice_1"), "kind": 1},
                            {"name": "other", "arg": tensor("relu"), "kind": 1}],
                 "outputs": [tensor("add_")], "metadata": {}},
                {"target": "torch.ops.aten.add.Tensor",
                 "inputs": [{"name": "self", "arg": tensor("slice_2"), "kind": 1},
                            {"name": "other", "arg": tensor("relu"), "kind": 1}],
                 "outputs": [tensor("add_2")], "metadata": {}},
            ], {n: copy.deepcopy(tv["relu"]) for n in ("slice_1", "slice_2", "add_", "add_2")})
        variant("inplace_stale_view.model.json", stale_view)

        def inplace_parameter(graph):
            # lin.bias.mul_(2.0): parameters are read-only
            tv = graph["tensor_values"]
            inplace(graph, [
                {"target": "torch.ops.aten.mul_.Scalar",
                 "inputs": [{"name": "self", "arg": tensor("p_lin_bias"), "kind": 1},
                            {"name": "other", "arg": {"as_float": 2.0}, "kind": 1}],
                 "outputs": [tensor("mul_")], "metadata": {}},
            ], {"mul_": copy.deepcopy(tv["p_lin_bias"])})
        variant("inplace_parameter.model.json", inplace_parameter)

        # no range_constraints at all: the symbol is known from the sizes
        doc = copy.deepcopy(sym)
        doc["range_constraints"] = {}
        with open(out("sym_no_range.model.json"), "w") as f:
            json.dump(doc, f, sort_keys=True)

    # 26-33. bare JSON variants of hop_wrapped_mlp.pt2 (make_import_inputs.py):
    #        malformed higher-order op nodes
    hop_path = out("hop_wrapped_mlp.pt2")
    if os.path.exists(hop_path):
        hop_doc = json.loads(dict(load(hop_path))[MODEL_JSON])

        def hop_variant(name, fn):
            doc = copy.deepcopy(hop_doc)
            g = doc["graph_module"]["graph"]
            outer = next(n for n in g["nodes"] if "higher_order" in n["target"])
            fn(g, outer, outer["inputs"][1]["arg"]["as_graph"]["graph"])
            with open(out(name), "w") as f:
                json.dump(doc, f, sort_keys=True)

        def two_graphs(g, hop, sub):
            hop["inputs"].insert(2, copy.deepcopy(hop["inputs"][1]))
        hop_variant("hop_two_graphs.model.json", two_graphs)

        def no_graph(g, hop, sub):
            del hop["inputs"][1]
        hop_variant("hop_no_graph.model.json", no_graph)

        def operand_kind(g, hop, sub):
            hop["inputs"][2]["arg"] = {"as_int": 3}
        hop_variant("hop_operand_kind.model.json", operand_kind)

        def arity(g, hop, sub):
            del hop["inputs"][-1]
        hop_variant("hop_arity.model.json", arity)

        def output_count(g, hop, sub):
            hop["outputs"].append({"as_tensor": {"name": "extra"}})
        hop_variant("hop_output_count.model.json", output_count)

        def undefined_output(g, hop, sub):
            sub["outputs"] = [{"as_tensor": {"name": "nowhere"}}]
        hop_variant("hop_undefined_output.model.json", undefined_output)

        def inplace_inside(g, hop, sub):
            # fc2 writes its input in place: a rebinding that cannot reach
            # the caller's tensor
            sub["nodes"][-1]["target"] = "torch.ops.aten.relu_.default"
            sub["nodes"][-1]["inputs"] = sub["nodes"][-1]["inputs"][:1]
            sub["nodes"][-1]["inputs"][0]["name"] = "self"
        hop_variant("hop_inplace_inside.model.json", inplace_inside)

        def too_deep(g, hop, sub):
            # 17 wrap_with_set_grad_enabled levels around the subgraph
            body = sub
            for _ in range(17):
                wrapper = copy.deepcopy(hop)
                wrapper["inputs"][1]["arg"]["as_graph"]["graph"] = body
                body = copy.deepcopy(sub)
                body["nodes"] = [wrapper]
            hop["inputs"][1]["arg"]["as_graph"]["graph"] = body
        hop_variant("hop_too_deep.model.json", too_deep)

    # 13/14. valid bare exported-program JSON files (models/model.json alone)
    for src, name in ((relu_path, "relu_fp16.model.json"),
                      (mlp_path, "mlp_fp16.model.json")):
        recs = dict(load(src))
        with open(out(name), "wb") as f:
            f.write(recs[MODEL_JSON])
    print(f"wrote bad-input fixtures to {a.out_dir}")


if __name__ == "__main__":
    main()
