#!/usr/bin/env bash
# One GPU call (the device tool's limit is 10 minutes): the full-size
# models (all, or those named after OUT) captured without weights into $1 (bench/models_device.sh capture),
# the per-call overhead at 2 and 200 parameters (WORK build-models/), and
# the GPU checks of bound parameters (scripts/device-tests.sh python's
# parameters part). Output: what each prints.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$1"
cmake -G Ninja -S "$root" -B "$root/build-rt" -DGP_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  ninja -C "$root/build-rt" GPRuntime >/dev/null || exit 1
lib="$root/build-rt/lib/libgpruntime.so"
echo "== parameters bound from a live module on the GPU"
python3 -u "$root/test/Python/Inputs/parameters_check.py" "$lib" --prebuilt "$root/build-device/parameters" 2>&1 | grep -v Warning
echo "== per-call overhead"
python3 -u "$root/bench/call_overhead.py" run "$lib" "$root/build-models" --calls 3000 --rounds 5
echo "== capture"
shift
timeout 300 python3 -u "$root/bench/pytorch_models.py" capture "$out" "$@" 2>&1 | grep -v -i warn | tail -30
