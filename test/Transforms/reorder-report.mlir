// RUN: gp-opt %s --gp-reorder=report -o /dev/null 2>&1 | FileCheck %s

#cuda0 = #gp.device<cuda:0>

// The report says when the budget keeps the current order, and the counts
// and estimates before and after.
// CHECK: gp-reorder: @budget
// CHECK-NEXT: min-partitions: kept the current order: 2 partitions instead of 3 would raise estimated peak memory from 1048580 to 2097156 bytes, over the budget of 1.1x
// CHECK-NEXT: simple: kept the current order: 2 partitions instead of 3 would raise estimated peak memory from 1048580 to 2097156 bytes, over the budget of 1.1x
// CHECK-NEXT: partitions: 3 -> 3; estimated peak bytes: 1048580 -> 1048580
func.func @budget(%out: memref<f32, #cuda0>) {
  %x = gp.buffer.alloc() : memref<262144xf32, #cuda0>
  gp.kernel "make_x" outs(%x : memref<262144xf32, #cuda0>) {
  ^bb0(%o: memref<262144xf32, #cuda0>):
  }
  gp.kernel "use_x" ins(%x : memref<262144xf32, #cuda0>) outs(%out : memref<f32, #cuda0>) {
  ^bb0(%i: memref<262144xf32, #cuda0>, %o: memref<f32, #cuda0>):
  }
  %y = gp.fallback "mylib::make_y"() tags ["cudagraph_unsafe"] : () -> memref<262144xf32, #cuda0>
  gp.kernel "use_y" ins(%y : memref<262144xf32, #cuda0>) outs(%out : memref<f32, #cuda0>) {
  ^bb0(%i: memref<262144xf32, #cuda0>, %o: memref<f32, #cuda0>):
  }
  return
}
