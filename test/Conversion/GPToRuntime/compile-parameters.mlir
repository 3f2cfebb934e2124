// RUN: gp-compile %s --bufferize --target host -o %t.so
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); i = d.index(b'graphpart-artifact'); print(d[i:d.index(b'\0', i)].decode())" %t.so | FileCheck %s

// End to end: a linalg-on-tensors program with parameters, through
// gp-compile --bufferize to a host artifact whose manifest names the
// parameters in argument order. @overwrite uses its parameter as an op's
// destination: gp-compile bufferizes it into a copy, never into the
// parameter, so it compiles.

// CHECK: graphpart-artifact 2
// CHECK: entry forward 3 1
// CHECK-NEXT: arg memref f32 2 4 8 cuda:0{{$}}
// CHECK-NEXT: arg memref f32 2 8 16 cuda:0 parameter fc.weight{{$}}
// CHECK-NEXT: arg memref f32 1 16 cuda:0 parameter fc.bias{{$}}
// CHECK-NEXT: result memref f32 2 4 16 cuda:0{{$}}
// CHECK-NEXT: entry overwrite 2 1
// CHECK-NEXT: arg memref f32 1 4 cuda:0{{$}}
// CHECK-NEXT: arg memref f32 1 4 cuda:0 parameter h.0.ln_1.weight{{$}}
// CHECK-NEXT: result memref f32 1 4 cuda:0{{$}}

func.func @forward(%x: tensor<4x8xf32>,
                   %w: tensor<8x16xf32> {gp.parameter = "fc.weight"},
                   %b: tensor<16xf32> {gp.parameter = "fc.bias"}) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<4x16xf32>, tensor<16xf32>) outs(%empty : tensor<4x16xf32>) {
  ^bb0(%m: f32, %c: f32, %o: f32):
    %s = arith.addf %m, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %out : tensor<4x16xf32>
}

func.func @overwrite(%x: tensor<4xf32>,
                     %w: tensor<4xf32> {gp.parameter = "h.0.ln_1.weight"}) -> tensor<4xf32> {
  %r = linalg.mul ins(%x, %w : tensor<4xf32>, tensor<4xf32>) outs(%w : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
