//===- ChangedElements.h - store only the elements that change --*- C++ -*-===//
//
// Part of GraphPart.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_TRANSFORMS_CHANGEDELEMENTS_H
#define GRAPHPART_TRANSFORMS_CHANGEDELEMENTS_H

#include "mlir/IR/Operation.h"

namespace mlir::gp {

/// In the loops under `root`, an element stored as `select(c, v, old)`, with
/// `old` loaded from the same element earlier in the same block and nothing
/// written in between, is stored only where it changes: `if (c) store v`
/// (or `if (!c)` for `select(c, old, v)`), and the load of the old value
/// goes when nothing else reads it. That is the form of a scatter at a
/// position held on the device (a key/value cache's index_copy_ walks the
/// whole cache to write one row) and of masked updates in place: the loops
/// then write what changes and read nothing of the rest. Each element is
/// its own iteration's, so leaving it alone is storing its value back.
void storeOnlyChangedElements(Operation *root);

} // namespace mlir::gp

#endif // GRAPHPART_TRANSFORMS_CHANGEDELEMENTS_H
