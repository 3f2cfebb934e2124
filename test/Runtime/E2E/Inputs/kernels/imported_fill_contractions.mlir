// A contraction whose output the function allocates, fills (linalg.fill)
// and returns, as bufferized upstream linalg writes `linalg.dot` and
// `linalg.matmul` (memrefs without memory spaces, taken in by gp-import
// inside gp-compile): static and dynamic sizes, zero fills and non-zero
// ones the contraction adds to, and one function returning both. Before,
// gp-plan-memory stopped at the dot's returned buffer with "cannot free the
// buffer object ...". Checked against numpy by
// imported_fill_contractions.cases.py (fill-contractions.test,
// fill-contractions-cuda.test).
module {
  // r = a . b
  func.func @dot_static(%a: memref<64xf32>, %b: memref<64xf32>) -> memref<f32> {
    %zero = arith.constant 0.000000e+00 : f32
    %r = memref.alloc() {alignment = 64 : i64} : memref<f32>
    linalg.fill ins(%zero : f32) outs(%r : memref<f32>)
    linalg.dot ins(%a, %b : memref<64xf32>, memref<64xf32>) outs(%r : memref<f32>)
    return %r : memref<f32>
  }
  // r = a . b, of any length.
  func.func @dot_dynamic(%a: memref<?xf32>, %b: memref<?xf32>) -> memref<f32> {
    %zero = arith.constant 0.000000e+00 : f32
    %r = memref.alloc() {alignment = 64 : i64} : memref<f32>
    linalg.fill ins(%zero : f32) outs(%r : memref<f32>)
    linalg.dot ins(%a, %b : memref<?xf32>, memref<?xf32>) outs(%r : memref<f32>)
    return %r : memref<f32>
  }
  // r = 2.5 + a . b: the dot adds to the fill.
  func.func @dot_onto_fill(%a: memref<?xf32>, %b: memref<?xf32>) -> memref<f32> {
    %init = arith.constant 2.500000e+00 : f32
    %r = memref.alloc() {alignment = 64 : i64} : memref<f32>
    linalg.fill ins(%init : f32) outs(%r : memref<f32>)
    linalg.dot ins(%a, %b : memref<?xf32>, memref<?xf32>) outs(%r : memref<f32>)
    return %r : memref<f32>
  }
  // c = a @ b
  func.func @matmul_static(%a: memref<16x32xf32>, %b: memref<32x24xf32>) -> memref<16x24xf32> {
    %zero = arith.constant 0.000000e+00 : f32
    %c = memref.alloc() {alignment = 64 : i64} : memref<16x24xf32>
    linalg.fill ins(%zero : f32) outs(%c : memref<16x24xf32>)
    linalg.matmul ins(%a, %b : memref<16x32xf32>, memref<32x24xf32>) outs(%c : memref<16x24xf32>)
    return %c : memref<16x24xf32>
  }
  // c = a @ b, every size dynamic.
  func.func @matmul_dynamic(%a: memref<?x?xf32>, %b: memref<?x?xf32>) -> memref<?x?xf32> {
    %zero = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = memref.dim %a, %c0 : memref<?x?xf32>
    %n = memref.dim %b, %c1 : memref<?x?xf32>
    %c = memref.alloc(%m, %n) {alignment = 64 : i64} : memref<?x?xf32>
    linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
    linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    return %c : memref<?x?xf32>
  }
  // c = -1 + a @ b on a dynamic batch of rows: the matmul adds to the fill.
  func.func @matmul_onto_fill(%a: memref<?x32xf32>, %b: memref<32x24xf32>) -> memref<?x24xf32> {
    %init = arith.constant -1.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %m = memref.dim %a, %c0 : memref<?x32xf32>
    %c = memref.alloc(%m) {alignment = 64 : i64} : memref<?x24xf32>
    linalg.fill ins(%init : f32) outs(%c : memref<?x24xf32>)
    linalg.matmul ins(%a, %b : memref<?x32xf32>, memref<32x24xf32>) outs(%c : memref<?x24xf32>)
    return %c : memref<?x24xf32>
  }
  // (x . y, a @ b): two filled buffers returned from one function.
  func.func @dot_and_matmul(%x: memref<?xf32>, %y: memref<?xf32>, %a: memref<?x?xf32>, %b: memref<?x?xf32>) -> (memref<f32>, memref<?x?xf32>) {
    %zero = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = memref.alloc() {alignment = 64 : i64} : memref<f32>
    linalg.fill ins(%zero : f32) outs(%r : memref<f32>)
    linalg.dot ins(%x, %y : memref<?xf32>, memref<?xf32>) outs(%r : memref<f32>)
    %m = memref.dim %a, %c0 : memref<?x?xf32>
    %n = memref.dim %b, %c1 : memref<?x?xf32>
    %c = memref.alloc(%m, %n) {alignment = 64 : i64} : memref<?x?xf32>
    linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
    linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    return %r, %c : memref<f32>, memref<?x?xf32>
  }
}
