#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>

// relu(x @ w + b)
func.func @mlp(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// softmax over rows with named linalg.reduce, linalg.broadcast and linalg.map
func.func @softmax_rows(%x: tensor<6x10xf32>) -> tensor<6x10xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<6xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<6xf32>) -> tensor<6xf32>
  %max = linalg.reduce ins(%x : tensor<6x10xf32>) outs(%minit : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %e2 = tensor.empty() : tensor<6x10xf32>
  %maxb = linalg.broadcast ins(%max : tensor<6xf32>) outs(%e2 : tensor<6x10xf32>) dimensions = [1]
  %ex = linalg.map { math.exp } ins(%x : tensor<6x10xf32>) outs(%e2 : tensor<6x10xf32>)
  %shifted = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<6x10xf32>, tensor<6xf32>) outs(%e2 : tensor<6x10xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<6x10xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%e1 : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.reduce ins(%shifted : tensor<6x10xf32>) outs(%sinit : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %sumb = linalg.broadcast ins(%sum : tensor<6xf32>) outs(%e2 : tensor<6x10xf32>) dimensions = [1]
  %r = linalg.div ins(%shifted, %sumb : tensor<6x10xf32>, tensor<6x10xf32>) outs(%e2 : tensor<6x10xf32>) -> tensor<6x10xf32>
  return %r : tensor<6x10xf32>
}

// x^T + v (broadcast over rows)
func.func @transpose_add(%x: tensor<3x5xf32>, %v: tensor<3xf32>) -> tensor<5x3xf32> {
  %e = tensor.empty() : tensor<5x3xf32>
  %t = linalg.transpose ins(%x : tensor<3x5xf32>) outs(%e : tensor<5x3xf32>) permutation = [1, 0]
  %vb = linalg.broadcast ins(%v : tensor<3xf32>) outs(%e : tensor<5x3xf32>) dimensions = [0]
  %r = linalg.add ins(%t, %vb : tensor<5x3xf32>, tensor<5x3xf32>) outs(%e : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}

// 2 * x on a dynamic number of rows
func.func @dynamic_scale(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// (x[1, :] + 1, x[:, 0:3] flattened then expanded back, x[2, 4])
func.func @slices(%x: tensor<4x6xf32>) -> (tensor<6xf32>, tensor<3x4xf32>) {
  %one = arith.constant 1.0 : f32
  %row = tensor.extract_slice %x[1, 0] [1, 6] [1, 1] : tensor<4x6xf32> to tensor<6xf32>
  %e = tensor.empty() : tensor<6xf32>
  %r = linalg.map { arith.addf } ins(%row, %row : tensor<6xf32>, tensor<6xf32>) outs(%e : tensor<6xf32>)
  %cols = tensor.extract_slice %x[0, 0] [4, 3] [1, 1] : tensor<4x6xf32> to tensor<4x3xf32>
  %et = tensor.empty() : tensor<3x4xf32>
  %t = linalg.transpose ins(%cols : tensor<4x3xf32>) outs(%et : tensor<3x4xf32>) permutation = [1, 0]
  %flat = tensor.collapse_shape %t [[0, 1]] : tensor<3x4xf32> into tensor<12xf32>
  %e12 = tensor.empty() : tensor<12xf32>
  %neg = linalg.map { arith.negf } ins(%flat : tensor<12xf32>) outs(%e12 : tensor<12xf32>)
  %back = tensor.expand_shape %neg [[0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
  return %r, %back : tensor<6xf32>, tensor<3x4xf32>
}

// x * s[0]: the scale is read on the host (.item())
func.func @item_scale(%x: tensor<8xf32>, %s: tensor<2xf32>) -> tensor<8xf32> {
  %c1 = arith.constant 1 : index
  %scale = tensor.extract %s[%c1] : tensor<2xf32>
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %scale : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// y = copy of x with y[3] = 2 * x[0] + x[1]
func.func @store_scalar(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %two = arith.constant 2.0 : f32
  %a = tensor.extract %x[%c0] : tensor<4xf32>
  %b = tensor.extract %x[%c1] : tensor<4xf32>
  %m = arith.mulf %a, %two : f32
  %v = arith.addf %m, %b : f32
  %y = tensor.insert %v into %x[%c3] : tensor<4xf32>
  return %y : tensor<4xf32>
}

// x + [[1, 2, 3], [4, 5, 6]] + 0.5
func.func @constants(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %k = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %h = arith.constant dense<0.5> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %s = linalg.add ins(%x, %k : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = linalg.add ins(%s, %h : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -x flattened, on a dynamic number of rows (the flat size is host math)
func.func @flatten_dynamic(%x: tensor<?x4xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  %n = tensor.dim %flat, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %neg = linalg.map { arith.negf } ins(%flat : tensor<?xf32>) outs(%e : tensor<?xf32>)
  return %neg : tensor<?xf32>
}
