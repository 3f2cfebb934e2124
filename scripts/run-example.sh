#!/usr/bin/env bash
# The README's main-job command: install dependencies, build, and take a
# bundled example through GraphPart end to end.
#
# gp-opt runs the pipeline (reorder to minimise partitions, partition at the
# ops a CUDA graph cannot capture, fuse elementwise kernels, plan memory,
# check the plan) and prints
# what each step did, with a Graphviz picture of the partitions; gp-compile
# lowers the program onto the runtime and links an artifact for the best
# backend present (cuda where a GPU is usable, else host); gp-run runs it,
# checks the captured/replayed results against an eager run, and reports
# per-step latency and the capture/replay counters.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
gp_install_packages
gp_build gp-opt gp-run gp-compile gp-example-externs

example="${1:-$GP_ROOT/examples/cpu_op_in_the_middle.mlir}"
echo "== gp-opt --gp-pipeline $example"
"$GP_BUILD/bin/gp-opt" "$example" --gp-pipeline="report=true debug=true" -o /dev/null
"$GP_BUILD/bin/gp-opt" "$example" --gp-reorder \
  --gp-partition="dot-file=$GP_BUILD/partitions.dot" -o /dev/null
echo "== picture: $GP_BUILD/partitions.dot (render: dot -Tsvg $GP_BUILD/partitions.dot -o partitions.svg)"

backend="$("$GP_BUILD/bin/gp-run" --list-backends | sed -n 's/^default: //p')"
artifact="$GP_BUILD/$(basename "$example" .mlir).$backend.so"
echo "== gp-compile --target $backend -> $artifact"
"$GP_BUILD/bin/gp-compile" "$example" --target "$backend" -o "$artifact"

# Inputs: one --input per argument of the first entry, from the templates
# gp-run prints (random values; size 8 for dynamic dimensions, 4 for index
# arguments).
inputs=()
while read -r kind spec device; do
  inputs+=(--input "$spec")
done < <("$GP_BUILD/bin/gp-run" "$artifact" --backend "$backend" --print-entries |
         awk '/^entry /{n++} n == 1 && /^arg /')
echo "== gp-run $artifact --backend $backend ${inputs[*]} --check --print-partitions"
"$GP_BUILD/bin/gp-run" "$artifact" --backend "$backend" "${inputs[@]}" \
  --extern-lib "$GP_BUILD/lib/libgpexampleexterns.so" \
  --check --print-partitions --iterations 100
