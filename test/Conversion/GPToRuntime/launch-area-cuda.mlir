// REQUIRES: ptxas
// RUN: gp-opt %s --gp-pipeline="target=cuda fuse=false" | FileCheck %s

// A cuda launch passes its parameters through the body's launch area: the
// fields of its descriptors (7 per rank-2 memref: 21 for the add, 14 for
// the exp) go to slots 0, 1, ..., which the cuda params point to from the
// body's start on (set once, there); its grid and block sizes are
// constant arrays, and the kernel handle goes to one slot of the area too.
// No launch allocates stack of its own, so a body of thousands of launches
// keeps a fixed frame.
// CHECK-LABEL: llvm.func @gp_partition_two_adds_0(
// CHECK: %[[COUNT:.*]] = llvm.mlir.constant(21 : i64)
// CHECK-NEXT: %[[PARAMS:.*]] = llvm.alloca %[[COUNT]] x !llvm.ptr
// CHECK: %[[COUNT:.*]] = llvm.mlir.constant(21 : i64)
// CHECK-NEXT: %[[SLOTS:.*]] = llvm.alloca %[[COUNT]] x i64
// CHECK-NEXT: llvm.mlir.constant(1 : i64)
// CHECK-NEXT: %[[HANDLE:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK-NEXT: %[[SLOT:.*]] = llvm.getelementptr %[[SLOTS]][0]
// CHECK-NEXT: %[[PARAM:.*]] = llvm.getelementptr %[[PARAMS]][0]
// CHECK-NEXT: llvm.store %[[SLOT]], %[[PARAM]]
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[SLOTS]][20]
// CHECK-NEXT: %[[PARAM:.*]] = llvm.getelementptr %[[PARAMS]][20]
// CHECK-NEXT: llvm.store %[[SLOT]], %[[PARAM]]
// CHECK-NOT: llvm.alloca
// CHECK: llvm.call @gpRtCudaGetKernel(%{{.*}}, %{{.*}}, %{{.*}}, %[[HANDLE]])
// CHECK-NOT: llvm.alloca
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[SLOTS]][20]
// CHECK-NEXT: llvm.store %{{.*}}, %[[SLOT]] : i64, !llvm.ptr
// CHECK-NEXT: %[[GRID:.*]] = llvm.mlir.addressof @gp_array_i32_12_1_1
// CHECK-NEXT: %[[BLOCK:.*]] = llvm.mlir.addressof @gp_array_i32_256_1_1
// CHECK: llvm.call @gpRtLaunchCudaKernel(%{{.*}}, %{{.*}}, %[[GRID]], %[[BLOCK]], %{{.*}}, %[[PARAMS]])
// CHECK-NOT: llvm.alloca
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[SLOTS]][13]
// CHECK-NEXT: llvm.store %{{.*}}, %[[SLOT]] : i64, !llvm.ptr
// CHECK-NEXT: %[[GRID:.*]] = llvm.mlir.addressof @gp_array_i32_12_1_1
// CHECK: llvm.call @gpRtLaunchCudaKernel(%{{.*}}, %{{.*}}, %[[GRID]], %{{.*}}, %{{.*}}, %[[PARAMS]])
// CHECK: llvm.return
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_adds(%a: memref<100x30xf32, #cuda0>, %b: memref<100x30xf32, #cuda0>) -> memref<100x30xf32, #cuda0> {
  %t = gp.buffer.alloc() : memref<100x30xf32, #cuda0>
  gp.kernel "add" ins(%a, %b : memref<100x30xf32, #cuda0>, memref<100x30xf32, #cuda0>) outs(%t : memref<100x30xf32, #cuda0>) {
  ^bb0(%x: memref<100x30xf32, #cuda0>, %y: memref<100x30xf32, #cuda0>, %o: memref<100x30xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%x, %y : memref<100x30xf32, #cuda0>, memref<100x30xf32, #cuda0>) outs(%o : memref<100x30xf32, #cuda0>) {
    ^bb0(%p: f32, %q: f32, %unused: f32):
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    }
  }
  %r = gp.buffer.alloc() : memref<100x30xf32, #cuda0>
  gp.kernel "exp" ins(%t : memref<100x30xf32, #cuda0>) outs(%r : memref<100x30xf32, #cuda0>) {
  ^bb0(%x: memref<100x30xf32, #cuda0>, %o: memref<100x30xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%x : memref<100x30xf32, #cuda0>) outs(%o : memref<100x30xf32, #cuda0>) {
    ^bb0(%p: f32, %unused: f32):
      %e = math.exp %p : f32
      linalg.yield %e : f32
    }
  }
  return %r : memref<100x30xf32, #cuda0>
}
