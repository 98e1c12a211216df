#!/usr/bin/env bash
# Performance benchmark: simulated time against the roofline of the machine
# model and against baseline schedules (--max-cores 1, --depth 1), a
# calibration table against IBM's published Spyre measurements, and compile
# times. Prints a markdown report and writes it to bench/perf/RESULTS.md.
#
#   bench/perf/run.sh [--only MODEL...] [--out FILE] [--json FILE] [--keep DIR]
#
# Needs the built tools (spyre-compile, spyre-run, spyre-npy-compare) in
# ${SPYRE_BUILD_DIR:-build}/bin and /usr/bin/python3 (standard library only;
# torch is needed only to regenerate bench/perf/models with make_models.py).
# About 80 s on two cores. docs/performance.md explains the figures.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec /usr/bin/python3 bench/perf/perf.py --build-dir "${SPYRE_BUILD_DIR:-build}" "$@"
