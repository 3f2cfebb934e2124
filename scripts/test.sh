#!/usr/bin/env bash
# The README's test command: install dependencies, build, run every test
# (lit regression tests, including the runtime's GoogleTest suite), then
# the runtime, gp-run and their tests again under AddressSanitizer and
# UndefinedBehaviorSanitizer, and the runtime's threads under
# ThreadSanitizer, then install GraphPart (and the runtime-only
# configuration) and build downstream projects against the installed
# trees (install-test.sh). Exits non-zero when any test fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
gp_install_packages
gp_build check-gp
GP_BUILD="$GP_BUILD" bash "$GP_ROOT/scripts/sanitized-tests.sh"
CMAKE_C_COMPILER=clang-22 CMAKE_CXX_COMPILER=clang++-22 \
  bash "$GP_ROOT/scripts/install-test.sh" "$GP_BUILD"
