// RUN: gp-opt %s -split-input-file --gp-reorder | FileCheck %s
// RUN: gp-opt %s -split-input-file --gp-reorder --gp-partition | FileCheck %s --check-prefix=PART
// RUN: gp-opt %s -split-input-file --gp-reorder=memory-budget=2.5 | FileCheck %s --check-prefix=BUDGET
// RUN: gp-opt %s -split-input-file --gp-reorder=strategy=simple | FileCheck %s --check-prefix=SIMPLE

#cuda0 = #gp.device<cuda:0>
#meta = #gp.device<meta>

// The padded-tensor mask op reads no buffer, only sizes: it moves to the
// front and the rest is one capturable partition.
// CHECK-LABEL: func.func @padded_mask
// CHECK: gp.fallback "mylib::create_mask"
// CHECK: gp.kernel "add_relu"
// CHECK: gp.kernel "masked_min"
// PART-LABEL: func.func @padded_mask
// PART: gp.partition 0 eager reasons ["cudagraph-unsafe custom op"]
// PART: gp.partition 1 capturable
// PART-NOT: gp.partition 2
func.func @padded_mask(%x: memref<?xf32, #cuda0>, %orig: memref<?xf32, #meta>) -> memref<f32, #cuda0> {
  %s0 = gp.symint.dim "s0" = %x[0] : memref<?xf32, #cuda0>
  %s1 = gp.symint.dim "s1" = %orig[0] : memref<?xf32, #meta>
  %act = gp.buffer.alloc(%s0) : memref<?xf32, #cuda0>
  gp.kernel "add_relu" ins(%x : memref<?xf32, #cuda0>) outs(%act : memref<?xf32, #cuda0>) {
  ^bb0(%i: memref<?xf32, #cuda0>, %o: memref<?xf32, #cuda0>):
  }
  %mask = gp.fallback "mylib::create_mask"(%s0, %s1) tags ["cudagraph_unsafe"] : (index, index) -> memref<?xi1, #cuda0>
  %min = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "masked_min" ins(%act, %mask : memref<?xf32, #cuda0>, memref<?xi1, #cuda0>) outs(%min : memref<f32, #cuda0>) {
  ^bb0(%a: memref<?xf32, #cuda0>, %m: memref<?xi1, #cuda0>, %o: memref<f32, #cuda0>):
  }
  return %min : memref<f32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// Interleaved cpu and gpu work with no dependences between the two: the cpu
// ops gather in front, the gpu kernels form one capturable partition.
// CHECK-LABEL: func.func @interleaved
// CHECK: gp.kernel "cpu0"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: }
// CHECK-NEXT: gp.kernel "cpu1"
// CHECK: gp.kernel "gpu0"
// CHECK: gp.kernel "gpu1"
// PART-LABEL: func.func @interleaved
// PART: gp.partition 0 eager reasons ["cpu ops"]
// PART: gp.partition 1 capturable
// PART-NOT: gp.partition 2
func.func @interleaved(%x: memref<4xf32, #cuda0>, %h: memref<4xf32, #cpu>, %g: memref<4xf32, #cpu>) {
  gp.kernel "gpu0" outs(%x : memref<4xf32, #cuda0>) {
  ^bb0(%o: memref<4xf32, #cuda0>):
  }
  gp.kernel "cpu0" outs(%h : memref<4xf32, #cpu>) {
  ^bb0(%o: memref<4xf32, #cpu>):
  }
  gp.kernel "gpu1" outs(%x : memref<4xf32, #cuda0>) {
  ^bb0(%o: memref<4xf32, #cuda0>):
  }
  gp.kernel "cpu1" outs(%g : memref<4xf32, #cpu>) {
  ^bb0(%o: memref<4xf32, #cpu>):
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// Dependences hold: a copy to the cpu reads what k0 wrote (read after
// write), and k1 overwrites what the copy read (write after read), through a
// view of the same buffer. Nothing can move.
// CHECK-LABEL: func.func @dependences
// PART-LABEL: func.func @dependences
// CHECK: gp.kernel "k0"
// CHECK: gp.copy
// CHECK: gp.kernel "k1"
func.func @dependences(%x: memref<4xf32, #cuda0>, %h: memref<16xi8, #cpu>) {
  gp.kernel "k0" outs(%x : memref<4xf32, #cuda0>) {
  ^bb0(%o: memref<4xf32, #cuda0>):
  }
  %v = gp.buffer.bitcast %x : memref<4xf32, #cuda0> to memref<16xi8, #cuda0>
  gp.copy %v, %h : memref<16xi8, #cuda0> to memref<16xi8, #cpu>
  gp.kernel "k1" outs(%x : memref<4xf32, #cuda0>) {
  ^bb0(%o: memref<4xf32, #cuda0>):
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Moving the unsafe producer of %y to the front would keep both 1 MiB
// buffers alive at once: twice the peak, over the default budget (1.1x), so
// the order stays; a budget of 2.5x accepts it.
// CHECK-LABEL: func.func @budget
// PART-LABEL: func.func @budget
// CHECK: gp.kernel "make_x"
// CHECK: gp.kernel "use_x"
// CHECK: gp.fallback "mylib::make_y"
// BUDGET-LABEL: func.func @budget
// BUDGET: gp.fallback "mylib::make_y"
// BUDGET: gp.kernel "make_x"
// BUDGET: gp.kernel "use_x"
// BUDGET: gp.kernel "use_y"
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

// -----

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// Simple moves: an unsafe op with nothing before it moves to the front; one
// whose result only the program returns moves to the end. Five partitions
// become three.
// SIMPLE-LABEL: func.func @simple
// SIMPLE: gp.fallback "mylib::no_deps"
// SIMPLE: gp.kernel "k0"
// SIMPLE: gp.kernel "k1"
// SIMPLE: gp.kernel "k2"
// SIMPLE: gp.copy
// SIMPLE-NEXT: return
func.func @simple(%x: memref<4xf32, #cuda0>, %y: memref<4xf32, #cuda0>, %z: memref<4xf32, #cuda0>) -> memref<4xf32, #cpu> {
  gp.kernel "k0" outs(%x : memref<4xf32, #cuda0>) {
  ^bb0(%o: memref<4xf32, #cuda0>):
  }
  %h = gp.buffer.alloc() : memref<4xf32, #cpu>
  gp.copy %x, %h : memref<4xf32, #cuda0> to memref<4xf32, #cpu>
  gp.kernel "k1" outs(%z : memref<4xf32, #cuda0>) {
  ^bb0(%o: memref<4xf32, #cuda0>):
  }
  %m = gp.fallback "mylib::no_deps"() tags ["cudagraph_unsafe"] : () -> memref<4xf32, #cuda0>
  gp.kernel "k2" ins(%m : memref<4xf32, #cuda0>) outs(%y : memref<4xf32, #cuda0>) {
  ^bb0(%i: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
  }
  return %h : memref<4xf32, #cpu>
}
