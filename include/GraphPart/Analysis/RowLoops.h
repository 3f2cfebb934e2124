//===- RowLoops.h - ops that work row by row -----------------------*- C++ -*-===//
//
// A softmax or a layer norm is a few linalg ops that share their leading
// parallel loops, the rows: reductions of everything else in the row and
// elementwise ops over it. Such ops, one after the other, may run a row
// at a time (a block per row on the GPU) when each writes only its own
// row. gp-fuse-kernels merges their kernels on that ground and
// convert-gp-to-gpu lowers them so.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_ANALYSIS_ROWLOOPS_H
#define GRAPHPART_ANALYSIS_ROWLOOPS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir::gp {

/// The loop sizes of `op` (ShapedType::kDynamic where not static), or
/// nothing when a map has symbols or the op works on tensors.
std::optional<SmallVector<int64_t>> getLoopSizes(linalg::LinalgOp op);

/// Whether `map` (over loops whose first `rows` are the row loops) reads or
/// writes only the row's own elements: its first results are the row
/// loops in order, and no other result uses one.
bool isRowAccess(AffineMap map, unsigned rows);

/// How many leading results of `map` (over loops whose first
/// `rowSizes.size()` are the row loops, of those sizes) address the row,
/// when `map` reads or writes only the row's own elements; nothing
/// otherwise. As isRowAccess, except that a row loop of extent 1 may be
/// written as 0 or left out (it is always 0): a [1, L] row space indexes
/// an [L, N] buffer as (d1, d2) and a [1, L] one as (0, d1), as
/// bufferized PyTorch programs with a batch of one do.
std::optional<unsigned> getRowAccessResults(AffineMap map,
                                            ArrayRef<int64_t> rowSizes);

/// The row loops of a reduction: its parallel loops, when they all come
/// before its reduction loops.
std::optional<unsigned> getReductionRows(linalg::LinalgOp op);

/// Whether `op` works row by row over `rows` leading loops of sizes
/// `rowSizes` (kDynamic for a dynamic one): the other loops static, the
/// row loops parallel, a reduction reducing
/// every other loop into outputs indexed by the rows alone, and every
/// output written only at the op's row.
bool worksOnRows(linalg::LinalgOp op, unsigned rows,
                 ArrayRef<int64_t> rowSizes);

/// Whether `ops`, run in order a row at a time, give what they give run
/// one after the other: a buffer any op writes is read and written by all
/// of them only at their own row (getRowAccessResults; distinct values are
/// distinct memory).
bool rowsAreIndependent(ArrayRef<linalg::LinalgOp> ops, unsigned rows);

/// Whether `ops`, each working on `rows` leading row loops of the same
/// static-or-dynamic sizes (worksOnRows), certainly have the same row
/// sizes: static ones are compared, and with dynamic ones every op is
/// linked to the others through buffers that both index by their rows
/// (linalg takes an op's loop sizes from its operands' sizes), and each
/// has such a buffer (getRowSizeSource).
bool shareRowSizes(ArrayRef<linalg::LinalgOp> ops, unsigned rows);

/// A buffer operand of `op` whose first `rows` dimensions are `op`'s row
/// loop sizes (one `op` indexes by its rows), or null.
Value getRowSizeSource(linalg::LinalgOp op, unsigned rows);

} // namespace mlir::gp

#endif // GRAPHPART_ANALYSIS_ROWLOOPS_H
