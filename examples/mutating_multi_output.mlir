// Scenario (c): a custom op that mutates its input and returns two results.
//
//   @torch.library.custom_op("mylib::op1", mutates_args=["x"])
//   def op1(x):  x += 1; return (x + 1, x + 2)
//
//   t = x * 2
//   a, b = mylib::op1(t)       # mutates t; a and b are fresh buffers
//   return a + b, t
//
// The op is auto-functionalized: its results are fresh buffers, not views
// of the mutated operand, so each result is freed at its own last use and
// the mutation orders op1 after every earlier reader of t.

#cuda0 = #gp.device<cuda:0>
#id = affine_map<(d0) -> (d0)>

func.func @mutating_multi_output(%x: memref<8xf32, #cuda0>)
    -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>) {
  %t = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "mul_two" ins(%x : memref<8xf32, #cuda0>) outs(%t : memref<8xf32, #cuda0>) {
  ^bb0(%in: memref<8xf32, #cuda0>, %out: memref<8xf32, #cuda0>):
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%in : memref<8xf32, #cuda0>) outs(%out : memref<8xf32, #cuda0>) {
    ^bb0(%a: f32, %unused: f32):
      %two = arith.constant 2.0 : f32
      %r = arith.mulf %a, %two : f32
      linalg.yield %r : f32
    }
  }
  %a, %b = gp.fallback "mylib::op1"(%t) mutates [0] aliases [-, -]
      : (memref<8xf32, #cuda0>) -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>)
  %sum = gp.buffer.alloc() : memref<8xf32, #cuda0>
  gp.kernel "add" ins(%a, %b : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>)
                  outs(%sum : memref<8xf32, #cuda0>) {
  ^bb0(%l: memref<8xf32, #cuda0>, %r: memref<8xf32, #cuda0>, %out: memref<8xf32, #cuda0>):
    linalg.add ins(%l, %r : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>)
               outs(%out : memref<8xf32, #cuda0>)
  }
  return %sum, %t : memref<8xf32, #cuda0>, memref<8xf32, #cuda0>
}
