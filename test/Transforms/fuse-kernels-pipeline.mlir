// RUN: gp-opt %s --gp-pipeline | FileCheck %s
// RUN: gp-opt %s --gp-pipeline=fuse=false | FileCheck %s --check-prefix=OFF
// RUN: gp-opt %s --gp-pipeline=report=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// gp-pipeline fuses kernels after partitioning and before planning memory
// (so the removed temporaries are never planned); `fuse=false` keeps one
// kernel per op.

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @exp_neg_add
// CHECK-SAME: gp.arenas = [#gp.arena<#cuda0, 256>]
// CHECK: gp.partition 0 capturable
// CHECK: %[[OUT:.+]] = gp.buffer.alloc() {offset = 0 : i64} : memref<64xf32, #cuda0>
// CHECK-NEXT: gp.kernel "exp_neg_add" ins(%{{.+}}, %{{.+}} : memref<64xf32, #cuda0>, memref<64xf32, #cuda0>) outs(%[[OUT]]
// CHECK-NOT: gp.kernel
// CHECK-NOT: gp.buffer.alloc

// OFF-LABEL: func.func @exp_neg_add
// OFF: gp.kernel "exp"
// OFF: gp.kernel "neg"
// OFF: gp.kernel "add"

// REPORT: gp-partition: @exp_neg_add
// REPORT: gp-fuse-kernels: @exp_neg_add: 2 fusions, 2 buffers removed
// REPORT: gp-plan-memory: @exp_neg_add: 0 frees
func.func @exp_neg_add(%x: memref<64xf32, #cuda0>, %y: memref<64xf32, #cuda0>) -> memref<64xf32, #cuda0> {
  %e = gp.buffer.alloc() : memref<64xf32, #cuda0>
  gp.kernel "exp" ins(%x : memref<64xf32, #cuda0>) outs(%e : memref<64xf32, #cuda0>) {
  ^bb0(%a: memref<64xf32, #cuda0>, %o: memref<64xf32, #cuda0>):
    linalg.exp ins(%a : memref<64xf32, #cuda0>) outs(%o : memref<64xf32, #cuda0>)
  }
  %n = gp.buffer.alloc() : memref<64xf32, #cuda0>
  gp.kernel "neg" ins(%e : memref<64xf32, #cuda0>) outs(%n : memref<64xf32, #cuda0>) {
  ^bb0(%a: memref<64xf32, #cuda0>, %o: memref<64xf32, #cuda0>):
    linalg.negf ins(%a : memref<64xf32, #cuda0>) outs(%o : memref<64xf32, #cuda0>)
  }
  %s = gp.buffer.alloc() : memref<64xf32, #cuda0>
  gp.kernel "add" ins(%n, %y : memref<64xf32, #cuda0>, memref<64xf32, #cuda0>) outs(%s : memref<64xf32, #cuda0>) {
  ^bb0(%a: memref<64xf32, #cuda0>, %b: memref<64xf32, #cuda0>, %o: memref<64xf32, #cuda0>):
    linalg.add ins(%a, %b : memref<64xf32, #cuda0>, memref<64xf32, #cuda0>) outs(%o : memref<64xf32, #cuda0>)
  }
  return %s : memref<64xf32, #cuda0>
}
