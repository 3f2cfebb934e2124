#!/usr/bin/env bash
# The `REQUIRES: cuda` lit tests on a GPU machine that has no LLVM/MLIR
# (CUDA, cmake, a C++ compiler and python3 only).
#
#   bash scripts/device-tests.sh prepare   # here: needs build/ (gp-compile)
#   bash scripts/device-tests.sh run       # there: carry build-device/
#   bash scripts/device-tests.sh python    # there: the PyTorch checks
#   bash scripts/device-tests.sh capture   # there: capture with its PyTorch
#   bash scripts/device-tests.sh dynamo-save     # there: torch.compile saves
#   bash scripts/device-tests.sh dynamo-compile  # here: compile-cache
#   bash scripts/device-tests.sh dynamo-replay   # there: replays the cache
#   bash scripts/device-tests.sh models    # there: capture whole models
#   bash scripts/device-tests.sh bench [NAME ...]  # there: per-step times
#
# `prepare` compiles every program the cuda tests use for the cuda target
# into build-device/artifacts and copies lit, FileCheck, not and count (with
# the libraries FileCheck needs) into build-device/. `run` builds the runtime,
# gp-run, the example externs and the runtime's GoogleTests with
# GP_RUNTIME_ONLY=ON into build-rt/, writes a lit site config for that build
# and runs the GPU tests: test/Runtime/E2E/cuda-examples.test (whose
# %gp_compile_cuda then copies the prebuilt artifacts), the gp-run backend
# tests and the runtime GoogleTests.
#
# `prepare` also compiles the saved PyTorch graphs (test/Python/Inputs/graphs,
# and build-device-captured/ when graphs a `python` run captured were
# brought back there) for the cuda target; `python` calls
# them through graphpart.load on CUDA tensors against PyTorch eager
# (test/Python/Inputs/load_cuda_check.py); `capture` captures the programs
# with the machine's PyTorch, with torch.export and with make_fx, into
# $GP_CAPTURE_OUT/{export,make_fx} (default build-device/captured-new).
#
# The torch.compile backend (test/Python/Inputs/dynamo_check.py) takes a
# round trip: `dynamo-save` runs the programs with
# torch.compile(backend="graphpart") and no compiler, which saves each graph
# Dynamo makes into the cache $GP_DYNAMO_CACHE (default
# build-device/dynamo-cache) and runs it eagerly; with the cache brought
# back to build-device/dynamo-cache, `dynamo-compile` compiles it for cuda
# here, and `dynamo-replay` runs the same programs there, each call after a
# graph's first replaying its artifact, against PyTorch eager.
#
# `models` captures test/Python/Inputs/models.py's models (a small Hugging
# Face GPT-2, torchvision's ResNet-18) with torch.export into
# $GP_CAPTURE_OUT/models; brought back to build-device-captured/, `prepare`
# compiles them with the other captured graphs and `python` runs them.
# `bench` times the compiled programs (bench/pytorch_models.py: graphpart.load
# against eager and reduce-overhead in one process, each result checked).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/build-device"
llvm="${GP_LLVM_DIR:-/usr/lib/llvm-22}"

prepare() {
  rm -rf "$out" && mkdir -p "$out/artifacts" "$out/bin" "$out/lib"
  for program in "$root"/examples/*.mlir "$root"/test/Runtime/E2E/Inputs/*.mlir \
                 "$root"/test/Runtime/E2E/Inputs/kernels/*.mlir "$root"/test/Runtime/E2E/Inputs/views/*.mlir \
                 "$root"/test/Runtime/E2E/Inputs/collectives/*.mlir; do
    stem="$(basename "$program" .mlir)"
    "$root/build/bin/gp-compile" "$program" --target cuda -o "$out/artifacts/$stem.cuda.so"
  done
  # Upstream linalg-on-tensors models, bufferized, with their weights.
  for program in "$root"/test/Runtime/E2E/Inputs/upstream/*.mlir; do
    stem="$(basename "$program" .mlir)"
    "$root/build/bin/gp-compile" "$program" --bufferize --target cuda \
      --weights "$out/artifacts/$stem.weights" -o "$out/artifacts/$stem.cuda.so"
  done
  # Linalg on tensors the cuda tests compile with --bufferize.
  for program in "$root"/test/Runtime/E2E/Inputs/padding/*.mlir "$root"/test/Runtime/E2E/Inputs/libm/*.mlir \
                 "$root"/test/Runtime/E2E/Inputs/named/*.mlir "$root"/test/Runtime/E2E/Inputs/index_checks/*.mlir \
                 "$root"/test/Runtime/E2E/Inputs/state/*.mlir; do
    "$root/build/bin/gp-compile" "$program" --bufferize --target cuda \
      -o "$out/artifacts/$(basename "$program" .mlir).cuda.so"
  done
  # Artifacts the cuda tests compile with pipeline options.
  "$root/build/bin/gp-compile" "$root/test/Runtime/E2E/Inputs/unranged_store.mlir" \
    --target cuda -p checked=true -o "$out/artifacts/unranged_store.checked=true.cuda.so"
  # The 32-layer MLP of the memory-plan test and bench (bench/gen_mlp.py).
  python3 "$root/bench/gen_mlp.py" 32 8 256 > "$out/mlp32.mlir"
  "$root/build/bin/gp-compile" "$out/mlp32.mlir" --target cuda -o "$out/artifacts/mlp32.cuda.so"
  # The moving-inputs benchmark's chain of 200 kernels (bench/gen_chain.py),
  # unfused: fusion would make it one kernel.
  python3 "$root/bench/gen_chain.py" 200 > "$out/chain200.mlir"
  "$root/build/bin/gp-compile" "$out/chain200.mlir" --target cuda -p fuse=0 -o "$out/artifacts/chain200.cuda.so"
  # The runtime's lowered-kernel test takes a cubin of test/Runtime/Inputs/add2d.mlir.
  "$root/build/bin/gp-opt" "$root/test/Runtime/Inputs/add2d.mlir" --convert-gp-to-gpu |
    "$root/build/bin/gp-opt" --pass-pipeline="builtin.module(nvvm-attach-target{chip=sm_90 O=3 l=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc},gpu.module(lower-affine,convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts),gpu-module-to-binary{format=bin})" \
      -o "$out/add2d.mlir"
  python3 "$root/test/Runtime/Inputs/extract_cubin.py" "$out/add2d.mlir" gp_kernels "$out/artifacts/add2d.cubin"
  # The PyTorch graphs, for graphpart.load on CUDA tensors.
  local python="${GP_PYTHON:-/usr/bin/python3}"
  "$python" "$root/test/Python/Inputs/load_cuda_check.py" build \
    "$root/test/Python/Inputs/graphs" "$out/python" --gp-compile "$root/build/bin/gp-compile"
  # A module's parameters bound at load (test/Python/parameters.test),
  # compiled for cuda: `python` binds a live module's CUDA tensors.
  GP_PARAMETERS_TARGET=cuda PATH="$root/build/bin:$PATH" "$python" \
    "$root/test/Python/Inputs/parameters_check.py" "$root/build/lib/libgpruntime.so" \
    gp-compile "$out/parameters"
  if [ -d "$root/build-device-captured" ]; then
    "$python" "$root/test/Python/Inputs/load_cuda_check.py" build \
      "$root/build-device-captured" "$out/python-captured" --gp-compile "$root/build/bin/gp-compile"
    cp -r "$root/build-device-captured" "$out/captured"
  fi
  cp -r "$llvm/utils/lit" "$out/lit"
  cp "$llvm/bin/FileCheck" "$llvm/bin/not" "$llvm/bin/count" "$out/bin/"
  for tool in "$out"/bin/*; do
    for library in $(ldd "$tool" | awk '/=> \// && !/libc\.so|libm\.so|libstdc|libgcc|ld-linux/ {print $3}'); do
      [ -e "$out/lib/$(basename "$library")" ] || cp -L "$library" "$out/lib/"
    done
  done
  du -sh "$out"
}

build_runtime() {
  cmake -G Ninja -S "$root" -B "$root/build-rt" -DGP_RUNTIME_ONLY=ON \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
  ninja -C "$root/build-rt" gp-run gp-example-externs GPRuntimeTests gp-held-results gp-same-address gp-shared-artifact >/dev/null
}

run() {
  [ -d "$out/artifacts" ] || { echo "no $out: run 'prepare' first and carry it" >&2; exit 1; }
  build_runtime
  mkdir -p "$root/build-rt/test"
  cat > "$root/build-rt/test/lit.site.cfg.py" <<SITE
import lit.llvm
config.llvm_tools_dir = "$out/bin"
config.gp_src_root = "$root"
config.gp_obj_root = "$root/build-rt"
config.gp_tools_dir = "$root/build-rt/bin"
config.gp_unittests_dir = "$root/build-rt/unittests"
config.gp_docs_dir = "$root/build-rt/docs"
lit.llvm.initialize(lit_config, config)
lit_config.load_config(config, "$root/test/lit.cfg.py")
SITE
  export GP_CUDA_ARTIFACTS="$out/artifacts"
  export GP_TEST_CUBIN="$out/artifacts/add2d.cubin"
  export LD_LIBRARY_PATH="$out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PATH="$out/bin:$PATH"
  # NCCL for the collectives: PyTorch's, where its wheel has one.
  if [ -z "${GP_NCCL_LIBRARY:-}" ]; then
    GP_NCCL_LIBRARY="$(python3 -c 'import glob, os, nvidia.nccl; print((glob.glob(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so*")) or [""])[0])' 2>/dev/null || true)"
    export GP_NCCL_LIBRARY
  fi
  local status=0
  PYTHONPATH="$out/lit${PYTHONPATH:+:$PYTHONPATH}" python3 -c "from lit.main import main; main()" -v \
    "$root/build-rt/test/Runtime/E2E/cuda-examples.test" \
    "$root/build-rt/test/Runtime/E2E/held-results-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/unused-symbols-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/differential-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/reductions-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/matmuls-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/attention-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/views-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/entry-views-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/imported-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/fill-contractions-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/upstream-models-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/floats-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/unnamed-dims-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/memory-plan-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/shared-artifact-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/padding-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/libm-math-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/softmax-named-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/index-errors-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/mutable-globals-cuda.test" \
    "$root/build-rt/test/Runtime/E2E/collectives-cuda.test" \
    "$root/build-rt/test/Runtime/gp-run-cuda.test" \
    "$root/build-rt/test/Runtime/gp-run-backends.test" \
    "$root/build-rt/test/Runtime/runtime-unittests.test" || status=1
  # Alone: it takes all of the device's memory for a moment.
  "$root/build-rt/unittests/GPRuntimeTests" --gtest_filter='*OutOfDeviceMemory*' || status=1
  return $status
}

python_checks() {
  [ -d "$out/python" ] || { echo "no $out/python: run 'prepare' first" >&2; exit 1; }
  build_runtime
  local status=0 checks="$root/test/Python/Inputs/load_cuda_check.py"
  local externs="$root/build-rt/lib/libgpexampleexterns.so"
  python3 -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name())"
  echo "== parameters bound from a live module on the GPU"
  python3 -u "$root/test/Python/Inputs/parameters_check.py" \
    "$root/build-rt/lib/libgpruntime.so" --prebuilt "$out/parameters" || status=1
  # Each program in a process of its own, so that one crash does not hide
  # the others' results.
  local work graphs name
  for work in "$out/python" "$out/python-captured"; do
    [ -d "$work" ] || continue
    graphs="$root/test/Python/Inputs/graphs"
    [ "$work" = "$out/python" ] || graphs="$out/captured"
    echo "== graphs in $graphs"
    for name in $(python3 -c "import json, sys; print(' '.join(json.load(open(sys.argv[1]))))" "$work/manifest.json"); do
      python3 -X faulthandler -u "$checks" run "$work" "$graphs" \
        "$root/build-rt/lib/libgpruntime.so" "$externs" cuda "$name" || status=1
    done
  done
  return $status
}

capture_stage() {
  local method status=0 capture="${GP_CAPTURE_OUT:-$out/captured-new}"
  for method in export make_fx; do
    echo "== capture with this machine's PyTorch ($method)"
    python3 "$root/test/Python/Inputs/programs.py" "$capture/$method" --method "$method" || status=1
  done
  return $status
}

dynamo_stage() {
  local cache="${GP_DYNAMO_CACHE:-$out/dynamo-cache}"
  case "$1" in
    compile)
      PYTHONPATH="$root/python" "${GP_PYTHON:-/usr/bin/python3}" -m graphpart compile-cache "$cache" \
        --gp-compile "$root/build/bin/gp-compile" ;;
    *)
      build_runtime
      python3 -u "$root/test/Python/Inputs/dynamo_check.py" "$1" \
        "$root/build-rt/lib/libgpruntime.so" "$cache" --device cuda ;;
  esac
}

models_stage() {
  python3 "$root/test/Python/Inputs/models.py" \
    "${GP_CAPTURE_OUT:-$out/captured-new}/models"
}

bench_stage() {
  build_runtime
  local work status=0
  for work in "$out/python" "$out/python-captured"; do
    [ -f "$work/manifest.json" ] || continue
    python3 "$root/bench/pytorch_models.py" \
      "$root/build-rt/lib/libgpruntime.so" "$work" "$@" || status=1
  done
  return $status
}

case "${1:-}" in
  prepare) prepare ;;
  run) run ;;
  python) python_checks ;;
  capture) capture_stage ;;
  dynamo-save) dynamo_stage save ;;
  dynamo-compile) dynamo_stage compile ;;
  dynamo-replay) dynamo_stage replay ;;
  models) models_stage ;;
  bench) shift; bench_stage "$@" ;;
  *) sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
