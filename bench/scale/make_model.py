#!/usr/bin/python3
"""Writes a whole-model .pt2 shaped like Granite-3.3-8B or Llama-3-8B with
deterministic filler weights, for the scale benchmark (bench/scale/README.md).

    /usr/bin/python3 bench/scale/make_model.py --shape granite-3.3-8b \\
        --layers 40 --mode prefill --tokens 1024 out.pt2

The model is the decoder as transformers writes it (embedding, per layer
RMSNorm, q/k/v projections, RoPE, causal grouped-query SDPA, o projection,
RMSNorm, SwiGLU MLP, residuals; final RMSNorm and LM head), with each
family's multipliers (Granite: embedding x12, residual x0.22, attention
scale 1/128, logits /16, LM head tied to the embedding). `--mode prefill`
takes `tokens` [1, T] and returns the logits of the last position;
`--mode decode` takes one token and its position over a KV cache of
`--tokens` positions (persistent buffers updated in place, index_copy),
attending under a mask of the positions written so far.

The graph is traced once with weights of one element each (expanded views:
the trace needs shapes, not values); the archive then gets every weight at
full size, written piece by piece from a seeded generator
(tools/export/pt2_format.py StreamedData, ZIP64): memory stays at a few MiB
whatever the model. The values are N(0, 1/fan_in), norms 1: activations
keep their scale, so timing-only and functional runs both make sense.
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
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import keep_ops  # noqa: E402
import legacy_tracer  # noqa: E402
from export_model import _package_payloads  # noqa: E402
from pt2_format import (CONSTANTS_DIR, SCALAR_TYPE, StreamedData,  # noqa: E402
                        TENSOR_CONSTANT_FILENAME_PREFIX, finish_records,
                        payload_meta, tensor_meta, to_json_bytes,
                        write_zip64_records)

# hidden, heads, kv heads, head dim, intermediate, vocab, multipliers:
# (embedding, residual, attention scale, logits divisor), tied LM head.
# Sources: the models' config.json on the Hugging Face hub
# (ibm-granite/granite-3.3-8b-instruct, meta-llama/Meta-Llama-3-8B).
SHAPES = {
    "granite-3.3-8b": dict(hidden=4096, heads=32, kv_heads=8, head_dim=128,
                           ffn=12800, vocab=49159, layers=40, embed_mult=12.0,
                           residual_mult=0.22, attn_scale=1.0 / 128, logits_div=16.0,
                           tied=True, eps=1e-5),
    "llama-3-8b": dict(hidden=4096, heads=32, kv_heads=8, head_dim=128,
                       ffn=14336, vocab=128256, layers=32, embed_mult=1.0,
                       residual_mult=1.0, attn_scale=1.0 / math.sqrt(128),
                       logits_div=1.0, tied=False, eps=1e-5),
}

CHUNK_ELEMS = 4 << 20  # 8 MiB of fp16 per piece
FP16 = SCALAR_TYPE["HALF"]


def placeholder(*shape):
    """A weight of the right shape and one element of storage."""
    return nn.Parameter(torch.zeros((), dtype=torch.float16).expand(*shape),
                        requires_grad=False)


class RMSNorm(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.weight = placeholder(c["hidden"])
        self.eps = c["eps"]

    def forward(self, x):
        return keep_ops.rms_norm(x, [x.shape[-1]], self.weight, self.eps)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Layer(nn.Module):
    def __init__(self, c, cache_len):
        super().__init__()
        self.c = c
        h, d = c["hidden"], c["head_dim"]
        self.input_layernorm = RMSNorm(c)
        self.q_proj = placeholder(c["heads"] * d, h)
        self.k_proj = placeholder(c["kv_heads"] * d, h)
        self.v_proj = placeholder(c["kv_heads"] * d, h)
        self.o_proj = placeholder(h, c["heads"] * d)
        self.post_attention_layernorm = RMSNorm(c)
        self.gate_proj = placeholder(c["ffn"], h)
        self.up_proj = placeholder(c["ffn"], h)
        self.down_proj = placeholder(h, c["ffn"])
        if cache_len:  # written in place: real storage (a few MiB a layer)
            shape = (1, c["kv_heads"], cache_len, d)
            self.register_buffer("k_cache", torch.zeros(shape, dtype=torch.float16))
            self.register_buffer("v_cache", torch.zeros(shape, dtype=torch.float16))

    def forward(self, x, cos, sin, pos, mask):
        c = self.c
        b, s, _ = x.shape
        d = c["head_dim"]
        n = self.input_layernorm(x)
        q = F.linear(n, self.q_proj).view(b, s, c["heads"], d).transpose(1, 2)
        k = F.linear(n, self.k_proj).view(b, s, c["kv_heads"], d).transpose(1, 2)
        v = F.linear(n, self.v_proj).view(b, s, c["kv_heads"], d).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if pos is not None:  # decode: write this position, attend the cache
            self.k_cache.index_copy_(2, pos, k)
            self.v_cache.index_copy_(2, pos, v)
            k, v = self.k_cache, self.v_cache
        a = keep_ops.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, is_causal=mask is None,
            scale=c["attn_scale"], enable_gqa=True)
        a = a.transpose(1, 2).reshape(b, s, c["heads"] * d)
        x = x + F.linear(a, self.o_proj) * c["residual_mult"]
        n = self.post_attention_layernorm(x)
        m = F.linear(F.silu(F.linear(n, self.gate_proj)) * F.linear(n, self.up_proj),
                     self.down_proj)
        return x + m * c["residual_mult"]


class Decoder(nn.Module):
    def __init__(self, c, layers, cache_len):
        super().__init__()
        self.c = c
        self.embed_tokens = placeholder(c["vocab"], c["hidden"])
        self.layers = nn.ModuleList([Layer(c, cache_len) for _ in range(layers)])
        self.norm = RMSNorm(c)
        if not c["tied"]:
            self.lm_head = placeholder(c["vocab"], c["hidden"])

    def rope(self, positions):
        d = self.c["head_dim"]
        inv = 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
        f = positions.float()[:, None] * inv[None, :]
        e = torch.cat((f, f), dim=-1)
        return e.cos().to(torch.float16)[None, None], e.sin().to(torch.float16)[None, None]

    def run(self, tokens, positions, pos, mask):
        c = self.c
        x = F.embedding(tokens, self.embed_tokens) * c["embed_mult"]
        cos, sin = self.rope(positions)
        for layer in self.layers:
            x = layer(x, cos, sin, pos, mask)
        x = self.norm(x[:, -1:])
        head = self.embed_tokens if c["tied"] else self.lm_head
        return F.linear(x, head) / c["logits_div"]


class Prefill(Decoder):
    def forward(self, tokens):
        return self.run(tokens, torch.arange(tokens.shape[1]), None, None)


class Decode(Decoder):
    def forward(self, token, pos):
        cache = self.layers[0].k_cache.shape[2]
        # Positions after `pos` are not written yet: masked.
        allowed = torch.arange(cache)[None, :] <= pos[:, None]
        mask = torch.where(allowed, 0.0, float("-inf")).to(torch.float16)[None, None]
        return self.run(token, pos, pos, mask)


def filler(elems, seed, scale, offset):
    """N(offset, scale^2) fp16 values, CHUNK_ELEMS at a time, the same on
    every call."""
    def gen():
        rng = np.random.default_rng(seed)
        block = (rng.standard_normal(CHUNK_ELEMS, dtype=np.float32) * scale
                 + offset).astype(np.float16)
        left, k = elems, 0
        while left:
            n = min(left, CHUNK_ELEMS)
            yield np.roll(block, (k * 7919) % CHUNK_ELEMS)[:n].view(np.uint8)
            left -= n
            k += 1
    return gen


def contiguous_meta(t, requires_grad):
    shape = list(t.shape)
    strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    return tensor_meta(FP16, shape, strides, 0, requires_grad)


def build(shape, layers, mode, tokens, seed):
    c = SHAPES[shape]
    if mode == "prefill":
        module = Prefill(c, layers, 0)
        args = (torch.zeros((1, tokens), dtype=torch.int64),)
    else:
        module = Decode(c, layers, tokens)
        args = (torch.zeros((1, 1), dtype=torch.int64),
                torch.zeros((1,), dtype=torch.int64))
    program, state, constants, _ = legacy_tracer.export_program(module, args)
    # The trace saw one-element weights: give every weight placeholder the
    # strides of a dense tensor, as the archive stores it.
    tv = program["graph_module"]["graph"]["tensor_values"]
    state_names = {}
    for spec in program["graph_module"]["signature"]["input_specs"]:
        (tag, v), = spec.items()
        if tag == "parameter":
            state_names[v["parameter_name"]] = v["arg"]["name"]
        elif tag == "buffer":
            state_names[v["buffer_name"]] = v["arg"]["name"]
    records, config, weight_bytes = [], {}, 0
    for i, (fqn, t, is_param) in enumerate(state):
        meta = contiguous_meta(t, False)
        name = state_names[fqn]
        tv[name]["strides"] = meta["strides"]
        tv[name]["storage_offset"] = meta["storage_offset"]
        elems = t.numel()
        weight_bytes += 2 * elems
        if fqn.endswith("cache"):
            gen = filler(elems, seed + i, 0.0, 0.0)
        elif fqn.endswith("layernorm.weight") or fqn == "norm.weight":
            gen = filler(elems, seed + i, 0.0, 1.0)
        else:
            gen = filler(elems, seed + i, 1.0 / math.sqrt(t.shape[-1]), 0.0)
        entry = f"weight_{i}"
        records.append(("data/weights/" + entry,
                        StreamedData(2 * elems, gen, tag=f"{fqn}:{list(t.shape)}:{seed + i}")))
        config[fqn] = payload_meta(entry, is_param, meta)
    records.append(("data/weights/model_weights_config.json",
                    to_json_bytes({"config": config})))
    # Tensors the forward makes (a -inf fill): small, written as they are.
    c_records, c_config = _package_payloads(constants, CONSTANTS_DIR,
                                            TENSOR_CONSTANT_FILENAME_PREFIX, False)
    records += c_records
    records.append(("data/constants/model_constants_config.json",
                    to_json_bytes(c_config)))
    records.append(("models/model.json", to_json_bytes(program)))
    nodes = len(program["graph_module"]["graph"]["nodes"])
    info = {"producer": "spyre-mlir bench/scale/make_model.py", "shape": shape,
            "layers": layers, "mode": mode, "tokens": tokens, "seed": seed,
            "weight_bytes": weight_bytes, "graph_nodes": nodes}
    records.append(("extra/spyre_export_provenance.json",
                    json.dumps(info, indent=1, sort_keys=True).encode()))
    return records, info


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="archive to write (.pt2)")
    ap.add_argument("--shape", choices=sorted(SHAPES), default="granite-3.3-8b")
    ap.add_argument("--layers", type=int, default=None,
                    help="decoder layers (default: the model's own)")
    ap.add_argument("--mode", choices=["prefill", "decode"], default="prefill")
    ap.add_argument("--tokens", type=int, default=512,
                    help="prefill: prompt length; decode: KV cache length")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    layers = a.layers if a.layers is not None else SHAPES[a.shape]["layers"]
    if layers < 1 or a.tokens < 1:
        ap.error("--layers and --tokens must be positive")
    torch.manual_seed(a.seed)
    records, info = build(a.shape, layers, a.mode, a.tokens, a.seed)
    root = os.path.splitext(os.path.basename(a.out))[0]
    write_zip64_records(a.out, finish_records(records), root=root)
    print(json.dumps(dict(info, archive=a.out)))


if __name__ == "__main__":
    main()
