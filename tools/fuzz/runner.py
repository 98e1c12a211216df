"""One batch of calls through export, spyre-compile, spyre-run and the
comparison; a failing batch is narrowed down to its culprit calls.

Culprits are found without guessing where possible: a compiler diagnostic
names the call's file (``add.Tensor-17.py:2:0: error``), a wrong output
belongs to one call.  Each suspect is re-run alone (its reproducer is that
run's directory) and the rest of the batch again; a failure nothing points
at is bisected.  A failure that only shows in a batch is reported as such,
with the batch as its reproducer.
"""

import itertools
import os
import re
import shutil
from dataclasses import dataclass
from typing import Dict, List

import numpy as np

import classify
import compare
import fixture
import program
from classify import GENERATOR, MISMATCH, OK
from gen import Call
from program import ExportError
from spyre_tools import ToolArgs, compile_and_run

_LOCATED = re.compile(r"^([\w.]+-\d+)\.py:\d+:\d+: error", re.MULTILINE)
_counter = itertools.count()


@dataclass
class Result:
    label: str
    op: str
    cls: str
    family: str = ""
    signature: str = ""
    detail: str = ""
    repro: str = ""


class Runner:
    def __init__(self, bin_dir: str, out_dir: str, seed: int,
                 tool_args: ToolArgs = ToolArgs()):
        self.bin_dir, self.out_dir, self.seed = bin_dir, out_dir, seed
        self.tool_args = tool_args

    def run(self, calls: List[Call]) -> List[Result]:
        results: Dict[str, Result] = {}
        self._run(calls, results)
        return list(results.values())

    # ------------------------------------------------------------------
    def _run(self, calls: List[Call], results: Dict[str, Result]) -> None:
        if not calls:
            return
        work = os.path.join(self.out_dir, "work", f"{os.getpid()}-{next(_counter)}")
        try:
            outputs = fixture.write(calls, work, self.seed)
        except ExportError as e:
            if len(calls) > 1:  # exporting is cheap: find the culprits one by one
                shutil.rmtree(work, ignore_errors=True)
                for c in calls:
                    self._run([c], results)
                return
            self._record(calls[0], GENERATOR, classify.signature(str(e)), str(e), work,
                         results)
            return
        runs = compile_and_run(self.bin_dir, work, sum(len(c.inputs) for c in calls),
                               self.tool_args)
        last = runs[-1]
        cls = classify.classify(last.tool, last.returncode, last.output)
        log = "\n".join(r.output for r in runs)
        if cls == OK:
            bad = self._compare(outputs, work, calls)
            if not bad:
                for c in calls:
                    results[c.label] = Result(c.label, c.op, OK)
                shutil.rmtree(work, ignore_errors=True)
                return
            cls = MISMATCH
            suspects = [calls[j] for j in sorted(bad)]
            sig = {calls[j].label: s for j, (s, _) in bad.items()}
            detail = "\n".join(f"{calls[j].label}: {d}" for j, (_, d) in sorted(bad.items()))
        else:
            named = set(_LOCATED.findall(last.output))
            suspects = [c for c in calls if c.label in named]
            sig = {c.label: classify.signature(last.output) for c in calls}
            detail = ""
        _write(work, "result.txt", f"{cls}\n{detail}\n{log}")
        if len(calls) == 1:
            self._record(calls[0], cls, sig[calls[0].label], detail or log, work, results)
            return
        if suspects:
            for c in suspects:
                self._run([c], results)
                if results[c.label].cls == OK:  # fails only together with others
                    results[c.label] = self._save(
                        Result(c.label, c.op, cls, signature="only in a batch: " + sig[c.label],
                               detail=detail or log), self._copy(work, f"batch-{c.label}"))
            self._run([c for c in calls if c not in suspects], results)
        else:
            half = len(calls) // 2
            self._run(calls[:half], results)
            self._run(calls[half:], results)
            if all(results[c.label].cls == OK for c in calls):
                label = f"batch-{calls[0].label}"
                results[label] = self._save(
                    Result(label, "(batch of " + ", ".join(c.label for c in calls) + ")", cls,
                           signature="only in a batch: " + sig[calls[0].label], detail=log),
                    self._copy(work, label))
        shutil.rmtree(work, ignore_errors=True)

    def _compare(self, outputs, work, calls: List[Call]) -> Dict[int, tuple]:
        """Per failing call: (signature, detail). An fp32 output that misses
        PyTorch's fp32 answer but matches the exact (fp64) one is right."""
        bad: Dict[int, tuple] = {}
        exact: Dict[int, list] = {}
        for k, o in enumerate(outputs):
            got_path = os.path.join(work, "out", o.file)
            ref = np.load(os.path.join(work, o.file))
            if not os.path.exists(got_path):
                what = "output missing"
                msg = f"{o.file}: spyre-run wrote no {o.file}"
            else:
                got = np.load(got_path)
                msg = compare.compare(got, ref, o.rtol, o.atol, o.shape_only,
                                      dl16=o.dtype in compare.DL16_DTYPES)
                if msg is not None and o.dtype == "float32" and \
                        self._matches_exact(got, k, outputs, calls, exact):
                    msg = None
                if msg is None:
                    continue
                what = msg.split(" ")[0] if msg.startswith(("shape", "dtype")) else "values"
                msg = f"{o.file} ({o.dtype}): {msg}"
            if o.call not in bad:
                bad[o.call] = (f"wrong {what} ({o.dtype})", msg)
        return bad

    @staticmethod
    def _matches_exact(got, k: int, outputs, calls: List[Call],
                       exact: Dict[int, list]) -> bool:
        """Whether output `k` matches its call evaluated in fp64 (computed
        once per call, kept in `exact`)."""
        o = outputs[k]
        if o.call not in exact:
            exact[o.call] = program.exact_reference(calls[o.call]) or []
        nth = sum(1 for p in outputs[:k] if p.call == o.call)
        alt = exact[o.call]
        return nth < len(alt) and compare.compare(
            got, alt[nth].float().numpy(), o.rtol, o.atol) is None

    def _record(self, call: Call, cls: str, sig: str, detail: str, work: str,
                results: Dict[str, Result]) -> None:
        _write(work, "result.txt", f"{cls}\n{sig}\n{detail}")
        results[call.label] = self._save(
            Result(call.label, call.op, cls, signature=sig, detail=detail), work)

    def _save(self, r: Result, work: str) -> Result:
        dest = os.path.join(self.out_dir, r.cls.split()[0].lower(), r.label)
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.move(work, dest)
        # build products, not part of a fixture (result.txt has the difference)
        shutil.rmtree(os.path.join(dest, "out"), ignore_errors=True)
        if os.path.exists(os.path.join(dest, "model.spy")):
            os.remove(os.path.join(dest, "model.spy"))
        r.repro = dest
        return r

    def _copy(self, work: str, label: str) -> str:
        tmp = os.path.join(self.out_dir, "work", f"{label}-{os.getpid()}-{next(_counter)}")
        shutil.copytree(work, tmp)
        return tmp


def _write(work: str, name: str, text: str) -> None:
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, name), "w") as f:
        f.write(text)
