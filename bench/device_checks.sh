#!/usr/bin/env bash
# The shortest GPU call that checks a session's CUDA paths and takes its
# figures (for when device time is scarce): the cuda lit tests and runtime
# GoogleTests (scripts/device-tests.sh run), the size-rotation probe, the
# bound-parameter checks and the per-call overhead at 2 and 200
# parameters. Carry build-device and build-models.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
echo "== cuda lit tests and runtime GoogleTests"
timeout 300 bash "$root/scripts/device-tests.sh" run 2>&1 |
  grep -E "^(FAIL|UNSUPPORTED)|Failed Tests|GraphPart ::|Total|Passed|Failed|error:" | tail -30
lib="$root/build-rt/lib/libgpruntime.so"
echo "== size rotation"
timeout 120 bash "$root/bench/size_rotation.sh" run "$root/build-models/rotation" cuda 512 2>&1 | tail -9
echo "== parameters bound from a live module on the GPU"
timeout 90 python3 -u "$root/test/Python/Inputs/parameters_check.py" "$lib" --prebuilt "$root/build-device/parameters" 2>&1 | grep -v Warning | tail -8
echo "== per-call overhead"
timeout 120 python3 -u "$root/bench/call_overhead.py" run "$lib" "$root/build-models" --calls 3000 --rounds 5 2>&1 | tail -12
