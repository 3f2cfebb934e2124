// RUN: gp-opt %s --gp-import --split-input-file | FileCheck %s
// RUN: gp-opt %s --gp-import=default-device=cpu --split-input-file | FileCheck %s --check-prefix=CPU

// Memrefs without a memory space live on the default device; a linalg op
// becomes a kernel with its captured constant cloned in and a captured
// scalar as an input; a buffer both read and written is passed once.
// CHECK-LABEL: func.func @linalg_kernels
// CHECK-SAME: (%[[X:.+]]: memref<8xf32, #cuda0>, %[[S:.+]]: f32) -> memref<8xf32, #cuda0>
// CHECK: %[[Y:.+]] = gp.buffer.alloc() : memref<8xf32, #cuda0>
// CHECK: gp.kernel "generic_0" ins(%[[S]], %[[X]] : f32, memref<8xf32, #cuda0>) outs(%[[Y]] : memref<8xf32, #cuda0>)
// CHECK: ^bb0(%[[KS:.+]]: f32, %[[KX:.+]]: memref<8xf32, #cuda0>, %[[KY:.+]]: memref<8xf32, #cuda0>):
// CHECK-NEXT: %[[TWO:.+]] = arith.constant 2.0
// CHECK-NEXT: linalg.generic {{.+}} ins(%[[KX]] : {{.+}}) outs(%[[KY]] : {{.+}})
// CHECK: arith.mulf %{{.+}}, %[[TWO]]
// CHECK: arith.addf %{{.+}}, %[[KS]]
// CHECK: gp.kernel "add_1" outs(%[[Y]] : memref<8xf32, #cuda0>)
// CHECK: linalg.add ins(%{{.+}}, %{{.+}} : {{.+}}) outs(%{{.+}} : {{.+}})
// CHECK-NOT: arith.constant
// CHECK: return %[[Y]]
// CPU-LABEL: func.func @linalg_kernels
// CPU-SAME: memref<8xf32, #cpu>
#map = affine_map<(d0) -> (d0)>
func.func @linalg_kernels(%x: memref<8xf32>, %s: f32) -> memref<8xf32> {
  %two = arith.constant 2.0 : f32
  %y = memref.alloc() : memref<8xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : memref<8xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    %r = arith.addf %m, %s : f32
    linalg.yield %r : f32
  }
  linalg.add ins(%y, %y : memref<8xf32>, memref<8xf32>) outs(%y : memref<8xf32>)
  return %y : memref<8xf32>
}

// -----

// A function's gp.default_device wins over the option; #gp.device spaces
// and the integer space 0 are kept and taken as the default.
// CHECK-LABEL: func.func @devices
// CHECK-SAME: (%{{.+}}: memref<4xf32, #cuda1>, %{{.+}}: memref<4xf32, #cpu>, %{{.+}}: memref<4xf32, #cuda1>)
// CHECK: gp.copy %{{.+}}, %{{.+}} : memref<4xf32, #cuda1> to memref<4xf32, #cpu>
// CPU-LABEL: func.func @devices
// CPU-SAME: #cuda1
func.func @devices(%a: memref<4xf32>, %b: memref<4xf32, #gp.device<cpu>>, %c: memref<4xf32, 0>)
    attributes {gp.default_device = #gp.device<cuda:1>} {
  memref.copy %a, %b : memref<4xf32> to memref<4xf32, #gp.device<cpu>>
  return
}

// -----

// Allocations become gp.buffer.alloc (dynamic sizes kept); frees go, as
// gp-partition re-plans them; memref.dim of an allocation is its size, of
// an argument a symint with the function's bounds.
// CHECK-LABEL: func.func @buffers
// CHECK: %[[N:.+]] = gp.symint.dim "arg0_dim0" = %arg0[0] {max = 64 : i64, min = 2 : i64}
// CHECK: %[[A:.+]] = gp.buffer.alloc(%[[N]]) : memref<?xf32, #cuda0>
// CHECK: %[[B:.+]] = gp.buffer.alloc() : memref<4xf32, #cuda0>
// CHECK: gp.copy %arg0, %[[A]]
// CHECK-NOT: dealloc
// CHECK: return %[[N]], %[[N]] : index, index
func.func @buffers(%x: memref<?xf32>) -> (index, index)
    attributes {gp.symint_min = 2 : i64, gp.symint_max = 64 : i64} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %a = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
  %b = memref.alloca() : memref<4xf32>
  memref.copy %x, %a : memref<?xf32> to memref<?xf32>
  %m = memref.dim %a, %c0 : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return %n, %m : index, index
}

// -----

// Views: a rank-reducing subview, a transpose, collapse and expand with
// dynamic sizes (host index math; the expand keeps its groups, which the
// lowering checks its sizes against), a byte view and a flattening
// reinterpret_cast; casts disappear.
// CHECK-LABEL: func.func @views
// CHECK: %[[N:.+]] = gp.symint.dim "arg1_dim0" = %arg1[0]
// CHECK: %[[ROW:.+]] = gp.buffer.slice %arg0 [1, 0] [1, 6] [1, 1] : memref<4x6xf32, #cuda0> to memref<6xf32, strided<[1], offset: 6>, #cuda0>
// CHECK: gp.buffer.transpose %arg0 [1, 0] : memref<4x6xf32, #cuda0> to memref<6x4xf32, strided<[1, 6]>, #cuda0>
// CHECK: %[[C3:.+]] = arith.constant 3 : index
// CHECK: %[[FLAT:.+]] = arith.muli %[[N]], %[[C3]] : index
// CHECK: %[[F:.+]] = gp.buffer.reshape %arg1(%[[FLAT]]) : memref<?x3xf32, #cuda0> to memref<?xf32, #cuda0>
// CHECK: gp.buffer.reshape %[[F]](%[[N]]) expand {{\[\[}}0, 1]] : memref<?xf32, #cuda0> to memref<?x3xf32, #cuda0>
// CHECK: %[[BYTES:.+]] = gp.buffer.slice %arg2 [0] [64] [1] : memref<128xi8, #cuda0> to memref<64xi8, #cuda0>
// CHECK: %[[WORDS:.+]] = gp.buffer.bitcast %[[BYTES]] : memref<64xi8, #cuda0> to memref<16xf32, #cuda0>
// CHECK: gp.buffer.reshape %[[WORDS]]() : memref<16xf32, #cuda0> to memref<4x4xf32, #cuda0>
// CHECK: gp.buffer.reshape %arg0() : memref<4x6xf32, #cuda0> to memref<24xf32, #cuda0>
// CHECK-NOT: memref.
// CHECK: return
func.func @views(%x: memref<4x6xf32>, %d: memref<?x3xf32>, %raw: memref<128xi8>)
    -> (memref<6xf32, strided<[1], offset: 6>>, memref<6x4xf32, strided<[1, 6]>>,
        memref<?x3xf32>, memref<4x4xf32>, memref<24xf32>) {
  %c0 = arith.constant 0 : index
  %row = memref.subview %x[1, 0] [1, 6] [1, 1] : memref<4x6xf32> to memref<6xf32, strided<[1], offset: 6>>
  %t = memref.transpose %x (i, j) -> (j, i) : memref<4x6xf32> to memref<6x4xf32, strided<[1, 6]>>
  %flat = memref.collapse_shape %d [[0, 1]] : memref<?x3xf32> into memref<?xf32>
  %n = memref.dim %d, %c0 : memref<?x3xf32>
  %back = memref.expand_shape %flat [[0, 1]] output_shape [%n, 3] : memref<?xf32> into memref<?x3xf32>
  %words = memref.view %raw[%c0][] : memref<128xi8> to memref<4x4xf32>
  %flat_x = memref.reinterpret_cast %x to offset: [0], sizes: [24], strides: [1] : memref<4x6xf32> to memref<24xf32>
  %any = memref.cast %back : memref<?x3xf32> to memref<?x?xf32>
  %again = memref.cast %any : memref<?x?xf32> to memref<?x3xf32>
  return %row, %t, %again, %words, %flat_x
      : memref<6xf32, strided<[1], offset: 6>>, memref<6x4xf32, strided<[1, 6]>>,
        memref<?x3xf32>, memref<4x4xf32>, memref<24xf32>
}

// -----

// A store takes the loads of its device and the math on them into a
// one-thread kernel; a load the host uses becomes gp.item of the element.
// CHECK-LABEL: func.func @scalars
// CHECK: gp.kernel "store_0" outs(%arg0 : memref<4xf32, #cuda0>)
// CHECK: memref.load
// CHECK: arith.mulf
// CHECK: memref.store
// CHECK: %[[E:.+]] = gp.buffer.slice %arg1 [1, 0] [1, 1] [1, 1] : memref<2x3xf32, #cuda0> to memref<1x1xf32, strided<[3, 1], offset: 3>, #cuda0>
// CHECK: %[[V:.+]] = gp.item %[[E]] : memref<1x1xf32, strided<[3, 1], offset: 3>, #cuda0> -> f32
// CHECK: %[[Z:.+]] = gp.item %arg2 : memref<f32, #cuda0> -> f32
// CHECK: %[[SUM:.+]] = arith.addf %[[V]], %[[Z]] : f32
// CHECK: return %[[SUM]] : f32
func.func @scalars(%x: memref<4xf32>, %m: memref<2x3xf32>, %z: memref<f32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %a = memref.load %x[%c0] : memref<4xf32>
  %sq = arith.mulf %a, %a : f32
  memref.store %sq, %x[%c3] : memref<4xf32>
  %v = memref.load %m[%c1, %c0] : memref<2x3xf32>
  %w = memref.load %z[] : memref<f32>
  %sum = arith.addf %v, %w : f32
  return %sum : f32
}

// -----

// A store after a write to what it loads must not move that load: the
// value is read on the host, where it was.
// CHECK-LABEL: func.func @store_after_write
// CHECK: %[[OLD:.+]] = gp.item
// CHECK: gp.kernel "fill_0"
// CHECK: gp.kernel "store_1" ins(%[[OLD]] : f32)
func.func @store_after_write(%x: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %old = memref.load %x[%c0] : memref<1xf32>
  linalg.fill ins(%zero : f32) outs(%x : memref<1xf32>)
  memref.store %old, %x[%c0] : memref<1xf32>
  return
}

// -----

// External calls become fallbacks with the declaration's schema; the
// declaration goes.
// CHECK-LABEL: func.func @calls
// CHECK: %[[R:.+]]:2 = gp.fallback "mylib::scale.out"(%arg0, %arg1) mutates [1] aliases [1, -] tags ["cudagraph_unsafe"] : (memref<4xf32, #cuda0>, memref<4xf32, #cuda0>) -> (memref<4xf32, #cuda0>, memref<4xf32, #cuda0>)
// CHECK: gp.fallback "extern::helper"(%[[R]]#1)
// CHECK-NOT: func.func private
func.func private @scale(memref<4xf32>, memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
    attributes {gp.op_name = "mylib::scale.out", gp.mutates = [1], gp.aliases = [1, -1],
                gp.tags = ["cudagraph_unsafe"]}
func.func private @helper(memref<4xf32>) -> memref<4xf32> attributes {gp.mutates = array<i64>}
func.func @calls(%x: memref<4xf32>, %out: memref<4xf32>) -> memref<4xf32> {
  %r:2 = func.call @scale(%x, %out) : (memref<4xf32>, memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
  %h = func.call @helper(%r#1) : (memref<4xf32>) -> memref<4xf32>
  return %h : memref<4xf32>
}

// -----

// Constant globals become buffers filled by a kernel.
// CHECK-LABEL: func.func @globals
// CHECK: %[[K:.+]] = gp.buffer.alloc() : memref<2xf32, #cuda0>
// CHECK: gp.kernel "constant_0" outs(%[[K]]
// CHECK: arith.constant 1.5
// CHECK: memref.store
// CHECK: arith.constant -2.5
// CHECK: memref.store
// CHECK: %[[H:.+]] = gp.buffer.alloc() : memref<3x3xf32, #cuda0>
// CHECK: gp.kernel "constant_1" outs(%[[H]]
// CHECK: linalg.fill
// CHECK-NOT: memref.global
// CHECK-NOT: memref.get_global
memref.global "private" constant @pair : memref<2xf32> = dense<[1.5, -2.5]>
memref.global "private" constant @halves : memref<3x3xf32> = dense<0.5>
func.func @globals() -> (memref<2xf32>, memref<3x3xf32>) {
  %p = memref.get_global @pair : memref<2xf32>
  %h = memref.get_global @halves : memref<3x3xf32>
  return %p, %h : memref<2xf32>, memref<3x3xf32>
}

// -----

// Control flow stays, with its body imported; loops over buffers become
// kernels whose buffers are outputs only when something writes them
// (here through a subview made inside).
// CHECK-LABEL: func.func @loops
// CHECK: scf.for
// CHECK: gp.kernel "fill_0" outs(%arg1
// CHECK: gp.kernel "parallel_1" ins(%arg0 : {{.+}}) outs(%arg1 : {{.+}})
// CHECK: memref.subview
// CHECK: gp.kernel "forall_2" ins(%arg0 : {{.+}}) outs(%arg1 : {{.+}})
// CHECK-NEXT: ^bb0
// CHECK-NOT: scf.forall
// CHECK: scf.parallel
func.func @loops(%x: memref<8xf32>, %y: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    linalg.fill ins(%zero : f32) outs(%y : memref<8xf32>)
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %x[%i] : memref<8xf32>
    %w = memref.subview %y[%i] [1] [1] : memref<8xf32> to memref<1xf32, strided<[1], offset: ?>>
    memref.store %v, %w[%c0] : memref<1xf32, strided<[1], offset: ?>>
  }
  scf.forall (%i) in (8) {
    %v = memref.load %x[%i] : memref<8xf32>
    memref.store %v, %y[%i] : memref<8xf32>
  }
  return
}

// -----

// Synchronous gpu dialect buffers and copies, as gpu-based frontends
// emit them.
// CHECK-LABEL: func.func @gpu_buffers
// CHECK: %[[D:.+]] = gp.buffer.alloc() : memref<16xf32, #cuda0>
// CHECK: gp.copy %arg0, %[[D]] : memref<16xf32, #cpu> to memref<16xf32, #cuda0>
// CHECK: gp.copy %[[D]], %arg0 : memref<16xf32, #cuda0> to memref<16xf32, #cpu>
// CHECK-NOT: gpu.
func.func @gpu_buffers(%host: memref<16xf32, #gp.device<cpu>>) {
  %d = gpu.alloc () : memref<16xf32>
  gpu.memcpy %d, %host : memref<16xf32>, memref<16xf32, #gp.device<cpu>>
  gpu.memcpy %host, %d : memref<16xf32, #gp.device<cpu>>, memref<16xf32>
  gpu.dealloc %d : memref<16xf32>
  return
}

// -----

// A value read from device memory and used as a size (nonzero's count, an
// .item() torch.export calls unbacked) is a gp.symint.unbacked, named u0,
// u1, ... and bounded like the function's symints; the program waits for it
// there. Host arithmetic on the value that nothing uses is dropped; a use of
// the value itself stays a gp.item.
// CHECK-LABEL: func.func @data_dependent_size
// CHECK: %[[N:.+]] = gp.symint.unbacked "u0" = %arg0 {max = 64 : i64, min = 0 : i64} : memref<i64, #cuda0>
// CHECK-NOT: arith.sitofp
// CHECK: %[[BUF:.+]] = gp.buffer.alloc(%[[N]]) : memref<?xf32, #cuda0>
// CHECK: %[[M:.+]] = gp.buffer.slice %arg1 [1] [1] [1]
// CHECK: %[[U1:.+]] = gp.symint.unbacked "u1" = %[[M]] {max = 64 : i64, min = 0 : i64}
// CHECK: %[[V:.+]] = gp.item %[[M]] : memref<1xi64, strided<[1], offset: 1>, #cuda0> -> i64
// CHECK: gp.buffer.alloc(%[[U1]], %[[N]]) : memref<?x?xf32, #cuda0>
// CHECK: return %[[BUF]], %{{.+}}, %[[V]]
func.func @data_dependent_size(%count: memref<i64>, %counts: memref<2xi64>)
    -> (memref<?xf32>, memref<?x?xf32>, i64)
    attributes {gp.symint_min = 0 : i64, gp.symint_max = 64 : i64} {
  %c1 = arith.constant 1 : index
  %v = memref.load %count[] : memref<i64>
  %n = arith.index_cast %v : i64 to index
  %unused = arith.sitofp %v : i64 to f32
  %buf = memref.alloc(%n) : memref<?xf32>
  %w = memref.load %counts[%c1] : memref<2xi64>
  %m = arith.index_cast %w : i64 to index
  %grid = memref.alloc(%m, %n) : memref<?x?xf32>
  return %buf, %grid, %w : memref<?xf32>, memref<?x?xf32>, i64
}

// -----

// linalg.softmax (torch-mlir's and IREE's, here bufferized) becomes the
// ops it stands for: the row maximum from -inf, exp(x - max) into the
// output, the row sum from 0, and the output divided by it in place, each
// a kernel; the row statistics are buffers without the softmax dimension.
// CHECK-LABEL: func.func @softmax_named
// CHECK-SAME: (%[[X:.+]]: memref<4x?xf32, #cuda0>, %[[Y:.+]]: memref<4x?xf32, #cuda0>)
// CHECK: %[[MAX:.+]] = gp.buffer.alloc() : memref<4xf32, #cuda0>
// CHECK: linalg.fill ins(%{{.+}} : f32)
// CHECK: gp.kernel {{.+}} ins(%[[X]] : {{.+}}) outs(%[[MAX]] : {{.+}})
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: gp.kernel {{.+}} ins(%[[X]], %[[MAX]] : {{.+}}) outs(%[[Y]] : {{.+}})
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[SUM:.+]] = gp.buffer.alloc() : memref<4xf32, #cuda0>
// CHECK: gp.kernel {{.+}} ins(%[[Y]] : {{.+}}) outs(%[[SUM]] : {{.+}})
// CHECK: arith.addf
// CHECK: gp.kernel {{.+}} ins(%[[SUM]] : {{.+}}) outs(%[[Y]] : {{.+}})
// CHECK: arith.divf
// CHECK-NOT: linalg.softmax
func.func @softmax_named(%x: memref<4x?xf32>, %y: memref<4x?xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<4x?xf32>) outs(%y : memref<4x?xf32>)
  return
}
