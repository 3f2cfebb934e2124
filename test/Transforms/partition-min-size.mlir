// RUN: gp-opt %s --gp-partition=min-partition-size=2 | FileCheck %s
// RUN: gp-opt %s --gp-partition | FileCheck %s --check-prefix=DEFAULT

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// A capturable run of one kernel between two cpu ops is not worth a graph
// with min-partition-size=2: it runs eagerly and merges with its eager
// neighbours; the run of two kernels stays capturable.
// CHECK-LABEL: func.func @small_runs
// CHECK: gp.partition 0 eager reasons ["cpu ops", "below min-partition-size"]
// CHECK: gp.kernel "c0"
// CHECK: gp.kernel "g0"
// CHECK: gp.kernel "c1"
// CHECK: gp.partition 1 capturable
// CHECK: gp.kernel "g1"
// CHECK: gp.kernel "g2"
// CHECK-NOT: gp.partition 2
// DEFAULT-LABEL: func.func @small_runs
// DEFAULT: gp.partition 0 eager reasons ["cpu ops"]
// DEFAULT: gp.partition 1 capturable
// DEFAULT: gp.partition 2 eager reasons ["cpu ops"]
// DEFAULT: gp.partition 3 capturable
func.func @small_runs(%h: memref<4xf32, #cpu>, %x: memref<4xf32, #cuda0>) {
  gp.kernel "c0" outs(%h : memref<4xf32, #cpu>) {
  ^bb0(%o: memref<4xf32, #cpu>):
  }
  gp.kernel "g0" outs(%x : memref<4xf32, #cuda0>) {
  ^bb0(%o: memref<4xf32, #cuda0>):
  }
  gp.kernel "c1" outs(%h : memref<4xf32, #cpu>) {
  ^bb0(%o: memref<4xf32, #cpu>):
  }
  gp.kernel "g1" outs(%x : memref<4xf32, #cuda0>) {
  ^bb0(%o: memref<4xf32, #cuda0>):
  }
  gp.kernel "g2" outs(%x : memref<4xf32, #cuda0>) {
  ^bb0(%o: memref<4xf32, #cuda0>):
  }
  return
}
