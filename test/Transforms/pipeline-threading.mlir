// gp-opt runs single-threaded by default on machines with two hardware
// threads or fewer; an explicit --mlir-disable-threading, either way, is
// honoured. Its heap uses huge pages unless GP_OPT_HUGE_PAGES=0. The result
// is the same in every mode. Two functions: gp-reorder keeps each one's
// alias analysis for gp-partition, which must find its own.
// RUN: gp-opt %s --gp-pipeline | FileCheck %s
// RUN: gp-opt %s --gp-pipeline --mlir-disable-threading | FileCheck %s
// RUN: gp-opt %s --gp-pipeline --mlir-disable-threading=false | FileCheck %s
// RUN: env GP_OPT_HUGE_PAGES=0 gp-opt %s --gp-pipeline | FileCheck %s

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// The cpu round trip has no dependence on the second kernel: reordering puts
// it first, leaving one capturable partition.
// CHECK-LABEL: func.func @first
// CHECK: gp.partition 0 eager reasons ["device copy"]
// CHECK: gp.copy
// CHECK: gp.partition 1 capturable
// CHECK: gp.kernel "k0"
// CHECK: gp.kernel "k1"
// CHECK-NOT: gp.partition 2
func.func @first(%x: memref<4xf32, #cuda0>, %h: memref<4xf32, #cpu>)
    -> (memref<4xf32, #cuda0>, memref<4xf32, #cpu>) {
  %a = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "k0" ins(%x : memref<4xf32, #cuda0>) outs(%a : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  %c = gp.buffer.alloc() : memref<4xf32, #cpu>
  gp.copy %x, %c : memref<4xf32, #cuda0> to memref<4xf32, #cpu>
  %b = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "k1" ins(%a : memref<4xf32, #cuda0>) outs(%b : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  return %b, %c : memref<4xf32, #cuda0>, memref<4xf32, #cpu>
}

// The cpu kernel reads what the first kernel wrote and feeds the second:
// three partitions, whatever the order.
// CHECK-LABEL: func.func @second
// CHECK: gp.partition 0 capturable
// CHECK: gp.partition 1 eager reasons ["device copy", "cpu ops"]
// CHECK: gp.partition 2 capturable
func.func @second(%x: memref<4xf32, #cuda0>) -> memref<4xf32, #cuda0> {
  %a = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "k0" ins(%x : memref<4xf32, #cuda0>) outs(%a : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  %h = gp.buffer.alloc() : memref<4xf32, #cpu>
  gp.copy %a, %h : memref<4xf32, #cuda0> to memref<4xf32, #cpu>
  gp.kernel "cpu" outs(%h : memref<4xf32, #cpu>) {
  ^bb0(%o: memref<4xf32, #cpu>):
  }
  %b = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.copy %h, %b : memref<4xf32, #cpu> to memref<4xf32, #cuda0>
  %c = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "k1" ins(%b : memref<4xf32, #cuda0>) outs(%c : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  return %c : memref<4xf32, #cuda0>
}
