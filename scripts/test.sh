#!/usr/bin/env bash
# Sets up, builds and runs every test suite: gtest (ctest) and lit (dialect,
# passes, importer, binary, tools, end-to-end fixtures on the simulator).
# Prints one summary line "tests: N passed, M failed" and exits non-zero on
# any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
build="${SPYRE_BUILD_DIR:-build}"

status=0
ctest_log=$(mktemp)
lit_log=$(mktemp)
trap 'rm -f "$ctest_log" "$lit_log"' EXIT

echo "== gtest (ctest)"
ctest --test-dir "$build" --output-on-failure -j "${SPYRE_JOBS:-2}" \
  | tee "$ctest_log" || status=1

echo "== lit"
/usr/lib/llvm-22/bin/lit "$build/test" -sv -j "${SPYRE_JOBS:-2}" \
  | tee "$lit_log" || status=1

# Every tracked C++ file formatted as .clang-format says (LLVM style).
format_failed=0
echo "== format (scripts/check-format.sh)"
scripts/check-format.sh || { status=1; format_failed=1; }

# The differential op fuzzer's bounded run: random valid calls of every
# registry op against PyTorch (tools/fuzz/README.md); any wrong answer or
# internal error fails the suite. SPYRE_SKIP_FUZZ=1 skips it.
fuzz_failed=0
# Sanitized test binaries that exited non-zero (counted once each).
sanitizer_failed=0
if [[ "${SPYRE_SKIP_FUZZ:-0}" != 1 ]]; then
  echo "== op fuzzer (tools/fuzz/ci.sh)"
  if ! SPYRE_BUILD_DIR="$build" tools/fuzz/ci.sh; then
    status=1
    fuzz_failed=1
  fi
  # The same calls on a machine with 128 KiB of LX and 2 cores: the
  # schedules of large shapes (several tiles per core, every loop level).
  echo "== op fuzzer, small machine (tools/fuzz/ci.sh --lx-bytes 131072 --max-cores 2)"
  if ! SPYRE_BUILD_DIR="$build" tools/fuzz/ci.sh --lx-bytes 131072 --max-cores 2 \
      --time-limit 90 --out "$build/fuzz-ci-small"; then
    status=1
    fuzz_failed=1
  fi
fi

# The whole suite again on an AddressSanitizer + UBSan build: the importer,
# the emitter and the loader read untrusted files, and a wrong read that
# happens not to crash is still a bug. Only the tools and tests the suites
# run are built (a second build directory; ccache makes reruns cheap).
# SPYRE_SKIP_ASAN=1 skips this stage.
if [[ "${SPYRE_SKIP_ASAN:-0}" != 1 ]]; then
  echo "== gtest and every lit suite under ASan + UBSan"
  asan_build="${SPYRE_ASAN_BUILD_DIR:-build-asan}"
  SPYRE_BUILD_DIR="$asan_build" \
    SPYRE_CMAKE_ARGS="-DSPYRE_ENABLE_SANITIZERS=ON" \
    scripts/build.sh spyre-opt spyre-translate spyre-compile spyre-run spyre-npy-compare \
    spyre-fuzz-loader spyre-fuzz-pt2 spyre-fuzz-pickle spyre-fuzz-npy spyre-dispatch-bench \
    SpyreTargetTests SpyreTorchSaveTests SpyreRuntimeTests
  # allow_user_poisoning=0: LLVM's inline allocators poison memory only in
  # our instrumented code, not in the uninstrumented libMLIR that shares
  # them, which would read as use-after-poison.
  export ASAN_OPTIONS="detect_leaks=1:allow_user_poisoning=0:halt_on_error=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  for t in Target/SpyreTargetTests Target/SpyreTorchSaveTests \
           runtime/SpyreRuntimeTests; do
    # A leak or a sanitizer report fails the binary after its tests pass.
    "$asan_build/unittests/$t" --gtest_brief=1 | tee -a "$ctest_log" \
      || { status=1; sanitizer_failed=$((sanitizer_failed + 1)); }
  done
  # Every lit suite but Docs (the generated TableGen references, which
  # this build does not make), the end-to-end fixtures included (each
  # compiled, run on the simulator and checked kernel by kernel).
  /usr/lib/llvm-22/bin/lit "$asan_build/test/Dialect" \
    "$asan_build/test/Transforms" "$asan_build/test/Target" \
    "$asan_build/test/Tools" "$asan_build/test/e2e" \
    -sv -j "${SPYRE_JOBS:-2}" | tee -a "$lit_log" || status=1
fi

# The runtime's threads under ThreadSanitizer: the C API and streams with
# several threads on one device and one loaded model, and the weights-file
# writer's worker threads. Only the runtime's tests are built (a third
# build directory). SPYRE_SKIP_TSAN=1 skips this stage.
if [[ "${SPYRE_SKIP_TSAN:-0}" != 1 ]]; then
  echo "== runtime threads under ThreadSanitizer"
  tsan_build="${SPYRE_TSAN_BUILD_DIR:-build-tsan}"
  SPYRE_BUILD_DIR="$tsan_build" \
    SPYRE_CMAKE_ARGS="-DSPYRE_ENABLE_TSAN=ON -DSPYRE_ENABLE_PYTHON=OFF" \
    scripts/build.sh SpyreRuntimeTests
  TSAN_OPTIONS="halt_on_error=1" "$tsan_build/unittests/runtime/SpyreRuntimeTests" \
    --gtest_brief=1 \
    --gtest_filter='Streams.*:CApi.*:Executable.*:WeightsFile.*:LoaderWeightsFile.*' \
    | tee -a "$ctest_log" || { status=1; sanitizer_failed=$((sanitizer_failed + 1)); }
fi

# Summary: ctest prints "N% tests passed, F tests failed out of T", gtest
# "[  PASSED  ] N tests." / "[  FAILED  ] N tests,", each lit run "Passed: N"
# / "Failed: N" lines (all summed).
sum() { sed -nE "$1" "$2" | awk '{ s += $1 } END { print s + 0 }'; }
read -r ct_total ct_failed < <(sed -nE \
  's/.*tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\2 \1/p' \
  "$ctest_log" | tail -1)
gt_passed=$(sum 's/^\[  PASSED  \] ([0-9]+) tests?.*/\1/p' "$ctest_log")
gt_failed=$(sum 's/^\[  FAILED  \] ([0-9]+) tests?,.*/\1/p' "$ctest_log")
lit_passed=$(sum 's/^ *Passed *: *([0-9]+).*/\1/p' "$lit_log")
lit_failed=$(sum 's/^ *(Failed|Unresolved|Timed Out) *: *([0-9]+).*/\2/p' "$lit_log")
passed=$(( ${ct_total:-0} - ${ct_failed:-0} + gt_passed + lit_passed ))
failed=$(( ${ct_failed:-0} + gt_failed + lit_failed + fuzz_failed + format_failed + sanitizer_failed ))
[[ $failed -ne 0 ]] && status=1
echo "tests: $passed passed, $failed failed"
exit $status
