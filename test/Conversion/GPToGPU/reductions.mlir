// RUN: gp-opt %s -split-input-file --convert-gp-to-gpu | FileCheck %s
// RUN: gp-opt %s -split-input-file --convert-gp-to-gpu=parallel-reductions=0 | FileCheck %s --check-prefix=OFF

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A row max: one block of 256 threads per row (128 rows); each thread folds
// a strided share of its row starting from -inf, the block combines with
// gpu.all_reduce, and thread 0 folds the row's result into the output.
// CHECK-LABEL: func.func @row_max
// CHECK-DAG: %[[C128:.+]] = arith.constant 128 : index
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK: gpu.launch_func @gp_kernels::@row_max blocks in (%[[C128]], %{{.+}}, %{{.+}}) threads in (%[[C256]], %{{.+}}, %{{.+}})
// CHECK: gpu.func @row_max
// CHECK-DAG: %[[ROW:.+]] = gpu.block_id x
// CHECK-DAG: %[[TID:.+]] = gpu.thread_id x
// Rows longer than four elements per thread: rounds of four elements,
// each into its own partial maximum (four loads in flight), then the rest
// one by one, then the partials.
// CHECK: %[[ROUNDS:.+]]:4 = scf.for %[[I:.+]] = %[[TID]] to %[[END:.+]] step %{{.+}} iter_args(%[[A0:.+]] = %{{.+}}, %[[A1:.+]] = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (f32, f32, f32, f32)
// CHECK: %[[V0:.+]] = memref.load %{{.+}}[%[[ROW]], %[[I]]]
// CHECK: arith.maximumf %[[A0]], %[[V0]] : f32
// CHECK: %[[I1:.+]] = arith.addi %[[I]], %{{.+}} : index
// CHECK: %[[V1:.+]] = memref.load %{{.+}}[%[[ROW]], %[[I1]]]
// CHECK: arith.maximumf %[[A1]], %[[V1]] : f32
// CHECK: %[[REST:.+]] = scf.for %[[J:.+]] = %[[END]] to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[ROUNDS]]#0) -> (f32)
// CHECK: %[[V:.+]] = memref.load %{{.+}}[%[[ROW]], %[[J]]]
// CHECK: arith.maximumf %[[ACC]], %[[V]] : f32
// CHECK: %[[M1:.+]] = arith.maximumf %[[REST]], %[[ROUNDS]]#1 : f32
// CHECK: %[[M2:.+]] = arith.maximumf %[[M1]], %[[ROUNDS]]#2 : f32
// CHECK: %[[PART:.+]] = arith.maximumf %[[M2]], %[[ROUNDS]]#3 : f32
// CHECK: %[[ALL:.+]] = gpu.all_reduce maximumf %[[PART]] uniform
// CHECK: scf.if
// CHECK: %[[OLD:.+]] = memref.load %{{.+}}[%[[ROW]]]
// CHECK: %[[NEW:.+]] = arith.maximumf %[[OLD]], %[[ALL]] : f32
// CHECK: memref.store %[[NEW]], %{{.+}}[%[[ROW]]]
// OFF-LABEL: func.func @row_max
// OFF-NOT: gpu.all_reduce
func.func @row_max(%x: memref<128x5000xf32, #cuda0>, %m: memref<128xf32, #cuda0>) {
  gp.kernel "row_max" ins(%x : memref<128x5000xf32, #cuda0>) outs(%m : memref<128xf32, #cuda0>) {
  ^bb0(%in: memref<128x5000xf32, #cuda0>, %out: memref<128xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<128x5000xf32, #cuda0>) outs(%out : memref<128xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// A sum of f16 to a scalar over a symbolic size: blocks share the
// reduction (their count computed on the host from the size, at most
// 1024), threads accumulate in f32, and each block adds its result to the
// output atomically (which also adds the output's initial value).
// CHECK-LABEL: func.func @sum_to_scalar
// CHECK: %[[N:.+]] = memref.dim
// CHECK: %[[WANT:.+]] = arith.ceildivui %[[N]], %{{.+}}
// CHECK: %[[AT_LEAST_ONE:.+]] = arith.maxui %[[WANT]], %{{.+}}
// CHECK: %[[BLOCKS:.+]] = arith.minui %[[AT_LEAST_ONE]], %{{.+}}
// CHECK: gpu.launch_func @gp_kernels::@sum_to_scalar blocks in (%{{.+}}, %[[BLOCKS]], %{{.+}})
// CHECK: gpu.func @sum_to_scalar
// CHECK: scf.for {{.+}} -> (f32)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: arith.addf {{.+}} : f32
// CHECK: gpu.all_reduce add
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: memref.atomic_rmw addf
func.func @sum_to_scalar(%x: memref<?xf16, #cuda0>, %s: memref<f16, #cuda0>) {
  gp.kernel "sum_to_scalar" ins(%x : memref<?xf16, #cuda0>) outs(%s : memref<f16, #cuda0>) {
  ^bb0(%in: memref<?xf16, #cuda0>, %out: memref<f16, #cuda0>):
    linalg.reduce ins(%in : memref<?xf16, #cuda0>) outs(%out : memref<f16, #cuda0>) dimensions = [0]
    (%a: f16, %b: f16) {
      %r = arith.addf %a, %b : f16
      linalg.yield %r : f16
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// f32 max and min to a scalar over split blocks: each block folds its
// result with one integer atomic at the element's address (a NaN made the
// NaN that wins): signed max for a non-negative value, unsigned min for a
// negative one; min the mirror image. No compare-and-swap loop.
// CHECK-LABEL: gpu.func @max_to_scalar
// CHECK: gpu.all_reduce maximumf
// CHECK: arith.cmpf uno
// CHECK: arith.bitcast %{{.+}} : f32 to i32
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: llvm.inttoptr
// CHECK: scf.if
// CHECK-NEXT: llvm.atomicrmw umin
// CHECK: else
// CHECK-NEXT: llvm.atomicrmw max
// CHECK-NOT: memref.atomic_rmw
// CHECK-NOT: memref.generic_atomic_rmw
// CHECK-LABEL: gpu.func @min_to_scalar
// CHECK: gpu.all_reduce minimumf
// CHECK: llvm.inttoptr
// CHECK: scf.if
// CHECK-NEXT: llvm.atomicrmw umax
// CHECK: else
// CHECK-NEXT: llvm.atomicrmw min
func.func @max_min_to_scalar(%x: memref<?xf32, #cuda0>, %mx: memref<f32, #cuda0>, %mn: memref<f32, #cuda0>) {
  gp.kernel "max_to_scalar" ins(%x : memref<?xf32, #cuda0>) outs(%mx : memref<f32, #cuda0>) {
  ^bb0(%in: memref<?xf32, #cuda0>, %out: memref<f32, #cuda0>):
    linalg.reduce ins(%in : memref<?xf32, #cuda0>) outs(%out : memref<f32, #cuda0>) dimensions = [0]
    (%a: f32, %b: f32) {
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "min_to_scalar" ins(%x : memref<?xf32, #cuda0>) outs(%mn : memref<f32, #cuda0>) {
  ^bb0(%in: memref<?xf32, #cuda0>, %out: memref<f32, #cuda0>):
    linalg.reduce ins(%in : memref<?xf32, #cuda0>) outs(%out : memref<f32, #cuda0>) dimensions = [0]
    (%a: f32, %b: f32) {
      %r = arith.minimumf %a, %b : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>

// A reduction over a middle dimension with two outputs (a sum and a sum of
// squares, as layer norm needs): the parallel dimensions (4x6 = 24 points)
// are the blocks; each output has its own all_reduce; the payload's
// products are computed per element.
// CHECK-LABEL: func.func @two_statistics
// CHECK-DAG: %[[C24:.+]] = arith.constant 24 : index
// CHECK: gpu.launch_func @gp_kernels::@stats blocks in (%[[C24]], %{{.+}}, %{{.+}})
// CHECK: gpu.func @stats
// CHECK: scf.for {{.+}} -> (f32, f32)
// CHECK: arith.mulf
// CHECK: gpu.all_reduce add
// CHECK: gpu.all_reduce add
// CHECK-NOT: memref.atomic_rmw
// CHECK: gpu.return
func.func @two_statistics(%x: memref<4x500x6xf32, #cuda0>, %s: memref<4x6xf32, #cuda0>, %q: memref<4x6xf32, #cuda0>) {
  gp.kernel "stats" ins(%x : memref<4x500x6xf32, #cuda0>) outs(%s, %q : memref<4x6xf32, #cuda0>, memref<4x6xf32, #cuda0>) {
  ^bb0(%in: memref<4x500x6xf32, #cuda0>, %sum: memref<4x6xf32, #cuda0>, %sq: memref<4x6xf32, #cuda0>):
    linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%in : memref<4x500x6xf32, #cuda0>) outs(%sum, %sq : memref<4x6xf32, #cuda0>, memref<4x6xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %a2 = arith.mulf %a, %a : f32
      %r0 = arith.addf %a, %b : f32
      %r1 = arith.addf %a2, %c : f32
      linalg.yield %r0, %r1 : f32, f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Short reductions over many points keep a thread per point: 16 elements
// per column, 4096 columns.
// CHECK-LABEL: func.func @short_columns
// CHECK-NOT: gpu.all_reduce
// CHECK: gpu.func @column_sum
// CHECK: scf.for
// CHECK-NOT: gpu.all_reduce
func.func @short_columns(%x: memref<16x4096xf32, #cuda0>, %s: memref<4096xf32, #cuda0>) {
  gp.kernel "column_sum" ins(%x : memref<16x4096xf32, #cuda0>) outs(%s : memref<4096xf32, #cuda0>) {
  ^bb0(%in: memref<16x4096xf32, #cuda0>, %out: memref<4096xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
        ins(%in : memref<16x4096xf32, #cuda0>) outs(%out : memref<4096xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>

// xor has no atomic read-modify-write: a long xor to a scalar stays in one
// block (of 256 threads), and i32 values combine as i32. An index-using
// payload (linalg.index) sees the element's position.
// CHECK-LABEL: func.func @xor_positions
// CHECK: gpu.launch_func @gp_kernels::@xor_positions blocks in (%[[ONE:.+]], %[[ONE]], %[[ONE]]) threads in
// CHECK: gpu.func @xor_positions
// CHECK: scf.for %[[I:[a-z0-9_]+]] = {{.+}} -> (i32)
// CHECK: arith.index_cast %[[I]]
// CHECK: gpu.all_reduce xor
// CHECK-NOT: memref.atomic_rmw
func.func @xor_positions(%x: memref<100000xi32, #cuda0>, %s: memref<i32, #cuda0>) {
  gp.kernel "xor_positions" ins(%x : memref<100000xi32, #cuda0>) outs(%s : memref<i32, #cuda0>) {
  ^bb0(%in: memref<100000xi32, #cuda0>, %out: memref<i32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #none], iterator_types = ["reduction"]}
        ins(%in : memref<100000xi32, #cuda0>) outs(%out : memref<i32, #cuda0>) {
    ^bb0(%a: i32, %b: i32):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i32
      %v = arith.addi %a, %ii : i32
      %r = arith.xori %v, %b : i32
      linalg.yield %r : i32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>

// A payload that reads the output other than through its combiner (here a
// running value that depends on it) is not a reduction the block lowering
// can split: it keeps the loop mapping (one thread).
// CHECK-LABEL: func.func @not_a_combiner
// CHECK-NOT: gpu.all_reduce
// CHECK: return
func.func @not_a_combiner(%x: memref<1000xf32, #cuda0>, %s: memref<f32, #cuda0>) {
  gp.kernel "recurrence" ins(%x : memref<1000xf32, #cuda0>) outs(%s : memref<f32, #cuda0>) {
  ^bb0(%in: memref<1000xf32, #cuda0>, %out: memref<f32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #none], iterator_types = ["reduction"]}
        ins(%in : memref<1000xf32, #cuda0>) outs(%out : memref<f32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %half = arith.constant 0.5 : f32
      %decayed = arith.mulf %b, %half : f32
      %r = arith.addf %a, %decayed : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A fill of the output right before a row reduction (an importer's
// amax: fill with -inf, then reduce) needs no launch of its own: the block
// that owns a row combines its result with the fill value instead of the
// output's contents. The fill of an output that a reduction also reads is
// kept.
// CHECK-LABEL: func.func @fill_then_reduce
// CHECK: gpu.launch_func @gp_kernels::@amax blocks
// CHECK-NOT: gpu.launch_func
// (Here the fill value is max's neutral element, so the canonicalizer
// folds the combination away and the block's result is stored as is.)
// CHECK: gpu.func @amax(
// CHECK: %[[ALL:.+]] = gpu.all_reduce maximumf
// CHECK: scf.if
// CHECK-NOT: memref.load
// CHECK: memref.store %[[ALL]]
func.func @fill_then_reduce(%x: memref<64x512xf32, #cuda0>, %m: memref<64xf32, #cuda0>) {
  gp.kernel "amax" ins(%x : memref<64x512xf32, #cuda0>) outs(%m : memref<64xf32, #cuda0>) {
  ^bb0(%in: memref<64x512xf32, #cuda0>, %out: memref<64xf32, #cuda0>):
    %ninf = arith.constant 0xFF800000 : f32
    linalg.fill ins(%ninf : f32) outs(%out : memref<64xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<64x512xf32, #cuda0>) outs(%out : memref<64xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// 64-bit reductions run on blocks too (an index check's error flag over
// token ids; int64 sums): an i64 maximum to a scalar over a symbolic size
// is one block combined with gpu.all_reduce and folded into the output by
// thread 0, with no atomics across blocks (that flag is host memory mapped
// for the device); an f64 row sum accumulates in f64.
// CHECK-LABEL: func.func @wide_reductions
// CHECK: gpu.launch_func {{ *}}@gp_kernels::@flag_max blocks in (%c1, %c1, %c1)
// CHECK: gpu.func @flag_max
// CHECK: gpu.all_reduce {{ *}}maxsi
// CHECK-NOT: atomic
// CHECK: arith.maxsi
// CHECK: memref.store
// CHECK: gpu.func @row_sum_f64
// CHECK: scf.for {{.+}} -> (f64)
// CHECK: gpu.all_reduce {{ *}}add
// CHECK-NEXT: } : (f64) -> f64
// OFF-LABEL: func.func @wide_reductions
// OFF-NOT: gpu.all_reduce
func.func @wide_reductions(%ids: memref<?xi64, #cuda0>, %flag: memref<1xi64, #cuda0>, %x: memref<8x1000xf64, #cuda0>, %s: memref<8xf64, #cuda0>) {
  gp.kernel "flag_max" ins(%ids : memref<?xi64, #cuda0>) outs(%flag : memref<1xi64, #cuda0>) {
  ^bb0(%in: memref<?xi64, #cuda0>, %out: memref<1xi64, #cuda0>):
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (0)>], iterator_types = ["reduction"]}
        ins(%in : memref<?xi64, #cuda0>) outs(%out : memref<1xi64, #cuda0>) {
    ^bb0(%a: i64, %b: i64):
      %zero = arith.constant 0 : i64
      %one = arith.constant 1 : i64
      %bad = arith.cmpi slt, %a, %zero : i64
      %code = arith.select %bad, %one, %zero : i64
      %r = arith.maxsi %b, %code : i64
      linalg.yield %r : i64
    }
  }
  gp.kernel "row_sum_f64" ins(%x : memref<8x1000xf64, #cuda0>) outs(%s : memref<8xf64, #cuda0>) {
  ^bb0(%in: memref<8x1000xf64, #cuda0>, %out: memref<8xf64, #cuda0>):
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<8x1000xf64, #cuda0>) outs(%out : memref<8xf64, #cuda0>) {
    ^bb0(%a: f64, %b: f64):
      %r = arith.addf %a, %b : f64
      linalg.yield %r : f64
    }
  }
  return
}
