// RUN: gp-opt %s --gp-pipeline --gp-scalar-slots --convert-gp-to-runtime | FileCheck %s

// A host scalar read by a captured kernel is written into its arena slot by
// the entry point, in stream order before the partition runs
// (gpRtProgramWrite, 4 bytes at offset 256: past the 256 bytes of planned
// buffers), and the partition receives the slot as a buffer.
// CHECK: arena 512
// The spill slot, like every stack slot, is allocated at the function's
// start.
// CHECK-LABEL: func.func @gp_entry_scale_by_item
// CHECK: %[[SPILL:.+]] = llvm.alloca %{{.+}} x f32
// CHECK: call @gpRtRunPartitionInContext
// CHECK: call @gpRtRunPartitionInContext
// CHECK: %[[SCALAR:.+]] = llvm.load %{{.+}} : !llvm.ptr -> f32
// CHECK: %[[SLOT:.+]] = llvm.getelementptr %{{.+}}[256] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.store %[[SCALAR]], %[[SPILL]] : f32, !llvm.ptr
// CHECK: %[[BYTES:.+]] = llvm.mlir.constant(4 : i64) : i64
// CHECK: call @gpRtProgramWrite(%{{.+}}, %[[SLOT]], %[[SPILL]], %[[BYTES]])
// CHECK: call @gpRtRunPartitionInContext

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

func.func @scale_by_item(%x: memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0> {
  %m = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "first" ins(%x : memref<8xf32, #cuda0>) outs(%m : memref<f32, #cuda0>) {
  ^bb0(%in: memref<8xf32, #cuda0>, %out: memref<f32, #cuda0>):
  }
  %s = gp.item %m : memref<f32, #cuda0> -> f32
  %y = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "scale" ins(%x, %s : memref<8xf32, #cuda0>, f32) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%in: memref<8xf32, #cuda0>, %scale: f32, %out: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<8xf32, #cuda0>) outs(%out : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %unused: f32):
      %r = arith.mulf %v, %scale : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<8xf32, #cuda0>
}
