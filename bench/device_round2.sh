#!/usr/bin/env bash
# One GPU call (the device tool's limit is 10 minutes) for the checks and
# figures of a session: the cuda lit tests and runtime GoogleTests
# (scripts/device-tests.sh run), the size-rotation probe
# (bench/size_rotation.sh, WORK build-models/rotation), then
# bench/device_round1.sh (bound parameters on the GPU, call overhead,
# model captures into OUT). Carry build-device and build-models.
#
#   bash bench/device_round2.sh OUT [MODEL ...]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$1"; shift
echo "== cuda lit tests and runtime GoogleTests"
timeout 240 bash "$root/scripts/device-tests.sh" run 2>&1 | grep -E "^(PASS|FAIL|XFAIL|UNSUPPORTED|Total|  Passed|  Failed|  Unsupported)|error:|Failed Tests|GraphPart ::" | grep -v "^PASS" | tail -40
echo "== size rotation"
timeout 120 bash "$root/bench/size_rotation.sh" run "$root/build-models/rotation" cuda 512 2>&1 | tail -12
echo "== round 1"
bash "$root/bench/device_round1.sh" "$out" "$@"
