"""spyre.compile: the compiler driver (spyre-compile) from Python.

The compiler is MLIR and LLVM; rather than load both into the interpreter,
compile() runs the spyre-compile of the same build (a subprocess), so its
diagnostics, options and output are exactly the command line's.
"""

import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, Optional, Sequence, Union

from . import _native

try:  # Written by the build next to this file (python/CMakeLists.txt).
    from ._build_paths import BIN_DIR as _BUILD_BIN_DIR
except ImportError:  # pragma: no cover - an installed copy without it
    _BUILD_BIN_DIR = ""


class CompileError(_native.Error):
    """spyre-compile refused the model; the message is its diagnostics
    (file:line: error: ...)."""


def _compiler() -> str:
    """spyre-compile: $SPYRE_BIN_DIR, else the build this package came
    from, else PATH."""
    for directory in (os.environ.get("SPYRE_BIN_DIR", ""), _BUILD_BIN_DIR):
        if directory:
            candidate = Path(directory) / "spyre-compile"
            if candidate.is_file():
                return str(candidate)
    found = shutil.which("spyre-compile")
    if not found:
        raise CompileError(
            "spyre-compile not found: set SPYRE_BIN_DIR to the build's bin "
            "directory or put spyre-compile on PATH"
        )
    return found


def _flag(value: bool) -> str:
    return "true" if value else "false"


def compile(
    model: Union[str, os.PathLike],
    output: Optional[Union[str, os.PathLike]] = None,
    *,
    arch: Optional[str] = None,
    bind_dims: Optional[Union[str, Dict[str, int]]] = None,
    max_cores: Optional[int] = None,
    depth: Optional[int] = None,
    cache_dir: Optional[str] = None,
    fusion: Optional[bool] = None,
    on_chip: Optional[bool] = None,
    report: Optional[str] = None,
    weights: Optional[str] = None,
    weights_file: Optional[str] = None,
    extra_args: Sequence[str] = (),
) -> str:
    """Compiles a torch.export archive (.pt2, or its program JSON) to a .spy
    model file and returns the file's path.

    output: default is the model's path with the suffix .spy. The keyword
    options are spyre-compile's (spyre-compile --help): arch (machine
    description JSON), bind_dims ({"s0": 128} or "s0=128"), max_cores,
    depth, cache_dir, fusion, on_chip, report (JSON file), weights ("auto",
    "inline" or "file": where the archive's weights go) and weights_file
    (the weights file; default beside the .spy, .spyw); extra_args go to
    the command line as they are. Raises CompileError with the compiler's
    diagnostics when it refuses the model."""
    model = Path(model)
    out = Path(output) if output is not None else model.with_suffix(".spy")
    cmd = [_compiler(), str(model), "-o", str(out)]
    if arch is not None:
        cmd += ["--arch", str(arch)]
    if bind_dims is not None:
        if isinstance(bind_dims, dict):
            bind_dims = ",".join(f"{k}={v}" for k, v in bind_dims.items())
        cmd += ["--bind-dims", bind_dims]
    if max_cores is not None:
        cmd += ["--max-cores", str(int(max_cores))]
    if depth is not None:
        cmd += ["--depth", str(int(depth))]
    if cache_dir is not None:
        cmd += ["--cache-dir", str(cache_dir)]
    if fusion is not None:
        cmd += [f"--fusion={_flag(fusion)}"]
    if on_chip is not None:
        cmd += [f"--on-chip={_flag(on_chip)}"]
    if report is not None:
        cmd += ["--report", str(report)]
    if weights is not None:
        cmd += [f"--weights={weights}"]
    if weights_file is not None:
        cmd += ["--weights-file", str(weights_file)]
    cmd += list(extra_args)
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        message = done.stderr.strip() or f"spyre-compile exited with {done.returncode}"
        raise CompileError(message)
    return str(out)
