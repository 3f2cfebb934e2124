// RUN: gp-opt %s -split-input-file -verify-diagnostics

// Malformed text gets a located error, never a crash.

#cuda0 = #gp.device<cuda:0>
func.func @truncated_op() {
  // expected-error @+1 {{expected ')'}}
  %b = gp.buffer.alloc(

// -----

#cuda0 = #gp.device<cuda:0>
func.func @wrong_result_type(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.memref, but found 'f32'}}
  %v = gp.buffer.bitcast %x : memref<8xf32, #cuda0> to f32
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @operand_type_mismatch(%x: memref<8xf32, #cuda0>) {
  // expected-error @+2 {{use of value '%x' expects different type than prior uses: 'memref<4xf32, #gp.device<cuda:0>>' vs 'memref<8xf32, #gp.device<cuda:0>>'}}
  // expected-note @-2 {{prior use here}}
  gp.buffer.dealloc %x : memref<4xf32, #cuda0>
  return
}

// -----

// expected-error @+1 {{unbalanced '<' character in pretty dialect name}}
#cuda0 = #gp.device<cuda:0
func.func private @f(memref<8xf32, #cuda0>)

// -----

// expected-error @+1 {{expected ':'}}
func.func private @f(memref<8xf32, #gp.device<cuda>>)

// -----

func.func @unknown_op() {
  // expected-error @+1 {{custom op 'gp.frobnicate' is unknown}}
  gp.frobnicate
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @kernel_without_body(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{expected '{' to begin a region}}
  gp.kernel "k" outs(%x : memref<8xf32, #cuda0>)
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @aliases_unclosed(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{expected ']'}}
  %a = gp.fallback "mylib::op"(%x) aliases [0 : (memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @missing_role(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'role' [forward, backward]}}
  %s = gp.rng.state @g : !gp.rng_state
  return
}

// -----

func.func @partition_kind() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [capturable, eager]}}
  gp.partition 0 sometimes {
    gp.yield
  }
  return
}

// -----

// expected-error @+1 {{unbalanced '<' character in pretty dialect name}}
func.func private @f(memref<8xf32, #gp.device<cuda:0)
