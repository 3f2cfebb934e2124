#!/usr/bin/env bash
# The attention block (examples/attention_block.mlir: two projections,
# q @ k^T, a row softmax, .item() of the max, p @ x scaled) end to end
# through gp-run against PyTorch eager and torch.compile(mode=
# "reduce-overhead") on the same shapes, in the same run, per step.
#
#   here:  bash scripts/device-tests.sh prepare     # compiles the examples
#   GPU:   bash bench/attention.sh                  # carry build-device
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ ! -x "$root/build-rt/bin/gp-run" ]; then
  cmake -G Ninja -S "$root" -B "$root/build-rt" -DGP_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
  ninja -C "$root/build-rt" gp-run >/dev/null
fi
ours=$("$root/build-rt/bin/gp-run" "$root/build-device/artifacts/attention_block.cuda.so" \
  --input 128x64xf32=random --input 64x64xf32=random --input 64x64xf32=random \
  --warmup 20 --iterations 500 | sed -n 's/^latency per step: median \([0-9.]*\) us.*/\1/p')
torch_times=$(python3 "$root/bench/attention_torch.py")
eager=$(echo "$torch_times" | sed -n 's/^eager //p')
compiled=$(echo "$torch_times" | sed -n 's/^compiled //p')
awk -v o="$ours" -v e="$eager" -v c="$compiled" 'BEGIN {
  printf "attention block per step: graphpart %.2f us, torch eager %.2f us, reduce-overhead %.2f us\n", o, e, c
  printf "ratio graphpart / eager %.2fx, graphpart / reduce-overhead %.2fx\n", o / e, o / c }'
