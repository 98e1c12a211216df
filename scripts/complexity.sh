#!/usr/bin/env bash
# Prints the code-complexity figures the project watches (pmccabe, Debian
# package `pmccabe`): over the C++ of lib/, runtime/ and tools/, the number
# of functions, their mean McCabe complexity, how many exceed 10 and 20,
# how many are longer than 150 lines, and the worst ones.
#   scripts/complexity.sh [--worst N] [--exclude-switches]
# --exclude-switches leaves out the pure switches of an interpreter or a
# disassembler, listed below (one case an opcode; splitting them would only
# scatter the table).
# pmccabe's parser does not know C++17 nested namespaces or some keywords,
# so each file is read through a copy with those spelled in its dialect.
set -euo pipefail
cd "$(dirname "$0")/.."
worst=10
exclude=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --worst) worst="$2"; shift 2 ;;
    --exclude-switches) exclude=1; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "complexity.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
command -v pmccabe >/dev/null || { echo "complexity.sh: needs pmccabe (apt-get install pmccabe)" >&2; exit 1; }

# Interpreter and disassembler switches (file:function).
switches=(
  "lib/Target/Pt2/TorchPickle.cpp:spyre::anonymous_namespace::Machine::run"
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=$(git ls-files 'lib/*.cpp' 'lib/*.h' 'runtime/*.cpp' 'runtime/*.h' 'tools/*.cpp' 'tools/*.h')
for f in $files; do
  mkdir -p "$tmp/$(dirname "$f")"
  sed -E 's/namespace ([A-Za-z_0-9]+)::([A-Za-z_0-9:]+) \{/namespace \1_ns {/;
          s/\b(override|noexcept|final|constexpr)\b//g' "$f" > "$tmp/$f"
done
(cd "$tmp" && pmccabe $files 2>/dev/null) > "$tmp/all.txt" || true
# Columns: modified McCabe, traditional McCabe, statements, first line,
# lines, file(line): function.
awk -v exclude="$exclude" -v list="${switches[*]}" '
  BEGIN { n = split(list, sw, " ") }
  {
    name = $0; sub(/^[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t/, "", name)
    file = name; sub(/\(.*/, "", file)
    fn = name; sub(/^[^ ]* /, "", fn)
    if (exclude) {
      skip = 0
      for (i = 1; i <= n; ++i) if (sw[i] == file ":" fn) skip = 1
      if (skip) { excluded = excluded "  " file ":" fn " (McCabe " $2 ")\n"; next }
    }
    count++; sum += $2
    if ($2 > 10) over10++
    if ($2 > 20) over20++
    if ($5 > 150) { long++; longs = longs "  " name " (" $5 " lines)\n" }
    print $2 "\t" $5 "\t" name > "'"$tmp"'/rows.txt"
  }
  END {
    printf "functions: %d\n", count
    printf "mean McCabe: %.2f\n", count ? sum / count : 0
    printf "over 10: %d (%.1f %%)\n", over10, count ? 100 * over10 / count : 0
    printf "over 20: %d\n", over20
    printf "over 150 lines: %d\n", long
    if (long) printf "%s", longs
    if (excluded != "") printf "excluded switches:\n%s", excluded
  }' "$tmp/all.txt"
echo "worst $worst (McCabe, lines, function):"
sort -t$'\t' -k1,1nr -k2,2nr "$tmp/rows.txt" | head -n "$worst" | sed 's/^/  /'
