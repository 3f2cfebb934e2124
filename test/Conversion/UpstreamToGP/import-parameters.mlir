// RUN: rm -rf %t && gp-opt %s --gp-import=weights-dir=%t --split-input-file | FileCheck %s
// RUN: cat %t/with_parameters.weights | FileCheck %s --check-prefix=LIST
// RUN: test -f %t/table.npy

// gp-import keeps a program's parameters: the arguments, their
// gp.parameter names and their places, reads of them (also through views)
// taken into kernels as ins.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.+]]: memref<4x8xf32, #cuda0>, %[[W:.+]]: memref<8x16xf32, #cuda0> {gp.parameter = "fc.weight"}, %[[B:.+]]: memref<16xf32, #cuda0> {gp.parameter = "fc.bias"}, %[[Y:.+]]: memref<4x16xf32, #cuda0>)
// CHECK: gp.kernel "matmul_{{[0-9]+}}" ins(%[[X]], %[[W]] : {{.*}}) outs(%[[Y]] :
// CHECK: %[[ROW:.+]] = gp.buffer.reshape %[[B]]()
// CHECK: %[[WIDE:.+]] = gp.buffer.reshape %[[ROW]]()
// CHECK: gp.kernel "generic_{{[0-9]+}}" ins(%[[WIDE]] : {{.*}}) outs(%[[Y]] :
func.func @linear(%x: memref<4x8xf32>,
                  %w: memref<8x16xf32> {gp.parameter = "fc.weight"},
                  %b: memref<16xf32> {gp.parameter = "fc.bias"},
                  %y: memref<4x16xf32>) {
  linalg.matmul ins(%x, %w : memref<4x8xf32>, memref<8x16xf32>) outs(%y : memref<4x16xf32>)
  %row = memref.expand_shape %b [[0, 1]] output_shape [1, 16] : memref<16xf32> into memref<1x16xf32>
  %wide = memref.collapse_shape %row [[0, 1]] : memref<1x16xf32> into memref<16xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%y, %wide : memref<4x16xf32>, memref<16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A weight gp-import takes out of a constant global becomes a parameter
// named after the global, after the program's own parameters.
// CHECK-LABEL: func.func @with_parameters
// CHECK-SAME: (%[[IDS:.+]]: memref<1025xi8, #cuda0>, %[[SCALE:.+]]: memref<1025xi8, #cuda0> {gp.parameter = "scale"}, %[[TABLE:.+]]: memref<1025xi8, #cuda0> {gp.parameter = "table"})
// CHECK: gp.kernel "add_{{[0-9]+}}" ins(%[[IDS]], %[[TABLE]] :
// CHECK: gp.kernel "add_{{[0-9]+}}" ins(%[[SCALE]] : {{.*}}) outs(%{{.+}} :
// LIST: table.npy
// LIST-EMPTY:
memref.global "private" constant @table : memref<1025xi8> = dense<"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F1011121314">
func.func @with_parameters(%ids: memref<1025xi8>, %scale: memref<1025xi8> {gp.parameter = "scale"}) -> memref<1025xi8> {
  %t = memref.get_global @table : memref<1025xi8>
  %y = memref.alloc() : memref<1025xi8>
  linalg.add ins(%ids, %t : memref<1025xi8>, memref<1025xi8>) outs(%y : memref<1025xi8>)
  linalg.add ins(%y, %scale : memref<1025xi8>, memref<1025xi8>) outs(%y : memref<1025xi8>)
  return %y : memref<1025xi8>
}
