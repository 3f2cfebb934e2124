//===- OuterUses.h - walk the ops that can use a block's values -*- C++ -*-===//
//
// A gp.kernel body is isolated from above: only the kernel's own operands
// reach it. Analyses asking "which values of the program does this op use"
// therefore stop at kernels instead of walking every op of their bodies,
// which on large programs is most of the IR.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_ANALYSIS_OUTERUSES_H
#define GRAPHPART_ANALYSIS_OUTERUSES_H

#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/IR/Operation.h"

namespace mlir::gp {

/// Calls `fn` on `op` and on every op nested in it whose operands may be
/// values defined outside `op`: kernel bodies are not entered.
template <typename Fn>
void walkOuterUsers(Operation *op, Fn &&fn) {
  // Most ops have no region to look into, and a kernel's is not entered:
  // skip the walk machinery for them (it is a large share of the cost on
  // programs of many small ops).
  if (op->getNumRegions() == 0 || isa<KernelOp>(op)) {
    fn(op);
    return;
  }
  op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
    fn(nested);
    return isa<KernelOp>(nested) ? WalkResult::skip() : WalkResult::advance();
  });
}

} // namespace mlir::gp

#endif // GRAPHPART_ANALYSIS_OUTERUSES_H
