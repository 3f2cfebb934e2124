// RUN: gp-opt %s --gp-partition=report -o /dev/null 2>&1 | FileCheck %s
// RUN: rm -f %t.dot
// RUN: gp-opt %s --gp-partition=dot-file=%t.dot -o /dev/null
// RUN: FileCheck %s --check-prefix=DOT < %t.dot
// Running again starts the picture afresh rather than appending.
// RUN: gp-opt %s --gp-partition=dot-file=%t.dot -o /dev/null
// RUN: grep -c digraph %t.dot | FileCheck %s --check-prefix=ONE
// ONE: 1

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// CHECK: gp-partition: @report: Created 3 partitions: 2 capturable, 1 eager
// CHECK-NEXT: partition 0: capturable, 1 compute ops
// CHECK-NEXT: inputs (1) %arg0
// CHECK-NEXT: outputs (2) %p0#0 %p0#1
// CHECK-NEXT: partition 1: eager [device copy, cpu ops], 2 compute ops
// CHECK-NEXT: inputs (1) %p0#0
// CHECK-NEXT: outputs (1) %p1
// CHECK-NEXT: unsafe: gp.copy at {{.*}}partition-report.mlir:47:3: device copy
// CHECK-NEXT: unsafe: gp.kernel "on_cpu" at {{.*}}partition-report.mlir:48:3: cpu ops
// CHECK-NEXT: partition 2: capturable, 1 compute ops
// CHECK-NEXT: inputs (2) %arg1 %p1
// CHECK-NEXT: outputs (1) %p2

// DOT: digraph "program" {
// DOT: subgraph cluster_f0_function {
// DOT-NEXT: style=rounded; color=gray40; label="@report";
// DOT-DAG: f0_arg0 [shape=ellipse, label="%arg0"];
// DOT-DAG: subgraph cluster_f0_p0 {
// DOT-DAG: color=palegreen;
// DOT-DAG: label="partition 1: eager\ndevice copy\ncpu ops";
// DOT-DAG: color=orange;
// DOT-DAG: [[K0:f0_n[0-9]+]] [label="gp.kernel \"k0\""];
// DOT-DAG: [[COPY:f0_n[0-9]+]] [label="gp.copy"];
// DOT-DAG: [[K1:f0_n[0-9]+]] [label="gp.kernel \"k1\""];
// DOT-DAG: f0_arg0 -> [[K0]] [label="%arg0"];
// DOT-DAG: [[K0]] -> [[COPY]] [label="%p0#0"];
// DOT-DAG: f0_arg1 -> [[K1]] [label="%arg1"];
// DOT-DAG: [[K0]] -> [[K1]] [label="%p1"];
func.func @report(%x: memref<4xf32, #cuda0>, %y: memref<4xf32, #cuda0>) -> memref<4xf32, #cuda0> {
  %a = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "k0" ins(%x : memref<4xf32, #cuda0>) outs(%a : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  %h = gp.buffer.alloc() : memref<4xf32, #cpu>
  gp.copy %a, %h : memref<4xf32, #cuda0> to memref<4xf32, #cpu>
  gp.kernel "on_cpu" outs(%h : memref<4xf32, #cpu>) {
  ^bb0(%o: memref<4xf32, #cpu>):
  }
  gp.kernel "k1" ins(%a : memref<4xf32, #cuda0>) outs(%y : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  return %y : memref<4xf32, #cuda0>
}
