// GraphPart loads into upstream mlir-opt as a dialect and pass plugin: the
// gp dialect parses, and the passes and pipeline run.
// RUN: mlir-opt %s --load-dialect-plugin=%gp_plugin --load-pass-plugin=%gp_plugin \
// RUN:   --pass-pipeline="builtin.module(gp-pipeline{debug=true})" | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%gp_plugin --load-pass-plugin=%gp_plugin \
// RUN:   --pass-pipeline="builtin.module(gp-partition{report=true})" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPORT

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// CHECK-LABEL: func.func @f
// CHECK-SAME: gp.arenas
// CHECK: gp.partition 0 capturable
// CHECK: gp.partition 1 eager reasons ["device copy"]
// REPORT: gp-partition: @f: Created 2 partitions: 1 capturable, 1 eager
func.func @f(%x: memref<4xf32, #cuda0>) -> memref<4xf32, #cpu> {
  %a = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "k0" ins(%x : memref<4xf32, #cuda0>) outs(%a : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  %h = gp.buffer.alloc() : memref<4xf32, #cpu>
  gp.copy %a, %h : memref<4xf32, #cuda0> to memref<4xf32, #cpu>
  return %h : memref<4xf32, #cpu>
}
