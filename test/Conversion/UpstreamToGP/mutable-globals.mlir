// RUN: gp-opt %s --split-input-file --gp-mutable-globals-to-parameters | FileCheck %s
// RUN: gp-opt %s --split-input-file --gp-mutable-globals-to-parameters --gp-read-only-arguments --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --gp-write-back-parameters --gp-pipeline=target=host | FileCheck %s --check-prefix=MANIFEST

// A mutable global (torch-mlir's RNG seed) becomes a mutable parameter:
// each load the state's value at that point, each store its new value, the
// final value a result gp.writes_parameter names; its initial value goes
// to gp.initial_values, which the manifest carries as `initial <name> <hex>`
// (little-endian bytes). Constant globals are left alone.

// CHECK: module attributes {gp.initial_values = {seed = dense<7> : tensor<i64>}}
// CHECK-NOT: ml_program.global private mutable
// CHECK: ml_program.global private @table
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[X:.+]]: tensor<2xi64>, %[[SEED:.+]]: tensor<i64> {gp.mutable, gp.parameter = "seed"}) -> (tensor<i64>, tensor<i64>, tensor<i64> {gp.writes_parameter = "seed"})
// CHECK: %[[NEXT:.+]] = linalg.generic {{.*}} ins(%[[SEED]] :
// CHECK: return %[[SEED]], %[[NEXT]], %[[NEXT]] : tensor<i64>, tensor<i64>, tensor<i64>
// MANIFEST: initial seed 0700000000000000\0A
module {
  ml_program.global private mutable @seed(dense<7> : tensor<i64>) : tensor<i64>
  ml_program.global private @table(dense<[1, 2]> : tensor<2xi64>) : tensor<2xi64>
  func.func @step(%x: tensor<2xi64>) -> (tensor<i64>, tensor<i64>) {
    %before = ml_program.global_load @seed : tensor<i64>
    %e = tensor.empty() : tensor<i64>
    %next = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
        ins(%before : tensor<i64>) outs(%e : tensor<i64>) {
    ^bb0(%in: i64, %out: i64):
      %c = arith.constant 3 : i64
      %n = arith.addi %in, %c : i64
      linalg.yield %n : i64
    } -> tensor<i64>
    ml_program.global_store @seed = %next : tensor<i64>
    %after = ml_program.global_load @seed : tensor<i64>
    return %before, %after : tensor<i64>, tensor<i64>
  }
}

// -----

// Only read: an argument, no result.
// CHECK-LABEL: func.func @peek
// CHECK-SAME: (%[[S:.+]]: tensor<3xf32> {gp.mutable, gp.parameter = "state"}) -> tensor<3xf32>
// CHECK: return %[[S]]
module {
  ml_program.global private mutable @state(dense<1.5> : tensor<3xf32>) : tensor<3xf32>
  func.func @peek() -> tensor<3xf32> {
    %s = ml_program.global_load @state : tensor<3xf32>
    return %s : tensor<3xf32>
  }
}
