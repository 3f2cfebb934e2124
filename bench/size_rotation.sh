#!/usr/bin/env bash
# Many batch sizes in rotation against one size (bench/size_rotation.cpp)
# on a 4-layer, 256-wide MLP with a row softmax (bench/gen_batch_mlp.py):
#
#   bash bench/size_rotation.sh prepare WORK   here: gp-compile for cuda and host
#   bash bench/size_rotation.sh run WORK [host|cuda] [STEPS]
#                                              there: runtime-only build, then the probe
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
stage="${1:-}" work="${2:-}"
[ -n "$work" ] || { sed -n '2,7p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
case "$stage" in
  prepare)
    mkdir -p "$work"
    python3 "$root/bench/gen_batch_mlp.py" 4 256 > "$work/batch_mlp.mlir"
    for target in cuda host; do
      "$root/build/bin/gp-compile" "$work/batch_mlp.mlir" --bufferize --target "$target" \
        -o "$work/batch_mlp.$target.so"
    done ;;
  run)
    backend="${3:-cuda}" steps="${4:-512}"
    cmake -G Ninja -S "$root" -B "$root/build-rt" -DGP_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
    ninja -C "$root/build-rt" gp-bench-size-rotation >/dev/null
    "$root/build-rt/bin/gp-bench-size-rotation" "$work/batch_mlp.$backend.so" "$backend" "$steps" ;;
  *) sed -n '2,7p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
