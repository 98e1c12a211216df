#!/usr/bin/env bash
# Peak memory and time of spyre-compile for the same graph with 0.5 GB and
# 4 GB of weights (bench/big-weights/README.md).
#
#   bench/big-weights/run.sh [--sizes "512M 4G"] [--work DIR] [--keep]
#                            [--no-results]
#
# For each size: writes an archive with make_archive.py (8 linear layers,
# widths d -> 2d -> d ..., fp16; only d differs), compiles it with
# spyre-compile under /usr/bin/time, and reports peak RSS and wall time; a
# last run compiles the largest archive with --emit-mlir (the graph alone, no
# weights written) for reference. Prints a table and appends it, with the
# date, the machine and the commit, to bench/big-weights/RESULTS.md (unless
# --no-results). Archives and outputs go under DIR (default
# build/bench/big-weights) and are deleted at the end unless --keep.
#
# Needs /usr/bin/time (Debian package `time`, in scripts/setup.sh), numpy
# for /usr/bin/python3, a built build/bin/spyre-compile (or $SPYRE_COMPILE)
# and twice the largest size of free disk.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
sizes="512M 4G"
work="$root/build/bench/big-weights"
keep=0
results=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --sizes) sizes="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --no-results) results=0; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

compile="${SPYRE_COMPILE:-$root/build/bin/spyre-compile}"
python=/usr/bin/python3
[[ -x "$compile" ]] || { echo "run.sh: no $compile; build it first" >&2; exit 1; }
if ! /usr/bin/time -f "%M" true >/dev/null 2>&1; then
  echo "run.sh: /usr/bin/time (GNU time) is missing: apt-get install time" \
       "(scripts/setup.sh installs it)" >&2
  exit 1
fi
"$python" -c "import numpy" || { echo "run.sh: $python has no numpy" >&2; exit 1; }

to_bytes() { "$python" -c "import sys; sys.path.insert(0, '$here'); import make_archive as m; print(m.parse_bytes('$1'))"; }
largest=0
for s in $sizes; do b=$(to_bytes "$s"); (( b > largest )) && largest=$b; done
mkdir -p "$work"
free_bytes=$(( $(df -Pk "$work" | awk 'NR == 2 {print $4}') * 1024 ))
if (( free_bytes < 2 * largest + (1 << 30) )); then
  echo "run.sh: $work has $((free_bytes >> 20)) MiB free; the $((largest >> 20)) MiB" \
       "size needs an archive and a .spy of that size" >&2
  exit 1
fi

cleanup() {
  if (( keep == 0 )); then
    rm -f "$work"/bw-*.pt2 "$work"/bw-*.spy "$work"/bw-*.spy.tmp "$work"/bw-*.mlir "$work"/bw-*.time
  fi
}
trap cleanup EXIT

# measure NAME ARGS...: runs spyre-compile under /usr/bin/time; sets
# peak_mb, wall_s, user_s, sys_s.
measure() {
  local name="$1"; shift
  sync
  /usr/bin/time -f "%M %e %U %S" -o "$work/$name.time" "$compile" "$@"
  read -r peak_kb wall_s user_s sys_s < "$work/$name.time"
  peak_mb=$(( peak_kb / 1024 ))
}

declare -a rows
first_peak="" first_wall="" last_peak="" last_wall="" last_archive=""
printf '%-10s %-8s %-10s %-10s %-14s %-9s %-9s %-9s\n' \
  weights width archive .spy "peak RSS (MB)" "wall (s)" "user (s)" "sys (s)"
for s in $sizes; do
  archive="$work/bw-$s.pt2"
  info=$("$python" "$here/make_archive.py" --weights "$s" "$archive")
  width=$("$python" -c "import json, sys; print(json.loads(sys.argv[1])['width'])" "$info")
  wbytes=$("$python" -c "import json, sys; print(json.loads(sys.argv[1])['weight_bytes'])" "$info")
  measure "bw-$s" "$archive" -o "$work/bw-$s.spy"
  spy_mb=$(( $(stat -c %s "$work/bw-$s.spy") >> 20 ))
  arch_mb=$(( $(stat -c %s "$archive") >> 20 ))
  label="$(( wbytes >> 20 )) MiB"
  printf '%-10s %-8s %-10s %-10s %-14s %-9s %-9s %-9s\n' "$label" "$width" \
    "${arch_mb} MiB" "${spy_mb} MiB" "$peak_mb" "$wall_s" "$user_s" "$sys_s"
  rows+=("| $label | $width | $arch_mb MiB | $spy_mb MiB | $peak_mb | $wall_s | $user_s | $sys_s |")
  [[ -z "$first_peak" ]] && first_peak=$peak_mb first_wall=$wall_s first_bytes=$wbytes
  last_peak=$peak_mb last_wall=$wall_s last_archive=$archive last_bytes=$wbytes
  rm -f "$work/bw-$s.spy"
done
# The graph alone: the same compile of the largest archive, stopping before
# the weights are written.
measure bw-graph "$last_archive" -o "$work/bw-graph.mlir" --emit-mlir
graph_peak=$peak_mb
printf '%-10s %-8s %-10s %-10s %-14s %-9s %-9s %-9s\n' "graph only" "" "" "--emit-mlir" \
  "$peak_mb" "$wall_s" "$user_s" "$sys_s"
rows+=("| graph only (--emit-mlir, largest) | | | | $peak_mb | $wall_s | $user_s | $sys_s |")

ratio() { "$python" -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'{a / b:.2f}' if b else 'n/a')" "$1" "$2"; }
weights_ratio=$(ratio "$last_bytes" "$first_bytes")
rss_ratio=$(ratio "$last_peak" "$first_peak")
time_ratio=$(ratio "$last_wall" "$first_wall")
summary="peak RSS over the graph alone: +$(( last_peak - graph_peak )) MB."
if [[ $(wc -w <<< "$sizes") -gt 1 ]]; then
  summary="Largest / smallest: weights x$weights_ratio, peak RSS x$rss_ratio, wall time x$time_ratio; $summary"
fi
echo "$summary"

if (( results )); then
  cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
  mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
  rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
  git -C "$root" diff --quiet HEAD 2>/dev/null || rev="$rev (with local changes)"
  {
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname)"
    echo
    echo "$cpu, $(nproc) cores, $mem, $(uname -r); commit $rev; sizes: $sizes"
    echo
    echo "| weights | width d | archive | .spy | peak RSS (MB) | wall (s) | user (s) | sys (s) |"
    echo "|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "${summary^}"
  } >> "$here/RESULTS.md"
  echo "appended to $here/RESULTS.md"
fi
