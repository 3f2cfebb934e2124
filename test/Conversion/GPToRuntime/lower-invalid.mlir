// RUN: gp-opt %s --convert-gp-to-runtime --split-input-file -verify-diagnostics

// Lowering expects a partitioned program (gp-pipeline first).
#cuda0 = #gp.device<cuda:0>
func.func @unpartitioned(%x: memref<4xf32, #cuda0>) -> memref<4xf32, #cuda0> {
  // expected-error @+1 {{cannot lower 'gp.buffer.alloc' outside a partition (run gp-pipeline first)}}
  %y = gp.buffer.alloc() : memref<4xf32, #cuda0>
  return %y : memref<4xf32, #cuda0>
}

// -----

// Entry points take buffers and index values only.
// expected-error @+1 {{argument 0 has type 'f32'; entry points take buffers and index values}}
func.func @scalar_argument(%x: f32) {
  return
}

// -----

// RUN: not gp-opt %s --split-input-file --convert-gp-to-runtime=target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: convert-gp-to-runtime: target must be host or cuda, not 'tpu'
func.func @f() {
  return
}

// -----

// A program runs on one GPU.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
// expected-error @+1 {{the program uses cuda:0 and cuda:1; a program runs on one GPU}}
func.func @two_gpus(%x: memref<4xf32, #cuda0>, %y: memref<4xf32, #cuda1>) {
  return
}

// -----

// Option values the option types do not bound are checked by the pass
// (capture sizes are refused when the option is read:
// capture-sizes-option.mlir).
// RUN: not gp-opt %s --split-input-file --convert-gp-to-runtime="warmup-runs=4294967296" 2>&1 | FileCheck %s --check-prefix=WARMUP
// WARMUP: error: convert-gp-to-runtime: warmup-runs and shape-warning-limit must be non-negative 32-bit integers
func.func @g() {
  return
}
