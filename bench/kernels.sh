#!/usr/bin/env bash
# The kernel benchmark on the GPU: GraphPart's compiled ops (reductions,
# softmax, layer norm, an elementwise chain, cuBLAS matmuls) against
# PyTorch on the same shapes in the same run. Programs come from
# bench/gen_kernels.py (each op `reps` times in one partition) compiled
# beforehand:
#
#   here:  bash bench/kernels.sh prepare        # writes build-device/kernels
#   GPU:   bash bench/kernels.sh run            # carry build-device
#
# Per case: our time per op (gp-run's median step latency over 200 replayed
# steps, divided by reps), PyTorch's per op eager and replayed from a
# torch.cuda graph (bench/kernels_torch.py, CUDA events, median of 200), and
# the ratios ours / PyTorch-graph (kernel time) and ours / PyTorch-eager.
#
# GP_KERNEL_VARIANTS="e4=elements-per-thread=4 r8=row-elements-per-thread=8"
# at `prepare` also compiles each case with those gp-pipeline options;
# `run` then prints, under each case, each variant's time and ratio to
# PyTorch's graph.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/build-device/kernels"
case "${1:-}" in
prepare)
  rm -rf "$dir" && mkdir -p "$dir"
  python3 "$root/bench/gen_kernels.py" "$dir" "${2:-20}" | grep -E "${GP_KERNEL_CASES:-.}" > "$dir/cases.txt"
  : > "$dir/variants.txt"
  for variant in ${GP_KERNEL_VARIANTS:-}; do
    echo "$variant" >> "$dir/variants.txt"
  done
  while IFS='|' read -r label stem inputs reps shapes expr; do
    "$root/build/bin/gp-compile" "$dir/$stem.mlir" --target cuda -o "$dir/$stem.cuda.so"
    while IFS='=' read -r name options; do
      "$root/build/bin/gp-compile" "$dir/$stem.mlir" --target cuda -p "$options" \
        -o "$dir/$stem.$name.cuda.so"
    done < "$dir/variants.txt"
  done < "$dir/cases.txt"
  ;;
run)
  if [ ! -x "$root/build-rt/bin/gp-run" ]; then
    cmake -G Ninja -S "$root" -B "$root/build-rt" -DGP_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
    ninja -C "$root/build-rt" gp-run >/dev/null
  fi
  python3 "$root/bench/kernels_torch.py" "$dir/cases.txt" > "$dir/torch.txt"
  printf '%-26s %10s %12s %12s %9s %9s\n' case "ours us" "torch graph" "torch eager" "vs graph" "vs eager"
  while IFS='|' read -r label stem inputs reps shapes expr; do
    # shellcheck disable=SC2086
    step=$("$root/build-rt/bin/gp-run" "$dir/$stem.cuda.so" $inputs --warmup 20 --iterations 200 |
           sed -n 's/^latency per step: median \([0-9.]*\) us.*/\1/p' || true)
    if [ -z "$step" ]; then
      echo "$label: gp-run FAILED"
      continue
    fi
    IFS='|' read -r _ eager graph < <(grep -F "$label|" "$dir/torch.txt" | head -1)
    awk -v l="$label" -v s="$step" -v r="$reps" -v e="$eager" -v g="$graph" 'BEGIN {
      ours = s / r; printf "%-26s %10.2f %12.2f %12.2f %8.2fx %8.2fx\n", l, ours, g, e, ours / g, ours / e }'
    while IFS='=' read -r name options; do
      # shellcheck disable=SC2086
      step=$("$root/build-rt/bin/gp-run" "$dir/$stem.$name.cuda.so" $inputs --warmup 20 --iterations 200 |
             sed -n 's/^latency per step: median \([0-9.]*\) us.*/\1/p' || true)
      [ -n "$step" ] || { echo "  $name: gp-run FAILED"; continue; }
      awk -v l="  $name ($options)" -v s="$step" -v r="$reps" -v g="$graph" 'BEGIN {
        ours = s / r; printf "%-50s %10.2f %8.2fx\n", l, ours, ours / g }'
    done < <(cat "$dir/variants.txt" 2>/dev/null || true)
  done < "$dir/cases.txt"
  ;;
*) sed -n '2,16p' "$0"; exit 2 ;;
esac
