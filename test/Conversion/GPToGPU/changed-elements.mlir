// RUN: gp-opt %s -split-input-file --convert-gp-to-gpu | FileCheck %s

// A scatter at a position held on the device (a key/value cache's
// index_copy_): the kernel stores only where the row matches and never
// loads the cache's old values; every store being guarded by row ==
// position, it walks only the written row: one block, whose 64 threads
// each load the position, check it is a row, and store their column.
// CHECK-LABEL: func.func @cache_update
// CHECK: gpu.launch_func {{ *}}@gp_kernels::@write_row blocks in (%c1, %c1, %c1)
// CHECK: gpu.func @write_row(%[[POS:[^:]+]]: memref<1xi64>, %[[SRC:[^:]+]]: memref<1x64xf32>, %[[CACHE:[^:]+]]: memref<512x64xf32>)
// CHECK-NOT: memref.load %[[CACHE]]
// CHECK: %[[AT:.+]] = memref.load %[[POS]]
// CHECK-NEXT: %[[ROW:.+]] = arith.index_cast %[[AT]]
// CHECK: %[[IN:.+]] = arith.andi
// CHECK-NOT: arith.select
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: %[[VALUE:.+]] = memref.load %[[SRC]]
// CHECK-NEXT: memref.store %[[VALUE]], %[[CACHE]][%[[ROW]],
// CHECK-NEXT: }
// CHECK-NOT: memref.load %[[CACHE]]
// CHECK: gpu.return

#cuda0 = #gp.device<cuda:0>
#rows = affine_map<(d0, d1) -> (d0, d1)>
#pos = affine_map<(d0, d1) -> (0)>
#src = affine_map<(d0, d1) -> (0, d1)>
func.func @cache_update(%pos: memref<1xi64, #cuda0>, %src: memref<1x64xf32, #cuda0>, %cache: memref<512x64xf32, #cuda0>) {
  gp.kernel "write_row" ins(%pos, %src : memref<1xi64, #cuda0>, memref<1x64xf32, #cuda0>) outs(%cache : memref<512x64xf32, #cuda0>) {
  ^bb0(%p: memref<1xi64, #cuda0>, %s: memref<1x64xf32, #cuda0>, %out: memref<512x64xf32, #cuda0>):
    linalg.generic {indexing_maps = [#pos, #src, #rows], iterator_types = ["parallel", "parallel"]}
        ins(%p, %s : memref<1xi64, #cuda0>, memref<1x64xf32, #cuda0>) outs(%out : memref<512x64xf32, #cuda0>) {
    ^bb0(%at: i64, %v: f32, %o: f32):
      %row = linalg.index 0 : index
      %at_index = arith.index_cast %at : i64 to index
      %hit = arith.cmpi eq, %row, %at_index : index
      %r = arith.select %hit, %v, %o : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// The old value kept where the condition holds (masked_fill's `keep`
// form): stored where it does not.
// CHECK-LABEL: func.func @keep_where_true
// CHECK: gpu.func @fill_masked(%[[MASK:[^:]+]]: memref<1024xi1>, %[[OUT:[^:]+]]: memref<1024xf32>)
// CHECK-NOT: memref.load %[[OUT]]
// CHECK: %[[KEEP:.+]] = memref.load %[[MASK]]
// CHECK: %[[CHANGE:.+]] = arith.xori %[[KEEP]], %true : i1
// CHECK: scf.if %[[CHANGE]] {
// CHECK-NEXT: memref.store %{{.+}}, %[[OUT]]
// CHECK-NOT: memref.load %[[OUT]]
// CHECK: gpu.return

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>
func.func @keep_where_true(%mask: memref<1024xi1, #cuda0>, %y: memref<1024xf32, #cuda0>) {
  gp.kernel "fill_masked" ins(%mask : memref<1024xi1, #cuda0>) outs(%y : memref<1024xf32, #cuda0>) {
  ^bb0(%m: memref<1024xi1, #cuda0>, %out: memref<1024xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%m : memref<1024xi1, #cuda0>) outs(%out : memref<1024xf32, #cuda0>) {
    ^bb0(%keep: i1, %o: f32):
      %zero = arith.constant 0.0 : f32
      %r = arith.select %keep, %o, %zero : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// A select between two inputs, or one that keeps another element's value,
// is stored as it is, unconditionally.
// CHECK-LABEL: func.func @other_selects
// CHECK: gpu.func @pick
// CHECK: %[[PICKED:.+]] = arith.select
// CHECK-NEXT: memref.store %[[PICKED]]
// CHECK: gpu.func @shifted
// CHECK: %[[SHIFTED:.+]] = arith.select
// CHECK-NEXT: memref.store %[[SHIFTED]]

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>
#rev = affine_map<(d0) -> (1023 - d0)>
func.func @other_selects(%mask: memref<1024xi1, #cuda0>, %a: memref<1024xf32, #cuda0>, %b: memref<1024xf32, #cuda0>, %y: memref<1024xf32, #cuda0>, %z: memref<1024xf32, #cuda0>) {
  gp.kernel "pick" ins(%mask, %a, %b : memref<1024xi1, #cuda0>, memref<1024xf32, #cuda0>, memref<1024xf32, #cuda0>) outs(%y : memref<1024xf32, #cuda0>) {
  ^bb0(%m: memref<1024xi1, #cuda0>, %x0: memref<1024xf32, #cuda0>, %x1: memref<1024xf32, #cuda0>, %out: memref<1024xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
        ins(%m, %x0, %x1 : memref<1024xi1, #cuda0>, memref<1024xf32, #cuda0>, memref<1024xf32, #cuda0>) outs(%out : memref<1024xf32, #cuda0>) {
    ^bb0(%c: i1, %u: f32, %v: f32, %o: f32):
      %r = arith.select %c, %u, %v : f32
      linalg.yield %r : f32
    }
  }
  // z[i] = mask[i] ? a[i] : y[1023 - i]: y is another buffer here, read at
  // another element, so the store stays.
  gp.kernel "shifted" ins(%mask, %a, %y : memref<1024xi1, #cuda0>, memref<1024xf32, #cuda0>, memref<1024xf32, #cuda0>) outs(%z : memref<1024xf32, #cuda0>) {
  ^bb0(%m: memref<1024xi1, #cuda0>, %x0: memref<1024xf32, #cuda0>, %x1: memref<1024xf32, #cuda0>, %out: memref<1024xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id, #rev, #id], iterator_types = ["parallel"]}
        ins(%m, %x0, %x1 : memref<1024xi1, #cuda0>, memref<1024xf32, #cuda0>, memref<1024xf32, #cuda0>) outs(%out : memref<1024xf32, #cuda0>) {
    ^bb0(%c: i1, %u: f32, %v: f32, %o: f32):
      %r = arith.select %c, %u, %v : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// The key and value caches of a decode step, updated by one kernel
// (gp-fuse-kernels siblings): its outputs share storage with none of its
// other operands, so the store into the first does not keep the second
// from storing only its row, and both rows are all the kernel walks
// (12 heads x 64 columns: 3 blocks).
// CHECK-LABEL: func.func @key_and_value
// CHECK: gpu.launch_func {{ *}}@gp_kernels::@update_kv blocks in (%c3, %c1, %c1)
// CHECK: gpu.func @update_kv(%[[POS:[^:]+]]: memref<1xi64>, %[[NEW:[^:]+]]: memref<1x1536xf32>, %[[K:[^:]+]]: memref<12x512x64xf32>, %[[V:[^:]+]]: memref<12x512x64xf32>)
// CHECK-NOT: memref.load %[[K]]
// CHECK-NOT: memref.load %[[V]]
// CHECK: %[[AT:.+]] = memref.load %[[POS]]
// CHECK: scf.if
// CHECK: memref.store %{{.+}}, %[[K]]
// CHECK-NEXT: memref.store %{{.+}}, %[[V]]
// CHECK: gpu.return
#cuda0 = #gp.device<cuda:0>
#pos = affine_map<(d0, d1, d2) -> (0)>
#key = affine_map<(d0, d1, d2) -> (0, d0 * 64 + d2)>
#value = affine_map<(d0, d1, d2) -> (0, d0 * 64 + d2 + 768)>
#cache = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @key_and_value(%pos: memref<1xi64, #cuda0>, %new: memref<1x1536xf32, #cuda0>, %k: memref<12x512x64xf32, #cuda0>, %v: memref<12x512x64xf32, #cuda0>) {
  gp.kernel "update_kv" ins(%pos, %new : memref<1xi64, #cuda0>, memref<1x1536xf32, #cuda0>) outs(%k, %v : memref<12x512x64xf32, #cuda0>, memref<12x512x64xf32, #cuda0>) {
  ^bb0(%p: memref<1xi64, #cuda0>, %n: memref<1x1536xf32, #cuda0>, %ko: memref<12x512x64xf32, #cuda0>, %vo: memref<12x512x64xf32, #cuda0>):
    linalg.generic {indexing_maps = [#pos, #key, #pos, #value, #cache, #cache], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%p, %n, %p, %n : memref<1xi64, #cuda0>, memref<1x1536xf32, #cuda0>, memref<1xi64, #cuda0>, memref<1x1536xf32, #cuda0>) outs(%ko, %vo : memref<12x512x64xf32, #cuda0>, memref<12x512x64xf32, #cuda0>) {
    ^bb0(%at: i64, %kn: f32, %at2: i64, %vn: f32, %kold: f32, %vold: f32):
      %row = linalg.index 1 : index
      %a = arith.index_cast %at : i64 to index
      %hit = arith.cmpi eq, %a, %row : index
      %kr = arith.select %hit, %kn, %kold : f32
      %row2 = linalg.index 1 : index
      %a2 = arith.index_cast %at2 : i64 to index
      %hit2 = arith.cmpi eq, %a2, %row2 : index
      %vr = arith.select %hit2, %vn, %vold : f32
      linalg.yield %kr, %vr : f32, f32
    }
  }
  return
}

// -----

// The same kernel writing two views of one buffer: the first store may
// write what the second loaded, so the second stays a store of the select
// (and the kernel walks the whole cache).
// CHECK-LABEL: func.func @one_buffer
// CHECK: gpu.launch_func {{ *}}@gp_kernels::@update_halves blocks in (%c1536, %c1, %c1)
// CHECK: gpu.func @update_halves(
// CHECK: arith.select
// CHECK: gpu.return
#cuda0 = #gp.device<cuda:0>
#pos = affine_map<(d0, d1, d2) -> (0)>
#key = affine_map<(d0, d1, d2) -> (0, d0 * 64 + d2)>
#value = affine_map<(d0, d1, d2) -> (0, d0 * 64 + d2 + 768)>
#cache = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @one_buffer(%pos: memref<1xi64, #cuda0>, %new: memref<1x1536xf32, #cuda0>, %both: memref<24x512x64xf32, #cuda0>) {
  %k = gp.buffer.slice %both [0, 0, 0] [12, 512, 64] [1, 1, 1] : memref<24x512x64xf32, #cuda0> to memref<12x512x64xf32, strided<[32768, 64, 1]>, #cuda0>
  %v = gp.buffer.slice %both [12, 0, 0] [12, 512, 64] [1, 1, 1] : memref<24x512x64xf32, #cuda0> to memref<12x512x64xf32, strided<[32768, 64, 1], offset: 393216>, #cuda0>
  gp.kernel "update_halves" ins(%pos, %new : memref<1xi64, #cuda0>, memref<1x1536xf32, #cuda0>) outs(%k, %v : memref<12x512x64xf32, strided<[32768, 64, 1]>, #cuda0>, memref<12x512x64xf32, strided<[32768, 64, 1], offset: 393216>, #cuda0>) {
  ^bb0(%p: memref<1xi64, #cuda0>, %n: memref<1x1536xf32, #cuda0>, %ko: memref<12x512x64xf32, strided<[32768, 64, 1]>, #cuda0>, %vo: memref<12x512x64xf32, strided<[32768, 64, 1], offset: 393216>, #cuda0>):
    linalg.generic {indexing_maps = [#pos, #key, #pos, #value, #cache, #cache], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%p, %n, %p, %n : memref<1xi64, #cuda0>, memref<1x1536xf32, #cuda0>, memref<1xi64, #cuda0>, memref<1x1536xf32, #cuda0>) outs(%ko, %vo : memref<12x512x64xf32, strided<[32768, 64, 1]>, #cuda0>, memref<12x512x64xf32, strided<[32768, 64, 1], offset: 393216>, #cuda0>) {
    ^bb0(%at: i64, %kn: f32, %at2: i64, %vn: f32, %kold: f32, %vold: f32):
      %row = linalg.index 1 : index
      %a = arith.index_cast %at : i64 to index
      %hit = arith.cmpi eq, %a, %row : index
      %kr = arith.select %hit, %kn, %kold : f32
      %row2 = linalg.index 1 : index
      %a2 = arith.index_cast %at2 : i64 to index
      %hit2 = arith.cmpi eq, %a2, %row2 : index
      %vr = arith.select %hit2, %vn, %vold : f32
      linalg.yield %kr, %vr : f32, f32
    }
  }
  return
}
