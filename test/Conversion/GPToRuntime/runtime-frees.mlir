// RUN: gp-opt %s --gp-pipeline --convert-gp-to-runtime | FileCheck %s

// A buffer sized at run time goes back to the runtime at its planned free
// (gpRtFree on the partition's stream), so later allocations of the run
// and the key's pool reuse its memory; an arena buffer's free needs no
// call (the plan reuses its space).
// CHECK-LABEL: func.func private @gp_partition_frees_0(
// CHECK: call @gpRtAllocate
// CHECK: call @gpRtLaunchHostKernel
// CHECK: call @gpRtFree
// CHECK-NOT: call @gpRtFree
// CHECK: return
#cuda0 = #gp.device<cuda:0>
func.func @frees(%x: memref<?xf32, #cuda0>, %y: memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0> {
  %n = gp.symint.dim "n" = %x[0] : memref<?xf32, #cuda0>
  %t = gp.buffer.alloc(%n) : memref<?xf32, #cuda0>
  gp.kernel "fill" ins(%x : memref<?xf32, #cuda0>) outs(%t : memref<?xf32, #cuda0>) {
  ^bb0(%i: memref<?xf32, #cuda0>, %o: memref<?xf32, #cuda0>):
  }
  %s = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "reduce" ins(%t : memref<?xf32, #cuda0>) outs(%s : memref<8xf32, #cuda0>) {
  ^bb0(%i: memref<?xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
  }
  gp.kernel "copy" ins(%s : memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%i: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
  }
  return %y : memref<8xf32, #cuda0>
}
