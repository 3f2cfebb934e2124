#!/usr/bin/env bash
# Replays that follow moving inputs: every program called with its inputs in
# K sets of buffers used in turn (gp-run --rotate K), K = 1, 2, 8, 64, on
# one backend in one run, after 3K + 10 warm-up steps (sets that recur get
# executables of their own in the second and third rounds). Per program and K: per-step median and p90, what
# the timed steps cost the runtime per step (captures, updates, re-bindings)
# and the ratio of each K's median to K = 1's (best of three runs each); then
# how each partition binds
# its inputs. Artifacts are compiled beforehand (`bash scripts/device-tests.sh
# prepare` puts them, chain200 included, in build-device/artifacts).
#
#   bash bench/moving_inputs.sh [cuda|host] [ARTIFACT_DIR] [STEPS]
set -uo pipefail
backend="${1:-cuda}"
dir="${2:-build-device/artifacts}"
steps="${3:-400}"
if [ ! -x build-rt/bin/gp-run ]; then
  cmake -G Ninja -S . -B build-rt -DGP_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    ninja -C build-rt gp-run gp-example-externs >/dev/null || exit 1
fi
run=build-rt/bin/gp-run
ext=build-rt/lib/libgpexampleexterns.so
# name | artifact | gp-run arguments
programs=(
  "chain of 200 kernels|chain200|--input 64x64xf32=random"
  "mlp32 (32 cuBLAS matmuls)|mlp32|--input 8x256xf32=random --input 256x256xf32=random --input 256xf32=random"
  "cpu_op_in_the_middle|cpu_op_in_the_middle|--input 2x2xf32=random --input 2x2xf32=random"
  "add_view_cpu_roundtrip|add_view_cpu_roundtrip|--input 2xf32=random"
  "mutating_multi_output|mutating_multi_output|--extern-lib $ext --input 8xf32=random"
  "padded_mask|padded_mask|--extern-lib $ext --input 8xf32=random --input 4xf32=0 --input 8xf32=random"
  "symint_mutation_index|symint_mutation_index|--input 3 --input 7xf32=0"
  "rng_forward_backward (forward)|rng_forward_backward|--entry forward --input 4x4xf32=random"
)
failed=0
bindings=""
echo "| program | K | median us | p90 us | vs K=1 | captures/step | updates/step | rebinds/step |"
echo "|---|---|---|---|---|---|---|---|"
for entry in "${programs[@]}"; do
  IFS='|' read -r name artifact args <<<"$entry"
  base=""
  for k in 1 2 8 64; do
    # Three runs per K, in their own processes; the one with the lowest
    # median is reported (a process's placement moves medians by a few
    # percent, more than re-binding costs on the smallest programs).
    out=""
    median=""
    for attempt in 1 2 3; do
      # shellcheck disable=SC2086
      try="$($run "$dir/$artifact.$backend.so" --backend "$backend" $args --rotate $k \
        --warmup $((3 * k + 10)) --iterations "$steps" --print-partitions 2>&1)" ||
        { echo "FAILED: $name K=$k"; echo "$try"; failed=1; continue 2; }
      read -r m p < <(sed -n 's/^latency per step: median \([0-9.]*\) us, p90 \([0-9.]*\) us$/\1 \2/p' <<<"$try")
      if [ -z "$median" ] || awk -v a="$m" -v b="$median" 'BEGIN { exit !(a < b) }'; then
        median="$m" p90="$p" out="$try"
      fi
    done
    read -r captures updates rebinds replays < <(sed -n 's/^timed steps: captures: \([0-9]*\)  instantiations: [0-9]*  updates: \([0-9]*\)  rebinds: \([0-9]*\)  replays: \([0-9]*\)$/\1 \2 \3 \4/p' <<<"$out")
    [ -z "$base" ] && base="$median"
    awk -v n="$name" -v k="$k" -v m="$median" -v p="$p90" -v b="$base" \
      -v c="$captures" -v u="$updates" -v r="$rebinds" -v s="$steps" \
      'BEGIN { printf "| %s | %d | %.1f | %.1f | %.3fx | %.2f | %.2f | %.2f |\n", n, k, m, p, m / b, c / s, u / s, r / s }'
    if [ "$k" = 64 ]; then
      bindings+="$name:"$'\n'"$(sed -n '/^input bindings:/,/^pool bytes/p' <<<"$out" | sed '1d;$d')"$'\n'
    fi
  done
done
echo
echo "How each partition binds its inputs (K = 64):"
echo "$bindings"
exit $failed
