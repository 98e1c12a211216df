#!/usr/bin/python3
"""Generates the importer robustness inputs (test/Target/Import/Inputs/).

Unlike make_bad_inputs.py (one defect per file), these are archives that a
correct importer must handle (or reject for a specific, documented reason):
older and newer schema minors, the torch 2.6-2.8 pickled-weights layout,
pickles naming disallowed globals, aliased/strided weights, symbolic sizes,
multi-output nodes with `_unused_` outputs, mutation outputs, constants and
ZIP64 records.  Expected behaviour per file: test/Target/Import/Inputs/README.md.
Deterministic.

    /usr/bin/python3 tools/export/make_import_inputs.py \
        --models-dir test/e2e/models --out-dir test/Target/Import/Inputs

Nothing here unpickles anything: the crafted pickles are written as bytes and
only ever inspected with pickletools.genops (check_archive.py).
"""

import argparse
import copy
import io
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep tools/export free of __pycache__
sys.path.insert(0, HERE)

import torch  # noqa: E402

from pt2_format import (finish_records, read_archive, to_json_bytes,  # noqa: E402
                        write_zip64_records, write_zip_records)

MODEL_JSON = "models/model.json"
TRAILER = ("archive_format", "archive_version", ".data/version", "byteorder",
           ".data/serialization_id")


def load(path):
    _root, files, order = read_archive(path)
    return [(n, files[n]) for n in order]


def strip_trailer(records):
    return [(n, d) for n, d in records if n not in TRAILER]


def edit_json(records, fn):
    recs = strip_trailer(records)
    ep = json.loads(dict(recs)[MODEL_JSON])
    new = copy.deepcopy(ep)
    new = fn(new) or new
    return [(n, to_json_bytes(new) if n == MODEL_JSON else d) for n, d in recs]


def torch_save_bytes(obj):
    buf = io.BytesIO()
    torch.save(obj, buf, pickle_protocol=2)  # serialize.py DEFAULT_PICKLE_PROTOCOL
    return buf.getvalue()


# ----------------------------------------------------------------------------
# (1) torch 2.6-2.8 archive: pickled weights, no payload configs
# ----------------------------------------------------------------------------


def legacy_pickled(mlp_records, state_dict):
    recs = strip_trailer(mlp_records)
    files = dict(recs)
    ep = json.loads(files[MODEL_JSON])
    ep["schema_version"] = {"major": 8, "minor": 8}
    ep.pop("guards_code", None)  # added after torch 2.8
    out = [("data/weights/model.pt", torch_save_bytes(state_dict)),
           ("data/constants/model.pt", torch_save_bytes({})),
           (MODEL_JSON, to_json_bytes(ep))]
    out += [(n, d) for n, d in recs if n.startswith(("data/sample_inputs/", "extra/"))]
    return out


# ----------------------------------------------------------------------------
# (2) pickles that name a disallowed global (never called, never unpickled)
# ----------------------------------------------------------------------------


def _binunicode(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def pickle_os_system():
    """Protocol 2: OrderedDict() then {'fc1.weight': os.system}; GLOBAL
    opcodes 'collections OrderedDict' (allowed) and 'os system' (not).
    No REDUCE is applied to os.system: even an unrestricted unpickler would
    only look the name up.  A restricted unpickler must reject the GLOBAL."""
    return (b"\x80\x02"                         # PROTO 2
            b"ccollections\nOrderedDict\n"      # GLOBAL
            b")R"                               # EMPTY_TUPLE, REDUCE -> OrderedDict()
            b"q\x00"                            # BINPUT 0
            b"(" + _binunicode("fc1.weight") +  # MARK, key
            b"cos\nsystem\n"                    # GLOBAL os.system
            b"u"                                # SETITEMS
            b".")                               # STOP


def pickle_stack_global_eval():
    """Protocol 4: {'fc1.weight': builtins.eval} via STACK_GLOBAL (module and
    name pushed as strings first).  Not called."""
    body = (b"}"                                            # EMPTY_DICT
            b"\x8c\x0afc1.weight"                           # SHORT_BINUNICODE key
            b"\x8c\x08builtins" b"\x8c\x04eval" b"\x93"     # STACK_GLOBAL
            b"s"                                            # SETITEM
            b".")
    return b"\x80\x04" + b"\x95" + struct.pack("<Q", len(body)) + body


def nested_zip_with_pkl(pkl, like):
    """A torch.save-style zip (archive/data.pkl, archive/version) whose
    data.pkl is `pkl`; written with torch's own writer like torch.save."""
    import tempfile
    _r, files, order = read_archive(like)
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "archive")
        w = torch._C.PyTorchFileWriter(p)
        w.write_record("data.pkl", pkl, len(pkl))
        v = files["version"]
        w.write_record("version", v, len(v))
        w.write_end_of_file()
        return open(p, "rb").read()


def torch_save_zip(records, zip64=False):
    """A torch.save file holding `records` ((name, bytes) under archive/),
    written with torch's own writer (or in forced ZIP64 form)."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "archive")
        if zip64:
            write_zip64_records(p, records, root="archive")
        else:
            w = torch._C.PyTorchFileWriter(p)
            for n, data in records:
                w.write_record(n, data, len(data))
            w.write_end_of_file()
        return open(p, "rb").read()


def pickle_variants(legacy, state_dict):
    """(file name, records) of the restricted-unpickler variants of the
    legacy archive: other pickle forms the reader must accept, and broken
    nested files it must reject."""
    weights = dict(legacy)["data/weights/model.pt"]
    _r, inner, order = read_archive(weights)
    inner_records = [(n, inner[n]) for n in order]

    def with_weights(data):
        return [(n, data if n == "data/weights/model.pt" else d) for n, d in legacy]

    buf = io.BytesIO()
    torch.save(state_dict, buf, pickle_protocol=4)  # FRAME, MEMOIZE, STACK_GLOBAL
    pkl = inner["data.pkl"]
    return [
        ("legacy_pickled_weights_proto4.pt2", with_weights(buf.getvalue())),
        ("legacy_pickled_weights_zip64.pt2",
         with_weights(torch_save_zip(inner_records, zip64=True))),
        ("pickle_missing_storage.pt2",
         with_weights(torch_save_zip([(n, d) for n, d in inner_records if n != "data/3"]))),
        ("pickle_truncated.pt2",
         with_weights(torch_save_zip([(n, pkl[:300] if n == "data.pkl" else d)
                                      for n, d in inner_records]))),
    ]


def deflated_copy(src, dst):
    """`src` re-zipped with every entry deflated, as a zip tool would leave
    it: same names and order, DOS time 1980-01-01, nothing aligned.  The
    importer cannot map such entries in place and decompresses them."""
    import zipfile
    with zipfile.ZipFile(src) as zin, \
            zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            out = zipfile.ZipInfo(info.filename, (1980, 1, 1, 0, 0, 0))
            out.compress_type = zipfile.ZIP_DEFLATED
            out.create_system = 3  # Unix, whatever the host
            zout.writestr(out, zin.read(info), compresslevel=9)


# ----------------------------------------------------------------------------
# (5) symbolic batch dimension
# ----------------------------------------------------------------------------

S0 = "Symbol('s0', integer=True, positive=True)"


def sym(expr, hint):
    return {"as_expr": {"expr_str": expr, "hint": {"as_int": hint}}}


def symbolic_batch(records, batch):
    """The training-IR program of

        y = relu(self.lin(x))               # x: f16[s0, 128]
        z = y.view(x.shape[0], 2, 32)       # sym_size.int(x, 0) feeds view
        return z.transpose(0, 1).reshape(2, -1)

    exported with dynamic_shapes={"x": {0: Dim("batch", min=1, max=64)}}:
    sizes/strides that depend on the batch are SymInt {"as_expr": ...} with
    expr_str = sympy.srepr(expr) and the example value as hint
    (serialize_sym_int); the SymInt value x.shape[0] is a node of its own
    (aten.sym_size.int, output {"as_sym_int": {"as_name": ...}}, value in
    sym_int_values) passed to view as {"as_sym_ints": [...]};
    range_constraints {"s0": {"min_val": 1, "max_val": 64}}."""
    def fn(ep):
        g = ep["graph_module"]["graph"]
        tv = g["tensor_values"]
        s0 = sym(S0, batch)
        s32 = sym(f"Mul(Integer(32), {S0})", 32 * batch)
        tv["x"]["sizes"][0] = s0
        tv["linear"]["sizes"][0] = s0
        tv["relu"]["sizes"][0] = s0
        tv["view"]["sizes"][0] = s0
        tv["transpose"]["sizes"][1] = s0
        tv["reshape"]["sizes"][1] = s32
        tv["reshape"]["strides"][0] = s32
        nodes = g["nodes"]
        vi = next(i for i, n in enumerate(nodes) if n["target"] == "torch.ops.aten.view.default")
        view = nodes[vi]
        size_arg = view["inputs"][1]
        assert size_arg["name"] == "size"
        size_arg["arg"] = {"as_sym_ints": [{"as_name": "sym_size_int_1"}, {"as_int": 2},
                                           {"as_int": 32}]}
        sym_node = {
            "target": "torch.ops.aten.sym_size.int",
            "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1},
                       {"name": "dim", "arg": {"as_int": 0}, "kind": 1}],
            "outputs": [{"as_sym_int": {"as_name": "sym_size_int_1"}}],
            "metadata": {k: v for k, v in view["metadata"].items() if k != "torch_fn"},
            "is_hop_single_tensor_return": None,
        }
        nodes.insert(vi, sym_node)
        g["sym_int_values"] = {"sym_size_int_1": s0}
        ep["range_constraints"] = {"s0": {"min_val": 1, "max_val": 64}}
        return ep
    return edit_json(records, fn)


class SymbolicBatchModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(128, 64)

    def forward(self, x):
        y = torch.nn.functional.relu(self.lin(x))
        z = y.view(x.shape[0], 2, 32)
        return z.transpose(0, 1).reshape(2, -1)


# ----------------------------------------------------------------------------
# (6) ATen dialect (after run_decompositions): functional mutations
# ----------------------------------------------------------------------------


class MutationFunctional(torch.nn.Module):
    """What ep.run_decompositions() makes of zoo_ops.InplaceMutation: the
    in-place updates become functional ops whose results are extra outputs."""

    def __init__(self, n=67):
        super().__init__()
        self.register_buffer("count", torch.zeros(7, n))
        self.register_buffer("scale", torch.full((n,), 0.5), persistent=False)
        self.offset = torch.linspace(-1.0, 1.0, n)

    def forward(self, x):
        new_count = self.count + x
        new_x = x * 2.0
        m = torch.max(new_x * self.scale + self.offset, -1).values
        return new_count, new_x, m, new_count * 1.0


def mutation_aten_ir(ep):
    """Signature of the ATen dialect: outputs [buffer_mutation(count),
    user_input_mutation(x), user outputs...]; aot_export DCE leaves max.dim's
    unused indices without a getitem, so it is serialized <node>_unused_1."""
    g = ep["graph_module"]["graph"]
    outs = [o["as_tensor"]["name"] for o in g["outputs"]]
    for n in g["nodes"]:
        if n["target"] == "torch.ops.aten.max.dim":
            dead = n["outputs"][1]["as_tensor"]["name"]
            new = "max_1_unused_1"
            n["outputs"][1] = {"as_tensor": {"name": new}}
            g["tensor_values"][new] = g["tensor_values"].pop(dead)
    sig = ep["graph_module"]["signature"]
    sig["output_specs"] = [
        {"buffer_mutation": {"arg": {"name": outs[0]}, "buffer_name": "count"}},
        {"user_input_mutation": {"arg": {"name": outs[1]}, "user_input_name": "x"}},
        {"user_output": {"arg": {"as_tensor": {"name": outs[2]}}}},
        {"user_output": {"arg": {"as_tensor": {"name": outs[3]}}}},
    ]
    # the module returns (max values, count * 1.0)
    leaf = {"type": None, "context": None, "children_spec": []}
    root = ep["graph_module"]["module_call_graph"][0]["signature"]
    root["out_spec"] = json.dumps([1, {"type": "builtins.tuple", "context": "null",
                                       "children_spec": [leaf, leaf]}])
    ep["verifiers"] = ["ATEN"]
    # ATen dialect values do not require grad (aot_export traces below autograd)
    for tm in g["tensor_values"].values():
        tm["requires_grad"] = False
    return ep


def export_records(module, args, provenance_note):
    import legacy_tracer
    ep, state, consts, notes = legacy_tracer.export_program(module, args)
    return ep, state, consts, notes


def write_program(path, ep, state, consts, args, note):
    import export_model
    prov = {"producer": "spyre-mlir tools/export/make_import_inputs.py",
            "torch_version": torch.__version__, "note": note}
    export_model.write_legacy_archive(path, ep, state, consts, args, prov)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models-dir", required=True)
    ap.add_argument("--out-dir", required=True)
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    out = lambda n: os.path.join(a.out_dir, n)  # noqa: E731
    lin = load(os.path.join(a.models_dir, "linear_relu_fp32", "model.pt2"))
    mlp_path = os.path.join(a.models_dir, "mlp_fp16", "model.pt2")
    mlp = load(mlp_path)

    # (1) torch 2.6-2.8 layout with pickled weights (mlp_fp16)
    import models
    module, _inputs, _e = models.build("mlp", "fp16", 0)
    state_dict = dict(module.state_dict(keep_vars=True))  # nn.Parameters, like ep.state_dict
    legacy = legacy_pickled(mlp, state_dict)
    write_zip_records(out("legacy_pickled_weights_2_8.pt2"), finish_records(legacy))
    deflated_copy(out("legacy_pickled_weights_2_8.pt2"),
                  out("legacy_pickled_weights_deflated.pt2"))

    # (2) disallowed globals inside data/weights/model.pt
    inner_like = dict(legacy)["data/weights/model.pt"]
    for fname, pkl in (("pickle_global_os_system.pt2", pickle_os_system()),
                       ("pickle_stack_global_eval.pt2", pickle_stack_global_eval())):
        bad = [(n, nested_zip_with_pkl(pkl, inner_like) if n == "data/weights/model.pt" else d)
               for n, d in legacy]
        write_zip_records(out(fname), finish_records(bad))

    # (2b) other pickle forms and broken nested torch.save files
    for fname, recs in pickle_variants(legacy, state_dict):
        write_zip_records(out(fname), finish_records(recs))

    # (3) aliased / strided weights: the e2e fixture op_weights_aliased_fp32
    al = load(os.path.join(a.models_dir, "op_weights_aliased_fp32", "model.pt2"))
    write_zip_records(out("aliased_weights.pt2"), al)

    # (4) schema minor variants of linear_relu_fp32
    def minor_8_2(ep):
        ep["schema_version"] = {"major": 8, "minor": 2}
        for k in ("guards_code", "torch_version"):
            ep.pop(k, None)
        for n in ep["graph_module"]["graph"]["nodes"]:
            n.pop("is_hop_single_tensor_return", None)

    def minor_8_8(ep):
        ep["schema_version"] = {"major": 8, "minor": 8}
        ep.pop("guards_code", None)

    def minor_8_20(ep):
        ep["schema_version"] = {"major": 8, "minor": 20}
        for n in ep["graph_module"]["graph"]["nodes"]:
            n["name"] = n["outputs"][0]["as_tensor"]["name"]  # the FX node name

    for fname, fn in (("schema_minor_8_2.pt2", minor_8_2), ("schema_minor_8_8.pt2", minor_8_8),
                      ("schema_minor_8_20.pt2", minor_8_20)):
        write_zip_records(out(fname), finish_records(edit_json(lin, fn)))

    # (5) symbolic batch dimension
    torch.manual_seed(0)
    sm = SymbolicBatchModule().half().eval()
    x = (torch.randn(4, 128, generator=torch.Generator().manual_seed(1))).half()
    ep, state, consts, _n = export_records(sm, (x,), "")
    tmp = out("symbolic_batch.tmp.pt2")
    write_program(tmp, ep, state, consts, (x,), "dynamic batch dim, hand-symbolized")
    write_zip_records(out("symbolic_batch.pt2"), finish_records(symbolic_batch(load(tmp), 4)))
    os.remove(tmp)
    sb = dict(load(out("symbolic_batch.pt2")))
    with open(out("symbolic_batch.model.json"), "wb") as f:
        f.write(sb[MODEL_JSON])

    # (6) mutation: training IR (the e2e fixture) and ATen dialect
    mt = load(os.path.join(a.models_dir, "op_mutation_inplace_fp32", "model.pt2"))
    write_zip_records(out("mutation_training_ir.pt2"), mt)
    torch.manual_seed(0)
    mf = MutationFunctional().eval()
    x = torch.randn(7, 67, generator=torch.Generator().manual_seed(1))
    ep, state, consts, _n = export_records(mf, (x,), "")
    ep = mutation_aten_ir(ep)
    write_program(out("mutation_aten_ir.pt2"), ep, state, consts, (x,),
                  "ATen dialect (run_decompositions) form of op_mutation_inplace, hand-derived")

    # (7) higher-order ops: wrap_with_set_grad_enabled / wrap_with_autocast
    # regions (inlined) and torch.cond (refused)
    write_zip_records(out("hop_wrapped_mlp.pt2"), finish_records(edit_json(mlp, hop_wrapped_mlp)))
    write_zip_records(out("hop_cond.pt2"), finish_records(edit_json(lin, hop_unsupported)))

    # (8) the ATen-IR (CUDA) form of SDPA: a fused kernel with SymInt outputs
    sdpa = load(os.path.join(a.models_dir, "op_sdpa_causal_fp16", "model.pt2"))
    write_zip_records(out("aten_ir_flash_sdpa.pt2"), finish_records(edit_json(sdpa, aten_ir_flash_sdpa)))

    # (9) ZIP64 records everywhere
    write_zip64_records(out("zip64_forced.pt2"), lin, root="zip64_forced")
    print(f"wrote importer robustness inputs to {a.out_dir}")


def _tensor_names(arg):
    (tag, v), = arg.items()
    if tag == "as_tensor":
        return [v["name"]]
    if tag in ("as_tensors", "as_optional_tensors"):
        return [t["name"] if "name" in t else t["as_tensor"]["name"]
                for t in v if "name" in t or "as_tensor" in t]
    return []


def wrap_in_hop(graph, start, end, target, leading, submod):
    """Moves graph["nodes"][start:end] into a subgraph called through the
    higher-order op `target`, as torch.export's training IR records a
    region under torch.no_grad() (wrap_with_set_grad_enabled(False, submod,
    *args)) or torch.autocast (wrap_with_autocast(device, dtype, enabled,
    cache, submod, *args)); serialize_hoo_inputs writes the HOP's arguments
    unnamed, the submodule as {"as_graph": {name, graph}}.  The subgraph's
    placeholders keep the outer names and its outputs are returned under
    the same names outside, so inner and outer scopes share names (as FX
    submodules do).  Returns the subgraph."""
    nodes, tv = graph["nodes"], graph["tensor_values"]
    inner = nodes[start:end]
    defined = [n for node in inner for o in node["outputs"] for n in _tensor_names(o)]
    used = []
    for node in inner:
        for i in node["inputs"]:
            for n in _tensor_names(i["arg"]):
                if n not in defined and n not in used:
                    used.append(n)
    later = {n for node in nodes[end:] for i in node["inputs"] for n in _tensor_names(i["arg"])}
    later |= {n for o in graph["outputs"] for n in _tensor_names(o)}
    outs = [n for n in defined if n in later]
    tensor = lambda n: {"as_tensor": {"name": n}}  # noqa: E731
    sub = {"inputs": [tensor(n) for n in used], "outputs": [tensor(n) for n in outs],
           "nodes": inner, "tensor_values": {n: tv[n] for n in used + defined},
           "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": False,
           "custom_obj_values": {}, "sym_float_values": {}}
    arg = lambda a: {"name": "", "arg": a, "kind": 1}  # noqa: E731
    hop = {"target": target,
           "inputs": [arg(a) for a in leading]
           + [arg({"as_graph": {"name": submod, "graph": sub}})]
           + [arg(tensor(n)) for n in used],
           "outputs": [tensor(n) for n in outs],
           "metadata": copy.deepcopy(inner[0]["metadata"]),
           "is_hop_single_tensor_return": None}
    nodes[start:end] = [hop]
    for n in defined:
        if n not in outs:
            del tv[n]
    return sub


def hop_wrapped_mlp(ep):
    """mlp_fp16 as an HF model under export looks: gelu and fc2 in a
    wrap_with_set_grad_enabled(False) region, gelu itself nested in a
    wrap_with_autocast('cpu', None, False, None) region."""
    g = ep["graph_module"]["graph"]
    sub = wrap_in_hop(g, 1, 3, "torch.ops.higher_order.wrap_with_set_grad_enabled",
                      [{"as_bool": False}], "submod_1")
    wrap_in_hop(sub, 0, 1, "torch.ops.higher_order.wrap_with_autocast",
                [{"as_string": "cpu"}, {"as_none": True}, {"as_bool": False},
                 {"as_none": True}], "submod_2")


def hop_unsupported(ep):
    """A torch.cond node (data-dependent control flow): refused by name."""
    g = ep["graph_module"]["graph"]
    wrap_in_hop(g, 1, 2, "torch.ops.higher_order.cond", [{"as_bool": True}], "true_graph_0")


def aten_ir_flash_sdpa(ep):
    """op_sdpa_causal_fp16 as ep.run_decompositions() writes it for a CUDA
    export: aten._scaled_dot_product_flash_attention with its nine outputs,
    two of them SymInts (max_q, max_k), only the first one read."""
    g = ep["graph_module"]["graph"]
    node = g["nodes"][0]
    out = node["outputs"][0]["as_tensor"]["name"]
    node["target"] = "torch.ops.aten._scaled_dot_product_flash_attention.default"
    node["inputs"] = [i for i in node["inputs"] if i["name"] in ("query", "key", "value")] + [
        {"name": "is_causal", "arg": {"as_bool": True}, "kind": 1}]
    tv = g["tensor_values"]
    meta = tv[out]
    def tensor(name, dtype, sizes):
        tv[name] = dict(meta, dtype=dtype, sizes=[{"as_int": s} for s in sizes],
                        strides=[{"as_int": 1} for _ in sizes])
        return {"as_tensor": {"name": name}}
    q = [s["as_int"] for s in meta["sizes"]]
    g.setdefault("sym_int_values", {}).update(
        {"flash_max_q": {"as_int": q[2]}, "flash_max_k": {"as_int": q[2]}})
    node["outputs"] = [
        {"as_tensor": {"name": out}},
        tensor("flash_logsumexp", 7, q[:3]),
        tensor("flash_cum_seq_q", 4, [0]),
        tensor("flash_cum_seq_k", 4, [0]),
        {"as_sym_int": {"as_name": "flash_max_q"}},
        {"as_sym_int": {"as_name": "flash_max_k"}},
        tensor("flash_rng_state", 4, [2]),
        tensor("flash_unused", 4, [0]),
        tensor("flash_debug_attn_mask", 6, [0])]


if __name__ == "__main__":
    main()
