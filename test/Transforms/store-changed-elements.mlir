// RUN: gp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-linalg-to-loops,gp-store-changed-elements))" | FileCheck %s

// Host loops: a cache written at a position read from memory stores only
// the matching row and loads none of the cache; then, every store being
// guarded by row == position, the row loop goes: the position is loaded
// once before the column loop, checked against the rows' range, and the
// column loop writes that row (its guard now always true).
// CHECK-LABEL: func.func @cache_update
// CHECK-SAME: (%[[POS:[^:]+]]: memref<1xi64>, %[[SRC:[^:]+]]: memref<1x4xf32>, %[[CACHE:[^:]+]]: memref<8x4xf32>)
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-NOT: memref.load %[[CACHE]]
// CHECK: %[[AT:.+]] = memref.load %[[POS]][%[[C0]]]
// CHECK-NEXT: %[[ROW:.+]] = arith.index_cast %[[AT]] : i64 to index
// CHECK-NEXT: %[[LOW:.+]] = arith.cmpi sge, %[[ROW]], %[[C0]]
// CHECK-NEXT: %[[HIGH:.+]] = arith.cmpi slt, %[[ROW]], %[[C8]]
// CHECK-NEXT: %[[IN:.+]] = arith.andi %[[LOW]], %[[HIGH]]
// CHECK-NEXT: %[[TRUE:.+]] = arith.constant true
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: scf.for %[[J:.+]] =
// CHECK-NOT: scf.for
// CHECK: scf.if %[[TRUE]] {
// CHECK-NEXT: memref.store %{{.+}}, %[[CACHE]][%[[ROW]], %[[J]]]
// CHECK-NOT: memref.load %[[CACHE]]
// CHECK: return
#rows = affine_map<(d0, d1) -> (d0, d1)>
#pos = affine_map<(d0, d1) -> (0)>
#src = affine_map<(d0, d1) -> (0, d1)>
func.func @cache_update(%pos: memref<1xi64>, %src: memref<1x4xf32>, %cache: memref<8x4xf32>) {
  linalg.generic {indexing_maps = [#pos, #src, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%pos, %src : memref<1xi64>, memref<1x4xf32>) outs(%cache : memref<8x4xf32>) {
  ^bb0(%at: i64, %v: f32, %o: f32):
    %row = linalg.index 0 : index
    %at_index = arith.index_cast %at : i64 to index
    %hit = arith.cmpi eq, %row, %at_index : index
    %r = arith.select %hit, %v, %o : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The old value also feeds the new one (an accumulation under a mask): the
// store moves under the condition, the load stays.
// CHECK-LABEL: func.func @masked_add
// CHECK-SAME: %[[OUT:[^:]+]]: memref<16xf32>)
// CHECK: %[[OLD:.+]] = memref.load %[[OUT]][
// CHECK: %[[SUM:.+]] = arith.addf %{{.+}}, %[[OLD]]
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[SUM]], %[[OUT]]
#id = affine_map<(d0) -> (d0)>
func.func @masked_add(%mask: memref<16xi1>, %x: memref<16xf32>, %y: memref<16xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%mask, %x : memref<16xi1>, memref<16xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%m: i1, %a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    %r = arith.select %m, %s, %o : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A write between the load and the store (another output of the same
// loop): left as it is.
// CHECK-LABEL: func.func @two_outputs
// CHECK: %[[PICK:.+]] = arith.select
// CHECK: memref.store %[[PICK]]
// CHECK-NOT: scf.if
// CHECK: return
#id = affine_map<(d0) -> (d0)>
func.func @two_outputs(%mask: memref<16xi1>, %x: memref<16xf32>, %y: memref<16xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%mask : memref<16xi1>) outs(%x, %y : memref<16xf32>, memref<16xf32>) {
  ^bb0(%m: i1, %o0: f32, %o1: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.select %m, %one, %o1 : f32
    linalg.yield %one, %r : f32, f32
  }
  return
}

// -----

// Two caches, each its own loop nest: each loses its row loop (the first
// reads the position through two inputs, one of them unused).
// CHECK-LABEL: func.func @two_caches
// CHECK-SAME: (%[[POS:[^:]+]]: memref<1xi64>, %[[SRC:[^:]+]]: memref<1x4xf32>, %[[K:[^:]+]]: memref<8x4xf32>, %[[V:[^:]+]]: memref<8x4xf32>)
// CHECK: %[[ROW:.+]] = arith.index_cast
// CHECK: scf.if
// CHECK-NEXT: scf.for %[[J:[^ ]+]] =
// CHECK-NOT: scf.for
// CHECK: memref.store %{{.+}}, %[[K]][%[[ROW]], %[[J]]]
// CHECK: %[[ROW2:.+]] = arith.index_cast
// CHECK: scf.if
// CHECK-NEXT: scf.for %[[J2:[^ ]+]] =
// CHECK-NOT: scf.for
// CHECK: memref.store %{{.+}}, %[[V]][%[[ROW2]], %[[J2]]]
// CHECK: return
#rows = affine_map<(d0, d1) -> (d0, d1)>
#pos = affine_map<(d0, d1) -> (0)>
#src = affine_map<(d0, d1) -> (0, d1)>
func.func @two_caches(%pos: memref<1xi64>, %src: memref<1x4xf32>, %k: memref<8x4xf32>, %v: memref<8x4xf32>) {
  linalg.generic {indexing_maps = [#pos, #src, #pos, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%pos, %src, %pos : memref<1xi64>, memref<1x4xf32>, memref<1xi64>) outs(%k : memref<8x4xf32>) {
  ^bb0(%at: i64, %x: f32, %at2: i64, %o: f32):
    %row = linalg.index 0 : index
    %at_index = arith.index_cast %at : i64 to index
    %hit = arith.cmpi eq, %row, %at_index : index
    %r = arith.select %hit, %x, %o : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#pos, #src, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%pos, %src : memref<1xi64>, memref<1x4xf32>) outs(%v : memref<8x4xf32>) {
  ^bb0(%at: i64, %x: f32, %o: f32):
    %row = linalg.index 0 : index
    %at_index = arith.index_cast %at : i64 to index
    %hit = arith.cmpi eq, %row, %at_index : index
    %neg = arith.negf %x : f32
    %r = arith.select %hit, %neg, %o : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Left as loops: a guard on the diagonal (the compared value varies with
// the other loop), and a store that is not guarded.
// CHECK-LABEL: func.func @not_narrowed
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK: return
#rows = affine_map<(d0, d1) -> (d0, d1)>
#pos = affine_map<(d0, d1) -> (0)>
#src = affine_map<(d0, d1) -> (0, d1)>
func.func @not_narrowed(%pos: memref<1xi64>, %src: memref<1x8xf32>, %a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [#src, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%src : memref<1x8xf32>) outs(%a : memref<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %hit = arith.cmpi eq, %i, %j : index
    %r = arith.select %hit, %x, %o : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#pos, #src, #rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%pos, %src : memref<1xi64>, memref<1x8xf32>) outs(%b, %c : memref<8x8xf32>, memref<8x8xf32>) {
  ^bb0(%at: i64, %x: f32, %o: f32, %o2: f32):
    %row = linalg.index 0 : index
    %at_index = arith.index_cast %at : i64 to index
    %hit = arith.cmpi eq, %row, %at_index : index
    %r = arith.select %hit, %x, %o : f32
    linalg.yield %r, %x : f32, f32
  }
  return
}

// -----

// A row loop with a step: the position must be one of its rows.
// CHECK-LABEL: func.func @stepped
// CHECK: %[[ROW:.+]] = arith.index_cast
// CHECK: %[[OFFSET:.+]] = arith.subi %[[ROW]], %{{.+}}
// CHECK-NEXT: %[[REM:.+]] = arith.remsi %[[OFFSET]], %{{.+}}
// CHECK: arith.cmpi eq, %[[REM]]
// CHECK: scf.if
// CHECK-NOT: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c2
// CHECK: return
func.func @stepped(%pos: memref<1xi64>, %cache: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c1 to %c8 step %c2 {
    %at = memref.load %pos[%c0] : memref<1xi64>
    %row = arith.index_cast %at : i64 to index
    %hit = arith.cmpi eq, %i, %row : index
    scf.if %hit {
      memref.store %one, %cache[%i] : memref<8xf32>
    }
  }
  return
}
