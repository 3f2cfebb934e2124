// RUN: gp-opt %s -split-input-file --gp-check-bounds | FileCheck %s

// gp-check-bounds (gp-pipeline checked=true): kernel loads and stores run
// only in bounds; out of bounds they are skipped (a load gives zero) and
// the kernel's number goes to a flag slot, zeroed at each call, that the
// partition takes as an input it writes.

#cuda0 = #gp.device<cuda:0>

// CHECK-LABEL: func.func @guarded
// CHECK-SAME: attributes {gp.bounds_kernels = "gather\0Ascatter\0A"}
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK: %[[FLAG:.+]] = gp.scalar.slot %[[ZERO]] : i64 -> memref<i64, #cuda0>
// CHECK: gp.partition 0 capturable ins(%{{.+}}, %{{.+}}, %{{.+}}, %[[FLAG]] : memref<8xf32, #cuda0>, memref<4xf32, #cuda0>, index, memref<i64, #cuda0>) writes [1, 3]
// CHECK: gp.kernel "gather" ins(%{{.+}}, %{{.+}} : memref<8xf32, #cuda0>, index) outs(%{{.+}}, %[[FIN:.+]] : memref<4xf32, #cuda0>, memref<i64, #cuda0>)
// CHECK: ^bb0(%[[X:.+]]: memref<8xf32, #cuda0>, %[[I:.+]]: index, %[[O:.+]]: memref<4xf32, #cuda0>, %[[KFLAG:.+]]: memref<i64, #cuda0>):
// CHECK: %[[DIM:.+]] = memref.dim %[[X]], %{{.+}} : memref<8xf32, #cuda0>
// CHECK: %[[LOW:.+]] = arith.cmpi sge, %[[I]], %{{.+}} : index
// CHECK: %[[HIGH:.+]] = arith.cmpi slt, %[[I]], %[[DIM]] : index
// CHECK: %[[OK:.+]] = arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK: %[[V:.+]] = scf.if %[[OK]] -> (f32) {
// CHECK-NEXT: %[[L:.+]] = memref.load %[[X]][%[[I]]]
// CHECK-NEXT: scf.yield %[[L]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : i64
// CHECK-NEXT: memref.store %[[C1]], %[[KFLAG]][]
// CHECK: scf.yield %{{.+}} : f32
// CHECK: gp.kernel "scatter"
// CHECK: scf.if %{{.+}} {
// CHECK-NEXT: memref.store
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : i64
// CHECK: } -> (memref<4xf32, #cuda0>) {gp.bounds_flag = 3 : i64}
func.func @guarded(%x: memref<8xf32, #cuda0>, %o: memref<4xf32, #cuda0>, %i: index) -> memref<4xf32, #cuda0> {
  %p = gp.partition 0 capturable ins(%x, %o, %i : memref<8xf32, #cuda0>, memref<4xf32, #cuda0>, index) writes [1] {
  ^bb0(%xin: memref<8xf32, #cuda0>, %oin: memref<4xf32, #cuda0>, %iin: index):
    gp.kernel "gather" ins(%xin, %iin : memref<8xf32, #cuda0>, index) outs(%oin : memref<4xf32, #cuda0>) {
    ^bb0(%a: memref<8xf32, #cuda0>, %k: index, %b: memref<4xf32, #cuda0>):
      %v = memref.load %a[%k] : memref<8xf32, #cuda0>
      %c0 = arith.constant 0 : index
      memref.store %v, %b[%c0] : memref<4xf32, #cuda0>
    }
    gp.kernel "scatter" ins(%iin : index) outs(%oin : memref<4xf32, #cuda0>) {
    ^bb0(%k: index, %b: memref<4xf32, #cuda0>):
      %one = arith.constant 1.0 : f32
      memref.store %one, %b[%k] : memref<4xf32, #cuda0>
    }
    gp.yield %oin : memref<4xf32, #cuda0>
  } -> (memref<4xf32, #cuda0>)
  return %p : memref<4xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

// Structured ops (linalg) stay in bounds by construction: nothing to guard,
// no flag.
// CHECK-LABEL: func.func @structured
// CHECK-NOT: gp.scalar.slot
// CHECK-NOT: gp.bounds_flag
func.func @structured(%x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cuda0>) {
  gp.partition 0 capturable ins(%x, %y : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) writes [1] {
  ^bb0(%a: memref<8xf32, #cuda0>, %b: memref<8xf32, #cuda0>):
    gp.kernel "copy" ins(%a : memref<8xf32, #cuda0>) outs(%b : memref<8xf32, #cuda0>) {
    ^bb0(%i: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
      linalg.copy ins(%i : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
    }
    gp.yield
  }
  return
}
