#!/usr/bin/env bash
# The runtime, gp-run and their tests under AddressSanitizer and
# UndefinedBehaviorSanitizer (part of the README's test command).
#
#   bash scripts/sanitized-tests.sh      # after build/ has gp-compile
#
# Builds the runtime-only configuration with GP_SANITIZE=address,undefined
# into build-asan/, runs the runtime's and gp-run's GoogleTests, then, with
# the sanitized gp-run and drivers, the differential test over every example
# and end-to-end program (artifacts from build/'s gp-compile), the held
# results, shared-artifact and same-address drivers, and gp-run on bad
# input. Then the runtime's threads under ThreadSanitizer (build-tsan/):
# its GoogleTests (threads sharing a program, ranks meeting at collectives)
# and eight threads sharing one loaded artifact. Any sanitizer report fails
# the run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${GP_BUILD:-$root/build}"
asan="${GP_ASAN_BUILD:-$root/build-asan}"
jobs="${GP_JOBS:-2}"
if [ ! -f "$asan/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$asan" -DGP_RUNTIME_ONLY=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGP_SANITIZE=address,undefined \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
fi
ninja -C "$asan" -j "$jobs" >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

echo "== sanitized: runtime and gp-run unit tests"
"$asan/unittests/GPRuntimeTests" --gtest_brief=1
"$asan/unittests/GPRunSupportTests" --gtest_brief=1

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for program in "$root"/examples/*.mlir "$root"/test/Runtime/E2E/Inputs/*.mlir; do
  "$build/bin/gp-compile" "$program" -o "$work/$(basename "$program" .mlir).so"
done

echo "== sanitized: differential (captured vs eager) over every program"
python3 "$root/test/Runtime/E2E/differential.py" --compile "$build/bin/gp-compile" \
  --run "$asan/bin/gp-run" --externs "$asan/lib/libgpexampleexterns.so" \
  --backend host --work "$work/differential" \
  "$root"/examples/*.mlir "$root"/test/Runtime/E2E/Inputs/*.mlir \
  "$root"/test/Runtime/E2E/Inputs/kernels/*.mlir | tail -1

echo "== sanitized: drivers"
"$asan/unittests/gp-held-results" "$work/held_result.so" host | tail -1
"$asan/unittests/gp-shared-artifact" "$work/cpu_op_in_the_middle.so" host 8 50 | tail -1
"$asan/unittests/gp-same-address" "$work/static_row_of_dynamic.so" host 16 32 16 | tail -1

echo "== sanitized: gp-run on bad input (each must fail with a message)"
run="$asan/bin/gp-run"
expect_error() {
  local out status=0
  out="$("$@" 2>&1)" || status=$?
  if [ "$status" -ne 1 ] || ! grep -q "gp-run: error:" <<<"$out"; then
    echo "expected a gp-run error (exit 1), got exit $status from: $*" >&2
    echo "$out" >&2
    exit 1
  fi
}
cpu="$work/cpu_op_in_the_middle.so"
expect_error "$run" "$cpu" --input 99999999999999999999999x2xf32=1 --input 2x2xf32=1
expect_error "$run" "$cpu" --input 4611686018427387904x4xf32=1 --input 2x2xf32=1
head -c 6000 "$cpu" > "$work/truncated.so"
expect_error "$run" "$work/truncated.so"
expect_error "$run" "$work/symint_mutation_index.so" --input 100000000 --input 7xf32=0
echo "== ThreadSanitizer: the runtime's threads"
tsan="${GP_TSAN_BUILD:-$root/build-tsan}"
if [ ! -f "$tsan/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$tsan" -DGP_RUNTIME_ONLY=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGP_SANITIZE=thread \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
fi
ninja -C "$tsan" -j "$jobs" GPRuntimeTests gp-shared-artifact >/dev/null
export TSAN_OPTIONS=halt_on_error=1
"$tsan/unittests/GPRuntimeTests" --gtest_brief=1 --gtest_filter='ProgramTest.*:Externs.*:Parameter*:CollectivesTest.*'
"$tsan/unittests/gp-shared-artifact" "$cpu" host 8 50 | tail -1
echo "sanitized: ok"
