// RUN: gp-opt %s --gp-read-only-arguments --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --gp-write-back-parameters | FileCheck %s --check-prefix=BUFFERIZED
// RUN: gp-opt %s --gp-read-only-arguments --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --gp-write-back-parameters --gp-pipeline=target=host | FileCheck %s

// A program's run-time index checks (what graphpart.convert emits for an
// embedding): a reduction over the indices folds the number of a failed
// check into the flag graphpart.index_errors, a mutable parameter written
// in place (no result), and the manifest lists each check's description as
// `check <n> <text>` after the entry's values, for the runtime to name the
// op when the flag holds n.

// BUFFERIZED-LABEL: func.func @embed
// BUFFERIZED-SAME: %[[FLAG:[a-z0-9_]+]]: memref<1xi64> {gp.mutable, gp.parameter = "graphpart.index_errors"}) -> memref<4x8xf32>
// BUFFERIZED-SAME: gp.index_checks = ["aten::embedding (node 'embedding', model.py:3): an index outside [0, 16)"]
// BUFFERIZED: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.+}} : memref<4xi64>) outs(%[[FLAG]] : memref<1xi64>)
// BUFFERIZED: return %{{.+}} : memref<4x8xf32>
// CHECK: @gp_manifest({{.*}}\0Aentry embed 3 1\0Aarg memref i64 1 4 cuda:0\0Aarg memref f32 2 16 8 cuda:0 parameter wte.weight\0Aarg memref i64 1 1 cuda:0 parameter graphpart.index_errors\0Aresult memref f32 2 4 8 cuda:0\0Acheck 1 aten::embedding (node 'embedding', model.py:3): an index outside [0, 16)\0A\00")
func.func @embed(%ids: tensor<4xi64>,
                 %table: tensor<16x8xf32> {gp.parameter = "wte.weight"},
                 %flag: tensor<1xi64> {gp.mutable, gp.parameter = "graphpart.index_errors"})
    -> (tensor<4x8xf32>, tensor<1xi64> {gp.writes_parameter = "graphpart.index_errors"})
    attributes {gp.index_checks = ["aten::embedding (node 'embedding', model.py:3): an index outside [0, 16)"]} {
  %checked = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (0)>], iterator_types = ["reduction"]}
      ins(%ids : tensor<4xi64>) outs(%flag : tensor<1xi64>) {
  ^bb0(%id: i64, %o: i64):
    %lo = arith.constant 0 : i64
    %hi = arith.constant 16 : i64
    %below = arith.cmpi slt, %id, %lo : i64
    %above = arith.cmpi sge, %id, %hi : i64
    %bad = arith.ori %below, %above : i1
    %code = arith.constant 1 : i64
    %zero = arith.constant 0 : i64
    %failed = arith.select %bad, %code, %zero : i64
    %r = arith.maxsi %o, %failed : i64
    linalg.yield %r : i64
  } -> tensor<1xi64>
  %empty = tensor.empty() : tensor<4x8xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %raw = arith.index_cast %id : i64 to index
    %zero = arith.constant 0 : index
    %last = arith.constant 15 : index
    %low = arith.maxsi %raw, %zero : index
    %row = arith.minsi %low, %last : index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<16x8xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %rows, %checked : tensor<4x8xf32>, tensor<1xi64>
}
