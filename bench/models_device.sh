#!/usr/bin/env bash
# Full-size models and call overhead on the GPU machine (no LLVM there):
#
#   bash bench/models_device.sh capture OUT [NAME ...]   there: graphs, no weights
#   bash bench/models_device.sh build GRAPHS WORK        here: convert, gp-compile,
#                                                        and the call-overhead programs
#   bash bench/models_device.sh run WORK [NAME ...]      there: runtime, then
#        bench/call_overhead.py, bench/pytorch_models.py run and memory
#   bash bench/models_device.sh quick WORK SECONDS NAME ...
#        there, when device time is short: runtime, call overhead, then the
#        models in the order named (100 steps, 3 rounds) until SECONDS pass
#   bash bench/models_device.sh profile WORK SECONDS NAME ...
#        there: each model's device activities per step, GPU busy time and
#        largest kernels, GraphPart against reduce-overhead (torch.profiler)
#
# The plain_* models (bench/plain_models.py) can be captured here too:
# `pytorch_models.py capture OUT plain_gpt2_64_f32 ...` with PyTorch 1.13.
#
# `build` writes WORK (carry it to the GPU machine); `run` builds the
# runtime-only configuration into build-rt/ first.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
stage="${1:-}"; shift || true
case "$stage" in
  capture)
    python3 -u "$root/bench/pytorch_models.py" capture "$@" ;;
  build)
    graphs="$1" work="$2" python="${GP_PYTHON:-/usr/bin/python3}"
    compiler="$root/build/bin/gp-compile"
    mkdir -p "$work"
    "$python" "$root/bench/pytorch_models.py" build "$graphs" "$work" --gp-compile "$compiler" || exit 1
    "$python" "$root/bench/call_overhead.py" make "$work/overhead-graphs" || exit 1
    for graph in "$work"/overhead-graphs/*/; do
      name="$(basename "$graph")"
      PYTHONPATH="$root/python" "$python" -m graphpart convert "$graph" -o "$work/$name.mlir" &&
        "$compiler" "$work/$name.mlir" --bufferize --target cuda -o "$work/$name.so" || exit 1
    done ;;
  run)
    work="$1"; shift
    cmake -G Ninja -S "$root" -B "$root/build-rt" -DGP_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release >/dev/null &&
      ninja -C "$root/build-rt" GPRuntime >/dev/null || exit 1
    lib="$root/build-rt/lib/libgpruntime.so" status=0
    python3 -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name())"
    echo "== per-call overhead, 2 and 200 bound parameters"
    python3 -u "$root/bench/call_overhead.py" run "$lib" "$work" || status=1
    echo "== whole models"
    python3 -u "$root/bench/pytorch_models.py" run "$lib" "$work" "$@" || status=1
    echo "== device memory held beyond the module's parameters (one process each)"
    for name in $(python3 -c "import json,sys; print(' '.join(k for k, v in sorted(json.load(open(sys.argv[1])).items()) if 'artifact' in v))" "$work/models.json"); do
      [ $# -eq 0 ] || [[ " $* " == *" $name "* ]] || continue
      for kind in graphpart reduce-overhead; do
        python3 "$root/bench/pytorch_models.py" memory "$lib" "$work" "$name" "$kind" 2>/dev/null | tail -1 || status=1
      done
    done
    exit $status ;;
  quick)
    work="$1" seconds="$2"; shift 2
    cmake -G Ninja -S "$root" -B "$root/build-rt" -DGP_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release >/dev/null &&
      ninja -C "$root/build-rt" GPRuntime >/dev/null || exit 1
    lib="$root/build-rt/lib/libgpruntime.so" status=0
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    echo "== per-call overhead, 2 and 200 bound parameters"
    timeout 120 python3 -u "$root/bench/call_overhead.py" run "$lib" "$work" --calls 3000 --rounds 5 2>&1 |
      grep -v Warning || status=1
    echo "== whole models (first call, then 100 steps x 3 rounds)"
    timeout "$seconds" python3 -u "$root/bench/pytorch_models.py" run "$lib" "$work" "$@" --steps 100 --rounds 3 2>&1 |
      grep -v Warning || status=1
    exit $status ;;
  profile)
    work="$1" seconds="$2"; shift 2
    cmake -G Ninja -S "$root" -B "$root/build-rt" -DGP_RUNTIME_ONLY=ON -DCMAKE_BUILD_TYPE=Release >/dev/null &&
      ninja -C "$root/build-rt" GPRuntime >/dev/null || exit 1
    timeout "$seconds" python3 -u "$root/bench/pytorch_models.py" profile "$root/build-rt/lib/libgpruntime.so" "$work" "$@" 2>&1 |
      grep -v Warning ;;
  *) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
