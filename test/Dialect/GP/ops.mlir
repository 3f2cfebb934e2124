// RUN: gp-opt %s --split-input-file | gp-opt --split-input-file | FileCheck %s
// RUN: gp-opt %s --split-input-file --mlir-print-op-generic | gp-opt --split-input-file | FileCheck %s

// Round-trips every gp op, attribute and type through the custom and the
// generic form.

#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

// Devices print through aliases.
// CHECK-DAG: #[[CPU:.+]] = #gp.device<cpu>
// CHECK-DAG: #[[CUDA0:.+]] = #gp.device<cuda:0>
// CHECK-DAG: #[[CUDA1:.+]] = #gp.device<cuda:1>
// CHECK-DAG: #[[META:.+]] = #gp.device<meta>
// CHECK-LABEL: func.func @devices
// CHECK-SAME: memref<4xf32, #[[CUDA0]]>, %{{.*}}: memref<4xf32, #[[CUDA1]]>, %{{.*}}: memref<4xf32, #[[CPU]]>, %{{.*}}: memref<4xf32, #[[META]]>
func.func @devices(%a: memref<4xf32, #cuda0>, %b: memref<4xf32, #cuda1>,
                   %c: memref<4xf32, #cpu>, %d: memref<4xf32, #meta>) {
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Static and symbolic allocation, free, and planned placement.
// CHECK-LABEL: func.func @buffers
// CHECK-SAME: attributes {gp.arenas = [#gp.arena<#{{.+}}, 4096>]}
func.func @buffers(%arg0: index) attributes {gp.arenas = [#gp.arena<#cuda0, 4096>]} {
  // CHECK: %[[S0:.+]] = gp.symint "s0" = %{{.+}} {hint = 8 : i64, max = 512 : i64, min = 1 : i64}
  %s0 = gp.symint "s0" = %arg0 {hint = 8 : i64, min = 1 : i64, max = 512 : i64}
  // CHECK: %[[BUF:.+]] = gp.buffer.alloc() : memref<8xf32, #{{.+}}>
  %buf = gp.buffer.alloc() : memref<8xf32, #cuda0>
  // CHECK: %[[DYN:.+]] = gp.buffer.alloc(%[[S0]]) : memref<?x4xf32, #{{.+}}>
  %dyn = gp.buffer.alloc(%s0) : memref<?x4xf32, #cuda0>
  // CHECK: gp.buffer.alloc() {offset = 256 : i64} : memref<16xf32, #{{.+}}>
  %placed = gp.buffer.alloc() {offset = 256 : i64} : memref<16xf32, #cuda0>
  // CHECK: gp.buffer.reuse %[[BUF]] : memref<8xf32, #{{.+}}> to memref<2x4xf32, #{{.+}}>
  %reused = gp.buffer.reuse %buf : memref<8xf32, #cuda0> to memref<2x4xf32, #cuda0>
  // CHECK: gp.buffer.dealloc %[[DYN]] : memref<?x4xf32, #{{.+}}>
  gp.buffer.dealloc %dyn : memref<?x4xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Views: reshape, slice with static and symbolic parts, dtype reinterpretation.
// CHECK-LABEL: func.func @views
func.func @views(%x: memref<4x8xf32, #cuda0>, %d: memref<?x4xf32, #cuda0>, %arg0: index) {
  %s0 = gp.symint "s0" = %arg0
  // CHECK: %[[FLAT:.+]] = gp.buffer.reshape %{{.+}}() : memref<4x8xf32, #{{.+}}> to memref<32xf32, #{{.+}}>
  %flat = gp.buffer.reshape %x() : memref<4x8xf32, #cuda0> to memref<32xf32, #cuda0>
  // CHECK: gp.buffer.reshape %[[FLAT]](%{{.+}}) : memref<32xf32, #{{.+}}> to memref<?x8xf32, #{{.+}}>
  %back = gp.buffer.reshape %flat(%s0) : memref<32xf32, #cuda0> to memref<?x8xf32, #cuda0>
  // An expand's groups (checked when it runs, as its sizes are dynamic).
  // CHECK: gp.buffer.reshape %{{.+}}(%{{.+}}) expand {{\[\[}}0, 1, 2], [3]] : memref<?x4xf32, #{{.+}}> to memref<?x2x2x4xf32, #{{.+}}>
  %split = gp.buffer.reshape %d(%s0) expand [[0, 1, 2], [3]] : memref<?x4xf32, #cuda0> to memref<?x2x2x4xf32, #cuda0>
  // CHECK: gp.buffer.slice %{{.+}}[1, 1] [2, 4] [1, 2] : memref<4x8xf32, #{{.+}}> to memref<2x4xf32, strided<[8, 2], offset: 9>, #{{.+}}>
  %window = gp.buffer.slice %x[1, 1] [2, 4] [1, 2] : memref<4x8xf32, #cuda0> to memref<2x4xf32, strided<[8, 2], offset: 9>, #cuda0>
  // CHECK: gp.buffer.slice %{{.+}}[0, 3] [4, 1] [1, 1] : memref<4x8xf32, #{{.+}}> to memref<4xf32, strided<[8], offset: 3>, #{{.+}}>
  %column = gp.buffer.slice %x[0, 3] [4, 1] [1, 1] : memref<4x8xf32, #cuda0> to memref<4xf32, strided<[8], offset: 3>, #cuda0>
  // CHECK: gp.buffer.slice %{{.+}}[%{{.+}}, 0] [2, 4] [1, 1] : memref<?x4xf32, #{{.+}}> to memref<2x4xf32, strided<[4, 1], offset: ?>, #{{.+}}>
  %rows = gp.buffer.slice %d[%s0, 0] [2, 4] [1, 1] : memref<?x4xf32, #cuda0> to memref<2x4xf32, strided<[4, 1], offset: ?>, #cuda0>
  // CHECK: gp.buffer.bitcast %{{.+}} : memref<4x8xf32, #{{.+}}> to memref<4x32xf8E4M3FN, #{{.+}}>
  %f8 = gp.buffer.bitcast %x : memref<4x8xf32, #cuda0> to memref<4x32xf8E4M3FN, #cuda0>
  // CHECK: gp.buffer.bitcast %{{.+}} : memref<4x8xf32, #{{.+}}> to memref<4x4xf64, #{{.+}}>
  %f64 = gp.buffer.bitcast %x : memref<4x8xf32, #cuda0> to memref<4x4xf64, #cuda0>
  // CHECK: gp.buffer.transpose %{{.+}} [1, 0] : memref<4x8xf32, #{{.+}}> to memref<8x4xf32, strided<[1, 8]>, #{{.+}}>
  %t = gp.buffer.transpose %x [1, 0] : memref<4x8xf32, #cuda0> to memref<8x4xf32, strided<[1, 8]>, #cuda0>
  // A transpose of a window keeps the window's offset.
  // CHECK: gp.buffer.transpose %{{.+}} [1, 0] : memref<2x4xf32, strided<[8, 2], offset: 9>, #{{.+}}> to memref<4x2xf32, strided<[2, 8], offset: 9>, #{{.+}}>
  %tw = gp.buffer.transpose %window [1, 0] : memref<2x4xf32, strided<[8, 2], offset: 9>, #cuda0> to memref<4x2xf32, strided<[2, 8], offset: 9>, #cuda0>
  // Dynamic sizes leave the outer strides dynamic.
  // CHECK: gp.buffer.transpose %{{.+}} [1, 0] : memref<?x4xf32, #{{.+}}> to memref<4x?xf32, strided<[1, 4]>, #{{.+}}>
  %td = gp.buffer.transpose %d [1, 0] : memref<?x4xf32, #cuda0> to memref<4x?xf32, strided<[1, 4]>, #cuda0>
  return
}

// -----

// Moving only unit dimensions keeps a contiguous view contiguous.
#cuda0 = #gp.device<cuda:0>
// CHECK-LABEL: func.func @unit_transpose
func.func @unit_transpose(%x: memref<1x8xf32, #cuda0>, %y: memref<?x1x?xf32, #cuda0>) {
  // CHECK: gp.buffer.transpose %{{.+}} [1, 0] : memref<1x8xf32, #{{.+}}> to memref<8x1xf32, #{{.+}}>
  %a = gp.buffer.transpose %x [1, 0] : memref<1x8xf32, #cuda0> to memref<8x1xf32, #cuda0>
  // CHECK: gp.buffer.transpose %{{.+}} [1, 0, 2] : memref<?x1x?xf32, #{{.+}}> to memref<1x?x?xf32, #{{.+}}>
  %b = gp.buffer.transpose %y [1, 0, 2] : memref<?x1x?xf32, #cuda0> to memref<1x?x?xf32, #cuda0>
  // CHECK: gp.buffer.transpose %{{.+}} [2, 1, 0] : memref<?x1x?xf32, #{{.+}}> to memref<?x1x?xf32, strided<[1, ?, ?]>, #{{.+}}>
  %c = gp.buffer.transpose %y [2, 1, 0] : memref<?x1x?xf32, #cuda0> to memref<?x1x?xf32, strided<[1, ?, ?]>, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#map = affine_map<(d0) -> (d0)>

// A kernel with buffers and a scalar symint operand; the empty terminator is
// implicit.
// CHECK-LABEL: func.func @kernels
func.func @kernels(%x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cuda0>, %n: index) {
  // CHECK: gp.kernel "add_one" ins(%{{.+}}, %{{.+}} : memref<8xf32, #{{.+}}>, index) outs(%{{.+}} : memref<8xf32, #{{.+}}>) {
  // CHECK-NEXT: ^bb0(%{{.+}}: memref<8xf32, #{{.+}}>, %{{.+}}: index, %{{.+}}: memref<8xf32, #{{.+}}>):
  // CHECK: linalg.generic
  // CHECK: memref.store
  // CHECK-NOT: gp.yield
  // CHECK: return
  gp.kernel "add_one" ins(%x, %n : memref<8xf32, #cuda0>, index) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%in: memref<8xf32, #cuda0>, %idx: index, %out: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
        ins(%in : memref<8xf32, #cuda0>) outs(%out : memref<8xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %one = arith.constant 1.0 : f32
      %s = arith.addf %a, %one : f32
      linalg.yield %s : f32
    }
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %out[%idx] : memref<8xf32, #cuda0>
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Fallback kernels: mutation, fresh and aliased results, tags, scalars.
// CHECK-LABEL: func.func @fallbacks
func.func @fallbacks(%x: memref<8xf32, #cuda0>, %n: index) {
  // CHECK: %[[OUT:.+]]:2 = gp.fallback "mylib::op1"(%{{.+}}) mutates [0] aliases [-, -] : (memref<8xf32, #{{.+}}>) -> (memref<8xf32, #{{.+}}>, memref<8xf32, #{{.+}}>)
  %a, %b = gp.fallback "mylib::op1"(%x) mutates [0] aliases [-, -] : (memref<8xf32, #cuda0>) -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>)
  // CHECK: gp.fallback "aten::view.dtype"(%{{.+}}) aliases [0] : (memref<8xf32, #{{.+}}>) -> memref<32xi8, #{{.+}}>
  %v = gp.fallback "aten::view.dtype"(%x) aliases [0] : (memref<8xf32, #cuda0>) -> memref<32xi8, #cuda0>
  // CHECK: gp.fallback "mylib::create_mask"(%{{.+}}, %{{.+}}) tags ["cudagraph_unsafe"] : (index, index) -> memref<?xi1, #{{.+}}>
  %mask = gp.fallback "mylib::create_mask"(%n, %n) tags ["cudagraph_unsafe"] : (index, index) -> memref<?xi1, #cuda0>
  // CHECK: gp.fallback "mylib::count"(%{{.+}}) : (memref<8xf32, #{{.+}}>) -> index
  %count = gp.fallback "mylib::count"(%x) : (memref<8xf32, #cuda0>) -> index
  // CHECK: gp.fallback "mylib::touch"(%{{.+}}) mutates [0] : (memref<8xf32, #{{.+}}>) -> (){{$}}
  gp.fallback "mylib::touch"(%x) mutates [0] : (memref<8xf32, #cuda0>) -> ()
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// Device copies, host scalar reads, symbolic sizes.
// CHECK-LABEL: func.func @host_and_sizes
func.func @host_and_sizes(%x: memref<?x?xf32, #cuda0>, %one: memref<i64, #cuda0>, %f: memref<1xf32, #cuda0>) {
  %h = gp.buffer.alloc() : memref<1xf32, #cpu>
  // CHECK: gp.copy %{{.+}}, %{{.+}} : memref<1xf32, #{{.+}}> to memref<1xf32, #{{.+}}>
  gp.copy %f, %h : memref<1xf32, #cuda0> to memref<1xf32, #cpu>
  // CHECK: %{{.+}} = gp.item %{{.+}} : memref<1xf32, #{{.+}}> -> f32
  %v = gp.item %f : memref<1xf32, #cuda0> -> f32
  // CHECK: %{{.+}} = gp.item %{{.+}} : memref<i64, #{{.+}}> -> index
  %i = gp.item %one : memref<i64, #cuda0> -> index
  // CHECK: %s2 = gp.symint.dim "s2" = %{{.+}}[0] : memref<?x?xf32, #{{.+}}>
  %s2 = gp.symint.dim "s2" = %x[0] : memref<?x?xf32, #cuda0>
  // CHECK: %s3 = gp.symint.dim "s3" = %{{.+}}[1] {hint = 4 : i64} : memref<?x?xf32, #{{.+}}>
  %s3 = gp.symint.dim "s3" = %x[1] {hint = 4 : i64} : memref<?x?xf32, #cuda0>
  // CHECK: %u0 = gp.symint.unbacked "u0" = %{{.+}} {max = 1024 : i64} : memref<i64, #{{.+}}>
  %u0 = gp.symint.unbacked "u0" = %one {max = 1024 : i64} : memref<i64, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Graph-safe RNG: generators, states on both sides, draws.
// CHECK: gp.rng.generator @g0{{$}}
// CHECK: gp.rng.generator @g1 seed 42
gp.rng.generator @g0
gp.rng.generator @g1 seed 42
// CHECK-LABEL: func.func @rng
func.func @rng(%x: memref<4x4xf32, #cuda0>, %y: memref<4x4xf16, #cuda0>) {
  // CHECK: %[[F:.+]] = gp.rng.state @g0 forward : !gp.rng_state
  // CHECK: gp.rng.fill uniform %[[F]], %{{.+}} : memref<4x4xf32, #{{.+}}>
  %f = gp.rng.state @g0 forward : !gp.rng_state
  gp.rng.fill uniform %f, %x : memref<4x4xf32, #cuda0>
  // CHECK: %[[B:.+]] = gp.rng.state @g1 backward : !gp.rng_state
  // CHECK: gp.rng.fill normal %[[B]], %{{.+}} : memref<4x4xf16, #{{.+}}>
  %b = gp.rng.state @g1 backward : !gp.rng_state
  gp.rng.fill normal %b, %y : memref<4x4xf16, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// Partitions: a capturable one that returns an input it does not free, and
// an eager one with reasons and no inputs.
// CHECK-LABEL: func.func @partitions
func.func @partitions(%x: memref<8xf32, #cuda0>, %n: index) -> memref<8xf32, #cpu> {
  // CHECK: %[[P0:.+]]:2 = gp.partition 0 capturable ins(%{{.+}}, %{{.+}}, %{{.+}} : memref<8xf32, #{{.+}}>, memref<8xf32, #{{.+}}>, index) writes [1] frees [1] {
  // CHECK: gp.yield %{{.+}}, %{{.+}} : memref<8xf32, #{{.+}}>, memref<8xf32, #{{.+}}>
  // CHECK-NEXT: } -> (memref<8xf32, #{{.+}}>, memref<8xf32, #{{.+}}>)
  %tmp = gp.buffer.alloc() : memref<8xf32, #cuda0>
  %p0:2 = gp.partition 0 capturable ins(%x, %tmp, %n : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>, index) writes [1] frees [1] {
  ^bb0(%in: memref<8xf32, #cuda0>, %scratch: memref<8xf32, #cuda0>, %s: index):
    %buf = gp.buffer.alloc() : memref<8xf32, #cuda0>
    gp.yield %buf, %in : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>
  } -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>)
  // CHECK: %[[P1:.+]] = gp.partition 1 eager reasons ["cpu ops", "device copy"] {
  // CHECK: } -> (memref<8xf32, #{{.+}}>)
  %p1 = gp.partition 1 eager reasons ["cpu ops", "device copy"] {
    %h = gp.buffer.alloc() : memref<8xf32, #cpu>
    gp.yield %h : memref<8xf32, #cpu>
  } -> (memref<8xf32, #cpu>)
  // CHECK: gp.partition 2 capturable {
  // CHECK-NEXT: gp.yield{{$}}
  // CHECK-NEXT: }{{$}}
  gp.partition 2 capturable {
    gp.yield
  }
  return %p1 : memref<8xf32, #cpu>
}

// -----

#cuda0 = #gp.device<cuda:0>
// CHECK-LABEL: func.func @scalar_slot
// CHECK: %{{.+}} = gp.scalar.slot %{{.+}} : f32 -> memref<f32, #{{.+}}>
// CHECK: %{{.+}} = gp.scalar.slot %{{.+}} : i64 -> memref<i64, #{{.+}}>
func.func @scalar_slot(%v: f32, %n: i64) -> (memref<f32, #cuda0>, memref<i64, #cuda0>) {
  %a = gp.scalar.slot %v : f32 -> memref<f32, #cuda0>
  %b = gp.scalar.slot %n : i64 -> memref<i64, #cuda0>
  return %a, %b : memref<f32, #cuda0>, memref<i64, #cuda0>
}
