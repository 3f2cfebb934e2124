// A value used before the op that defines it, inside a region whose parse
// then fails (a repeated block label): MLIR 22's parser writes to the freed
// op while it cleans up. gp-opt (linked with tcmalloc) used to die with
// SIGSEGV after printing the error; it now exits 1 with the error alone,
// also for later inputs of a --split-input-file run, and gp-compile reports
// it the same way. `not` fails on a crash.

// RUN: not gp-opt %s --split-input-file 2>%t.err | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s < %t.err
// RUN: not gp-opt %s --split-input-file --gp-pipeline 2>&1 >/dev/null | FileCheck %s
// RUN: not gp-compile %s --target host -o %t.so 2>&1 | FileCheck %s --check-prefix=COMPILE

// CHECK-NOT: Stack dump
// CHECK: parse-error-cleanup.mlir:[[# @LINE + 9]]:3: error: redefinition of block '^bb0'
// COMPILE: parse-error-cleanup.mlir:[[# @LINE + 8]]:3: error: redefinition of block '^bb0'
// COMPILE-NOT: Stack dump
func.func @forward_use(%a: memref<4xf32>, %b: memref<4xf32>) -> f32 {
  %u = arith.negf %r : f32
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  ^bb0(%x2: f32, %y2: f32):
    linalg.yield %x2 : f32
  }
  return %u : f32
}

// -----

// An input that parses runs normally between the two failures.
// OUT-LABEL: func.func @parses
func.func @parses(%a: f32) -> f32 {
  return %a : f32
}

// -----

// CHECK: parse-error-cleanup.mlir:[[# @LINE + 8]]:3: error: redefinition of block '^bb1'
// CHECK-NOT: Stack dump
func.func @forward_use_again(%a: memref<4xf32>, %b: memref<4xf32>) -> f32 {
  %u = arith.negf %s : f32
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb1(%x: f32, %y: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  ^bb1(%x2: f32, %y2: f32):
    linalg.yield %x2 : f32
  }
  return %u : f32
}
