#!/usr/bin/env bash
# Repeats the runtime's CUDA GoogleTests to catch rare failures (races
# between threads that capture, replay and copy at once), on a GPU machine.
#
#   bash scripts/device-runtime-stress.sh [RUNS] [FILTER] [RUNTIME_LIB_DIR]
#
# Builds the runtime and its tests runtime-only into build-rt/, runs the test
# binary RUNS times (default 15) with the gtest FILTER (default
# CudaProgramTest.*) and prints how many runs passed, with the failures'
# output. RUNTIME_LIB_DIR runs the same tests against another build of
# libgpruntime.so (for example an older one, to show a test catches a bug).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-15}"
filter="${2:-CudaProgramTest.*}"
libdir="${3:-}"
cmake -G Ninja -S "$root" -B "$root/build-rt" -DGP_RUNTIME_ONLY=ON \
  -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1
ninja -C "$root/build-rt" GPRuntimeTests >/dev/null || exit 1
[ -n "$libdir" ] && export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
passed=0
for ((i = 1; i <= runs; ++i)); do
  log="$(mktemp)"
  if "$root/build-rt/unittests/GPRuntimeTests" --gtest_filter="$filter" >"$log" 2>&1; then
    passed=$((passed + 1))
  else
    echo "--- run $i failed (exit $?):"
    grep -E "Failure|FAILED|Expected|Which is|error|Segmentation|thread [0-9]" "$log" | head -20
  fi
  rm -f "$log"
done
echo "$filter${libdir:+ against $libdir}: $passed of $runs runs passed"
