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

// RUN: not gp-opt %s --split-input-file --convert-gp-to-runtime="capture-sizes=1,2x3" 2>&1 | FileCheck %s --check-prefix=SIZES
// SIZES: convert-gp-to-runtime: capture-sizes '1,2x3' is not a list of sizes or size tuples of one length (1,2,4 or 2x3,4x5)
func.func @g() {
  return
}
