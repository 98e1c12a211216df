#!/bin/sh
# The long op-fuzz run: 100,000 calls per family (shared by its ops), every
# failure kept as a reproducer.  Hours on 2 cores; --time-limit S bounds it,
# --seed N gives other calls.
#   tools/fuzz/long.sh [--seed N] [--family F] [--time-limit S] [--out DIR]
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SPYRE_BUILD_DIR:-$ROOT/build}
exec "${PYTHON:-/usr/bin/python3}" "$ROOT/tools/fuzz/op_fuzz.py" --seed 1 \
  --calls-per-family 100000 --keep-going --bin-dir "$BUILD/bin" --out "$BUILD/fuzz-long" "$@"
