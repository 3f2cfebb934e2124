// RUN: gp-opt %s -split-input-file --gp-fuse-kernels | FileCheck %s
// RUN: gp-opt %s -split-input-file --gp-fuse-kernels=report -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPORT
// RUN: gp-opt %s -split-input-file --gp-fuse-kernels=rows=0 | FileCheck %s --check-prefix=OFF

// gp-fuse-kernels rows: the cuda kernels of a softmax (a max, a sum of
// exponentials, the normalization, each reduction with the fill of its
// accumulator) become one noalias kernel, the bodies in program order.

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// REPORT: gp-fuse-kernels: @softmax: 4 row merges
// REPORT-NEXT: "fill_max" + "row_max": "fill_max_row_max"
// REPORT-NEXT: "fill_sum" + "row_sum_exp": "fill_sum_row_sum_exp"
// REPORT-NEXT: "fill_max_row_max" + "fill_sum_row_sum_exp": "fill_max_row_max_fill_sum_row_sum_exp"
// REPORT-NEXT: "fill_max_row_max_fill_sum_row_sum_exp" + "normalize": "fill_max_row_max_fill_sum_row_sum_exp_normalize"
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.+]]: memref<8x300xf32, #cuda0>)
// CHECK: %[[M:.+]] = gp.buffer.alloc() : memref<8xf32, #cuda0>
// CHECK: %[[S:.+]] = gp.buffer.alloc() : memref<8xf32, #cuda0>
// CHECK: %[[Y:.+]] = gp.buffer.alloc() : memref<8x300xf32, #cuda0>
// CHECK-NEXT: gp.kernel "fill_max_row_max_fill_sum_row_sum_exp_normalize" noalias ins(%[[X]] : memref<8x300xf32, #cuda0>) outs(%[[M]], %[[S]], %[[Y]] : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>, memref<8x300xf32, #cuda0>)
// CHECK-NEXT: ^bb0(%[[XA:.+]]: memref<8x300xf32, #cuda0>, %[[MA:.+]]: memref<8xf32, #cuda0>, %[[SA:.+]]: memref<8xf32, #cuda0>, %[[YA:.+]]: memref<8x300xf32, #cuda0>):
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[MA]] : memref<8xf32, #cuda0>)
// CHECK: linalg.generic {{.*}} ins(%[[XA]] : memref<8x300xf32, #cuda0>) outs(%[[MA]] : memref<8xf32, #cuda0>)
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[SA]] : memref<8xf32, #cuda0>)
// CHECK: linalg.generic {{.*}} ins(%[[XA]], %[[MA]] : {{.*}}) outs(%[[SA]] : memref<8xf32, #cuda0>)
// CHECK: linalg.generic {{.*}} ins(%[[XA]], %[[MA]], %[[SA]] : {{.*}}) outs(%[[YA]] : memref<8x300xf32, #cuda0>)
// CHECK-NOT: gp.kernel
// CHECK: return %[[Y]]
// OFF-LABEL: func.func @softmax
// OFF-COUNT-5: gp.kernel
func.func @softmax(%x: memref<8x300xf32, #cuda0>) -> memref<8x300xf32, #cuda0> {
  %m = gp.buffer.alloc() : memref<8xf32, #cuda0>
  %s = gp.buffer.alloc() : memref<8xf32, #cuda0>
  %y = gp.buffer.alloc() : memref<8x300xf32, #cuda0>
  gp.kernel "fill_max" outs(%m : memref<8xf32, #cuda0>) {
  ^bb0(%o: memref<8xf32, #cuda0>):
    %c = arith.constant 0xFF800000 : f32
    linalg.fill ins(%c : f32) outs(%o : memref<8xf32, #cuda0>)
  }
  gp.kernel "row_max" ins(%x : memref<8x300xf32, #cuda0>) outs(%m : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8x300xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%a : memref<8x300xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.maximumf %v, %acc : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "fill_sum" outs(%s : memref<8xf32, #cuda0>) {
  ^bb0(%o: memref<8xf32, #cuda0>):
    %c = arith.constant 0.0 : f32
    linalg.fill ins(%c : f32) outs(%o : memref<8xf32, #cuda0>)
  }
  gp.kernel "row_sum_exp" ins(%x, %m : memref<8x300xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%s : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8x300xf32, #cuda0>, %mx: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
        ins(%a, %mx : memref<8x300xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %vm: f32, %acc: f32):
      %d = arith.subf %v, %vm : f32
      %e = math.exp %d : f32
      %r = arith.addf %e, %acc : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "normalize" ins(%x, %m, %s : memref<8x300xf32, #cuda0>, memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%y : memref<8x300xf32, #cuda0>) {
  ^bb0(%a: memref<8x300xf32, #cuda0>, %mx: memref<8xf32, #cuda0>, %sm: memref<8xf32, #cuda0>, %o: memref<8x300xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %mx, %sm : memref<8x300xf32, #cuda0>, memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%o : memref<8x300xf32, #cuda0>) {
    ^bb0(%v: f32, %vm: f32, %vs: f32, %out: f32):
      %d = arith.subf %v, %vm : f32
      %e = math.exp %d : f32
      %r = arith.divf %e, %vs : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<8x300xf32, #cuda0>
}

// -----

// Not merged: the sum reads the column-wise transpose of what the first
// kernel wrote (another row's elements), so rows are not independent.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reads_other_rows
// CHECK: gp.kernel "scale" ins
// CHECK: gp.kernel "sum" ins
func.func @reads_other_rows(%x: memref<8x8xf32, #cuda0>, %s: memref<8xf32, #cuda0>) -> memref<8x8xf32, #cuda0> {
  %t = gp.buffer.alloc() : memref<8x8xf32, #cuda0>
  gp.kernel "scale" ins(%x : memref<8x8xf32, #cuda0>) outs(%t : memref<8x8xf32, #cuda0>) {
  ^bb0(%a: memref<8x8xf32, #cuda0>, %o: memref<8x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<8x8xf32, #cuda0>) outs(%o : memref<8x8xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %r = arith.addf %v, %v : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "sum" ins(%t : memref<8x8xf32, #cuda0>) outs(%s : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8x8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#tr, #row], iterator_types = ["parallel", "reduction"]}
        ins(%a : memref<8x8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
  }
  return %t : memref<8x8xf32, #cuda0>
}

// -----

// Not merged: a matmul stays whole for cuBLAS (its output rows look like
// a reduction's), and so does what follows it.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_then_relu
// CHECK: gp.kernel "zero"
// CHECK: gp.kernel "matmul"
// CHECK: gp.kernel "relu"
func.func @matmul_then_relu(%a: memref<4x8xf32, #cuda0>, %b: memref<8x4xf32, #cuda0>, %y: memref<4x4xf32, #cuda0>) {
  %c = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.kernel "zero" outs(%c : memref<4x4xf32, #cuda0>) {
  ^bb0(%o: memref<4x4xf32, #cuda0>):
    %z = arith.constant 0.0 : f32
    linalg.fill ins(%z : f32) outs(%o : memref<4x4xf32, #cuda0>)
  }
  gp.kernel "matmul" ins(%a, %b : memref<4x8xf32, #cuda0>, memref<8x4xf32, #cuda0>) outs(%c : memref<4x4xf32, #cuda0>) {
  ^bb0(%p: memref<4x8xf32, #cuda0>, %q: memref<8x4xf32, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.matmul ins(%p, %q : memref<4x8xf32, #cuda0>, memref<8x4xf32, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>)
  }
  gp.kernel "relu" ins(%c : memref<4x4xf32, #cuda0>) outs(%y : memref<4x4xf32, #cuda0>) {
  ^bb0(%p: memref<4x4xf32, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%p : memref<4x4xf32, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %z = arith.constant 0.0 : f32
      %r = arith.maximumf %v, %z : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// Not merged: the normalization writes a view of its own input (in
// place on a slice), which may alias what the reduction reads.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @aliasing_output
// CHECK: gp.kernel "sum" ins
// CHECK: gp.kernel "center" ins
func.func @aliasing_output(%x: memref<4x16xf32, #cuda0>) {
  %s = gp.buffer.alloc() : memref<4xf32, #cuda0>
  %v = gp.buffer.slice %x[0, 0][4, 8][1, 1] : memref<4x16xf32, #cuda0> to memref<4x8xf32, strided<[16, 1]>, #cuda0>
  gp.kernel "sum" ins(%x : memref<4x16xf32, #cuda0>) outs(%s : memref<4xf32, #cuda0>) {
  ^bb0(%a: memref<4x16xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%a : memref<4x16xf32, #cuda0>) outs(%o : memref<4xf32, #cuda0>) {
    ^bb0(%e: f32, %acc: f32):
      %r = arith.addf %e, %acc : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "center" ins(%s : memref<4xf32, #cuda0>) outs(%v : memref<4x8xf32, strided<[16, 1]>, #cuda0>) {
  ^bb0(%a: memref<4xf32, #cuda0>, %o: memref<4x8xf32, strided<[16, 1]>, #cuda0>):
    linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4xf32, #cuda0>) outs(%o : memref<4x8xf32, strided<[16, 1]>, #cuda0>) {
    ^bb0(%e: f32, %out: f32):
      %r = arith.subf %out, %e : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// Not merged: host kernels (one loop nest or two, the same work), and
// rows of dynamic length (a block's share of a row is unrolled from its
// static size). Merged: a dynamic number of rows, which both kernels take
// from the buffers they index by rows (%x, %s).
#cpu = #gp.device<cpu>
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @host_rows
// CHECK: gp.kernel "sum" ins
// CHECK: gp.kernel "scale" ins
func.func @host_rows(%x: memref<4x16xf32, #cpu>, %y: memref<4x16xf32, #cpu>) {
  %s = gp.buffer.alloc() : memref<4xf32, #cpu>
  gp.kernel "sum" ins(%x : memref<4x16xf32, #cpu>) outs(%s : memref<4xf32, #cpu>) {
  ^bb0(%a: memref<4x16xf32, #cpu>, %o: memref<4xf32, #cpu>):
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%a : memref<4x16xf32, #cpu>) outs(%o : memref<4xf32, #cpu>) {
    ^bb0(%e: f32, %acc: f32):
      %r = arith.addf %e, %acc : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "scale" ins(%x, %s : memref<4x16xf32, #cpu>, memref<4xf32, #cpu>) outs(%y : memref<4x16xf32, #cpu>) {
  ^bb0(%a: memref<4x16xf32, #cpu>, %b: memref<4xf32, #cpu>, %o: memref<4x16xf32, #cpu>):
    linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : memref<4x16xf32, #cpu>, memref<4xf32, #cpu>) outs(%o : memref<4x16xf32, #cpu>) {
    ^bb0(%e: f32, %t: f32, %out: f32):
      %r = arith.divf %e, %t : f32
      linalg.yield %r : f32
    }
  }
  return
}
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: gp.kernel "sum_scale" noalias
// CHECK-NOT: gp.kernel
func.func @dynamic_rows(%x: memref<?x16xf32, #cuda0>, %s: memref<?xf32, #cuda0>, %y: memref<?x16xf32, #cuda0>) {
  gp.kernel "sum" ins(%x : memref<?x16xf32, #cuda0>) outs(%s : memref<?xf32, #cuda0>) {
  ^bb0(%a: memref<?x16xf32, #cuda0>, %o: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%a : memref<?x16xf32, #cuda0>) outs(%o : memref<?xf32, #cuda0>) {
    ^bb0(%e: f32, %acc: f32):
      %r = arith.addf %e, %acc : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "scale" ins(%x, %s : memref<?x16xf32, #cuda0>, memref<?xf32, #cuda0>) outs(%y : memref<?x16xf32, #cuda0>) {
  ^bb0(%a: memref<?x16xf32, #cuda0>, %b: memref<?xf32, #cuda0>, %o: memref<?x16xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : memref<?x16xf32, #cuda0>, memref<?xf32, #cuda0>) outs(%o : memref<?x16xf32, #cuda0>) {
    ^bb0(%e: f32, %t: f32, %out: f32):
      %r = arith.divf %e, %t : f32
      linalg.yield %r : f32
    }
  }
  return
}
// CHECK-LABEL: func.func @dynamic_row_length
// CHECK: gp.kernel "sum" ins
// CHECK: gp.kernel "scale" ins
func.func @dynamic_row_length(%x: memref<4x?xf32, #cuda0>, %s: memref<4xf32, #cuda0>, %y: memref<4x?xf32, #cuda0>) {
  gp.kernel "sum" ins(%x : memref<4x?xf32, #cuda0>) outs(%s : memref<4xf32, #cuda0>) {
  ^bb0(%a: memref<4x?xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%a : memref<4x?xf32, #cuda0>) outs(%o : memref<4xf32, #cuda0>) {
    ^bb0(%e: f32, %acc: f32):
      %r = arith.addf %e, %acc : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "scale" ins(%x, %s : memref<4x?xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%y : memref<4x?xf32, #cuda0>) {
  ^bb0(%a: memref<4x?xf32, #cuda0>, %b: memref<4xf32, #cuda0>, %o: memref<4x?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : memref<4x?xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%o : memref<4x?xf32, #cuda0>) {
    ^bb0(%e: f32, %t: f32, %out: f32):
      %r = arith.divf %e, %t : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// Not merged: a kernel in between reads what the first wrote (the first
// cannot move down to the second).
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reader_between
// CHECK: gp.kernel "sum" ins
// CHECK: gp.kernel "copy_sums" ins
// CHECK: gp.kernel "scale" ins
func.func @reader_between(%x: memref<4x16xf32, #cuda0>, %c: memref<4xf32, #cuda0>, %y: memref<4x16xf32, #cuda0>) {
  %s = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "sum" ins(%x : memref<4x16xf32, #cuda0>) outs(%s : memref<4xf32, #cuda0>) {
  ^bb0(%a: memref<4x16xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%a : memref<4x16xf32, #cuda0>) outs(%o : memref<4xf32, #cuda0>) {
    ^bb0(%e: f32, %acc: f32):
      %r = arith.addf %e, %acc : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "copy_sums" ins(%s : memref<4xf32, #cuda0>) outs(%c : memref<4xf32, #cuda0>) {
  ^bb0(%a: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
    memref.copy %a, %o : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  }
  gp.kernel "scale" ins(%x, %s : memref<4x16xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%y : memref<4x16xf32, #cuda0>) {
  ^bb0(%a: memref<4x16xf32, #cuda0>, %b: memref<4xf32, #cuda0>, %o: memref<4x16xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : memref<4x16xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%o : memref<4x16xf32, #cuda0>) {
    ^bb0(%e: f32, %t: f32, %out: f32):
      %r = arith.divf %e, %t : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// Not merged: the "reduction" writes an element per reduced index too
// (its output map has the reduction loop), not one per row.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @output_on_reduced_loop
// CHECK: gp.kernel "running" ins
// CHECK: gp.kernel "scale" ins
func.func @output_on_reduced_loop(%x: memref<4x16xf32, #cuda0>, %y: memref<4x16xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<4x16xf32, #cuda0>
  gp.kernel "running" ins(%x : memref<4x16xf32, #cuda0>) outs(%t : memref<4x16xf32, #cuda0>) {
  ^bb0(%a: memref<4x16xf32, #cuda0>, %o: memref<4x16xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "reduction"]}
        ins(%a : memref<4x16xf32, #cuda0>) outs(%o : memref<4x16xf32, #cuda0>) {
    ^bb0(%e: f32, %acc: f32):
      %r = arith.addf %e, %acc : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "scale" ins(%x, %t : memref<4x16xf32, #cuda0>, memref<4x16xf32, #cuda0>) outs(%y : memref<4x16xf32, #cuda0>) {
  ^bb0(%a: memref<4x16xf32, #cuda0>, %b: memref<4x16xf32, #cuda0>, %o: memref<4x16xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : memref<4x16xf32, #cuda0>, memref<4x16xf32, #cuda0>) outs(%o : memref<4x16xf32, #cuda0>) {
    ^bb0(%e: f32, %w: f32, %out: f32):
      %r = arith.divf %e, %w : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// A layer norm over a batch of one: the row space is [1, 64] and the
// bufferized program drops the unit loop where it indexes a buffer of its
// own (a [64, 768] residual read as (d1, d2), a [1, 64] sum as (d0, d1)
// or (0, d1)). d0 is always 0, so every access stays in its row: the
// three kernels become one.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#m2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#col = affine_map<(d0, d1, d2) -> (d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#row0 = affine_map<(d0, d1, d2) -> (0, d1)>
// REPORT: gp-fuse-kernels: @unit_batch_layer_norm: 2 row merges
// CHECK-LABEL: func.func @unit_batch_layer_norm
// CHECK: gp.kernel "residual_mean_variance_normalize" noalias
// CHECK-NOT: gp.kernel
// CHECK: return
func.func @unit_batch_layer_norm(%x: memref<1x64x768xf32, #cuda0>, %y: memref<64x768xf32, #cuda0>, %w: memref<768xf32, #cuda0>, %out: memref<1x64x768xf32, #cuda0>, %res: memref<1x64x768xf32, #cuda0>) {
  %sum = gp.buffer.alloc() : memref<1x64xf32, #cuda0>
  gp.kernel "residual_mean" ins(%x, %y : memref<1x64x768xf32, #cuda0>, memref<64x768xf32, #cuda0>) outs(%res, %sum : memref<1x64x768xf32, #cuda0>, memref<1x64xf32, #cuda0>) {
  ^bb0(%a0: memref<1x64x768xf32, #cuda0>, %a1: memref<64x768xf32, #cuda0>, %a3: memref<1x64x768xf32, #cuda0>, %a4: memref<1x64xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #m2, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a0, %a1 : memref<1x64x768xf32, #cuda0>, memref<64x768xf32, #cuda0>) outs(%a3 : memref<1x64x768xf32, #cuda0>) {
    ^bb0(%in: f32, %in1: f32, %o: f32):
      %0 = arith.addf %in, %in1 : f32
      linalg.yield %0 : f32
    }
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%a4 : memref<1x64xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a3 : memref<1x64x768xf32, #cuda0>) outs(%a4 : memref<1x64xf32, #cuda0>) {
    ^bb0(%in: f32, %o: f32):
      %0 = arith.addf %in, %o : f32
      linalg.yield %0 : f32
    }
  }
  %centered = gp.buffer.alloc() : memref<64x768xf32, #cuda0>
  %sq = gp.buffer.alloc() : memref<1x64xf32, #cuda0>
  gp.kernel "variance" ins(%res, %sum : memref<1x64x768xf32, #cuda0>, memref<1x64xf32, #cuda0>) outs(%centered, %sq : memref<64x768xf32, #cuda0>, memref<1x64xf32, #cuda0>) {
  ^bb0(%a0: memref<1x64x768xf32, #cuda0>, %a1: memref<1x64xf32, #cuda0>, %a2: memref<64x768xf32, #cuda0>, %a3: memref<1x64xf32, #cuda0>):
    %n = arith.constant 7.680000e+02 : f32
    linalg.generic {indexing_maps = [#id, #row0, #m2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a0, %a1 : memref<1x64x768xf32, #cuda0>, memref<1x64xf32, #cuda0>) outs(%a2 : memref<64x768xf32, #cuda0>) {
    ^bb0(%in: f32, %in1: f32, %o: f32):
      %0 = arith.divf %in1, %n : f32
      %1 = arith.subf %in, %0 : f32
      linalg.yield %1 : f32
    }
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%a3 : memref<1x64xf32, #cuda0>)
    linalg.generic {indexing_maps = [#m2, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a2 : memref<64x768xf32, #cuda0>) outs(%a3 : memref<1x64xf32, #cuda0>) {
    ^bb0(%in: f32, %o: f32):
      %0 = arith.mulf %in, %in : f32
      %1 = arith.addf %0, %o : f32
      linalg.yield %1 : f32
    }
  }
  gp.kernel "normalize" ins(%w, %centered, %sq : memref<768xf32, #cuda0>, memref<64x768xf32, #cuda0>, memref<1x64xf32, #cuda0>) outs(%out : memref<1x64x768xf32, #cuda0>) {
  ^bb0(%a0: memref<768xf32, #cuda0>, %a2: memref<64x768xf32, #cuda0>, %a3: memref<1x64xf32, #cuda0>, %a4: memref<1x64x768xf32, #cuda0>):
    %n = arith.constant 7.680000e+02 : f32
    linalg.generic {indexing_maps = [#m2, #row0, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a2, %a3, %a0 : memref<64x768xf32, #cuda0>, memref<1x64xf32, #cuda0>, memref<768xf32, #cuda0>) outs(%a4 : memref<1x64x768xf32, #cuda0>) {
    ^bb0(%in: f32, %in1: f32, %in2: f32, %o: f32):
      %0 = arith.divf %in1, %n : f32
      %1 = math.rsqrt %0 : f32
      %2 = arith.mulf %in, %1 : f32
      %3 = arith.mulf %2, %in2 : f32
      linalg.yield %3 : f32
    }
  }
  return
}

// -----

// Not merged: with a batch of two the row space is [2, 8], and reading the
// written [8, 16] buffer as (d1, d2) reads the same elements from both
// batches' rows.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#m2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @batch_rows_share_a_buffer
// CHECK: gp.kernel "centre" ins
// CHECK: gp.kernel "norm" ins
func.func @batch_rows_share_a_buffer(%x: memref<2x8x16xf32, #cuda0>, %t: memref<8x16xf32, #cuda0>, %s: memref<2x8xf32, #cuda0>) {
  gp.kernel "centre" ins(%x : memref<2x8x16xf32, #cuda0>) outs(%t : memref<8x16xf32, #cuda0>) {
  ^bb0(%a: memref<2x8x16xf32, #cuda0>, %o: memref<8x16xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #m2], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%a : memref<2x8x16xf32, #cuda0>) outs(%o : memref<8x16xf32, #cuda0>) {
    ^bb0(%v: f32, %out: f32):
      %r = arith.addf %v, %v : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "norm" ins(%t : memref<8x16xf32, #cuda0>) outs(%s : memref<2x8xf32, #cuda0>) {
  ^bb0(%a: memref<8x16xf32, #cuda0>, %o: memref<2x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#m2, #row], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%a : memref<8x16xf32, #cuda0>) outs(%o : memref<2x8xf32, #cuda0>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// A softmax whose row maximum and sum are read back through [8, 1]
// reshapes (keepdim): the readers read the [8] buffers themselves, at the
// row, and the kernels merge.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#kept = affine_map<(d0, d1) -> (d0, 0)>
// REPORT: gp-fuse-kernels: @keepdim_softmax: 2 row merges
// CHECK-LABEL: func.func @keepdim_softmax
// CHECK-NOT: gp.buffer.reshape
// CHECK: gp.kernel "row_max_exp_sum_normalize" noalias
// CHECK: linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], #[[ROW:map[0-9]*]], #[[ID]]]
// CHECK-SAME: memref<8x300xf32, #cuda0>, memref<8xf32, #cuda0>)
// CHECK: math.exp
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]]
// CHECK-SAME: memref<8x300xf32, #cuda0>, memref<8xf32, #cuda0>)
// CHECK: arith.divf
// CHECK-NOT: gp.kernel
// CHECK: return
func.func @keepdim_softmax(%x: memref<8x300xf32, #cuda0>, %y: memref<8x300xf32, #cuda0>) {
  %max = gp.buffer.alloc() : memref<8xf32, #cuda0>
  %copy = gp.buffer.alloc() : memref<8x300xf32, #cuda0>
  gp.kernel "row_max" ins(%x : memref<8x300xf32, #cuda0>) outs(%copy, %max : memref<8x300xf32, #cuda0>, memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8x300xf32, #cuda0>, %c: memref<8x300xf32, #cuda0>, %m: memref<8xf32, #cuda0>):
    linalg.copy ins(%a : memref<8x300xf32, #cuda0>) outs(%c : memref<8x300xf32, #cuda0>)
    %low = arith.constant 0xFF800000 : f32
    linalg.fill ins(%low : f32) outs(%m : memref<8xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%c : memref<8x300xf32, #cuda0>) outs(%m : memref<8xf32, #cuda0>) {
    ^bb0(%e: f32, %acc: f32):
      %r = arith.maximumf %e, %acc : f32
      linalg.yield %r : f32
    }
  }
  %max_kept = gp.buffer.reshape %max() : memref<8xf32, #cuda0> to memref<8x1xf32, #cuda0>
  %exp = gp.buffer.alloc() : memref<8x300xf32, #cuda0>
  %sum = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "exp_sum" ins(%copy, %max_kept : memref<8x300xf32, #cuda0>, memref<8x1xf32, #cuda0>) outs(%exp, %sum : memref<8x300xf32, #cuda0>, memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8x300xf32, #cuda0>, %m: memref<8x1xf32, #cuda0>, %e: memref<8x300xf32, #cuda0>, %s: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #kept, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %m : memref<8x300xf32, #cuda0>, memref<8x1xf32, #cuda0>) outs(%e : memref<8x300xf32, #cuda0>) {
    ^bb0(%v: f32, %mv: f32, %out: f32):
      %d = arith.subf %v, %mv : f32
      %r = math.exp %d : f32
      linalg.yield %r : f32
    }
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%s : memref<8xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%e : memref<8x300xf32, #cuda0>) outs(%s : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
  }
  %sum_kept = gp.buffer.reshape %sum() : memref<8xf32, #cuda0> to memref<8x1xf32, #cuda0>
  gp.kernel "normalize" ins(%exp, %sum_kept : memref<8x300xf32, #cuda0>, memref<8x1xf32, #cuda0>) outs(%y : memref<8x300xf32, #cuda0>) {
  ^bb0(%a: memref<8x300xf32, #cuda0>, %s: memref<8x1xf32, #cuda0>, %o: memref<8x300xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #kept, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %s : memref<8x300xf32, #cuda0>, memref<8x1xf32, #cuda0>) outs(%o : memref<8x300xf32, #cuda0>) {
    ^bb0(%v: f32, %sv: f32, %out: f32):
      %r = arith.divf %v, %sv : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// The row space of one query per head ([3, 1], as a decode step's
// attention has): the keepdim view of the [3, 1] maximum reads it at
// (d0 + d1, 0) until the unit loop d1 is written as 0. The kernels merge.
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#kept = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// REPORT: gp-fuse-kernels: @one_query_rows: 1 row merges
// CHECK-LABEL: func.func @one_query_rows
// CHECK: gp.kernel "row_max_shift" noalias
// CHECK: linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], #[[ROW:map[0-9]*]], #[[ID]]]
// CHECK-SAME: memref<3x1x16xf32, #cuda0>, memref<3x1xf32, #cuda0>)
// CHECK-NOT: gp.kernel
// CHECK: return
func.func @one_query_rows(%x: memref<3x1x16xf32, #cuda0>, %y: memref<3x1x16xf32, #cuda0>) {
  %max = gp.buffer.alloc() : memref<3x1xf32, #cuda0>
  gp.kernel "row_max" ins(%x : memref<3x1x16xf32, #cuda0>) outs(%max : memref<3x1xf32, #cuda0>) {
  ^bb0(%a: memref<3x1x16xf32, #cuda0>, %m: memref<3x1xf32, #cuda0>):
    %low = arith.constant 0xFF800000 : f32
    linalg.fill ins(%low : f32) outs(%m : memref<3x1xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%a : memref<3x1x16xf32, #cuda0>) outs(%m : memref<3x1xf32, #cuda0>) {
    ^bb0(%e: f32, %acc: f32):
      %r = arith.maximumf %e, %acc : f32
      linalg.yield %r : f32
    }
  }
  %max_kept = gp.buffer.reshape %max() : memref<3x1xf32, #cuda0> to memref<3x1x1xf32, #cuda0>
  gp.kernel "shift" ins(%x, %max_kept : memref<3x1x16xf32, #cuda0>, memref<3x1x1xf32, #cuda0>) outs(%y : memref<3x1x16xf32, #cuda0>) {
  ^bb0(%a: memref<3x1x16xf32, #cuda0>, %m: memref<3x1x1xf32, #cuda0>, %o: memref<3x1x16xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #kept, #id], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%a, %m : memref<3x1x16xf32, #cuda0>, memref<3x1x1xf32, #cuda0>) outs(%o : memref<3x1x16xf32, #cuda0>) {
    ^bb0(%v: f32, %mv: f32, %out: f32):
      %d = arith.subf %v, %mv : f32
      linalg.yield %d : f32
    }
  }
  return
}
