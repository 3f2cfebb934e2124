#!/usr/bin/env bash
# Builds bench/binding_costs.cpp with nvcc and runs it (see its header).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build-rt
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
"$nvcc" -O2 -I test/Runtime/Inputs bench/binding_costs.cpp \
  -L"$(dirname "$nvcc")/../lib64/stubs" -lcuda -o build-rt/binding-costs
build-rt/binding-costs
