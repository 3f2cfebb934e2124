#!/usr/bin/env bash
# Installs GraphPart and builds projects against the installed trees:
#
#   bash scripts/install-test.sh [BUILD]   # BUILD: a configured full build
#
# 1. `cmake --install BUILD` into a scratch prefix; a downstream project
#    (test/Install/downstream) finds it with find_package(GraphPart), builds
#    its own my-opt (GraphPart's dialect, passes, gp-import, gp-pipeline)
#    and a C program on GraphPart::Runtime; my-opt runs gp-pipeline on an
#    example and on bufferized upstream linalg, the C program loads an
#    artifact the installed gp-compile made, the installed plugin loads into
#    stock mlir-opt.
# 2. The runtime-only configuration (GP_RUNTIME_ONLY=ON) is built and
#    installed on its own; a C project (test/Install/runtime-user) finds it
#    with find_package(GraphPartRuntime).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
work="$(mktemp -d "${TMPDIR:-/tmp}/gp-install-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

# `expect PATTERN COMMAND...`: COMMAND succeeds and prints PATTERN (its
# output read whole: grep -q in a pipe would cut it short).
expect() {
  local pattern="$1"; shift
  "$@" > "$work/out.txt"
  grep -q -- "$pattern" "$work/out.txt" || { echo "install-test: '$*' did not print '$pattern'" >&2; exit 1; }
}

echo "== install $build"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
prefix="$work/prefix"
for f in bin/gp-opt bin/gp-compile bin/gp-codegen bin/gp-run lib/libgpruntime.so lib/GraphPartPlugin.so \
         lib/libGPDialect.a lib/libGPImport.a lib/libGPPipelines.a \
         include/GraphPart/Runtime/GPRuntime.h include/GraphPart/Runtime/GPRuntimeHost.h \
         include/GraphPart/Runtime/GPRuntimeBase.h include/GraphPart/Runtime/GPRuntimeLowered.h \
         include/GraphPart/Runtime/GPRuntimeExtern.h include/GraphPart/Dialect/GP/IR/GPOps.h \
         include/GraphPart/Dialect/GP/IR/GPOps.h.inc include/GraphPart/Conversion/Passes.h.inc \
         lib/cmake/GraphPart/GraphPartConfig.cmake lib/cmake/GraphPartRuntime/GraphPartRuntimeConfig.cmake; do
  [ -e "$prefix/$f" ] || { echo "install-test: $f was not installed" >&2; exit 1; }
done

echo "== downstream project"
cmake "${generator[@]}" -S "$root/test/Install/downstream" -B "$work/downstream" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  ${CMAKE_C_COMPILER:+-DCMAKE_C_COMPILER=$CMAKE_C_COMPILER} \
  ${CMAKE_CXX_COMPILER:+-DCMAKE_CXX_COMPILER=$CMAKE_CXX_COMPILER} >/dev/null
cmake --build "$work/downstream" >/dev/null
expect "gp.partition 1 eager" "$work/downstream/my-opt" "$root/examples/cpu_op_in_the_middle.mlir" --gp-pipeline
expect 'gp.kernel "matmul_' "$work/downstream/my-opt" "$root/test/Runtime/E2E/Inputs/upstream/mlp.mlir" \
  --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
  --gp-import="weights-dir=$work/weights"
"$prefix/bin/gp-compile" "$root/examples/cpu_op_in_the_middle.mlir" --target host -o "$work/prog.so"
expect "^entry cpu_op_in_the_middle:" "$work/downstream/runtime-user" "$work/prog.so"
expect "^entry cpu_op_in_the_middle" "$prefix/bin/gp-run" "$work/prog.so" --print-entries
mlir_opt="${GP_LLVM_DIR:-/usr/lib/llvm-22}/bin/mlir-opt"
expect "gp.partition" "$mlir_opt" "$root/examples/cpu_op_in_the_middle.mlir" \
  --load-dialect-plugin="$prefix/lib/GraphPartPlugin.so" --load-pass-plugin="$prefix/lib/GraphPartPlugin.so" \
  --pass-pipeline="builtin.module(gp-import,gp-pipeline)"

echo "== runtime-only install"
cmake "${generator[@]}" -S "$root" -B "$work/rt-build" -DGP_RUNTIME_ONLY=ON \
  -DGP_BUILD_UNITTESTS=OFF -DGP_BUILD_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=Release \
  ${CMAKE_C_COMPILER:+-DCMAKE_C_COMPILER=$CMAKE_C_COMPILER} \
  ${CMAKE_CXX_COMPILER:+-DCMAKE_CXX_COMPILER=$CMAKE_CXX_COMPILER} >/dev/null
cmake --build "$work/rt-build" >/dev/null
cmake --install "$work/rt-build" --prefix "$work/rt-prefix" >/dev/null
[ ! -e "$work/rt-prefix/bin/gp-opt" ] || { echo "install-test: the runtime-only install has gp-opt" >&2; exit 1; }
cmake "${generator[@]}" -S "$root/test/Install/runtime-user" -B "$work/runtime-user" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/rt-prefix" \
  ${CMAKE_C_COMPILER:+-DCMAKE_C_COMPILER=$CMAKE_C_COMPILER} >/dev/null
cmake --build "$work/runtime-user" >/dev/null
expect "^entry cpu_op_in_the_middle:" "$work/runtime-user/runtime-user" "$work/prog.so"
expect "^entry cpu_op_in_the_middle" "$work/rt-prefix/bin/gp-run" "$work/prog.so" --print-entries
echo "install-test: ok"
