#!/bin/sh
# Regenerates every committed export fixture, deterministically:
#   test/e2e/models/<fixture>/          (model.pt2, input_*.npy, output_*.npy, fixture.json)
#   test/Target/Import/Inputs/          (bad inputs, importer robustness inputs, bare JSON)
# then checks them with check_archive.py and reference_interpreter.py.
# Running it twice gives byte-identical files.  Needs /usr/bin/python3 with
# torch and numpy (Debian's python3-torch 1.13 works; torch >= 2.9 uses
# torch.export).
#
#   tools/export/regen_fixtures.sh [--check-only]
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PYTHON:-/usr/bin/python3}
export PYTHONDONTWRITEBYTECODE=1
EXPORT="$ROOT/tools/export/export_model.py"
MODELS_DIR="$ROOT/test/e2e/models"
INPUTS_DIR="$ROOT/test/Target/Import/Inputs"

if [ "${1:-}" != "--check-only" ]; then
  # every zoo fixture, in one process (export_model.py --list-fixtures lists them)
  "$PY" "$EXPORT" --all "$MODELS_DIR" >/dev/null
  "$PY" "$ROOT/tools/export/make_import_inputs.py" --models-dir "$MODELS_DIR" --out-dir "$INPUTS_DIR"
  "$PY" "$ROOT/tools/export/make_bad_inputs.py" --models-dir "$MODELS_DIR" --out-dir "$INPUTS_DIR"
fi

# structural checks of every fixture and of the bare JSON files
# (the other *.model.json are make_bad_inputs.py's broken variants)
"$PY" "$ROOT/tools/export/check_archive.py" "$MODELS_DIR"/*/ \
  "$INPUTS_DIR"/relu_fp16.model.json "$INPUTS_DIR"/mlp_fp16.model.json \
  "$INPUTS_DIR"/symbolic_batch.model.json >/dev/null
# semantic check: a numpy interpreter of the archive reproduces output_*.npy
"$PY" "$ROOT/tools/export/reference_interpreter.py" "$MODELS_DIR"/*/ >/dev/null
# importer inputs: the valid ones pass the checker, the malformed ones do not
for f in "$INPUTS_DIR"/*.pt2; do
  case "$(basename "$f")" in
    unsupported_dtype.pt2|aliased_weights.pt2|legacy_pickled_weights_*.pt2|\
    pickle_missing_storage.pt2|weight_negative_stride.pt2|\
    mutation_aten_ir.pt2|mutation_training_ir.pt2|schema_minor_*.pt2|\
    symbolic_batch.pt2|zip64_forced.pt2|hop_cond.pt2|hop_wrapped_mlp.pt2|\
    aten_ir_flash_sdpa.pt2)
      if ! "$PY" "$ROOT/tools/export/check_archive.py" "$f" >/dev/null 2>&1; then
        echo "error: $f should pass check_archive.py" >&2
        exit 1
      fi ;;
    *)
      if "$PY" "$ROOT/tools/export/check_archive.py" "$f" >/dev/null 2>&1; then
        echo "error: $f passed check_archive.py but should be malformed" >&2
        exit 1
      fi ;;
  esac
done
echo "all fixtures regenerated and consistent"
