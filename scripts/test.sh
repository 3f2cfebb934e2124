#!/usr/bin/env bash
# The README's test command: install dependencies, build, run every test
# (lit regression tests, including the runtime's GoogleTest suite).
# Exits non-zero when any test fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
gp_install_packages
gp_build check-gp
