// RUN: gp-opt %s -split-input-file --gp-fuse-kernels='rows=0 duplicate=0 siblings=0' | FileCheck %s
// RUN: gp-opt %s -split-input-file --gp-fuse-kernels='report rows=0 duplicate=0 siblings=0' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPORT

// gp-fuse-kernels: a producer kernel whose output only feeds one consumer
// is computed inline in the consumer's linalg payload, and the buffer
// between them goes away.

#cuda0 = #gp.device<cuda:0>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// relu(x @ w + b) * s inside a partition: the matmul kernel stays; the
// bias add, the relu (a linalg.map) and the scaling by a scalar input
// become one kernel over the add's and the scaling's inputs, and their two
// temporaries (one freed) are gone.
// REPORT: gp-fuse-kernels: @chain_of_three: 2 fusions, 2 buffers removed
// REPORT-NEXT: "add" into "relu": "add_relu"
// REPORT-NEXT: "add_relu" into "mul": "add_relu_mul"
// REPORT-NEXT: gp-fuse-kernels: @two_readers: 0 fusions, 0 buffers removed
// CHECK-LABEL: func.func @chain_of_three
// CHECK: gp.partition 0 capturable
// CHECK-NEXT: ^bb0(%[[X:.+]]: memref<4x8xf32, #cuda0>, %[[W:.+]]: memref<8x8xf32, #cuda0>, %[[B:.+]]: memref<8xf32, #cuda0>, %[[S:.+]]: f32):
// CHECK: %[[MM:.+]] = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
// CHECK: gp.kernel "matmul" ins(%[[X]], %[[W]] : {{.*}}) outs(%[[MM]] : memref<4x8xf32, #cuda0>)
// CHECK: %[[OUT:.+]] = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
// CHECK-NEXT: gp.kernel "add_relu_mul" ins(%[[S]], %[[MM]], %[[B]] : f32, memref<4x8xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%[[OUT]] : memref<4x8xf32, #cuda0>)
// CHECK-NEXT: ^bb0(%[[SA:.+]]: f32, %[[MMA:.+]]: memref<4x8xf32, #cuda0>, %[[BA:.+]]: memref<8xf32, #cuda0>, %[[OA:.+]]: memref<4x8xf32, #cuda0>):
// CHECK: linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], #[[ROW:map[0-9]*]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[MMA]], %[[BA]] : {{.*}}) outs(%[[OA]] : memref<4x8xf32, #cuda0>)
// CHECK-NEXT: ^bb0(%[[VM:.+]]: f32, %[[VB:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[VM]], %[[VB]] : f32
// CHECK: %[[RELU:.+]] = arith.maximumf %[[SUM]], %{{.+}} : f32
// CHECK-NEXT: %[[PROD:.+]] = arith.mulf %[[RELU]], %[[SA]] : f32
// CHECK-NEXT: linalg.yield %[[PROD]] : f32
// CHECK-NOT: gp.kernel
// CHECK-NOT: gp.buffer.dealloc
// CHECK: gp.yield %[[OUT]]
func.func @chain_of_three(%x: memref<4x8xf32, #cuda0>, %w: memref<8x8xf32, #cuda0>,
                          %b: memref<8xf32, #cuda0>, %s: f32) -> memref<4x8xf32, #cuda0> {
  %r = gp.partition 0 capturable ins(%x, %w, %b, %s : memref<4x8xf32, #cuda0>, memref<8x8xf32, #cuda0>, memref<8xf32, #cuda0>, f32) {
  ^bb0(%xi: memref<4x8xf32, #cuda0>, %wi: memref<8x8xf32, #cuda0>, %bi: memref<8xf32, #cuda0>, %si: f32):
    %mm = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
    gp.kernel "matmul" ins(%xi, %wi : memref<4x8xf32, #cuda0>, memref<8x8xf32, #cuda0>) outs(%mm : memref<4x8xf32, #cuda0>) {
    ^bb0(%a: memref<4x8xf32, #cuda0>, %bb: memref<8x8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
      linalg.matmul ins(%a, %bb : memref<4x8xf32, #cuda0>, memref<8x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>)
    }
    %t0 = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
    gp.kernel "add" ins(%mm, %bi : memref<4x8xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%t0 : memref<4x8xf32, #cuda0>) {
    ^bb0(%a: memref<4x8xf32, #cuda0>, %v: memref<8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
      linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
          ins(%a, %v : memref<4x8xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>) {
      ^bb0(%e: f32, %f: f32, %unused: f32):
        %sum = arith.addf %e, %f : f32
        linalg.yield %sum : f32
      }
    }
    %t1 = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
    gp.kernel "relu" ins(%t0 : memref<4x8xf32, #cuda0>) outs(%t1 : memref<4x8xf32, #cuda0>) {
    ^bb0(%a: memref<4x8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
      %zero = arith.constant 0.0 : f32
      linalg.map ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>)
        (%e: f32, %unused: f32) {
          %m = arith.maximumf %e, %zero : f32
          linalg.yield %m : f32
        }
    }
    gp.buffer.dealloc %t0 : memref<4x8xf32, #cuda0>
    %out = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
    gp.kernel "mul" ins(%t1, %si : memref<4x8xf32, #cuda0>, f32) outs(%out : memref<4x8xf32, #cuda0>) {
    ^bb0(%a: memref<4x8xf32, #cuda0>, %scale: f32, %o: memref<4x8xf32, #cuda0>):
      linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
          ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>) {
      ^bb0(%e: f32, %unused: f32):
        %p = arith.mulf %e, %scale : f32
        linalg.yield %p : f32
      }
    }
    gp.yield %out : memref<4x8xf32, #cuda0>
  } -> (memref<4x8xf32, #cuda0>)
  return %r : memref<4x8xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

// A producer whose output two kernels read stays under the one-reader rule
// (fuse-kernels-duplicate.mlir has the rule that computes a cheap one in
// both).
// CHECK-LABEL: func.func @two_readers
// CHECK: %[[T:.+]] = gp.buffer.alloc()
// CHECK: gp.kernel "exp" ins(%{{.+}} : memref<8xf32, #cuda0>) outs(%[[T]] : memref<8xf32, #cuda0>)
// CHECK: gp.kernel "neg" ins(%[[T]] : memref<8xf32, #cuda0>)
// CHECK: gp.kernel "abs" ins(%[[T]] : memref<8xf32, #cuda0>)
func.func @two_readers(%x: memref<8xf32, #cuda0>) -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "exp" ins(%x : memref<8xf32, #cuda0>) outs(%t : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.exp ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  %u = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "neg" ins(%t : memref<8xf32, #cuda0>) outs(%u : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.negf ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  %v = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "abs" ins(%t : memref<8xf32, #cuda0>) outs(%v : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.abs ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  return %u, %v : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// The buffer between the kernels is a program input (written in place),
// or a program output, or yielded by its partition: it outlives the
// consumer, so the producer must write it.
// CHECK-LABEL: func.func @not_a_temporary
// CHECK: gp.kernel "fill_arg" ins({{.*}}) outs(%[[ARG:.+]] : memref<8xf32, #cuda0>)
// CHECK: gp.kernel "read_arg" ins(%[[ARG]]
// CHECK: gp.kernel "fill_ret" ins({{.*}}) outs(%[[RET:.+]] : memref<8xf32, #cuda0>)
// CHECK: gp.kernel "read_ret" ins(%[[RET]]
// CHECK: return %[[RET]]
func.func @not_a_temporary(%x: memref<8xf32, #cuda0>, %arg: memref<8xf32, #cuda0>, %c: f32)
    -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) {
  gp.kernel "fill_arg" ins(%c : f32) outs(%arg : memref<8xf32, #cuda0>) {
  ^bb0(%v: f32, %o: memref<8xf32, #cuda0>):
    linalg.fill ins(%v : f32) outs(%o : memref<8xf32, #cuda0>)
  }
  %a = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "read_arg" ins(%arg, %x : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%a : memref<8xf32, #cuda0>) {
  ^bb0(%p: memref<8xf32, #cuda0>, %q: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.add ins(%p, %q : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  %ret = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "fill_ret" ins(%c : f32) outs(%ret : memref<8xf32, #cuda0>) {
  ^bb0(%v: f32, %o: memref<8xf32, #cuda0>):
    linalg.fill ins(%v : f32) outs(%o : memref<8xf32, #cuda0>)
  }
  %b = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "read_ret" ins(%ret, %x : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%b : memref<8xf32, #cuda0>) {
  ^bb0(%p: memref<8xf32, #cuda0>, %q: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.add ins(%p, %q : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  return %ret, %a, %b : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>, memref<8xf32, #cuda0>
}

// CHECK-LABEL: func.func @partition_output
// CHECK: gp.partition 0
// CHECK: %[[T:.+]] = gp.buffer.alloc()
// CHECK: gp.kernel "neg" ins(%{{.+}} : memref<8xf32, #cuda0>) outs(%[[T]]
// CHECK: gp.kernel "abs" ins(%[[T]]
// CHECK: gp.yield %[[T]], %{{.+}} :
func.func @partition_output(%x: memref<8xf32, #cuda0>) -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) {
  %r:2 = gp.partition 0 capturable ins(%x : memref<8xf32, #cuda0>) {
  ^bb0(%xi: memref<8xf32, #cuda0>):
    %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
    gp.kernel "neg" ins(%xi : memref<8xf32, #cuda0>) outs(%t : memref<8xf32, #cuda0>) {
    ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
      linalg.negf ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
    }
    %u = gp.buffer.alloc() : memref<8xf32, #cuda0>
    gp.kernel "abs" ins(%t : memref<8xf32, #cuda0>) outs(%u : memref<8xf32, #cuda0>) {
    ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
      linalg.abs ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
    }
    gp.yield %t, %u : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>
  } -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>)
  return %r#0, %r#1 : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// A view of the buffer is another way to read it: not fused.
// CHECK-LABEL: func.func @viewed
// CHECK: gp.kernel "neg"
// CHECK: gp.kernel "abs"
func.func @viewed(%x: memref<8xf32, #cuda0>) -> (memref<8xf32, #cuda0>, memref<2x4xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "neg" ins(%x : memref<8xf32, #cuda0>) outs(%t : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.negf ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  %v = gp.buffer.reshape %t() : memref<8xf32, #cuda0> to memref<2x4xf32, #cuda0>
  %u = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "abs" ins(%t : memref<8xf32, #cuda0>) outs(%u : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.abs ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  return %u, %v : memref<8xf32, #cuda0>, memref<2x4xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// Between the producer and its consumer a kernel writes the producer's
// input in place: computing the producer at the consumer would read the
// new value.
// CHECK-LABEL: func.func @input_written_between
// CHECK: gp.kernel "neg"
// CHECK: gp.kernel "bump"
// CHECK: gp.kernel "abs"
func.func @input_written_between(%x: memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0> {
  %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "neg" ins(%x : memref<8xf32, #cuda0>) outs(%t : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.negf ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  gp.kernel "bump" outs(%x : memref<8xf32, #cuda0>) {
  ^bb0(%o: memref<8xf32, #cuda0>):
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%o : memref<8xf32, #cuda0>)
  }
  %u = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "abs" ins(%t : memref<8xf32, #cuda0>) outs(%u : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.abs ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  return %u : memref<8xf32, #cuda0>
}

// The same kernel reading the input in between does not block.
// CHECK-LABEL: func.func @input_read_between
// CHECK: gp.kernel "other"
// CHECK: gp.kernel "neg_abs"
// CHECK-NOT: gp.kernel
func.func @input_read_between(%x: memref<8xf32, #cuda0>) -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "neg" ins(%x : memref<8xf32, #cuda0>) outs(%t : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.negf ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  %w = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "other" ins(%x : memref<8xf32, #cuda0>) outs(%w : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.exp ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  %u = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "abs" ins(%t : memref<8xf32, #cuda0>) outs(%u : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.abs ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  return %u, %w : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>
}

// The consumer writes the producer's input: reading it while writing it
// could see elements already overwritten.
// CHECK-LABEL: func.func @consumer_writes_producer_input
// CHECK: gp.kernel "neg"
// CHECK: gp.kernel "abs"
func.func @consumer_writes_producer_input(%x: memref<8xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "neg" ins(%x : memref<8xf32, #cuda0>) outs(%t : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.negf ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  gp.kernel "abs" ins(%t : memref<8xf32, #cuda0>) outs(%x : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.abs ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  gp.buffer.dealloc %t : memref<8xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// Partitions are never fused across: the producer's output leaves its
// partition.
// CHECK-LABEL: func.func @across_partitions
// CHECK: gp.partition 0
// CHECK: gp.kernel "neg"
// CHECK: gp.partition 1
// CHECK: gp.kernel "abs"
func.func @across_partitions(%x: memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0> {
  %t = gp.partition 0 capturable ins(%x : memref<8xf32, #cuda0>) {
  ^bb0(%xi: memref<8xf32, #cuda0>):
    %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
    gp.kernel "neg" ins(%xi : memref<8xf32, #cuda0>) outs(%t : memref<8xf32, #cuda0>) {
    ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
      linalg.negf ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
    }
    gp.yield %t : memref<8xf32, #cuda0>
  } -> (memref<8xf32, #cuda0>)
  %u = gp.partition 1 capturable ins(%t : memref<8xf32, #cuda0>) frees [0] {
  ^bb0(%ti: memref<8xf32, #cuda0>):
    %u = gp.buffer.alloc() : memref<8xf32, #cuda0>
    gp.kernel "abs" ins(%ti : memref<8xf32, #cuda0>) outs(%u : memref<8xf32, #cuda0>) {
    ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
      linalg.abs ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
    }
    gp.yield %u : memref<8xf32, #cuda0>
  } -> (memref<8xf32, #cuda0>)
  return %u : memref<8xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

// exp(x - max) into a row sum (softmax's denominator): the producer is
// computed inside the reduction, which keeps its iterators and init.
// CHECK-LABEL: func.func @into_reduction
// CHECK: gp.kernel "sub_exp_sum" ins(%[[X:.+]], %[[M:.+]] : memref<4x8xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%[[S:.+]] : memref<4xf32, #cuda0>)
// CHECK: linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], #[[ROWS:map[0-9]*]], #[[ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK-NEXT: ^bb0(%[[VX:.+]]: f32, %[[VM:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[VX]], %[[VM]] : f32
// CHECK-NEXT: %[[E:.+]] = math.exp %[[D]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.addf %[[E]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @into_reduction(%x: memref<4x8xf32, #cuda0>, %m: memref<4xf32, #cuda0>, %s: memref<4xf32, #cuda0>) {
  %d = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
  gp.kernel "sub" ins(%x, %m : memref<4x8xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%d : memref<4x8xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %b: memref<4xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #rows, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : memref<4x8xf32, #cuda0>, memref<4xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>) {
    ^bb0(%e: f32, %f: f32, %unused: f32):
      %r = arith.subf %e, %f : f32
      linalg.yield %r : f32
    }
  }
  %e = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
  gp.kernel "exp" ins(%d : memref<4x8xf32, #cuda0>) outs(%e : memref<4x8xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.exp ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>)
  }
  gp.kernel "sum" ins(%e : memref<4x8xf32, #cuda0>) outs(%s : memref<4xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
    linalg.reduce ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<4xf32, #cuda0>) dimensions = [1]
      (%v: f32, %acc: f32) {
        %r = arith.addf %v, %acc : f32
        linalg.yield %r : f32
      }
  }
  return
}

// A reduction this pass made may look like a contraction: fusing the
// square into the sum gives sum(b * b), a dot product's body. It is still
// a reduction of elementwise work, so b's producer (itself fused) joins it
// in the next round.
// CHECK-LABEL: func.func @fused_reduction_is_no_contraction
// CHECK: gp.kernel "mul_add_square_sum" ins(%{{.+}}, %{{.+}} : memref<4x8xf32, #cuda0>, memref<4x8xf32, #cuda0>) outs(%{{.+}} : memref<4xf32, #cuda0>)
// CHECK-NOT: gp.kernel
func.func @fused_reduction_is_no_contraction(%x: memref<4x8xf32, #cuda0>, %y: memref<4x8xf32, #cuda0>, %s: memref<4xf32, #cuda0>) {
  %a = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
  gp.kernel "mul" ins(%x, %y : memref<4x8xf32, #cuda0>, memref<4x8xf32, #cuda0>) outs(%a : memref<4x8xf32, #cuda0>) {
  ^bb0(%p: memref<4x8xf32, #cuda0>, %q: memref<4x8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.mul ins(%p, %q : memref<4x8xf32, #cuda0>, memref<4x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>)
  }
  %b = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
  gp.kernel "add" ins(%a, %x : memref<4x8xf32, #cuda0>, memref<4x8xf32, #cuda0>) outs(%b : memref<4x8xf32, #cuda0>) {
  ^bb0(%p: memref<4x8xf32, #cuda0>, %q: memref<4x8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.add ins(%p, %q : memref<4x8xf32, #cuda0>, memref<4x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>)
  }
  %c = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
  gp.kernel "square" ins(%b : memref<4x8xf32, #cuda0>) outs(%c : memref<4x8xf32, #cuda0>) {
  ^bb0(%p: memref<4x8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.mul ins(%p, %p : memref<4x8xf32, #cuda0>, memref<4x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>)
  }
  gp.kernel "sum" ins(%c : memref<4x8xf32, #cuda0>) outs(%s : memref<4xf32, #cuda0>) {
  ^bb0(%p: memref<4x8xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
    linalg.reduce ins(%p : memref<4x8xf32, #cuda0>) outs(%o : memref<4xf32, #cuda0>) dimensions = [1]
      (%v: f32, %acc: f32) {
        %r = arith.addf %v, %acc : f32
        linalg.yield %r : f32
      }
  }
  return
}

// A broadcast into a reduction over the broadcast dimension: t was the
// only operand spanning the reduced loop, so fusing would leave the loop
// without a range. Not fused.
// CHECK-LABEL: func.func @broadcast_into_reduction
// CHECK: gp.kernel "bcast"
// CHECK: gp.kernel "sum"
func.func @broadcast_into_reduction(%x: memref<4xf32, #cuda0>, %s: memref<4xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
  gp.kernel "bcast" ins(%x : memref<4xf32, #cuda0>) outs(%t : memref<4x8xf32, #cuda0>) {
  ^bb0(%p: memref<4xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.broadcast ins(%p : memref<4xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>) dimensions = [1]
  }
  gp.kernel "sum" ins(%t : memref<4x8xf32, #cuda0>) outs(%s : memref<4xf32, #cuda0>) {
  ^bb0(%p: memref<4x8xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
    linalg.reduce ins(%p : memref<4x8xf32, #cuda0>) outs(%o : memref<4xf32, #cuda0>) dimensions = [1]
      (%v: f32, %acc: f32) {
        %r = arith.addf %v, %acc : f32
        linalg.yield %r : f32
      }
  }
  return
}

// A reduction as producer is not elementwise, and the fill of a
// reduction's accumulator is not a temporary (the reduction writes it):
// neither is fused.
// CHECK-LABEL: func.func @reduction_producer
// CHECK: gp.kernel "zero"
// CHECK: gp.kernel "sum"
// CHECK: gp.kernel "neg"
func.func @reduction_producer(%x: memref<4x8xf32, #cuda0>, %y: memref<4xf32, #cuda0>) {
  %s = gp.buffer.alloc() : memref<4xf32, #cuda0>
  gp.kernel "zero" outs(%s : memref<4xf32, #cuda0>) {
  ^bb0(%o: memref<4xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<4xf32, #cuda0>)
  }
  gp.kernel "sum" ins(%x : memref<4x8xf32, #cuda0>) outs(%s : memref<4xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
    linalg.reduce ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<4xf32, #cuda0>) dimensions = [1]
      (%v: f32, %acc: f32) {
        %r = arith.addf %v, %acc : f32
        linalg.yield %r : f32
      }
  }
  gp.kernel "neg" ins(%s : memref<4xf32, #cuda0>) outs(%y : memref<4xf32, #cuda0>) {
  ^bb0(%a: memref<4xf32, #cuda0>, %o: memref<4xf32, #cuda0>):
    linalg.negf ins(%a : memref<4xf32, #cuda0>) outs(%o : memref<4xf32, #cuda0>)
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// Contractions are left whole for cuBLAS: an elementwise producer is not
// fused into a matmul (named or generic), nor a matmul into its consumer.
// CHECK-LABEL: func.func @contractions
// CHECK: gp.kernel "scale_a"
// CHECK: gp.kernel "matmul"
// CHECK: gp.kernel "scale_b"
// CHECK: gp.kernel "generic_matmul"
// CHECK: gp.kernel "relu"
func.func @contractions(%x: memref<4x4xf32, #cuda0>, %y: memref<4x4xf32, #cuda0>, %z: memref<4x4xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.kernel "scale_a" ins(%x : memref<4x4xf32, #cuda0>) outs(%t : memref<4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.negf ins(%a : memref<4x4xf32, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>)
  }
  %mm = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.kernel "matmul" ins(%t, %y : memref<4x4xf32, #cuda0>, memref<4x4xf32, #cuda0>) outs(%mm : memref<4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, #cuda0>, %b: memref<4x4xf32, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.matmul ins(%a, %b : memref<4x4xf32, #cuda0>, memref<4x4xf32, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>)
  }
  %t2 = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.kernel "scale_b" ins(%mm : memref<4x4xf32, #cuda0>) outs(%t2 : memref<4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.negf ins(%a : memref<4x4xf32, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>)
  }
  %mm2 = gp.buffer.alloc() : memref<4x4xf32, #cuda0>
  gp.kernel "generic_matmul" ins(%t2, %y : memref<4x4xf32, #cuda0>, memref<4x4xf32, #cuda0>) outs(%mm2 : memref<4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, #cuda0>, %b: memref<4x4xf32, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%a, %b : memref<4x4xf32, #cuda0>, memref<4x4xf32, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>) {
    ^bb0(%e: f32, %f: f32, %acc: f32):
      %p = arith.mulf %e, %f : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
  }
  gp.kernel "relu" ins(%mm2 : memref<4x4xf32, #cuda0>) outs(%z : memref<4x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x4xf32, #cuda0>, %o: memref<4x4xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x4xf32, #cuda0>) outs(%o : memref<4x4xf32, #cuda0>) {
    ^bb0(%e: f32, %unused: f32):
      %m = arith.maximumf %e, %zero : f32
      linalg.yield %m : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Maps compose: the producer writes its output transposed (x is 8x4, t is
// 4x8) and reads a bias broadcast along rows; the consumer reads t
// transposed again, over an 8x4 space, so x is read straight and the bias
// along the consumer's first loop.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[COL:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[SHIFT:map[0-9]*]] = affine_map<(d0) -> (d0 + 1)>
// CHECK-LABEL: func.func @composed_maps
// CHECK: gp.kernel "bias_t_back" ins(%{{.+}}, %{{.+}} : memref<8x4xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%{{.+}} : memref<8x4xf32, #cuda0>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
func.func @composed_maps(%x: memref<8x4xf32, #cuda0>, %b: memref<8xf32, #cuda0>, %y: memref<8x4xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
  gp.kernel "bias_t" ins(%x, %b : memref<8x4xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%t : memref<4x8xf32, #cuda0>) {
  ^bb0(%a: memref<8x4xf32, #cuda0>, %v: memref<8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #row, #tr], iterator_types = ["parallel", "parallel"]}
        ins(%a, %v : memref<8x4xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>) {
    ^bb0(%e: f32, %f: f32, %unused: f32):
      %r = arith.addf %e, %f : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "back" ins(%t : memref<4x8xf32, #cuda0>) outs(%y : memref<8x4xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %o: memref<8x4xf32, #cuda0>):
    linalg.transpose ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<8x4xf32, #cuda0>) permutation = [1, 0]
  }
  return
}

// A broadcast consumer: t (8) is read along the consumer's second loop,
// so the producer's input is too; the producer's loop index becomes the
// consumer's.
// CHECK-LABEL: func.func @broadcast_and_index
// CHECK: gp.kernel "iota_scale_bcast"
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[I:.+]] = linalg.index 1 : index
// CHECK-NEXT: %[[II:.+]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT: %[[F:.+]] = arith.sitofp %[[II]] : i32 to f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[V]], %[[F]] : f32
// CHECK-NEXT: linalg.yield %[[P]] : f32
func.func @broadcast_and_index(%v: memref<8xf32, #cuda0>, %y: memref<4x8xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "iota_scale" ins(%v : memref<8xf32, #cuda0>) outs(%t : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%e: f32, %unused: f32):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %r = arith.mulf %e, %f : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "bcast" ins(%t : memref<8xf32, #cuda0>) outs(%y : memref<4x8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.broadcast ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>) dimensions = [0]
  }
  return
}

// A consumer reading t at a shifted position: the producer's index is
// computed from the consumer's with affine.apply.
// CHECK-LABEL: func.func @shifted_index
// CHECK: linalg.generic {indexing_maps = [#[[SHIFT]], #{{.+}}], iterator_types = ["parallel"]}
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK-NEXT: affine.apply #[[SHIFT]](%[[I]])
func.func @shifted_index(%v: memref<8xf32, #cuda0>, %y: memref<7xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "iota" ins(%v : memref<8xf32, #cuda0>) outs(%t : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%e: f32, %unused: f32):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %r = arith.addf %e, %f : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "shift" ins(%t : memref<8xf32, #cuda0>) outs(%y : memref<7xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<7xf32, #cuda0>):
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 + 1)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<7xf32, #cuda0>) {
    ^bb0(%e: f32, %unused: f32):
      linalg.yield %e : f32
    }
  }
  return
}

// A rank-0 producer (no loops) read by every iteration of its consumer.
// CHECK-LABEL: func.func @rank0_producer
// CHECK: gp.kernel "neg_add" ins(%{{.+}}, %{{.+}} : memref<8xf32, #cuda0>, memref<f32, #cuda0>)
// CHECK: ^bb0(%[[VX:.+]]: f32, %[[VS:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[N:.+]] = arith.negf %[[VS]] : f32
// CHECK-NEXT: arith.addf %[[VX]], %[[N]] : f32
func.func @rank0_producer(%s: memref<f32, #cuda0>, %x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "neg" ins(%s : memref<f32, #cuda0>) outs(%t : memref<f32, #cuda0>) {
  ^bb0(%a: memref<f32, #cuda0>, %o: memref<f32, #cuda0>):
    linalg.negf ins(%a : memref<f32, #cuda0>) outs(%o : memref<f32, #cuda0>)
  }
  gp.kernel "add" ins(%x, %t : memref<8xf32, #cuda0>, memref<f32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %b: memref<f32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%a, %b : memref<8xf32, #cuda0>, memref<f32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%e: f32, %f: f32, %unused: f32):
      %r = arith.addf %e, %f : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>

// A fill is a full write: its value (a constant of its body, or a scalar
// input) becomes a scalar operand of the fused generic.
// CHECK-LABEL: func.func @fill_producer
// CHECK: gp.kernel "fill_add" ins(%[[X:.+]] : memref<8xf32, #cuda0>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[C:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], #[[SCALAR:map[0-9]*]], #[[ID]]], iterator_types = ["parallel"]} ins(%{{.+}}, %[[C]] : memref<8xf32, #cuda0>, f32)
// CHECK-NEXT: ^bb0(%[[VX:.+]]: f32, %[[VC:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: arith.addf %[[VX]], %[[VC]] : f32
// CHECK: gp.kernel "fill_mul" ins(%{{.+}}, %[[S:.+]] : memref<8xf32, #cuda0>, f32)
func.func @fill_producer(%x: memref<8xf32, #cuda0>, %s: f32, %y: memref<8xf32, #cuda0>, %z: memref<8xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "fill" outs(%t : memref<8xf32, #cuda0>) {
  ^bb0(%o: memref<8xf32, #cuda0>):
    %two = arith.constant 2.0 : f32
    linalg.fill ins(%two : f32) outs(%o : memref<8xf32, #cuda0>)
  }
  gp.kernel "add" ins(%x, %t : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %b: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.add ins(%a, %b : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  %u = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "fill" ins(%s : f32) outs(%u : memref<8xf32, #cuda0>) {
  ^bb0(%v: f32, %o: memref<8xf32, #cuda0>):
    linalg.fill ins(%v : f32) outs(%o : memref<8xf32, #cuda0>)
  }
  gp.kernel "mul" ins(%u, %x : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%z : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %b: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.mul ins(%a, %b : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

// Scalar inputs of both kernels carry over, once each; an input both
// kernels read is passed once; the same temporary read twice by the
// consumer (x * x) is computed at each read.
// CHECK-LABEL: func.func @scalars_and_shared_inputs
// CHECK: gp.kernel "affine_square" ins(%[[N:.+]], %[[X:.+]], %[[S:.+]] : index, memref<8xf32, #cuda0>, f32) outs(%{{.+}} : memref<8xf32, #cuda0>)
// CHECK-NEXT: ^bb0(%[[NA:.+]]: index, %[[XA:.+]]: memref<8xf32, #cuda0>, %[[SA:.+]]: f32, %{{.+}}: memref<8xf32, #cuda0>):
// CHECK: linalg.generic {{.*}} ins(%[[XA]], %[[XA]], %[[XA]] : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>, memref<8xf32, #cuda0>)
// CHECK-NEXT: ^bb0(%[[V0:.+]]: f32, %[[V1:.+]]: f32, %[[V2:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[A:.+]] = arith.mulf %[[V0]], %[[SA]] : f32
// CHECK-NEXT: %[[B:.+]] = arith.mulf %[[V1]], %[[SA]] : f32
// CHECK-NEXT: %[[SQ:.+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: arith.index_cast %[[NA]]
func.func @scalars_and_shared_inputs(%x: memref<8xf32, #cuda0>, %s: f32, %n: index, %y: memref<8xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "affine" ins(%x, %s : memref<8xf32, #cuda0>, f32) outs(%t : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %scale: f32, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%e: f32, %unused: f32):
      %r = arith.mulf %e, %scale : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "square" ins(%t, %n, %x : memref<8xf32, #cuda0>, index, memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %count: index, %b: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
        ins(%a, %a, %b : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%e: f32, %f: f32, %g: f32, %unused: f32):
      %sq = arith.mulf %e, %f : f32
      %ni = arith.index_cast %count : index to i32
      %nf = arith.sitofp %ni : i32 to f32
      %r = arith.addf %sq, %nf : f32
      %r2 = arith.addf %r, %g : f32
      linalg.yield %r2 : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

// Producers that are not full, elementwise writes stay: one reads the
// old value of its output (an accumulation), one writes only part of it.
// CHECK-LABEL: func.func @partial_writes
// CHECK: gp.kernel "accumulate"
// CHECK: gp.kernel "neg"
// CHECK: gp.kernel "store_one"
// CHECK: gp.kernel "abs"
func.func @partial_writes(%x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cuda0>, %z: memref<8xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "accumulate" ins(%x : memref<8xf32, #cuda0>) outs(%t : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>) {
    ^bb0(%e: f32, %old: f32):
      %r = arith.addf %e, %old : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "neg" ins(%t : memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.negf ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  %u = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "store_one" ins(%x : memref<8xf32, #cuda0>) outs(%u : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    %c0 = arith.constant 0 : index
    %v = memref.load %a[%c0] : memref<8xf32, #cuda0>
    memref.store %v, %o[%c0] : memref<8xf32, #cuda0>
  }
  gp.kernel "abs" ins(%u : memref<8xf32, #cuda0>) outs(%z : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %o: memref<8xf32, #cuda0>):
    linalg.abs ins(%a : memref<8xf32, #cuda0>) outs(%o : memref<8xf32, #cuda0>)
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// `x @ w.T` (a linear layer): the transpose of w, a pure copy of a
// contiguous buffer, goes into the matmul that reads it, which then reads w
// through a permutation (a transposed operand cuBLAS takes) and is still a
// contraction: a later elementwise producer is not fused into it. A
// transpose that is not a plain copy (a negation on the way), or whose
// input's last dimension is not contiguous, stays a kernel.
// CHECK-LABEL: func.func @transposed_weights
// CHECK-NOT: gp.kernel "transpose_w"
// CHECK: gp.kernel "scale_x"
// CHECK: gp.kernel "transpose_w_matmul"
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: gp.kernel "negate_transpose"
// CHECK: gp.kernel "matmul_2"
// CHECK: gp.kernel "strided_transpose"
// CHECK: gp.kernel "matmul_3"
// REPORT-LABEL: gp-fuse-kernels: @transposed_weights: 1 fusions
// REPORT-NEXT: "transpose_w" into "matmul": "transpose_w_matmul"
func.func @transposed_weights(%x: memref<4x8xf32, #cuda0>, %w: memref<16x8xf32, #cuda0>, %y: memref<4x16xf32, #cuda0>, %y2: memref<4x16xf32, #cuda0>, %y3: memref<4x16xf32, #cuda0>, %ws: memref<16x8xf32, strided<[1, 16]>, #cuda0>) {
  %xs = gp.buffer.alloc() : memref<4x8xf32, #cuda0>
  gp.kernel "scale_x" ins(%x : memref<4x8xf32, #cuda0>) outs(%xs : memref<4x8xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %o: memref<4x8xf32, #cuda0>):
    linalg.negf ins(%a : memref<4x8xf32, #cuda0>) outs(%o : memref<4x8xf32, #cuda0>)
  }
  %wt = gp.buffer.alloc() : memref<8x16xf32, #cuda0>
  gp.kernel "transpose_w" ins(%w : memref<16x8xf32, #cuda0>) outs(%wt : memref<8x16xf32, #cuda0>) {
  ^bb0(%a: memref<16x8xf32, #cuda0>, %o: memref<8x16xf32, #cuda0>):
    linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<16x8xf32, #cuda0>) outs(%o : memref<8x16xf32, #cuda0>) {
    ^bb0(%e: f32, %unused: f32):
      linalg.yield %e : f32
    }
  }
  gp.kernel "matmul" ins(%xs, %wt : memref<4x8xf32, #cuda0>, memref<8x16xf32, #cuda0>) outs(%y : memref<4x16xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %b: memref<8x16xf32, #cuda0>, %o: memref<4x16xf32, #cuda0>):
    linalg.matmul ins(%a, %b : memref<4x8xf32, #cuda0>, memref<8x16xf32, #cuda0>) outs(%o : memref<4x16xf32, #cuda0>)
  }
  %wn = gp.buffer.alloc() : memref<8x16xf32, #cuda0>
  gp.kernel "negate_transpose" ins(%w : memref<16x8xf32, #cuda0>) outs(%wn : memref<8x16xf32, #cuda0>) {
  ^bb0(%a: memref<16x8xf32, #cuda0>, %o: memref<8x16xf32, #cuda0>):
    linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<16x8xf32, #cuda0>) outs(%o : memref<8x16xf32, #cuda0>) {
    ^bb0(%e: f32, %unused: f32):
      %n = arith.negf %e : f32
      linalg.yield %n : f32
    }
  }
  gp.kernel "matmul_2" ins(%x, %wn : memref<4x8xf32, #cuda0>, memref<8x16xf32, #cuda0>) outs(%y2 : memref<4x16xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %b: memref<8x16xf32, #cuda0>, %o: memref<4x16xf32, #cuda0>):
    linalg.matmul ins(%a, %b : memref<4x8xf32, #cuda0>, memref<8x16xf32, #cuda0>) outs(%o : memref<4x16xf32, #cuda0>)
  }
  %wst = gp.buffer.alloc() : memref<8x16xf32, #cuda0>
  gp.kernel "strided_transpose" ins(%ws : memref<16x8xf32, strided<[1, 16]>, #cuda0>) outs(%wst : memref<8x16xf32, #cuda0>) {
  ^bb0(%a: memref<16x8xf32, strided<[1, 16]>, #cuda0>, %o: memref<8x16xf32, #cuda0>):
    linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<16x8xf32, strided<[1, 16]>, #cuda0>) outs(%o : memref<8x16xf32, #cuda0>) {
    ^bb0(%e: f32, %unused: f32):
      linalg.yield %e : f32
    }
  }
  gp.kernel "matmul_3" ins(%x, %wst : memref<4x8xf32, #cuda0>, memref<8x16xf32, #cuda0>) outs(%y3 : memref<4x16xf32, #cuda0>) {
  ^bb0(%a: memref<4x8xf32, #cuda0>, %b: memref<8x16xf32, #cuda0>, %o: memref<4x16xf32, #cuda0>):
    linalg.matmul ins(%a, %b : memref<4x8xf32, #cuda0>, memref<8x16xf32, #cuda0>) outs(%o : memref<4x16xf32, #cuda0>)
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#tr4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>

// A decode step's scores, q @ k_cache^T: the [1, 4, 8, 16] key cache is
// transposed into a temporary that a [4, 16, 8] reshape feeds to the
// batch matmul. The transpose goes into the matmul, which then reads the
// cache at 0 in its unit dimension: that dimension is sliced away (a
// rank-reducing gp.buffer.slice), so the matmul reads a [4, 8, 16] view
// through a permutation and is still one a library computes.
// CHECK-LABEL: func.func @unit_dim_transpose_into_batch_matmul
// CHECK-SAME: (%[[Q:[^:]+]]: memref<4x1x16xf32, #cuda0>, %[[CACHE:[^:]+]]: memref<1x4x8x16xf32, #cuda0>
// CHECK: %[[KEYS:.+]] = gp.buffer.slice %[[CACHE]] [0, 0, 0, 0] [1, 4, 8, 16] [1, 1, 1, 1] : memref<1x4x8x16xf32, #cuda0> to memref<4x8x16xf32, strided<[128, 16, 1]>, #cuda0>
// CHECK: gp.kernel "transpose_k_scores" ins(%[[Q]], %[[KEYS]] :
// CHECK: linalg.generic {indexing_maps = [#[[QMAP:map[0-9]*]], #[[KMAP:map[0-9]*]], #[[OMAP:map[0-9]*]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-NOT: gp.kernel
// CHECK: return
// REPORT-LABEL: gp-fuse-kernels: @unit_dim_transpose_into_batch_matmul: 1 fusions
// REPORT-NEXT: "transpose_k" into "scores": "transpose_k_scores"
func.func @unit_dim_transpose_into_batch_matmul(%q: memref<4x1x16xf32, #cuda0>, %cache: memref<1x4x8x16xf32, #cuda0>, %s: memref<4x1x8xf32, #cuda0>) {
  %kt = gp.buffer.alloc() : memref<1x4x16x8xf32, #cuda0>
  gp.kernel "transpose_k" ins(%cache : memref<1x4x8x16xf32, #cuda0>) outs(%kt : memref<1x4x16x8xf32, #cuda0>) {
  ^bb0(%a: memref<1x4x8x16xf32, #cuda0>, %o: memref<1x4x16x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#tr4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%a : memref<1x4x8x16xf32, #cuda0>) outs(%o : memref<1x4x16x8xf32, #cuda0>) {
    ^bb0(%e: f32, %unused: f32):
      linalg.yield %e : f32
    }
  }
  %kt3 = gp.buffer.reshape %kt() : memref<1x4x16x8xf32, #cuda0> to memref<4x16x8xf32, #cuda0>
  gp.kernel "scores" ins(%q, %kt3 : memref<4x1x16xf32, #cuda0>, memref<4x16x8xf32, #cuda0>) outs(%s : memref<4x1x8xf32, #cuda0>) {
  ^bb0(%a: memref<4x1x16xf32, #cuda0>, %b: memref<4x16x8xf32, #cuda0>, %o: memref<4x1x8xf32, #cuda0>):
    linalg.batch_matmul ins(%a, %b : memref<4x1x16xf32, #cuda0>, memref<4x16x8xf32, #cuda0>) outs(%o : memref<4x1x8xf32, #cuda0>)
  }
  return
}
