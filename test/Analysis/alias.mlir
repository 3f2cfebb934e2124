// RUN: gp-opt %s -split-input-file -test-gp-alias -verify-diagnostics -o /dev/null

#cuda0 = #gp.device<cuda:0>

// Views (reshape, slice, bitcast, and chains of them) share their base's
// storage; new allocations and arguments own theirs.
// expected-remark @+2 {{arg 0: class 0 root}}
// expected-remark @+1 {{arg 1: class 1 root}}
func.func @views(%x: memref<4x8xf32, #cuda0>, %y: memref<8xf32, #cuda0>) {
  // expected-remark @+1 {{result 0: class 0 view}}
  %flat = gp.buffer.reshape %x() : memref<4x8xf32, #cuda0> to memref<32xf32, #cuda0>
  // expected-remark @+1 {{result 0: class 0 view}}
  %f8 = gp.buffer.bitcast %flat : memref<32xf32, #cuda0> to memref<128xf8E4M3FN, #cuda0>
  // expected-remark @+1 {{result 0: class 1 view}}
  %s = gp.buffer.slice %y[2] [4] [1] : memref<8xf32, #cuda0> to memref<4xf32, strided<[1], offset: 2>, #cuda0>
  // expected-remark @+1 {{result 0: class 2 root}}
  %b = gp.buffer.alloc() : memref<8xf32, #cuda0>
  // Storage handed over by memory planning is shared.
  // expected-remark @+1 {{result 0: class 2 root}}
  %r = gp.buffer.reuse %b : memref<8xf32, #cuda0> to memref<2x4xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// A mutating, auto-functionalized op returns fresh buffers: its results do
// not alias the operand it mutates (nor each other). A result the schema
// says aliases an operand shares its storage.
// expected-remark @+1 {{arg 0: class 0 root}}
func.func @fallback_results(%x: memref<8xf32, #cuda0>) {
  // expected-remark @+2 {{result 0: class 1 root}}
  // expected-remark @+1 {{result 1: class 2 root}}
  %a, %b = gp.fallback "mylib::op1"(%x) mutates [0] aliases [-, -] : (memref<8xf32, #cuda0>) -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>)
  // Without an aliases list every result is fresh too.
  // expected-remark @+1 {{result 0: class 3 root}}
  %c = gp.fallback "mylib::op2"(%x) mutates [0] : (memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0>
  // expected-remark @+2 {{result 0: class 4 root}}
  // expected-remark @+1 {{result 1: class 0 view}}
  %d, %e = gp.fallback "aten::split"(%x) aliases [-, 0] : (memref<8xf32, #cuda0>) -> (memref<8xf32, #cuda0>, memref<4xf32, #cuda0>)
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// Aliasing is tracked across partitions: a partition's argument is its
// input's storage, and its result is the storage of what it yields.
// expected-remark @+1 {{arg 0: class 0 root}}
func.func @across_partitions(%x: memref<8xf32, #cuda0>) -> memref<32xi8, #cuda0> {
  // expected-remark @+2 {{result 0: class 1 view}}
  // expected-remark @+1 {{result 1: class 0 view}}
  %p0:2 = gp.partition 0 capturable ins(%x : memref<8xf32, #cuda0>) {
  ^bb0(%in: memref<8xf32, #cuda0>):
    // expected-remark @+1 {{result 0: class 1 root}}
    %buf = gp.buffer.alloc() : memref<8xf32, #cuda0>
    gp.yield %buf, %in : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>
  } -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>)
  // expected-remark @+1 {{result 0: class 1 view}}
  %p1 = gp.partition 1 eager reasons ["cpu ops"] ins(%p0#0 : memref<8xf32, #cuda0>) {
  ^bb0(%in: memref<8xf32, #cuda0>):
    // expected-remark @+1 {{result 0: class 1 view}}
    %v = gp.buffer.bitcast %in : memref<8xf32, #cuda0> to memref<32xi8, #cuda0>
    gp.yield %v : memref<32xi8, #cuda0>
  } -> (memref<32xi8, #cuda0>)
  return %p1 : memref<32xi8, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// A value chosen by control flow may be either operand: one class.
// expected-remark @+2 {{arg 0: class 0 root}}
// expected-remark @+1 {{arg 1: class 0 root}}
func.func @control_flow(%x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cuda0>, %c: i1) {
  // expected-remark @+1 {{result 0: class 0 view}}
  %r = scf.if %c -> memref<8xf32, #cuda0> {
    scf.yield %x : memref<8xf32, #cuda0>
  } else {
    scf.yield %y : memref<8xf32, #cuda0>
  }
  return
}
