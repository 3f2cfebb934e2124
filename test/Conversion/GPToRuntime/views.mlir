// RUN: gp-opt %s --gp-pipeline --convert-gp-to-runtime --split-input-file | FileCheck %s

// A transpose becomes memref.transpose on the partition's descriptor; one
// that moves only unit dimensions is a new contiguous descriptor over the
// same first element.
#cuda0 = #gp.device<cuda:0>
// CHECK-LABEL: func.func private @gp_partition_transposes_0
// CHECK: memref.transpose %{{.+}} (d0, d1) -> (d1, d0) : memref<6x10xf32> to memref<10x6xf32, strided<[1, 10]>>
// CHECK-NOT: memref.transpose
// CHECK: func.func private @gp_kernel_k_0(%{{.+}}: memref<10x6xf32, strided<[1, 10]>>, %{{.+}}: memref<8x1xf32>,
func.func @transposes(%x: memref<6x10xf32, #cuda0>, %u: memref<1x8xf32, #cuda0>) -> (memref<10x6xf32, #cuda0>, memref<8x1xf32, #cuda0>) {
  %t = gp.buffer.transpose %x [1, 0] : memref<6x10xf32, #cuda0> to memref<10x6xf32, strided<[1, 10]>, #cuda0>
  %v = gp.buffer.transpose %u [1, 0] : memref<1x8xf32, #cuda0> to memref<8x1xf32, #cuda0>
  %y = gp.buffer.alloc() : memref<10x6xf32, #cuda0>
  %z = gp.buffer.alloc() : memref<8x1xf32, #cuda0>
  gp.kernel "k" ins(%t, %v : memref<10x6xf32, strided<[1, 10]>, #cuda0>, memref<8x1xf32, #cuda0>) outs(%y, %z : memref<10x6xf32, #cuda0>, memref<8x1xf32, #cuda0>) {
  ^bb0(%in: memref<10x6xf32, strided<[1, 10]>, #cuda0>, %in2: memref<8x1xf32, #cuda0>, %out: memref<10x6xf32, #cuda0>, %out2: memref<8x1xf32, #cuda0>):
    linalg.copy ins(%in : memref<10x6xf32, strided<[1, 10]>, #cuda0>) outs(%out : memref<10x6xf32, #cuda0>)
    linalg.copy ins(%in2 : memref<8x1xf32, #cuda0>) outs(%out2 : memref<8x1xf32, #cuda0>)
  }
  return %y, %z : memref<10x6xf32, #cuda0>, memref<8x1xf32, #cuda0>
}

// -----

// A slice with a dynamic offset of a buffer with symbolic sizes is a
// memref.subview whose type agrees with the gp view's.
#cuda0 = #gp.device<cuda:0>
// CHECK-LABEL: func.func private @gp_partition_dynamic_slice_0
// CHECK: memref.subview %{{.+}}[1, 0] [1, %{{.+}}] [1, 1] : memref<?x?xf32> to memref<1x?xf32, strided<[?, 1], offset: ?>>
// CHECK: memref.subview %{{.+}}[0, 1] [%{{.+}}, 1] [1, 1] : memref<?x?xf32> to memref<?x1xf32, strided<[?, 1], offset: 1>>
func.func @dynamic_slice(%x: memref<?x?xf32, #cuda0>) -> (memref<1x?xf32, #cuda0>, memref<?x1xf32, #cuda0>) {
  %s0 = gp.symint.dim "s0" = %x[0] {min = 2 : i64} : memref<?x?xf32, #cuda0>
  %s1 = gp.symint.dim "s1" = %x[1] {min = 2 : i64} : memref<?x?xf32, #cuda0>
  %row = gp.buffer.slice %x[1, 0] [1, %s1] [1, 1] : memref<?x?xf32, #cuda0> to memref<1x?xf32, strided<[?, 1], offset: ?>, #cuda0>
  %col = gp.buffer.slice %x[0, 1] [%s0, 1] [1, 1] : memref<?x?xf32, #cuda0> to memref<?x1xf32, strided<[?, 1], offset: 1>, #cuda0>
  %y0 = gp.buffer.alloc(%s1) : memref<1x?xf32, #cuda0>
  %y1 = gp.buffer.alloc(%s0) : memref<?x1xf32, #cuda0>
  gp.copy %row, %y0 : memref<1x?xf32, strided<[?, 1], offset: ?>, #cuda0> to memref<1x?xf32, #cuda0>
  gp.copy %col, %y1 : memref<?x1xf32, strided<[?, 1], offset: 1>, #cuda0> to memref<?x1xf32, #cuda0>
  return %y0, %y1 : memref<1x?xf32, #cuda0>, memref<?x1xf32, #cuda0>
}
