#!/usr/bin/env bash
# Measures gp-opt --gp-pipeline on synthetic programs of 1k, 10k and 100k
# top-level ops (5% unsafe round trips, 10% views; other sizes with SIZES,
# e.g. SIZES="10000 100000 1000000"). Per size, best of RUNS runs (default
# 5; wall times on a shared machine vary by +-30%, the best run is the one
# least disturbed):
#   wall_s      the whole command (parse, verify, pipeline, print), as run
#               by default (single-threaded on <= 2 hardware threads)
#   threads_s   the same with MLIR threading forced on
#   passes_s    GraphPart's passes alone (from --mlir-timing), and the
#               largest of them
# and the growth of wall_s over each tenfold step. With COMPILE=1, also
# gp-compile --target host (the whole way to a .so: lowering, gp-codegen,
# link) on 10k and 100k ops, one run each, and its ratio to wall_s.
# usage: bench/compile_time.sh [BUILD_DIR] [EXTRA_GP_OPT_FLAGS...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
runs="${RUNS:-5}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Best wall time (seconds) of $runs runs of gp-opt with the given flags; the
# --mlir-timing report of the best run is left in $tmp/timing.
best_wall() {
  local input="$1" best="" start end wall
  shift
  for _ in $(seq "$runs"); do
    start=$(date +%s.%N)
    "$build/bin/gp-opt" "$input" --gp-pipeline -o /dev/null --mlir-timing \
      "$@" 2> "$tmp/timing.run"
    end=$(date +%s.%N)
    wall=$(echo "$end - $start" | bc)
    if [ -z "$best" ] || (( $(echo "$wall < $best" | bc) )); then
      best="$wall"
      cp "$tmp/timing.run" "$tmp/timing"
    fi
  done
  echo "$best"
}

sizes="${SIZES:-1000 10000 100000}"
printf "%8s %9s %10s %9s %9s %10s %12s %8s %8s\n" \
  ops wall_s threads_s passes_s import_s reorder_s partition_s fuse_s plan_s
declare -A walls
for n in $sizes; do
  python3 "$root/bench/gen_program.py" "$n" > "$tmp/p$n.mlir"
  threads=$(best_wall "$tmp/p$n.mlir" --mlir-disable-threading=false "$@")
  wall=$(best_wall "$tmp/p$n.mlir" "$@")
  # passes_s: every GraphPart pass of the pipeline (GP...Pass rows).
  read -r passes import reorder partition fuse plan < <(awk '
    /GP[A-Za-z]*Pass$/ {all += $1}
    /GPImportPass/ {i=$1} /GPReorderPass/ {r=$1} /GPPartitionPass/ {p=$1}
    /GPFuseKernelsPass/ {f=$1} /GPPlanMemoryPass/ {m=$1}
    END {print all, i, r, p, f, m}' "$tmp/timing")
  walls[$n]=$wall
  printf "%8s %9.3f %10.3f %9.3f %9.3f %10.3f %12.3f %8.3f %8.3f\n" "$n" \
    "$wall" "$threads" "$passes" "$import" "$reorder" "$partition" "$fuse" \
    "$plan"
done
# Growth over each tenfold step measured (targets: 10k -> 100k and 100k
# -> 1M at most 12x each; 1M with SIZES="1000 10000 100000 1000000").
for step in "10000 100000" "100000 1000000"; do
  read -r from to <<< "$step"
  [ -n "${walls[$from]:-}" ] && [ -n "${walls[$to]:-}" ] || continue
  printf "growth %dk -> %dk: %.1fx\n" $((from / 1000)) $((to / 1000)) \
    "$(echo "${walls[$to]} / ${walls[$from]}" | bc -l)"
done
if [ "${COMPILE:-0}" = 1 ]; then
  printf "%8s %12s %14s\n" ops compile_s "compile/wall_s"
  for n in 10000 100000; do
    [ -n "${walls[$n]:-}" ] || continue
    start=$(date +%s.%N)
    "$build/bin/gp-compile" "$tmp/p$n.mlir" --target host -o "$tmp/p$n.so"
    end=$(date +%s.%N)
    seconds=$(echo "$end - $start" | bc)
    printf "%8s %12.3f %14.1f\n" "$n" "$seconds" \
      "$(echo "$seconds / ${walls[$n]}" | bc -l)"
  done
fi
