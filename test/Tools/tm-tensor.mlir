// gp-compile parses its input itself (gp-codegen): a tm_tensor op of
// torch-mlir's linalg-on-tensors output is refused there by name, at the
// op, as in gp-opt (test/Conversion/UpstreamToGP/import-invalid.mlir), and
// not with MLIR's list of every registered dialect; with --bufferize too.

// RUN: not gp-compile %s --target host -o %t.so 2>&1 | FileCheck %s
// RUN: not gp-compile %s --bufferize --target host -o %t.so 2>&1 | FileCheck %s

// CHECK: tm-tensor.mlir:[[# @LINE + 6]]:8: error: custom op 'tm_tensor.scatter' is an op of torch-mlir's TMTensor dialect, which GraphPart does not support: lower it to linalg, or to scf loops on buffers, first (torch-mlir's tm-tensor-to-loops pass does the latter)
// CHECK-NOT: Available dialects
// CHECK-NOT: Stack dump
func.func @index_put(%x: tensor<8xf32>, %indices: tensor<3x1xi32>, %updates: tensor<3xf32>) -> tensor<8xf32> {
  %empty = tensor.empty() : tensor<8xf32>
  %copy = linalg.copy ins(%x : tensor<8xf32>) outs(%empty : tensor<8xf32>) -> tensor<8xf32>
  %r = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(true) ins(%updates, %indices : tensor<3xf32>, tensor<3x1xi32>) outs(%copy : tensor<8xf32>) {
  ^bb0(%update: f32, %old: f32):
    tm_tensor.yield %update : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
