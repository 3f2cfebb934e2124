// RUN: gp-opt %s --split-input-file --canonicalize --cse | FileCheck %s

// Memory effects seen through upstream DCE and CSE: unused pure and
// read-only ops disappear, ops that write stay, and reads are not merged
// across a write.

#cuda0 = #gp.device<cuda:0>

// Unused allocations, views, symints and host reads are dead; a kernel that
// writes a buffer is not, even though it has no results.
// CHECK-LABEL: func.func @dead_code
// CHECK-NOT: gp.buffer.alloc() : memref<4xf32
// CHECK-NOT: gp.buffer.bitcast
// CHECK-NOT: gp.symint
// CHECK-NOT: gp.item
// CHECK: gp.kernel "fill"
// CHECK-NEXT: ^bb0
// CHECK: return
func.func @dead_code(%x: memref<8xf32, #cuda0>, %one: memref<i64, #cuda0>, %n: index) {
  %unused = gp.buffer.alloc() : memref<4xf32, #cuda0>
  %view = gp.buffer.bitcast %x : memref<8xf32, #cuda0> to memref<32xi8, #cuda0>
  %s = gp.symint "s0" = %n
  %u = gp.symint.unbacked "u0" = %one : memref<i64, #cuda0>
  %v = gp.item %one : memref<i64, #cuda0> -> i64
  gp.kernel "fill" outs(%x : memref<8xf32, #cuda0>) {
  ^bb0(%out: memref<8xf32, #cuda0>):
    %c = arith.constant 0.0 : f32
    linalg.fill ins(%c : f32) outs(%out : memref<8xf32, #cuda0>)
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// A fallback that mutates an operand stays even when its results are unused;
// a purely functional one with unused results goes.
// CHECK-LABEL: func.func @fallback_effects
// CHECK-NOT: "mylib::pure"
// CHECK: gp.fallback "mylib::mutating"
// CHECK-NOT: "mylib::pure"
// CHECK: return
func.func @fallback_effects(%x: memref<8xf32, #cuda0>) {
  %a = gp.fallback "mylib::pure"(%x) : (memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0>
  %b = gp.fallback "mylib::mutating"(%x) mutates [0] : (memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Identical reads of one buffer merge; a read after a kernel writes the
// buffer does not merge with the read before it.
// CHECK-LABEL: func.func @reads_and_writes
// CHECK: %[[A:.+]] = gp.item %[[BUF:.+]] :
// CHECK-NEXT: gp.kernel "bump" outs(%[[BUF]]
// CHECK: %[[B:.+]] = gp.item %[[BUF]] :
// CHECK: return %[[A]], %[[A]], %[[B]]
func.func @reads_and_writes(%x: memref<f32, #cuda0>) -> (f32, f32, f32) {
  %a = gp.item %x : memref<f32, #cuda0> -> f32
  %a2 = gp.item %x : memref<f32, #cuda0> -> f32
  gp.kernel "bump" outs(%x : memref<f32, #cuda0>) {
  ^bb0(%out: memref<f32, #cuda0>):
    %c = arith.constant 1.0 : f32
    linalg.fill ins(%c : f32) outs(%out : memref<f32, #cuda0>)
  }
  %b = gp.item %x : memref<f32, #cuda0> -> f32
  return %a, %a2, %b : f32, f32, f32
}

// -----

#cuda0 = #gp.device<cuda:0>

// Identical views and symints merge (they are pure).
// CHECK-LABEL: func.func @pure_ops_merge
// CHECK: %[[V:.+]] = gp.buffer.bitcast
// CHECK-NOT: gp.buffer.bitcast
// CHECK: %[[S:.+]] = gp.symint "s0"
// CHECK-NOT: gp.symint
// CHECK: return %[[V]], %[[V]], %[[S]], %[[S]]
func.func @pure_ops_merge(%x: memref<2xf32, #cuda0>, %n: index)
    -> (memref<8xi8, #cuda0>, memref<8xi8, #cuda0>, index, index) {
  %v1 = gp.buffer.bitcast %x : memref<2xf32, #cuda0> to memref<8xi8, #cuda0>
  %v2 = gp.buffer.bitcast %x : memref<2xf32, #cuda0> to memref<8xi8, #cuda0>
  %s1 = gp.symint "s0" = %n
  %s2 = gp.symint "s0" = %n
  return %v1, %v2, %s1, %s2 : memref<8xi8, #cuda0>, memref<8xi8, #cuda0>, index, index
}

// -----

#cuda0 = #gp.device<cuda:0>

// RNG draws advance their state, so they stay; so does a partition whose
// body writes one of its inputs, while a partition with no effects goes.
// CHECK-LABEL: func.func @rng_and_partitions
// CHECK: gp.rng.fill uniform
// CHECK: gp.partition 0 capturable
// CHECK-NOT: gp.partition 1
// CHECK: return
gp.rng.generator @g
func.func @rng_and_partitions(%x: memref<4xf32, #cuda0>) {
  %s = gp.rng.state @g forward : !gp.rng_state
  gp.rng.fill uniform %s, %x : memref<4xf32, #cuda0>
  gp.partition 0 capturable ins(%x : memref<4xf32, #cuda0>) {
  ^bb0(%in: memref<4xf32, #cuda0>):
    %v = gp.buffer.reshape %in() : memref<4xf32, #cuda0> to memref<2x2xf32, #cuda0>
    gp.kernel "fill" outs(%v : memref<2x2xf32, #cuda0>) {
    ^bb0(%out: memref<2x2xf32, #cuda0>):
      %c = arith.constant 0.0 : f32
      linalg.fill ins(%c : f32) outs(%out : memref<2x2xf32, #cuda0>)
    }
    gp.yield
  }
  gp.partition 1 capturable ins(%x : memref<4xf32, #cuda0>) {
  ^bb0(%in: memref<4xf32, #cuda0>):
    %unused = gp.buffer.alloc() : memref<4xf32, #cuda0>
    gp.yield
  }
  return
}
