"""The run's summary: counts per family and per op and class, the distinct
failure signatures (op + error stem) with one reproducer each, throughput;
also written as results.json."""

import json
from collections import Counter, defaultdict
from typing import Dict, List

from classify import CLASSES, OK


class Report:
    def __init__(self):
        self.results = []          # runner.Result
        self.calls = Counter()     # family -> calls run

    def add(self, family: str, n_calls: int, results) -> None:
        self.calls[family] += n_calls
        self.results += results

    def progress(self) -> str:
        counts = Counter(r.cls for r in self.results if r.cls != OK)
        return f"{sum(self.calls.values())} calls; " + ", ".join(
            f"{counts[c]} {c}" for c in CLASSES)

    def failures(self, cls: str) -> List:
        return [r for r in self.results if r.cls == cls]

    def text(self, elapsed: float, batch: int, jobs: int, untraceable: Dict[str, str]) -> str:
        n = sum(self.calls.values())
        out = [f"== {n} calls in {elapsed:.1f} s: {n / max(elapsed, 1e-9):.1f} calls/s "
               f"(batches of up to {batch}, {jobs} jobs)", ""]
        by_fam = defaultdict(Counter)
        for r in self.results:
            if r.cls != OK:
                by_fam[r.family][r.cls] += 1
        head = f"{'family':14s} {'calls':>7s} " + " ".join(f"{c:>15s}" for c in CLASSES)
        out += [head, "-" * len(head)]
        for fam in sorted(self.calls):
            out.append(f"{fam:14s} {self.calls[fam]:7d} " +
                       " ".join(f"{by_fam[fam][c]:15d}" for c in CLASSES))
        out += self._per_op()
        for cls in CLASSES:
            fails = self.failures(cls)
            if not fails:
                continue
            per_op = Counter(r.op for r in fails)
            sigs = defaultdict(list)
            for r in fails:
                sigs[(r.op, r.signature)].append(r)
            out += ["", f"== {cls}: {len(fails)} calls, {len(per_op)} ops, "
                    f"{len(sigs)} distinct signatures"]
            for (op, sig), rs in sorted(sigs.items(), key=lambda kv: (kv[0][0], -len(kv[1]))):
                out.append(f"  [{rs[0].family}] {op} x{len(rs)}: {sig}")
                out.append(f"      {rs[0].repro}")
        if untraceable:
            out += ["", "== not exercised (the exporter cannot write them with this torch):"]
            out += [f"  {op}: {why}" for op, why in sorted(untraceable.items())]
        return "\n".join(out)

    def _per_op(self) -> List[str]:
        """Calls and failures of each op that failed at all."""
        calls, fails = Counter(), defaultdict(Counter)
        for r in self.results:
            calls[r.op] += 1
            if r.cls != OK:
                fails[r.op][r.cls] += 1
        if not fails:
            return []
        head = f"{'op (with failures)':56s} {'calls':>6s} " + " ".join(
            f"{c.split()[0]:>9s}" for c in CLASSES)
        out = ["", head, "-" * len(head)]
        for op in sorted(fails):
            out.append(f"{op[:56]:56s} {calls[op]:6d} " +
                       " ".join(f"{fails[op][c]:9d}" for c in CLASSES))
        return out

    def write_json(self, path: str, elapsed: float) -> None:
        with open(path, "w") as f:
            json.dump({"elapsed_s": elapsed, "calls": dict(self.calls),
                       "failures": [vars(r) for r in self.results if r.cls != OK]},
                      f, indent=1)
            f.write("\n")

    def status(self, fail_on_refused: bool) -> int:
        bad = {c for c in CLASSES if fail_on_refused or c != "REFUSED"}
        return int(any(r.cls in bad for r in self.results))
