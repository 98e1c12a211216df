"""Bring your own model: tools/export --module exports a user's nn.Module,
spyre.compile compiles it and the answer matches PyTorch's."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import spyre

SOURCE = Path(os.environ.get("SPYRE_SOURCE_DIR", ".")).resolve()
EXPORT = SOURCE / "tools/export/export_model.py"

USER_MODULE = '''
import torch
from torch import nn

class Gated(nn.Module):
    def __init__(self, d=64, h=96):
        super().__init__()
        self.up = nn.Linear(d, h)
        self.gate = nn.Linear(d, h, bias=False)
        self.down = nn.Linear(h, d)

    def forward(self, x, shift):
        y = self.down(torch.nn.functional.silu(self.gate(x)) * self.up(x))
        return y + shift.to(y.dtype).unsqueeze(-1)

def make():
    return Gated()
'''


def export(tmp_path, *args):
    return subprocess.run([sys.executable, str(EXPORT), *args], cwd=tmp_path,
                          capture_output=True, text=True)


@pytest.mark.parametrize("spec", ["user_model.py:make", "user_model:Gated"])
def test_exported_module_runs_and_matches(tmp_path, spec):
    (tmp_path / "user_model.py").write_text(USER_MODULE)
    out = tmp_path / "out"
    done = export(tmp_path, "--module", spec, "--input-shape", "5,64",
                  "--input-shape", "5:int64:int:0:4", "--dtype", "fp16",
                  "--out-dir", str(out))
    assert done.returncode == 0, done.stderr
    meta = json.loads((out / "fixture.json").read_text())
    assert [i["dtype"] for i in meta["inputs"]] == ["float16", "int64"]
    m = spyre.load(spyre.compile(out / "model.pt2"))
    assert [s.name for s in m.inputs] == ["x", "shift"]
    got = m.run(x=np.load(out / "input_0.npy"), shift=np.load(out / "input_1.npy"))
    # fp16 through matmuls: test/e2e/tolerances.json's float16 matmul row.
    np.testing.assert_allclose(got[0].astype(np.float64),
                               np.load(out / "output_0.npy").astype(np.float64),
                               rtol=0.02, atol=0.02)


def test_intermediates_let_check_compare_nodes(tmp_path):
    """--intermediates writes PyTorch's value of every graph node; run(check=
    True, reference=...) compares the kernels computing them."""
    (tmp_path / "user_model.py").write_text(USER_MODULE)
    out = tmp_path / "out"
    done = export(tmp_path, "--module", "user_model.py:make", "--input-shape", "5,64",
                  "--input-shape", "5:int64:int:0:4", "--out-dir", str(out),
                  "--intermediates")
    assert done.returncode == 0, done.stderr
    nodes = sorted(p.stem for p in (out / "intermediates").glob("*.npy"))
    assert "silu" in nodes and "linear" in nodes
    m = spyre.load(spyre.compile(out / "model.pt2"))
    m.run(np.load(out / "input_0.npy"), np.load(out / "input_1.npy"), check=True,
          reference=out / "intermediates")
    assert "kernels match their reference" in m.check_report
    assert "nodes match PyTorch's values" in m.check_report


@pytest.mark.parametrize("args, message", [
    (["--module", "user_model.py:missing", "--input-shape", "5,64"], "has no callable 'missing'"),
    (["--module", "no_such_mod:make", "--input-shape", "5,64"], "No module named 'no_such_mod'"),
    (["--module", "user_model.py:make"], "needs one --input-shape"),
    (["--module", "user_model.py:make", "--input-shape", "5,x"], "sizes must be integers"),
    (["--module", "user_model.py:make", "--input-shape", "5,64:f8"], "unknown dtype 'f8'"),
    (["--module", "user_model.py:make", "--input-shape", "5,64"], "exporting --module"),
    (["--model", "add", "--input-shape", "5"], "--input-shape goes with --module"),
])
def test_export_module_errors(tmp_path, args, message):
    (tmp_path / "user_model.py").write_text(USER_MODULE)
    done = export(tmp_path, *args, "--out-dir", str(tmp_path / "out"))
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
