"""Running spyre-compile and spyre-run on one exported program."""

import errno
import os
import subprocess
import time
from dataclasses import dataclass
from typing import List, Optional, Tuple

TIMEOUT_S = 300
# the binaries may be replaced by a concurrent rebuild: retry this long
MISSING_BINARY_WAIT_S = 120


@dataclass
class ToolRun:
    tool: str                   # "spyre-compile" | "spyre-run"
    returncode: Optional[int]   # None: timed out
    output: str                 # command line, stdout and stderr


def run_tool(cmd: List[str]) -> ToolRun:
    tool = os.path.basename(cmd[0])
    deadline = time.time() + MISSING_BINARY_WAIT_S
    while True:
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                               timeout=TIMEOUT_S)
            text = p.stdout + p.stderr
            if p.returncode < 0:
                text += f"\n(killed by signal {-p.returncode})"
            return ToolRun(tool, p.returncode, "$ " + " ".join(cmd) + "\n" + text)
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(
                errors="replace")
            return ToolRun(tool, None, "$ " + " ".join(cmd) + "\n" + out +
                           f"\n(timed out after {TIMEOUT_S} s)")
        except OSError as e:
            if e.errno not in (errno.ENOENT, errno.ETXTBSY, errno.EACCES) or \
                    time.time() > deadline:
                raise
            time.sleep(2)


@dataclass(frozen=True)
class ToolArgs:
    """Options every call's spyre-compile and spyre-run get."""
    compile: Tuple[str, ...] = ()
    run: Tuple[str, ...] = ()

    @staticmethod
    def of(arch: Optional[str], max_cores: Optional[int]) -> "ToolArgs":
        both = ("--arch", os.path.abspath(arch)) if arch else ()
        cores = ("--max-cores", str(max_cores)) if max_cores is not None else ()
        return ToolArgs(both + cores, both)


def compile_and_run(bin_dir: str, work: str, n_inputs: int,
                    args: ToolArgs = ToolArgs()) -> List[ToolRun]:
    """spyre-compile model.pt2, then spyre-run with input_<i>.npy, outputs
    into work/out; the runs made (the last one failed if any did)."""
    spy = os.path.join(work, "model.spy")
    runs = [run_tool([os.path.join(bin_dir, "spyre-compile"),
                      os.path.join(work, "model.pt2"), "-o", spy, *args.compile])]
    if runs[-1].returncode != 0:
        return runs
    cmd = [os.path.join(bin_dir, "spyre-run"), spy, "--output-dir", os.path.join(work, "out"),
           *args.run]
    for i in range(n_inputs):
        cmd += ["--input", os.path.join(work, f"input_{i}.npy")]
    runs.append(run_tool(cmd))
    return runs
