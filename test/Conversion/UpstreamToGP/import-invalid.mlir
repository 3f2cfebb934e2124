// RUN: gp-opt %s --gp-import --split-input-file -verify-diagnostics

// Tensors must be bufferized first.
// expected-error @+1 {{gp-import: argument 0 works on tensors; bufferize the program first}}
func.func @tensors(%x: tensor<4xf32>) {
  return
}

// -----

// A tensor op inside a bufferized function.
func.func @tensor_inside(%x: memref<4xf32>) {
  // expected-error @+1 {{gp-import: 'bufferization.to_tensor' works on tensors}}
  %t = bufferization.to_tensor %x : memref<4xf32> to tensor<4xf32>
  return
}

// -----

// Unranked memrefs have no shape to plan.
// expected-error @+1 {{gp-import: argument 0 uses an unranked memref}}
func.func @unranked(%x: memref<*xf32>) {
  return
}

// -----

// A memory space that is not a device.
// expected-error @+1 {{gp-import: argument 0 uses memory space #gpu.address_space<workgroup>, which is not a device}}
func.func @space(%x: memref<4xf32, #gpu.address_space<workgroup>>) {
  return
}

// -----

// Calls of defined functions must be inlined.
func.func @callee(%x: memref<4xf32>) {
  return
}
func.func @caller(%x: memref<4xf32>) {
  // expected-error @+1 {{gp-import: 'callee' has a body; calls of defined functions are not imported (inline them first: --inline)}}
  func.call @callee(%x) : (memref<4xf32>) -> ()
  return
}

// -----

// The op name must be ns::op.
// expected-error @+1 {{gp-import: gp.op_name must be a string 'ns::op' or 'ns::op.overload', got "scale"}}
func.func private @scale(memref<4xf32>) attributes {gp.op_name = "scale"}
func.func @f(%x: memref<4xf32>) {
  func.call @scale(%x) : (memref<4xf32>) -> ()
  return
}

// -----

// A callee name that cannot be an op name.
// expected-error @+1 {{gp-import: name the op of 'my-op' with a gp.op_name = "ns::op" attribute}}
func.func private @"my-op"(memref<4xf32>)
func.func @f(%x: memref<4xf32>) {
  func.call @"my-op"(%x) : (memref<4xf32>) -> ()
  return
}

// -----

// gp.mutates names buffer operands.
// expected-error @+1 {{gp-import: gp.mutates of 'scale' must list operand indices below 2}}
func.func private @scale(memref<4xf32>, index) attributes {gp.mutates = [1]}
func.func @f(%x: memref<4xf32>, %n: index) {
  func.call @scale(%x, %n) : (memref<4xf32>, index) -> ()
  return
}

// -----

// gp.aliases has one entry per result.
// expected-error @+1 {{gp-import: gp.aliases of 'scale' must list operand indices below 1}}
func.func private @scale(memref<4xf32>) -> memref<4xf32> attributes {gp.aliases = [0, -1]}
func.func @f(%x: memref<4xf32>) -> memref<4xf32> {
  %r = func.call @scale(%x) : (memref<4xf32>) -> memref<4xf32>
  return %r : memref<4xf32>
}

// -----

// gp.tags holds strings.
// expected-error @+1 {{gp-import: gp.tags must be an array of strings}}
func.func private @scale(memref<4xf32>) attributes {gp.tags = [1]}
func.func @f(%x: memref<4xf32>) {
  func.call @scale(%x) : (memref<4xf32>) -> ()
  return
}

// -----

// Schema attributes belong on functions.
func.func @f(%x: memref<4xf32>) {
  // expected-error @+1 {{'gp.mutates' belongs on a function}}
  memref.dealloc %x {gp.mutates = [0]} : memref<4xf32>
  return
}

// -----

// A kernel runs on one device.
func.func @devices(%x: memref<4xf32, #gp.device<cpu>>, %y: memref<4xf32>) {
  // expected-error @+1 {{gp-import: 'linalg.copy' uses buffers on cpu and cuda:0; a kernel runs on one device}}
  linalg.copy ins(%x : memref<4xf32, #gp.device<cpu>>) outs(%y : memref<4xf32>)
  return
}

// -----

// Reshapes of strided views.
func.func @strided(%x: memref<4x6xf32>) {
  %v = memref.subview %x[1, 0] [2, 6] [1, 1] : memref<4x6xf32> to memref<2x6xf32, strided<[6, 1], offset: 6>>
  // expected-error @+1 {{gp-import: 'memref.collapse_shape' of 'memref<2x6xf32, strided<[6, 1], offset: 6>, #gp.device<cuda:0>>' to 'memref<12xf32, strided<[1], offset: 6>, #gp.device<cuda:0>>': gp reshapes contiguous buffers only}}
  %f = memref.collapse_shape %v [[0, 1]] : memref<2x6xf32, strided<[6, 1], offset: 6>> into memref<12xf32, strided<[1], offset: 6>>
  return
}

// -----

// memref.reshape to a dynamic shape.
func.func @reshape(%x: memref<8xf32>, %shape: memref<1xindex>) {
  // expected-error @+1 {{gp-import: memref.reshape to a dynamic shape cannot be imported}}
  %r = memref.reshape %x(%shape) : (memref<8xf32>, memref<1xindex>) -> memref<?xf32>
  return
}

// -----

// memref.view at an offset.
func.func @view(%raw: memref<64xi8>) {
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{gp-import: memref.view is imported at byte offset 0}}
  %v = memref.view %raw[%c4][] : memref<64xi8> to memref<4xf32>
  return
}

// -----

// A strided reinterpret_cast.
func.func @cast(%x: memref<16xf32>) {
  // expected-error @+1 {{gp-import: memref.reinterpret_cast is imported when it views a contiguous buffer from its start}}
  %v = memref.reinterpret_cast %x to offset: [0], sizes: [4, 2], strides: [4, 2] : memref<16xf32> to memref<4x2xf32, strided<[4, 2]>>
  return
}

// -----

// An allocation with a layout.
func.func @alloc() {
  // expected-error @+1 {{gp-import: allocation of 'memref<4x4xf32, strided<[8, 1]>, #gp.device<cuda:0>>' has a layout}}
  %a = memref.alloc() : memref<4x4xf32, strided<[8, 1]>>
  return
}

// -----

// Asynchronous gpu ops.
func.func @gpu_async() {
  // expected-error @+1 {{gp-import: only synchronous, device-only gpu.alloc can be imported}}
  %a, %t = gpu.alloc async () : memref<4xf32>
  return
}

// -----

// A memref.dim of an unknown dimension.
func.func @dim(%x: memref<?xf32>, %d: index) -> index {
  // expected-error @+1 {{gp-import: memref.dim needs a constant, in-range dimension}}
  %n = memref.dim %x, %d : memref<?xf32>
  return %n : index
}

// -----

// Globals that are not constants.
memref.global "private" @state : memref<4xf32> = dense<0.0>
func.func @global() -> memref<4xf32> {
  // expected-error @+1 {{gp-import: only constant globals with a dense initial value can be imported; pass 'state' to the function as an argument}}
  %g = memref.get_global @state : memref<4xf32>
  return %g : memref<4xf32>
}

// -----

// Large constants come in as arguments.
memref.global "private" constant @big : memref<1025xi8> = dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]>
func.func @global() -> memref<1025xi8> {
  // expected-error @+1 {{gp-import: constant 'big' has 1025 elements; constants of more than 1024 distinct elements become weight arguments with the weights-dir=DIR option (gp-compile --weights DIR), or must be passed as arguments}}
  %g = memref.get_global @big : memref<1025xi8>
  return %g : memref<1025xi8>
}

// -----

// linalg.softmax is expanded into the ops it stands for, over floats.
func.func @softmax(%x: memref<2x4xi32>, %y: memref<2x4xi32>) {
  // expected-error @+1 {{gp-import: linalg.softmax of 'i32' elements; it takes floats}}
  linalg.softmax dimension(1) ins(%x : memref<2x4xi32>) outs(%y : memref<2x4xi32>)
  return
}

// -----

// Affine loops are lowered first.
func.func @affine(%x: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{gp-import: cannot import 'affine.for': lower affine loops to scf first (lower-affine)}}
  affine.for %i = 0 to 4 {
    affine.store %zero, %x[%i] : memref<4xf32>
  }
  return
}

// -----

// Any other op is named.
func.func @other(%x: memref<4xi32>, %v: i32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{gp-import: cannot import 'memref.atomic_rmw': gp takes linalg ops}}
  %old = memref.atomic_rmw addi %v, %x[%c0] : (i32, memref<4xi32>) -> i32
  return
}

// -----

// A cast into control flow.
func.func @cast_yield(%x: memref<4xf32>, %c: i1) -> memref<?xf32> {
  %r = scf.if %c -> memref<?xf32> {
    // expected-error @+1 {{gp-import: this memref.cast feeds control flow (scf.yield)}}
    %d = memref.cast %x : memref<4xf32> to memref<?xf32>
    scf.yield %d : memref<?xf32>
  } else {
    %e = memref.alloc() : memref<4xf32>
    %d = memref.cast %e : memref<4xf32> to memref<?xf32>
    scf.yield %d : memref<?xf32>
  }
  return %r : memref<?xf32>
}

// -----

// Bounds of symbolic sizes.
// expected-error @+1 {{gp-import: gp.symint_min must be a non-negative integer, got -1 : i64}}
func.func @bounds(%x: memref<?xf32>) attributes {gp.symint_min = -1 : i64} {
  return
}

// -----

// Empty bounds.
// expected-error @+1 {{gp-import: symint bounds [8, 4] are empty}}
func.func @bounds(%x: memref<?xf32>) attributes {gp.symint_min = 8 : i64, gp.symint_max = 4 : i64} {
  return
}

// -----

// The default device attribute is a device.
// expected-error @+1 {{'gp.default_device' must be a #gp.device attribute, got "cuda:0"}}
func.func @device(%x: memref<4xf32>) attributes {gp.default_device = "cuda:0"} {
  return
}

// -----

// gp.rng names a distribution.
// expected-error @+1 {{gp-import: gp.rng must be "uniform" or "normal", got "gaussian"}}
func.func private @r() -> memref<4xf32> attributes {gp.rng = "gaussian"}
func.func @rng_kind() -> memref<4xf32> {
  %r = func.call @r() : () -> memref<4xf32>
  return %r : memref<4xf32>
}

// -----

// A gp.rng call takes an index per dynamic size and returns a float buffer.
func.func private @r(index, index) -> memref<?xf32> attributes {gp.rng = "uniform"}
func.func @rng_signature(%n: index) -> memref<?xf32> {
  // expected-error @+1 {{gp-import: a gp.rng call returns one floating-point buffer and takes an index for each of its dynamic sizes}}
  %r = func.call @r(%n, %n) : (index, index) -> memref<?xf32>
  return %r : memref<?xf32>
}

// -----

// expected-error @+1 {{'gp.rng' must be a string, "uniform" or "normal", got 3}}
func.func private @r() -> memref<4xf32> attributes {gp.rng = 3}

// -----

// torch-mlir's TMTensor ops (tm_tensor.scatter, .sort, .attention, ...) are
// refused by name where they are parsed, as torch-mlir prints them.
func.func @tm_tensor_scatter(%original: memref<8xi32>, %indices: memref<3x1xi32>, %updates: memref<3xi32>) {
  // expected-error @+1 {{custom op 'tm_tensor.scatter' is an op of torch-mlir's TMTensor dialect, which GraphPart does not support: lower it to linalg, or to scf loops on buffers, first (torch-mlir's tm-tensor-to-loops pass does the latter)}}
  tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(true) ins(%updates, %indices : memref<3xi32>, memref<3x1xi32>) outs(%original : memref<8xi32>) {
  ^bb0(%update: i32, %old: i32):
    tm_tensor.yield %update : i32
  }
  return
}

// -----

// Also in torch-mlir's linalg-on-tensors output, before bufferization.
func.func @tm_tensor_attention(%q: tensor<4x8x64xf32>, %k: tensor<4x8x64xf32>, %v: tensor<4x8x64xf32>) -> tensor<4x8x64xf32> {
  %init = tensor.empty() : tensor<4x8x64xf32>
  // expected-error @+1 {{custom op 'tm_tensor.attention' is an op of torch-mlir's TMTensor dialect, which GraphPart does not support}}
  %r = tm_tensor.attention ins(%q, %k, %v : tensor<4x8x64xf32>, tensor<4x8x64xf32>, tensor<4x8x64xf32>) outs(%init : tensor<4x8x64xf32>) -> tensor<4x8x64xf32>
  return %r : tensor<4x8x64xf32>
}

// -----

// In generic form the op parses, unregistered, and the verifier refuses it;
// a note says what tm_tensor is.
func.func @tm_tensor_generic(%x: memref<8xf32>, %i: memref<8xi64>) {
  // expected-error @+2 {{unregistered operation 'tm_tensor.sort' found in dialect ('tm_tensor') that does not allow unknown operations}}
  // expected-note @+1 {{tm_tensor is torch-mlir's TMTensor dialect, which GraphPart does not support: lower its ops to linalg, or to scf loops on buffers, first}}
  "tm_tensor.sort"(%x, %i) <{dimension = 0 : i64}> : (memref<8xf32>, memref<8xi64>) -> ()
  return
}
