// RUN: gp-opt %s -split-input-file --gp-partition | FileCheck %s
// RUN: gp-opt %s -split-input-file --gp-partition=unsafe-ops=aten::mm,mylib::norm.out | FileCheck %s --check-prefix=RULE

// gp-partition cuts each function at the ops a CUDA graph cannot capture and
// gives every partition an explicit signature (docs/Rationale.md gives the
// argument order). Input buffers a partition does not free come back as
// results; `frees` names storage whose last use is in the partition.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

// A cpu op in the middle of cuda work: capturable, eager, capturable.
// CHECK-LABEL: func.func @cpu_op_in_the_middle
// CHECK-SAME: (%[[X:.+]]: memref<4xf32, #cuda0>)
// CHECK: %[[P0:.+]]:2 = gp.partition 0 capturable ins(%[[X]] : memref<4xf32, #cuda0>) {
// CHECK: gp.kernel "k0"
// CHECK: gp.yield %[[A:.+]], %{{.+}} :
// CHECK: %[[P1:.+]]:2 = gp.partition 1 eager reasons ["device copy", "cpu ops"] ins(%[[P0]]#0 : memref<4xf32, #cuda0>) {
// CHECK: gp.copy
// CHECK: gp.kernel "on_cpu"
// CHECK: gp.copy
// CHECK: %[[P2:.+]] = gp.partition 2 capturable ins(%[[P1]]#1, %[[P1]]#0 : memref<4xf32, #cuda0>, memref<4xf32, #cuda0>) frees [0, 1] {
// CHECK: gp.kernel "k1"
// CHECK: return %[[P2]]
func.func @cpu_op_in_the_middle(%x: memref<4xf32, #cuda0>) -> memref<4xf32, #cuda0> {
  %a = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "k0" ins(%x : memref<4xf32, #cuda0>) outs(%a : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  %h = gp.buffer.alloc() : memref<4xf32, #cpu>
  gp.copy %a, %h : memref<4xf32, #cuda0> to memref<4xf32, #cpu>
  gp.kernel "on_cpu" outs(%h : memref<4xf32, #cpu>) {
  ^bb0(%o: memref<4xf32, #cpu>):
  }
  %b = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.copy %h, %b : memref<4xf32, #cpu> to memref<4xf32, #cuda0>
  %c = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "k1" ins(%a, %b : memref<4xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%c : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %j: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  return %c : memref<4xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#meta = #gp.device<meta>

// Meta tensors next to cuda tensors: one capturable partition.
// CHECK-LABEL: func.func @meta_and_cuda
// CHECK: %[[P0:.+]]:4 = gp.partition 0 capturable
// CHECK: gp.kernel "twice_meta"
// CHECK: gp.kernel "thrice"
// CHECK-NOT: gp.partition 1
// CHECK: return %[[P0]]#0, %[[P0]]#1
func.func @meta_and_cuda(%t: memref<1x16xf32, #meta>, %y: memref<64xf32, #cuda0>) -> (memref<1x16xf32, #meta>, memref<64xf32, #cuda0>) {
  %a = gp.buffer.alloc() : memref<1x16xf32, #meta>
  gp.kernel "twice_meta" ins(%t : memref<1x16xf32, #meta>) outs(%a : memref<1x16xf32, #meta>) {
  ^bb0(%i: memref<1x16xf32, #meta>, %o: memref<1x16xf32, #meta>):
  }
  %b = gp.buffer.alloc() : memref<64xf32, #cuda0>
  gp.kernel "thrice" ins(%y : memref<64xf32, #cuda0>) outs(%b : memref<64xf32, #cuda0>) {
  ^bb0(%i: memref<64xf32, #cuda0>, %o: memref<64xf32, #cuda0>):
  }
  return %a, %b : memref<1x16xf32, #meta>, memref<64xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// The f8 view of a buffer made in partition 0, used there and copied to the
// cpu after the cut: partition 0 must also hand over the base, so that the
// partition that makes the view's last use frees it (PyTorch's `del buf2`
// -> `buf0` bug).
// CHECK-LABEL: func.func @view_base_freed_later
// CHECK: %[[P0:.+]]:3 = gp.partition 0 capturable
// CHECK: %[[Y:.+]] = gp.buffer.alloc() : memref<2xf32, #cuda0>
// CHECK: %[[Z:.+]] = gp.buffer.bitcast %[[Y]]
// CHECK: gp.kernel "use_view" ins(%[[Z]]
// CHECK: gp.yield %[[Y]], %[[Z]], %{{.+}} : memref<2xf32, #cuda0>, memref<8xf8E4M3FN, #cuda0>, memref<2xf32, #cuda0>
// The base comes along and is freed by the partition that uses its view last.
// CHECK: gp.partition 1 eager reasons ["device copy"] ins(%[[P0]]#0, %[[P0]]#1 : memref<2xf32, #cuda0>, memref<8xf8E4M3FN, #cuda0>) frees [0] {
// CHECK-NEXT: ^bb0(%{{.+}}: memref<2xf32, #cuda0>, %[[ZIN:.+]]: memref<8xf8E4M3FN, #cuda0>):
// CHECK: gp.copy %[[ZIN]],
func.func @view_base_freed_later(%x: memref<2xf32, #cuda0>) -> memref<8xf8E4M3FN, #cpu> {
  %y = gp.buffer.alloc() : memref<2xf32, #cuda0>
  gp.kernel "add_one" ins(%x : memref<2xf32, #cuda0>) outs(%y : memref<2xf32, #cuda0>) {
  ^bb0(%i: memref<2xf32, #cuda0>, %o: memref<2xf32, #cuda0>):
  }
  %z = gp.buffer.bitcast %y : memref<2xf32, #cuda0> to memref<8xf8E4M3FN, #cuda0>
  %w = gp.buffer.alloc() : memref<8xf8E4M3FN, #cuda0>
  gp.kernel "use_view" ins(%z : memref<8xf8E4M3FN, #cuda0>) outs(%w : memref<8xf8E4M3FN, #cuda0>) {
  ^bb0(%i: memref<8xf8E4M3FN, #cuda0>, %o: memref<8xf8E4M3FN, #cuda0>):
  }
  %h = gp.buffer.alloc() : memref<8xf8E4M3FN, #cpu>
  gp.copy %z, %h : memref<8xf8E4M3FN, #cuda0> to memref<8xf8E4M3FN, #cpu>
  return %h : memref<8xf8E4M3FN, #cpu>
}

// -----

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// A custom op that mutates its input and returns two fresh results, then a
// cut: the results are independent buffers, each freed where it dies; the
// mutated input is listed in `writes`.
// CHECK-LABEL: func.func @mutating_multi_output
// CHECK: %[[P0:.+]]:2 = gp.partition 0 capturable ins(%{{.+}} : memref<8xf32, #cuda0>) writes [0] {
// CHECK: %[[OUT:.+]]:2 = gp.fallback "mylib::op1"
// CHECK: gp.kernel "use_a" ins(%[[OUT]]#0
// Only the second result lives on; the first dies inside partition 0.
// CHECK: gp.yield %[[OUT]]#1, %{{.+}} :
// CHECK: gp.partition 1 eager reasons ["device copy"] ins(%[[P0]]#0 : memref<8xf32, #cuda0>) frees [0] {
func.func @mutating_multi_output(%x: memref<8xf32, #cuda0>) -> memref<8xf32, #cpu> {
  %a, %b = gp.fallback "mylib::op1"(%x) mutates [0] aliases [-, -] : (memref<8xf32, #cuda0>) -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>)
  %s = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "use_a" ins(%a : memref<8xf32, #cuda0>) outs(%s : memref<8xf32, #cuda0>) {
  ^bb0(%i: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
  }
  %h = gp.buffer.alloc() : memref<8xf32, #cpu>
  gp.copy %b, %h : memref<8xf32, #cuda0> to memref<8xf32, #cpu>
  return %h : memref<8xf32, #cpu>
}

// -----

#cuda0 = #gp.device<cuda:0>

// A cudagraph_unsafe custom op cuts; unsafe ops that follow each other share
// one eager partition.
// CHECK-LABEL: func.func @unsafe_tag
// CHECK: %[[P0:.+]] = gp.partition 0 capturable ins(%{{.+}} : memref<8xf32, #cuda0>) writes [0] {
// CHECK: %[[P1:.+]] = gp.partition 1 eager reasons ["cudagraph-unsafe custom op", "unbacked symint"] ins(%[[P0]] : memref<8xf32, #cuda0>) writes [0] {
// CHECK: gp.fallback "mylib::sync"
// CHECK: gp.fallback "mylib::count"
// CHECK: %[[P2:.+]] = gp.partition 2 capturable ins(%[[P1]] : memref<8xf32, #cuda0>) writes [0] {
// CHECK: return %[[P2]]
func.func @unsafe_tag(%x: memref<8xf32, #cuda0>, %n: index) -> memref<8xf32, #cuda0> {
  gp.kernel "k0" outs(%x : memref<8xf32, #cuda0>) {
  ^bb0(%o: memref<8xf32, #cuda0>):
  }
  gp.fallback "mylib::sync"(%x) mutates [0] tags ["cudagraph_unsafe"] : (memref<8xf32, #cuda0>) -> ()
  %count = gp.fallback "mylib::count"(%x) : (memref<8xf32, #cuda0>) -> index
  gp.kernel "k1" outs(%x : memref<8xf32, #cuda0>) {
  ^bb0(%o: memref<8xf32, #cuda0>):
  }
  return %x : memref<8xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// A custom rule (unsafe-ops) cuts at the named op, with or without overload.
// CHECK-LABEL: func.func @custom_rule
// CHECK: gp.partition 0 capturable
// CHECK-NOT: gp.partition 1
// RULE-LABEL: func.func @custom_rule
// RULE: gp.partition 0 eager reasons ["custom rule: aten::mm", "custom rule: mylib::norm.out"]
// RULE: gp.fallback "aten::mm.default"
// RULE: gp.fallback "mylib::norm.out"
// RULE: gp.partition 1 capturable
// RULE: gp.fallback "aten::relu"
func.func @custom_rule(%x: memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0> {
  %a = gp.fallback "aten::mm.default"(%x, %x) : (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0>
  %b = gp.fallback "mylib::norm.out"(%a) : (memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0>
  %c = gp.fallback "aten::relu"(%b) : (memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0>
  return %c : memref<8xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>

// Work on a second cuda device is cut.
// CHECK-LABEL: func.func @multiple_devices
// CHECK: gp.partition 0 capturable ins(%{{.+}} : memref<8xf32, #cuda0>)
// CHECK: gp.partition 1 eager reasons ["multiple devices"] ins(%{{.+}} : memref<8xf32, #cuda1>)
// CHECK: gp.partition 2 capturable ins(%{{.+}} : memref<8xf32, #cuda0>)
func.func @multiple_devices(%x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cuda1>) {
  gp.kernel "on0" outs(%x : memref<8xf32, #cuda0>) {
  ^bb0(%o: memref<8xf32, #cuda0>):
  }
  gp.kernel "on1" outs(%y : memref<8xf32, #cuda1>) {
  ^bb0(%o: memref<8xf32, #cuda1>):
  }
  gp.kernel "on0_again" outs(%x : memref<8xf32, #cuda0>) {
  ^bb0(%o: memref<8xf32, #cuda0>):
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// A data-dependent size cuts; the partitions after it take it as a symint.
// CHECK-LABEL: func.func @unbacked_symint
// CHECK: %[[P0:.+]]:2 = gp.partition 0 capturable
// CHECK: %[[P1:.+]] = gp.partition 1 eager reasons ["unbacked symint"] ins(%[[P0]]#0 : memref<i64, #cuda0>) frees [0] {
// CHECK: %[[U0:.+]] = gp.symint.unbacked "u0"
// CHECK: gp.yield %[[U0]] : index
// CHECK: gp.partition 2 capturable ins(%[[P0]]#1, %[[P1]] : memref<8xf32, #cuda0>, index) {
// CHECK-NEXT: ^bb0(%{{.+}}: memref<8xf32, #cuda0>, %[[SIZE:.+]]: index):
// CHECK: gp.buffer.alloc(%[[SIZE]]) : memref<?xf32, #cuda0>
func.func @unbacked_symint(%x: memref<8xf32, #cuda0>) -> memref<?xf32, #cuda0> {
  %count = gp.buffer.alloc() : memref<i64, #cuda0>
  gp.kernel "count_nonzero" ins(%x : memref<8xf32, #cuda0>) outs(%count : memref<i64, #cuda0>) {
  ^bb0(%i: memref<8xf32, #cuda0>, %o: memref<i64, #cuda0>):
  }
  %u0 = gp.symint.unbacked "u0" = %count {max = 8 : i64} : memref<i64, #cuda0>
  %out = gp.buffer.alloc(%u0) : memref<?xf32, #cuda0>
  gp.kernel "compact" ins(%x : memref<8xf32, #cuda0>) outs(%out : memref<?xf32, #cuda0>) {
  ^bb0(%i: memref<8xf32, #cuda0>, %o: memref<?xf32, #cuda0>):
  }
  return %out : memref<?xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// Reading a device scalar on the host (`.item()`) cuts.
// CHECK-LABEL: func.func @host_scalar_read
// CHECK: %[[P0:.+]]:2 = gp.partition 0 capturable {{.*}} writes [1] {
// CHECK: %[[P1:.+]]:2 = gp.partition 1 eager reasons ["cpu ops"] ins(%[[P0]]#1 : memref<f32, #cuda0>) {
// CHECK: gp.item
// CHECK: gp.partition 2 capturable ins(%[[P0]]#0, %[[P1]]#0 : memref<8xf32, #cuda0>, f32) writes [0] {
// CHECK: return %[[P1]]#0 : f32
func.func @host_scalar_read(%x: memref<8xf32, #cuda0>, %s: memref<f32, #cuda0>) -> f32 {
  gp.kernel "sum" ins(%x : memref<8xf32, #cuda0>) outs(%s : memref<f32, #cuda0>) {
  ^bb0(%i: memref<8xf32, #cuda0>, %o: memref<f32, #cuda0>):
  }
  %v = gp.item %s : memref<f32, #cuda0> -> f32
  gp.kernel "scale" ins(%v : f32) outs(%x : memref<8xf32, #cuda0>) {
  ^bb0(%f: f32, %o: memref<8xf32, #cuda0>):
  }
  return %v : f32
}

// -----

#cuda0 = #gp.device<cuda:0>

// Symints from input layouts (s2, s3 name the dims of %x) are inputs even
// though no op inside uses them; so is a symint used only as a mutation
// index (`a[n] = -1`). A size the partition does not use (s0) is not.
// CHECK-LABEL: func.func @symints
// CHECK-SAME: (%{{.+}}: index, %[[X:.+]]: memref<?x?xf32, #cuda0>, %[[A:.+]]: memref<7xf32, #cuda0>)
// CHECK: %[[S2:.+]] = gp.symint.dim "s2"
// CHECK: %[[S3:.+]] = gp.symint.dim "s3"
// CHECK: %[[N:.+]] = gp.symint "n"
// CHECK: gp.partition 0 capturable ins(%[[X]], %[[A]], %[[S2]], %[[S3]], %[[N]] : memref<?x?xf32, #cuda0>, memref<7xf32, #cuda0>, index, index, index) writes [0, 1] {
// CHECK-NEXT: ^bb0(%{{.+}}: memref<?x?xf32, #cuda0>, %[[AIN:.+]]: memref<7xf32, #cuda0>, %{{.+}}: index, %{{.+}}: index, %[[NIN:.+]]: index):
// CHECK: gp.kernel "store_minus_one" ins(%[[NIN]] : index) outs(%[[AIN]] :
func.func @symints(%arg0: index, %x: memref<?x?xf32, #cuda0>, %a: memref<7xf32, #cuda0>) -> memref<?x?xf32, #cuda0> {
  %s0 = gp.symint "s0" = %arg0
  %s2 = gp.symint.dim "s2" = %x[0] : memref<?x?xf32, #cuda0>
  %s3 = gp.symint.dim "s3" = %x[1] : memref<?x?xf32, #cuda0>
  gp.kernel "scale" outs(%x : memref<?x?xf32, #cuda0>) {
  ^bb0(%o: memref<?x?xf32, #cuda0>):
  }
  %n = gp.symint "n" = %arg0
  gp.kernel "store_minus_one" ins(%n : index) outs(%a : memref<7xf32, #cuda0>) {
  ^bb0(%i: index, %o: memref<7xf32, #cuda0>):
  }
  return %x : memref<?x?xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// A buffer read only through a view of static layout (a fixed window of a
// buffer whose size s0 is symbolic) gives the partition the same graph
// whatever s0 is: s0 is not an input, so new sizes do not re-capture. A
// partition that reads the whole buffer, or a window at a size-dependent
// offset, does take it.
// CHECK-LABEL: func.func @static_window_of_dynamic
// CHECK-SAME: (%[[X:.+]]: memref<?xf32, #cuda0>)
// CHECK: %[[S0:.+]] = gp.symint.dim "s0"
// CHECK: gp.partition 0 capturable ins(%[[X]] : memref<?xf32, #cuda0>) {
// CHECK: gp.buffer.slice
// CHECK: gp.kernel "window"
// CHECK: gp.fallback "mylib::sync"
// CHECK: gp.partition 2 capturable ins(%{{.+}}, %[[S0]] : memref<?xf32, #cuda0>, index) writes [0] {
// CHECK: gp.kernel "whole"
func.func @static_window_of_dynamic(%x: memref<?xf32, #cuda0>) -> memref<8xf32, #cuda0> {
  %s0 = gp.symint.dim "s0" = %x[0] : memref<?xf32, #cuda0>
  %window = gp.buffer.slice %x[0] [8] [1] : memref<?xf32, #cuda0> to memref<8xf32, strided<[1]>, #cuda0>
  %y = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "window" ins(%window : memref<8xf32, strided<[1]>, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%i: memref<8xf32, strided<[1]>, #cuda0>, %o: memref<8xf32, #cuda0>):
  }
  gp.fallback "mylib::sync"(%y) {tags = ["cudagraph_unsafe"]} : (memref<8xf32, #cuda0>) -> ()
  gp.kernel "whole" outs(%x : memref<?xf32, #cuda0>) {
  ^bb0(%o: memref<?xf32, #cuda0>):
  }
  return %y : memref<8xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// A captured graph holds its kernels' buffer descriptors, sizes included, so
// the shape key must determine every dynamic size of a buffer whose layout
// the partition's work depends on, also one the program leaves unnamed:
// gp-partition names it (arg<N>_dim<D>, at the top of the function), and
// the partition takes it with the written ones (a graph captured for one
// length of %x must not replay for another). A name no partition needs
// (%y is read only through a static window) is not left behind.
// CHECK-LABEL: func.func @unnamed_dims
// CHECK-SAME: (%[[X:.+]]: memref<?x?xf32, #cuda0>, %[[Y:.+]]: memref<?xf32, #cuda0>)
// CHECK-NEXT: %[[D1:.+]] = gp.symint.dim "arg0_dim1" = %[[X]][1]
// CHECK-NOT: gp.symint.dim "arg1_dim0"
// CHECK: %[[N:.+]] = gp.symint.dim "n" = %[[X]][0]
// CHECK-NOT: gp.symint.dim "arg1_dim0"
// CHECK: gp.partition 0 capturable ins(%[[X]], %[[Y]], %[[D1]], %[[N]] : memref<?x?xf32, #cuda0>, memref<?xf32, #cuda0>, index, index) {
// CHECK: gp.kernel "whole"
// CHECK: gp.kernel "window"
func.func @unnamed_dims(%x: memref<?x?xf32, #cuda0>, %y: memref<?xf32, #cuda0>) -> (memref<f32, #cuda0>, memref<8xf32, #cuda0>) {
  %n = gp.symint.dim "n" = %x[0] : memref<?x?xf32, #cuda0>
  %s = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "whole" ins(%x : memref<?x?xf32, #cuda0>) outs(%s : memref<f32, #cuda0>) {
  ^bb0(%i: memref<?x?xf32, #cuda0>, %o: memref<f32, #cuda0>):
  }
  %window = gp.buffer.slice %y[0] [8] [1] : memref<?xf32, #cuda0> to memref<8xf32, strided<[1]>, #cuda0>
  %w = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "window" ins(%window : memref<8xf32, strided<[1]>, #cuda0>) outs(%w : memref<8xf32, #cuda0>) {
  ^bb0(%i: memref<8xf32, strided<[1]>, #cuda0>, %o: memref<8xf32, #cuda0>):
  }
  return %s, %w : memref<f32, #cuda0>, memref<8xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// The same for a buffer an extern sizes when it runs: a later partition
// that reads it takes its size (result0_dim0, named right after the
// partition that makes it), so a graph captured for one size of the mask
// does not replay for another. The extern's own partition, which makes and
// uses %mask, needs no name.
// CHECK-LABEL: func.func @extern_sized
// CHECK: %[[P0:.+]] = gp.partition 0 eager
// CHECK: gp.fallback "mylib::create_mask"
// CHECK: %[[D:.+]] = gp.symint.dim "result0_dim0" = %[[P0]][0] : memref<?xi1, #cuda0>
// CHECK: gp.partition 1 capturable ins(%[[P0]], %[[D]] : memref<?xi1, #cuda0>, index) frees [0] {
// CHECK: gp.kernel "count"
// CHECK-LABEL: func.func @extern_sized_used_once
// CHECK-NOT: gp.symint.dim
// CHECK: return
func.func @extern_sized(%n: index) -> memref<f32, #cuda0> {
  %s0 = gp.symint "s0" = %n
  %mask = gp.fallback "mylib::create_mask"(%s0, %s0) tags ["cudagraph_unsafe"] : (index, index) -> memref<?xi1, #cuda0>
  %c = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "count" ins(%mask : memref<?xi1, #cuda0>) outs(%c : memref<f32, #cuda0>) {
  ^bb0(%m: memref<?xi1, #cuda0>, %o: memref<f32, #cuda0>):
  }
  return %c : memref<f32, #cuda0>
}
func.func @extern_sized_used_once(%n: index) -> memref<f32, #cuda0> {
  %s0 = gp.symint "s0" = %n
  %mask = gp.fallback "mylib::create_mask"(%s0, %s0) : (index, index) -> memref<?xi1, #cuda0>
  %c = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "count" ins(%mask : memref<?xi1, #cuda0>) outs(%c : memref<f32, #cuda0>) {
  ^bb0(%m: memref<?xi1, #cuda0>, %o: memref<f32, #cuda0>):
  }
  return %c : memref<f32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// An RNG op's state is an input of the partition that draws from it, even
// though no buffer dependence mentions it.
gp.rng.generator @g0
// CHECK-LABEL: func.func @rng_state
// CHECK: %[[RNG:.+]] = gp.rng.state @g0 forward
// CHECK: gp.partition 0 capturable ins(%{{.+}}, %[[RNG]] : memref<4x4xf32, #cuda0>, !gp.rng_state) {
// CHECK-NEXT: ^bb0(%{{.+}}: memref<4x4xf32, #cuda0>, %[[STATE:.+]]: !gp.rng_state):
// CHECK: gp.rng.fill uniform %[[STATE]],
func.func @rng_state(%x: memref<4x4xf32, #cuda0>) -> memref<4x4xf32, #cuda0> {
  %rng = gp.rng.state @g0 forward : !gp.rng_state
  %r = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.rng.fill uniform %rng, %r : memref<4x4xf32, #cuda0>
  %o = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.kernel "mul" ins(%x, %r : memref<4x4xf32, #cuda0>, memref<4x4xf32, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>) {
  ^bb0(%i: memref<4x4xf32, #cuda0>, %j: memref<4x4xf32, #cuda0>, %out: memref<4x4xf32, #cuda0>):
  }
  return %o : memref<4x4xf32, #cuda0>
}
