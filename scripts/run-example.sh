#!/usr/bin/env bash
# The README's main-job command: install dependencies, build, and take a
# bundled example through GraphPart.
#
# Today that is the front half: gp-opt parses and verifies the example and
# prints it, and gp-run reports the backend it would run it on (cuda where a
# GPU is usable, else host). Partitioning, lowering and execution with gp-run
# join this script as they land (see the open issues).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
gp_install_packages
gp_build gp-opt gp-run

example="${1:-$GP_ROOT/examples/cpu_op_in_the_middle.mlir}"
echo "== gp-opt $example"
"$GP_BUILD/bin/gp-opt" "$example"
echo "== gp-run --list-backends"
"$GP_BUILD/bin/gp-run" --list-backends
