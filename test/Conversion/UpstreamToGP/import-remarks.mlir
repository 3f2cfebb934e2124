// RUN: gp-opt %s --gp-import -verify-diagnostics | FileCheck %s

// Frees of arguments are dropped with a remark (the caller owns them); a
// call without a schema gets the conservative default, with a remark.
// CHECK-LABEL: func.func @remarks
// CHECK: gp.fallback "extern::opaque"(%arg0) : (memref<4xf32, #cuda0>) -> ()
// CHECK-NOT: dealloc
func.func private @opaque(memref<4xf32>)
func.func @remarks(%x: memref<4xf32>) {
  // expected-remark @+1 {{gp-import: 'opaque' has no schema (gp.mutates, gp.aliases, gp.tags): called as 'extern::opaque', assumed to write and alias none of its operands and to be capturable (an artifact whose extern registration says otherwise fails to load; tag it gp.tags = ["cudagraph_unsafe"] then)}}
  func.call @opaque(%x) : (memref<4xf32>) -> ()
  // expected-remark @+1 {{gp-import: dropped the free of argument 0: the caller owns the buffers it passes}}
  memref.dealloc %x : memref<4xf32>
  return
}
