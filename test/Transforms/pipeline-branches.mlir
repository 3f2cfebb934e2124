// RUN: gp-opt %s --gp-pipeline 2>&1 | FileCheck %s

// A function that branches between blocks: each block is partitioned on its
// own, an op with regions (scf.if) is an eager "control flow" partition, and
// memory planning, which needs one block, leaves the function with a warning
// rather than a wrong plan.
// CHECK: warning: gp-plan-memory: not planned: the function branches between blocks
// CHECK-LABEL: func.func @branches
// CHECK: gp.partition 0 capturable
// CHECK: cf.cond_br
// CHECK: ^bb1:
// CHECK: gp.partition 1 capturable
// CHECK: ^bb2:
// CHECK: gp.partition 2 eager reasons ["control flow"]
// CHECK: scf.if
// CHECK: gp.partition 3 capturable
// CHECK-NOT: gp.buffer.dealloc
#cuda0 = #gp.device<cuda:0>
func.func @branches(%x: memref<4xf32, #cuda0>, %c: i1) -> memref<4xf32, #cuda0> {
  %a = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "k0" ins(%x : memref<4xf32, #cuda0>) outs(%a : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  gp.kernel "k1" outs(%a : memref<4xf32, #cuda0>) {
  ^bb0(%o: memref<4xf32, #cuda0>):
  }
  cf.br ^bb2
^bb2:
  scf.if %c {
    gp.kernel "k2" outs(%a : memref<4xf32, #cuda0>) {
    ^bb0(%o: memref<4xf32, #cuda0>):
    }
  }
  %b = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "k3" ins(%a : memref<4xf32, #cuda0>) outs(%b : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  return %b : memref<4xf32, #cuda0>
}
