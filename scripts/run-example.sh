#!/usr/bin/env bash
# The README's main-job command: install dependencies, build, and take a
# bundled example through GraphPart.
#
# Today that is the front half: gp-opt runs the pipeline (reorder to
# minimise partitions, partition at the ops a CUDA graph cannot capture,
# plan memory, check the plan), prints what each step did and the planned
# IR, and writes a Graphviz picture of the partitions; gp-run reports the
# backend it would run on (cuda where a GPU is usable, else host). Lowering
# and execution with gp-run join this script as they land (see the open
# issues).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
gp_install_packages
gp_build gp-opt gp-run

example="${1:-$GP_ROOT/examples/cpu_op_in_the_middle.mlir}"
echo "== gp-opt --gp-pipeline $example"
"$GP_BUILD/bin/gp-opt" "$example" --gp-pipeline="report=true debug=true"
"$GP_BUILD/bin/gp-opt" "$example" --gp-reorder \
  --gp-partition="dot-file=$GP_BUILD/partitions.dot" -o /dev/null
echo "== picture: $GP_BUILD/partitions.dot (render: dot -Tsvg $GP_BUILD/partitions.dot -o partitions.svg)"
echo "== gp-run --list-backends"
"$GP_BUILD/bin/gp-run" --list-backends
