#!/usr/bin/env bash
# Configures (once) and builds spyre-mlir with Ninja and ccache.
#   scripts/build.sh [targets...]      (default: everything)
# Environment: SPYRE_BUILD_DIR (default build), SPYRE_JOBS (default 2),
# SPYRE_CMAKE_ARGS (extra configure arguments, e.g. sanitizers).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${SPYRE_BUILD_DIR:-build}"
# Paths relative to the checkout in ccache's keys: a fresh clone elsewhere
# (CI) reuses the objects of this one.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR=true
jobs="${SPYRE_JOBS:-2}"
if [[ ! -f "$build/build.ninja" ]]; then
  # shellcheck disable=SC2086
  cmake -G Ninja -S . -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DMLIR_LINK_MLIR_DYLIB=ON ${SPYRE_CMAKE_ARGS:-} >/dev/null
fi
cmake --build "$build" -j "$jobs" ${1:+--target "$@"}
