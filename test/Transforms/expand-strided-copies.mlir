// RUN: gp-opt %s --gp-expand-strided-copies --split-input-file --verify-diagnostics | FileCheck %s

// On one device, a copy from a transposed view becomes a copy kernel.
#cuda0 = #gp.device<cuda:0>
// CHECK-LABEL: func.func @same_device
func.func @same_device(%x: memref<5x7xf32, #cuda0>) -> memref<7x5xf32, #cuda0> {
  %t = gp.buffer.transpose %x [1, 0] : memref<5x7xf32, #cuda0> to memref<7x5xf32, strided<[1, 7]>, #cuda0>
  %y = gp.buffer.alloc() : memref<7x5xf32, #cuda0>
  // CHECK-NOT: gp.copy
  // CHECK: gp.kernel "strided_copy" ins(%{{.+}} : memref<7x5xf32, strided<[1, 7]>, #{{.+}}>) outs(%{{.+}} : memref<7x5xf32, #{{.+}}>)
  // CHECK-NEXT: ^bb0(%[[IN:.+]]: memref<7x5xf32, strided<[1, 7]>, #{{.+}}>, %[[OUT:.+]]: memref<7x5xf32, #{{.+}}>):
  // CHECK-NEXT: linalg.copy ins(%[[IN]] : {{.+}}) outs(%[[OUT]] : {{.+}})
  gp.copy %t, %y : memref<7x5xf32, strided<[1, 7]>, #cuda0> to memref<7x5xf32, #cuda0>
  return %y : memref<7x5xf32, #cuda0>
}

// -----

// Contiguous copies stay as they are, across devices too.
#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>
// CHECK-LABEL: func.func @contiguous
func.func @contiguous(%x: memref<5x7xf32, #cuda0>, %y: memref<5x7xf32, #cpu>) {
  // CHECK-NEXT: gp.copy %{{.+}}, %{{.+}} : memref<5x7xf32, #{{.+}}> to memref<5x7xf32, #{{.+}}>
  // CHECK-NEXT: return
  gp.copy %x, %y : memref<5x7xf32, #cuda0> to memref<5x7xf32, #cpu>
  return
}

// -----

// Between devices, each strided side is staged through a contiguous buffer
// on its own device.
#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>
// CHECK-LABEL: func.func @cross_device
func.func @cross_device(%x: memref<5x7xf32, #cuda0>, %y: memref<9x5xf32, #cpu>) {
  %t = gp.buffer.transpose %x [1, 0] : memref<5x7xf32, #cuda0> to memref<7x5xf32, strided<[1, 7]>, #cuda0>
  %w = gp.buffer.slice %y[1, 0] [7, 5] [1, 1] : memref<9x5xf32, #cpu> to memref<7x5xf32, strided<[5, 1], offset: 5>, #cpu>
  // CHECK: %[[T:.+]] = gp.buffer.transpose
  // CHECK: %[[W:.+]] = gp.buffer.slice
  // CHECK: %[[STAGE0:.+]] = gp.buffer.alloc() : memref<7x5xf32, #{{[a-z0-9]+}}>
  // CHECK: gp.kernel "strided_copy" ins(%[[T]] : {{.+}}) outs(%[[STAGE0]] : {{.+}})
  // CHECK: %[[STAGE1:.+]] = gp.buffer.alloc() : memref<7x5xf32, #{{[a-z0-9]+}}>
  // CHECK: gp.copy %[[STAGE0]], %[[STAGE1]] : memref<7x5xf32, #{{[a-z0-9]+}}> to memref<7x5xf32, #{{[a-z0-9]+}}>
  // CHECK: gp.kernel "strided_copy" ins(%[[STAGE1]] : {{.+}}) outs(%[[W]] : {{.+}})
  gp.copy %t, %w : memref<7x5xf32, strided<[1, 7]>, #cuda0> to memref<7x5xf32, strided<[5, 1], offset: 5>, #cpu>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>
func.func @cross_device_dynamic(%x: memref<?x7xf32, #cuda0>, %y: memref<7x?xf32, #cpu>) {
  %t = gp.buffer.transpose %x [1, 0] : memref<?x7xf32, #cuda0> to memref<7x?xf32, strided<[1, 7]>, #cuda0>
  // expected-error @+1 {{copies a strided view of dynamic shape between devices; copy it into a contiguous buffer on its device first}}
  gp.copy %t, %y : memref<7x?xf32, strided<[1, 7]>, #cuda0> to memref<7x?xf32, #cpu>
  return
}
