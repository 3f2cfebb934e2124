#!/usr/bin/env bash
# Fuzzes GraphPart with libFuzzer under AddressSanitizer and
# UndefinedBehaviorSanitizer for a given time, seeded from the repository:
#
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
#   GP_FUZZ_TARGETS="inputs manifest" bash scripts/fuzz.sh 600   (some only)
#
#  - gp-fuzz-pipeline: bytes through parse, verify and gp-pipeline
#    target=host; seeds are every .mlir file of test/ and examples/, split
#    at `// -----`, and generated programs (bench/gen_*.py);
#  - gp-fuzz-inputs: gp-run's --input specs and .npy reader;
#  - gp-fuzz-manifest: artifact manifests, read and made into a program;
#    seeds are the manifests of the examples compiled for both targets;
#  - python: graphpart's graph and parameter readers, without sanitizers
#    (test/Python/Inputs/fuzz_graphs.py), and loaded artifacts called with
#    bad arguments, weights and parameters (fuzz_calls.py, where python3
#    has torch; the programs compiled with build/, or $GP_BUILD); section
#    at the end.
#
# Builds build-fuzz/ (clang-22, GP_SANITIZE=address,undefined,fuzzer-no-link,
# GP_BUILD_FUZZERS=ON). Every input that once crashed a target
# (unittests/Fuzz/regressions/<target>) runs first, alone; then the target
# fuzzes. The corpora grow in build-fuzz/corpus/<target>; crashing inputs
# land in build-fuzz/findings/<target>/ (each one, once fixed, goes to the
# regressions). Prints each target's executions and findings; fails when a
# target found something.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${GP_FUZZ_BUILD:-$root/build-fuzz}"
seconds="${1:-60}"
if [ ! -f "$out/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGP_SANITIZE=address,undefined,fuzzer-no-link -DGP_BUILD_FUZZERS=ON \
    -DGP_USE_TCMALLOC=OFF -DCMAKE_C_COMPILER=clang-22 \
    -DCMAKE_CXX_COMPILER=clang++-22 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null || exit 1
fi
ninja -C "$out" -j "${GP_JOBS:-2}" gp-fuzz-pipeline gp-fuzz-inputs \
  gp-fuzz-manifest gp-opt >/dev/null || exit 1

seed() { # target: fills build-fuzz/seeds/<target> once
  local dir="$out/seeds/$1"
  [ -d "$dir" ] && return
  mkdir -p "$dir"
  if [ "$1" = pipeline ]; then
    local n=0
    while IFS= read -r file; do
      python3 - "$file" "$dir" "$n" <<'PY'
import sys
text = open(sys.argv[1]).read()
for i, part in enumerate(text.split("// -----")):
    open(f"{sys.argv[2]}/{sys.argv[3]}_{i}.mlir", "w").write(part)
PY
      n=$((n + 1))
    done < <(find "$root/test" "$root/examples" -name '*.mlir')
    python3 "$root/bench/gen_chain.py" 3 4 > "$dir/chain.mlir"
    python3 "$root/bench/gen_mlp.py" 2 2 4 > "$dir/mlp.mlir"
    python3 "$root/bench/gen_program.py" 40 > "$dir/program.mlir"
  elif [ "$1" = manifest ]; then
    for program in "$root"/examples/*.mlir; do
      for kind in host cuda; do
        "$out/bin/gp-opt" "$program" --gp-pipeline="target=$kind" 2>/dev/null |
          python3 -c '
import re, sys
m = re.search(r"@gp_manifest\(\"(.*?)\\00\"\)", sys.stdin.read())
if m:
    text = re.sub(r"\\([0-9A-F]{2})", lambda g: chr(int(g.group(1), 16)), m.group(1))
    open(sys.argv[1], "w").write(text)
' "$dir/$(basename "$program" .mlir).$kind"
      done
    done
  else
    printf '\x00f32 2 2 3\n2x3xf32=1.5' > "$dir/spec"
    printf '\x00f32 1 -1\n7xf32=random' > "$dir/dynamic"
    printf '\x00index 0\n42' > "$dir/index"
    printf '\x00bf16 3 1 2 3\n1x2x3xbf16=0.25' > "$dir/bf16"
    python3 - "$dir" <<'PY'
import struct, sys
def npy(path, descr, shape, payload):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x01\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + payload)
npy(sys.argv[1] + "/f32.npy", "<f4", "(2, 2)", struct.pack("<4f", 1, 2, 3, 4))
npy(sys.argv[1] + "/i64.npy", "<i8", "(3,)", struct.pack("<3q", 1, -2, 3))
PY
  fi
}

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
for target in ${GP_FUZZ_TARGETS:-pipeline inputs manifest}; do
  [ "$target" = python ] && continue  # the Python section, below
  seed "$target"
  corpus="$out/corpus/$target" findings="$out/findings/$target"
  mkdir -p "$corpus" "$findings"
  log="$out/fuzz-$target.log"
  regressions="$root/unittests/Fuzz/regressions/$target"
  if ! "$out/bin/gp-fuzz-$target" "$regressions"/* >"$log" 2>&1; then
    echo "gp-fuzz-$target: a regression input fails again:"; tail -40 "$log"
    status=1
    continue
  fi
  "$out/bin/gp-fuzz-$target" "$corpus" "$out/seeds/$target" "$regressions" \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
    -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  found=$(find "$findings" -type f | wc -l)
  echo "gp-fuzz-$target: ${execs:-0} executions in ${seconds}s, corpus $(ls "$corpus" | wc -l) inputs, $found finding(s) in $findings"
  [ "$found" -eq 0 ] || { status=1; tail -40 "$log"; }
done

# Python: graphpart's graph and parameter readers, fuzzed with damaged saved
# graphs (test/Python/Inputs/fuzz_graphs.py; fuzz-graphs.test runs one seed)
# for the same time, a new seed per round of 1000 cases. Anything but a
# conversion or a GraphError is a finding: the rounds that had one are kept
# in build-fuzz/findings/python/seed-<S>.log (rerun a case with
# `fuzz_graphs.py ROOTS --seed S --case N`). Runs unless GP_FUZZ_TARGETS
# is given without "python".
case " ${GP_FUZZ_TARGETS:-python} " in
*" python "*)
  python=""  # the first python3 with numpy, as the lit tests pick it
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import numpy" 2>/dev/null; then
      python="$candidate"; break
    fi
  done
  if [ -z "$python" ]; then
    echo "fuzz_graphs.py: not run (no python3 with numpy)"; exit $status
  fi
  findings="$out/findings/python"
  mkdir -p "$findings"
  seed=$(date +%s) end=$((SECONDS + seconds)) rounds=0 found=0
  while [ "$SECONDS" -lt "$end" ] || [ "$rounds" -eq 0 ]; do
    log="$findings/seed-$seed.log"
    if "$python" "$root/test/Python/Inputs/fuzz_graphs.py" \
        "$root"/test/Python/Inputs/graphs "$root"/test/Python/Inputs/graphs-export \
        "$root"/test/Python/Inputs/graphs-make-fx --cases 1000 \
        --parameter-cases 200 --seed "$seed" >"$log" 2>&1; then
      rm -f "$log"
    else
      found=$((found + 1)); grep -m 5 FAILED "$log" || tail -20 "$log"
    fi
    rounds=$((rounds + 1)) seed=$((seed + 1))
  done
  echo "fuzz_graphs.py: $rounds round(s) of 1000 graph and 200 parameter cases in ${seconds}s, $found with findings in $findings"
  [ "$found" -eq 0 ] || status=1

  # Loaded artifacts (fuzz_calls.py; fuzz-calls.test runs one seed): small
  # programs compiled for the host with the regular build (the sanitized
  # build-fuzz/ runtime cannot be loaded into python), called with bad and
  # unusual arguments, weights and parameters, on both call paths; each
  # round of 2000 cases a new seed, for the same time. The rounds with a
  # finding are kept in build-fuzz/findings/python/calls-seed-<S>.log
  # (rerun a case with `fuzz_calls.py ... --seed S --case N --trace`).
  build="${GP_BUILD:-$root/build}"
  torch_python=""  # the first python3 with torch, as %torch_python
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import torch, numpy" 2>/dev/null; then
      torch_python="$candidate"; break
    fi
  done
  if [ -z "$torch_python" ]; then
    echo "fuzz_calls.py: not run (no python3 with torch)"
  elif [ ! -x "$build/bin/gp-compile" ] || [ ! -f "$build/lib/libgpruntime.so" ]; then
    echo "fuzz_calls.py: not run (no $build/bin/gp-compile or $build/lib/libgpruntime.so; set GP_BUILD)"
  else
    seed=$(date +%s) end=$((SECONDS + seconds)) rounds=0 found=0
    while [ "$SECONDS" -lt "$end" ] || [ "$rounds" -eq 0 ]; do
      log="$findings/calls-seed-$seed.log"
      if "$torch_python" "$root/test/Python/Inputs/fuzz_calls.py" \
          --gp-compile "$build/bin/gp-compile" \
          --runtime-library "$build/lib/libgpruntime.so" --cases 2000 \
          --seed "$seed" >"$log" 2>&1; then
        rm -f "$log"
      else
        found=$((found + 1)); grep -m 5 FAILED "$log" || tail -20 "$log"
      fi
      rounds=$((rounds + 1)) seed=$((seed + 1))
    done
    echo "fuzz_calls.py: $rounds round(s) of 2000 call cases in ${seconds}s, $found with findings in $findings"
    [ "$found" -eq 0 ] || status=1
  fi
  ;;
esac
exit $status
