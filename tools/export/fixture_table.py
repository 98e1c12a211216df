#!/usr/bin/python3
"""Prints the markdown fixture table of test/e2e/models/README.md from the
fixture.json files (one row per fixture directory, sorted by name).

    /usr/bin/python3 tools/export/fixture_table.py test/e2e/models [--prefix op_]
"""

import json
import os
import sys

SHORT = {"float16": "f16", "float32": "f32", "bfloat16": "bf16", "int64": "i64",
         "int32": "i32", "bool": "bool"}


def _t(e):
    return f"{SHORT.get(e['dtype'], e['dtype'])}{e['shape']}".replace(" ", "")


def _ops(ops):
    out, last, n = [], None, 0
    for o in ops + [None]:
        o = o.replace("aten.", "") if o else o
        if o == last:
            n += 1
            continue
        if last is not None:
            out.append(last + (f" x{n}" if n > 1 else ""))
        last, n = o, 1
    return ", ".join(out)


def _tol(fx):
    tols = fx.get("output_tolerances") or [fx["tolerance"]]
    seen = []
    for t in tols:
        s = "exact" if t["rtol"] == 0 and t["atol"] == 0 else f"{t['rtol']:g}/{t['atol']:g}"
        if s not in seen:
            seen.append(s)
    return ", ".join(seen)


def main(argv):
    root = argv[0]
    prefix = argv[argv.index("--prefix") + 1] if "--prefix" in argv else ""
    print("| fixture | inputs | outputs | ops | rtol/atol |")
    print("|---|---|---|---|---|")
    for d in sorted(os.listdir(root)):
        f = os.path.join(root, d, "fixture.json")
        if not d.startswith(prefix) or not os.path.exists(f):
            continue
        fx = json.load(open(f))
        ins = ", ".join(_t(e) for e in fx["inputs"])
        outs = ", ".join(_t(e) for e in fx["outputs"])
        ops = _ops(fx["ops"]) if len(fx["ops"]) <= 8 else f"{len(fx['ops'])} nodes (see fixture.json)"
        print(f"| `{d}` | {ins} | {outs} | {ops} | {_tol(fx)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
