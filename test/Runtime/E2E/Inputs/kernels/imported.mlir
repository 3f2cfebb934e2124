// Bufferized upstream linalg, as torch-mlir or IREE users hand it over
// (memrefs without memory spaces, memref.global constants, an external
// call, scf loops), for gp-import (gp-pipeline runs it first). Functions
// @mlp to @flatten_dynamic are the output of
//
//   mlir-opt-22 test/Conversion/UpstreamToGP/Inputs/upstream_tensors.mlir \
//     --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map"
//
// (imported-upstream.test runs the same functions bufferized with strided
// arguments); the last three are hand-written memref code. Checked against
// numpy by imported.cases.py (imported.test, imported-cuda.test).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
#map3 = affine_map<(d0) -> (d0)>
module {
  memref.global "private" constant @__constant_2x3xf32_0 : memref<2x3xf32> = dense<5.000000e-01> {alignment = 64 : i64}
  memref.global "private" constant @__constant_2x3xf32 : memref<2x3xf32> = dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> {alignment = 64 : i64}
  func.func @mlp(%arg0: memref<4x8xf32>, %arg1: memref<8x16xf32>, %arg2: memref<16xf32>) -> memref<4x16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<4x16xf32>
    linalg.fill ins(%cst : f32) outs(%alloc : memref<4x16xf32>)
    linalg.matmul ins(%arg0, %arg1 : memref<4x8xf32>, memref<8x16xf32>) outs(%alloc : memref<4x16xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc, %arg2 : memref<4x16xf32>, memref<16xf32>) outs(%alloc : memref<4x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %0 = arith.addf %in, %in_0 : f32
      %1 = arith.maximumf %0, %cst : f32
      linalg.yield %1 : f32
    }
    return %alloc : memref<4x16xf32>
  }
  func.func @softmax_rows(%arg0: memref<6x10xf32>) -> memref<6x10xf32> {
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<6xf32>
    linalg.fill ins(%cst : f32) outs(%alloc : memref<6xf32>)
    linalg.reduce ins(%arg0 : memref<6x10xf32>) outs(%alloc : memref<6xf32>) dimensions = [1] 
      (%in: f32, %init: f32) {
        %0 = arith.maximumf %in, %init : f32
        linalg.yield %0 : f32
      }
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<6x10xf32>
    linalg.broadcast ins(%alloc : memref<6xf32>) outs(%alloc_1 : memref<6x10xf32>) dimensions = [1] 
    linalg.map { math.exp } ins(%arg0 : memref<6x10xf32>) outs(%alloc_1 : memref<6x10xf32>)
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<6x10xf32>
    linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %alloc : memref<6x10xf32>, memref<6xf32>) outs(%alloc_2 : memref<6x10xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %0 = arith.subf %in, %in_3 : f32
      %1 = math.exp %0 : f32
      linalg.yield %1 : f32
    }
    linalg.fill ins(%cst_0 : f32) outs(%alloc : memref<6xf32>)
    linalg.reduce ins(%alloc_2 : memref<6x10xf32>) outs(%alloc : memref<6xf32>) dimensions = [1] 
      (%in: f32, %init: f32) {
        %0 = arith.addf %in, %init : f32
        linalg.yield %0 : f32
      }
    linalg.broadcast ins(%alloc : memref<6xf32>) outs(%alloc_1 : memref<6x10xf32>) dimensions = [1] 
    linalg.div ins(%alloc_2, %alloc_1 : memref<6x10xf32>, memref<6x10xf32>) outs(%alloc_1 : memref<6x10xf32>)
    return %alloc_1 : memref<6x10xf32>
  }
  func.func @transpose_add(%arg0: memref<3x5xf32>, %arg1: memref<3xf32>) -> memref<5x3xf32> {
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<5x3xf32>
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<5x3xf32>
    linalg.transpose ins(%arg0 : memref<3x5xf32>) outs(%alloc_0 : memref<5x3xf32>) permutation = [1, 0] 
    linalg.broadcast ins(%arg1 : memref<3xf32>) outs(%alloc : memref<5x3xf32>) dimensions = [0] 
    linalg.add ins(%alloc_0, %alloc : memref<5x3xf32>, memref<5x3xf32>) outs(%alloc : memref<5x3xf32>)
    return %alloc : memref<5x3xf32>
  }
  func.func @dynamic_scale(%arg0: memref<?x4xf32>) -> memref<?x4xf32> {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 2.000000e+00 : f32
    %dim = memref.dim %arg0, %c0 : memref<?x4xf32>
    %alloc = memref.alloc(%dim) {alignment = 64 : i64} : memref<?x4xf32>
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : memref<?x4xf32>) outs(%alloc : memref<?x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.mulf %in, %cst : f32
      linalg.yield %0 : f32
    }
    return %alloc : memref<?x4xf32>
  }
  func.func @slices(%arg0: memref<4x6xf32>) -> (memref<6xf32>, memref<3x4xf32>) {
    %cst = arith.constant 1.000000e+00 : f32
    %subview = memref.subview %arg0[1, 0] [1, 6] [1, 1] : memref<4x6xf32> to memref<6xf32, strided<[1], offset: 6>>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<6xf32>
    linalg.map { arith.addf } ins(%subview, %subview : memref<6xf32, strided<[1], offset: 6>>, memref<6xf32, strided<[1], offset: 6>>) outs(%alloc : memref<6xf32>)
    %subview_0 = memref.subview %arg0[0, 0] [4, 3] [1, 1] : memref<4x6xf32> to memref<4x3xf32, strided<[6, 1]>>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<3x4xf32>
    linalg.transpose ins(%subview_0 : memref<4x3xf32, strided<[6, 1]>>) outs(%alloc_1 : memref<3x4xf32>) permutation = [1, 0] 
    %collapse_shape = memref.collapse_shape %alloc_1 [[0, 1]] : memref<3x4xf32> into memref<12xf32>
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<12xf32>
    linalg.map { arith.negf } ins(%collapse_shape : memref<12xf32>) outs(%alloc_2 : memref<12xf32>)
    %expand_shape = memref.expand_shape %alloc_2 [[0, 1]] output_shape [3, 4] : memref<12xf32> into memref<3x4xf32>
    return %alloc, %expand_shape : memref<6xf32>, memref<3x4xf32>
  }
  func.func @item_scale(%arg0: memref<8xf32>, %arg1: memref<2xf32>) -> memref<8xf32> {
    %c1 = arith.constant 1 : index
    %0 = memref.load %arg1[%c1] : memref<2xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg0 : memref<8xf32>) outs(%alloc : memref<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %1 = arith.mulf %in, %0 : f32
      linalg.yield %1 : f32
    }
    return %alloc : memref<8xf32>
  }
  func.func @store_scalar(%arg0: memref<4xf32>) -> memref<4xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %cst = arith.constant 2.000000e+00 : f32
    %0 = memref.load %arg0[%c0] : memref<4xf32>
    %1 = memref.load %arg0[%c1] : memref<4xf32>
    %2 = arith.mulf %0, %cst : f32
    %3 = arith.addf %2, %1 : f32
    memref.store %3, %arg0[%c3] : memref<4xf32>
    return %arg0 : memref<4xf32>
  }
  func.func @constants(%arg0: memref<2x3xf32>) -> memref<2x3xf32> {
    %0 = memref.get_global @__constant_2x3xf32 : memref<2x3xf32>
    %1 = memref.get_global @__constant_2x3xf32_0 : memref<2x3xf32>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
    linalg.add ins(%arg0, %0 : memref<2x3xf32>, memref<2x3xf32>) outs(%alloc : memref<2x3xf32>)
    linalg.add ins(%alloc, %1 : memref<2x3xf32>, memref<2x3xf32>) outs(%alloc : memref<2x3xf32>)
    return %alloc : memref<2x3xf32>
  }
  func.func @flatten_dynamic(%arg0: memref<?x4xf32>) -> memref<?xf32> {
    %c0 = arith.constant 0 : index
    %collapse_shape = memref.collapse_shape %arg0 [[0, 1]] : memref<?x4xf32> into memref<?xf32>
    %dim = memref.dim %collapse_shape, %c0 : memref<?xf32>
    %alloc = memref.alloc(%dim) {alignment = 64 : i64} : memref<?xf32>
    linalg.map { arith.negf } ins(%collapse_shape : memref<?xf32>) outs(%alloc : memref<?xf32>)
    return %alloc : memref<?xf32>
  }
  // Hand-written, as memref-level frontends emit them: c += a @ b in place,
  // returning the buffer it was given.
  func.func @accumulate(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>) -> memref<4x4xf32> {
    linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
    return %c : memref<4x4xf32>
  }
  // An external op called by its registry name.
  func.func private @"aten::mm"(memref<4x8xf32>, memref<8x5xf32>) -> memref<4x5xf32>
  func.func @call_mm(%a: memref<4x8xf32>, %b: memref<8x5xf32>) -> memref<4x5xf32> {
    %c = func.call @"aten::mm"(%a, %b) : (memref<4x8xf32>, memref<8x5xf32>) -> memref<4x5xf32>
    return %c : memref<4x5xf32>
  }
  // y[i, j] = x[i, j] * x[i, j] as an scf.parallel, z = y + 1 as an scf.forall.
  func.func @loops(%x: memref<3x7xf32>) -> (memref<3x7xf32>, memref<3x7xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c7 = arith.constant 7 : index
    %one = arith.constant 1.0 : f32
    %y = memref.alloc() : memref<3x7xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c7) step (%c1, %c1) {
      %v = memref.load %x[%i, %j] : memref<3x7xf32>
      %sq = arith.mulf %v, %v : f32
      memref.store %sq, %y[%i, %j] : memref<3x7xf32>
    }
    %z = memref.alloc() : memref<3x7xf32>
    scf.forall (%i, %j) in (3, 7) {
      %v = memref.load %y[%i, %j] : memref<3x7xf32>
      %p = arith.addf %v, %one : f32
      memref.store %p, %z[%i, %j] : memref<3x7xf32>
    }
    return %y, %z : memref<3x7xf32>, memref<3x7xf32>
  }
}
