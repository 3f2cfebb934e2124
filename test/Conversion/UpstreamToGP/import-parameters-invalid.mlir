// RUN: rm -rf %t && gp-opt %s --gp-import=weights-dir=%t --split-input-file -verify-diagnostics

// Parameters are read-only model state that the runtime binds to the
// caller's buffers without a copy: gp-import refuses a program that writes
// one, however it writes it. One case per way; then a weight whose name a
// parameter already has.

// A linalg op writing a parameter (its kernel's outs).
func.func @fill(%x: memref<4xf32>,
                // expected-note @+1 {{parameter "fc.weight" is argument 1}}
                %w: memref<4xf32> {gp.parameter = "fc.weight"}) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{gp-import: kernel 'fill_0' writes parameter "fc.weight" (argument 1 of @fill); parameters are read-only model state, bound to the caller's buffers without a copy: write to a new buffer instead}}
  linalg.fill ins(%zero : f32) outs(%w : memref<4xf32>)
  return
}

// -----

// A copy into a view of a parameter.
func.func @copy_into_view(%x: memref<2xf32>,
                          // expected-note @+1 {{parameter "emb" is argument 1}}
                          %w: memref<4xf32> {gp.parameter = "emb"}) {
  %half = memref.subview %w[2] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 2>>
  // expected-error @+1 {{gp-import: 'gp.copy' writes parameter "emb" (argument 1 of @copy_into_view)}}
  memref.copy %x, %half : memref<2xf32> to memref<2xf32, strided<[1], offset: 2>>
  return
}

// -----

// An element store.
func.func @store(%v: f32,
                 // expected-note @+1 {{parameter "w" is argument 1}}
                 %w: memref<4xf32> {gp.parameter = "w"}) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{gp-import: kernel 'store_0' writes parameter "w"}}
  memref.store %v, %w[%c0] : memref<4xf32>
  return
}

// -----

// An extern whose schema says it mutates the parameter.
func.func private @"mylib::scale_"(memref<4xf32>) attributes {gp.mutates = [0]}
func.func @extern_mutates(
    // expected-note @+1 {{parameter "w" is argument 0}}
    %w: memref<4xf32> {gp.parameter = "w"}) {
  // expected-error @+1 {{gp-import: call of 'mylib::scale_' writes parameter "w" (argument 0 of @extern_mutates)}}
  func.call @"mylib::scale_"(%w) : (memref<4xf32>) -> ()
  return
}

// -----

// A program already in gp is checked too.
#cuda0 = #gp.device<cuda:0>
func.func @gp_copy(%x: memref<4xf32, #cuda0>,
                   // expected-note @+1 {{parameter "w" is argument 1}}
                   %w: memref<4xf32, #cuda0> {gp.parameter = "w"}) {
  // expected-error @+1 {{gp-import: 'gp.copy' writes parameter "w"}}
  gp.copy %x, %w : memref<4xf32, #cuda0> to memref<4xf32, #cuda0>
  return
}

// -----

// A weight global named like a parameter the program already has: both
// would be bound to one name.
memref.global "private" constant @table : memref<1025xi8> = dense<"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FA000102030405060708090A0B0C0D0E0F1011121314">
func.func @clash(%ids: memref<1025xi8>,
                 // expected-note @+1 {{argument 1 is parameter "table"}}
                 %table: memref<1025xi8> {gp.parameter = "table"}) -> memref<1025xi8> {
  // expected-error @+1 {{gp-import: weight global @table would become parameter "table", but argument 1 of @clash is already parameter "table"}}
  %t = memref.get_global @table : memref<1025xi8>
  %y = memref.alloc() : memref<1025xi8>
  linalg.add ins(%ids, %t : memref<1025xi8>, memref<1025xi8>) outs(%y : memref<1025xi8>)
  return %y : memref<1025xi8>
}
