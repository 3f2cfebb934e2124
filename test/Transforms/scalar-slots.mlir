// RUN: gp-opt %s -split-input-file --gp-scalar-slots | FileCheck %s

// gp-scalar-slots: a captured graph keeps kernel parameters as captured, so
// each non-index scalar input of a capturable partition reaches its
// kernels through a device slot written before the partition on every
// call; the kernels load it where they use it.

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>
#map = affine_map<(d0) -> (d0)>

// An f32 (a .item() result) and an i64 get slots; the index input (the
// shape key) and the eager partition are left alone.
// CHECK-LABEL: func.func @scalars
// CHECK-SAME: (%[[X:.+]]: memref<8xf32, #cuda0>, %[[S:.+]]: f32, %[[N:.+]]: i64, %[[K:.+]]: index)
// CHECK: %[[SLOT:.+]] = gp.scalar.slot %[[S]] : f32 -> memref<f32, #cuda0>
// CHECK: %[[NSLOT:.+]] = gp.scalar.slot %[[N]] : i64 -> memref<i64, #cuda0>
// CHECK: gp.partition 0 capturable ins(%[[X]], %[[SLOT]], %[[NSLOT]], %[[K]] : memref<8xf32, #cuda0>, memref<f32, #cuda0>, memref<i64, #cuda0>, index)
// CHECK-NEXT: ^bb0(%[[XIN:.+]]: memref<8xf32, #cuda0>, %[[SIN:.+]]: memref<f32, #cuda0>, %[[NIN:.+]]: memref<i64, #cuda0>, %[[KIN:.+]]: index):
// CHECK: gp.kernel "scale" ins(%[[XIN]], %[[SIN]], %[[NIN]], %[[KIN]] : memref<8xf32, #cuda0>, memref<f32, #cuda0>, memref<i64, #cuda0>, index)
// CHECK-NEXT: ^bb0(%{{.+}}: memref<8xf32, #cuda0>, %[[SARG:.+]]: memref<f32, #cuda0>, %[[NARG:.+]]: memref<i64, #cuda0>, %{{.+}}: index, %{{.+}}: memref<8xf32, #cuda0>):
// CHECK: linalg.generic
// CHECK: %[[V:.+]] = memref.load %[[SARG]][] : memref<f32, #cuda0>
// CHECK-NEXT: arith.mulf %{{.+}}, %[[V]] : f32
// CHECK: memref.load %[[NARG]][] : memref<i64, #cuda0>
// CHECK: gp.partition 1 eager reasons ["cpu ops"] ins(%{{.+}}, %[[S]] : memref<8xf32, #cpu>, f32)
func.func @scalars(%x: memref<8xf32, #cuda0>, %s: f32, %n: i64, %k: index) -> memref<8xf32, #cuda0> {
  %p0 = gp.partition 0 capturable ins(%x, %s, %n, %k : memref<8xf32, #cuda0>, f32, i64, index) {
  ^bb0(%xin: memref<8xf32, #cuda0>, %sin: f32, %nin: i64, %kin: index):
    %y = gp.buffer.alloc() : memref<8xf32, #cuda0>
    gp.kernel "scale" ins(%xin, %sin, %nin, %kin : memref<8xf32, #cuda0>, f32, i64, index) outs(%y : memref<8xf32, #cuda0>) {
    ^bb0(%in: memref<8xf32, #cuda0>, %scale: f32, %count: i64, %at: index, %out: memref<8xf32, #cuda0>):
      linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
          ins(%in : memref<8xf32, #cuda0>) outs(%out : memref<8xf32, #cuda0>) {
      ^bb0(%a: f32, %b: f32):
        %r = arith.mulf %a, %scale : f32
        linalg.yield %r : f32
      }
      %c = arith.sitofp %count : i64 to f32
      memref.store %c, %out[%at] : memref<8xf32, #cuda0>
    }
    gp.yield %y : memref<8xf32, #cuda0>
  } -> (memref<8xf32, #cuda0>)
  %h = gp.buffer.alloc() : memref<8xf32, #cpu>
  gp.partition 1 eager reasons ["cpu ops"] ins(%h, %s : memref<8xf32, #cpu>, f32) {
  ^bb0(%hin: memref<8xf32, #cpu>, %sin: f32):
    gp.kernel "host" ins(%sin : f32) outs(%hin : memref<8xf32, #cpu>) {
    ^bb0(%v: f32, %o: memref<8xf32, #cpu>):
    }
    gp.yield
  }
  return %p0 : memref<8xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// A scalar that something other than a kernel uses inside the partition
// (here an extern's argument) could only be baked into the graph: the
// partition runs eagerly instead, and says why.
// CHECK-LABEL: func.func @scalar_outside_kernel
// CHECK-NOT: gp.scalar.slot
// CHECK: gp.partition 0 eager reasons ["host scalar outside a kernel"] ins(%{{.+}}, %{{.+}} : memref<8xf32, #cuda0>, f32)
func.func @scalar_outside_kernel(%x: memref<8xf32, #cuda0>, %s: f32) {
  gp.partition 0 capturable ins(%x, %s : memref<8xf32, #cuda0>, f32) {
  ^bb0(%xin: memref<8xf32, #cuda0>, %sin: f32):
    gp.fallback "mylib::scale"(%xin, %sin) : (memref<8xf32, #cuda0>, f32) -> ()
    gp.yield
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// A constant scalar (a scale and a flag of gp::attention) is the same on
// every call: it is cloned into the partition for the extern, which stays
// capturable, and takes no slot. The non-constant scalar still does.
// CHECK-LABEL: func.func @constant_extern_arguments
// CHECK: %[[SLOT:.+]] = gp.scalar.slot %{{.+}} : f32 -> memref<f32, #cuda0>
// CHECK-NOT: gp.scalar.slot
// CHECK: gp.partition 0 capturable ins(%{{.+}}, %{{.+}}, %{{.+}}, %[[SLOT]] : memref<8xf32, #cuda0>, f64, i64, memref<f32, #cuda0>)
// CHECK: %[[SCALE:.+]] = arith.constant 1.250000e-01 : f64
// CHECK: %[[FLAG:.+]] = arith.constant 1 : i64
// CHECK: gp.fallback "mylib::scale"(%{{.+}}, %[[SCALE]], %[[FLAG]]) : (memref<8xf32, #cuda0>, f64, i64) -> ()
func.func @constant_extern_arguments(%x: memref<8xf32, #cuda0>, %s: f32) {
  %scale = arith.constant 0.125 : f64
  %flag = arith.constant 1 : i64
  gp.partition 0 capturable ins(%x, %scale, %flag, %s : memref<8xf32, #cuda0>, f64, i64, f32) {
  ^bb0(%xin: memref<8xf32, #cuda0>, %scalein: f64, %flagin: i64, %sin: f32):
    gp.fallback "mylib::scale"(%xin, %scalein, %flagin) : (memref<8xf32, #cuda0>, f64, i64) -> ()
    gp.kernel "use" ins(%sin : f32) outs(%xin : memref<8xf32, #cuda0>) {
    ^bb0(%v: f32, %o: memref<8xf32, #cuda0>):
    }
    gp.yield
  }
  return
}
