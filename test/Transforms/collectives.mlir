// RUN: gp-opt %s -split-input-file --gp-partition | FileCheck %s
// RUN: gp-opt %s -split-input-file --gp-partition=capture-collectives=false | FileCheck %s --check-prefix=CUT
// RUN: gp-opt %s -split-input-file --gp-reorder --gp-partition | FileCheck %s --check-prefix=ORDER

// A tensor-parallel MLP's shape: a column-parallel matmul, a row-parallel
// one, an all-reduce of the partial sums, and the work after it. The
// collective is captured with the work around it: one partition. With
// capture-collectives=false (for comparison) it runs eagerly, on its own.
// CHECK-LABEL: func.func @mlp_block
// CHECK: gp.partition 0 capturable
// CHECK: gp.kernel "up"
// CHECK: gp.kernel "down"
// CHECK: gp.all_reduce sum
// CHECK: gp.kernel "bias"
// CHECK-NOT: gp.partition
// CHECK: return
// CUT-LABEL: func.func @mlp_block
// CUT: gp.partition 0 capturable
// CUT: gp.kernel "down"
// CUT: gp.partition 1 eager reasons ["collective"]
// CUT: gp.all_reduce sum
// CUT: gp.partition 2 capturable
// CUT: gp.kernel "bias"
#cuda0 = #gp.device<cuda:0>
func.func @mlp_block(%x: memref<8x64xf32, #cuda0>) -> memref<8x64xf32, #cuda0> {
  %h = gp.buffer.alloc() : memref<8x128xf32, #cuda0>
  gp.kernel "up" ins(%x : memref<8x64xf32, #cuda0>) outs(%h : memref<8x128xf32, #cuda0>) {
  ^bb0(%i: memref<8x64xf32, #cuda0>, %o: memref<8x128xf32, #cuda0>):
  }
  %p = gp.buffer.alloc() : memref<8x64xf32, #cuda0>
  gp.kernel "down" ins(%h : memref<8x128xf32, #cuda0>) outs(%p : memref<8x64xf32, #cuda0>) {
  ^bb0(%i: memref<8x128xf32, #cuda0>, %o: memref<8x64xf32, #cuda0>):
  }
  gp.all_reduce sum %p, %p : memref<8x64xf32, #cuda0> to memref<8x64xf32, #cuda0>
  %y = gp.buffer.alloc() : memref<8x64xf32, #cuda0>
  gp.kernel "bias" ins(%p : memref<8x64xf32, #cuda0>) outs(%y : memref<8x64xf32, #cuda0>) {
  ^bb0(%i: memref<8x64xf32, #cuda0>, %o: memref<8x64xf32, #cuda0>):
  }
  return %y : memref<8x64xf32, #cuda0>
}

// -----

// Reordering may move independent work across a collective, but never one
// collective across another: every rank must issue them in one order.
// Here the all-reduce of %b going first (with "k" before the host work
// that %a waits for, and the host work on %b's result joining that) would
// make three partitions; in their order they make four.
// ORDER-LABEL: func.func @collective_order
// ORDER: gp.partition 0 capturable
// ORDER: gp.kernel "k"
// ORDER-NOT: gp.all_reduce
// ORDER: gp.partition 1 eager
// ORDER: gp.kernel "on_cpu"
// ORDER: gp.partition 2 capturable
// ORDER-NEXT: ^bb0
// ORDER-NEXT: gp.all_reduce sum
// ORDER-NEXT: gp.all_reduce max
// ORDER: gp.partition 3 eager
// ORDER: gp.kernel "after"
#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>
func.func @collective_order(%x: memref<8xf32, #cuda0>, %b: memref<8xf32, #cuda0>) -> memref<8xf32, #cpu> {
  %k = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "k" ins(%x : memref<8xf32, #cuda0>) outs(%k : memref<8xf32, #cuda0>) {
  ^bb0(%i: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
  }
  %hk = gp.buffer.alloc() : memref<8xf32, #cpu>
  gp.copy %k, %hk : memref<8xf32, #cuda0> to memref<8xf32, #cpu>
  gp.kernel "on_cpu" outs(%hk : memref<8xf32, #cpu>) {
  ^bb0(%o: memref<8xf32, #cpu>):
  }
  %a = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.copy %hk, %a : memref<8xf32, #cpu> to memref<8xf32, #cuda0>
  gp.all_reduce sum %a, %a : memref<8xf32, #cuda0> to memref<8xf32, #cuda0>
  gp.all_reduce max %b, %b : memref<8xf32, #cuda0> to memref<8xf32, #cuda0>
  %hb = gp.buffer.alloc() : memref<8xf32, #cpu>
  gp.copy %b, %hb : memref<8xf32, #cuda0> to memref<8xf32, #cpu>
  gp.kernel "after" outs(%hb : memref<8xf32, #cpu>) {
  ^bb0(%o: memref<8xf32, #cpu>):
  }
  return %hb : memref<8xf32, #cpu>
}
