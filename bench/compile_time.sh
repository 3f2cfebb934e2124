#!/usr/bin/env bash
# Measures gp-opt --gp-pipeline on synthetic programs of 1k, 10k and 100k
# top-level ops (5% unsafe round trips, 10% views). Per size, best of RUNS
# runs (default 5; wall times on a shared machine vary by +-30%, the best
# run is the one least disturbed):
#   wall_s      the whole command (parse, verify, pipeline, print), as run
#               by default (single-threaded on <= 2 hardware threads)
#   threads_s   the same with MLIR threading forced on
#   passes_s    GraphPart's passes alone (from --mlir-timing), and each pass
# and the growth of wall_s from 10k to 100k ops. With COMPILE=1, also
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

printf "%8s %9s %10s %9s %10s %12s %8s\n" \
  ops wall_s threads_s passes_s reorder_s partition_s plan_s
declare -A walls
for n in 1000 10000 100000; do
  python3 "$root/bench/gen_program.py" "$n" > "$tmp/p$n.mlir"
  threads=$(best_wall "$tmp/p$n.mlir" --mlir-disable-threading=false "$@")
  wall=$(best_wall "$tmp/p$n.mlir" "$@")
  read -r reorder partition plan < <(awk '
    /GPReorderPass/ {r=$1} /GPPartitionPass/ {p=$1} /GPPlanMemoryPass/ {m=$1}
    END {print r, p, m}' "$tmp/timing")
  passes=$(echo "$reorder + $partition + $plan" | bc)
  walls[$n]=$wall
  printf "%8s %9.3f %10.3f %9.3f %10.3f %12.3f %8.3f\n" "$n" "$wall" \
    "$threads" "$passes" "$reorder" "$partition" "$plan"
done
printf "growth 10k -> 100k: %.1fx\n" "$(echo "${walls[100000]} / ${walls[10000]}" | bc -l)"
if [ "${COMPILE:-0}" = 1 ]; then
  printf "%8s %12s %14s\n" ops compile_s "compile/wall_s"
  for n in 10000 100000; do
    start=$(date +%s.%N)
    "$build/bin/gp-compile" "$tmp/p$n.mlir" --target host -o "$tmp/p$n.so"
    end=$(date +%s.%N)
    seconds=$(echo "$end - $start" | bc)
    printf "%8s %12.3f %14.1f\n" "$n" "$seconds" \
      "$(echo "$seconds / ${walls[$n]}" | bc -l)"
  done
fi
