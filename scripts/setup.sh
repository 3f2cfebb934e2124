#!/usr/bin/env bash
# Installs GraphPart's build dependencies on Debian 12 (when missing) and
# builds the given targets in build/. Sourced by the README's two commands.
set -euo pipefail

GP_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GP_BUILD="${GP_BUILD:-$GP_ROOT/build}"
GP_JOBS="${GP_JOBS:-2}"

GP_PACKAGES=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22
             cmake ninja-build libgtest-dev python3
             libgoogle-perftools-dev libclang-rt-22-dev python3-numpy
             python3-torch libtorch-dev python3-dev g++)

gp_install_packages() {
  local missing=()
  for pkg in "${GP_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
      missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "== installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
}

gp_build() {
  if [ ! -f "$GP_BUILD/build.ninja" ]; then
    cmake -G Ninja -S "$GP_ROOT" -B "$GP_BUILD" \
      -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
      -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
  fi
  ninja -C "$GP_BUILD" -j "$GP_JOBS" "$@"
}
