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
/// With `distinctMemRefs` (the loops come from a kernel whose outputs share
/// storage with none of its other operands), stores to other memrefs
/// between the load and the store do not stop it: the cache updates of a
/// key and a value merged into one kernel.
void storeOnlyChangedElements(Operation *root, bool distinctMemRefs = false);

/// In the loop nests under `root` (an scf.parallel, or a perfect nest of
/// scf.for), one whose every store is guarded by `iv_k == x`, the same
/// loop k and the same x for all, x computed from values the nest does not
/// vary (pure ops, and loads of memory the nest does not store to), drops
/// loop k: the rest of the nest runs once with iv_k = x, when x is one of
/// loop k's iterations, and nothing otherwise. After
/// storeOnlyChangedElements, that is a cache written at a position held on
/// the device: the loops walk the written row, not the cache.
void iterateOnlyWhereStored(Operation *root);

} // namespace mlir::gp

#endif // GRAPHPART_TRANSFORMS_CHANGEDELEMENTS_H
