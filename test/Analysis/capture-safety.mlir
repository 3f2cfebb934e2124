// RUN: gp-opt %s -split-input-file -test-gp-capture-safety -verify-diagnostics -o /dev/null

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

// Every kind of op in a function body and the reason it cannot be captured.
func.func @reasons(%x: memref<8xf32, #cuda0>, %h: memref<8xf32, #cpu>,
                   %m: memref<8xf32, #meta>, %one: memref<i64, #cuda0>,
                   %arg0: index, %c: i1) {
  // expected-remark @+1 {{host definition}}
  %s0 = gp.symint "s0" = %arg0
  // expected-remark @+1 {{glue}}
  %buf = gp.buffer.alloc() : memref<8xf32, #cuda0>
  // expected-remark @+1 {{compute: capture-safe}}
  gp.kernel "k" ins(%x : memref<8xf32, #cuda0>) outs(%buf : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %b: memref<8xf32, #cuda0>):
  }
  // expected-remark @+1 {{compute: cpu ops}}
  gp.kernel "k_cpu" outs(%h : memref<8xf32, #cpu>) {
  ^bb0(%b: memref<8xf32, #cpu>):
  }
  // expected-remark @+1 {{compute: device copy}}
  gp.copy %x, %h : memref<8xf32, #cuda0> to memref<8xf32, #cpu>
  // A copy on one cuda device is a device memcpy: capturable.
  // expected-remark @+1 {{compute: capture-safe}}
  gp.copy %x, %buf : memref<8xf32, #cuda0> to memref<8xf32, #cuda0>
  // Reading a device scalar on the host is a cpu op.
  // expected-remark @+1 {{compute: cpu ops}}
  %v = gp.item %one : memref<i64, #cuda0> -> i64
  // expected-remark @+1 {{compute: unbacked symint}}
  %u0 = gp.symint.unbacked "u0" = %one : memref<i64, #cuda0>
  // expected-remark @+1 {{compute: unbacked symint}}
  %n = gp.fallback "aten::nonzero_count"(%x) : (memref<8xf32, #cuda0>) -> index
  // expected-remark @+1 {{compute: cudagraph-unsafe custom op}}
  %mask = gp.fallback "mylib::create_mask"(%s0) tags ["cudagraph_unsafe"] : (index) -> memref<?xi1, #cuda0>
  // A library call with no unsafe tag is capturable (cuBLAS).
  // expected-remark @+1 {{compute: capture-safe}}
  %mm = gp.fallback "aten::mm.default"(%x, %x) : (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0>
  // Meta buffers hold no data: never a reason to cut.
  // expected-remark @+1 {{compute: capture-safe}}
  gp.kernel "k_meta" outs(%m : memref<8xf32, #meta>) {
  ^bb0(%b: memref<8xf32, #meta>):
  }
  // expected-remark @+1 {{compute: control flow}}
  scf.if %c {
    gp.kernel "k_branch" outs(%buf : memref<8xf32, #cuda0>) {
    ^bb0(%b: memref<8xf32, #cuda0>):
    }
  }
  // expected-remark @+1 {{compute: unsupported op 'memref.copy' (upstream ops come in through gp-import)}}
  memref.copy %x, %buf : memref<8xf32, #cuda0> to memref<8xf32, #cuda0>
  // A linalg op has a region but is no control flow.
  // expected-remark @+1 {{compute: unsupported op 'linalg.copy' (upstream ops come in through gp-import)}}
  linalg.copy ins(%x : memref<8xf32, #cuda0>) outs(%buf : memref<8xf32, #cuda0>)
  // expected-remark @+1 {{terminator}}
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>

// The first cuda device seen is the program's; work on another is cut.
func.func @devices(%x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cuda1>) {
  // expected-remark @+1 {{compute: capture-safe}}
  gp.kernel "on0" outs(%x : memref<8xf32, #cuda0>) {
  ^bb0(%b: memref<8xf32, #cuda0>):
  }
  // expected-remark @+1 {{compute: multiple devices}}
  gp.kernel "on1" outs(%y : memref<8xf32, #cuda1>) {
  ^bb0(%b: memref<8xf32, #cuda1>):
  }
  // expected-remark @+1 {{compute: device copy}}
  gp.copy %x, %y : memref<8xf32, #cuda0> to memref<8xf32, #cuda1>
  // expected-remark @+1 {{terminator}}
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Symbolic sizes are capturable by default (one graph per shape).
func.func @dynamic(%x: memref<?xf32, #cuda0>) {
  // expected-remark @+1 {{compute: capture-safe}}
  gp.kernel "dyn" outs(%x : memref<?xf32, #cuda0>) {
  ^bb0(%b: memref<?xf32, #cuda0>):
  }
  // expected-remark @+1 {{terminator}}
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Writing a host scalar into a device slot is a host-to-device transfer:
// not capturable (gp-scalar-slots places these outside partitions).
func.func @scalar_slot(%v: f32) {
  // expected-remark @+1 {{compute: host scalar write}}
  %slot = gp.scalar.slot %v : f32 -> memref<f32, #cuda0>
  // expected-remark @+1 {{terminator}}
  return
}
