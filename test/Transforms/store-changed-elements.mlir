// RUN: gp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(convert-linalg-to-loops,gp-store-changed-elements))" | FileCheck %s

// Host loops: a cache written at a position read from memory stores only
// the matching row and loads none of the cache.
// CHECK-LABEL: func.func @cache_update
// CHECK-SAME: (%[[POS:[^:]+]]: memref<1xi64>, %[[SRC:[^:]+]]: memref<1x4xf32>, %[[CACHE:[^:]+]]: memref<8x4xf32>)
// CHECK-NOT: memref.load %[[CACHE]]
// CHECK: scf.for %[[I:.+]] =
// CHECK: scf.for %[[J:.+]] =
// CHECK: %[[HIT:.+]] = arith.cmpi eq
// CHECK-NEXT: scf.if %[[HIT]] {
// CHECK-NEXT: memref.store %{{.+}}, %[[CACHE]][%[[I]], %[[J]]]
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
