#!/bin/sh
# Regenerates every committed export fixture, deterministically:
#   test/e2e/models/<model>_<dtype>/   (model.pt2, input_*.npy, output_*.npy, fixture.json)
#   test/Target/Import/Inputs/          (bad-input and bare-JSON importer fixtures)
# then checks them with check_archive.py.  Running it twice gives
# byte-identical files.  Needs /usr/bin/python3 with torch and numpy
# (Debian's python3-torch 1.13 works; torch >= 2.9 uses torch.export).
#
#   tools/export/regen_fixtures.sh [--check-only]
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PYTHON:-/usr/bin/python3}
export PYTHONDONTWRITEBYTECODE=1
EXPORT="$ROOT/tools/export/export_model.py"
MODELS_DIR="$ROOT/test/e2e/models"
INPUTS_DIR="$ROOT/test/Target/Import/Inputs"
SEED=0

if [ "${1:-}" != "--check-only" ]; then
  "$PY" "$EXPORT" --list-fixtures | while read -r model dtype; do
    out="$MODELS_DIR/${model}_${dtype}"
    rm -rf "$out"
    "$PY" "$EXPORT" --model "$model" --dtype "$dtype" --seed "$SEED" --out-dir "$out"
  done
  "$PY" "$ROOT/tools/export/make_bad_inputs.py" --models-dir "$MODELS_DIR" --out-dir "$INPUTS_DIR"
fi

# structural checks of every fixture and of the bare JSON files
"$PY" "$ROOT/tools/export/check_archive.py" "$MODELS_DIR"/*/ \
  "$INPUTS_DIR"/*.model.json >/dev/null
# semantic check: a numpy interpreter of the archive reproduces output_*.npy
"$PY" "$ROOT/tools/export/reference_interpreter.py" "$MODELS_DIR"/*/ >/dev/null
# every malformed archive must be rejected by the checker
# (unsupported_dtype.pt2 is schema-valid: only the importer rejects it)
for f in "$INPUTS_DIR"/*.pt2; do
  case "$f" in *unsupported_dtype.pt2) continue ;; esac
  if "$PY" "$ROOT/tools/export/check_archive.py" "$f" >/dev/null 2>&1; then
    echo "error: $f passed check_archive.py but should be malformed" >&2
    exit 1
  fi
done
echo "all fixtures regenerated and consistent"
