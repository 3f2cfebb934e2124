#!/usr/bin/env bash
# The fused attention kernels alone against PyTorch's
# scaled_dot_product_attention (flash, memory-efficient or cuDNN, as
# PyTorch picks) at the benchmark models' attention shapes, on the GPU
# machine, in the same run:
#
#   bash bench/attention_kernel.sh [KERNELS.cu[:NVCC_FLAGS] ...]
#
# Each KERNELS.cu (default: lib/Runtime/kernels/Attention.cu) is built into
# bench/attention_kernel.cu with nvcc (and NVCC_FLAGS, comma-separated,
# e.g. Attention.cu:-DGP_ATTENTION_SPLITS=1) and timed; several compare
# variants of the kernels in one run. Prints microseconds per call and the
# ratio to PyTorch per shape.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
[ $# -gt 0 ] || set -- "$root/lib/Runtime/kernels/Attention.cu"
python3 "$root/bench/attention_kernel_torch.py" > "$work/torch.txt"
columns=("$work/torch.txt") header="shape torch_us"
index=0
for variant in "$@"; do
  index=$((index + 1))
  kernels="${variant%%:*}" flags=""
  [ "$kernels" = "$variant" ] || flags="${variant#*:}"
  # The benchmark includes the kernels by a fixed path: stage a copy.
  mkdir -p "$work/v$index/bench" "$work/v$index/lib/Runtime/kernels"
  cp "$root/bench/attention_kernel.cu" "$work/v$index/bench/"
  cp "$root/lib/Runtime/kernels/AttentionParams.h" "$work/v$index/lib/Runtime/kernels/"
  cp "$kernels" "$work/v$index/lib/Runtime/kernels/Attention.cu"
  # shellcheck disable=SC2086
  "$nvcc" -O3 -std=c++17 -arch=sm_90 ${flags//,/ } -o "$work/v$index/bench/run" "$work/v$index/bench/attention_kernel.cu"
  "$work/v$index/bench/run" > "$work/v$index.txt"
  columns+=("$work/v$index.txt") header="$header $(basename "$kernels" .cu)${flags:+[$flags]}_us ratio"
done
echo "$header"
paste -d' ' "${columns[@]}" | awk '{ printf "%s %s", $1, $2; for (i = 4; i <= NF; i += 2) printf " %s %.2fx", $i, $i / $2; printf "\n" }'
