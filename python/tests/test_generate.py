"""examples/generate: greedy decoding with a prefill and a decode program
sharing a device-resident KV cache matches PyTorch for 32 steps."""

import os
import subprocess
import sys
from pathlib import Path

SOURCE = Path(os.environ.get("SPYRE_SOURCE_DIR", ".")).resolve()
GENERATE = SOURCE / "examples/generate/generate.py"


def generate(tmp_path, *args):
    return subprocess.run([sys.executable, str(GENERATE), "--work-dir", str(tmp_path), *args],
                          capture_output=True, text=True)


def test_generate_matches_pytorch(tmp_path):
    done = generate(tmp_path, "--steps", "32")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tokens match PyTorch's greedy decode (32 steps)" in done.stdout
    assert "us simulated per token" in done.stdout and "ms host per token" in done.stdout


def test_generate_fails_without_the_shared_cache(tmp_path):
    # The decode program's own cache is empty: the check must notice.
    done = generate(tmp_path, "--steps", "4", "--no-shared-cache")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "MISMATCH at step" in done.stderr


def test_generate_refuses_too_many_steps(tmp_path):
    done = generate(tmp_path, "--steps", "41")
    assert done.returncode == 2 and "--steps must be in 1..40" in done.stderr
