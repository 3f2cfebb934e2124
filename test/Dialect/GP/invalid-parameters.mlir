// RUN: gp-opt %s -split-input-file -verify-diagnostics

// The dialect's checks of `gp.parameter`, the argument attribute that
// makes a function argument a named model parameter: one case per error.

// A parameter is an argument, not an op's attribute.
func.func @on_op() -> index {
  // expected-error @+1 {{'gp.parameter' belongs on a function argument (an argument attribute of a func.func), not on an operation}}
  %c = arith.constant {gp.parameter = "w"} 1 : index
  return %c : index
}

// -----

// Nor a function's attribute.
// expected-error @+1 {{'gp.parameter' belongs on a function argument}}
func.func @on_function() attributes {gp.parameter = "w"} {
  return
}

// -----

// Index arguments are sizes, not parameters.
// expected-error @+1 {{'gp.parameter' "n" belongs on a buffer (memref) or ranked tensor argument; argument 0 has type 'index'}}
func.func @index_parameter(%n: index {gp.parameter = "n"}) {
  return
}

// -----

// Nor are scalars.
// expected-error @+1 {{'gp.parameter' "scale" belongs on a buffer (memref) or ranked tensor argument; argument 1 has type 'f32'}}
func.func @scalar_parameter(%x: memref<4xf32>, %s: f32 {gp.parameter = "scale"}) {
  return
}

// -----

// Nor unranked buffers.
// expected-error @+1 {{argument 0 has type 'memref<*xf32>'}}
func.func @unranked_parameter(%w: memref<*xf32> {gp.parameter = "w"}) {
  return
}

// -----

// The name is a string.
// expected-error @+1 {{'gp.parameter' must be a string (the parameter's name), got 1 : i64}}
func.func @integer_name(%w: memref<4xf32> {gp.parameter = 1}) {
  return
}

// -----

// Not an empty one.
// expected-error @+1 {{'gp.parameter' name "" must be non-empty and hold no whitespace or control characters}}
func.func @empty_name(%w: memref<4xf32> {gp.parameter = ""}) {
  return
}

// -----

// No spaces: the manifest separates its fields by spaces.
// expected-error @+1 {{'gp.parameter' name "fc weight" must be non-empty and hold no whitespace or control characters}}
func.func @space_in_name(%w: memref<4xf32> {gp.parameter = "fc weight"}) {
  return
}

// -----

// No line breaks, tabs or other control characters either.
// expected-error @+1 {{'gp.parameter' name "fc\0Aweight" must be non-empty}}
func.func @newline_in_name(%w: memref<4xf32> {gp.parameter = "fc\nweight"}) {
  return
}

// -----

// expected-error @+1 {{'gp.parameter' name "fc\09weight" must be non-empty}}
func.func @tab_in_name(%w: memref<4xf32> {gp.parameter = "fc\09weight"}) {
  return
}

// -----

// One name, one argument: the runtime binds parameters by name. The error
// points at the second argument of the name.
func.func @twice(%x: memref<4xf32>,
                 %w: memref<4xf32> {gp.parameter = "fc.weight"},
                 %b: memref<4xf32> {gp.parameter = "fc.bias"},
                 // expected-error @+1 {{parameter "fc.weight" is named twice: arguments 1 and 3}}
                 %v: memref<4xf32> {gp.parameter = "fc.weight"}) {
  return
}

// -----

// A declaration has no arguments for the runtime to bind.
// expected-error @+1 {{'gp.parameter' belongs on an argument of a top-level func.func with a body, not of a declaration}}
func.func private @declared(memref<4xf32> {gp.parameter = "w"})

// -----

// Nor has a kernel.
gpu.module @kernels {
  // expected-error @+1 {{'gp.parameter' belongs on an argument of a top-level func.func with a body, not of 'gpu.func'}}
  gpu.func @kernel(%w: memref<4xf32> {gp.parameter = "w"}) kernel {
    gpu.return
  }
}

// -----

// Nor a function below the top level (a kernel module's host function).
gpu.module @kernels {
  // expected-error @+1 {{not of a func.func in 'gpu.module'}}
  func.func @helper(%w: memref<4xf32> {gp.parameter = "w"}) {
    return
  }
}

// -----

// Nor a function of another dialect.
// expected-error @+1 {{'gp.parameter' belongs on an argument of a top-level func.func with a body, not of 'llvm.func'}}
llvm.func @llvm_function(%p: !llvm.ptr {gp.parameter = "w"}) {
  llvm.return
}

// -----

// gp.weight, which gp-import used to write, is gone: gp.parameter names the
// weights it makes.
// expected-error @+1 {{unknown gp argument attribute 'gp.weight'}}
func.func @weight(%w: memref<4xf32> {gp.weight = "w"}) {
  return
}

// -----

// gp.mutable (a parameter the program writes in place) needs gp.parameter.
// expected-error @+1 {{'gp.mutable' marks a parameter the program writes in place; argument 0 has no 'gp.parameter'}}
func.func @mutable_input(%x: memref<4xf32> {gp.mutable}) {
  return
}

// -----

// expected-error @+1 {{'gp.mutable' is a unit attribute, got true}}
func.func @mutable_value(%k: memref<4xf32> {gp.mutable = true, gp.parameter = "k"}) {
  return
}

// -----

// expected-error @+1 {{'gp.mutable' belongs on a function argument (an argument attribute of a func.func), not on an operation}}
func.func @mutable_op() attributes {gp.mutable} {
  return
}

// -----

// gp.writes_parameter (a result that is a mutable parameter's new value).
// expected-error @+1 {{result 0 writes parameter "v", which no argument of @writes_unknown is}}
func.func @writes_unknown(%k: tensor<4xf32> {gp.mutable, gp.parameter = "k"})
    -> (tensor<4xf32> {gp.writes_parameter = "v"}) {
  return %k : tensor<4xf32>
}

// -----

// expected-error @+1 {{result 0 writes parameter "w" (argument 0), which is not marked 'gp.mutable'}}
func.func @writes_read_only(%w: tensor<4xf32> {gp.parameter = "w"})
    -> (tensor<4xf32> {gp.writes_parameter = "w"}) {
  return %w : tensor<4xf32>
}

// -----

// expected-error @+1 {{result 0 of type 'tensor<8xf32>' writes parameter "k" (argument 0) of type 'tensor<4xf32>': a parameter's new value has its type}}
func.func @writes_other_type(%k: tensor<4xf32> {gp.mutable, gp.parameter = "k"})
    -> (tensor<8xf32> {gp.writes_parameter = "k"}) {
  %e = tensor.empty() : tensor<8xf32>
  return %e : tensor<8xf32>
}

// -----

// expected-error @+1 {{parameter "k" is written by results 0 and 1}}
func.func @writes_twice(%k: tensor<4xf32> {gp.mutable, gp.parameter = "k"})
    -> (tensor<4xf32> {gp.writes_parameter = "k"}, tensor<4xf32> {gp.writes_parameter = "k"}) {
  return %k, %k : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{'gp.writes_parameter' must be a string (the name of a mutable parameter), got 1 : i64}}
func.func @writes_number(%k: tensor<4xf32> {gp.mutable, gp.parameter = "k"})
    -> (tensor<4xf32> {gp.writes_parameter = 1}) {
  return %k : tensor<4xf32>
}

// -----

// expected-error @+1 {{unknown gp result attribute 'gp.parameter'}}
func.func @parameter_result(%k: tensor<4xf32>) -> (tensor<4xf32> {gp.parameter = "k"}) {
  return %k : tensor<4xf32>
}

// -----

// expected-error @+1 {{'gp.writes_parameter' belongs on a result of a func.func with a body}}
func.func private @writes_declared(tensor<4xf32>)
    -> (tensor<4xf32> {gp.writes_parameter = "k"})

// -----

// gp.index_checks (the descriptions of a program's run-time index checks)
// needs the flag they write: a mutable parameter of one i64.
// expected-error @+1 {{'gp.index_checks' needs the flag its checks write: a gp.mutable parameter "graphpart.index_errors" of one i64}}
func.func @checks_without_flag(%x: tensor<4xi64>) attributes {gp.index_checks = ["aten::embedding (node 'e'): an index outside [0, 10)"]} {
  return
}

// -----

// expected-error @+1 {{parameter "graphpart.index_errors" (argument 0) must be a gp.mutable buffer or tensor of one i64, got 'tensor<2xi64>'}}
func.func @checks_wide_flag(%f: tensor<2xi64> {gp.mutable, gp.parameter = "graphpart.index_errors"}) attributes {gp.index_checks = ["gather: an index outside [-4, 4)"]} {
  return
}

// -----

// expected-error @+1 {{parameter "graphpart.index_errors" (argument 0) must be a gp.mutable buffer or tensor of one i64, got 'memref<1xi64>'}}
func.func @checks_read_only_flag(%f: memref<1xi64> {gp.parameter = "graphpart.index_errors"}) attributes {gp.index_checks = ["gather: an index outside [-4, 4)"]} {
  return
}

// -----

// expected-error @+1 {{'gp.index_checks' must be a non-empty array of one-line strings (each check's description), got []}}
func.func @checks_empty(%f: memref<1xi64> {gp.mutable, gp.parameter = "graphpart.index_errors"}) attributes {gp.index_checks = []} {
  return
}

// -----

// expected-error @+1 {{'gp.index_checks' must be a non-empty array of one-line strings}}
func.func @checks_multiline(%f: memref<1xi64> {gp.mutable, gp.parameter = "graphpart.index_errors"}) attributes {gp.index_checks = ["two\0Alines"]} {
  return
}

// -----

// expected-error @+1 {{'gp.index_checks' belongs on a func.func with a body}}
func.func private @checks_declared() attributes {gp.index_checks = ["x"]}
