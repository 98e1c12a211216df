#!/usr/bin/python3
"""The scale benchmark: whole Granite-3.3-8B-shaped (and Llama-3-8B-shaped)
models, 1 / 4 / 40 layers, prefill and decode, through the whole toolchain
(bench/scale/README.md).

    /usr/bin/python3 bench/scale/run.py [--cases NAME,...] [--work DIR]
                                        [--keep] [--no-results]

Per case: the archive (make_model.py, filler weights), then
  * graph compile: `spyre-compile --emit-mlir` (no weights touched), wall;
  * first compile: `spyre-compile` to a .spy with an empty --cache-dir and no
    weights file yet, wall and peak RSS (the weights go to the .spyw beside
    the .spy from 1 GiB on, --weights=auto);
  * recompile: the same with the cache warm and the weights file there
    (reused), wall and peak RSS;
  * load + timing-only run: `spyre-run --timing-only`, wall and peak RSS
    (the load maps the file and hashes every segment), and again with
    --no-verify;
  * simulated device time against the model roofline (`--stats`), and the
    device-memory bytes moved against the weights'.
Appends a table to RESULTS.md with the date, machine and commit.
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

# name: (shape, layers, mode, tokens)
CASES = {
    "granite-1L-prefill512": ("granite-3.3-8b", 1, "prefill", 512),
    "granite-4L-prefill512": ("granite-3.3-8b", 4, "prefill", 512),
    "granite-40L-prefill512": ("granite-3.3-8b", 40, "prefill", 512),
    "granite-40L-prefill1024": ("granite-3.3-8b", 40, "prefill", 1024),
    "granite-40L-decode1024": ("granite-3.3-8b", 40, "decode", 1024),
    "llama3-4L-prefill512": ("llama-3-8b", 4, "prefill", 512),
}
DEFAULT = ["granite-1L-prefill512", "granite-4L-prefill512", "granite-40L-prefill512",
           "granite-40L-decode1024", "llama3-4L-prefill512"]


def timed(cmd):
    """(wall s, peak RSS MB, stdout) of `cmd` under /usr/bin/time."""
    fmt = "SCALE_TIME %e %M"
    p = subprocess.run(["/usr/bin/time", "-f", fmt] + cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    line = [l for l in p.stderr.splitlines() if l.startswith("SCALE_TIME")][-1]
    _, wall, rss = line.split()
    return float(wall), int(rss) / 1024, p.stdout


def gib(n):
    return f"{n / (1 << 30):.2f}"


def run_case(name, work, bin_dir):
    shape, layers, mode, tokens = CASES[name]
    pt2 = os.path.join(work, name + ".pt2")
    spy = os.path.join(work, name + ".spy")
    spyw = os.path.join(work, name + ".spyw")
    cache = os.path.join(work, name + ".cache")
    shutil.rmtree(cache, ignore_errors=True)
    gen_wall, _, out = timed([sys.executable, os.path.join(HERE, "make_model.py"), pt2,
                              "--shape", shape, "--layers", str(layers), "--mode", mode,
                              "--tokens", str(tokens)])
    info = json.loads(out.strip().splitlines()[-1])
    compile_cmd = [os.path.join(bin_dir, "spyre-compile"), pt2, "--cache-dir", cache]
    graph_wall, graph_rss, _ = timed(compile_cmd + ["-o", spy + ".mlir", "--emit-mlir"])
    os.remove(spy + ".mlir")
    shutil.rmtree(cache, ignore_errors=True)
    if os.path.exists(spyw):
        os.remove(spyw)
    report = spy + ".report.json"
    first_wall, first_rss, _ = timed(compile_cmd + ["-o", spy, "--report", report])
    with open(report) as f:
        rep = json.load(f)
    re_wall, re_rss, _ = timed(compile_cmd + ["-o", spy])
    stats = spy + ".stats.json"
    run_cmd = [os.path.join(bin_dir, "spyre-run"), spy, "--timing-only", "--stats", stats]
    run_wall, run_rss, _ = timed(run_cmd)
    nv_wall, _, _ = timed(run_cmd + ["--no-verify"])
    with open(stats) as f:
        s = json.load(f)
    row = {
        "case": name, "layers": layers, "mode": mode, "tokens": tokens,
        "graph_nodes": info["graph_nodes"], "weights_gib": info["weight_bytes"] / (1 << 30),
        "archive_gib": os.path.getsize(pt2) / (1 << 30),
        "spy_gib": os.path.getsize(spy) / (1 << 30),
        "spyw_gib": os.path.getsize(spyw) / (1 << 30) if os.path.exists(spyw) else 0.0,
        "generate_s": gen_wall, "graph_s": graph_wall, "graph_rss": graph_rss,
        "first_s": first_wall, "first_rss": first_rss, "recompile_s": re_wall,
        "recompile_rss": re_rss, "run_s": run_wall, "run_rss": run_rss,
        "run_noverify_s": nv_wall,
        "kernels": len(s["kernels"]),
        "sim_ms": s["total_ns"] / 1e6, "roofline_ms": rep["model_roofline_ns"] / 1e6,
        "kernel_roofline_ms": rep["kernel_roofline_ns"] / 1e6,
        "model_gib": rep["model_min_bytes"] / (1 << 30),
        "read_gib": s["bytes_read"] / (1 << 30), "written_gib": s["bytes_written"] / (1 << 30),
    }
    for p in (pt2, spy, spyw, stats, report):
        if os.path.exists(p) and not KEEP:
            os.remove(p)
    shutil.rmtree(cache, ignore_errors=True)
    return row


def rate(r):
    """Weights written per second of the first compile's extra time over
    the recompile (which reuses them): conversion and writing, in GB/s."""
    extra = r["first_s"] - r["recompile_s"]
    if r["spyw_gib"] == 0 or extra <= 0:
        return "-"
    return f"{r['spyw_gib'] * (1 << 30) / 1e9 / extra:.2f}"


def table(rows):
    head = ("| case | graph nodes | kernels | weights GiB | .spy GiB | .spyw GiB "
            "| graph compile s | per layer ms | first compile s | weights GB/s "
            "| peak RSS MB | recompile s | load + "
            "timing-only run s (--no-verify) | run peak RSS MB | simulated ms | model "
            "roofline ms | sim / roofline | device bytes / model bytes |")
    lines = [head, "|---|" + "---:|" * (head.count("|") - 2)]
    for r in rows:
        moved = r["read_gib"] + r["written_gib"]
        lines.append(
            f"| `{r['case']}` | {r['graph_nodes']} | {r['kernels']} | {r['weights_gib']:.2f} | "
            f"{r['spy_gib']:.2f} | {r['spyw_gib']:.2f} | {r['graph_s']:.2f} | "
            f"{1000 * r['graph_s'] / r['layers']:.0f} | {r['first_s']:.1f} | {rate(r)} | "
            f"{max(r['first_rss'], r['recompile_rss']):.0f} | "
            f"{r['recompile_s']:.1f} | {r['run_s']:.2f} ({r['run_noverify_s']:.2f}) | "
            f"{r['run_rss']:.0f} | {r['sim_ms']:.2f} | {r['roofline_ms']:.2f} | "
            f"{r['sim_ms'] / r['roofline_ms']:.2f} | {moved / r['model_gib']:.2f} |")
    return "\n".join(lines)


def git_commit():
    try:
        c = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                           capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return c + (" (with local changes)" if dirty else "")
    except OSError:
        return "unknown"


KEEP = False


def main(argv=None):
    global KEEP
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=",".join(DEFAULT),
                    help="comma-separated, from: " + ", ".join(CASES))
    ap.add_argument("--work", default=None, help="where archives and .spy files go "
                    "(default: a temporary directory; a 40-layer case needs ~35 GB)")
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--keep", action="store_true", help="keep the archives and .spy files")
    ap.add_argument("--no-results", action="store_true", help="do not append to RESULTS.md")
    ap.add_argument("--note", default="", help="what else ran on the machine, for RESULTS.md")
    a = ap.parse_args(argv)
    KEEP = a.keep
    names = [n for n in a.cases.split(",") if n]
    unknown = [n for n in names if n not in CASES]
    if unknown:
        ap.error("unknown case(s): " + ", ".join(unknown))
    work = a.work or tempfile.mkdtemp(prefix="spyre-scale-")
    os.makedirs(work, exist_ok=True)
    rows = []
    for n in names:
        print(f"== {n}", flush=True)
        rows.append(run_case(n, work, a.bin_dir))
        print(json.dumps(rows[-1]), flush=True)
    text = table(rows)
    print(text)
    if not a.no_results:
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        cpu = "unknown CPU"
        try:
            with open("/proc/cpuinfo") as f:
                cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
        except (OSError, StopIteration):
            pass
        with open(os.path.join(HERE, "RESULTS.md"), "a") as f:
            note = f" {a.note}" if a.note else ""
            f.write(f"\n## {now}\n\n{cpu}, {os.cpu_count()} cores, "
                    f"{platform.release()}; commit {git_commit()}.{note}\n\n{text}\n")
    if not a.work and not a.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
