// RUN: not gp-opt %s --gp-import=default-device=tpu 2>&1 | FileCheck %s
// CHECK: error: gp-import: default-device must be cuda:N, cpu or meta, got 'tpu'
func.func @f(%x: memref<4xf32>) {
  return
}
