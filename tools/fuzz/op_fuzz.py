#!/usr/bin/python3
"""Differential op fuzzer: random valid calls of every decomposition-registry
op, compiled for Spyre and run on the simulator, against PyTorch.

    /usr/bin/python3 tools/fuzz/op_fuzz.py --seed 1 --calls-per-op 20 \
        [--calls-per-family N] [--family pointwise] [--op aten.add.Tensor] \
        [--jobs N] [--batch-size B] [--time-limit S] [--out DIR] [--keep-going] \
        [--fail-on-refused] [--bin-dir DIR]
    /usr/bin/python3 tools/fuzz/op_fuzz.py --list [--samples N]

Exit status: 0 when no call gave a MISMATCH, an INTERNAL ERROR or a
GENERATOR ERROR (REFUSED too with --fail-on-refused), 1 otherwise, 2 when a
registry op has no generator.  README.md describes the classes.
"""

import argparse
import itertools
import json
import multiprocessing
import os
import shutil
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep the tree free of __pycache__
sys.path.insert(0, HERE)
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

import torch  # noqa: E402

import registry  # noqa: E402
from classify import GENERATOR, OK, REFUSED  # noqa: E402
from report import Report  # noqa: E402
from runner import Result, Runner  # noqa: E402
from spyre_tools import ToolArgs  # noqa: E402
from table import generate, load_tables  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--calls-per-op", type=int, default=20)
    p.add_argument("--calls-per-family", type=int, default=None,
                   help="instead of --calls-per-op: this many calls per family, "
                        "shared by its ops")
    p.add_argument("--family", action="append", help="only this family (repeatable)")
    p.add_argument("--op", action="append", help="only this op, e.g. aten.add.Tensor")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--batch-size", type=int, default=48,
                   help="calls per exported program (one compile and run)")
    p.add_argument("--time-limit", type=float, default=None,
                   help="start no batch after this many seconds")
    p.add_argument("--out", default="/tmp/spyre-fuzz", help="reproducers and results.json")
    p.add_argument("--bin-dir", default=os.path.join(ROOT, "build", "bin"))
    p.add_argument("--arch", default=None,
                   help="machine description for spyre-compile and spyre-run (a small LX "
                        "makes every kernel run several tiles per core)")
    p.add_argument("--max-cores", type=int, default=None,
                   help="spyre-compile --max-cores (fewer cores: more tiles per core)")
    p.add_argument("--lx-bytes", type=int, default=None,
                   help="the default machine (arch/spyre.json) with this much LX per core, "
                        "written to OUT/arch.json and used as --arch")
    p.add_argument("--keep-going", action="store_true",
                   help="run every batch even after a MISMATCH, INTERNAL ERROR or "
                        "GENERATOR ERROR (default: start no batch after the first one)")
    p.add_argument("--fail-on-refused", action="store_true")
    p.add_argument("--list", action="store_true",
                   help="list the generators and what each exercises, then exit")
    p.add_argument("--samples", type=int, default=0, help="with --list: sample calls per op")
    return p.parse_args(argv)


def select(entries, tables, args):
    gens = {op: g for t in tables.values() for op, g in t.gens.items()}
    chosen = [e for e in entries
              if (not args.family or e.family in args.family) and
              (not args.op or e.op in args.op)]
    unknown = set(args.op or ()) - {e.op for e in entries}
    if unknown:
        raise SystemExit(f"error: not in the registry: {', '.join(sorted(unknown))}")
    return [(e, gens[e.op]) for e in chosen]


def list_generators(selected, seed, samples):
    for e, g in selected:
        dts = ", ".join(str(d).replace("torch.", "") for d in e.dtypes
                        if g.dtypes is None or d in g.dtypes)
        print(f"{e.family:13s} {e.op:48s} [{g.tol}; {dts}]\n    {g.doc}")
        for i in range(samples if g.fn else 0):
            c = generate(g, e.dtypes, seed, i)
            shapes = ", ".join("x".join(map(str, x.shape)) or "()" for x in c.inputs)
            print(f"    e.g. {c.src}    # inputs {shapes}")


def batches(selected, args):
    """Per family, calls interleaved over its ops and cut into batches;
    families interleaved, so a time-limited run covers all of them."""
    per_family = {}
    for e, g in selected:
        if g.fn is not None:
            per_family.setdefault(e.family, []).append(e)
    streams = [_family_batches(fam, es, -(-args.calls_per_family // len(es))
                               if args.calls_per_family else args.calls_per_op,
                               args.batch_size)
               for fam, es in sorted(per_family.items())]
    for group in itertools.zip_longest(*streams):
        yield from (t for t in group if t is not None)


def write_arch(out_dir, **fields):
    """The default machine description with `fields` replaced, as
    OUT/arch.json; returns its path."""
    with open(os.path.join(ROOT, "arch", "spyre.json")) as f:
        arch = json.load(f)
    arch.update(fields)
    path = os.path.join(out_dir, "arch.json")
    with open(path, "w") as f:
        json.dump(arch, f, indent=2, sort_keys=True)
    return path


def _family_batches(family, entries, calls_per_op, batch_size):
    items = ((e.op, i, e.dtypes) for i in range(calls_per_op) for e in entries)
    while True:
        chunk = list(itertools.islice(items, batch_size))
        if not chunk:
            return
        yield family, chunk


_GENS = {}
_RUNNER = None


def _init(bin_dir, out_dir, seed, tool_args):
    global _GENS, _RUNNER
    torch.set_num_threads(1)  # one worker per core already
    _GENS = {op: g for t in load_tables().values() for op, g in t.gens.items()}
    _RUNNER = Runner(bin_dir, out_dir, seed, tool_args)


def _work(task):
    """Runs one batch in a worker: (family, [(op, index, dtypes)]) ->
    (family, number of calls, results)."""
    family, items = task
    calls, results = [], []
    for op, i, dtypes in items:
        try:
            calls.append(generate(_GENS[op], dtypes, _RUNNER.seed, i))
        except Exception as e:  # a generator bug: report it, run the others
            results.append(Result(f"{op[5:]}-{i}", op, GENERATOR,
                                  signature=f"generator raises {type(e).__name__}: {e}",
                                  detail=traceback.format_exc()))
    results += _RUNNER.run(calls)
    for r in results:
        r.family = family
    return family, len(items), results


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    entries = registry.load(os.path.join(args.bin_dir, "spyre-opt"))
    tables = load_tables()
    problems = registry.check_coverage(entries, tables)
    if problems:
        print("error: the generator table does not match the decomposition registry:",
              file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 2
    selected = select(entries, tables, args)
    if args.list:
        list_generators(selected, args.seed, args.samples)
        return 0
    untraceable = {e.op: g.untraceable for e, g in selected if g.untraceable}
    shutil.rmtree(os.path.join(args.out, "work"), ignore_errors=True)
    os.makedirs(args.out, exist_ok=True)

    start = time.time()
    report = Report()
    stop = False

    def tasks():
        for t in batches(selected, args):
            if stop or (args.time_limit and time.time() - start > args.time_limit):
                return
            yield t

    seen = set()
    last_progress = start
    if args.lx_bytes is not None:
        args.arch = write_arch(args.out, lx_bytes=args.lx_bytes)
    tool_args = ToolArgs.of(args.arch, args.max_cores)
    if tool_args.compile:  # reproducers need the same options
        print(f"spyre-compile {' '.join(tool_args.compile)}", flush=True)
    with multiprocessing.Pool(args.jobs, _init,
                              (args.bin_dir, args.out, args.seed, tool_args)) as pool:
        for family, n, results in pool.imap_unordered(_work, tasks()):
            report.add(family, n, results)
            for r in results:
                if r.cls != OK and (r.cls, r.op, r.signature) not in seen:
                    seen.add((r.cls, r.op, r.signature))
                    print(f"{r.cls}: {r.op} {r.label}: {r.signature}\n    {r.repro}",
                          flush=True)
                stop = stop or (not args.keep_going and r.cls not in (OK, REFUSED))
            if time.time() - last_progress > 60:
                last_progress = time.time()
                print(f"[{last_progress - start:.0f} s] {report.progress()}", flush=True)
    elapsed = time.time() - start
    shutil.rmtree(os.path.join(args.out, "work"), ignore_errors=True)
    print()
    print(report.text(elapsed, args.batch_size, args.jobs, untraceable))
    report.write_json(os.path.join(args.out, "results.json"), elapsed)
    return report.status(args.fail_on_refused)


if __name__ == "__main__":
    sys.exit(main())
