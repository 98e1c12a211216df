#!/usr/bin/python3
"""Simulated time against the roofline, against baseline schedules, against
IBM's published measurements, and compile time: one run, one table.

Driven by bench/perf/run.sh (see there for the options).  Standard library
only: no numpy, no torch.  Every figure in the output comes from the tools
run here: spyre-compile --report (roofline, cost-model estimate) and
spyre-run --stats (simulated time); the IBM figures are quoted from the
sources named in CALIBRATION.
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# ----------------------------------------------------------------------------
# What is measured
# ----------------------------------------------------------------------------

FIXTURES = "test/e2e/models"
BENCH = "bench/perf/models"

# (name, directory): end-to-end fixtures (real inputs, outputs checked) and
# the bench-only shapes of bench/perf/make_models.py (zero inputs).
MODELS = [
    ("mlp_fp16", f"{FIXTURES}/mlp_fp16"),
    ("block_llama_decoder", f"{FIXTURES}/block_llama_decoder"),
    ("block_bert_encoder", f"{FIXTURES}/block_bert_encoder"),
    ("model_llama_tiny", f"{FIXTURES}/model_llama_tiny"),
    ("model_bert_tiny", f"{FIXTURES}/model_bert_tiny"),
    ("mm_512x4096x12800", f"{BENCH}/mm_512x4096x12800"),
    ("mm_512x4096x16384", f"{BENCH}/mm_512x4096x16384"),
    ("mm_64x4096x16384", f"{BENCH}/mm_64x4096x16384"),
    ("mm_1x4096x16384", f"{BENCH}/mm_1x4096x16384"),
    ("softmax_512x1024", f"{BENCH}/softmax_512x1024"),
    ("softmax_dim0_512x1024", f"{BENCH}/softmax_dim0_512x1024"),
    ("layer_norm_512x4096", f"{BENCH}/layer_norm_512x4096"),
    ("rms_norm_512x4096", f"{BENCH}/rms_norm_512x4096"),
    ("sdpa_1x8x512x128", f"{BENCH}/sdpa_1x8x512x128"),
    ("sdpa_gqa_32x8x1024x128", f"{BENCH}/sdpa_gqa_32x8x1024x128"),
    ("eager_gqa_decode_32x8x4096x128", f"{BENCH}/eager_gqa_decode_32x8x4096x128"),
    ("mul_scalar_256x2048", f"{BENCH}/mul_scalar_256x2048"),
    ("mul_scalar_4096x2048", f"{BENCH}/mul_scalar_4096x2048"),
]

# Schedules: ours (the defaults) and the baselines, by existing CLI options.
VARIANTS = [
    ("ours", []),
    ("1core", ["--max-cores", "1"]),
    ("depth1", ["--depth", "1"]),
    ("unfused", ["--fusion=false"]),
]
# Extra schedules only the calibration table needs.
EXTRA = {
    "softmax_512x1024": [("4core", ["--max-cores", "4"])],
    "softmax_dim0_512x1024": [("4core", ["--max-cores", "4"])],
}

SOURCES = {
    "spad": "torch-spyre/torch-spyre `docs/source/compiler/scratchpad_planning.md` "
            "(\"Optimizations on softmax\", 1000-iteration median)",
    "fill": "AdnanHoque/torch-spyre, branch `AdnanHoque/mlp-decode-first-principles`, "
            "`docs/source/_static/spyre_array_fill_briefing.md` (sections 1 and 3)",
    "bw": "AdnanHoque/torch-spyre, branch `on-chip-restickify`, `docs/source/rfcs/drafts/"
          "NNNN-OnChipRestickify/reproduction/workloads/bandwidth_micro/results.md` "
          "(Microbench A)",
}

# IBM on-device figures: (label, model, variant, IBM microseconds, source key,
# what IBM's schedule was).  Ours is the simulated device time of the named
# schedule, launch overhead excluded (IBM's figures are kernel times).
CALIBRATION = [
    ("softmax (512,1024) fp16, 1 core, input read once and output written once",
     "softmax_512x1024", "1core", 23.67, "spad",
     "stage 4 (dim 0): input cloned to LX, in-place exp/sub; ours: one fused kernel, "
     "along dim -1"),
    ("softmax (512,1024) fp16, 4 cores, input read once and output written once",
     "softmax_512x1024", "4core", 32.17, "spad", "stage 4 on 4 cores (dim 0); ours: dim -1"),
    ("softmax (512,1024) fp16 dim 0, 1 core, intermediates through device memory",
     "softmax_dim0_512x1024", "1core", 32.51, "spad",
     "stage 1 (8MN+4N bytes); ours: 5 kernels, fp32 intermediates through memory"),
    ("softmax (512,1024) fp16 dim 0, 4 cores", "softmax_dim0_512x1024",
     "4core", 32.17, "spad", "stage 4 on 4 cores; ours: 5 kernels as above"),
    ("mm [512,4096]x[4096,12800], double-buffered", "mm_512x4096x12800",
     "ours", 960.0, "fill", "sendnn/DeepTools: weight preload + double buffer, PT util 77.7 %"),
    ("mm [512,4096]x[4096,12800], reads and compute serialized", "mm_512x4096x12800",
     "depth1", 3160.0, "fill", "torch-spyre main 5838b3b, PT util 29.5 %"),
    ("mm [1,4096]x[4096,16384]", "mm_1x4096x16384",
     "ours", 940.0, "fill", "sendnn (torch-spyre: 950)"),
    ("mm [64,4096]x[4096,16384]", "mm_64x4096x16384",
     "ours", 990.0, "fill", "sendnn (torch-spyre: 990)"),
    ("mm [512,4096]x[4096,16384], overlapped", "mm_512x4096x16384",
     "ours", 1180.0, "fill", "sendnn"),
    ("mm [512,4096]x[4096,16384], serialized", "mm_512x4096x16384",
     "depth1", 2720.0, "fill", "torch-spyre"),
    ("y = x * 2.0, [256,2048] fp16 (1 MiB each way)", "mul_scalar_256x2048",
     "ours", 31.8, "bw", "one fused SFP kernel"),
    ("y = x * 2.0, [4096,2048] fp16 (16 MiB each way)", "mul_scalar_4096x2048",
     "ours", 338.3, "bw", "one fused SFP kernel (realized ~99 GB/s round trip)"),
]
NO_IBM_FIGURE = ["layer_norm_512x4096", "rms_norm_512x4096", "sdpa_1x8x512x128",
                 "sdpa_gqa_32x8x1024x128", "eager_gqa_decode_32x8x4096x128",
                 "mlp_fp16", "block_llama_decoder",
                 "block_bert_encoder", "model_llama_tiny", "model_bert_tiny"]

COMPILE_REPEATS = 3

# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------

NPY_DESCR = {"float16": ("<f2", 2), "float32": ("<f4", 4), "bfloat16": ("<f4", 4),
             "int64": ("<i8", 8), "int32": ("<i4", 4), "int8": ("|i1", 1),
             "bool": ("|b1", 1)}


def write_zero_npy(path, shape, dtype):
    """A version 1.0 .npy of zeros (no numpy needed); the data is a sparse
    hole, so a 128 MiB operand costs nothing to write."""
    descr, size = NPY_DESCR[dtype]
    shape_txt = "(%s)" % "".join("%d," % d for d in shape) if len(shape) == 1 else \
        "(%s)" % ", ".join(str(d) for d in shape)
    header = ("{'descr': '%s', 'fortran_order': False, 'shape': %s, }"
              % (descr, shape_txt)).encode("latin1")
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    n = 1
    for d in shape:
        n *= d
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header)
        f.truncate(f.tell() + n * size)


def run(cmd, timeout=600):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=timeout)
    return p, time.perf_counter() - t0


def load_arch(path):
    with open(path) as f:
        a = json.load(f)
    macs_per_cycle = a["corelets_per_core"] * a["pt_rows"] * a["pt_cols"] * a["pt_simd"]
    a["_peak_flops"] = 2.0 * macs_per_cycle * a["cores"] * a["core_clock_hz"]
    a["_mem_bw"] = a["memory_bytes_per_cycle"] * a["memory_clock_hz"] * a["memory_efficiency"]
    a["_mem_peak_bw"] = a["memory_bytes_per_cycle"] * a["memory_clock_hz"]
    a["_ring_bw"] = a["ring_bytes_per_cycle"] * a["ring_clock_hz"]
    a["_sfp_elems"] = a["sfp_lanes_per_core"] * a["cores"] * a["core_clock_hz"]
    return a


def git(*args):
    try:
        return subprocess.run(["git", "-C", ROOT] + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, universal_newlines=True).stdout.strip()
    except OSError:
        return ""


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d CPUs, %s %s" % (cpu, os.cpu_count() or 0, platform.system(),
                                   platform.release())


def us(ns):
    return ns / 1e3


def fmt(x, digits=1):
    if x is None:
        return "—"
    if abs(x) >= 1000:
        return "{:,.0f}".format(x)
    return "%.*f" % (digits, x)


def ratio(a, b, digits=2):
    if a is None or b is None or b == 0:
        return "—"
    return "%.*f" % (digits, a / b)


# ----------------------------------------------------------------------------
# Measuring
# ----------------------------------------------------------------------------


class Bench:
    def __init__(self, bindir, work, arch):
        self.compile = os.path.join(bindir, "spyre-compile")
        self.run = os.path.join(bindir, "spyre-run")
        self.compare = os.path.join(bindir, "spyre-npy-compare")
        self.work = work
        self.arch = arch
        self.failures = []

    def inputs(self, name, d, fixture):
        if fixture["_is_fixture"]:
            return [os.path.join(d, i["file"]) for i in fixture["inputs"]]
        out = []
        for i, t in enumerate(fixture["inputs"]):
            p = os.path.join(self.work, name, "input_%d.npy" % i)
            write_zero_npy(p, t["shape"], t["dtype"])
            out.append(p)
        return out

    def measure(self, name, d, variant, opts, inputs, fixture, repeats=1):
        """Compiles (`repeats` times, for the wall time) and simulates one
        schedule; returns a dict of figures or None on failure."""
        wd = os.path.join(self.work, name, variant)
        os.makedirs(wd, exist_ok=True)
        spy, report = os.path.join(wd, "model.spy"), os.path.join(wd, "report.json")
        times = []
        for _ in range(repeats):
            p, t = run([self.compile, os.path.join(d, "model.pt2"), "-o", spy,
                        "--report", report] + opts)
            if p.returncode != 0:
                self.failures.append("%s [%s]: spyre-compile: %s" %
                                     (name, variant, p.stderr.strip()[-400:]))
                return None
            times.append(t)
        stats = os.path.join(wd, "stats.json")
        # The end-to-end fixtures run functionally under our schedule (outputs
        # checked); everything else in timing-only mode (same timing).
        functional = fixture["_is_fixture"] and variant == "ours"
        cmd = [self.run, spy, "--output-dir", os.path.join(wd, "out"), "--stats", stats]
        for i in inputs:
            cmd += ["--input", i]
        if not functional:
            cmd.append("--timing-only")
        p, sim_wall = run(cmd)
        if p.returncode != 0:
            self.failures.append("%s [%s]: spyre-run: %s" %
                                 (name, variant, p.stderr.strip()[-400:]))
            return None
        with open(report) as f:
            rep = json.load(f)
        with open(stats) as f:
            st = json.load(f)
        check = None
        if functional:
            check = self.check_outputs(name, d, wd, fixture)
        a = self.arch
        launches = st["launches"]
        kernel_ns = sum(k["ns"] for k in st["kernels"])
        dev_ns = st["total_ns"] - launches * rep["launch_overhead_ns"]
        return {
            "variant": variant,
            "options": " ".join(opts),
            "compile_s": statistics.median(times),
            "compile_s_all": times,
            "sim_wall_s": sim_wall,
            "spy_bytes": os.path.getsize(spy),
            "kernels": len(st["kernels"]),
            "max_cores": max((k["cores"] for k in st["kernels"]), default=0),
            "total_ns": st["total_ns"],
            "device_ns": dev_ns,
            "kernel_ns": kernel_ns,
            "launches": launches,
            "macs": rep["macs"],
            "compute_floor_ns": 2.0 * rep["macs"] / a["_peak_flops"] * 1e9,
            "kernel_bytes": rep["kernel_min_bytes"],
            "model_bytes": rep["model_min_bytes"],
            "kernel_mem_floor_ns": rep["kernel_min_bytes"] / a["_mem_bw"] * 1e9,
            "model_mem_floor_ns": rep["model_min_bytes"] / a["_mem_bw"] * 1e9,
            "kernel_roofline_ns": rep["kernel_roofline_ns"],
            "model_roofline_ns": rep["model_roofline_ns"],
            "estimate_ns": rep["estimate_ns"],
            "sim_roofline_ns": st["roofline_ns"],
            "bytes_moved": st["bytes_read"] + st["bytes_written"],
            "ring_bytes": st["ring_bytes"],
            "pt_util_max": max((c["pt_util"] for c in st["cores"]), default=0.0),
            "check": check,
            "report_kernels": rep["kernels"],
            "sim_kernels": st["kernels"],
        }

    def check_outputs(self, name, d, wd, fixture):
        tol = fixture.get("tolerance", {"rtol": 2e-2, "atol": 2e-2})
        per = fixture.get("output_tolerances")
        for i, o in enumerate(fixture["outputs"]):
            t = per[i] if per else tol
            p, _ = run([self.compare, os.path.join(wd, "out", "output_%d.npy" % i),
                        os.path.join(d, o["file"]), "--rtol", str(t["rtol"]),
                        "--atol", str(t["atol"])])
            if p.returncode != 0:
                self.failures.append("%s: output %d differs from PyTorch: %s" %
                                     (name, i, p.stdout.strip()[-200:]))
                return "FAIL"
        return "ok"


def measure_all(b, only):
    results = {}
    for name, rel in MODELS:
        if only and name not in only:
            continue
        d = os.path.join(ROOT, rel)
        with open(os.path.join(d, "fixture.json")) as f:
            fixture = json.load(f)
        fixture["_is_fixture"] = rel.startswith(FIXTURES)
        os.makedirs(os.path.join(b.work, name), exist_ok=True)
        inputs = b.inputs(name, d, fixture)
        entry = {"dir": rel, "description": fixture.get("description", ""),
                 "nodes": len(fixture.get("ops", [])), "variants": {}}
        for variant, opts in VARIANTS + EXTRA.get(name, []):
            reps = COMPILE_REPEATS if variant == "ours" else 1
            r = b.measure(name, d, variant, opts, inputs, fixture, repeats=reps)
            if r is not None:
                entry["variants"][variant] = r
        results[name] = entry
        ours = entry["variants"].get("ours")
        sys.stderr.write("  %-24s %s\n" % (
            name, "%.1f us simulated, compiled in %.0f ms" %
            (us(ours["total_ns"]), ours["compile_s"] * 1e3) if ours else "FAILED"))
    return results


# ----------------------------------------------------------------------------
# Checks: figures that cannot be right
# ----------------------------------------------------------------------------


def flags(results):
    out = []
    for name, e in results.items():
        v = e["variants"]
        o = v.get("ours")
        for var, r in v.items():
            if r["device_ns"] < r["sim_roofline_ns"] * (1 - 1e-6):
                out.append("%s [%s]: simulated device time %.1f us is below the simulator's own "
                           "roofline %.1f us" % (name, var, us(r["device_ns"]),
                                                  us(r["sim_roofline_ns"])))
            if r["device_ns"] < r["model_roofline_ns"] * (1 - 1e-6):
                out.append("%s [%s]: simulated device time %.1f us is below the model-level "
                           "roofline %.1f us" % (name, var, us(r["device_ns"]),
                                                  us(r["model_roofline_ns"])))
            if r["estimate_ns"] < r["kernel_roofline_ns"] * (1 - 1e-3):
                out.append("%s [%s]: cost-model estimate %.1f us is below the kernel-level "
                           "roofline %.1f us (simulated: %.1f us)" %
                           (name, var, us(r["estimate_ns"]), us(r["kernel_roofline_ns"]),
                            us(r["kernel_ns"])))
            if r["kernel_ns"] > 0 and var == "ours":
                q = r["estimate_ns"] / r["kernel_ns"]
                if q < 2 / 3 or q > 1.5:
                    out.append("%s [%s]: cost-model estimate %.1f us vs simulated kernel time "
                               "%.1f us (x%.2f)" % (name, var, us(r["estimate_ns"]),
                                                    us(r["kernel_ns"]), q))
        if o:
            for var in ("1core", "depth1", "unfused"):
                r = v.get(var)
                if r and r["device_ns"] < o["device_ns"] * 0.99:
                    out.append("%s: baseline %s (%s) is faster than our schedule: %.1f us vs "
                               "%.1f us" % (name, var, r["options"], us(r["device_ns"]),
                                            us(o["device_ns"])))
    return out


# ----------------------------------------------------------------------------
# Tables
# ----------------------------------------------------------------------------


def table(header, rows, align=None):
    align = align or ["l"] + ["r"] * (len(header) - 1)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(sep) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def render(results, arch, meta, fl, failures, wall):
    md = []
    md.append("# Performance results (bench/perf)")
    md.append("")
    md.append("Generated by `bench/perf/run.sh`; do not edit by hand. How to read it: "
              "`docs/performance.md`.")
    md.append("")
    md.append("* date: %s" % meta["date"])
    md.append("* commit: `%s`" % meta["commit"])
    md.append("* machine: %s" % meta["machine"])
    md.append("* tools: `%s`; machine description `%s` (built-in `arch/spyre.json`)"
              % (meta["version"], arch["name"]))
    md.append("* whole run: %.0f s wall" % wall)
    md.append("")
    md.append("All times are simulated device times from `spyre-run --stats` (built-in "
              "simulator, timing model of `docs/runtime.md`), except the compile times, "
              "which are host wall times of `spyre-compile`. \"device\" excludes the "
              "per-launch overhead (%.0f us, once per inference) and includes the %d ns "
              "barriers between kernels. Rooflines come from `spyre-compile --report`: "
              "compute floor = 2 x MACs / %.1f TFLOP/s, memory floor = bytes / %.1f GB/s "
              "(sustained)." % (arch["launch_overhead_ns"] / 1e3, arch["barrier_latency_ns"],
                               arch["_peak_flops"] / 1e12, arch["_mem_bw"] / 1e9))
    md.append("")

    # 1. Simulated time against the roofline
    md.append("## 1. Simulated time against the roofline")
    md.append("")
    rows = []
    for name, e in results.items():
        o = e["variants"].get("ours")
        if not o:
            rows.append([name] + ["FAILED"] + [""] * 12)
            continue
        bound = "compute" if o["compute_floor_ns"] >= o["kernel_mem_floor_ns"] else "memory"
        rows.append([
            "`%s`" % name, o["kernels"], o["max_cores"],
            fmt(us(o["total_ns"])), fmt(us(o["device_ns"])),
            fmt(us(o["compute_floor_ns"]), 2), fmt(us(o["kernel_mem_floor_ns"]), 2),
            fmt(us(o["kernel_roofline_ns"]), 2), fmt(us(o["model_roofline_ns"]), 2), bound,
            ratio(o["device_ns"], o["kernel_roofline_ns"]),
            ratio(o["device_ns"], o["model_roofline_ns"]),
            ratio(o["estimate_ns"], o["kernel_ns"]),
            o["check"] or "timing only"])
    md.append(table(["model", "kernels", "cores", "total us", "device us", "compute floor us",
                     "memory floor us", "roofline us (kernel)", "roofline us (model)",
                     "bound", "device / roofline (kernel)", "device / roofline (model)",
                     "estimate / sim", "outputs"], rows,
                    ["l"] + ["r"] * 8 + ["l"] + ["r"] * 3 + ["l"]))
    md.append("")
    md.append("*kernels*: launched steps; *cores*: most cores any kernel uses; *total*: "
              "simulated time of one inference, launch overhead included; *device*: without "
              "it. *roofline (kernel)*: sum over kernels of max(compute floor, bytes the "
              "kernel must read and write / bandwidth); *roofline (model)*: only inputs, "
              "weights and outputs move, intermediates stay on chip. *estimate / sim*: the "
              "cost model's estimate (`estimate_ns` of the report) over the simulated kernel "
              "time. *outputs*: fixture outputs compared with PyTorch's (bench-only shapes run "
              "timing-only on zero inputs).")
    md.append("")

    # 2. Against baseline schedules
    md.append("## 2. Against baseline schedules")
    md.append("")
    rows = []
    for name, e in results.items():
        v = e["variants"]
        o = v.get("ours")
        if not o:
            continue
        c1, d1, nf = v.get("1core"), v.get("depth1"), v.get("unfused")
        rows.append([
            "`%s`" % name, fmt(us(o["device_ns"])),
            fmt(us(c1["device_ns"])) if c1 else "—",
            ratio(c1["device_ns"], o["device_ns"]) if c1 else "—",
            fmt(us(d1["device_ns"])) if d1 else "—",
            ratio(d1["device_ns"], o["device_ns"]) if d1 else "—",
            fmt(us(nf["device_ns"])) if nf else "—",
            ratio(nf["device_ns"], o["device_ns"]) if nf else "—",
        ])
    md.append(table(["model", "ours: device us", "1 core (`--max-cores 1`) us", "speedup",
                     "no double buffering (`--depth 1`) us", "speedup",
                     "no fusion (`--fusion=false`) us", "speedup"], rows))
    md.append("")
    md.append("Speedup = baseline device time / ours (launch overhead excluded, it is the "
              "same for every schedule). A speedup below 1 means the baseline schedule is "
              "faster than the one the cost model picked (listed under Checks).")
    md.append("")

    # 3. Calibration
    md.append("## 3. Calibration against IBM's published measurements")
    md.append("")
    md.append("IBM's figures are on-device kernel times of IBM's software stacks "
              "(torch-spyre, sendnn/DeepTools); ours is the simulated device time of the "
              "named schedule on the same shape. Sources: see the list below the table.")
    md.append("")
    rows = []
    for label, model, var, ibm_us, src, what in CALIBRATION:
        if model not in results:
            continue
        r = results[model]["variants"].get(var)
        ours_us = us(r["device_ns"]) if r else None
        opts = " ".join(dict(VARIANTS + EXTRA.get(model, []))[var]) or "default"
        rows.append([label, fmt(ibm_us, 2), what, "`%s` (%s)" % (model, opts),
                     fmt(ours_us, 2), ratio(ours_us, ibm_us),
                     "[%s]" % src])
    md.append(table(["measurement", "IBM us", "IBM's schedule", "ours: model (options)",
                     "ours us", "ours / IBM", "source"], rows,
                    ["l", "r", "l", "l", "r", "r", "l"]))
    md.append("")
    for key, text in SOURCES.items():
        md.append("* [%s] %s" % (key, text))
    md.append("")
    md.append("No published IBM measurement was found for: %s." %
              ", ".join("`%s`" % m for m in NO_IBM_FIGURE))
    md.append("")
    md.append("Machine description against published numbers "
              "(`arch/spyre.json`; sources in `docs/performance.md`):")
    md.append("")
    md.append(table(["quantity", "arch/spyre.json", "published"], [
        ["cores", arch["cores"], "32 (IBM Research blog; torch-spyre docs)"],
        ["corelets x PT array", "%d x %dx%d, SIMD %d" % (arch["corelets_per_core"],
                                                        arch["pt_rows"], arch["pt_cols"],
                                                        arch["pt_simd"]),
         "2 x 8x8 SIMD-systolic (IBM Research blog)"],
        ["core clock", "%.2f GHz" % (arch["core_clock_hz"] / 1e9),
         "1.1 GHz (torch-spyre branch notes; another note uses 1.5 GHz)"],
        ["fp16 peak", "%.1f TFLOP/s" % (arch["_peak_flops"] / 1e12),
         "72.1 TFLOP/s (torch-spyre branch notes); 98.3 at 1.5 GHz (cost-model notes); "
         ">300 TOPS is the low-precision headline"],
        ["LX per core", "%d MiB" % (arch["lx_bytes"] >> 20), "2 MB (torch-spyre docs)"],
        ["stick", "%d B" % arch["stick_bytes"], "128 B `BYTES_IN_STICK` (torch-spyre docs)"],
        ["ring link", "%.1f GB/s" % (arch["_ring_bw"] / 1e9),
         "128 B/cycle per direction (torch-spyre docs) x 1.3 GHz = 166.4 GB/s (branch notes)"],
        ["memory peak / sustained", "%.1f / %.1f GB/s" % (arch["_mem_peak_bw"] / 1e9,
                                                          arch["_mem_bw"] / 1e9),
         "LPDDR5 128 GB; 166 to 204.8 GB/s peak quoted; ~143 GB/s measured read, "
         "~100 GB/s measured read+write stream"],
        ["launch overhead", "%.0f us" % (arch["launch_overhead_ns"] / 1e3),
         "~3 us to ~3 ms quoted, depending on what is counted"],
    ], ["l", "l", "l"]))
    md.append("")

    # 4. Compile time
    md.append("## 4. Compile time")
    md.append("")
    rows = []
    for name, e in results.items():
        o = e["variants"].get("ours")
        if not o:
            continue
        rows.append(["`%s`" % name, e["nodes"], o["kernels"],
                     fmt(o["compile_s"] * 1e3, 0),
                     "%s" % ", ".join("%.0f" % (t * 1e3) for t in o["compile_s_all"]),
                     fmt(o["spy_bytes"] / 1024.0, 0), fmt(o["sim_wall_s"] * 1e3, 0)])
    md.append(table(["model", "graph nodes", "kernels", "spyre-compile ms (median)",
                     "runs ms", ".spy KiB", "spyre-run ms (host)"], rows))
    md.append("")
    md.append("Wall time of the whole `spyre-compile` process (import, pipeline, emission, "
              "report), median of %d runs, on the machine above; `spyre-run` is one "
              "simulation (functional for the fixtures, timing-only otherwise). These are "
              "host times and vary with the machine and its load." % COMPILE_REPEATS)
    md.append("")

    # 5. Checks
    md.append("## 5. Checks")
    md.append("")
    if failures:
        md.append("Failures:")
        md.append("")
        md += ["* %s" % f for f in failures]
        md.append("")
    if fl:
        md.append("Figures flagged by the bench (simulated time below a roofline, a "
                  "baseline faster than our schedule, the cost model off by more than "
                  "1.5x or below the roofline):")
        md.append("")
        md += ["* %s" % f for f in fl]
    else:
        md.append("Nothing flagged.")
    md.append("")
    return "\n".join(md)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", default=os.environ.get("SPYRE_BUILD_DIR", "build"))
    p.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    p.add_argument("--json", default=None, help="also write the raw figures as JSON")
    p.add_argument("--keep", default=None, help="keep the .spy, reports and stats here")
    p.add_argument("--only", nargs="*", default=None, help="model names (default: all)")
    args = p.parse_args()

    t0 = time.perf_counter()
    bindir = os.path.join(args.build_dir if os.path.isabs(args.build_dir)
                          else os.path.join(ROOT, args.build_dir), "bin")
    for tool in ("spyre-compile", "spyre-run", "spyre-npy-compare"):
        if not os.access(os.path.join(bindir, tool), os.X_OK):
            sys.exit("perf: %s/%s not found: build it first "
                     "(scripts/build.sh spyre-compile spyre-run spyre-npy-compare)"
                     % (bindir, tool))
    arch = load_arch(os.path.join(ROOT, "arch", "spyre.json"))
    dirty = git("status", "--porcelain", "--untracked-files=no")
    meta = {
        "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
        "commit": (git("rev-parse", "--short=12", "HEAD") or "unknown") +
                  (" (with uncommitted changes)" if dirty else ""),
        "machine": machine(),
        "version": (run([os.path.join(bindir, "spyre-compile"), "--version"])[0]
                    .stdout.strip().splitlines() or ["spyre-compile ?"])[0],
    }
    work = args.keep or tempfile.mkdtemp(prefix="spyre-perf-")
    os.makedirs(work, exist_ok=True)
    b = Bench(bindir, work, arch)
    sys.stderr.write("perf: compiling and simulating (%s)\n" % work)
    results = measure_all(b, args.only)
    fl = flags(results)
    md = render(results, arch, meta, fl, b.failures, time.perf_counter() - t0)
    print(md)
    with open(args.out, "w") as f:
        f.write(md + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "results": results, "flags": fl,
                       "failures": b.failures}, f, indent=1)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    sys.stderr.write("perf: wrote %s\n" % os.path.relpath(args.out, os.getcwd()))
    return 1 if b.failures else 0


if __name__ == "__main__":
    sys.exit(main())
