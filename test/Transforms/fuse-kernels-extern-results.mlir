// RUN: gp-opt %s -split-input-file --gp-fuse-kernels='rows=0 duplicate=0' | FileCheck %s
// RUN: gp-opt %s -split-input-file --gp-fuse-kernels='report rows=0 duplicate=0' -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPORT

// gp-fuse-kernels: attention returns [B, H, L, E] and the model copies it
// to [B, L, H, E]; the copy goes, and gp::attention_into writes the
// destination through the permuted view.

#cuda0 = #gp.device<cuda:0>
#read = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#write = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// CHECK-LABEL: func.func @heads_merged_back
// CHECK-SAME: (%[[Q:.+]]: memref<1x2x4x8xf32, #cuda0>)
// CHECK: %[[DST:.+]] = gp.buffer.alloc() : memref<1x4x2x8xf32, #cuda0>
// CHECK-NEXT: %[[VIEW:.+]] = gp.buffer.transpose %[[DST]] [0, 2, 1, 3] : memref<1x4x2x8xf32, #cuda0> to memref<1x2x4x8xf32, strided<[64, 8, 16, 1]>, #cuda0>
// CHECK-NEXT: gp.fallback "gp::attention_into"(%[[Q]], %[[Q]], %[[Q]], %{{.+}}, %{{.+}}, %{{.+}}, %[[VIEW]]) mutates [6]
// CHECK-NOT: gp.kernel
// CHECK: return %[[DST]]
// REPORT: gp-fuse-kernels: @heads_merged_back: 0 fusions, 0 buffers removed
// REPORT-NEXT: 1 copies folded into extern calls
func.func @heads_merged_back(%q: memref<1x2x4x8xf32, #cuda0>) -> memref<1x4x2x8xf32, #cuda0> {
  %scale = arith.constant 0.125 : f64
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %out = gp.fallback "gp::attention"(%q, %q, %q, %scale, %zero, %one) aliases [-] : (memref<1x2x4x8xf32, #cuda0>, memref<1x2x4x8xf32, #cuda0>, memref<1x2x4x8xf32, #cuda0>, f64, i64, i64) -> memref<1x2x4x8xf32, #cuda0>
  %dst = gp.buffer.alloc() : memref<1x4x2x8xf32, #cuda0>
  gp.kernel "merge_heads" ins(%out : memref<1x2x4x8xf32, #cuda0>) outs(%dst : memref<1x4x2x8xf32, #cuda0>) {
  ^bb0(%in: memref<1x2x4x8xf32, #cuda0>, %o: memref<1x4x2x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#read, #write], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%in : memref<1x2x4x8xf32, #cuda0>) outs(%o : memref<1x4x2x8xf32, #cuda0>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
  }
  gp.buffer.dealloc %out : memref<1x2x4x8xf32, #cuda0>
  return %dst : memref<1x4x2x8xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>
#read = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#write = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Left alone: the result also read elsewhere, a copy that computes (a
// negation is no permutation copy), and a write to memory between the
// call and the copy.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: gp.fallback "gp::attention"(
// CHECK-NOT: gp::attention_into
func.func @kept(%q: memref<1x2x4x8xf32, #cuda0>, %other: memref<1x4x2x8xf32, #cuda0>) -> (memref<1x2x4x8xf32, #cuda0>, memref<1x4x2x8xf32, #cuda0>, memref<1x4x2x8xf32, #cuda0>) {
  %scale = arith.constant 0.125 : f64
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %a = gp.fallback "gp::attention"(%q, %q, %q, %scale, %zero, %one) aliases [-] : (memref<1x2x4x8xf32, #cuda0>, memref<1x2x4x8xf32, #cuda0>, memref<1x2x4x8xf32, #cuda0>, f64, i64, i64) -> memref<1x2x4x8xf32, #cuda0>
  %da = gp.buffer.alloc() : memref<1x4x2x8xf32, #cuda0>
  gp.kernel "copy_a" ins(%a : memref<1x2x4x8xf32, #cuda0>) outs(%da : memref<1x4x2x8xf32, #cuda0>) {
  ^bb0(%in: memref<1x2x4x8xf32, #cuda0>, %o: memref<1x4x2x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#read, #write], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%in : memref<1x2x4x8xf32, #cuda0>) outs(%o : memref<1x4x2x8xf32, #cuda0>) {
    ^bb0(%x: f32, %y: f32):
      linalg.yield %x : f32
    }
  }
  %b = gp.fallback "gp::attention"(%q, %q, %q, %scale, %zero, %one) aliases [-] : (memref<1x2x4x8xf32, #cuda0>, memref<1x2x4x8xf32, #cuda0>, memref<1x2x4x8xf32, #cuda0>, f64, i64, i64) -> memref<1x2x4x8xf32, #cuda0>
  %db = gp.buffer.alloc() : memref<1x4x2x8xf32, #cuda0>
  gp.kernel "negate_b" ins(%b : memref<1x2x4x8xf32, #cuda0>) outs(%db : memref<1x4x2x8xf32, #cuda0>) {
  ^bb0(%in: memref<1x2x4x8xf32, #cuda0>, %o: memref<1x4x2x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#read, #write], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%in : memref<1x2x4x8xf32, #cuda0>) outs(%o : memref<1x4x2x8xf32, #cuda0>) {
    ^bb0(%x: f32, %y: f32):
      %n = arith.negf %x : f32
      linalg.yield %n : f32
    }
  }
  %c = gp.fallback "gp::attention"(%q, %q, %q, %scale, %zero, %one) aliases [-] : (memref<1x2x4x8xf32, #cuda0>, memref<1x2x4x8xf32, #cuda0>, memref<1x2x4x8xf32, #cuda0>, f64, i64, i64) -> memref<1x2x4x8xf32, #cuda0>
  gp.fallback "mylib::touch"(%other) mutates [0] : (memref<1x4x2x8xf32, #cuda0>) -> ()
  gp.kernel "copy_c" ins(%c : memref<1x2x4x8xf32, #cuda0>) outs(%other : memref<1x4x2x8xf32, #cuda0>) {
  ^bb0(%in: memref<1x2x4x8xf32, #cuda0>, %o: memref<1x4x2x8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#read, #write], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%in : memref<1x2x4x8xf32, #cuda0>) outs(%o : memref<1x4x2x8xf32, #cuda0>) {
    ^bb0(%x: f32, %y: f32):
      linalg.yield %x : f32
    }
  }
  return %a, %da, %db : memref<1x2x4x8xf32, #cuda0>, memref<1x4x2x8xf32, #cuda0>, memref<1x4x2x8xf32, #cuda0>
}

// -----

#cuda0 = #gp.device<cuda:0>

// An operand copied from a slice of memory nothing writes (GPT-2's mask, a
// slice of a buffer parameter): the call reads the slice. A copy of an
// argument the program also writes is kept.
// CHECK-LABEL: func.func @mask_slice
// CHECK-SAME: (%[[Q:.+]]: memref<1x2x4x8xf32, #cuda0>, %[[BIAS:.+]]: memref<16x16xi1, #cuda0>, %[[W:.+]]: memref<16x16xi1, #cuda0>)
// CHECK: %[[SLICE:.+]] = gp.buffer.slice %[[BIAS]]
// CHECK-NOT: gp.kernel "copy_mask"
// CHECK: gp.fallback "gp::attention"(%[[Q]], %[[Q]], %[[Q]], %[[SLICE]],
// CHECK: gp.kernel "copy_written"
// CHECK: gp.fallback "gp::attention"(%[[Q]], %[[Q]], %[[Q]], %{{.+}}, {{.*}}memref<4x4xi1, #cuda0>
// REPORT: gp-fuse-kernels: @mask_slice: 0 fusions, 0 buffers removed
// REPORT-NEXT: 1 copies folded into extern calls
func.func @mask_slice(%q: memref<1x2x4x8xf32, #cuda0>, %bias: memref<16x16xi1, #cuda0>, %w: memref<16x16xi1, #cuda0>) -> (memref<1x2x4x8xf32, #cuda0>, memref<1x2x4x8xf32, #cuda0>) {
  %scale = arith.constant 0.125 : f64
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %slice = gp.buffer.slice %bias [0, 0] [4, 4] [1, 1] : memref<16x16xi1, #cuda0> to memref<4x4xi1, strided<[16, 1]>, #cuda0>
  %mask = gp.buffer.alloc() : memref<4x4xi1, #cuda0>
  gp.kernel "copy_mask" ins(%slice : memref<4x4xi1, strided<[16, 1]>, #cuda0>) outs(%mask : memref<4x4xi1, #cuda0>) {
  ^bb0(%in: memref<4x4xi1, strided<[16, 1]>, #cuda0>, %o: memref<4x4xi1, #cuda0>):
    linalg.copy ins(%in : memref<4x4xi1, strided<[16, 1]>, #cuda0>) outs(%o : memref<4x4xi1, #cuda0>)
  }
  %a = gp.fallback "gp::attention"(%q, %q, %q, %mask, %scale, %zero, %one) aliases [-] : (memref<1x2x4x8xf32, #cuda0>, memref<1x2x4x8xf32, #cuda0>, memref<1x2x4x8xf32, #cuda0>, memref<4x4xi1, #cuda0>, f64, i64, i64) -> memref<1x2x4x8xf32, #cuda0>
  %wslice = gp.buffer.slice %w [0, 0] [4, 4] [1, 1] : memref<16x16xi1, #cuda0> to memref<4x4xi1, strided<[16, 1]>, #cuda0>
  %wmask = gp.buffer.alloc() : memref<4x4xi1, #cuda0>
  gp.kernel "copy_written" ins(%wslice : memref<4x4xi1, strided<[16, 1]>, #cuda0>) outs(%wmask : memref<4x4xi1, #cuda0>) {
  ^bb0(%in: memref<4x4xi1, strided<[16, 1]>, #cuda0>, %o: memref<4x4xi1, #cuda0>):
    linalg.copy ins(%in : memref<4x4xi1, strided<[16, 1]>, #cuda0>) outs(%o : memref<4x4xi1, #cuda0>)
  }
  %b = gp.fallback "gp::attention"(%q, %q, %q, %wmask, %scale, %zero, %one) aliases [-] : (memref<1x2x4x8xf32, #cuda0>, memref<1x2x4x8xf32, #cuda0>, memref<1x2x4x8xf32, #cuda0>, memref<4x4xi1, #cuda0>, f64, i64, i64) -> memref<1x2x4x8xf32, #cuda0>
  gp.fallback "mylib::flip"(%w) mutates [0] : (memref<16x16xi1, #cuda0>) -> ()
  return %a, %b : memref<1x2x4x8xf32, #cuda0>, memref<1x2x4x8xf32, #cuda0>
}
