// RUN: gp-opt %s -split-input-file --gp-pipeline=target=host -verify-diagnostics

// A loop with a run-time trip count whose body launches a kernel: control
// flow is lowered around host scalars only, and the error names the loop
// and the device work in it.
#map = affine_map<(d0) -> (d0)>
func.func @loop(%x: memref<4xf32>, %n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %acc = memref.alloc() : memref<4xf32>
  memref.copy %x, %acc : memref<4xf32> to memref<4xf32>
  // expected-error @+1 {{cannot lower 'scf.for' whose body runs 'gp.kernel': control flow is supported around host scalars only (unroll a loop of static trip count, or call the program once per iteration)}}
  scf.for %i = %c0 to %n step %c1 {
    linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
        ins(%acc, %x : memref<4xf32>, memref<4xf32>) outs(%acc : memref<4xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  }
  return %acc : memref<4xf32>
}

// -----

// A branch on a host scalar around a copy.
func.func @branch(%x: memref<4xf32>, %n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %flag = arith.cmpi sgt, %n, %c0 : index
  %y = memref.alloc() : memref<4xf32>
  // expected-error @+1 {{cannot lower 'scf.if' whose body runs 'gp.copy': control flow is supported around host scalars only (compute both sides and select, or choose between two programs in the caller)}}
  scf.if %flag {
    memref.copy %x, %y : memref<4xf32> to memref<4xf32>
  }
  return %y : memref<4xf32>
}
