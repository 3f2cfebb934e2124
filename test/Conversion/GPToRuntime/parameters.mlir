// RUN: gp-opt %s --split-input-file --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s --check-prefix=BUFFERIZED
// RUN: gp-opt %s --split-input-file --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --gp-pipeline=target=host | FileCheck %s
// RUN: gp-opt %s --split-input-file --one-shot-bufferize="bufferize-function-boundaries" --gp-pipeline=target=host | FileCheck %s --check-prefix=STRIDED

// Parameters (gp.parameter arguments) of a linalg-on-tensors program keep
// their names through upstream bufferization, gp-import, partitioning and
// memory planning, and the manifest's arg lines name them, in argument
// order, last on the line: `arg <type> parameter <name>`.

// BUFFERIZED-LABEL: func.func @forward
// BUFFERIZED-SAME: (%[[X:.+]]: memref<4x8xf32>, %[[W:.+]]: memref<8x16xf32> {gp.parameter = "fc.weight"}, %[[B:.+]]: memref<16xf32> {gp.parameter = "fc.bias"}) -> memref<4x16xf32>
// BUFFERIZED: linalg.matmul ins(%[[X]], %[[W]] :
// CHECK: @gp_manifest({{.*}}\0Aentry forward 3 1\0Aarg memref f32 2 4 8 cuda:0\0Aarg memref f32 2 8 16 cuda:0 parameter fc.weight\0Aarg memref f32 1 16 cuda:0 parameter fc.bias\0Aresult memref f32 2 4 16 cuda:0\0A\00")
// CHECK-LABEL: llvm.func @gp_entry_forward
// Upstream's default boundary layouts: the strided mark comes before the
// parameter's name.
// STRIDED: @gp_manifest({{.*}}\0Aentry forward 3 1\0Aarg memref f32 2 4 8 cuda:0 strided\0Aarg memref f32 2 8 16 cuda:0 strided parameter fc.weight\0Aarg memref f32 1 16 cuda:0 strided parameter fc.bias\0Aresult memref f32 2 4 16 cuda:0
func.func @forward(%x: tensor<4x8xf32>,
                   %w: tensor<8x16xf32> {gp.parameter = "fc.weight"},
                   %b: tensor<16xf32> {gp.parameter = "fc.bias"}) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<4x16xf32>, tensor<16xf32>) outs(%empty : tensor<4x16xf32>) {
  ^bb0(%m: f32, %c: f32, %o: f32):
    %s = arith.addf %m, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %out : tensor<4x16xf32>
}

// -----

// Parameters anywhere among the arguments (here between a dynamic input and
// a size), dynamic dimensions included; an argument without the attribute
// is an ordinary input.
// BUFFERIZED-LABEL: func.func @embed
// BUFFERIZED-SAME: (%{{.+}}: memref<?x4xf32>, %{{.+}}: memref<?x4xf32> {gp.parameter = "wte.weight"}, %{{.+}}: memref<4xf32>, %{{.+}}: index)
// CHECK: @gp_manifest({{.*}}\0Aentry embed 4 1\0Aarg memref f32 2 ? 4 cuda:0\0Aarg memref f32 2 ? 4 cuda:0 parameter wte.weight\0Aarg memref f32 1 4 cuda:0\0Aarg index\0Aresult memref f32 2 ? 4 cuda:0\0Asize arg0_dim0 ? a0.0,a1.0,r0.0 nopad argument 1 is the parameter 'wte.weight', bound once at its own size\0A\00")
func.func @embed(%x: tensor<?x4xf32>, %table: tensor<?x4xf32> {gp.parameter = "wte.weight"},
                 %scale: tensor<4xf32>, %n: index) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %x, %c0 : tensor<?x4xf32>
  %empty = tensor.empty(%rows) : tensor<?x4xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x, %table, %scale : tensor<?x4xf32>, tensor<?x4xf32>, tensor<4xf32>) outs(%empty : tensor<?x4xf32>) {
  ^bb0(%a: f32, %t: f32, %s: f32, %o: f32):
    %p = arith.mulf %t, %s : f32
    %r = arith.addf %a, %p : f32
    linalg.yield %r : f32
  } -> tensor<?x4xf32>
  return %out : tensor<?x4xf32>
}
