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

# Summary: ctest prints "N% tests passed, F tests failed out of T"; lit
# prints "Passed: N" / "Failed: N" lines.
read -r ct_total ct_failed < <(sed -nE \
  's/.*tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\2 \1/p' \
  "$ctest_log" | tail -1)
lit_passed=$(sed -nE 's/^ *Passed *: *([0-9]+).*/\1/p' "$lit_log" | tail -1)
lit_failed=$(sed -nE 's/^ *Failed *: *([0-9]+).*/\1/p' "$lit_log" | tail -1)
passed=$(( ${ct_total:-0} - ${ct_failed:-0} + ${lit_passed:-0} ))
failed=$(( ${ct_failed:-0} + ${lit_failed:-0} ))
[[ $failed -ne 0 ]] && status=1
echo "tests: $passed passed, $failed failed"
exit $status
