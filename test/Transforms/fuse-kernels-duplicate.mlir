// RUN: gp-opt %s -split-input-file --gp-fuse-kernels='rows=0 siblings=0' | FileCheck %s
// RUN: gp-opt %s -split-input-file --gp-fuse-kernels='report rows=0 siblings=0' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPORT
// RUN: gp-opt %s -split-input-file --gp-fuse-kernels='rows=0 duplicate=0 siblings=0' | FileCheck %s --check-prefix=OFF

// gp-fuse-kernels duplicate: a cheap producer (at most 4 payload ops)
// whose buffer several elementwise kernels read is computed again in each
// of them, when each pair meets the fusion rule; the buffer goes away.

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

// REPORT-LABEL: gp-fuse-kernels: @two_readers: 2 fusions, 1 buffers removed
// REPORT-DAG: "scale" into "inc" (one of 2 readers): "scale_inc"
// REPORT-DAG: "scale" into "neg" (one of 2 readers): "scale_neg"
// CHECK-LABEL: func.func @two_readers
// CHECK-NOT: gp.kernel "scale"
// CHECK: gp.kernel "scale_inc" ins(%{{.+}} : memref<8xf32, #cuda0>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: gp.kernel "scale_neg" ins(%{{.+}} : memref<8xf32, #cuda0>)
// CHECK: arith.mulf
// CHECK: arith.negf
// OFF-LABEL: func.func @two_readers
// OFF: gp.kernel "scale"
// OFF: gp.kernel "inc"
// OFF: gp.kernel "neg"
func.func @two_readers(%x: memref<8xf32, #cuda0>) -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "scale" ins(%x : memref<8xf32, #cuda0>) outs(%t : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %c = arith.constant 2.0 : f32
      %r = arith.mulf %v, %c : f32
      linalg.yield %r : f32
    }
  }
  %y = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "inc" ins(%t : memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %c = arith.constant 1.0 : f32
      %r = arith.addf %v, %c : f32
      linalg.yield %r : f32
    }
  }
  %z = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "neg" ins(%t : memref<8xf32, #cuda0>) outs(%z : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %r = arith.negf %v : f32
      linalg.yield %r : f32
    }
  }
  return %y, %z : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Not computed again: a producer of five payload ops; a producer whose
// other reader is a reduction (a row sum, whose row kernel the producer
// would join); a producer read by a kernel after another kernel writes
// the producer's input in place.
// CHECK-LABEL: func.func @expensive
// CHECK: gp.kernel "poly"
// CHECK: gp.kernel "inc"
// CHECK: gp.kernel "neg"
// CHECK-LABEL: func.func @reduction_reader
// CHECK: gp.kernel "scale"
// CHECK: gp.kernel "sum"
// CHECK: gp.kernel "neg"
// CHECK-LABEL: func.func @input_overwritten
// CHECK: gp.kernel "scale"
// CHECK: gp.kernel "inc"
// CHECK: gp.kernel "clobber"
// CHECK: gp.kernel "neg"
func.func @expensive(%x: memref<8xf32, #cuda0>) -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "poly" ins(%x : memref<8xf32, #cuda0>) outs(%t : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %c = arith.constant 2.0 : f32
      %s = arith.mulf %v, %v : f32
      %p = arith.mulf %s, %v : f32
      %q = arith.mulf %p, %c : f32
      %r = arith.addf %q, %v : f32
      linalg.yield %r : f32
    }
  }
  %y = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "inc" ins(%t : memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %c = arith.constant 1.0 : f32
      %r = arith.addf %v, %c : f32
      linalg.yield %r : f32
    }
  }
  %z = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "neg" ins(%t : memref<8xf32, #cuda0>) outs(%z : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %r = arith.negf %v : f32
      linalg.yield %r : f32
    }
  }
  return %y, %z : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>
}
func.func @reduction_reader(%x: memref<4x8xf32, #cuda0>) -> (memref<4xf32, #cuda0>, memref<4x8xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
  gp.kernel "scale" ins(%x : memref<4x8xf32, #cuda0>) outs(%t : memref<4x8xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %c = arith.constant 2.0 : f32
      %r = arith.mulf %v, %c : f32
      linalg.yield %r : f32
    }
  }
  %s = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "sum" ins(%t : memref<4x8xf32, #cuda0>) outs(%s : memref<4xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<4xf32, #cuda0>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
  }
  %z = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
  gp.kernel "neg" ins(%t : memref<4x8xf32, #cuda0>) outs(%z : memref<4x8xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %r = arith.negf %v : f32
      linalg.yield %r : f32
    }
  }
  return %s, %z : memref<4xf32, #cuda0>, memref<4x8xf32, #cuda0>
}
func.func @input_overwritten(%x: memref<8xf32, #cuda0>) -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "scale" ins(%x : memref<8xf32, #cuda0>) outs(%t : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %c = arith.constant 2.0 : f32
      %r = arith.mulf %v, %c : f32
      linalg.yield %r : f32
    }
  }
  %y = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "inc" ins(%t : memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %c = arith.constant 1.0 : f32
      %r = arith.addf %v, %c : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "clobber" outs(%x : memref<8xf32, #cuda0>) {
  ^bb0(%o: memref<8xf32, #cuda0>):
    %c = arith.constant 0.0 : f32
    linalg.fill ins(%c : f32) outs(%o : memref<8xf32, #cuda0>)
  }
  %z = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "neg" ins(%t : memref<8xf32, #cuda0>) outs(%z : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %r = arith.negf %v : f32
      linalg.yield %r : f32
    }
  }
  return %y, %z : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>
}
