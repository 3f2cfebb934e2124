// RUN: gp-opt %s --gp-pipeline="target=host" | FileCheck %s

// Two live 2.4 GB buffers: the second sits past 2^31 bytes in the arena.
// GEP constant indices are 29-bit signed, so its offset must be an i64
// value, not a (wrapped) constant index.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: llvm.func @gp_partition_big_0
// CHECK: %[[OFFSET:.+]] = llvm.mlir.constant(2400000000 : i64) : i64
// CHECK: llvm.getelementptr %{{.+}}[%[[OFFSET]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
func.func @big(%x: memref<600000000xf32, #cuda0>) -> (memref<600000000xf32, #cuda0>, memref<600000000xf32, #cuda0>) {
  %a = gp.buffer.alloc() : memref<600000000xf32, #cuda0>
  %b = gp.buffer.alloc() : memref<600000000xf32, #cuda0>
  gp.kernel "copy_a" ins(%x : memref<600000000xf32, #cuda0>) outs(%a : memref<600000000xf32, #cuda0>) {
  ^bb0(%in: memref<600000000xf32, #cuda0>, %out: memref<600000000xf32, #cuda0>):
    linalg.copy ins(%in : memref<600000000xf32, #cuda0>) outs(%out : memref<600000000xf32, #cuda0>)
  }
  gp.kernel "copy_b" ins(%x : memref<600000000xf32, #cuda0>) outs(%b : memref<600000000xf32, #cuda0>) {
  ^bb0(%in: memref<600000000xf32, #cuda0>, %out: memref<600000000xf32, #cuda0>):
    linalg.copy ins(%in : memref<600000000xf32, #cuda0>) outs(%out : memref<600000000xf32, #cuda0>)
  }
  return %a, %b : memref<600000000xf32, #cuda0>, memref<600000000xf32, #cuda0>
}

// Just past the 29-bit limit: the second 280 MB buffer at 2^28 + 11428864
// bytes (an offset that wrapped to minus 256 MiB made cuBLAS write before
// the arena on the H200).
// CHECK-LABEL: llvm.func @gp_partition_past_29_bits_0
// CHECK: %[[OFFSET:.+]] = llvm.mlir.constant(280000000 : i64) : i64
// CHECK: llvm.getelementptr %{{.+}}[%[[OFFSET]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NOT: llvm.getelementptr %{{.+}}[-{{[0-9]+}}]
func.func @past_29_bits(%x: memref<70000000xf32, #cuda0>) -> (memref<70000000xf32, #cuda0>, memref<70000000xf32, #cuda0>) {
  %a = gp.buffer.alloc() : memref<70000000xf32, #cuda0>
  %b = gp.buffer.alloc() : memref<70000000xf32, #cuda0>
  gp.kernel "copy_a" ins(%x : memref<70000000xf32, #cuda0>) outs(%a : memref<70000000xf32, #cuda0>) {
  ^bb0(%in: memref<70000000xf32, #cuda0>, %out: memref<70000000xf32, #cuda0>):
    linalg.copy ins(%in : memref<70000000xf32, #cuda0>) outs(%out : memref<70000000xf32, #cuda0>)
  }
  gp.kernel "copy_b" ins(%x : memref<70000000xf32, #cuda0>) outs(%b : memref<70000000xf32, #cuda0>) {
  ^bb0(%in: memref<70000000xf32, #cuda0>, %out: memref<70000000xf32, #cuda0>):
    linalg.copy ins(%in : memref<70000000xf32, #cuda0>) outs(%out : memref<70000000xf32, #cuda0>)
  }
  return %a, %b : memref<70000000xf32, #cuda0>, memref<70000000xf32, #cuda0>
}
