// RUN: gp-opt %s --gp-partition=cudagraph-or-error -verify-diagnostics -o /dev/null
// RUN: env GP_CUDAGRAPH_OR_ERROR=1 gp-opt %s --gp-partition -verify-diagnostics -o /dev/null
// Without the option or the variable, the same program partitions fine.
// RUN: env GP_CUDAGRAPH_OR_ERROR=0 gp-opt %s --gp-partition | FileCheck %s
// CHECK: gp.partition 1 eager

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// or-error mode: one located error per op that cannot be captured, naming
// its reason, and nothing is partitioned.
func.func @or_error(%x: memref<4xf32, #cuda0>, %h: memref<4xf32, #cpu>, %one: memref<i64, #cuda0>) {
  gp.kernel "ok" outs(%x : memref<4xf32, #cuda0>) {
  ^bb0(%o: memref<4xf32, #cuda0>):
  }
  // expected-error @+1 {{cannot be captured in a CUDA graph: device copy (cudagraph-or-error is set)}}
  gp.copy %x, %h : memref<4xf32, #cuda0> to memref<4xf32, #cpu>
  // expected-error @+1 {{cannot be captured in a CUDA graph: cudagraph-unsafe custom op}}
  gp.fallback "mylib::sync"(%x) tags ["cudagraph_unsafe"] : (memref<4xf32, #cuda0>) -> ()
  // expected-error @+1 {{cannot be captured in a CUDA graph: unbacked symint}}
  %u = gp.symint.unbacked "u0" = %one : memref<i64, #cuda0>
  return
}
