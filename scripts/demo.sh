#!/usr/bin/env bash
# The main job: compile the shipped 2-layer MLP (torch.export .pt2) for
# Spyre, run it on the simulator and compare with PyTorch's answer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh spyre-compile spyre-run spyre-npy-compare spyre-translate
bin="${SPYRE_BUILD_DIR:-build}/bin"
model=test/e2e/models/mlp_fp16
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== spyre-compile $model/model.pt2 -o model.spy"
"$bin/spyre-compile" "$model/model.pt2" -o "$out/model.spy"
"$bin/spyre-translate" --spy-to-text "$out/model.spy" | grep -E '^(program|plan)'

echo "== spyre-run model.spy (simulator)"
"$bin/spyre-run" "$out/model.spy" --input "$model/input_0.npy" \
  --output-dir "$out" --stats "$out/stats.json"

echo "== compare with PyTorch"
"$bin/spyre-npy-compare" "$out/output_0.npy" "$model/output_0.npy" \
  --rtol 2e-2 --atol 2e-2
python3 - "$out/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print("simulated time: %.1f us (%d kernels, launch overhead included)"
      % (s["total_ns"] / 1e3, len(s["kernels"])))
for k in s["kernels"]:
    print("  %-28s %8.1f us on %2d cores" % (k["name"], k["ns"] / 1e3, k["cores"]))
print("roofline (max of compute at peak, bytes at sustained bandwidth): %.1f us"
      % (s["roofline_ns"] / 1e3))
PY
