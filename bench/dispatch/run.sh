#!/usr/bin/env bash
# Host time of opening, loading and launching compiled models on a device
# that takes no time (bench/dispatch/README.md). Compiles the models, runs
# spyre-dispatch-bench (libbenchmark) and writes bench/dispatch/RESULTS.md.
#
#   bench/dispatch/run.sh [--out FILE]
#
# Needs ${SPYRE_BUILD_DIR:-build}/bin/{spyre-compile,spyre-dispatch-bench}
# and /usr/bin/python3 (standard library). About 30 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${SPYRE_BUILD_DIR:-build}"
out=bench/dispatch/RESULTS.md
if [[ "${1:-}" == "--out" ]]; then out="$2"; fi
work="$build/bench/dispatch"
mkdir -p "$work"

models=(test/e2e/models/mlp_fp16 test/e2e/models/block_llama_decoder
        test/e2e/models/model_llama_tiny bench/perf/models/granite_layer_512)
spys=()
for m in "${models[@]}"; do
  spy="$work/$(basename "$m").spy"
  "$build/bin/spyre-compile" "$m/model.pt2" -o "$spy"
  spys+=("$spy")
done
"$build/bin/spyre-dispatch-bench" "${spys[@]}" --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true \
  --benchmark_out="$work/results.json" --benchmark_out_format=json \
  >/dev/null 2>"$work/bench.log" || { cat "$work/bench.log" >&2; exit 1; }

/usr/bin/python3 - "$work/results.json" "$out" "$(git rev-parse --short HEAD)" \
  "$(git status --porcelain --untracked-files=no | grep -q . && echo ' (with local changes)' || true)" <<'PY'
import json, sys, time
results, out, commit, dirty = sys.argv[1:5]
data = json.load(open(results))
rows = {}
for b in data["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    kind, model = b["run_name"].split("/", 1)
    model = model[:-len(".spy")] if model.endswith(".spy") else model
    rows.setdefault(model, {})[kind] = b
    if "steps" in b:
        rows[model]["steps"] = int(b["steps"])
ctx = data["context"]
def us(b):
    return "%.3f" % (b["real_time"] / 1e3) if b["time_unit"] == "ns" else str(b["real_time"])
lines = [
    "# Dispatch benchmark results",
    "",
    "Written by `bench/dispatch/run.sh` (README.md): host time of the runtime on a",
    "device that takes no time, median of 5 repetitions (libbenchmark).",
    "",
    "%s UTC; %d CPUs at %d MHz; commit %s%s." % (
        time.strftime("%Y-%m-%d %H:%M", time.gmtime()), ctx["num_cpus"],
        ctx["mhz_per_cpu"], commit, dirty),
    "",
    "| model | launch steps | open us | load (phase 1) us | launch us | launch, new io buffers us | launch on device tensors us |",
    "|---|---:|---:|---:|---:|---:|---:|",
]
for model, r in rows.items():
    lines.append("| `%s` | %d | %s | %s | %s | %s | %s |" % (
        model, r.get("steps", 0), us(r["Open"]), us(r["Load"]), us(r["Launch"]),
        us(r["LaunchNewBuffers"]), us(r["LaunchTensors"])))
lines += ["", "Target (issue 12): launch <= 5 us."]
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
