// Small float types in kernels, checked against numpy by
// test/Runtime/E2E/reference_check.py (floats.test, floats-cuda.test;
// references in floats.cases.py): f32 inputs are rounded into bf16, f16,
// f8E4M3FN and f8E5M2 buffers by one kernel and read back by another
// (storage and conversions: rounding to nearest even, subnormals,
// overflow), computed on in those types (arithmetic and math through f32),
// and classified after overflow (finite, infinite, NaN).
#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

// Each input rounded to each type and back to f32, through buffers.
func.func @round_trip(%x: memref<64xf32, #cuda0>)
    -> (memref<64xf32, #cuda0>, memref<64xf32, #cuda0>, memref<64xf32, #cuda0>, memref<64xf32, #cuda0>) {
  %bf = gp.buffer.alloc() : memref<64xbf16, #cuda0>
  %h = gp.buffer.alloc() : memref<64xf16, #cuda0>
  %e4 = gp.buffer.alloc() : memref<64xf8E4M3FN, #cuda0>
  %e5 = gp.buffer.alloc() : memref<64xf8E5M2, #cuda0>
  gp.kernel "narrow" ins(%x : memref<64xf32, #cuda0>)
      outs(%bf, %h, %e4, %e5 : memref<64xbf16, #cuda0>, memref<64xf16, #cuda0>, memref<64xf8E4M3FN, #cuda0>, memref<64xf8E5M2, #cuda0>) {
  ^bb0(%in: memref<64xf32, #cuda0>, %o0: memref<64xbf16, #cuda0>, %o1: memref<64xf16, #cuda0>, %o2: memref<64xf8E4M3FN, #cuda0>, %o3: memref<64xf8E5M2, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<64xf32, #cuda0>)
        outs(%o0, %o1, %o2, %o3 : memref<64xbf16, #cuda0>, memref<64xf16, #cuda0>, memref<64xf8E4M3FN, #cuda0>, memref<64xf8E5M2, #cuda0>) {
    ^bb0(%v: f32, %u0: bf16, %u1: f16, %u2: f8E4M3FN, %u3: f8E5M2):
      %r0 = arith.truncf %v : f32 to bf16
      %r1 = arith.truncf %v : f32 to f16
      %r2 = arith.truncf %v : f32 to f8E4M3FN
      %r3 = arith.truncf %v : f32 to f8E5M2
      linalg.yield %r0, %r1, %r2, %r3 : bf16, f16, f8E4M3FN, f8E5M2
    }
  }
  %y0 = gp.buffer.alloc() : memref<64xf32, #cuda0>
  %y1 = gp.buffer.alloc() : memref<64xf32, #cuda0>
  %y2 = gp.buffer.alloc() : memref<64xf32, #cuda0>
  %y3 = gp.buffer.alloc() : memref<64xf32, #cuda0>
  gp.kernel "widen" ins(%bf, %h, %e4, %e5 : memref<64xbf16, #cuda0>, memref<64xf16, #cuda0>, memref<64xf8E4M3FN, #cuda0>, memref<64xf8E5M2, #cuda0>)
      outs(%y0, %y1, %y2, %y3 : memref<64xf32, #cuda0>, memref<64xf32, #cuda0>, memref<64xf32, #cuda0>, memref<64xf32, #cuda0>) {
  ^bb0(%i0: memref<64xbf16, #cuda0>, %i1: memref<64xf16, #cuda0>, %i2: memref<64xf8E4M3FN, #cuda0>, %i3: memref<64xf8E5M2, #cuda0>,
       %o0: memref<64xf32, #cuda0>, %o1: memref<64xf32, #cuda0>, %o2: memref<64xf32, #cuda0>, %o3: memref<64xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]}
        ins(%i0, %i1, %i2, %i3 : memref<64xbf16, #cuda0>, memref<64xf16, #cuda0>, memref<64xf8E4M3FN, #cuda0>, memref<64xf8E5M2, #cuda0>)
        outs(%o0, %o1, %o2, %o3 : memref<64xf32, #cuda0>, memref<64xf32, #cuda0>, memref<64xf32, #cuda0>, memref<64xf32, #cuda0>) {
    ^bb0(%a: bf16, %b: f16, %c: f8E4M3FN, %d: f8E5M2, %u0: f32, %u1: f32, %u2: f32, %u3: f32):
      %r0 = arith.extf %a : bf16 to f32
      %r1 = arith.extf %b : f16 to f32
      %r2 = arith.extf %c : f8E4M3FN to f32
      %r3 = arith.extf %d : f8E5M2 to f32
      linalg.yield %r0, %r1, %r2, %r3 : f32, f32, f32, f32
    }
  }
  return %y0, %y1, %y2, %y3 : memref<64xf32, #cuda0>, memref<64xf32, #cuda0>, memref<64xf32, #cuda0>, memref<64xf32, #cuda0>
}

// Arithmetic in f8E4M3FN (a * b + a, each op rounded), exp in bf16 and
// f16, and an f8 constant.
func.func @arith(%a: memref<32xf32, #cuda0>, %b: memref<32xf32, #cuda0>)
    -> (memref<32xf32, #cuda0>, memref<32xf32, #cuda0>, memref<32xf32, #cuda0>) {
  %y0 = gp.buffer.alloc() : memref<32xf32, #cuda0>
  %y1 = gp.buffer.alloc() : memref<32xf32, #cuda0>
  %y2 = gp.buffer.alloc() : memref<32xf32, #cuda0>
  gp.kernel "small_math" ins(%a, %b : memref<32xf32, #cuda0>, memref<32xf32, #cuda0>)
      outs(%y0, %y1, %y2 : memref<32xf32, #cuda0>, memref<32xf32, #cuda0>, memref<32xf32, #cuda0>) {
  ^bb0(%x: memref<32xf32, #cuda0>, %z: memref<32xf32, #cuda0>, %o0: memref<32xf32, #cuda0>, %o1: memref<32xf32, #cuda0>, %o2: memref<32xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel"]}
        ins(%x, %z : memref<32xf32, #cuda0>, memref<32xf32, #cuda0>)
        outs(%o0, %o1, %o2 : memref<32xf32, #cuda0>, memref<32xf32, #cuda0>, memref<32xf32, #cuda0>) {
    ^bb0(%p: f32, %q: f32, %u0: f32, %u1: f32, %u2: f32):
      %p8 = arith.truncf %p : f32 to f8E4M3FN
      %q8 = arith.truncf %q : f32 to f8E4M3FN
      %half = arith.constant 0.5 : f8E4M3FN
      %m = arith.mulf %p8, %q8 : f8E4M3FN
      %s = arith.addf %m, %p8 : f8E4M3FN
      %t = arith.mulf %s, %half : f8E4M3FN
      %r0 = arith.extf %t : f8E4M3FN to f32
      %pb = arith.truncf %p : f32 to bf16
      %eb = math.exp %pb : bf16
      %r1 = arith.extf %eb : bf16 to f32
      %ph = arith.truncf %p : f32 to f16
      %eh = math.exp %ph : f16
      %r2 = arith.extf %eh : f16 to f32
      linalg.yield %r0, %r1, %r2 : f32, f32, f32
    }
  }
  return %y0, %y1, %y2 : memref<32xf32, #cuda0>, memref<32xf32, #cuda0>, memref<32xf32, #cuda0>
}

// What overflow and NaN inputs become: 0 finite, 1 infinite, 2 NaN, for
// f8E4M3FN (no infinities) and f8E5M2.
func.func @classify(%x: memref<16xf32, #cuda0>) -> (memref<16xf32, #cuda0>, memref<16xf32, #cuda0>) {
  %y0 = gp.buffer.alloc() : memref<16xf32, #cuda0>
  %y1 = gp.buffer.alloc() : memref<16xf32, #cuda0>
  gp.kernel "classify" ins(%x : memref<16xf32, #cuda0>) outs(%y0, %y1 : memref<16xf32, #cuda0>, memref<16xf32, #cuda0>) {
  ^bb0(%in: memref<16xf32, #cuda0>, %o0: memref<16xf32, #cuda0>, %o1: memref<16xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<16xf32, #cuda0>) outs(%o0, %o1 : memref<16xf32, #cuda0>, memref<16xf32, #cuda0>) {
    ^bb0(%v: f32, %u0: f32, %u1: f32):
      %zero = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %two = arith.constant 2.0 : f32
      %inf = arith.constant 0x7F800000 : f32
      %e4 = arith.truncf %v : f32 to f8E4M3FN
      %w4 = arith.extf %e4 : f8E4M3FN to f32
      %e5 = arith.truncf %v : f32 to f8E5M2
      %w5 = arith.extf %e5 : f8E5M2 to f32
      %a4 = math.absf %w4 : f32
      %n4 = arith.cmpf uno, %w4, %w4 : f32
      %i4 = arith.cmpf oeq, %a4, %inf : f32
      %c4 = arith.select %i4, %one, %zero : f32
      %k4 = arith.select %n4, %two, %c4 : f32
      %a5 = math.absf %w5 : f32
      %n5 = arith.cmpf uno, %w5, %w5 : f32
      %i5 = arith.cmpf oeq, %a5, %inf : f32
      %c5 = arith.select %i5, %one, %zero : f32
      %k5 = arith.select %n5, %two, %c5 : f32
      linalg.yield %k4, %k5 : f32, f32
    }
  }
  return %y0, %y1 : memref<16xf32, #cuda0>, memref<16xf32, #cuda0>
}
