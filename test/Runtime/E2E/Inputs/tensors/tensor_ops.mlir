// Linalg-on-tensors programs as people write them by hand or as
// tensor-level frontends emit them (tensor-ops.test: gp-compile
// --bufferize for the host, checked against numpy by tensor_ops.cases.py).

// Elementwise arith and math directly on tensors (ElementwiseMappable ops,
// which gp-compile --bufferize turns into linalg.generic first): a compare
// giving an i1 tensor, a select, and dynamic sizes.
func.func @elementwise(%x: tensor<?x5xf32>, %y: tensor<?x5xf32>) -> (tensor<?x5xf32>, tensor<?x5xf32>) {
  %sum = arith.addf %x, %y : tensor<?x5xf32>
  %e = math.exp %sum : tensor<?x5xf32>
  %pos = arith.cmpf ogt, %x, %y : tensor<?x5xf32>
  %picked = arith.select %pos, %x, %e : tensor<?x5xi1>, tensor<?x5xf32>
  %t = math.tanh %picked : tensor<?x5xf32>
  return %e, %t : tensor<?x5xf32>, tensor<?x5xf32>
}

// Named structured ops: broadcast, map, transpose, reduce.
func.func @named(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>) {
  %e = tensor.empty() : tensor<2x3xf32>
  %b = linalg.broadcast ins(%y : tensor<3xf32>) outs(%e : tensor<2x3xf32>) dimensions = [0]
  %m = linalg.map { arith.mulf } ins(%x, %b : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>)
  %et = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%m : tensor<2x3xf32>) outs(%et : tensor<3x2xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%er : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.reduce { arith.addf } ins(%m : tensor<2x3xf32>) outs(%f : tensor<2xf32>) dimensions = [1]
  return %m, %t, %r : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>
}

// tensor.concat, tensor.pad and tensor.collapse_shape.
func.func @reshape_pad(%x: tensor<2x3xf32>, %y: tensor<2x2xf32>) -> (tensor<2x5xf32>, tensor<4x7xf32>, tensor<6xf32>) {
  %c = tensor.concat dim(1) %x, %y : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  %z = arith.constant -1.0 : f32
  %p = tensor.pad %c low[1, 2] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<2x5xf32> to tensor<4x7xf32>
  %f = tensor.collapse_shape %x [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  return %c, %p, %f : tensor<2x5xf32>, tensor<4x7xf32>, tensor<6xf32>
}

// A convolution and a max pooling in NHWC.
func.func @conv_pool(%x: tensor<1x6x6x2xf32>, %w: tensor<3x3x2x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x3x3x2xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x6x6x2xf32>, tensor<3x3x2x4xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %pe = tensor.empty() : tensor<1x3x3x2xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %win : tensor<1x6x6x2xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  return %c, %p : tensor<1x4x4x4xf32>, tensor<1x3x3x2xf32>
}
