// RUN: gp-opt %s -split-input-file --convert-gp-to-gpu | FileCheck %s

#cuda0 = #gp.device<cuda:0>
#map = affine_map<(d0) -> (d0)>

// A 1-D elementwise kernel over 4096 elements: 16 blocks of 256 threads,
// buffers passed as plain device pointers, constants inside the kernel,
// kernel outlined into @gp_kernels.
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[X:.+]]: memref<4096xf32, #cuda0>, %[[Y:.+]]: memref<4096xf32, #cuda0>)
// CHECK-NOT: gp.kernel
// CHECK-DAG: %[[XC:.+]] = memref.memory_space_cast %[[X]] : memref<4096xf32, #cuda0> to memref<4096xf32>
// CHECK-DAG: %[[YC:.+]] = memref.memory_space_cast %[[Y]] : memref<4096xf32, #cuda0> to memref<4096xf32>
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK: gpu.launch_func @gp_kernels::@add_one blocks in (%[[C16]], %{{.+}}, %{{.+}}) threads in (%[[C256]], %{{.+}}, %{{.+}}) args(%[[XC]] : memref<4096xf32>, %[[YC]] : memref<4096xf32>)
// CHECK: gpu.module @gp_kernels
// CHECK: gpu.func @add_one(%{{.+}}: memref<4096xf32>, %{{.+}}: memref<4096xf32>) kernel
// CHECK: gpu.thread_id x
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: memref.store
func.func @elementwise(%x: memref<4096xf32, #cuda0>, %y: memref<4096xf32, #cuda0>) {
  gp.kernel "add_one" ins(%x : memref<4096xf32, #cuda0>) outs(%y : memref<4096xf32, #cuda0>) {
  ^bb0(%in: memref<4096xf32, #cuda0>, %out: memref<4096xf32, #cuda0>):
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
        ins(%in : memref<4096xf32, #cuda0>) outs(%out : memref<4096xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %one = arith.constant 1.0 : f32
      %s = arith.addf %a, %one : f32
      linalg.yield %s : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#map = affine_map<(d0, d1) -> (d0, d1)>

// A 2-D loop is collapsed to one dimension so that whole blocks are used:
// 100x30 = 3000 elements in 12 blocks of 256 threads (with a bounds check).
// CHECK-LABEL: func.func @two_dimensional
// CHECK-DAG: %[[C12:.+]] = arith.constant 12 : index
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK: gpu.launch_func @gp_kernels::@add2d blocks in (%[[C12]], %{{.+}}, %{{.+}}) threads in (%[[C256]], %{{.+}}, %{{.+}})
// CHECK: gpu.func @add2d
// CHECK: scf.if
func.func @two_dimensional(%x: memref<100x30xf32, #cuda0>, %y: memref<100x30xf32, #cuda0>) {
  gp.kernel "add2d" ins(%x : memref<100x30xf32, #cuda0>) outs(%y : memref<100x30xf32, #cuda0>) {
  ^bb0(%in: memref<100x30xf32, #cuda0>, %out: memref<100x30xf32, #cuda0>):
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<100x30xf32, #cuda0>) outs(%out : memref<100x30xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %one = arith.constant 1.0 : f32
      %s = arith.addf %a, %one : f32
      linalg.yield %s : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#map = affine_map<(d0) -> (d0)>

// Symbolic sizes: the grid is computed on the host from the size.
// CHECK-LABEL: func.func @symbolic
// CHECK: %[[N:.+]] = memref.dim
// CHECK: %[[BLOCKS:.+]] = affine.apply #{{.+}}()[%[[N]]]
// CHECK: gpu.launch_func @gp_kernels::@scale blocks in (%[[BLOCKS]], %{{.+}}, %{{.+}}) threads in (%{{.+}}, %{{.+}}, %{{.+}})
func.func @symbolic(%x: memref<?xf32, #cuda0>) {
  gp.kernel "scale" outs(%x : memref<?xf32, #cuda0>) {
  ^bb0(%out: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]}
        outs(%out : memref<?xf32, #cuda0>) {
    ^bb0(%b: f32):
      %two = arith.constant 2.0 : f32
      %s = arith.mulf %b, %two : f32
      linalg.yield %s : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>

// Work with no parallel loop (a store at a symint index, `a[n] = -1`) runs
// as one GPU thread, not on the host; the constant it stores goes into the
// kernel, not into its parameters. Kernels on the cpu stay as they are.
// CHECK-LABEL: func.func @single_thread
// CHECK-SAME: (%[[N:.+]]: index
// CHECK: %[[C1:.+]] = arith.constant 1 : index
// CHECK: gpu.launch_func @gp_kernels::@store_minus_one blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C1]], %[[C1]], %[[C1]]) args(%{{.+}} : memref<7xf32>, %[[N]] : index)
// CHECK: gp.kernel "on_cpu"
// CHECK: gpu.func @store_minus_one(%{{.+}}: memref<7xf32>, %{{.+}}: index)
// CHECK: arith.constant -1.0
// CHECK: memref.store
func.func @single_thread(%n: index, %a: memref<7xf32, #cuda0>, %h: memref<4xf32, #cpu>) {
  gp.kernel "store_minus_one" ins(%n : index) outs(%a : memref<7xf32, #cuda0>) {
  ^bb0(%idx: index, %out: memref<7xf32, #cuda0>):
    %m = arith.constant -1.0 : f32
    memref.store %m, %out[%idx] : memref<7xf32, #cuda0>
  }
  gp.kernel "on_cpu" outs(%h : memref<4xf32, #cpu>) {
  ^bb0(%out: memref<4xf32, #cpu>):
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Kernels with the same name get distinct symbols; the block size is an
// option.
// CHECK-LABEL: func.func @names
// CHECK: gpu.launch_func @gp_kernels::@[[FIRST:[a-z_0-9]+]] blocks
// CHECK: gpu.launch_func @gp_kernels::@[[SECOND:[a-z_0-9]+]] blocks
// CHECK-DAG: gpu.func @[[FIRST]](
// CHECK-DAG: gpu.func @[[SECOND]](
func.func @names(%x: memref<64xf32, #cuda0>) {
  gp.kernel "zero" outs(%x : memref<64xf32, #cuda0>) {
  ^bb0(%out: memref<64xf32, #cuda0>):
    %z = arith.constant 0.0 : f32
    linalg.fill ins(%z : f32) outs(%out : memref<64xf32, #cuda0>)
  }
  gp.kernel "zero" outs(%x : memref<64xf32, #cuda0>) {
  ^bb0(%out: memref<64xf32, #cuda0>):
    %z = arith.constant 0.0 : f32
    linalg.fill ins(%z : f32) outs(%out : memref<64xf32, #cuda0>)
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Device work with no parallel loop runs on one GPU thread; ops that pass
// values to each other (two loads, their sum, its store) share one launch,
// so the values never have to reach the host.
// CHECK-LABEL: func.func @leftover_chain
// CHECK: gpu.launch_func @gp_kernels::@first_two
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func @first_two
// CHECK: memref.load
// CHECK: memref.load
// CHECK: arith.addf
// CHECK: memref.store
func.func @leftover_chain(%x: memref<8xf32, #cuda0>, %m: memref<f32, #cuda0>) {
  gp.kernel "first_two" ins(%x : memref<8xf32, #cuda0>) outs(%m : memref<f32, #cuda0>) {
  ^bb0(%in: memref<8xf32, #cuda0>, %out: memref<f32, #cuda0>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.load %in[%c0] : memref<8xf32, #cuda0>
    %b = memref.load %in[%c1] : memref<8xf32, #cuda0>
    %sum = arith.addf %a, %b : f32
    memref.store %sum, %out[] : memref<f32, #cuda0>
  }
  return
}
