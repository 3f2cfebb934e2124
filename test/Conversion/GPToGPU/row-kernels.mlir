// RUN: gp-opt %s -split-input-file --convert-gp-to-gpu | FileCheck %s
// RUN: gp-opt %s -split-input-file --convert-gp-to-gpu=row-elements-per-thread=16 | FileCheck %s --check-prefix=WIDE

// Row kernels: a noalias kernel whose linalg ops work row by row (a
// softmax as gp-fuse-kernels merges it) is one launch with a block per
// row: each reduction folds the thread's share of the row, gpu.all_reduce
// combines the threads and thread 0 writes the row's value (the fill
// before it is its initial value, no store of its own); a barrier
// separates the ops, whose later ones read those values from memory.
// Rows of up to 16 elements a thread are unrolled: here 1000 elements over
// 256 threads, three whole rounds and a guarded tail. The input row is
// loaded once, by the first op, and kept in registers for the others; the
// maximum and the sum are loaded once per op after the barrier.

// CHECK-LABEL: func.func @softmax(
// CHECK-COUNT-1: gpu.launch_func {{ *}}@gp_kernels::@softmax blocks in (%{{.+}}, %{{.+}}, %{{.+}}) threads in (%{{.+}}, %{{.+}}, %{{.+}})
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: gpu.func @softmax(
// CHECK-SAME: %[[X:[^:]+]]: memref<4x1000xf32>, %[[M:[^:]+]]: memref<4xf32>, %[[S:[^:]+]]: memref<4xf32>, %[[Y:[^:]+]]: memref<4x1000xf32>
// CHECK-COUNT-3: memref.load %[[X]]
// CHECK-NOT: memref.load
// CHECK: scf.if
// CHECK-NEXT: memref.load %[[X]]
// CHECK: gpu.all_reduce {{ *}}maximumf
// CHECK: memref.store %{{.+}}, %[[M]]
// CHECK: gpu.barrier
// CHECK-NEXT: memref.load %[[M]]
// CHECK-NOT: memref.load
// CHECK-COUNT-3: math.exp
// CHECK: scf.if
// CHECK-NEXT: memref.load %[[X]]
// CHECK-NOT: memref.load
// CHECK: gpu.all_reduce {{ *}}add
// CHECK: memref.store %{{.+}}, %[[S]]
// CHECK: gpu.barrier
// CHECK-NEXT: memref.load %[[M]]
// CHECK-NEXT: memref.load %[[S]]
// CHECK-NOT: memref.load
// CHECK-COUNT-3: memref.store %{{.+}}, %[[Y]]
// CHECK: scf.if
// CHECK-NEXT: memref.load %[[X]]
// CHECK-NOT: memref.load
// CHECK: memref.store %{{.+}}, %[[Y]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
#cuda0 = #gp.device<cuda:0>
func.func @softmax(%x: memref<4x1000xf32, #cuda0>, %m: memref<4xf32, #cuda0>, %s: memref<4xf32, #cuda0>, %y: memref<4x1000xf32, #cuda0>) {
  gp.kernel "softmax" noalias ins(%x : memref<4x1000xf32, #cuda0>) outs(%m, %s, %y : memref<4xf32, #cuda0>, memref<4xf32, #cuda0>, memref<4x1000xf32, #cuda0>) {
  ^bb0(%i0: memref<4x1000xf32, #cuda0>, %o0: memref<4xf32, #cuda0>, %o1: memref<4xf32, #cuda0>, %o2: memref<4x1000xf32, #cuda0>):
    %ninf = arith.constant 0xFF800000 : f32
    linalg.fill ins(%ninf : f32) outs(%o0 : memref<4xf32, #cuda0>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%i0 : memref<4x1000xf32, #cuda0>) outs(%o0 : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o1 : memref<4xf32, #cuda0>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%i0, %o0 : memref<4x1000xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%o1 : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %mx: f32, %acc: f32):
      %d = arith.subf %a, %mx : f32
      %e = math.exp %d : f32
      %r = arith.addf %e, %acc : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%i0, %o0, %o1 : memref<4x1000xf32, #cuda0>, memref<4xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%o2 : memref<4x1000xf32, #cuda0>) {
    ^bb0(%a: f32, %mx: f32, %sum: f32, %out: f32):
      %d = arith.subf %a, %mx : f32
      %e = math.exp %d : f32
      %r = arith.divf %e, %sum : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// Without noalias the same body is three launches (the fills folded into
// the reductions): distinct buffers might be the same memory.
// CHECK-LABEL: func.func @softmax_may_alias(
// CHECK-COUNT-3: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
#cuda0 = #gp.device<cuda:0>
func.func @softmax_may_alias(%x: memref<4x1000xf32, #cuda0>, %m: memref<4xf32, #cuda0>, %s: memref<4xf32, #cuda0>, %y: memref<4x1000xf32, #cuda0>) {
  gp.kernel "softmax" ins(%x : memref<4x1000xf32, #cuda0>) outs(%m, %s, %y : memref<4xf32, #cuda0>, memref<4xf32, #cuda0>, memref<4x1000xf32, #cuda0>) {
  ^bb0(%i0: memref<4x1000xf32, #cuda0>, %o0: memref<4xf32, #cuda0>, %o1: memref<4xf32, #cuda0>, %o2: memref<4x1000xf32, #cuda0>):
    %ninf = arith.constant 0xFF800000 : f32
    linalg.fill ins(%ninf : f32) outs(%o0 : memref<4xf32, #cuda0>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%i0 : memref<4x1000xf32, #cuda0>) outs(%o0 : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o1 : memref<4xf32, #cuda0>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%i0, %o0 : memref<4x1000xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%o1 : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %mx: f32, %acc: f32):
      %d = arith.subf %a, %mx : f32
      %e = math.exp %d : f32
      %r = arith.addf %e, %acc : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%i0, %o0, %o1 : memref<4x1000xf32, #cuda0>, memref<4xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%o2 : memref<4x1000xf32, #cuda0>) {
    ^bb0(%a: f32, %mx: f32, %sum: f32, %out: f32):
      %d = arith.subf %a, %mx : f32
      %e = math.exp %d : f32
      %r = arith.divf %e, %sum : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// Rows of two loops (2x3 blocks), f16 data accumulated in f32: the mean,
// then the centred values, in one launch of 64 threads per row.
// CHECK-LABEL: func.func @layer_norm_f16(
// CHECK-DAG: %[[C6:.+]] = arith.constant 6 : index
// CHECK-DAG: %[[C64:.+]] = arith.constant 64 : index
// CHECK: gpu.launch_func {{ *}}@gp_kernels::@layer_norm blocks in (%[[C6]], %{{.+}}, %{{.+}}) threads in (%[[C64]], %{{.+}}, %{{.+}})
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: gpu.func @layer_norm(
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: gpu.all_reduce {{ *}}add
// CHECK: gpu.barrier
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK-NOT: gpu.barrier
#cuda0 = #gp.device<cuda:0>
func.func @layer_norm_f16(%x: memref<2x3x64xf16, #cuda0>, %mean: memref<2x3xf32, #cuda0>, %y: memref<2x3x64xf16, #cuda0>) {
  gp.kernel "layer_norm" noalias ins(%x : memref<2x3x64xf16, #cuda0>) outs(%mean, %y : memref<2x3xf32, #cuda0>, memref<2x3x64xf16, #cuda0>) {
  ^bb0(%i0: memref<2x3x64xf16, #cuda0>, %o0: memref<2x3xf32, #cuda0>, %o1: memref<2x3x64xf16, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o0 : memref<2x3xf32, #cuda0>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%i0 : memref<2x3x64xf16, #cuda0>) outs(%o0 : memref<2x3xf32, #cuda0>) {
    ^bb0(%a: f16, %acc: f32):
      %w = arith.extf %a : f16 to f32
      %r = arith.addf %w, %acc : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%i0, %o0 : memref<2x3x64xf16, #cuda0>, memref<2x3xf32, #cuda0>) outs(%o1 : memref<2x3x64xf16, #cuda0>) {
    ^bb0(%a: f16, %s: f32, %out: f16):
      %w = arith.extf %a : f16 to f32
      %n = arith.constant 6.400000e+01 : f32
      %m = arith.divf %s, %n : f32
      %d = arith.subf %w, %m : f32
      %r = arith.truncf %d : f32 to f16
      linalg.yield %r : f16
    }
  }
  return
}

// -----

// Two reductions into one buffer: the fill is the first's initial value;
// the second folds into what the first wrote (it loads the buffer).
// CHECK-LABEL: gpu.func @sum_twice(
// CHECK: gpu.all_reduce {{ *}}add
// CHECK: scf.if
// CHECK-NOT: memref.load
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: gpu.all_reduce {{ *}}add
// CHECK: scf.if
// CHECK-NEXT: memref.load
// CHECK: memref.store
// CHECK: gpu.barrier
#cuda0 = #gp.device<cuda:0>
func.func @sum_twice(%x: memref<4x100xf32, #cuda0>, %s: memref<4xf32, #cuda0>, %y: memref<4x100xf32, #cuda0>) {
  gp.kernel "sum_twice" noalias ins(%x : memref<4x100xf32, #cuda0>) outs(%s, %y : memref<4xf32, #cuda0>, memref<4x100xf32, #cuda0>) {
  ^bb0(%i0: memref<4x100xf32, #cuda0>, %o0: memref<4xf32, #cuda0>, %o1: memref<4x100xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o0 : memref<4xf32, #cuda0>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%i0 : memref<4x100xf32, #cuda0>) outs(%o0 : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%i0 : memref<4x100xf32, #cuda0>) outs(%o0 : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %acc: f32):
      %sq = arith.mulf %a, %a : f32
      %r = arith.addf %sq, %acc : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%i0, %o0 : memref<4x100xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%o1 : memref<4x100xf32, #cuda0>) {
    ^bb0(%a: f32, %t: f32, %out: f32):
      %r = arith.subf %a, %t : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// Rows of more than 16 elements a thread (8192 over 256 threads) keep
// strided loops: the reduction folds four elements a round into four
// partial results, a second loop takes what is left; the elementwise op
// loops over its share.
// CHECK-LABEL: gpu.func @wide_rows(
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK-DAG: %[[C1024:.+]] = arith.constant 1024 : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C1024]] iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (f32, f32, f32, f32)
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C256]] iter_args(%{{.+}} = %{{.+}}) -> (f32)
// CHECK: gpu.all_reduce {{ *}}add
// CHECK: gpu.barrier
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C256]] {
// CHECK: arith.divf
// CHECK: memref.store
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
#cuda0 = #gp.device<cuda:0>
func.func @wide_rows(%x: memref<2x8192xf32, #cuda0>, %s: memref<2xf32, #cuda0>, %y: memref<2x8192xf32, #cuda0>) {
  gp.kernel "wide_rows" noalias ins(%x : memref<2x8192xf32, #cuda0>) outs(%s, %y : memref<2xf32, #cuda0>, memref<2x8192xf32, #cuda0>) {
  ^bb0(%i0: memref<2x8192xf32, #cuda0>, %o0: memref<2xf32, #cuda0>, %o1: memref<2x8192xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o0 : memref<2xf32, #cuda0>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%i0 : memref<2x8192xf32, #cuda0>) outs(%o0 : memref<2xf32, #cuda0>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%i0, %o0 : memref<2x8192xf32, #cuda0>, memref<2xf32, #cuda0>) outs(%o1 : memref<2x8192xf32, #cuda0>) {
    ^bb0(%a: f32, %t: f32, %out: f32):
      %r = arith.divf %a, %t : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// A dynamic number of rows (a layer norm's mean over ?x64): the rows are
// the dimension of a buffer the ops index by their rows; a block per row,
// at least one block, and a block past the rows does nothing.
// CHECK-LABEL: func.func @dynamic_rows(
// CHECK: %[[ROWS:.+]] = memref.dim %{{.+}}, %{{.+}} : memref<?xf32>
// CHECK: %[[BLOCKS:.+]] = arith.maxui %[[ROWS]], %{{.+}} : index
// CHECK: gpu.launch_func {{ *}}@gp_kernels::@dynamic_rows blocks in (%[[BLOCKS]], %{{.+}}, %{{.+}})
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: gpu.func @dynamic_rows(
// CHECK: %[[N:.+]] = memref.dim
// CHECK: %[[IS_ROW:.+]] = arith.cmpi ult, %{{.+}}, %[[N]] : index
// CHECK: scf.if %[[IS_ROW]] {
// CHECK: gpu.all_reduce {{ *}}add
// CHECK: gpu.barrier
// CHECK: arith.subf
// CHECK: memref.store
// CHECK: gpu.return
#cuda0 = #gp.device<cuda:0>
func.func @dynamic_rows(%x: memref<?x64xf32, #cuda0>, %mean: memref<?xf32, #cuda0>, %y: memref<?x64xf32, #cuda0>) {
  gp.kernel "dynamic_rows" noalias ins(%x : memref<?x64xf32, #cuda0>) outs(%mean, %y : memref<?xf32, #cuda0>, memref<?x64xf32, #cuda0>) {
  ^bb0(%i0: memref<?x64xf32, #cuda0>, %o0: memref<?xf32, #cuda0>, %o1: memref<?x64xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o0 : memref<?xf32, #cuda0>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%i0 : memref<?x64xf32, #cuda0>) outs(%o0 : memref<?xf32, #cuda0>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%i0, %o0 : memref<?x64xf32, #cuda0>, memref<?xf32, #cuda0>) outs(%o1 : memref<?x64xf32, #cuda0>) {
    ^bb0(%a: f32, %m: f32, %out: f32):
      %r = arith.subf %a, %m : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// Dynamic rows that nothing shows to be the same: a sum and a max over
// different buffers share no buffer indexed by rows, so %x and %z may have
// different row counts: no row kernel, a launch per op.
// CHECK-LABEL: func.func @unrelated_dynamic_rows(
// CHECK-COUNT-2: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
#cuda0 = #gp.device<cuda:0>
func.func @unrelated_dynamic_rows(%x: memref<?x64xf32, #cuda0>, %z: memref<?x64xf32, #cuda0>, %s: memref<?xf32, #cuda0>, %t: memref<?xf32, #cuda0>) {
  gp.kernel "unrelated" noalias ins(%x, %z : memref<?x64xf32, #cuda0>, memref<?x64xf32, #cuda0>) outs(%s, %t : memref<?xf32, #cuda0>, memref<?xf32, #cuda0>) {
  ^bb0(%i0: memref<?x64xf32, #cuda0>, %i1: memref<?x64xf32, #cuda0>, %o0: memref<?xf32, #cuda0>, %o1: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%i0 : memref<?x64xf32, #cuda0>) outs(%o0 : memref<?xf32, #cuda0>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%i1 : memref<?x64xf32, #cuda0>) outs(%o1 : memref<?xf32, #cuda0>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.maximumf %a, %acc : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// Rows nothing reads after the kernel stay in registers: the scaled
// scores %t and the exponentials %e are planned buffers that only this
// kernel uses, each written by one elementwise op and read by later ops of
// the group at the element the same thread wrote. With 1024 elements over
// 256 threads (four whole rounds, no tail) neither is stored or loaded:
// they are not even arguments of the outlined kernel. The maximum and the
// sum, read by every thread, still go through memory; an op that stores
// nothing needs no barrier after it.
// With row-elements-per-thread=16, a row of 1024 has 64 threads of 16
// elements each (still held, still unstored).
// WIDE-LABEL: gpu.func @softmax_held(
// WIDE-SAME: %[[X:[^:]+]]: memref<4x1024xf32>, %{{[^:]+}}: memref<4xf32>, %{{[^:]+}}: memref<4xf32>, %[[Y:[^:]+]]: memref<4x1024xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>
// WIDE-COUNT-16: memref.load %[[X]]
// WIDE-NOT: memref.load %[[X]]
// WIDE-COUNT-16: memref.store %{{.+}}, %[[Y]]
// WIDE: gpu.return
// CHECK-LABEL: gpu.func @softmax_held(
// CHECK-SAME: %[[X:[^:]+]]: memref<4x1024xf32>, %[[M:[^:]+]]: memref<4xf32>, %[[S:[^:]+]]: memref<4xf32>, %[[Y:[^:]+]]: memref<4x1024xf32>)
// CHECK-COUNT-4: memref.load %[[X]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.all_reduce {{ *}}maximumf
// CHECK: memref.store %{{.+}}, %[[M]]
// CHECK: gpu.barrier
// CHECK-NEXT: memref.load %[[M]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.all_reduce {{ *}}add
// CHECK: memref.store %{{.+}}, %[[S]]
// CHECK: gpu.barrier
// CHECK-NEXT: memref.load %[[S]]
// CHECK-NOT: memref.load
// CHECK-COUNT-4: memref.store %{{.+}}, %[[Y]]
// CHECK-NOT: memref.store
// CHECK: gpu.return
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax_held(%x: memref<4x1024xf32, #cuda0>, %y: memref<4x1024xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<4x1024xf32, #cuda0>
  %m = gp.buffer.alloc() : memref<4xf32, #cuda0>
  %e = gp.buffer.alloc() : memref<4x1024xf32, #cuda0>
  %s = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "softmax_held" noalias ins(%x : memref<4x1024xf32, #cuda0>) outs(%t, %m, %e, %s, %y : memref<4x1024xf32, #cuda0>, memref<4xf32, #cuda0>, memref<4x1024xf32, #cuda0>, memref<4xf32, #cuda0>, memref<4x1024xf32, #cuda0>) {
  ^bb0(%i0: memref<4x1024xf32, #cuda0>, %o0: memref<4x1024xf32, #cuda0>, %o1: memref<4xf32, #cuda0>, %o2: memref<4x1024xf32, #cuda0>, %o3: memref<4xf32, #cuda0>, %o4: memref<4x1024xf32, #cuda0>):
    %scale = arith.constant 0.125 : f32
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%i0 : memref<4x1024xf32, #cuda0>) outs(%o0 : memref<4x1024xf32, #cuda0>) {
    ^bb0(%a: f32, %out: f32):
      %r = arith.mulf %a, %scale : f32
      linalg.yield %r : f32
    }
    %ninf = arith.constant 0xFF800000 : f32
    linalg.fill ins(%ninf : f32) outs(%o1 : memref<4xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%o0 : memref<4x1024xf32, #cuda0>) outs(%o1 : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%o0, %o1 : memref<4x1024xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%o2 : memref<4x1024xf32, #cuda0>) {
    ^bb0(%a: f32, %mx: f32, %out: f32):
      %d = arith.subf %a, %mx : f32
      %r = math.exp %d : f32
      linalg.yield %r : f32
    }
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o3 : memref<4xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%o2 : memref<4x1024xf32, #cuda0>) outs(%o3 : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%o2, %o3 : memref<4x1024xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%o4 : memref<4x1024xf32, #cuda0>) {
    ^bb0(%a: f32, %sum: f32, %out: f32):
      %r = arith.divf %a, %sum : f32
      linalg.yield %r : f32
    }
  }
  gp.buffer.dealloc %t : memref<4x1024xf32, #cuda0>
  gp.buffer.dealloc %e : memref<4x1024xf32, #cuda0>
  return
}

// -----

// A row that ends in a partial round (1000 elements over 256 threads): the
// whole rounds stay in registers, the guarded tail element is stored and
// loaded back by its own thread, so still no barrier after the ops that
// write only held rows.
// CHECK-LABEL: gpu.func @softmax_held_tail(
// CHECK-SAME: %[[X:[^:]+]]: memref<4x1000xf32>, %[[T:[^:]+]]: memref<4x1000xf32>, %[[M:[^:]+]]: memref<4xf32>, %[[E:[^:]+]]: memref<4x1000xf32>, %[[S:[^:]+]]: memref<4xf32>, %[[Y:[^:]+]]: memref<4x1000xf32>)
// CHECK-COUNT-3: memref.load %[[X]]
// CHECK: scf.if
// CHECK-NEXT: memref.load %[[X]]
// CHECK: memref.store %{{.+}}, %[[T]]
// CHECK-NOT: memref.store %{{.+}}, %[[T]]
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: memref.load %[[T]]
// CHECK-NOT: memref.load %[[T]]
// CHECK: gpu.all_reduce {{ *}}maximumf
// CHECK: gpu.barrier
// CHECK: memref.store %{{.+}}, %[[E]]
// CHECK-NOT: memref.store %{{.+}}, %[[E]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.all_reduce {{ *}}add
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax_held_tail(%x: memref<4x1000xf32, #cuda0>, %y: memref<4x1000xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<4x1000xf32, #cuda0>
  %m = gp.buffer.alloc() : memref<4xf32, #cuda0>
  %e = gp.buffer.alloc() : memref<4x1000xf32, #cuda0>
  %s = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "softmax_held_tail" noalias ins(%x : memref<4x1000xf32, #cuda0>) outs(%t, %m, %e, %s, %y : memref<4x1000xf32, #cuda0>, memref<4xf32, #cuda0>, memref<4x1000xf32, #cuda0>, memref<4xf32, #cuda0>, memref<4x1000xf32, #cuda0>) {
  ^bb0(%i0: memref<4x1000xf32, #cuda0>, %o0: memref<4x1000xf32, #cuda0>, %o1: memref<4xf32, #cuda0>, %o2: memref<4x1000xf32, #cuda0>, %o3: memref<4xf32, #cuda0>, %o4: memref<4x1000xf32, #cuda0>):
    %scale = arith.constant 0.125 : f32
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%i0 : memref<4x1000xf32, #cuda0>) outs(%o0 : memref<4x1000xf32, #cuda0>) {
    ^bb0(%a: f32, %out: f32):
      %r = arith.mulf %a, %scale : f32
      linalg.yield %r : f32
    }
    %ninf = arith.constant 0xFF800000 : f32
    linalg.fill ins(%ninf : f32) outs(%o1 : memref<4xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%o0 : memref<4x1000xf32, #cuda0>) outs(%o1 : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%o0, %o1 : memref<4x1000xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%o2 : memref<4x1000xf32, #cuda0>) {
    ^bb0(%a: f32, %mx: f32, %out: f32):
      %d = arith.subf %a, %mx : f32
      %r = math.exp %d : f32
      linalg.yield %r : f32
    }
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o3 : memref<4xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%o2 : memref<4x1000xf32, #cuda0>) outs(%o3 : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%o2, %o3 : memref<4x1000xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%o4 : memref<4x1000xf32, #cuda0>) {
    ^bb0(%a: f32, %sum: f32, %out: f32):
      %r = arith.divf %a, %sum : f32
      linalg.yield %r : f32
    }
  }
  gp.buffer.dealloc %t : memref<4x1000xf32, #cuda0>
  gp.buffer.dealloc %e : memref<4x1000xf32, #cuda0>
  return
}

// -----

// %t is read after the kernel (by @read_t), so it is stored as before, and
// the barrier after the op that writes it stays; %e is still held.
// CHECK-LABEL: gpu.func @softmax_read_after(
// CHECK-SAME: %[[X:[^:]+]]: memref<4x1024xf32>, %[[T:[^:]+]]: memref<4x1024xf32>, %[[M:[^:]+]]: memref<4xf32>, %[[S:[^:]+]]: memref<4xf32>, %[[Y:[^:]+]]: memref<4x1024xf32>)
// CHECK-COUNT-4: memref.store %{{.+}}, %[[T]]
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: memref.load %[[T]]
// CHECK: gpu.return
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax_read_after(%x: memref<4x1024xf32, #cuda0>, %y: memref<4x1024xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<4x1024xf32, #cuda0>
  %m = gp.buffer.alloc() : memref<4xf32, #cuda0>
  %e = gp.buffer.alloc() : memref<4x1024xf32, #cuda0>
  %s = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "softmax_read_after" noalias ins(%x : memref<4x1024xf32, #cuda0>) outs(%t, %m, %e, %s, %y : memref<4x1024xf32, #cuda0>, memref<4xf32, #cuda0>, memref<4x1024xf32, #cuda0>, memref<4xf32, #cuda0>, memref<4x1024xf32, #cuda0>) {
  ^bb0(%i0: memref<4x1024xf32, #cuda0>, %o0: memref<4x1024xf32, #cuda0>, %o1: memref<4xf32, #cuda0>, %o2: memref<4x1024xf32, #cuda0>, %o3: memref<4xf32, #cuda0>, %o4: memref<4x1024xf32, #cuda0>):
    %scale = arith.constant 0.125 : f32
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%i0 : memref<4x1024xf32, #cuda0>) outs(%o0 : memref<4x1024xf32, #cuda0>) {
    ^bb0(%a: f32, %out: f32):
      %r = arith.mulf %a, %scale : f32
      linalg.yield %r : f32
    }
    %ninf = arith.constant 0xFF800000 : f32
    linalg.fill ins(%ninf : f32) outs(%o1 : memref<4xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%o0 : memref<4x1024xf32, #cuda0>) outs(%o1 : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%o0, %o1 : memref<4x1024xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%o2 : memref<4x1024xf32, #cuda0>) {
    ^bb0(%a: f32, %mx: f32, %out: f32):
      %d = arith.subf %a, %mx : f32
      %r = math.exp %d : f32
      linalg.yield %r : f32
    }
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o3 : memref<4xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%o2 : memref<4x1024xf32, #cuda0>) outs(%o3 : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%o2, %o3 : memref<4x1024xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%o4 : memref<4x1024xf32, #cuda0>) {
    ^bb0(%a: f32, %sum: f32, %out: f32):
      %r = arith.divf %a, %sum : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "read_t" ins(%t : memref<4x1024xf32, #cuda0>) outs(%y : memref<4x1024xf32, #cuda0>) {
  ^bb0(%i0: memref<4x1024xf32, #cuda0>, %o0: memref<4x1024xf32, #cuda0>):
    linalg.copy ins(%i0 : memref<4x1024xf32, #cuda0>) outs(%o0 : memref<4x1024xf32, #cuda0>)
  }
  gp.buffer.dealloc %t : memref<4x1024xf32, #cuda0>
  gp.buffer.dealloc %e : memref<4x1024xf32, #cuda0>
  return
}
