// RUN: gp-opt %s --split-input-file --gp-read-only-arguments --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --gp-write-back-parameters | FileCheck %s
// RUN: gp-opt %s --split-input-file --gp-read-only-arguments --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --gp-write-back-parameters --gp-import | FileCheck %s --check-prefix=IMPORT

// A mutable parameter (a key/value cache) is state the program updates:
// its new value, a result marked gp.writes_parameter, becomes a write of
// the parameter's own buffer and the result goes. gp-read-only-arguments
// leaves it writable, so bufferization writes the cache in place and no
// copy is needed.

// CHECK-LABEL: func.func @in_place
// CHECK-SAME: (%[[X:.+]]: memref<4xf32>, %[[POS:.+]]: memref<1xi64>, %[[K:[a-z0-9_]+]]: memref<8x4xf32> {gp.mutable, gp.parameter = "k_cache"}) -> memref<4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[POS]], %[[X]] : memref<1xi64>, memref<4xf32>) outs(%[[K]] : memref<8x4xf32>)
// CHECK-NOT: memref.copy
// CHECK: return %{{.+}} : memref<4xf32>
// IMPORT-LABEL: func.func @in_place
// IMPORT-SAME: %[[K:[a-z0-9_]+]]: memref<8x4xf32, #cuda0> {gp.mutable, gp.parameter = "k_cache"}) -> memref<4xf32, #cuda0>
// IMPORT: gp.kernel "generic_{{[0-9]+}}" ins({{.*}}) outs(%[[K]] :
// IMPORT-NOT: gp.copy
// IMPORT: return %{{.+}} : memref<4xf32, #cuda0>
func.func @in_place(%x: tensor<4xf32>, %pos: tensor<1xi64>,
                    %k: tensor<8x4xf32> {gp.mutable, gp.parameter = "k_cache"})
    -> (tensor<4xf32>, tensor<8x4xf32> {gp.writes_parameter = "k_cache"}) {
  %written = linalg.generic {indexing_maps = [affine_map<(i, j) -> (0)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%pos, %x : tensor<1xi64>, tensor<4xf32>) outs(%k : tensor<8x4xf32>) {
  ^bb0(%p: i64, %v: f32, %o: f32):
    %row = linalg.index 0 : index
    %at = arith.index_cast %p : i64 to index
    %hit = arith.cmpi eq, %row, %at : index
    %r = arith.select %hit, %v, %o : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %empty = tensor.empty() : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%written : tensor<8x4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %sum, %written : tensor<4xf32>, tensor<8x4xf32>
}

// -----

// The old value is read after the new one is made, so bufferization
// writes the new value to a buffer of its own: a copy into the parameter
// precedes the return. Two results, the parameter's in the middle: the
// others keep their order.

// CHECK-LABEL: func.func @copied
// CHECK-SAME: %[[K:[a-z0-9_]+]]: memref<4xf32> {gp.mutable, gp.parameter = "state"}) -> (memref<4xf32>, memref<4xf32>)
// CHECK: %[[NEW:.+]] = memref.alloc
// CHECK: memref.copy %[[NEW]], %[[K]]
// CHECK-NEXT: return %{{.+}}, %{{.+}} : memref<4xf32>, memref<4xf32>
// IMPORT-LABEL: func.func @copied
// IMPORT-SAME: %[[K:[a-z0-9_]+]]: memref<4xf32, #cuda0> {gp.mutable, gp.parameter = "state"})
// IMPORT: gp.copy %{{.+}}, %[[K]]
func.func @copied(%x: tensor<4xf32>,
                  %k: tensor<4xf32> {gp.mutable, gp.parameter = "state"})
    -> (tensor<4xf32>, tensor<4xf32> {gp.writes_parameter = "state"}, tensor<4xf32>) {
  %new = linalg.add ins(%x, %k : tensor<4xf32>, tensor<4xf32>) outs(%k : tensor<4xf32>) -> tensor<4xf32>
  %empty = tensor.empty() : tensor<4xf32>
  %old = linalg.mul ins(%k, %new : tensor<4xf32>, tensor<4xf32>) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  return %old, %new, %x : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A read-only parameter beside a mutable one is still not written: the
// op that names it as destination gets a buffer of its own.

// CHECK-LABEL: func.func @read_only_beside
// CHECK-SAME: %[[W:[a-z0-9_]+]]: memref<4xf32> {gp.parameter = "w"}, %[[S:[a-z0-9_]+]]: memref<4xf32> {gp.mutable, gp.parameter = "s"}) -> memref<4xf32>
// CHECK: %[[NEW:.+]] = memref.alloc
// CHECK: linalg.add ins(%[[W]], %[[W]] : {{.*}}) outs(%[[NEW]] :
// CHECK: linalg.generic {{.*}} outs(%[[S]] :
// CHECK: return %[[NEW]]
func.func @read_only_beside(%w: tensor<4xf32> {gp.parameter = "w"},
                            %s: tensor<4xf32> {gp.mutable, gp.parameter = "s"})
    -> (tensor<4xf32>, tensor<4xf32> {gp.writes_parameter = "s"}) {
  %doubled = linalg.add ins(%w, %w : tensor<4xf32>, tensor<4xf32>) outs(%w : tensor<4xf32>) -> tensor<4xf32>
  %counted = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]} outs(%s : tensor<4xf32>) {
  ^bb0(%o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.addf %o, %one : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %doubled, %counted : tensor<4xf32>, tensor<4xf32>
}
