// RUN: gp-opt %s -split-input-file --gp-size-classes | FileCheck %s

// gp-size-classes: which dynamic argument dimensions are one size, which
// result dimensions are that size, and whether every position along it is
// computed on its own (so a call may be padded along it).

#cuda0 = #gp.device<cuda:0>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// A batch through a matmul and a bias add: the matmul's rows are the
// batch, every loop over it is parallel, the result keeps it. Padded.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: gp.size_classes = [#gp.size_class<"batch", arguments = [0, 0], results = [0, 0], fixed = -1, maximum = -1, unpaddable = "">]
func.func @mlp(%x: memref<?x16xf32, #cuda0>, %w: memref<16x32xf32, #cuda0>,
               %b: memref<32xf32, #cuda0>) -> memref<?x32xf32, #cuda0> {
  %n = gp.symint.dim "batch" = %x[0] : memref<?x16xf32, #cuda0>
  %mm = gp.buffer.alloc(%n) : memref<?x32xf32, #cuda0>
  gp.kernel "matmul" ins(%x, %w : memref<?x16xf32, #cuda0>, memref<16x32xf32, #cuda0>)
                     outs(%mm : memref<?x32xf32, #cuda0>) {
  ^bb0(%a: memref<?x16xf32, #cuda0>, %bw: memref<16x32xf32, #cuda0>, %o: memref<?x32xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<?x32xf32, #cuda0>)
    linalg.matmul ins(%a, %bw : memref<?x16xf32, #cuda0>, memref<16x32xf32, #cuda0>)
                  outs(%o : memref<?x32xf32, #cuda0>)
  }
  %out = gp.buffer.alloc(%n) : memref<?x32xf32, #cuda0>
  gp.kernel "bias" ins(%mm, %b : memref<?x32xf32, #cuda0>, memref<32xf32, #cuda0>)
                   outs(%out : memref<?x32xf32, #cuda0>) {
  ^bb0(%m: memref<?x32xf32, #cuda0>, %v: memref<32xf32, #cuda0>, %o: memref<?x32xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%m, %v : memref<?x32xf32, #cuda0>, memref<32xf32, #cuda0>)
        outs(%o : memref<?x32xf32, #cuda0>) {
    ^bb0(%p: f32, %q: f32, %r: f32):
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    }
  }
  return %out : memref<?x32xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>

// Two arguments an elementwise op reads together are one size (the call
// must agree), and a sum over it mixes every position: not padded.
// CHECK-LABEL: func.func @tied_and_reduced
// CHECK-SAME: gp.size_classes = [#gp.size_class<"n", arguments = [0, 0, 1, 0], results = [0, 0], fixed = -1, maximum = -1, unpaddable = "'linalg.generic' in kernel 'total' reduces along the size">]
func.func @tied_and_reduced(%x: memref<?xf32, #cuda0>, %y: memref<?xf32, #cuda0>)
    -> (memref<?xf32, #cuda0>, memref<f32, #cuda0>) {
  %n = gp.symint.dim "n" = %x[0] : memref<?xf32, #cuda0>
  %m = gp.symint.dim "m" = %y[0] : memref<?xf32, #cuda0>
  %sum = gp.buffer.alloc(%n) : memref<?xf32, #cuda0>
  gp.kernel "add" ins(%x, %y : memref<?xf32, #cuda0>, memref<?xf32, #cuda0>)
                  outs(%sum : memref<?xf32, #cuda0>) {
  ^bb0(%a: memref<?xf32, #cuda0>, %b: memref<?xf32, #cuda0>, %o: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%a, %b : memref<?xf32, #cuda0>, memref<?xf32, #cuda0>)
        outs(%o : memref<?xf32, #cuda0>) {
    ^bb0(%p: f32, %q: f32, %r: f32):
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    }
  }
  %total = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "total" ins(%sum : memref<?xf32, #cuda0>) outs(%total : memref<f32, #cuda0>) {
  ^bb0(%a: memref<?xf32, #cuda0>, %o: memref<f32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction"]}
        ins(%a : memref<?xf32, #cuda0>) outs(%o : memref<f32, #cuda0>) {
    ^bb0(%p: f32, %r: f32):
      %s = arith.addf %p, %r : f32
      linalg.yield %s : f32
    }
  }
  return %sum, %total : memref<?xf32, #cuda0>, memref<f32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

// A dynamic argument used with a static buffer: the program fixes it.
// CHECK-LABEL: func.func @fixed
// CHECK-SAME: gp.size_classes = [#gp.size_class<"arg0_dim0", arguments = [0, 0], results = [], fixed = 16, maximum = -1, unpaddable = "the program fixes it at 16">]
func.func @fixed(%x: memref<?xf32, #cuda0>, %y: memref<16xf32, #cuda0>) {
  gp.kernel "copy" ins(%x : memref<?xf32, #cuda0>) outs(%y : memref<16xf32, #cuda0>) {
  ^bb0(%a: memref<?xf32, #cuda0>, %o: memref<16xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%a : memref<?xf32, #cuda0>) outs(%o : memref<16xf32, #cuda0>) {
    ^bb0(%p: f32, %r: f32):
      linalg.yield %p : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

// A kernel that reads the size as a value (a mean's divisor) would see
// the padded size: not padded.
// CHECK-LABEL: func.func @size_as_value
// CHECK-SAME: unpaddable = "kernel 'scale' reads the size as a value"
func.func @size_as_value(%x: memref<?xf32, #cuda0>) -> memref<?xf32, #cuda0> {
  %n = gp.symint.dim "n" = %x[0] : memref<?xf32, #cuda0>
  %out = gp.buffer.alloc(%n) : memref<?xf32, #cuda0>
  gp.kernel "scale" ins(%x, %n : memref<?xf32, #cuda0>, index) outs(%out : memref<?xf32, #cuda0>) {
  ^bb0(%a: memref<?xf32, #cuda0>, %size: index, %o: memref<?xf32, #cuda0>):
    %i = arith.index_cast %size : index to i64
    %f = arith.sitofp %i : i64 to f32
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%a : memref<?xf32, #cuda0>) outs(%o : memref<?xf32, #cuda0>) {
    ^bb0(%p: f32, %r: f32):
      %d = arith.divf %p, %f : f32
      linalg.yield %d : f32
    }
  }
  return %out : memref<?xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A reshape that keeps the batch as its own leading dimension keeps the
// positions apart; one that merges it with the rest does not.
// CHECK-LABEL: func.func @reshape_kept
// CHECK-SAME: #gp.size_class<"b", arguments = [0, 0], results = [0, 0], fixed = -1, maximum = -1, unpaddable = "">
func.func @reshape_kept(%x: memref<?x4x8xf32, #cuda0>) -> memref<?x32xf32, #cuda0> {
  %b = gp.symint.dim "b" = %x[0] : memref<?x4x8xf32, #cuda0>
  %v = gp.buffer.reshape %x(%b) : memref<?x4x8xf32, #cuda0> to memref<?x32xf32, #cuda0>
  %out = gp.buffer.alloc(%b) : memref<?x32xf32, #cuda0>
  gp.kernel "neg" ins(%v : memref<?x32xf32, #cuda0>) outs(%out : memref<?x32xf32, #cuda0>) {
  ^bb0(%a: memref<?x32xf32, #cuda0>, %o: memref<?x32xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<?x32xf32, #cuda0>) outs(%o : memref<?x32xf32, #cuda0>) {
    ^bb0(%p: f32, %r: f32):
      %n = arith.negf %p : f32
      linalg.yield %n : f32
    }
  }
  return %out : memref<?x32xf32, #cuda0>
}

// CHECK-LABEL: func.func @reshape_merged
// CHECK-SAME: unpaddable = "'gp.buffer.reshape' merges the size with other dimensions"
func.func @reshape_merged(%x: memref<?x4xf32, #cuda0>, %n4: index) -> memref<?xf32, #cuda0> {
  %v = gp.buffer.reshape %x(%n4) : memref<?x4xf32, #cuda0> to memref<?xf32, #cuda0>
  return %v : memref<?xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// A slice that drops positions along the size: not padded.
// CHECK-LABEL: func.func @slice_drops
// CHECK-SAME: unpaddable = "'gp.buffer.slice' takes part of the positions along the size"
func.func @slice_drops(%x: memref<?xf32, #cuda0>, %m: index) -> memref<?xf32, strided<[1], offset: 1>, #cuda0> {
  %v = gp.buffer.slice %x[1] [%m] [1] : memref<?xf32, #cuda0> to memref<?xf32, strided<[1], offset: 1>, #cuda0>
  return %v : memref<?xf32, strided<[1], offset: 1>, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

// An argument sized by it and written in place would be written in the
// padded copy: not padded.
// CHECK-LABEL: func.func @in_place
// CHECK-SAME: unpaddable = "kernel 'relu' writes argument 0, which is sized by it, in place"
func.func @in_place(%x: memref<?xf32, #cuda0>) {
  gp.kernel "relu" outs(%x : memref<?xf32, #cuda0>) {
  ^bb0(%o: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
        outs(%o : memref<?xf32, #cuda0>) {
    ^bb0(%r: f32):
      %zero = arith.constant 0.0 : f32
      %m = arith.maximumf %r, %zero : f32
      linalg.yield %m : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#t = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Through a transpose the size moves to another dimension and stays one
// size; the result's dimension 1 is it.
// CHECK-LABEL: func.func @transposed
// CHECK-SAME: #gp.size_class<"arg0_dim0", arguments = [0, 0], results = [0, 1], fixed = -1, maximum = -1, unpaddable = "">
func.func @transposed(%x: memref<?x8xf32, #cuda0>) -> memref<8x?xf32, #cuda0> {
  %n = gp.symint.dim "arg0_dim0" = %x[0] : memref<?x8xf32, #cuda0>
  %t = gp.buffer.transpose %x [1, 0] : memref<?x8xf32, #cuda0> to memref<8x?xf32, strided<[1, 8]>, #cuda0>
  %out = gp.buffer.alloc(%n) : memref<8x?xf32, #cuda0>
  gp.kernel "copy" ins(%t : memref<8x?xf32, strided<[1, 8]>, #cuda0>) outs(%out : memref<8x?xf32, #cuda0>) {
  ^bb0(%a: memref<8x?xf32, strided<[1, 8]>, #cuda0>, %o: memref<8x?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<8x?xf32, strided<[1, 8]>, #cuda0>) outs(%o : memref<8x?xf32, #cuda0>) {
    ^bb0(%p: f32, %r: f32):
      linalg.yield %p : f32
    }
  }
  return %out : memref<8x?xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// An opaque extern may mix positions; a kernel that loads by index may
// gather them.
// CHECK-LABEL: func.func @opaque
// CHECK-SAME: unpaddable = "'gp.fallback' ('mylib::sort') takes a buffer sized by it and may mix its positions"
func.func @opaque(%x: memref<?xf32, #cuda0>) -> memref<?xf32, #cuda0> {
  %r = gp.fallback "mylib::sort"(%x) aliases [-] : (memref<?xf32, #cuda0>) -> memref<?xf32, #cuda0>
  return %r : memref<?xf32, #cuda0>
}

// CHECK-LABEL: func.func @gathers
// CHECK-SAME: unpaddable = "'memref.load' in kernel 'first' reads or writes a buffer sized by it outside a linalg op"
func.func @gathers(%x: memref<?xf32, #cuda0>, %out: memref<f32, #cuda0>) {
  gp.kernel "first" ins(%x : memref<?xf32, #cuda0>) outs(%out : memref<f32, #cuda0>) {
  ^bb0(%a: memref<?xf32, #cuda0>, %o: memref<f32, #cuda0>):
    %c0 = arith.constant 0 : index
    %v = memref.load %a[%c0] : memref<?xf32, #cuda0>
    memref.store %v, %o[] : memref<f32, #cuda0>
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

// An index argument that only sizes buffers is the size (the runtime
// passes the padded size), and two unrelated sizes are two classes.
// CHECK-LABEL: func.func @index_argument
// CHECK-SAME: gp.size_classes = [#gp.size_class<"n", arguments = [0, -1], results = [0, 0], fixed = -1, maximum = -1, unpaddable = "">, #gp.size_class<"arg1_dim0", arguments = [1, 0], results = [1, 0], fixed = -1, maximum = -1, unpaddable = "">]
func.func @index_argument(%count: index, %y: memref<?xf32, #cuda0>)
    -> (memref<?xf32, #cuda0>, memref<?xf32, #cuda0>) {
  %n = gp.symint "n" = %count
  %a = gp.buffer.alloc(%n) : memref<?xf32, #cuda0>
  gp.kernel "ones" outs(%a : memref<?xf32, #cuda0>) {
  ^bb0(%o: memref<?xf32, #cuda0>):
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%o : memref<?xf32, #cuda0>)
  }
  return %a, %y : memref<?xf32, #cuda0>, memref<?xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// No dynamic dimension, no classes.
// CHECK-LABEL: func.func @static
// CHECK-NOT: gp.size_classes
func.func @static(%x: memref<4xf32, #cuda0>) -> memref<4xf32, #cuda0> {
  return %x : memref<4xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A parameter tied to the size fixes it at the bound tensor's size: the
// call's sizes are checked against it, never padded.
// CHECK-LABEL: func.func @parameter_rows
// CHECK-SAME: #gp.size_class<"arg0_dim0", arguments = [0, 0, 1, 0, 2, 0], results = [], fixed = -1, maximum = -1, unpaddable = "argument 1 is the parameter 'table', bound once at its own size">
func.func @parameter_rows(%x: memref<?x4xf32, #cuda0>,
                          %table: memref<?x4xf32, #cuda0> {gp.parameter = "table"},
                          %out: memref<?x4xf32, #cuda0>) {
  gp.kernel "add" ins(%x, %table : memref<?x4xf32, #cuda0>, memref<?x4xf32, #cuda0>)
                  outs(%out : memref<?x4xf32, #cuda0>) {
  ^bb0(%a: memref<?x4xf32, #cuda0>, %t: memref<?x4xf32, #cuda0>, %o: memref<?x4xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a, %t : memref<?x4xf32, #cuda0>, memref<?x4xf32, #cuda0>)
        outs(%o : memref<?x4xf32, #cuda0>) {
    ^bb0(%p: f32, %q: f32, %r: f32):
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    }
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

// The smallest bound a symint of the size declares is the largest size the
// entry accepts: padding stops there.
// CHECK-LABEL: func.func @bounded
// CHECK-SAME: #gp.size_class<"n", arguments = [0, 0, 1, 0], results = [0, 0], fixed = -1, maximum = 48, unpaddable = "">
func.func @bounded(%x: memref<?xf32, #cuda0>, %y: memref<?xf32, #cuda0>) -> memref<?xf32, #cuda0> {
  %n = gp.symint.dim "n" = %x[0] {max = 64 : i64} : memref<?xf32, #cuda0>
  %m = gp.symint.dim "m" = %y[0] {max = 48 : i64} : memref<?xf32, #cuda0>
  %out = gp.buffer.alloc(%n) : memref<?xf32, #cuda0>
  gp.kernel "add" ins(%x, %y : memref<?xf32, #cuda0>, memref<?xf32, #cuda0>)
                  outs(%out : memref<?xf32, #cuda0>) {
  ^bb0(%a: memref<?xf32, #cuda0>, %b: memref<?xf32, #cuda0>, %o: memref<?xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%a, %b : memref<?xf32, #cuda0>, memref<?xf32, #cuda0>)
        outs(%o : memref<?xf32, #cuda0>) {
    ^bb0(%p: f32, %q: f32, %r: f32):
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    }
  }
  return %out : memref<?xf32, #cuda0>
}
