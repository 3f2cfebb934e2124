// RUN: gp-opt %s --split-input-file --gp-write-back-parameters -verify-diagnostics

// gp-write-back-parameters runs after bufferization, on entry functions.

// expected-error @+1 {{gp-write-back-parameters: result 0 (parameter "k") is a 'tensor<4xf32>'; run it after bufferization (gp-compile --bufferize does)}}
func.func @tensors(%k: tensor<4xf32> {gp.mutable, gp.parameter = "k"})
    -> (tensor<4xf32> {gp.writes_parameter = "k"}) {
  return %k : tensor<4xf32>
}

// -----

// expected-error @+1 {{gp-write-back-parameters: @step writes parameters in place and is called from the program; only entry functions may}}
func.func @step(%k: memref<4xf32> {gp.mutable, gp.parameter = "k"})
    -> (memref<4xf32> {gp.writes_parameter = "k"}) {
  return %k : memref<4xf32>
}
func.func @caller(%k: memref<4xf32> {gp.parameter = "k"}) {
  %r = func.call @step(%k) : (memref<4xf32>) -> memref<4xf32>
  return
}
