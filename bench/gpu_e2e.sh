#!/usr/bin/env bash
# End-to-end runs of the examples on the GPU, with artifacts compiled
# elsewhere (no LLVM/MLIR on the GPU machine): `bash scripts/device-tests.sh
# prepare` puts them, as <example>.cuda.so, in build-device/artifacts.
# builds the runtime, gp-run and the example externs (GP_RUNTIME_ONLY), runs
# each artifact with --check on the cuda backend, then per-step latency of
# one example eager (--no-capture) vs captured and replayed.
#
#   bash bench/gpu_e2e.sh [ARTIFACT_DIR]   (default build-device/artifacts)
set -uo pipefail
dir="${1:-build-device/artifacts}"
cmake -G Ninja -S . -B build-rt -DGP_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  ninja -C build-rt gp-run gp-example-externs >/dev/null || exit 1
run=build-rt/bin/gp-run
ext=build-rt/lib/libgpexampleexterns.so
failed=0
step() { echo "== $*"; "$@" || { echo "FAILED: $*"; failed=1; }; }
step $run "$dir/cpu_op_in_the_middle.cuda.so" --backend cuda --input 2x2xf32=random --input 2x2xf32=random --check --print-partitions
step $run "$dir/add_view_cpu_roundtrip.cuda.so" --backend cuda --input 2xf32=random --check
step $run "$dir/mutating_multi_output.cuda.so" --backend cuda --extern-lib $ext --input 8xf32=random --check
step $run "$dir/padded_mask.cuda.so" --backend cuda --extern-lib $ext --input 8xf32=random --input 4xf32=0 --input 8xf32=random --check
step $run "$dir/symint_mutation_index.cuda.so" --backend cuda --input 3 --input 7xf32=0 --check
# Capture sizes: a size outside the list runs eagerly, never captured.
step env GP_CUDAGRAPH_CAPTURE_SIZES=5 $run "$dir/symint_mutation_index.cuda.so" --backend cuda --input 3 --input 7xf32=0 --check
# Or-error: the eager partition is an error (expected to fail).
echo "== or-error (must fail)"
GP_CUDAGRAPH_OR_ERROR=1 $run "$dir/cpu_op_in_the_middle.cuda.so" --backend cuda --input 2x2xf32=1 --input 2x2xf32=1 && { echo "FAILED: or-error ran"; failed=1; }
echo "== latency: eager vs replayed (cpu_op_in_the_middle, 1000 steps)"
step $run "$dir/cpu_op_in_the_middle.cuda.so" --backend cuda --input 2x2xf32=random --input 2x2xf32=random --iterations 1000 --warmup 10 --no-capture
step $run "$dir/cpu_op_in_the_middle.cuda.so" --backend cuda --input 2x2xf32=random --input 2x2xf32=random --iterations 1000 --warmup 10
echo "== latency: eager vs replayed (mutating_multi_output, 1000 steps)"
step $run "$dir/mutating_multi_output.cuda.so" --backend cuda --extern-lib $ext --input 8xf32=random --iterations 1000 --warmup 10 --no-capture
step $run "$dir/mutating_multi_output.cuda.so" --backend cuda --extern-lib $ext --input 8xf32=random --iterations 1000 --warmup 10
exit $failed
