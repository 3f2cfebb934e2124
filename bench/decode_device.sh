#!/usr/bin/env bash
# The greedy decode loop with a static key/value cache (bench/decode_loop.py)
# on the GPU machine (no LLVM there):
#
#   bash bench/decode_device.sh capture OUT             there: the small and
#                                                       gpt2 decoders, batch 1
#   bash bench/decode_device.sh build GRAPHS WORK       here: convert, gp-compile
#   bash bench/decode_device.sh run WORK [NAME ...] [--tokens N] [--rounds R]
#        there: runtime, then decode_loop.py run and memory
#
# `build` writes WORK (carry it to the GPU machine); `run` builds the
# runtime-only configuration into build-rt/ first.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench="$root/bench/decode_loop.py"
stage="${1:-}"; shift || true
case "$stage" in
  capture)
    out="$1" status=0
    for size in small gpt2; do
      python3 -u "$bench" capture "$out" --size "$size" --batch 1 || status=1
    done
    exit $status ;;
  build)
    graphs="$1" work="$2" python="${GP_PYTHON:-/usr/bin/python3}"
    mkdir -p "$work"
    "$python" "$bench" build "$graphs" "$work" --gp-compile "$root/build/bin/gp-compile" ;;
  run)
    work="$1"; shift
    # The names asked for, apart from the flags and their values.
    names=() args=("$@")
    while [ $# -gt 0 ]; do
      case "$1" in --*) shift 2 || shift ;; *) names+=("$1"); shift ;; esac
    done
    cmake -G Ninja -S "$root" -B "$root/build-rt" -DGP_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release >/dev/null &&
      ninja -C "$root/build-rt" GPRuntime >/dev/null || exit 1
    lib="$root/build-rt/lib/libgpruntime.so" status=0
    python3 -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name())"
    echo "== greedy decode loop, per token"
    python3 -u "$bench" run "$lib" "$work" ${args[@]+"${args[@]}"} || status=1
    echo "== device memory held beyond the module's parameters and caches (one process each)"
    for name in $(python3 -c "import json,sys; print(' '.join(k for k, v in sorted(json.load(open(sys.argv[1])).items()) if 'artifact' in v))" "$work/decode.json"); do
      [ ${#names[@]} -eq 0 ] || [[ " ${names[*]} " == *" $name "* ]] || continue
      for kind in graphpart reduce-overhead; do
        python3 "$bench" memory "$lib" "$work" "$name" "$kind" 2>/dev/null | tail -1 || status=1
      done
    done
    exit $status ;;
  *) sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
