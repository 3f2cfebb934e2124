// RUN: gp-opt %s -split-input-file --gp-verify-plan -verify-diagnostics -o /dev/null

// Hand-broken memory plans: gp-verify-plan finds each with a located error.

#cuda0 = #gp.device<cuda:0>

// A correct plan passes.
func.func @correct(%x: memref<4xf32, #cuda0>) attributes {gp.arenas = [#gp.arena<#cuda0, 512>]} {
  %a = gp.buffer.alloc() {offset = 0 : i64} : memref<4xf32, #cuda0>
  gp.copy %x, %a : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  %b = gp.buffer.alloc() {offset = 256 : i64} : memref<4xf32, #cuda0>
  gp.copy %a, %b : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  gp.buffer.dealloc %a : memref<4xf32, #cuda0>
  %c = gp.buffer.reuse %b : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  gp.copy %x, %c : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  gp.buffer.dealloc %c : memref<4xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Use after free, through a view made before the free.
func.func @use_after_free(%x: memref<4xf32, #cuda0>) {
  %a = gp.buffer.alloc() : memref<4xf32, #cuda0>
  %v = gp.buffer.bitcast %a : memref<4xf32, #cuda0> to memref<16xi8, #cuda0>
  gp.copy %x, %a : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  // expected-error @+1 {{frees a buffer that is still used later, directly or through an alias}}
  gp.buffer.dealloc %a : memref<4xf32, #cuda0>
  %h = gp.buffer.alloc() : memref<16xi8, #cuda0>
  // expected-note @+1 {{used here}}
  gp.copy %v, %h : memref<16xi8, #cuda0> to memref<16xi8, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// A read after the storage was handed to another buffer.
func.func @use_after_handover(%x: memref<4xf32, #cuda0>) {
  %a = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.copy %x, %a : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  // expected-error @+1 {{hands over a buffer that is still used later}}
  %b = gp.buffer.reuse %a : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  // expected-note @+1 {{used here}}
  gp.copy %a, %x : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Double free, including across a partition boundary.
func.func @double_free(%x: memref<4xf32, #cuda0>) {
  %a = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.copy %x, %a : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  gp.partition 0 capturable ins(%a : memref<4xf32, #cuda0>) frees [0] {
  ^bb0(%in: memref<4xf32, #cuda0>):
    // expected-note @+1 {{released here}}
    gp.buffer.dealloc %in : memref<4xf32, #cuda0>
    gp.yield
  }
  // expected-error @+1 {{frees a buffer whose storage was already released (double free)}}
  gp.buffer.dealloc %a : memref<4xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// A program input belongs to the caller.
func.func @free_input(%x: memref<4xf32, #cuda0>) {
  // expected-error @+1 {{frees a program input, which the caller owns}}
  gp.buffer.dealloc %x : memref<4xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// A buffer read after its free inside a later partition.
func.func @read_in_later_partition(%x: memref<4xf32, #cuda0>) {
  %a = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.copy %x, %a : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  %r = gp.partition 0 capturable ins(%a : memref<4xf32, #cuda0>) {
  ^bb0(%in: memref<4xf32, #cuda0>):
    gp.yield %in : memref<4xf32, #cuda0>
  } -> (memref<4xf32, #cuda0>)
  // expected-error @+1 {{frees a buffer that is still used later}}
  gp.buffer.dealloc %a : memref<4xf32, #cuda0>
  gp.partition 1 capturable ins(%r, %x : memref<4xf32, #cuda0>, memref<4xf32, #cuda0>) {
  ^bb0(%in: memref<4xf32, #cuda0>, %out: memref<4xf32, #cuda0>):
    // expected-note @+1 {{used here}}
    gp.copy %in, %out : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
    gp.yield
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Two buffers alive at the same time share arena bytes.
func.func @overlap(%x: memref<4xf32, #cuda0>) attributes {gp.arenas = [#gp.arena<#cuda0, 1024>]} {
  // expected-note @+1 {{the other buffer}}
  %a = gp.buffer.alloc() {offset = 0 : i64} : memref<64xf32, #cuda0>
  // expected-error @+1 {{arena range [0, 16) overlaps [0, 256) of a buffer that is alive at the same time}}
  %b = gp.buffer.alloc() {offset = 0 : i64} : memref<4xf32, #cuda0>
  gp.copy %x, %b : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  gp.buffer.dealloc %b : memref<4xf32, #cuda0>
  gp.buffer.dealloc %a : memref<64xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Once a buffer is freed, its bytes may be given to a later one.
func.func @sequential_sharing(%x: memref<4xf32, #cuda0>) attributes {gp.arenas = [#gp.arena<#cuda0, 256>]} {
  %a = gp.buffer.alloc() {offset = 0 : i64} : memref<4xf32, #cuda0>
  gp.copy %x, %a : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  gp.buffer.dealloc %a : memref<4xf32, #cuda0>
  %b = gp.buffer.alloc() {offset = 0 : i64} : memref<4xf32, #cuda0>
  gp.copy %x, %b : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  gp.buffer.dealloc %b : memref<4xf32, #cuda0>
  return
}
