// RUN: gp-opt %s --gp-partition --gp-plan-memory=report -o /dev/null 2>&1 | FileCheck %s
// RUN: not gp-opt %s --gp-partition --gp-plan-memory --gp-plan-memory 2>&1 | FileCheck %s --check-prefix=TWICE

#cuda0 = #gp.device<cuda:0>

// CHECK: gp-plan-memory: @report: 2 frees, 1 reuses (1024 bytes saved), 0 symbolic-size buffers planned at run time
// CHECK-NEXT: arena cuda:0: 2048 bytes (live lower bound 2048 bytes)
// TWICE: error: '{{.*}}' op found in a function given to gp-plan-memory: the function is already planned
func.func @report(%x: memref<256xf32, #cuda0>) -> memref<256xf32, #cuda0> {
  %a = gp.buffer.alloc() : memref<256xf32, #cuda0>
  gp.kernel "k0" ins(%x : memref<256xf32, #cuda0>) outs(%a : memref<256xf32, #cuda0>) {
  ^bb0(%i: memref<256xf32, #cuda0>, %o: memref<256xf32, #cuda0>):
  }
  %b = gp.buffer.alloc() : memref<256xf32, #cuda0>
  gp.kernel "k1" ins(%a : memref<256xf32, #cuda0>) outs(%b : memref<256xf32, #cuda0>) {
  ^bb0(%i: memref<256xf32, #cuda0>, %o: memref<256xf32, #cuda0>):
  }
  %c = gp.buffer.alloc() : memref<256xf32, #cuda0>
  gp.kernel "k2" ins(%b : memref<256xf32, #cuda0>) outs(%c : memref<256xf32, #cuda0>) {
  ^bb0(%i: memref<256xf32, #cuda0>, %o: memref<256xf32, #cuda0>):
  }
  return %c : memref<256xf32, #cuda0>
}
