// A program with several functions gets one picture: one graph, a cluster
// per function (nodes named apart), so `dot -Tsvg` renders every function.
// gp-pipeline and gp-compile ask for it too.
// RUN: gp-opt %s --gp-partition=dot-file=%t.dot -o /dev/null
// RUN: FileCheck %s < %t.dot
// RUN: grep -c digraph %t.dot | FileCheck %s --check-prefix=ONE
// RUN: rm -f %t.pipeline.dot
// RUN: gp-opt %s --gp-pipeline=dot-file=%t.pipeline.dot -o /dev/null
// RUN: FileCheck %s < %t.pipeline.dot
// RUN: rm -f %t.compile.dot
// RUN: gp-compile %s -o %t.so --dot %t.compile.dot
// RUN: FileCheck %s < %t.compile.dot
// RUN: gp-compile %s -o %t.so --dot=%t.compile.dot
// RUN: FileCheck %s < %t.compile.dot

// ONE: 1
// CHECK: digraph "program" {
// CHECK: subgraph cluster_f0_function {
// CHECK-NEXT: style=rounded; color=gray40; label="@first";
// CHECK: subgraph cluster_f0_p0 {
// CHECK: [[DOUBLE:f0_n[0-9]+]] [label="gp.kernel \"double\""];
// CHECK: f0_arg0 -> [[DOUBLE]] [label="%arg0"];
// CHECK: subgraph cluster_f1_function {
// CHECK-NEXT: style=rounded; color=gray40; label="@second";
// CHECK: subgraph cluster_f1_p0 {
// CHECK: [[NEGATE:f1_n[0-9]+]] [label="gp.kernel \"negate\""];
// CHECK: f1_arg0 -> [[NEGATE]] [label="%arg0"];
// CHECK: }
// CHECK-NOT: digraph

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>
func.func @first(%x: memref<4xf32, #cuda0>) -> memref<4xf32, #cuda0> {
  %y = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "double" ins(%x : memref<4xf32, #cuda0>) outs(%y : memref<4xf32, #cuda0>) {
  ^bb0(%in: memref<4xf32, #cuda0>, %out: memref<4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<4xf32, #cuda0>) outs(%out : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %r = arith.addf %a, %a : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<4xf32, #cuda0>
}

func.func @second(%x: memref<4xf32, #cuda0>) -> memref<4xf32, #cuda0> {
  %y = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "negate" ins(%x : memref<4xf32, #cuda0>) outs(%y : memref<4xf32, #cuda0>) {
  ^bb0(%in: memref<4xf32, #cuda0>, %out: memref<4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<4xf32, #cuda0>) outs(%out : memref<4xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %r = arith.negf %a : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<4xf32, #cuda0>
}
