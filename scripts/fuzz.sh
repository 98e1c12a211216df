#!/usr/bin/env bash
# Coverage-guided fuzzing of one parser with libFuzzer (clang-22, ASan + UBSan).
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#
# TARGET: pt2 (the .pt2 importer: zip + JSON), pickle (the torch.save reader
# and its restricted pickle machine), npy (the .npy reader), loader (the
# .spy loader and a timing-only run on the simulator). Configures build-fuzz
# (SPYRE_FUZZ_BUILD_DIR) with clang once, builds spyre-fuzz-TARGET-libfuzzer,
# seeds build-fuzz/corpus/TARGET from the test inputs, and runs for SECONDS
# on one core; new inputs stay in the corpus for the next run, crashes are
# written to build-fuzz/crashes/TARGET. Prints libFuzzer's final stats
# (executions, coverage). Needs clang-22 and libclang-rt-22-dev (not in
# scripts/setup.sh: the test suite runs the standalone builds of the same
# targets, which any compiler builds).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 2 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
target="$1"
seconds="$2"
shift 2
case "$target" in
  pt2|pickle|npy|loader) ;;
  *) echo "fuzz.sh: unknown target '$target' (pt2, pickle, npy, loader)" >&2; exit 2 ;;
esac
build="${SPYRE_FUZZ_BUILD_DIR:-build-fuzz}"
if [[ ! -f "$build/build.ninja" ]]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S . -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DMLIR_LINK_MLIR_DYLIB=ON \
    -DSPYRE_BUILD_TESTS=OFF \
    -DSPYRE_ENABLE_LIBFUZZER=ON \
    -DSPYRE_ENABLE_SANITIZERS=ON \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link" >/dev/null
fi
cmake --build "$build" -j "${SPYRE_JOBS:-2}" --target "spyre-fuzz-$target-libfuzzer"

corpus="$build/corpus/$target"
crashes="$build/crashes/$target"
mkdir -p "$corpus" "$crashes"
if [[ -z "$(ls -A "$corpus")" ]]; then
  case "$target" in
    pt2) cp test/Target/Import/Inputs/*.pt2 test/Target/Import/Inputs/*.json "$corpus/" ;;
    pickle) cp fuzz/seeds/pickle/* "$corpus/" ;;
    npy) for m in mlp_fp16 relu_fp32 linear_relu_fp32 relu_fp16; do
           for f in test/e2e/models/$m/*.npy; do cp "$f" "$corpus/${m}_$(basename "$f")"; done
         done ;;
    loader) build/bin/spyre-fuzz-loader --write-seeds "$corpus" 2>/dev/null ||
              "$build/bin/spyre-fuzz-loader" --write-seeds "$corpus" ;;
  esac
fi
export ASAN_OPTIONS="detect_leaks=0:allow_user_poisoning=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
"$build/bin/spyre-fuzz-$target-libfuzzer" "$corpus" \
  -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=4096 \
  -timeout=30 -artifact_prefix="$crashes/" "$@"
