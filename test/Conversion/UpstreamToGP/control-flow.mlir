// RUN: gp-opt %s --gp-pipeline | FileCheck %s

// Top-level scf control flow stays, its body imported, and gp-partition
// cuts at it for the right reason; the work around it is captured.
// CHECK-LABEL: func.func @repeat
// CHECK: gp.partition 0 capturable
// CHECK: gp.kernel "fill_0"
// CHECK: gp.partition 1 eager reasons ["control flow"]
// CHECK: scf.for
// CHECK: gp.kernel "generic_1"
// CHECK: gp.partition 2 capturable
// CHECK: gp.kernel "copy_2"
#map = affine_map<(d0) -> (d0)>
func.func @repeat(%x: memref<8xf32>, %n: index) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8xf32>)
  scf.for %i = %c0 to %n step %c1 {
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
        ins(%x : memref<8xf32>) outs(%acc : memref<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.addf %a, %o : f32
      linalg.yield %s : f32
    }
  }
  %out = memref.alloc() : memref<8xf32>
  linalg.copy ins(%acc : memref<8xf32>) outs(%out : memref<8xf32>)
  return %out : memref<8xf32>
}
