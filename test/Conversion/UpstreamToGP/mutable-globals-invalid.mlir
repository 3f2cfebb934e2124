// RUN: gp-opt %s --split-input-file --gp-mutable-globals-to-parameters -verify-diagnostics

// What gp-mutable-globals-to-parameters cannot make a parameter.

// expected-error @+1 {{gp-mutable-globals-to-parameters: mutable global @dynamic must be a static tensor with an initial value}}
ml_program.global private mutable @dynamic : tensor<?xf32>

// -----

ml_program.global private mutable @seed(dense<0> : tensor<i64>) : tensor<i64>
func.func @nested(%c: i1) -> tensor<i64> {
  %r = scf.if %c -> tensor<i64> {
    // expected-error @+1 {{gp-mutable-globals-to-parameters: global @seed is used inside a region}}
    %s = ml_program.global_load @seed : tensor<i64>
    scf.yield %s : tensor<i64>
  } else {
    %z = arith.constant dense<0> : tensor<i64>
    scf.yield %z : tensor<i64>
  }
  return %r : tensor<i64>
}

// -----

ml_program.global private mutable @seed(dense<0> : tensor<i64>) : tensor<i64>
// expected-error @+1 {{gp-mutable-globals-to-parameters: @helper uses mutable global @seed and is called from the program; only entry functions may}}
func.func private @helper() -> tensor<i64> {
  %s = ml_program.global_load @seed : tensor<i64>
  return %s : tensor<i64>
}
func.func @entry() -> tensor<i64> {
  %s = func.call @helper() : () -> tensor<i64>
  return %s : tensor<i64>
}

// -----

// The initial values the runtime fills: a dictionary on the module.
// expected-error @+1 {{'gp.initial_values': "bad name" must name a parameter and give elements of a static shape (not i1)}}
module attributes {gp.initial_values = {"bad name" = dense<0> : tensor<i64>}} {
}
