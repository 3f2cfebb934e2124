#!/usr/bin/env bash
# The shortest GPU call that checks a session's CUDA paths and takes its
# figures (for when device time is scarce), in priority order, each under
# a time limit so that the whole fits one 600 s call:
#   1. the full-size plain PyTorch models against eager and reduce-overhead
#      (bench/models_device.sh quick: GPT-2 124M, ResNet-18, the Llama-style
#      decoder in bf16, BERT; results checked against eager first) and the
#      per-call overhead at 2 and 200 bound parameters;
#   2. the bound-parameter checks on CUDA tensors;
#   3. the cuda lit tests and runtime GoogleTests (scripts/device-tests.sh);
#   4. the size-rotation probe.
# Prepare here: `bash scripts/device-tests.sh prepare`, `bash
# bench/models_device.sh build build-models/plain-graphs build-models/plain`,
# `bash bench/size_rotation.sh prepare build-models/rotation`; carry
# build-device and build-models.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
lib="$root/build-rt/lib/libgpruntime.so"
echo "== whole models and per-call overhead"
timeout 260 bash "$root/bench/models_device.sh" quick "$root/build-models/plain" 170 \
  plain_gpt2_64_f32 plain_resnet18_f32 plain_llama_128_bf16 plain_bert_128_f32 \
  plain_gpt2_512_f32 2>&1 | tail -30
echo "== parameters bound from a live module on the GPU"
timeout 60 python3 -u "$root/test/Python/Inputs/parameters_check.py" "$lib" --prebuilt "$root/build-device/parameters" 2>&1 | grep -v Warning | tail -8
echo "== cuda lit tests and runtime GoogleTests"
timeout 200 bash "$root/scripts/device-tests.sh" run 2>&1 |
  grep -E "^(FAIL|UNSUPPORTED)|Failed Tests|GraphPart ::|Total|Passed|Failed|error:" | tail -30
echo "== size rotation"
timeout 60 bash "$root/bench/size_rotation.sh" run "$root/build-models/rotation" cuda 512 2>&1 | tail -9
