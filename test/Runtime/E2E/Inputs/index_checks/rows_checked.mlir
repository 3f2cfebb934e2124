// Rows of a table picked by ids, with the index check graphpart.convert
// emits for an embedding: a reduction over the ids writes check 1 into the
// index-error flag (a mutable parameter the runtime binds itself) when an
// id is outside [0, 16); the rows are read at clamped ids.
func.func @rows(%ids: tensor<4xi64>, %table: tensor<16x8xf32>,
                %flag: tensor<1xi64> {gp.mutable, gp.parameter = "graphpart.index_errors"})
    -> (tensor<4x8xf32>, tensor<1xi64> {gp.writes_parameter = "graphpart.index_errors"})
    attributes {gp.index_checks = ["aten::embedding (node 'embedding'): an index outside [0, 16)"]} {
  %checked = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (0)>], iterator_types = ["reduction"]}
      ins(%ids : tensor<4xi64>) outs(%flag : tensor<1xi64>) {
  ^bb0(%id: i64, %o: i64):
    %lo = arith.constant 0 : i64
    %hi = arith.constant 16 : i64
    %below = arith.cmpi slt, %id, %lo : i64
    %above = arith.cmpi sge, %id, %hi : i64
    %bad = arith.ori %below, %above : i1
    %code = arith.constant 1 : i64
    %zero = arith.constant 0 : i64
    %failed = arith.select %bad, %code, %zero : i64
    %r = arith.maxsi %o, %failed : i64
    linalg.yield %r : i64
  } -> tensor<1xi64>
  %empty = tensor.empty() : tensor<4x8xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%id: i64, %o: f32):
    %raw = arith.index_cast %id : i64 to index
    %zero = arith.constant 0 : index
    %last = arith.constant 15 : index
    %low = arith.maxsi %raw, %zero : index
    %row = arith.minsi %low, %last : index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<16x8xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %rows, %checked : tensor<4x8xf32>, tensor<1xi64>
}
