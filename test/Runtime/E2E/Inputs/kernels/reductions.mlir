// Reductions as an importer writes them, one kernel per op; checked
// against numpy by test/Runtime/E2E/reference_check.py (reductions.test,
// reductions-cuda.test), which also compares captured with eager runs, and
// captured against eager at changing sizes by the differential test
// (differential.test, differential-cuda.test). sum_all names none of its
// sizes (unnamed-dims.test).
#cuda0 = #gp.device<cuda:0>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id1 = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>

// max over each row of x.
func.func @row_max(%x: memref<128x1000xf32, #cuda0>) -> memref<128xf32, #cuda0> {
  %m = gp.buffer.alloc() : memref<128xf32, #cuda0>
  gp.kernel "row_max" ins(%x : memref<128x1000xf32, #cuda0>) outs(%m : memref<128xf32, #cuda0>) {
  ^bb0(%in: memref<128x1000xf32, #cuda0>, %out: memref<128xf32, #cuda0>):
    %ninf = arith.constant 0xFF800000 : f32
    linalg.fill ins(%ninf : f32) outs(%out : memref<128xf32, #cuda0>)
    linalg.reduce ins(%in : memref<128x1000xf32, #cuda0>) outs(%out : memref<128xf32, #cuda0>) dimensions = [1]
    (%a: f32, %b: f32) {
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
  }
  return %m : memref<128xf32, #cuda0>
}

// softmax over each row: max, sum of exp(x - max), exp(x - max) / sum.
func.func @softmax(%x: memref<64x300xf32, #cuda0>) -> memref<64x300xf32, #cuda0> {
  %m = gp.buffer.alloc() : memref<64xf32, #cuda0>
  %s = gp.buffer.alloc() : memref<64xf32, #cuda0>
  %y = gp.buffer.alloc() : memref<64x300xf32, #cuda0>
  gp.kernel "fill_max" outs(%m : memref<64xf32, #cuda0>) {
  ^bb0(%out: memref<64xf32, #cuda0>):
    %ninf = arith.constant 0xFF800000 : f32
    linalg.fill ins(%ninf : f32) outs(%out : memref<64xf32, #cuda0>)
  }
  gp.kernel "row_max" ins(%x : memref<64x300xf32, #cuda0>) outs(%m : memref<64xf32, #cuda0>) {
  ^bb0(%in: memref<64x300xf32, #cuda0>, %out: memref<64xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<64x300xf32, #cuda0>) outs(%out : memref<64xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "fill_sum" outs(%s : memref<64xf32, #cuda0>) {
  ^bb0(%out: memref<64xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<64xf32, #cuda0>)
  }
  gp.kernel "row_sum_exp" ins(%x, %m : memref<64x300xf32, #cuda0>, memref<64xf32, #cuda0>) outs(%s : memref<64xf32, #cuda0>) {
  ^bb0(%in: memref<64x300xf32, #cuda0>, %mx: memref<64xf32, #cuda0>, %out: memref<64xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #row, #row], iterator_types = ["parallel", "reduction"]}
        ins(%in, %mx : memref<64x300xf32, #cuda0>, memref<64xf32, #cuda0>) outs(%out : memref<64xf32, #cuda0>) {
    ^bb0(%a: f32, %c: f32, %b: f32):
      %d = arith.subf %a, %c : f32
      %e = math.exp %d : f32
      %r = arith.addf %e, %b : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "normalize" ins(%x, %m, %s : memref<64x300xf32, #cuda0>, memref<64xf32, #cuda0>, memref<64xf32, #cuda0>) outs(%y : memref<64x300xf32, #cuda0>) {
  ^bb0(%in: memref<64x300xf32, #cuda0>, %mx: memref<64xf32, #cuda0>, %sm: memref<64xf32, #cuda0>, %out: memref<64x300xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #row, #row, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%in, %mx, %sm : memref<64x300xf32, #cuda0>, memref<64xf32, #cuda0>, memref<64xf32, #cuda0>) outs(%out : memref<64x300xf32, #cuda0>) {
    ^bb0(%a: f32, %c: f32, %t: f32, %b: f32):
      %d = arith.subf %a, %c : f32
      %e = math.exp %d : f32
      %r = arith.divf %e, %t : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<64x300xf32, #cuda0>
}

// The sum of all elements of a vector of any length, plus 1 (the output's
// initial value takes part in the reduction).
func.func @sum_all(%x: memref<?xf32, #cuda0>) -> memref<f32, #cuda0> {
  %s = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "sum_all" ins(%x : memref<?xf32, #cuda0>) outs(%s : memref<f32, #cuda0>) {
  ^bb0(%in: memref<?xf32, #cuda0>, %out: memref<f32, #cuda0>):
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%out : memref<f32, #cuda0>)
    linalg.reduce ins(%in : memref<?xf32, #cuda0>) outs(%out : memref<f32, #cuda0>) dimensions = [0]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  }
  return %s : memref<f32, #cuda0>
}

// The max of all elements, stored and reduced as f16, returned as f32.
func.func @max_all_f16(%x: memref<?xf32, #cuda0>) -> memref<f32, #cuda0> {
  %n = gp.symint.dim "n" = %x[0] : memref<?xf32, #cuda0>
  %h = gp.buffer.alloc(%n) : memref<?xf16, #cuda0>
  %m = gp.buffer.alloc() : memref<f16, #cuda0>
  %r = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "to_f16" ins(%x : memref<?xf32, #cuda0>) outs(%h : memref<?xf16, #cuda0>) {
  ^bb0(%in: memref<?xf32, #cuda0>, %out: memref<?xf16, #cuda0>):
    linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
        ins(%in : memref<?xf32, #cuda0>) outs(%out : memref<?xf16, #cuda0>) {
    ^bb0(%a: f32, %b: f16):
      %t = arith.truncf %a : f32 to f16
      linalg.yield %t : f16
    }
  }
  gp.kernel "max_f16" ins(%h : memref<?xf16, #cuda0>) outs(%m : memref<f16, #cuda0>) {
  ^bb0(%in: memref<?xf16, #cuda0>, %out: memref<f16, #cuda0>):
    %ninf = arith.constant 0xFC00 : f16
    linalg.fill ins(%ninf : f16) outs(%out : memref<f16, #cuda0>)
    linalg.reduce ins(%in : memref<?xf16, #cuda0>) outs(%out : memref<f16, #cuda0>) dimensions = [0]
    (%a: f16, %b: f16) {
      %v = arith.maximumf %a, %b : f16
      linalg.yield %v : f16
    }
  }
  gp.kernel "to_f32" ins(%m : memref<f16, #cuda0>) outs(%r : memref<f32, #cuda0>) {
  ^bb0(%in: memref<f16, #cuda0>, %out: memref<f32, #cuda0>):
    %v = memref.load %in[] : memref<f16, #cuda0>
    %e = arith.extf %v : f16 to f32
    memref.store %e, %out[] : memref<f32, #cuda0>
  }
  return %r : memref<f32, #cuda0>
}

// The max and the min of all f32 elements: on cuda, many blocks fold
// into each with one integer atomic (no compare-and-swap loop).
func.func @max_min_all(%x: memref<?xf32, #cuda0>) -> (memref<f32, #cuda0>, memref<f32, #cuda0>) {
  %n = gp.symint.dim "n" = %x[0] : memref<?xf32, #cuda0>
  %max = gp.buffer.alloc() : memref<f32, #cuda0>
  %min = gp.buffer.alloc() : memref<f32, #cuda0>
  gp.kernel "max_all" ins(%x : memref<?xf32, #cuda0>) outs(%max : memref<f32, #cuda0>) {
  ^bb0(%in: memref<?xf32, #cuda0>, %out: memref<f32, #cuda0>):
    %ninf = arith.constant 0xFF800000 : f32
    linalg.fill ins(%ninf : f32) outs(%out : memref<f32, #cuda0>)
    linalg.reduce ins(%in : memref<?xf32, #cuda0>) outs(%out : memref<f32, #cuda0>) dimensions = [0]
    (%a: f32, %b: f32) {
      %v = arith.maximumf %a, %b : f32
      linalg.yield %v : f32
    }
  }
  gp.kernel "min_all" ins(%x : memref<?xf32, #cuda0>) outs(%min : memref<f32, #cuda0>) {
  ^bb0(%in: memref<?xf32, #cuda0>, %out: memref<f32, #cuda0>):
    %inf = arith.constant 0x7F800000 : f32
    linalg.fill ins(%inf : f32) outs(%out : memref<f32, #cuda0>)
    linalg.reduce ins(%in : memref<?xf32, #cuda0>) outs(%out : memref<f32, #cuda0>) dimensions = [0]
    (%a: f32, %b: f32) {
      %v = arith.minimumf %a, %b : f32
      linalg.yield %v : f32
    }
  }
  return %max, %min : memref<f32, #cuda0>, memref<f32, #cuda0>
}

// Sum and sum of squares over the middle dimension, in one op.
func.func @stats(%x: memref<4x500x6xf32, #cuda0>) -> (memref<4x6xf32, #cuda0>, memref<4x6xf32, #cuda0>) {
  %s = gp.buffer.alloc() : memref<4x6xf32, #cuda0>
  %q = gp.buffer.alloc() : memref<4x6xf32, #cuda0>
  gp.kernel "stats" ins(%x : memref<4x500x6xf32, #cuda0>) outs(%s, %q : memref<4x6xf32, #cuda0>, memref<4x6xf32, #cuda0>) {
  ^bb0(%in: memref<4x500x6xf32, #cuda0>, %sum: memref<4x6xf32, #cuda0>, %sq: memref<4x6xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%sum : memref<4x6xf32, #cuda0>)
    linalg.fill ins(%zero : f32) outs(%sq : memref<4x6xf32, #cuda0>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>],
                    iterator_types = ["parallel", "reduction", "parallel"]}
        ins(%in : memref<4x500x6xf32, #cuda0>) outs(%sum, %sq : memref<4x6xf32, #cuda0>, memref<4x6xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %a2 = arith.mulf %a, %a : f32
      %r0 = arith.addf %a, %b : f32
      %r1 = arith.addf %a2, %c : f32
      linalg.yield %r0, %r1 : f32, f32
    }
  }
  return %s, %q : memref<4x6xf32, #cuda0>, memref<4x6xf32, #cuda0>
}

// Column sums of a short, wide matrix (a thread per column).
func.func @column_sum(%x: memref<16x4096xf32, #cuda0>) -> memref<4096xf32, #cuda0> {
  %s = gp.buffer.alloc() : memref<4096xf32, #cuda0>
  gp.kernel "column_sum" ins(%x : memref<16x4096xf32, #cuda0>) outs(%s : memref<4096xf32, #cuda0>) {
  ^bb0(%in: memref<16x4096xf32, #cuda0>, %out: memref<4096xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<4096xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["reduction", "parallel"]}
        ins(%in : memref<16x4096xf32, #cuda0>) outs(%out : memref<4096xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  }
  return %s : memref<4096xf32, #cuda0>
}

// xor of (x[i] + i) over a long i32 vector, and its min.
func.func @xor_min(%x: memref<100000xi32, #cuda0>) -> (memref<i32, #cuda0>, memref<i32, #cuda0>) {
  %s = gp.buffer.alloc() : memref<i32, #cuda0>
  %m = gp.buffer.alloc() : memref<i32, #cuda0>
  gp.kernel "xor_min" ins(%x : memref<100000xi32, #cuda0>) outs(%s, %m : memref<i32, #cuda0>, memref<i32, #cuda0>) {
  ^bb0(%in: memref<100000xi32, #cuda0>, %out: memref<i32, #cuda0>, %low: memref<i32, #cuda0>):
    %zero = arith.constant 0 : i32
    %big = arith.constant 2147483647 : i32
    linalg.fill ins(%zero : i32) outs(%out : memref<i32, #cuda0>)
    linalg.fill ins(%big : i32) outs(%low : memref<i32, #cuda0>)
    linalg.generic {indexing_maps = [#id1, #none, #none], iterator_types = ["reduction"]}
        ins(%in : memref<100000xi32, #cuda0>) outs(%out, %low : memref<i32, #cuda0>, memref<i32, #cuda0>) {
    ^bb0(%a: i32, %b: i32, %c: i32):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i32
      %v = arith.addi %a, %ii : i32
      %r = arith.xori %v, %b : i32
      %l = arith.minsi %a, %c : i32
      linalg.yield %r, %l : i32, i32
    }
  }
  return %s, %m : memref<i32, #cuda0>, memref<i32, #cuda0>
}

// 64-bit reductions: the sum and the maximum of a long i64 vector (one
// block of threads, whose shuffles move each value as two 32-bit halves;
// no atomics across blocks for 64-bit integers), and f64 row sums
// accumulated in f64.
func.func @wide_sums(%x: memref<?xi64, #cuda0>, %y: memref<8x1000xf64, #cuda0>) -> (memref<i64, #cuda0>, memref<i64, #cuda0>, memref<8xf64, #cuda0>) {
  %s = gp.buffer.alloc() : memref<i64, #cuda0>
  %m = gp.buffer.alloc() : memref<i64, #cuda0>
  %r = gp.buffer.alloc() : memref<8xf64, #cuda0>
  gp.kernel "sum_max_i64" ins(%x : memref<?xi64, #cuda0>) outs(%s, %m : memref<i64, #cuda0>, memref<i64, #cuda0>) {
  ^bb0(%in: memref<?xi64, #cuda0>, %sum: memref<i64, #cuda0>, %max: memref<i64, #cuda0>):
    %zero = arith.constant 0 : i64
    %low = arith.constant -9223372036854775808 : i64
    linalg.fill ins(%zero : i64) outs(%sum : memref<i64, #cuda0>)
    linalg.fill ins(%low : i64) outs(%max : memref<i64, #cuda0>)
    linalg.generic {indexing_maps = [#id1, #none, #none], iterator_types = ["reduction"]}
        ins(%in : memref<?xi64, #cuda0>) outs(%sum, %max : memref<i64, #cuda0>, memref<i64, #cuda0>) {
    ^bb0(%a: i64, %b: i64, %c: i64):
      %t = arith.addi %a, %b : i64
      %u = arith.maxsi %a, %c : i64
      linalg.yield %t, %u : i64, i64
    }
  }
  gp.kernel "row_sum_f64" ins(%y : memref<8x1000xf64, #cuda0>) outs(%r : memref<8xf64, #cuda0>) {
  ^bb0(%in: memref<8x1000xf64, #cuda0>, %out: memref<8xf64, #cuda0>):
    %zero = arith.constant 0.0 : f64
    linalg.fill ins(%zero : f64) outs(%out : memref<8xf64, #cuda0>)
    linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<8x1000xf64, #cuda0>) outs(%out : memref<8xf64, #cuda0>) {
    ^bb0(%a: f64, %b: f64):
      %t = arith.addf %a, %b : f64
      linalg.yield %t : f64
    }
  }
  return %s, %m, %r : memref<i64, #cuda0>, memref<i64, #cuda0>, memref<8xf64, #cuda0>
}

// Layer norm over rows of any count (no affine parameters): mean, variance,
// then (x - mean) / sqrt(var + 1e-5).
func.func @layer_norm(%x: memref<?x256xf32, #cuda0>) -> memref<?x256xf32, #cuda0> {
  %n = gp.symint.dim "rows" = %x[0] : memref<?x256xf32, #cuda0>
  %mean = gp.buffer.alloc(%n) : memref<?xf32, #cuda0>
  %var = gp.buffer.alloc(%n) : memref<?xf32, #cuda0>
  %y = gp.buffer.alloc(%n) : memref<?x256xf32, #cuda0>
  gp.kernel "mean" ins(%x : memref<?x256xf32, #cuda0>) outs(%mean : memref<?xf32, #cuda0>) {
  ^bb0(%in: memref<?x256xf32, #cuda0>, %out: memref<?xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<?xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<?x256xf32, #cuda0>) outs(%out : memref<?xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      %inv = arith.constant 3.906250e-03 : f32
      %s = arith.mulf %a, %inv : f32
      %r = arith.addf %s, %b : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "variance" ins(%x, %mean : memref<?x256xf32, #cuda0>, memref<?xf32, #cuda0>) outs(%var : memref<?xf32, #cuda0>) {
  ^bb0(%in: memref<?x256xf32, #cuda0>, %mu: memref<?xf32, #cuda0>, %out: memref<?xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<?xf32, #cuda0>)
    linalg.generic {indexing_maps = [#id2, #row, #row], iterator_types = ["parallel", "reduction"]}
        ins(%in, %mu : memref<?x256xf32, #cuda0>, memref<?xf32, #cuda0>) outs(%out : memref<?xf32, #cuda0>) {
    ^bb0(%a: f32, %m: f32, %b: f32):
      %inv = arith.constant 3.906250e-03 : f32
      %d = arith.subf %a, %m : f32
      %d2 = arith.mulf %d, %d : f32
      %s = arith.mulf %d2, %inv : f32
      %r = arith.addf %s, %b : f32
      linalg.yield %r : f32
    }
  }
  gp.kernel "normalize" ins(%x, %mean, %var : memref<?x256xf32, #cuda0>, memref<?xf32, #cuda0>, memref<?xf32, #cuda0>) outs(%y : memref<?x256xf32, #cuda0>) {
  ^bb0(%in: memref<?x256xf32, #cuda0>, %mu: memref<?xf32, #cuda0>, %v: memref<?xf32, #cuda0>, %out: memref<?x256xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #row, #row, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%in, %mu, %v : memref<?x256xf32, #cuda0>, memref<?xf32, #cuda0>, memref<?xf32, #cuda0>) outs(%out : memref<?x256xf32, #cuda0>) {
    ^bb0(%a: f32, %m: f32, %w: f32, %b: f32):
      %eps = arith.constant 1.0e-5 : f32
      %d = arith.subf %a, %m : f32
      %ve = arith.addf %w, %eps : f32
      %rs = math.rsqrt %ve : f32
      %r = arith.mulf %d, %rs : f32
      linalg.yield %r : f32
    }
  }
  return %y : memref<?x256xf32, #cuda0>
}
