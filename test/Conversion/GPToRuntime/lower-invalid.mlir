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

// Capture sizes are checked as the runtime reads them (CaptureSizes.h): the
// error names the entry, and the module is not printed after it.
// RUN: not gp-opt %s --split-input-file --convert-gp-to-runtime="capture-sizes=1,2x3" 2>&1 | FileCheck %s --check-prefix=SIZES
// SIZES: error: convert-gp-to-runtime: capture-sizes '1,2x3': '2x3' has 2 sizes but the entries before it have 1: every entry must have the same number (1,2,4 or 2x3,4x5 or default)
// SIZES-NOT: see current operation
// RUN: not gp-opt %s --split-input-file --convert-gp-to-runtime="capture-sizes=4,-2" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: convert-gp-to-runtime: capture-sizes '4,-2': '-2' is not a size or a size tuple like 2x3 (sizes are non-negative decimal integers below 10^18)
// RUN: not gp-opt %s --split-input-file --convert-gp-to-runtime="capture-sizes=2x3,default" 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: error: convert-gp-to-runtime: capture-sizes '2x3,default': 'default' has 1 size but the entries before it have 2
// RUN: not gp-opt %s --split-input-file --convert-gp-to-runtime="capture-sizes=1,,2" 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: convert-gp-to-runtime: capture-sizes '1,,2': '' is not a size
// RUN: not gp-opt %s --split-input-file --convert-gp-to-runtime="warmup-runs=4294967296" 2>&1 | FileCheck %s --check-prefix=WARMUP
// WARMUP: error: convert-gp-to-runtime: warmup-runs and shape-warning-limit must be non-negative 32-bit integers
func.func @g() {
  return
}
