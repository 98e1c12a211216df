#!/usr/bin/python3
"""Writes a .pt2 archive of a stack of linear layers with a chosen amount of
weights, for the big-weights benchmark (bench/big-weights/README.md).

The graph is the same for every size: `--layers` aten.linear.default nodes
(no bias) chained on an fp16 input of `--tokens` rows, the layer widths
alternating d -> 2d -> d -> ...; only d changes, chosen as the largest
multiple of 64 whose weights (layers * 2 d^2 fp16 elements) fit in
`--weights` bytes.  So two archives differ in their matrix sizes and in
nothing else: same op count, same number of weights, same layouts.

The weights are pseudo-random fp16 values, generated and written chunk by
chunk (tools/export/pt2_format.py write_zip64_records with StreamedData):
memory stays at a few MiB whatever the size.  torch-free; numpy only.

    /usr/bin/python3 bench/big-weights/make_archive.py --weights 512M out.pt2
"""

import argparse
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "export"))

import numpy as np  # noqa: E402

from pt2_format import (SCALAR_TYPE, SCHEMA_VERSION, StreamedData,  # noqa: E402
                        finish_records, payload_meta, tensor_meta,
                        to_json_bytes, treespec_dumps, treespec_node, LEAF,
                        write_zip64_records)

FP16 = SCALAR_TYPE["HALF"]
CHUNK_ELEMS = 4 << 20  # 8 MiB of fp16 per piece


def parse_bytes(text):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper().rstrip("B").rstrip("I")
    unit = t[-1] if t and t[-1] in units else ""
    return int(float(t[:-1] if unit else t) * units[unit])


def pick_width(weight_bytes, layers):
    """Largest multiple of 64 with layers * 2 d^2 * 2 bytes <= weight_bytes."""
    d = int(math.isqrt(weight_bytes // (4 * layers))) // 64 * 64
    if d < 64:
        raise SystemExit(f"--weights {weight_bytes} is too small for {layers} layers")
    return d


def weight_chunks(elems, seed, scale):
    """Pseudo-random fp16 N(0, scale^2) values, CHUNK_ELEMS at a time."""
    def gen():
        rng = np.random.default_rng(seed)
        block = (rng.standard_normal(CHUNK_ELEMS, dtype=np.float32) * scale).astype(np.float16)
        left, k = elems, 0
        while left:
            n = min(left, CHUNK_ELEMS)
            # A different rotation per piece: not a constant pattern, no
            # per-piece random generation cost.
            piece = np.roll(block, (k * 7919) % CHUNK_ELEMS)[:n]
            yield piece.view(np.uint8)
            left -= n
            k += 1
    return gen


def tensor(name_sizes, requires_grad):
    sizes = list(name_sizes)
    strides = [int(np.prod(sizes[i + 1:])) for i in range(len(sizes))]
    return tensor_meta(FP16, sizes, strides, 0, requires_grad)


def build(layers, d, tokens):
    """(exported-program JSON, weights config, [(fqn, entry, shape)])."""
    widths = [d if i % 2 == 0 else 2 * d for i in range(layers + 1)]
    tv = {"x": tensor([tokens, widths[0]], False)}
    inputs, input_specs, nodes, weights, config = [], [], [], [], {}
    for i in range(layers):
        fqn = f"layers.{i}.weight"
        arg = f"p_layers_{i}_weight"
        shape = [widths[i + 1], widths[i]]
        tv[arg] = tensor(shape, True)
        inputs.append({"as_tensor": {"name": arg}})
        input_specs.append({"parameter": {"arg": {"name": arg}, "parameter_name": fqn}})
        entry = f"weight_{i}"
        config[fqn] = payload_meta(entry, True, tensor(shape, True))
        weights.append((fqn, entry, shape))
    inputs.append({"as_tensor": {"name": "x"}})
    input_specs.append({"user_input": {"arg": {"as_tensor": {"name": "x"}}}})
    prev = "x"
    for i in range(layers):
        out = "linear" if i == 0 else f"linear_{i}"
        tv[out] = tensor([tokens, widths[i + 1]], True)
        nodes.append({
            "target": "torch.ops.aten.linear.default",
            "inputs": [
                {"name": "input", "arg": {"as_tensor": {"name": prev}}, "kind": 1},
                {"name": "weight", "arg": {"as_tensor": {"name": f"p_layers_{i}_weight"}},
                 "kind": 1},
            ],
            "outputs": [{"as_tensor": {"name": out}}],
            "metadata": {"nn_module_stack": f"L__self__,,BigLinearStack;L__self__layers_{i},"
                                            f"layers.{i},torch.nn.modules.linear.Linear"},
            "is_hop_single_tensor_return": None,
        })
        prev = out
    in_spec = treespec_dumps(treespec_node("builtins.tuple", None, [
        treespec_node("builtins.tuple", None, [dict(LEAF)]),
        treespec_node("builtins.dict", [], [])]))
    program = {
        "graph_module": {
            "graph": {
                "inputs": inputs,
                "outputs": [{"as_tensor": {"name": prev}}],
                "nodes": nodes,
                "tensor_values": tv,
                "sym_int_values": {}, "sym_bool_values": {},
                "is_single_tensor_return": False, "custom_obj_values": {},
                "sym_float_values": {},
            },
            "signature": {"input_specs": input_specs,
                          "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": prev}}}}]},
            "module_call_graph": [{"fqn": "", "signature": {
                "inputs": [], "outputs": [], "in_spec": in_spec,
                "out_spec": treespec_dumps(dict(LEAF)), "forward_arg_names": ["x"]}}],
            "metadata": {}, "treespec_namedtuple_fields": {},
        },
        "opset_version": {"aten": 10},
        "range_constraints": {},
        "schema_version": {"major": SCHEMA_VERSION[0], "minor": SCHEMA_VERSION[1]},
        "verifiers": ["TRAINING"],
        "torch_version": "2.9.0",
        "guards_code": [],
    }
    return program, {"config": config}, weights


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="archive to write (.pt2)")
    ap.add_argument("--weights", default="512M",
                    help="weight bytes to aim for (K/M/G suffixes; the archive "
                         "gets the most that fits with widths a multiple of 64)")
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reference", metavar="PREFIX",
                    help="also write PREFIX.input_0.npy (a random fp16 input) and "
                         "PREFIX.output_0.npy (numpy's result, computed in fp32 and "
                         "rounded to fp16); small archives only")
    args = ap.parse_args(argv)

    d = pick_width(parse_bytes(args.weights), args.layers)
    program, config, weights = build(args.layers, d, args.tokens)
    records = []
    total = 0
    chunks = []
    for i, (fqn, entry, shape) in enumerate(weights):
        elems = shape[0] * shape[1]
        total += 2 * elems
        # N(0, 1/in): activations keep a unit scale through the stack.
        chunks.append(weight_chunks(elems, args.seed + i, 1 / math.sqrt(shape[1])))
        records.append(("data/weights/" + entry,
                        StreamedData(2 * elems, chunks[-1],
                                     tag=f"{fqn}:{shape}:{args.seed + i}")))
    records.append(("data/weights/model_weights_config.json", to_json_bytes(config)))
    records.append(("data/constants/model_constants_config.json",
                    to_json_bytes({"config": {}})))
    records.append(("models/model.json", to_json_bytes(program)))
    records.append(("extra/spyre_export_provenance.json", json.dumps({
        "producer": "spyre-mlir bench/big-weights/make_archive.py",
        "layers": args.layers, "width": d, "tokens": args.tokens,
        "weight_bytes": total, "seed": args.seed}, indent=1).encode()))
    if args.reference:
        if total > 64 << 20:
            raise SystemExit("--reference is for small archives (at most 64 MiB of weights)")
        rng = np.random.default_rng(args.seed + 1000)
        x = rng.uniform(-1, 1, (args.tokens, d)).astype(np.float16)
        y = x.astype(np.float32)
        for (fqn, entry, shape), gen in zip(weights, chunks):
            w = np.concatenate([np.frombuffer(p, np.float16) for p in gen()])
            y = y @ w.reshape(shape).astype(np.float32).T
            y = y.astype(np.float16).astype(np.float32)  # torch rounds each fp16 linear
        np.save(args.reference + ".input_0.npy", x)
        np.save(args.reference + ".output_0.npy", y.astype(np.float16))
    root = os.path.splitext(os.path.basename(args.out))[0]
    write_zip64_records(args.out, finish_records(records), root=root)
    print(json.dumps({"archive": args.out, "layers": args.layers, "width": d,
                      "tokens": args.tokens, "weight_bytes": total}))


if __name__ == "__main__":
    main()
