#!/usr/bin/env bash
# The README's main-job command: install dependencies, build, and take a
# bundled example through GraphPart.
#
# Today that is the front half: gp-opt partitions the example at the ops a
# CUDA graph cannot capture, prints the partition report (counts, signatures,
# reasons) and the partitioned IR, and writes a Graphviz picture; gp-run
# reports the backend it would run on (cuda where a GPU is usable, else
# host). Memory planning, lowering and execution with gp-run join this
# script as they land (see the open issues).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
gp_install_packages
gp_build gp-opt gp-run

example="${1:-$GP_ROOT/examples/cpu_op_in_the_middle.mlir}"
echo "== gp-opt --gp-partition=report $example"
"$GP_BUILD/bin/gp-opt" "$example" \
  --gp-partition="report=true dot-file=$GP_BUILD/partitions.dot"
echo "== picture: $GP_BUILD/partitions.dot (render: dot -Tsvg $GP_BUILD/partitions.dot -o partitions.svg)"
echo "== gp-run --list-backends"
"$GP_BUILD/bin/gp-run" --list-backends
