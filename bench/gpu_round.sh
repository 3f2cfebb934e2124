#!/usr/bin/env bash
# One round on the GPU machine when device time is short: everything a
# session measures, prepared here in one command and run there in one call
# (carry build-device and build-models).
#
#   bash bench/gpu_round.sh prepare [VARIANT=OPTIONS ...]    here
#   bash bench/gpu_round.sh run [SECONDS]                    there
#
# `prepare` builds build-device/ (scripts/device-tests.sh prepare, and the
# kernel benchmark's programs with each VARIANT, bench/kernels.sh), captures
# the plain models with this machine's PyTorch when build-models/plain-graphs
# is missing, builds them into build-models/plain, each VARIANT into
# build-models/variants/VARIANT with `gp-pipeline` OPTIONS (e.g.
# e4='elements-per-thread=4' r16='row-elements-per-thread=16'), and the
# GPT-2 decode step into build-models/decode. `run` builds the runtime, runs
# the cuda tests, times the models and every variant against
# reduce-overhead in the same process (after the kernel benchmark, each
# variant beside each case), then the decode loop, within SECONDS
# in all (540 by default), writing each part's output to $OUT when set.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
models="$root/build-models"
python="${GP_PYTHON:-/usr/bin/python3}"
# The models whose ratios the open issues track.
names="plain_gpt2_512_bf16 plain_gpt2_512_f32 plain_gpt2_64_bf16 plain_llama_128_bf16 plain_llama_128_f32 plain_bert_128_f32 plain_gpt2_64_f32"

case "${1:-}" in
  prepare)
    shift
    bash "$root/scripts/device-tests.sh" prepare >/dev/null || exit 1
    GP_KERNEL_VARIANTS="$*" bash "$root/bench/kernels.sh" prepare >/dev/null || exit 1
    if [ ! -f "$models/plain-graphs/captures.json" ]; then
      "$python" "$root/bench/pytorch_models.py" capture "$models/plain-graphs" \
        plain_gpt2_64_f32 plain_gpt2_64_bf16 plain_gpt2_512_f32 plain_gpt2_512_bf16 \
        plain_bert_128_f32 plain_llama_128_f32 plain_llama_128_bf16 plain_resnet18_f32 || exit 1
    fi
    bash "$root/bench/models_device.sh" build "$models/plain-graphs" "$models/plain" >/dev/null || exit 1
    rm -rf "$models/variants"
    for variant in "$@"; do
      name="${variant%%=*}" options="${variant#*=}"
      "$python" "$root/bench/pytorch_models.py" build "$models/plain-graphs" \
        "$models/variants/$name" --gp-compile "$root/build/bin/gp-compile" \
        --pipeline-options "$options" >/dev/null || exit 1
      echo "variant $name: $options"
    done
    if [ ! -f "$models/decode-graphs/captures.json" ]; then
      "$python" "$root/bench/decode_loop.py" capture "$models/decode-graphs" --size gpt2 --device cpu || exit 1
    fi
    "$python" "$root/bench/decode_loop.py" build "$models/decode-graphs" "$models/decode" \
      --gp-compile "$root/build/bin/gp-compile" >/dev/null || exit 1
    du -sh "$root/build-device" "$models" ;;
  run)
    seconds="${2:-540}" start=$SECONDS out="${OUT:-/tmp}"
    left() { local l=$((seconds - (SECONDS - start))); echo $((l > 1 ? l : 1)); }
    rm -rf "$root/build-rt"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    bash "$root/scripts/device-tests.sh" run > "$out/tests.txt" 2>&1
    grep -E "Passed|Failed|FAIL:|Timed Out" "$out/tests.txt" | head -20
    timeout "$(left)" bash "$root/bench/kernels.sh" run 2>&1 | tee "$out/kernels.txt"
    lib="$root/build-rt/lib/libgpruntime.so"
    # shellcheck disable=SC2086
    timeout "$(left)" bash "$root/bench/models_device.sh" quick "$models/plain" "$(left)" $names \
      2>&1 | tee "$out/models.txt" | grep "gp/RO\|overhead,\|FAIL"
    for dir in "$models"/variants/*/; do
      [ -d "$dir" ] || continue
      echo "== variant $(basename "$dir")"
      # shellcheck disable=SC2086
      timeout "$(left)" python3 -u "$root/bench/pytorch_models.py" run "$lib" "$dir" $names \
        --steps 100 --rounds 3 2>&1 | tee "$out/variant-$(basename "$dir").txt" | grep "gp/RO\|FAIL"
    done
    timeout "$(left)" python3 -u "$root/bench/decode_loop.py" run "$lib" "$models/decode" \
      decode_gpt2_b1 --tokens 256 --rounds 3 2>&1 | tee "$out/decode.txt" | grep -v -i warn ;;
  *) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
