#!/usr/bin/env bash
# Checks that every tracked C++ file is formatted as `.clang-format` (LLVM
# style) says, with clang-format-22 (Debian package clang-format-22). Lists
# each file that is not and exits 1; `--fix` rewrites them in place instead.
#   scripts/check-format.sh [--fix]
# To format only what a change touched: git-clang-format-22 --binary
# clang-format-22 BASE.
set -euo pipefail
cd "$(dirname "$0")/.."
fix=0
case "${1:-}" in
  "") ;;
  --fix) fix=1 ;;
  -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "check-format.sh: unknown option '$1'" >&2; exit 2 ;;
esac
command -v clang-format-22 >/dev/null || {
  echo "check-format.sh: needs clang-format-22 (scripts/setup.sh installs it)" >&2
  exit 1
}
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.c')
if [[ $fix == 1 ]]; then
  clang-format-22 -i "${files[@]}"
  exit 0
fi
# One clang-format run over all files; each unformatted file is named in
# its "code should be clang-formatted" diagnostics.
mapfile -t bad < <(clang-format-22 --dry-run -Werror "${files[@]}" 2>&1 |
  sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' |
  sort -u)
if [[ ${#bad[@]} -ne 0 ]]; then
  echo "check-format.sh: ${#bad[@]} of ${#files[@]} files are not formatted" \
    "(scripts/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format.sh: ${#files[@]} files formatted"
