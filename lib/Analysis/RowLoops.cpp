//===- RowLoops.cpp - ops that work row by row ----------------------------===//

#include "GraphPart/Analysis/RowLoops.h"

using namespace mlir;

std::optional<SmallVector<int64_t>>
mlir::gp::getStaticLoopSizes(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op->getNumRegions() != 1 ||
      op->getNumResults() != 0)
    return std::nullopt;
  if (llvm::any_of(op.getIndexingMapsArray(),
                   [](AffineMap map) { return map.getNumSymbols() != 0; }))
    return std::nullopt;
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  if (llvm::any_of(sizes, ShapedType::isDynamic))
    return std::nullopt;
  return sizes;
}

bool mlir::gp::isRowAccess(AffineMap map, unsigned rows) {
  if (map.getNumResults() < rows)
    return false;
  for (unsigned dim = 0; dim < rows; ++dim)
    if (map.getResult(dim) != getAffineDimExpr(dim, map.getContext()))
      return false;
  for (AffineExpr result : map.getResults().drop_front(rows))
    for (unsigned dim = 0; dim < rows; ++dim)
      if (result.isFunctionOfDim(dim))
        return false;
  return true;
}

std::optional<unsigned> mlir::gp::getReductionRows(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned rows = 0;
  while (rows < iterators.size() &&
         iterators[rows] == utils::IteratorType::parallel)
    ++rows;
  if (rows == 0 || rows == iterators.size())
    return std::nullopt;
  for (utils::IteratorType iterator : ArrayRef(iterators).drop_front(rows))
    if (iterator != utils::IteratorType::reduction)
      return std::nullopt;
  return rows;
}

bool mlir::gp::worksOnRows(linalg::LinalgOp op, unsigned rows,
                           ArrayRef<int64_t> rowSizes) {
  std::optional<SmallVector<int64_t>> sizes = getStaticLoopSizes(op);
  if (!sizes || sizes->size() < rows ||
      ArrayRef(*sizes).take_front(rows) != rowSizes)
    return false;
  if (op.getNumReductionLoops() > 0) {
    if (getReductionRows(op) != rows)
      return false;
  } else {
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    if (llvm::any_of(ArrayRef(iterators).take_front(rows),
                     [](utils::IteratorType iterator) {
                       return iterator != utils::IteratorType::parallel;
                     }))
      return false;
  }
  bool reduction = op.getNumReductionLoops() > 0;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    // A reduction writes one element per row: its output is indexed by
    // the row loops alone.
    if (!isRowAccess(map, rows) || (reduction && map.getNumResults() != rows))
      return false;
  }
  return true;
}

bool mlir::gp::rowsAreIndependent(ArrayRef<linalg::LinalgOp> ops,
                                  unsigned rows) {
  llvm::SmallPtrSet<Value, 8> written;
  for (linalg::LinalgOp op : ops)
    for (Value init : op.getDpsInits())
      written.insert(init);
  for (linalg::LinalgOp op : ops)
    for (OpOperand &operand : op->getOpOperands())
      if (written.contains(operand.get()) &&
          !isRowAccess(op.getMatchingIndexingMap(&operand), rows))
        return false;
  return true;
}
