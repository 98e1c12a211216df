#!/bin/sh
# The bounded op-fuzz run of scripts/test.sh: every registry op a few calls,
# fixed seed, all families, under 3 minutes on 2 cores.  Prints the summary;
# exits non-zero on any MISMATCH, INTERNAL ERROR or GENERATOR ERROR.
#   tools/fuzz/ci.sh [more op_fuzz.py flags]
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SPYRE_BUILD_DIR:-$ROOT/build}
exec "${PYTHON:-/usr/bin/python3}" "$ROOT/tools/fuzz/op_fuzz.py" --seed 1 --calls-per-op 4 \
  --keep-going --time-limit 150 --bin-dir "$BUILD/bin" --out "$BUILD/fuzz-ci" "$@"
