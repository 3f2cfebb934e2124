// RUN: gp-opt %s --convert-gp-to-gpu=block-size=128 | FileCheck %s
// RUN: not gp-opt %s --convert-gp-to-gpu=block-size=0 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: convert-gp-to-gpu: block-size must be positive, got 0
// RUN: not gp-opt %s --convert-gp-to-gpu=elements-per-thread=3 2>&1 | FileCheck %s --check-prefix=ELEMENTS
// ELEMENTS: error: convert-gp-to-gpu: elements-per-thread must be 1, 2, 4 or 8, got 3
// RUN: not gp-opt %s --convert-gp-to-gpu=row-elements-per-thread=32 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: error: convert-gp-to-gpu: row-elements-per-thread must be 1, 2, 4, 8 or 16, got 32

#cuda0 = #gp.device<cuda:0>

// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[C128:.+]] = arith.constant 128 : index
// CHECK: gpu.launch_func @gp_kernels::@zero blocks in (%[[C8]], %{{.+}}, %{{.+}}) threads in (%[[C128]], %{{.+}}, %{{.+}})
func.func @f(%x: memref<1024xf32, #cuda0>) {
  gp.kernel "zero" outs(%x : memref<1024xf32, #cuda0>) {
  ^bb0(%out: memref<1024xf32, #cuda0>):
    %z = arith.constant 0.0 : f32
    linalg.fill ins(%z : f32) outs(%out : memref<1024xf32, #cuda0>)
  }
  return
}
