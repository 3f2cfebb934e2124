#!/usr/bin/env bash
# Measures gp-opt --gp-pipeline on synthetic programs of 1k, 10k and 100k
# top-level ops (5% unsafe round trips, 10% views). Prints, per size, the
# wall time of the whole command (parse, pipeline, print) and the time of
# GraphPart's passes alone (from --mlir-timing), best of 3 runs.
# usage: bench/compile_time.sh [BUILD_DIR] [EXTRA_GP_OPT_FLAGS...]
#   e.g. bench/compile_time.sh build --mlir-disable-threading
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf "%8s %10s %10s %10s %10s %10s\n" ops wall_s passes_s reorder_s partition_s plan_s
for n in 1000 10000 100000; do
  python3 "$root/bench/gen_program.py" "$n" > "$tmp/p$n.mlir"
  best=""
  for run in 1 2 3; do
    start=$(date +%s.%N)
    "$build/bin/gp-opt" "$tmp/p$n.mlir" --gp-pipeline -o /dev/null \
      --mlir-timing "$@" 2> "$tmp/timing"
    end=$(date +%s.%N)
    wall=$(echo "$end - $start" | bc)
    read -r reorder partition plan < <(awk '
      /GPReorderPass/ {r=$1} /GPPartitionPass/ {p=$1} /GPPlanMemoryPass/ {m=$1}
      END {print r, p, m}' "$tmp/timing")
    passes=$(echo "$reorder + $partition + $plan" | bc)
    if [ -z "$best" ] || (( $(echo "$wall < ${best%% *}" | bc) )); then
      best="$wall $passes $reorder $partition $plan"
    fi
  done
  printf "%8s %10.3f %10.3f %10.3f %10.3f %10.3f\n" "$n" $best
done
