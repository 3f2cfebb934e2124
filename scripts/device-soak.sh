#!/usr/bin/env bash
# The reliability issue's long GPU runs, on a GPU machine with the
# build-device/ that `scripts/device-tests.sh prepare` made here carried.
#
#   bash scripts/device-soak.sh soak [STEPS]        # 8 threads x STEPS
#   bash scripts/device-soak.sh sanitize [TOOL ...] # compute-sanitizer
#
# `soak` runs gp-shared-artifact on the cuda backend, 8 threads x STEPS
# calls (default 10000), first sharing one loaded artifact, then each
# thread with an artifact of its own, for every artifact in SOAK_PROGRAMS:
# every call is compared bit for bit with an eager instance, and the live
# counts after unloading must be zero.
# `sanitize` runs compute-sanitizer with each TOOL (default memcheck and
# racecheck) over gp-run --check of the cuda artifacts in
# SANITIZE_PROGRAMS (inputs from --print-entries) and over the runtime's
# CUDA GoogleTests, except the one that exhausts device memory on purpose.
# A run fails on any sanitizer error (--error-exitcode) or time-out.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
artifacts="$root/build-device/artifacts"
sanitizer="${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}"
SOAK_PROGRAMS="cpu_op_in_the_middle scale_by_item attention_block"
SANITIZE_PROGRAMS="cpu_op_in_the_middle attention_block mutating_multi_output
  symint_mutation_index scale_by_item mlp32 chain200"

mode="${1:-}"
case "$mode" in
  soak|sanitize) shift ;;
  *) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
[ -d "$artifacts" ] || { echo "no $artifacts: run 'device-tests.sh prepare' here and carry build-device" >&2; exit 1; }
cmake -G Ninja -S "$root" -B "$root/build-rt" -DGP_RUNTIME_ONLY=ON \
  -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1
ninja -C "$root/build-rt" gp-run gp-shared-artifact GPRuntimeTests gp-example-externs >/dev/null || exit 1
bin="$root/build-rt/bin"
failed=0

soak() {
  local steps="${1:-10000}" program mode
  for program in $SOAK_PROGRAMS; do
    for mode in shared own; do
      echo "== $program, $mode"
      "$root/build-rt/unittests/gp-shared-artifact" "$artifacts/$program.cuda.so" cuda 8 "$steps" "$mode" ||
        failed=$((failed + 1))
    done
  done
}

# gp-run's --input arguments for an artifact's first entry.
inputs_of() {
  "$bin/gp-run" "$1" --print-entries |
    awk '/^entry/ { if (seen++) exit } /^arg/ { printf "--input %s ", ($3 == "index" ? 3 : $2) }'
}

sanitize_one() {
  local tool="$1" label="$2" log
  shift 2
  log="$(mktemp)"
  # API errors are not reported: the runtime counts a kernel's parameters
  # by asking cuFuncGetParamInfo for the next one until it fails (the
  # driver has no count), and checks every other call's result itself.
  if timeout 300 "$sanitizer" --tool "$tool" --report-api-errors no \
       --error-exitcode 99 "$@" >"$log" 2>&1; then
    echo "ok $tool $label: $(grep -m1 'SUMMARY' "$log")"
  else
    echo "FAILED $tool $label (exit $?):"
    grep -E "ERROR SUMMARY|=========  (Invalid|Race|Error|Uninit|Leak)|FAILED|error" "$log" | head -20
    failed=$((failed + 1))
  fi
  rm -f "$log"
}

sanitize() {
  local tools=("$@") tool program so weights
  [ ${#tools[@]} -gt 0 ] || tools=(memcheck racecheck)
  for tool in "${tools[@]}"; do
    for program in $SANITIZE_PROGRAMS; do
      so="$artifacts/$program.cuda.so"
      weights=()
      [ -d "$artifacts/$program.weights" ] && weights=(--weights "$artifacts/$program.weights")
      # shellcheck disable=SC2046 # the input specs are words
      sanitize_one "$tool" "$program" "$bin/gp-run" "$so" --backend cuda \
        --extern-lib "$root/build-rt/lib/libgpexampleexterns.so" \
        $(inputs_of "$so") "${weights[@]}" --check --check-steps 2 --iterations 3
    done
    sanitize_one "$tool" "CUDA GoogleTests" "$root/build-rt/unittests/GPRuntimeTests" \
      --gtest_filter='Cuda*:Matmul*:LoweredKernel*:-*OutOfDeviceMemory*'
  done
}

"$mode" "$@"
echo "device-soak $mode: $failed failure(s)"
[ "$failed" -eq 0 ]
