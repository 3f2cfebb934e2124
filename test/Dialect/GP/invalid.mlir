// RUN: gp-opt %s -split-input-file -verify-diagnostics

// One case per error a user can hit in the gp dialect's verifiers and
// custom parsers.

// Unknown device kind.
// expected-error @+1 {{unknown device 'tpu': expected 'cuda:N', 'cpu' or 'meta'}}
func.func private @f(memref<4xf32, #gp.device<tpu>>)

// -----

// Negative device index.
// expected-error @+1 {{device index must be non-negative, got -1}}
func.func private @f(memref<4xf32, #gp.device<cuda:-1>>)

// -----

// Negative arena size.
// expected-error @+1 {{arena size must be non-negative, got -4}}
func.func private @f() attributes {gp.arenas = [#gp.arena<#gp.device<cuda:0>, -4>]}

// -----

// Meta buffers have no arena.
// expected-error @+1 {{meta buffers hold no data and have no arena}}
func.func private @f() attributes {gp.arenas = [#gp.arena<#gp.device<meta>, 16>]}

// -----

// Unknown dialect attribute.
// expected-error @+1 {{unknown gp attribute 'gp.frobnicate'}}
func.func private @f() attributes {gp.frobnicate = 1 : i64}

// -----

// Arenas belong on functions.
// expected-error @+1 {{'gp.arenas' belongs on a function}}
module attributes {gp.arenas = []} {}

// -----

// Arenas must be an array.
// expected-error @+1 {{'gp.arenas' must be an array of #gp.arena}}
func.func private @f() attributes {gp.arenas = 4 : i64}

// -----

// Arena array elements must be arenas.
// expected-error @+1 {{'gp.arenas' must be an array of #gp.arena, got 4 : i64}}
func.func private @f() attributes {gp.arenas = [4 : i64]}

// -----

// One arena per device.
// expected-error @+1 {{two arenas for device cuda:0}}
func.func private @f() attributes {gp.arenas = [#gp.arena<#gp.device<cuda:0>, 16>, #gp.arena<#gp.device<cuda:0>, 32>]}

// -----

// Buffers need a device memory space.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f() {
  // expected-error @+1 {{must be memref with a #gp.device memory space}}
  %b = gp.buffer.alloc() : memref<8xf32>
  return
}

// -----

// One operand per dynamic dimension.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%n: index) {
  // expected-error @+1 {{has 1 dynamic size operands but the type has 2 dynamic dimensions}}
  %b = gp.buffer.alloc(%n) : memref<?x?xf32, #cuda0>
  return
}

// -----

// Allocations are contiguous.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f() {
  // expected-error @+1 {{allocates contiguous buffers}}
  %b = gp.buffer.alloc() : memref<8xf32, strided<[2]>, #cuda0>
  return
}

// -----

// Meta buffers are never placed.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f() {
  // expected-error @+1 {{places a meta buffer in an arena}}
  %b = gp.buffer.alloc() {offset = 0 : i64} : memref<8xf32, #meta>
  return
}

// -----

// Arena offsets are 256-byte aligned.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f() attributes {gp.arenas = [#gp.arena<#cuda0, 4096>]} {
  // expected-error @+1 {{arena offset 128 is not a multiple of 256}}
  %b = gp.buffer.alloc() {offset = 128 : i64} : memref<8xf32, #cuda0>
  return
}

// -----

// Arena offsets are non-negative.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f() attributes {gp.arenas = [#gp.arena<#cuda0, 4096>]} {
  // expected-error @+1 {{attribute 'offset' failed to satisfy constraint}}
  %b = gp.buffer.alloc() {offset = -256 : i64} : memref<8xf32, #cuda0>
  return
}

// -----

// A placed buffer needs the function's arenas.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f() {
  // expected-error @+1 {{has an arena offset but the enclosing function has no 'gp.arenas' attribute}}
  %b = gp.buffer.alloc() {offset = 0 : i64} : memref<8xf32, #cuda0>
  return
}

// -----

// A placed buffer needs an arena for its device.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f() attributes {gp.arenas = [#gp.arena<#cuda0, 4096>]} {
  // expected-error @+1 {{has an arena offset but the enclosing function has no arena for cuda:1}}
  %b = gp.buffer.alloc() {offset = 0 : i64} : memref<8xf32, #cuda1>
  return
}

// -----

// A placed buffer fits in its arena.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f() attributes {gp.arenas = [#gp.arena<#cuda0, 512>]} {
  // expected-error @+1 {{occupies bytes [256, 768) but the cuda:0 arena has 512 bytes}}
  %b = gp.buffer.alloc() {offset = 256 : i64} : memref<128xf32, #cuda0>
  return
}

// -----

// Views are not freed.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<2xf32, #cuda0>) {
  %v = gp.buffer.bitcast %x : memref<2xf32, #cuda0> to memref<8xi8, #cuda0>
  // expected-error @+1 {{frees a view; free its base buffer instead}}
  gp.buffer.dealloc %v : memref<8xi8, #cuda0>
  return
}

// -----

// Reuse stays on one device.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{reuses a buffer on cuda:0 for a buffer on cpu}}
  %b = gp.buffer.reuse %x : memref<8xf32, #cuda0> to memref<8xf32, #cpu>
  return
}

// -----

// Only base buffers are reused.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  %v = gp.buffer.reshape %x() : memref<8xf32, #cuda0> to memref<2x4xf32, #cuda0>
  // expected-error @+1 {{reuses a view; only a base buffer owns storage}}
  %b = gp.buffer.reuse %v : memref<2x4xf32, #cuda0> to memref<8xf32, #cuda0>
  return
}

// -----

// Reused buffers are contiguous.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{result must have the identity layout}}
  %b = gp.buffer.reuse %x : memref<8xf32, #cuda0> to memref<4xf32, strided<[2]>, #cuda0>
  return
}

// -----

// A reused buffer must be large enough.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{needs 64 bytes but the reused buffer has only 32}}
  %b = gp.buffer.reuse %x : memref<8xf32, #cuda0> to memref<8xf64, #cuda0>
  return
}

// -----

// A view stays on its base's device.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{result lives on cpu but its source lives on cuda:0: a view stays on its base's device}}
  %v = gp.buffer.reshape %x() : memref<8xf32, #cuda0> to memref<2x4xf32, #cpu>
  return
}

// -----

// Reshape keeps the element type.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{changes the element type; use gp.buffer.bitcast}}
  %v = gp.buffer.reshape %x() : memref<8xf32, #cuda0> to memref<2x4xi32, #cuda0>
  return
}

// -----

// Reshape needs contiguous buffers.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, strided<[2]>, #cuda0>) {
  // expected-error @+1 {{reshapes contiguous buffers only}}
  %v = gp.buffer.reshape %x() : memref<8xf32, strided<[2]>, #cuda0> to memref<2x4xf32, #cuda0>
  return
}

// -----

// Reshape takes one operand per dynamic dimension.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{has 0 dynamic size operands but the result has 1 dynamic dimensions}}
  %v = gp.buffer.reshape %x() : memref<8xf32, #cuda0> to memref<?x4xf32, #cuda0>
  return
}

// -----

// A reshape cannot be larger than its base.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{views 12 elements of a buffer of 8}}
  %v = gp.buffer.reshape %x() : memref<8xf32, #cuda0> to memref<3x4xf32, #cuda0>
  return
}

// -----

// An expand has one group per source dimension.
#cuda0 = #gp.device<cuda:0>

func.func @f(%x: memref<?x4xf32, #cuda0>, %n: index) {
  // expected-error @+1 {{has 1 expand groups for a source of rank 2}}
  %v = gp.buffer.reshape %x(%n) expand [[0, 1, 2]] : memref<?x4xf32, #cuda0> to memref<?x2x2xf32, #cuda0>
  return
}

// -----

// An expand's groups list the result dimensions in order.
#cuda0 = #gp.device<cuda:0>

func.func @f(%x: memref<?x4xf32, #cuda0>, %n: index) {
  // expected-error @+1 {{expand groups must list result dimensions 0 to 2 once each, in order}}
  %v = gp.buffer.reshape %x(%n) expand [[0, 2], [1]] : memref<?x4xf32, #cuda0> to memref<?x2x2xf32, #cuda0>
  return
}

// -----

// An expand's groups cover every result dimension.
#cuda0 = #gp.device<cuda:0>

func.func @f(%x: memref<?x4xf32, #cuda0>, %n: index) {
  // expected-error @+1 {{expand groups must list result dimensions 0 to 2 once each, in order}}
  %v = gp.buffer.reshape %x(%n) expand [[0], [1]] : memref<?x4xf32, #cuda0> to memref<?x4x1xf32, #cuda0>
  return
}

// -----

// An expand group is not empty.
#cuda0 = #gp.device<cuda:0>

func.func @f(%x: memref<?x4xf32, #cuda0>, %n: index) {
  // expected-error @+1 {{expand group 0 is empty}}
  %v = gp.buffer.reshape %x(%n) expand [[], [0, 1, 2]] : memref<?x4xf32, #cuda0> to memref<?x2x2xf32, #cuda0>
  return
}

// -----

// A static group of a static dimension has its elements (dynamic ones are
// checked when the view is made).
#cuda0 = #gp.device<cuda:0>

func.func @f(%x: memref<?x6xf32, #cuda0>, %n: index) {
  // expected-error @+1 {{expand group 1 has 4 elements but source dimension 1 has 6}}
  %v = gp.buffer.reshape %x(%n) expand [[0], [1, 2]] : memref<?x6xf32, #cuda0> to memref<?x2x2xf32, #cuda0>
  return
}

// -----

// Slice keeps the device.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{a view stays on its base's device}}
  %v = gp.buffer.slice %x[0] [4] [1] : memref<8xf32, #cuda0> to memref<4xf32, #cuda1>
  return
}

// -----

// Slice keeps the element type.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{changes the element type; use gp.buffer.bitcast}}
  %v = gp.buffer.slice %x[0] [4] [1] : memref<8xf32, #cuda0> to memref<4xi32, #cuda0>
  return
}

// -----

// A slice never adds dimensions.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{result rank 2 exceeds source rank 1}}
  %v = gp.buffer.slice %x[0] [4] [1] : memref<8xf32, #cuda0> to memref<4x1xf32, #cuda0>
  return
}

// -----

// A rank-reducing slice drops unit dimensions of the window only.
#cuda0 = #gp.device<cuda:0>

func.func @f(%x: memref<4x8xf32, #cuda0>) {
  // expected-error @+1 {{result rank 1 is less than source rank 2, but the result shape is not the window's shape with static unit dimensions dropped}}
  %v = gp.buffer.slice %x[0, 0] [2, 8] [1, 1] : memref<4x8xf32, #cuda0> to memref<8xf32, #cuda0>
  return
}

// -----

// A rank-reducing slice keeps the strides of the dimensions it keeps.
#cuda0 = #gp.device<cuda:0>

func.func @f(%x: memref<4x8xf32, #cuda0>) {
  // expected-error @+1 {{result stride of dimension 0 should be 8}}
  %v = gp.buffer.slice %x[0, 3] [4, 1] [1, 1] : memref<4x8xf32, #cuda0> to memref<4xf32, strided<[1], offset: 3>, #cuda0>
  return
}

// -----

// Slice offsets, sizes and strides need one entry per dimension.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{expected mixed offsets rank to match mixed sizes rank (2 vs 1)}}
  %v = gp.buffer.slice %x[0, 0] [4] [1] : memref<8xf32, #cuda0> to memref<4xf32, #cuda0>
  return
}

// -----

// Slice strides are positive.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{dimension 0: offsets and sizes must be non-negative and strides positive}}
  %v = gp.buffer.slice %x[0] [4] [0] : memref<8xf32, #cuda0> to memref<4xf32, strided<[0]>, #cuda0>
  return
}

// -----

// The result shape is the slice's sizes.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{result dimension 0 does not match the slice size}}
  %v = gp.buffer.slice %x[0] [4] [1] : memref<8xf32, #cuda0> to memref<5xf32, #cuda0>
  return
}

// -----

// A slice cannot reach past its base.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{dimension 0 reaches element 9 but the base has only 8: a view cannot be larger than its base}}
  %v = gp.buffer.slice %x[6] [4] [1] : memref<8xf32, #cuda0> to memref<4xf32, strided<[1], offset: 6>, #cuda0>
  return
}

// -----

// The result strides are the window's.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{result stride of dimension 0 should be 2}}
  %v = gp.buffer.slice %x[0] [4] [2] : memref<8xf32, #cuda0> to memref<4xf32, #cuda0>
  return
}

// -----

// The result offset is the window's.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{result offset should be 2}}
  %v = gp.buffer.slice %x[2] [4] [1] : memref<8xf32, #cuda0> to memref<4xf32, #cuda0>
  return
}

// -----

// A symbolic offset gives a dynamic result offset.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>, %n: index) {
  // expected-error @+1 {{result offset should be dynamic ('?')}}
  %v = gp.buffer.slice %x[%n] [4] [1] : memref<8xf32, #cuda0> to memref<4xf32, strided<[1], offset: 2>, #cuda0>
  return
}

// -----

// Bitcast keeps the device.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<2xf32, #cuda0>) {
  // expected-error @+1 {{a view stays on its base's device}}
  %v = gp.buffer.bitcast %x : memref<2xf32, #cuda0> to memref<8xi8, #cpu>
  return
}

// -----

// Bitcast needs contiguous buffers.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<2xf32, strided<[2]>, #cuda0>) {
  // expected-error @+1 {{reinterprets contiguous buffers only}}
  %v = gp.buffer.bitcast %x : memref<2xf32, strided<[2]>, #cuda0> to memref<8xi8, #cuda0>
  return
}

// -----

// Bitcast needs fixed-size element types.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<2xvector<2xf32>, #cuda0>) {
  // expected-error @+1 {{element types must have a fixed byte size}}
  %v = gp.buffer.bitcast %x : memref<2xvector<2xf32>, #cuda0> to memref<16xi8, #cuda0>
  return
}

// -----

// Bitcast keeps the rank.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<2xf32, #cuda0>) {
  // expected-error @+1 {{keeps the rank: only the innermost dimension scales}}
  %v = gp.buffer.bitcast %x : memref<2xf32, #cuda0> to memref<2x4xi8, #cuda0>
  return
}

// -----

// Rank-0 bitcasts keep the width.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<f32, #cuda0>) {
  // expected-error @+1 {{rank-0 buffers can only be reinterpreted as an element type of the same width}}
  %v = gp.buffer.bitcast %x : memref<f32, #cuda0> to memref<f16, #cuda0>
  return
}

// -----

// Bitcast keeps outer dimensions.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<2x2xf32, #cuda0>) {
  // expected-error @+1 {{dimension 0 changes; only the innermost dimension scales}}
  %v = gp.buffer.bitcast %x : memref<2x2xf32, #cuda0> to memref<1x16xi8, #cuda0>
  return
}

// -----

// Bitcast of a dynamic innermost dimension stays dynamic.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<?xf32, #cuda0>) {
  // expected-error @+1 {{innermost dimension must be static on both sides or dynamic on both}}
  %v = gp.buffer.bitcast %x : memref<?xf32, #cuda0> to memref<8xi8, #cuda0>
  return
}

// -----

// Bitcast keeps the byte size.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<2xf32, #cuda0>) {
  // expected-error @+1 {{innermost dimension holds 8 bytes in the source but 4 in the result}}
  %v = gp.buffer.bitcast %x : memref<2xf32, #cuda0> to memref<4xi8, #cuda0>
  return
}

// -----

// Kernel names are identifiers.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{kernel name 'add one' is not an identifier}}
  gp.kernel "add one" ins(%x : memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %b: memref<8xf32, #cuda0>):
  }
  return
}

// -----

// Kernels write something.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{has no outputs: a kernel must write a buffer}}
  gp.kernel "k" ins(%x : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>):
  }
  return
}

// -----

// Kernels take buffers and scalars.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%t: tensor<8xf32>, %y: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{operand 0 has type 'tensor<8xf32>'; kernels take gp buffers and scalars}}
  gp.kernel "k" ins(%t : tensor<8xf32>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%a: tensor<8xf32>, %b: memref<8xf32, #cuda0>):
  }
  return
}

// -----

// A kernel's buffers share one device.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cpu>) {
  // expected-error @+1 {{operand 1 lives on cpu but operand 0 lives on cuda:0: all buffers of a kernel share one device}}
  gp.kernel "k" ins(%x : memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cpu>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %b: memref<8xf32, #cpu>):
  }
  return
}

// -----

// One body argument per operand.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{body has 1 arguments but the kernel has 2 operands}}
  gp.kernel "k" ins(%x : memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>):
  }
  return
}

// -----

// Body arguments have the operands' types.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{body argument 0 has type 'memref<8xf16, #gp.device<cuda:0>>' but operand 0 has type 'memref<8xf32, #gp.device<cuda:0>>'}}
  gp.kernel "k" ins(%x : memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf16, #cuda0>, %b: memref<8xf32, #cuda0>):
  }
  return
}

// -----

// Kernel bodies yield nothing.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{body must yield nothing; kernels write their outs}}
  gp.kernel "k" ins(%x : memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %b: memref<8xf32, #cuda0>):
    gp.yield %a : memref<8xf32, #cuda0>
  }
  return
}

// -----

// Kernel bodies hold upstream ops, not gp ops.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cuda0>) {
  gp.kernel "k" ins(%x : memref<8xf32, #cuda0>) outs(%y : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>, %b: memref<8xf32, #cuda0>):
    // expected-error @+1 {{cannot appear inside a gp.kernel body}}
    %c = gp.buffer.alloc() : memref<8xf32, #cuda0>
  }
  return
}

// -----

// Fallback names are namespace-qualified.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{name 'op1' must be 'namespace::op' or 'namespace::op.overload'}}
  gp.fallback "op1"(%x) : (memref<8xf32, #cuda0>) -> ()
  return
}

// -----

// Fallback overloads are identifiers.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{name 'mylib::op1.' must be 'namespace::op' or 'namespace::op.overload'}}
  gp.fallback "mylib::op1."(%x) : (memref<8xf32, #cuda0>) -> ()
  return
}

// -----

// Fallbacks take buffers and scalars.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32>) {
  // expected-error @+1 {{operand 0 has type 'memref<8xf32>'; fallback ops take gp buffers and scalars}}
  gp.fallback "mylib::op"(%x) : (memref<8xf32>) -> ()
  return
}

// -----

// Fallbacks return buffers and scalars.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{result 0 has type 'tensor<8xf32>'; fallback ops return gp buffers and scalars}}
  %t = gp.fallback "mylib::op"(%x) : (memref<8xf32, #cuda0>) -> tensor<8xf32>
  return
}

// -----

// The schema names operands that exist.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{schema mutates operand 1 but the op has 1 operands}}
  gp.fallback "mylib::op"(%x) mutates [1] : (memref<8xf32, #cuda0>) -> ()
  return
}

// -----

// Only buffers are mutated.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%n: index) {
  // expected-error @+1 {{schema mutates operand 0, which is not a buffer}}
  gp.fallback "mylib::op"(%n) mutates [0] : (index) -> ()
  return
}

// -----

// Each operand is listed once as mutated.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{schema lists operand 0 as mutated twice}}
  gp.fallback "mylib::op"(%x) mutates [0, 0] : (memref<8xf32, #cuda0>) -> ()
  return
}

// -----

// One alias entry per result.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{schema gives 1 result aliases but the op has 2 results}}
  %a, %b = gp.fallback "mylib::op"(%x) aliases [0] : (memref<8xf32, #cuda0>) -> (memref<8xf32, #cuda0>, memref<8xf32, #cuda0>)
  return
}

// -----

// A result aliases an operand that exists.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{schema says result 0 aliases operand 3 but the op has 1 operands}}
  %a = gp.fallback "mylib::op"(%x) aliases [3] : (memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0>
  return
}

// -----

// Alias entries are '-' or operand indices.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{aliased operand index must be non-negative; write '-' for a fresh result}}
  %a = gp.fallback "mylib::op"(%x) aliases [-2] : (memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0>
  return
}

// -----

// Only buffers alias.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%n: index) {
  // expected-error @+1 {{schema says result 0 aliases operand 0, but only buffers alias}}
  %a = gp.fallback "mylib::op"(%n) aliases [0] : (index) -> memref<8xf32, #cuda0>
  return
}

// -----

// An alias lives on its operand's device.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{result 0 aliases operand 0 but lives on cpu, not cuda:0}}
  %a = gp.fallback "mylib::op"(%x) aliases [0] : (memref<8xf32, #cuda0>) -> memref<8xf32, #cpu>
  return
}

// -----

// Tags are not empty.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{has an empty tag}}
  gp.fallback "mylib::op"(%x) tags [""] : (memref<8xf32, #cuda0>) -> ()
  return
}

// -----

// Tags are listed once.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{lists tag 'cudagraph_unsafe' twice}}
  gp.fallback "mylib::op"(%x) tags ["cudagraph_unsafe", "cudagraph_unsafe"] : (memref<8xf32, #cuda0>) -> ()
  return
}

// -----

// Copies keep the element type.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>, %y: memref<8xf16, #cpu>) {
  // expected-error @+1 {{copies 'f32' elements into a buffer of 'f16'}}
  gp.copy %x, %y : memref<8xf32, #cuda0> to memref<8xf16, #cpu>
  return
}

// -----

// Copies keep the rank.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>, %y: memref<2x4xf32, #cpu>) {
  // expected-error @+1 {{source and target must have the same rank}}
  gp.copy %x, %y : memref<8xf32, #cuda0> to memref<2x4xf32, #cpu>
  return
}

// -----

// Copies keep the shape.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>, %y: memref<4xf32, #cpu>) {
  // expected-error @+1 {{dimension 0 is 8 in the source but 4 in the target}}
  gp.copy %x, %y : memref<8xf32, #cuda0> to memref<4xf32, #cpu>
  return
}

// -----

// A copy onto itself is a mistake.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{copies a buffer onto itself}}
  gp.copy %x, %x : memref<8xf32, #cuda0> to memref<8xf32, #cuda0>
  return
}

// -----

// item reads a single element.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{reads a single element, but 'memref<8xf32, #gp.device<cuda:0>>' does not have exactly one element}}
  %v = gp.item %x : memref<8xf32, #cuda0> -> f32
  return
}

// -----

// item returns the element type.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<f32, #cuda0>) {
  // expected-error @+1 {{reads 'f32' but returns 'f16'}}
  %v = gp.item %x : memref<f32, #cuda0> -> f16
  return
}

// -----

// Symint names are identifiers.
func.func @f(%n: index) {
  // expected-error @+1 {{symint name 's 0' is not an identifier}}
  %s = gp.symint "s 0" = %n
  return
}

// -----

// Symint bounds are ordered.
func.func @f(%n: index) {
  // expected-error @+1 {{min 8 exceeds max 4}}
  %s = gp.symint "s0" = %n {min = 8 : i64, max = 4 : i64}
  return
}

// -----

// Symint hints lie within the bounds.
func.func @f(%n: index) {
  // expected-error @+1 {{hint 16 lies outside [min, max]}}
  %s = gp.symint "s0" = %n {min = 1 : i64, max = 8 : i64, hint = 16 : i64}
  return
}

// -----

// symint.dim names an existing dimension.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<?xf32, #cuda0>) {
  // expected-error @+1 {{dimension 1 is out of range for 'memref<?xf32, #gp.device<cuda:0>>'}}
  %s = gp.symint.dim "s0" = %x[1] : memref<?xf32, #cuda0>
  return
}

// -----

// symint.dim names a dynamic dimension.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<?x4xf32, #cuda0>) {
  // expected-error @+1 {{dimension 1 of 'memref<?x4xf32, #gp.device<cuda:0>>' is static (4); only dynamic dimensions are symbolic}}
  %s = gp.symint.dim "s0" = %x[1] : memref<?x4xf32, #cuda0>
  return
}

// -----

// Unbacked sizes come from integer buffers.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<f32, #cuda0>) {
  // expected-error @+1 {{reads a size from a buffer of 'f32'; sizes come from integer buffers}}
  %u = gp.symint.unbacked "u0" = %x : memref<f32, #cuda0>
  return
}

// -----

// Unbacked sizes come from one element.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<2xi64, #cuda0>) {
  // expected-error @+1 {{does not have exactly one element}}
  %u = gp.symint.unbacked "u0" = %x : memref<2xi64, #cuda0>
  return
}

// -----

// A symint used but never defined.
func.func @f() {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %s = gp.symint "s0" = %n
  return
}

// -----

// Generators live at module level.
func.func @f() {
  // expected-error @+1 {{expects parent op 'builtin.module'}}
  "gp.rng.generator"() {sym_name = "g"} : () -> ()
  return
}

// -----

// States name a generator.
func.func @f() {
  // expected-error @+1 {{'@missing' does not name a gp.rng.generator}}
  %s = gp.rng.state @missing forward : !gp.rng_state
  return
}

// -----

// A state feeds exactly one RNG op.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

gp.rng.generator @g
func.func @f(%x: memref<4xf32, #cuda0>, %y: memref<4xf32, #cuda0>) {
  // expected-error @+1 {{state has 2 uses; each RNG state feeds exactly one op}}
  %s = gp.rng.state @g forward : !gp.rng_state
  gp.rng.fill uniform %s, %x : memref<4xf32, #cuda0>
  gp.rng.fill uniform %s, %y : memref<4xf32, #cuda0>
  return
}

// -----

// RNG ops fill float buffers.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

gp.rng.generator @g
func.func @f(%x: memref<4xi32, #cuda0>) {
  %s = gp.rng.state @g forward : !gp.rng_state
  // expected-error @+1 {{fills floating-point buffers, not 'i32'}}
  gp.rng.fill uniform %s, %x : memref<4xi32, #cuda0>
  return
}

// -----

// Unknown distribution.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

gp.rng.generator @g
func.func @f(%x: memref<4xf32, #cuda0>) {
  %s = gp.rng.state @g forward : !gp.rng_state
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'distribution' [uniform, normal]}}
  gp.rng.fill cauchy %s, %x : memref<4xf32, #cuda0>
  return
}

// -----

// Capturable partitions give no reasons.
func.func @f() {
  // expected-error @+1 {{is capturable but lists reasons not to capture it}}
  gp.partition 0 capturable reasons ["cpu ops"] {
    gp.yield
  }
  return
}

// -----

// Eager partitions say why.
func.func @f() {
  // expected-error @+1 {{is eager but gives no reason}}
  gp.partition 0 eager {
    gp.yield
  }
  return
}

// -----

// Reasons are not empty.
func.func @f() {
  // expected-error @+1 {{has an empty reason}}
  gp.partition 0 eager reasons [""] {
    gp.yield
  }
  return
}

// -----

// Partition ids are non-negative.
func.func @f() {
  // expected-error @+1 {{attribute 'partition_id' failed to satisfy constraint}}
  "gp.partition"() <{partition_id = -1 : i64, kind = 0 : i32}> ({
    gp.yield
  }) : () -> ()
  return
}

// -----

// One body argument per input.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{body has 0 arguments but the partition has 1 inputs}}
  gp.partition 0 capturable ins(%x : memref<8xf32, #cuda0>) {
    gp.yield
  }
  return
}

// -----

// Body arguments have the inputs' types.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{body argument 0 has type 'index' but input 0 has type}}
  gp.partition 0 capturable ins(%x : memref<8xf32, #cuda0>) {
  ^bb0(%a: index):
    gp.yield
  }
  return
}

// -----

// The yield matches the results.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{yields 0 values of types  but the partition returns 'memref<8xf32, #gp.device<cuda:0>>'}}
  %r = gp.partition 0 capturable ins(%x : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>):
    gp.yield
  } -> (memref<8xf32, #cuda0>)
  return
}

// -----

// Partitions do not nest.
func.func @f() {
  gp.partition 0 capturable {
    // expected-error @+1 {{partitions do not nest}}
    gp.partition 1 capturable {
      gp.yield
    }
    gp.yield
  }
  return
}

// -----

// A partition's body is isolated: its signature is explicit.
#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-note @+1 {{required by region isolation constraints}}
  gp.partition 0 capturable {
    // expected-error @+1 {{using value defined outside the region}}
    %v = gp.buffer.reshape %x() : memref<8xf32, #cuda0> to memref<2x4xf32, #cuda0>
    gp.yield
  }
  return
}

// -----

// yield ends kernels and partitions only.
func.func @f() {
  // expected-error @+1 {{expects parent op to be one of 'gp.kernel, gp.partition'}}
  gp.yield
}

// -----

// Generator seeds are non-negative.
// expected-error @+1 {{attribute 'seed' failed to satisfy constraint}}
gp.rng.generator @g seed -1

// -----

#cuda0 = #gp.device<cuda:0>
// Signature lists name existing inputs.
func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{'writes' names input 1 but the partition has 1 inputs}}
  gp.partition 0 capturable ins(%x : memref<8xf32, #cuda0>) writes [1] {
  ^bb0(%a: memref<8xf32, #cuda0>):
    gp.yield
  }
  return
}

// -----

// Signature lists name buffer inputs.
func.func @f(%n: index) {
  // expected-error @+1 {{'frees' names input 0, which is not a buffer}}
  gp.partition 0 capturable ins(%n : index) frees [0] {
  ^bb0(%a: index):
    gp.yield
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
// Signature lists name each input once.
func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{'writes' lists input 0 twice}}
  gp.partition 0 capturable ins(%x : memref<8xf32, #cuda0>) writes [0, 0] {
  ^bb0(%a: memref<8xf32, #cuda0>):
    gp.yield
  }
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
// A freed input is not yielded back.
func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{frees input 0 and also yields it back}}
  %r = gp.partition 0 capturable ins(%x : memref<8xf32, #cuda0>) frees [0] {
  ^bb0(%a: memref<8xf32, #cuda0>):
    gp.yield %a : memref<8xf32, #cuda0>
  } -> (memref<8xf32, #cuda0>)
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
// A scalar slot holds one element of the scalar's type.
func.func @f(%v: f32) {
  // expected-error @+1 {{expects a 0-d buffer of 'f32', got 'memref<2xf32, #gp.device<cuda:0>>'}}
  %s = gp.scalar.slot %v : f32 -> memref<2xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @f(%v: f32) {
  // expected-error @+1 {{expects a 0-d buffer of 'f32', got 'memref<i32, #gp.device<cuda:0>>'}}
  %s = gp.scalar.slot %v : f32 -> memref<i32, #cuda0>
  return
}

// -----

#meta = #gp.device<meta>
func.func @f(%v: f32) {
  // expected-error @+1 {{a slot holds data; it cannot be on the meta device}}
  %s = gp.scalar.slot %v : f32 -> memref<f32, #meta>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
// Memory planning places only fresh extern results of static size.
func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{result 0 has an arena offset but is not a fresh buffer of static size with data}}
  %v = gp.fallback "mylib::view"(%x) aliases [0] {result_offsets = array<i64: 0>} : (memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{has 2 result offsets for 1 results}}
  %v = gp.fallback "mylib::op"(%x) {result_offsets = array<i64: 0, 256>} : (memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
// The checked mode's flag names an input of the partition it is on.
func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{'gp.bounds_flag' belongs on a gp.partition and names one of its inputs}}
  gp.partition 0 capturable ins(%x : memref<8xf32, #cuda0>) {
  ^bb0(%a: memref<8xf32, #cuda0>):
    gp.yield
  } {gp.bounds_flag = 1 : i64}
  return
}

// -----

// expected-error @+1 {{'gp.bounds_kernels' belongs on a function and is a string}}
func.func @f() attributes {gp.bounds_kernels = 3 : i64} {
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
// A static size whose bytes overflow 64 bits is refused, not wrapped.
func.func @f() {
  // expected-error @+1 {{allocates 'memref<4611686018427387904x4xf32, #gp.device<cuda:0>>', whose size in bytes does not fit in 64 bits}}
  %b = gp.buffer.alloc() : memref<4611686018427387904x4xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
// A window whose last element overflows 64 bits reaches past any base.
func.func @f(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{dimension 0 reaches past any base (its last element overflows 64 bits)}}
  %v = gp.buffer.slice %x[9223372036854775807] [4] [1] : memref<8xf32, #cuda0> to memref<4xf32, strided<[1], offset: 9223372036854775807>, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<4x8xf32, #cuda0>) {
  // expected-error @+1 {{permutation has 3 entries but the source has rank 2}}
  %v = gp.buffer.transpose %x [1, 0, 2] : memref<4x8xf32, #cuda0> to memref<8x4xf32, strided<[1, 8]>, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<4x8xf32, #cuda0>) {
  // expected-error @+1 {{permutation must hold each dimension 0..1 exactly once}}
  %v = gp.buffer.transpose %x [1, 1] : memref<4x8xf32, #cuda0> to memref<8x8xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<4x8xf32, #cuda0>) {
  // expected-error @+1 {{permutation must hold each dimension 0..1 exactly once}}
  %v = gp.buffer.transpose %x [0, 2] : memref<4x8xf32, #cuda0> to memref<4x8xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<4x8xf32, #cuda0>) {
  // expected-error @+1 {{result type should be 'memref<8x4xf32, strided<[1, 8]>, #gp.device<cuda:0>>'}}
  %v = gp.buffer.transpose %x [1, 0] : memref<4x8xf32, #cuda0> to memref<8x4xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#cuda1 = #gp.device<cuda:1>
#cpu = #gp.device<cpu>
#meta = #gp.device<meta>

func.func @f(%x: memref<4x8xf32, #cuda0>) {
  // expected-error @+1 {{a view stays on its base's device}}
  %v = gp.buffer.transpose %x [1, 0] : memref<4x8xf32, #cuda0> to memref<8x4xf32, strided<[1, 8]>, #cuda1>
  return
}

// -----

// A static offset times a dynamic stride is the static offset (as
// memref.subview computes it), not dynamic.
#cuda0 = #gp.device<cuda:0>

func.func @f(%x: memref<?x?xf32, #cuda0>, %n: index) {
  // expected-error @+1 {{result offset should be 1}}
  %v = gp.buffer.slice %x[0, 1] [%n, 1] [1, 1] : memref<?x?xf32, #cuda0> to memref<?x1xf32, strided<[?, 1], offset: ?>, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @all_reduce_shapes(%x: memref<8xf32, #cuda0>, %y: memref<4xf32, #cuda0>) {
  // expected-error @+1 {{'gp.all_reduce' op dimension 0 is 8 in the source but 4 in the target}}
  gp.all_reduce sum %x, %y : memref<8xf32, #cuda0> to memref<4xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
#cpu = #gp.device<cpu>
func.func @all_reduce_devices(%x: memref<8xf32, #cuda0>, %y: memref<8xf32, #cpu>) {
  // expected-error @+1 {{'gp.all_reduce' op needs its buffers on one device, got #gp.device<cuda:0> and #gp.device<cpu>}}
  gp.all_reduce sum %x, %y : memref<8xf32, #cuda0> to memref<8xf32, #cpu>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @all_reduce_types(%x: memref<8xf32, #cuda0>, %y: memref<8xf16, #cuda0>) {
  // expected-error @+1 {{'gp.all_reduce' op needs one element type, got 'f32' and 'f16'}}
  gp.all_reduce sum %x, %y : memref<8xf32, #cuda0> to memref<8xf16, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @all_reduce_bools(%x: memref<8xi1, #cuda0>) {
  // expected-error @+1 {{'gp.all_reduce' op cannot carry 'i1' elements (8-, 32- or 64-bit integers, f16, bf16, f32, f64 or f8)}}
  gp.all_reduce max %x, %x : memref<8xi1, #cuda0> to memref<8xi1, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @all_reduce_strided(%x: memref<8xf32, strided<[2]>, #cuda0>, %y: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{'gp.all_reduce' op needs contiguous buffers, got 'memref<8xf32, strided<[2]>, #gp.device<cuda:0>>'}}
  gp.all_reduce sum %x, %y : memref<8xf32, strided<[2]>, #cuda0> to memref<8xf32, #cuda0>
  return
}

// -----

#meta = #gp.device<meta>
func.func @all_reduce_meta(%x: memref<8xf32, #meta>) {
  // expected-error @+1 {{'gp.all_reduce' op needs buffers on a cuda device or the cpu, not meta buffers}}
  gp.all_reduce sum %x, %x : memref<8xf32, #meta> to memref<8xf32, #meta>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @all_gather_parts(%x: memref<3x4xf32, #cuda0>, %y: memref<8x4xf32, #cuda0>) {
  // expected-error @+1 {{'gp.all_gather' op needs the target's dimension 0 to be the other's times the number of ranks, got 8 and 3}}
  gp.all_gather %x, %y : memref<3x4xf32, #cuda0> to memref<8x4xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @all_gather_rows(%x: memref<2x4xf32, #cuda0>, %y: memref<8x5xf32, #cuda0>) {
  // expected-error @+1 {{'gp.all_gather' op dimension 1 is 4 in the source but 5 in the target}}
  gp.all_gather %x, %y : memref<2x4xf32, #cuda0> to memref<8x5xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @all_gather_scalar(%x: memref<f32, #cuda0>, %y: memref<f32, #cuda0>) {
  // expected-error @+1 {{'gp.all_gather' op needs buffers of rank 1 or more: it cuts or joins them along dimension 0}}
  gp.all_gather %x, %y : memref<f32, #cuda0> to memref<f32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @all_gather_in_place(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{'gp.all_gather' op cannot gather into its own source}}
  gp.all_gather %x, %x : memref<8xf32, #cuda0> to memref<8xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @reduce_scatter_parts(%x: memref<8x4xf32, #cuda0>, %y: memref<3x4xf32, #cuda0>) {
  // expected-error @+1 {{'gp.reduce_scatter' op needs the source's dimension 0 to be the other's times the number of ranks, got 8 and 3}}
  gp.reduce_scatter sum %x, %y : memref<8x4xf32, #cuda0> to memref<3x4xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @reduce_scatter_ranks(%x: memref<8x4xf32, #cuda0>, %y: memref<2xf32, #cuda0>) {
  // expected-error @+1 {{'gp.reduce_scatter' op needs source and target of one rank, got 2 and 1}}
  gp.reduce_scatter sum %x, %y : memref<8x4xf32, #cuda0> to memref<2xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @broadcast_root(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{'gp.broadcast' op attribute 'root' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  gp.broadcast %x root -1 : memref<8xf32, #cuda0>
  return
}

// -----

#cuda0 = #gp.device<cuda:0>
func.func @reduction_kind(%x: memref<8xf32, #cuda0>) {
  // expected-error @+1 {{custom op 'gp.all_reduce' expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min]}}
  gp.all_reduce prod %x, %x : memref<8xf32, #cuda0> to memref<8xf32, #cuda0>
  return
}
