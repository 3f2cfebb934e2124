// RUN: gp-opt %s --split-input-file | gp-opt --split-input-file | FileCheck %s
// RUN: gp-opt %s --split-input-file --canonicalize --cse | FileCheck %s --check-prefix=EFFECTS

// The collectives print and parse back (a round trip through gp-opt).
// CHECK-LABEL: func.func @collectives
// CHECK: %[[RANK:.+]] = gp.rank : index
// CHECK: %[[WORLD:.+]] = gp.world_size : index
// CHECK: gp.all_reduce sum %{{.+}}, %{{.+}} : memref<8x256xf32, #cuda0> to memref<8x256xf32, #cuda0>
// CHECK: gp.all_reduce max %[[X:[^,]+]], %[[X]] : memref<8x256xf32, #cuda0> to memref<8x256xf32, #cuda0>
// CHECK: gp.all_gather %{{.+}}, %{{.+}} : memref<2x64xbf16, #cuda0> to memref<8x64xbf16, #cuda0>
// CHECK: gp.reduce_scatter min %{{.+}}, %{{.+}} : memref<8x64xbf16, #cuda0> to memref<2x64xbf16, #cuda0>
// CHECK: gp.broadcast %{{.+}} root 3 : memref<16xi64, #cpu>
#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>
func.func @collectives(%x: memref<8x256xf32, #cuda0>, %y: memref<8x256xf32, #cuda0>, %part: memref<2x64xbf16, #cuda0>, %whole: memref<8x64xbf16, #cuda0>, %ids: memref<16xi64, #cpu>) -> (index, index) {
  %r = gp.rank : index
  %n = gp.world_size : index
  gp.all_reduce sum %x, %y : memref<8x256xf32, #cuda0> to memref<8x256xf32, #cuda0>
  gp.all_reduce max %x, %x : memref<8x256xf32, #cuda0> to memref<8x256xf32, #cuda0>
  gp.all_gather %part, %whole : memref<2x64xbf16, #cuda0> to memref<8x64xbf16, #cuda0>
  gp.reduce_scatter min %whole, %part : memref<8x64xbf16, #cuda0> to memref<2x64xbf16, #cuda0>
  gp.broadcast %ids root 3 : memref<16xi64, #cpu>
  return %r, %n : index, index
}

// -----

// Collectives write the order every rank issues them in: none is dead,
// even where nothing reads what it wrote, and CSE merges none; the rank
// and the world size are pure, so unused ones go.
// EFFECTS-LABEL: func.func @never_dead
// EFFECTS-NOT: gp.rank
// EFFECTS-NOT: gp.world_size
// EFFECTS: gp.all_reduce sum
// EFFECTS-NEXT: gp.all_reduce sum
// EFFECTS-NEXT: gp.broadcast
// EFFECTS-NEXT: return
#cuda0 = #gp.device<cuda:0>
func.func @never_dead(%x: memref<4xf32, #cuda0>) {
  %r = gp.rank : index
  %n = gp.world_size : index
  %t = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.all_reduce sum %x, %t : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  gp.all_reduce sum %x, %t : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  gp.broadcast %x root 0 : memref<4xf32, #cuda0>
  return
}
