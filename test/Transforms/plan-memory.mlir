// RUN: gp-opt %s -split-input-file --gp-partition --gp-plan-memory --gp-verify-plan | FileCheck %s

#cuda0 = #gp.device<cuda:0>

// Frees go right after the last use of the storage through any alias: the
// base outlives its view's last use. Program inputs and the returned buffer
// are never freed. Buffers alive together get distinct offsets; a buffer
// allocated after another died takes its storage over.
// CHECK-LABEL: func.func @frees_and_views
// CHECK-SAME: attributes {gp.arenas = [#gp.arena<#cuda0, 512>]}
// CHECK: %[[A:.+]] = gp.buffer.alloc() {offset = [[OFF_A:[0-9]+]] : i64} : memref<4xf32, #cuda0>
// CHECK: gp.kernel "make_a"
// CHECK: %[[V:.+]] = gp.buffer.bitcast %[[A]]
// CHECK: %[[B:.+]] = gp.buffer.alloc() {offset = {{[0-9]+}} : i64} : memref<4xf32, #cuda0>
// CHECK: gp.kernel "use_view" ins(%[[V]]
// CHECK-NEXT: ^bb0
// CHECK-NEXT: }
// The result reuses the storage of %a, dead once its view is (the result is
// a partition output: reuse is judged against this partition's outputs, not
// against the program's); the reuse replaces %a's free.
// CHECK-NEXT: %[[C:.+]] = gp.buffer.reuse %[[A]] : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
// CHECK: gp.kernel "make_c" ins(%[[B]] {{.*}} outs(%[[C]]
// CHECK-NEXT: ^bb0
// CHECK-NEXT: }
// CHECK-NEXT: gp.buffer.dealloc %[[B]]
// CHECK-NEXT: gp.yield %[[C]], %{{.+}} :
// CHECK-NOT: gp.buffer.dealloc
// CHECK: return
func.func @frees_and_views(%x: memref<4xf32, #cuda0>) -> memref<4xf32, #cuda0> {
  %a = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "make_a" ins(%x : memref<4xf32, #cuda0>) outs(%a : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  %v = gp.buffer.bitcast %a : memref<4xf32, #cuda0> to memref<16xi8, #cuda0>
  %b = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "use_view" ins(%v : memref<16xi8, #cuda0>) outs(%b : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<16xi8, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  %c = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "make_c" ins(%b : memref<4xf32, #cuda0>) outs(%c : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  return %c : memref<4xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// The f8 view of a buffer made in partition 0 whose last use is the copy in
// partition 1: partition 1 gets the base and frees it there.
// CHECK-LABEL: func.func @view_across_partitions
// CHECK: %[[P0:.+]]:2 = gp.partition 0 capturable
// CHECK-NOT: gp.buffer.dealloc
// CHECK: gp.partition 1 eager reasons ["device copy"] ins(%[[P0]]#0 : memref<2xf32, #cuda0>) frees [0] {
// CHECK-NEXT: ^bb0(%[[BASE:.+]]: memref<2xf32, #cuda0>):
// CHECK: %[[VIEW:.+]] = gp.buffer.bitcast %[[BASE]]
// CHECK: gp.copy %[[VIEW]],
// CHECK-NEXT: gp.buffer.dealloc %[[BASE]] : memref<2xf32, #cuda0>
func.func @view_across_partitions(%x: memref<2xf32, #cuda0>) -> memref<8xf8E4M3FN, #cpu> {
  %y = gp.buffer.alloc() : memref<2xf32, #cuda0>
  gp.kernel "add_one" ins(%x : memref<2xf32, #cuda0>) outs(%y : memref<2xf32, #cuda0>) {
  ^bb0(%i: memref<2xf32, #cuda0>, %o: memref<2xf32, #cuda0>):
  }
  %z = gp.buffer.bitcast %y : memref<2xf32, #cuda0> to memref<8xf8E4M3FN, #cuda0>
  %h = gp.buffer.alloc() : memref<8xf8E4M3FN, #cpu>
  gp.copy %z, %h : memref<8xf8E4M3FN, #cuda0> to memref<8xf8E4M3FN, #cpu>
  return %h : memref<8xf8E4M3FN, #cpu>
}

// -----

#cuda0 = #gp.device<cuda:0>

// The results of a multi-result custom op are separate buffers: the one
// used first is freed first, without waiting for its sibling.
// CHECK-LABEL: func.func @multi_result
// CHECK: %[[OUT:.+]]:2 = gp.fallback "mylib::op1"{{.*}} {result_offsets = array<i64: 0, 256>}
// CHECK: gp.kernel "use_first"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: }
// CHECK-NEXT: gp.buffer.dealloc %[[OUT]]#0
// CHECK: gp.kernel "use_second"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: }
// CHECK-NEXT: gp.buffer.dealloc %[[OUT]]#1
func.func @multi_result(%x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cuda0>) {
  %a, %b = gp.fallback "mylib::op1"(%x) mutates [0] aliases [-, -] : (memref<8xf32, #cuda0>) -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>)
  gp.kernel "use_first" ins(%a : memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%i: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
  }
  gp.kernel "use_second" ins(%b : memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%i: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// No reuse across devices, of a buffer too small, or across partitions;
// symbolic sizes get no static offset (the runtime plans them per shape
// key). Two buffers alive at once never share arena bytes.
// CHECK-LABEL: func.func @no_reuse
// CHECK-SAME: gp.arenas = [#gp.arena<#cuda0, 512>, #gp.arena<#cpu, 256>]
// CHECK: gp.buffer.alloc() {offset = 0 : i64} : memref<4xf32, #cuda0>
// CHECK: gp.buffer.alloc() {offset = 256 : i64} : memref<8xf32, #cuda0>
// CHECK: gp.buffer.alloc() {offset = 0 : i64} : memref<4xf32, #cpu>
// CHECK: gp.buffer.alloc(%{{.+}}) : memref<?xf32, #cuda0>
// CHECK-NOT: gp.buffer.reuse
func.func @no_reuse(%x: memref<4xf32, #cuda0>, %n: index) -> memref<?xf32, #cuda0> {
  %small = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "k0" ins(%x : memref<4xf32, #cuda0>) outs(%small : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  %big = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "k1" ins(%small : memref<4xf32, #cuda0>) outs(%big : memref<8xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
  }
  %h = gp.buffer.alloc() : memref<4xf32, #cpu>
  gp.copy %x, %h : memref<4xf32, #cuda0> to memref<4xf32, #cpu>
  %s = gp.symint "n" = %n
  %dyn = gp.buffer.alloc(%s) : memref<?xf32, #cuda0>
  gp.kernel "k2" ins(%big : memref<8xf32, #cuda0>) outs(%dyn : memref<?xf32, #cuda0>) {
  ^bb0(%i: memref<8xf32, #cuda0>, %o: memref<?xf32, #cuda0>):
  }
  return %dyn : memref<?xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// Fresh, statically sized extern results are planned like allocations:
// a chain of matmuls whose outputs die at the next kernel shares two arena
// slots (a matmul output and an activation), whatever the chain's length.
// A result that aliases an operand, or has a symbolic size, is not placed
// (-1): the operand or the extern gives its storage.
// CHECK-LABEL: func.func @extern_results
// CHECK-SAME: attributes {gp.arenas = [#gp.arena<#cuda0, 2048>]}
// CHECK: gp.fallback "aten::mm"{{.*}} {result_offsets = array<i64: [[A:[0-9]+]]>}
// CHECK: gp.buffer.alloc() {offset = [[B:[0-9]+]] : i64}
// CHECK: gp.buffer.dealloc
// CHECK: gp.fallback "aten::mm"{{.*}} {result_offsets = array<i64: [[A]]>}
// CHECK: gp.fallback "aten::mm"{{.*}} {result_offsets = array<i64: [[A]]>}
// CHECK: gp.fallback "mylib::view_and_size"(%{{[^)]*}}) aliases [0, -] : (
func.func @extern_results(%x: memref<16x16xf32, #cuda0>, %w: memref<16x16xf32, #cuda0>, %n: index) -> memref<16x16xf32, #cuda0> {
  %m0 = gp.fallback "aten::mm"(%x, %w) : (memref<16x16xf32, #cuda0>, memref<16x16xf32, #cuda0>) -> memref<16x16xf32, #cuda0>
  %h0 = gp.buffer.alloc() : memref<16x16xf32, #cuda0>
  gp.kernel "relu" ins(%m0 : memref<16x16xf32, #cuda0>) outs(%h0 : memref<16x16xf32, #cuda0>) {
  ^bb0(%i: memref<16x16xf32, #cuda0>, %o: memref<16x16xf32, #cuda0>):
  }
  %m1 = gp.fallback "aten::mm"(%h0, %w) : (memref<16x16xf32, #cuda0>, memref<16x16xf32, #cuda0>) -> memref<16x16xf32, #cuda0>
  %h1 = gp.buffer.alloc() : memref<16x16xf32, #cuda0>
  gp.kernel "relu" ins(%m1 : memref<16x16xf32, #cuda0>) outs(%h1 : memref<16x16xf32, #cuda0>) {
  ^bb0(%i: memref<16x16xf32, #cuda0>, %o: memref<16x16xf32, #cuda0>):
  }
  %m2 = gp.fallback "aten::mm"(%h1, %w) : (memref<16x16xf32, #cuda0>, memref<16x16xf32, #cuda0>) -> memref<16x16xf32, #cuda0>
  %v, %d = gp.fallback "mylib::view_and_size"(%m2, %n) aliases [0, -] : (memref<16x16xf32, #cuda0>, index) -> (memref<16x16xf32, #cuda0>, memref<?xf32, #cuda0>)
  gp.kernel "use" ins(%d : memref<?xf32, #cuda0>) outs(%v : memref<16x16xf32, #cuda0>) {
  ^bb0(%i: memref<?xf32, #cuda0>, %o: memref<16x16xf32, #cuda0>):
  }
  return %v : memref<16x16xf32, #cuda0>
}
