// Matmul-class kernels as an importer writes them, checked against numpy
// by test/Runtime/E2E/reference_check.py (matmuls.test, matmuls-cuda.test;
// references in matmuls.cases.py). On cuda each contraction becomes a
// cuBLAS call (convert-gp-to-gpu library-calls): plain, accumulating into
// a filled output, with both operands transposed (gp.buffer.transpose
// views), batched, on a strided window, with no unit stride (a kernel), in
// f16 and bf16, a linear layer whose bias, relu and scale fuse into one
// kernel after the call, and a decode step's batch matmuls reading a
// [1, H, L, E] cache through a transpose or copy fused into them.
#cuda0 = #gp.device<cuda:0>
#mk = affine_map<(m, n, k) -> (m, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// c = a @ b, zero-filled in the kernel.
func.func @mm(%a: memref<33x70xf32, #cuda0>, %b: memref<70x45xf32, #cuda0>) -> memref<33x45xf32, #cuda0> {
  %c = gp.buffer.alloc() : memref<33x45xf32, #cuda0>
  gp.kernel "mm" ins(%a, %b : memref<33x70xf32, #cuda0>, memref<70x45xf32, #cuda0>) outs(%c : memref<33x45xf32, #cuda0>) {
  ^bb0(%x: memref<33x70xf32, #cuda0>, %y: memref<70x45xf32, #cuda0>, %out: memref<33x45xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<33x45xf32, #cuda0>)
    linalg.matmul ins(%x, %y : memref<33x70xf32, #cuda0>, memref<70x45xf32, #cuda0>) outs(%out : memref<33x45xf32, #cuda0>)
  }
  return %c : memref<33x45xf32, #cuda0>
}

// c = 1 + a @ b: the matmul adds to what the fill kernel wrote.
func.func @mm_accumulate(%a: memref<33x70xf32, #cuda0>, %b: memref<70x45xf32, #cuda0>) -> memref<33x45xf32, #cuda0> {
  %c = gp.buffer.alloc() : memref<33x45xf32, #cuda0>
  gp.kernel "fill_one" outs(%c : memref<33x45xf32, #cuda0>) {
  ^bb0(%out: memref<33x45xf32, #cuda0>):
    %one = arith.constant 1.0 : f32
    linalg.fill ins(%one : f32) outs(%out : memref<33x45xf32, #cuda0>)
  }
  gp.kernel "mm_add" ins(%a, %b : memref<33x70xf32, #cuda0>, memref<70x45xf32, #cuda0>) outs(%c : memref<33x45xf32, #cuda0>) {
  ^bb0(%x: memref<33x70xf32, #cuda0>, %y: memref<70x45xf32, #cuda0>, %out: memref<33x45xf32, #cuda0>):
    linalg.matmul ins(%x, %y : memref<33x70xf32, #cuda0>, memref<70x45xf32, #cuda0>) outs(%out : memref<33x45xf32, #cuda0>)
  }
  return %c : memref<33x45xf32, #cuda0>
}

// c = a^T @ b^T, as a generic, zero-filled by a kernel of its own.
func.func @mm_transposed(%a: memref<70x33xf32, #cuda0>, %b: memref<45x70xf32, #cuda0>) -> memref<33x45xf32, #cuda0> {
  %c = gp.buffer.alloc() : memref<33x45xf32, #cuda0>
  gp.kernel "zero" outs(%c : memref<33x45xf32, #cuda0>) {
  ^bb0(%out: memref<33x45xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<33x45xf32, #cuda0>)
  }
  gp.kernel "mm_tt" ins(%a, %b : memref<70x33xf32, #cuda0>, memref<45x70xf32, #cuda0>) outs(%c : memref<33x45xf32, #cuda0>) {
  ^bb0(%x: memref<70x33xf32, #cuda0>, %y: memref<45x70xf32, #cuda0>, %out: memref<33x45xf32, #cuda0>):
    linalg.generic {indexing_maps = [#km, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x, %y : memref<70x33xf32, #cuda0>, memref<45x70xf32, #cuda0>) outs(%out : memref<33x45xf32, #cuda0>) {
    ^bb0(%p: f32, %q: f32, %acc: f32):
      %prod = arith.mulf %q, %p : f32
      %sum = arith.addf %prod, %acc : f32
      linalg.yield %sum : f32
    }
  }
  return %c : memref<33x45xf32, #cuda0>
}

// c[i] = a[i] @ b[i].
func.func @bmm(%a: memref<4x16x32xf32, #cuda0>, %b: memref<4x32x8xf32, #cuda0>) -> memref<4x16x8xf32, #cuda0> {
  %c = gp.buffer.alloc() : memref<4x16x8xf32, #cuda0>
  gp.kernel "bmm" ins(%a, %b : memref<4x16x32xf32, #cuda0>, memref<4x32x8xf32, #cuda0>) outs(%c : memref<4x16x8xf32, #cuda0>) {
  ^bb0(%x: memref<4x16x32xf32, #cuda0>, %y: memref<4x32x8xf32, #cuda0>, %out: memref<4x16x8xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<4x16x8xf32, #cuda0>)
    linalg.batch_matmul ins(%x, %y : memref<4x16x32xf32, #cuda0>, memref<4x32x8xf32, #cuda0>) outs(%out : memref<4x16x8xf32, #cuda0>)
  }
  return %c : memref<4x16x8xf32, #cuda0>
}

// c = x[2:35, 5:75] @ b: the left operand is a strided window.
func.func @mm_window(%x: memref<40x80xf32, #cuda0>, %b: memref<70x45xf32, #cuda0>) -> memref<33x45xf32, #cuda0> {
  %a = gp.buffer.slice %x[2, 5] [33, 70] [1, 1] : memref<40x80xf32, #cuda0> to memref<33x70xf32, strided<[80, 1], offset: 165>, #cuda0>
  %c = gp.buffer.alloc() : memref<33x45xf32, #cuda0>
  gp.kernel "mm_window" ins(%a, %b : memref<33x70xf32, strided<[80, 1], offset: 165>, #cuda0>, memref<70x45xf32, #cuda0>) outs(%c : memref<33x45xf32, #cuda0>) {
  ^bb0(%p: memref<33x70xf32, strided<[80, 1], offset: 165>, #cuda0>, %y: memref<70x45xf32, #cuda0>, %out: memref<33x45xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<33x45xf32, #cuda0>)
    linalg.matmul ins(%p, %y : memref<33x70xf32, strided<[80, 1], offset: 165>, #cuda0>, memref<70x45xf32, #cuda0>) outs(%out : memref<33x45xf32, #cuda0>)
  }
  return %c : memref<33x45xf32, #cuda0>
}

// c = x[:, ::2] @ b: every other column, no unit stride, which cuBLAS
// cannot take: the kernel stays a kernel.
func.func @mm_every_other(%x: memref<33x140xf32, #cuda0>, %b: memref<70x45xf32, #cuda0>) -> memref<33x45xf32, #cuda0> {
  %a = gp.buffer.slice %x[0, 0] [33, 70] [1, 2] : memref<33x140xf32, #cuda0> to memref<33x70xf32, strided<[140, 2]>, #cuda0>
  %c = gp.buffer.alloc() : memref<33x45xf32, #cuda0>
  gp.kernel "mm_every_other" ins(%a, %b : memref<33x70xf32, strided<[140, 2]>, #cuda0>, memref<70x45xf32, #cuda0>) outs(%c : memref<33x45xf32, #cuda0>) {
  ^bb0(%p: memref<33x70xf32, strided<[140, 2]>, #cuda0>, %y: memref<70x45xf32, #cuda0>, %out: memref<33x45xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<33x45xf32, #cuda0>)
    linalg.matmul ins(%p, %y : memref<33x70xf32, strided<[140, 2]>, #cuda0>, memref<70x45xf32, #cuda0>) outs(%out : memref<33x45xf32, #cuda0>)
  }
  return %c : memref<33x45xf32, #cuda0>
}

// c = a @ b in bf16 throughout (on cuda, cuBLAS with bf16 operands).
func.func @mm_bf16(%a: memref<24x8xbf16, #cuda0>, %b: memref<8x40xbf16, #cuda0>) -> memref<24x40xbf16, #cuda0> {
  %c = gp.buffer.alloc() : memref<24x40xbf16, #cuda0>
  gp.kernel "mm_bf16" ins(%a, %b : memref<24x8xbf16, #cuda0>, memref<8x40xbf16, #cuda0>) outs(%c : memref<24x40xbf16, #cuda0>) {
  ^bb0(%x: memref<24x8xbf16, #cuda0>, %y: memref<8x40xbf16, #cuda0>, %out: memref<24x40xbf16, #cuda0>):
    %zero = arith.constant 0.0 : bf16
    linalg.fill ins(%zero : bf16) outs(%out : memref<24x40xbf16, #cuda0>)
    linalg.matmul ins(%x, %y : memref<24x8xbf16, #cuda0>, memref<8x40xbf16, #cuda0>) outs(%out : memref<24x40xbf16, #cuda0>)
  }
  return %c : memref<24x40xbf16, #cuda0>
}

// c = f32(f16(a) @ f16(b)): f16 operands and result, f32 accumulation.
func.func @mm_f16(%a: memref<33x70xf32, #cuda0>, %b: memref<70x45xf32, #cuda0>) -> memref<33x45xf32, #cuda0> {
  %a16 = gp.buffer.alloc() : memref<33x70xf16, #cuda0>
  %b16 = gp.buffer.alloc() : memref<70x45xf16, #cuda0>
  %c16 = gp.buffer.alloc() : memref<33x45xf16, #cuda0>
  %c = gp.buffer.alloc() : memref<33x45xf32, #cuda0>
  gp.kernel "to_f16_a" ins(%a : memref<33x70xf32, #cuda0>) outs(%a16 : memref<33x70xf16, #cuda0>) {
  ^bb0(%in: memref<33x70xf32, #cuda0>, %out: memref<33x70xf16, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<33x70xf32, #cuda0>) outs(%out : memref<33x70xf16, #cuda0>) {
    ^bb0(%v: f32, %o: f16):
      %t = arith.truncf %v : f32 to f16
      linalg.yield %t : f16
    }
  }
  gp.kernel "to_f16_b" ins(%b : memref<70x45xf32, #cuda0>) outs(%b16 : memref<70x45xf16, #cuda0>) {
  ^bb0(%in: memref<70x45xf32, #cuda0>, %out: memref<70x45xf16, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<70x45xf32, #cuda0>) outs(%out : memref<70x45xf16, #cuda0>) {
    ^bb0(%v: f32, %o: f16):
      %t = arith.truncf %v : f32 to f16
      linalg.yield %t : f16
    }
  }
  gp.kernel "mm16" ins(%a16, %b16 : memref<33x70xf16, #cuda0>, memref<70x45xf16, #cuda0>) outs(%c16 : memref<33x45xf16, #cuda0>) {
  ^bb0(%x: memref<33x70xf16, #cuda0>, %y: memref<70x45xf16, #cuda0>, %out: memref<33x45xf16, #cuda0>):
    %zero = arith.constant 0.0 : f16
    linalg.fill ins(%zero : f16) outs(%out : memref<33x45xf16, #cuda0>)
    linalg.matmul ins(%x, %y : memref<33x70xf16, #cuda0>, memref<70x45xf16, #cuda0>) outs(%out : memref<33x45xf16, #cuda0>)
  }
  gp.kernel "to_f32" ins(%c16 : memref<33x45xf16, #cuda0>) outs(%c : memref<33x45xf32, #cuda0>) {
  ^bb0(%in: memref<33x45xf16, #cuda0>, %out: memref<33x45xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<33x45xf16, #cuda0>) outs(%out : memref<33x45xf32, #cuda0>) {
    ^bb0(%v: f16, %o: f32):
      %t = arith.extf %v : f16 to f32
      linalg.yield %t : f32
    }
  }
  return %c : memref<33x45xf32, #cuda0>
}

// y = relu(x @ w + bias) * 0.5, one kernel per op: one cuBLAS call and, after
// fusion, one elementwise kernel.
func.func @linear_relu(%x: memref<8x256xf32, #cuda0>, %w: memref<256x128xf32, #cuda0>, %bias: memref<128xf32, #cuda0>) -> memref<8x128xf32, #cuda0> {
  %h = gp.buffer.alloc() : memref<8x128xf32, #cuda0>
  %r = gp.buffer.alloc() : memref<8x128xf32, #cuda0>
  %y = gp.buffer.alloc() : memref<8x128xf32, #cuda0>
  gp.kernel "matmul" ins(%x, %w : memref<8x256xf32, #cuda0>, memref<256x128xf32, #cuda0>) outs(%h : memref<8x128xf32, #cuda0>) {
  ^bb0(%a: memref<8x256xf32, #cuda0>, %b: memref<256x128xf32, #cuda0>, %out: memref<8x128xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<8x128xf32, #cuda0>)
    linalg.matmul ins(%a, %b : memref<8x256xf32, #cuda0>, memref<256x128xf32, #cuda0>) outs(%out : memref<8x128xf32, #cuda0>)
  }
  gp.kernel "bias_relu" ins(%h, %bias : memref<8x128xf32, #cuda0>, memref<128xf32, #cuda0>) outs(%r : memref<8x128xf32, #cuda0>) {
  ^bb0(%in: memref<8x128xf32, #cuda0>, %bv: memref<128xf32, #cuda0>, %out: memref<8x128xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%in, %bv : memref<8x128xf32, #cuda0>, memref<128xf32, #cuda0>) outs(%out : memref<8x128xf32, #cuda0>) {
    ^bb0(%v: f32, %bb: f32, %o: f32):
      %zero = arith.constant 0.0 : f32
      %s = arith.addf %v, %bb : f32
      %m = arith.maximumf %s, %zero : f32
      linalg.yield %m : f32
    }
  }
  gp.kernel "scale" ins(%r : memref<8x128xf32, #cuda0>) outs(%y : memref<8x128xf32, #cuda0>) {
  ^bb0(%in: memref<8x128xf32, #cuda0>, %out: memref<8x128xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%in : memref<8x128xf32, #cuda0>) outs(%out : memref<8x128xf32, #cuda0>) {
    ^bb0(%v: f32, %o: f32):
      %half = arith.constant 0.5 : f32
      %m = arith.mulf %v, %half : f32
      linalg.yield %m : f32
    }
  }
  return %y : memref<8x128xf32, #cuda0>
}

// A decode step's scores against its key cache, as bufferized PyTorch has
// it: the [1, 4, 8, 16] cache transposed into a temporary, reshaped to
// [4, 16, 8] for the batch matmul, whose zero fill is a kernel of its own.
// gp-fuse-kernels puts the transpose into the matmul, which then reads a
// rank-reducing slice of the cache: one cuBLAS call on cuda, no copy.
func.func @scores_from_cache(%q: memref<4x1x16xf32, #cuda0>, %cache: memref<1x4x8x16xf32, #cuda0>) -> memref<4x1x8xf32, #cuda0> {
  %kt = gp.buffer.alloc() : memref<1x4x16x8xf32, #cuda0>
  gp.kernel "transpose_cache" ins(%cache : memref<1x4x8x16xf32, #cuda0>) outs(%kt : memref<1x4x16x8xf32, #cuda0>) {
  ^bb0(%a: memref<1x4x8x16xf32, #cuda0>, %o: memref<1x4x16x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%a : memref<1x4x8x16xf32, #cuda0>) outs(%o : memref<1x4x16x8xf32, #cuda0>) {
    ^bb0(%e: f32, %unused: f32):
      linalg.yield %e : f32
    }
  }
  %kt3 = gp.buffer.reshape %kt() : memref<1x4x16x8xf32, #cuda0> to memref<4x16x8xf32, #cuda0>
  %s = gp.buffer.alloc() : memref<4x1x8xf32, #cuda0>
  gp.kernel "zero_scores" outs(%s : memref<4x1x8xf32, #cuda0>) {
  ^bb0(%out: memref<4x1x8xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<4x1x8xf32, #cuda0>)
  }
  gp.kernel "scores" ins(%q, %kt3 : memref<4x1x16xf32, #cuda0>, memref<4x16x8xf32, #cuda0>) outs(%s : memref<4x1x8xf32, #cuda0>) {
  ^bb0(%x: memref<4x1x16xf32, #cuda0>, %y: memref<4x16x8xf32, #cuda0>, %out: memref<4x1x8xf32, #cuda0>):
    linalg.batch_matmul ins(%x, %y : memref<4x1x16xf32, #cuda0>, memref<4x16x8xf32, #cuda0>) outs(%out : memref<4x1x8xf32, #cuda0>)
  }
  return %s : memref<4x1x8xf32, #cuda0>
}

// The values: the [1, 4, 8, 16] value cache copied and reshaped to
// [4, 8, 16] for p @ v; the copy goes into the matmul the same way.
func.func @values_from_cache(%p: memref<4x1x8xf32, #cuda0>, %cache: memref<1x4x8x16xf32, #cuda0>) -> memref<4x1x16xf32, #cuda0> {
  %v = gp.buffer.alloc() : memref<1x4x8x16xf32, #cuda0>
  gp.kernel "copy_cache" ins(%cache : memref<1x4x8x16xf32, #cuda0>) outs(%v : memref<1x4x8x16xf32, #cuda0>) {
  ^bb0(%a: memref<1x4x8x16xf32, #cuda0>, %o: memref<1x4x8x16xf32, #cuda0>):
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%a : memref<1x4x8x16xf32, #cuda0>) outs(%o : memref<1x4x8x16xf32, #cuda0>) {
    ^bb0(%e: f32, %unused: f32):
      linalg.yield %e : f32
    }
  }
  %v3 = gp.buffer.reshape %v() : memref<1x4x8x16xf32, #cuda0> to memref<4x8x16xf32, #cuda0>
  %o = gp.buffer.alloc() : memref<4x1x16xf32, #cuda0>
  gp.kernel "zero_weighted" outs(%o : memref<4x1x16xf32, #cuda0>) {
  ^bb0(%out: memref<4x1x16xf32, #cuda0>):
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<4x1x16xf32, #cuda0>)
  }
  gp.kernel "weighted" ins(%p, %v3 : memref<4x1x8xf32, #cuda0>, memref<4x8x16xf32, #cuda0>) outs(%o : memref<4x1x16xf32, #cuda0>) {
  ^bb0(%x: memref<4x1x8xf32, #cuda0>, %y: memref<4x8x16xf32, #cuda0>, %out: memref<4x1x16xf32, #cuda0>):
    linalg.batch_matmul ins(%x, %y : memref<4x1x8xf32, #cuda0>, memref<4x8x16xf32, #cuda0>) outs(%out : memref<4x1x16xf32, #cuda0>)
  }
  return %o : memref<4x1x16xf32, #cuda0>
}
