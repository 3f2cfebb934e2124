#!/usr/bin/env bash
# Times the same models built several ways (one build-models/ directory per
# variant), each against reduce-overhead in the same process:
#   bash bench/variants.sh SECONDS DIR:NAME[,NAME...] ...
# Needs build-rt/ (bench/models_device.sh quick or run builds it).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="$1"; shift
lib="$root/build-rt/lib/libgpruntime.so"
for spec in "$@"; do
  dir="${spec%%:*}" names="${spec#*:}"
  echo "== $dir"
  timeout "$seconds" python3 -u "$root/bench/pytorch_models.py" run "$lib" "$dir" ${names//,/ } \
    --steps 100 --rounds 3 2>&1 | grep -v -i warn | grep "graphpart\|FAIL\|rror"
done
