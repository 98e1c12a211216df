#!/usr/bin/python3
"""Greedy decoding on the simulated Spyre: a prefill program and a decode
program share one KV cache that stays on the device.

    PYTHONPATH=build/python /usr/bin/python3 examples/generate/generate.py \
        [--steps 32] [--work-dir DIR] [--no-shared-cache]

Exports tiny_llama.py's two programs (tools/export --module), compiles them
(spyre.compile), loads both on one spyre.Device, binds the decode program's
cache buffers to the prefill program's (Model.bind_weight), then runs the
prompt once and `--steps - 1` decode steps, each feeding back the argmax
token. The tokens are checked against PyTorch's greedy decode of the same
weights (recomputing the whole sequence at every step, without a cache).
Prints the tokens, simulated time per token and host time per token; exits
1 on a mismatch.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

import spyre

HERE = Path(__file__).resolve().parent
EXPORT = HERE.parent.parent / "tools" / "export" / "export_model.py"
sys.path.insert(0, str(HERE))
import tiny_llama  # noqa: E402

SEED = 0  # the exporter's default: the weights of both programs


def export(factory, shapes, out_dir):
    args = [sys.executable, str(EXPORT), "--module", f"{HERE / 'tiny_llama.py'}:{factory}",
            "--out-dir", str(out_dir), "--seed", str(SEED)]
    for s in shapes:
        args += ["--input-shape", s]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"generate: exporting {factory} failed:\n{done.stderr}")
    return out_dir / "model.pt2"


def reference_tokens(prompt, steps):
    """PyTorch's greedy decode: the whole sequence recomputed at each step."""
    torch.manual_seed(SEED)
    model = tiny_llama.Prefill().eval()
    tokens = torch.tensor(prompt)[None]
    out = []
    with torch.no_grad():
        for _ in range(steps):
            nxt = int(model.forward_full(tokens).argmax(-1))
            out.append(nxt)
            tokens = torch.cat([tokens, torch.tensor([[nxt]])], dim=1)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=32, help="tokens to generate (default 32)")
    p.add_argument("--work-dir", help="where the programs go (default: a temporary directory)")
    p.add_argument("--no-shared-cache", action="store_true",
                   help="leave the decode program its own (empty) cache: the tokens then "
                        "go wrong, which shows the check can fail")
    a = p.parse_args(argv)
    limit = tiny_llama.MAX_LEN - tiny_llama.PROMPT
    if not 1 <= a.steps <= limit:
        p.error(f"--steps must be in 1..{limit} (the cache holds {tiny_llama.MAX_LEN} positions)")
    work = Path(a.work_dir or tempfile.mkdtemp(prefix="spyre-generate-"))
    work.mkdir(parents=True, exist_ok=True)

    P, V = tiny_llama.PROMPT, tiny_llama.VOCAB
    prefill_pt2 = export("prefill", [f"1,{P}:int64:int:0:{V}"], work / "prefill")
    decode_pt2 = export("decode", [f"1,1:int64:int:0:{V}", "1:int64:int:0:1"], work / "decode")
    dev = spyre.Device()
    prefill = spyre.load(spyre.compile(prefill_pt2, work / "prefill.spy"), device=dev)
    decode = spyre.load(spyre.compile(decode_pt2, work / "decode.spy"), device=dev)
    if not a.no_shared_cache:
        for buffer in prefill.buffers:  # one KV cache on the device for both
            decode.bind_weight(buffer.name, prefill.weight(buffer.name))

    prompt = [int(t) for t in np.random.default_rng(7).integers(0, V, P)]
    tokens, sim_ns, host_s = [], [], []
    for step in range(a.steps):
        before = dev.stats["total_ns"]
        start = time.perf_counter()
        if step == 0:
            logits = prefill.run(np.array([prompt], np.int64))[0]
        else:
            logits = decode.run(np.array([[tokens[-1]]], np.int64),
                                np.array([P + step - 1], np.int64))[0]
        host_s.append(time.perf_counter() - start)
        sim_ns.append(dev.stats["total_ns"] - before)
        tokens.append(int(logits.argmax(-1)[0]))

    want = reference_tokens(prompt, a.steps)
    print(f"prompt:    {prompt}")
    print(f"spyre:     {tokens}")
    print(f"pytorch:   {want}")
    print(f"prefill ({P} tokens): {sim_ns[0] / 1e3:.1f} us simulated, {host_s[0] * 1e3:.1f} ms host")
    if a.steps > 1:
        print(f"decode: {np.mean(sim_ns[1:]) / 1e3:.1f} us simulated per token, "
              f"{np.mean(host_s[1:]) * 1e3:.1f} ms host per token (simulator included)")
    if tokens != want:
        first = next(i for i, (x, y) in enumerate(zip(tokens, want)) if x != y)
        print(f"generate: MISMATCH at step {first}", file=sys.stderr)
        return 1
    print(f"tokens match PyTorch's greedy decode ({a.steps} steps)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
