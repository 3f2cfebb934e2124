//===- RowLoops.cpp - ops that work row by row ----------------------------===//

#include "GraphPart/Analysis/RowLoops.h"

#include "llvm/ADT/EquivalenceClasses.h"

using namespace mlir;

std::optional<SmallVector<int64_t>>
mlir::gp::getLoopSizes(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op->getNumRegions() != 1 ||
      op->getNumResults() != 0)
    return std::nullopt;
  if (llvm::any_of(op.getIndexingMapsArray(),
                   [](AffineMap map) { return map.getNumSymbols() != 0; }))
    return std::nullopt;
  return op.getStaticLoopRanges();
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

std::optional<unsigned>
mlir::gp::getRowAccessResults(AffineMap map, ArrayRef<int64_t> rowSizes) {
  unsigned rows = rowSizes.size();
  unsigned next = 0; // the first result not matched to a row loop yet
  for (unsigned dim = 0; dim < rows; ++dim) {
    AffineExpr result =
        next < map.getNumResults() ? map.getResult(next) : AffineExpr();
    if (result && result == getAffineDimExpr(dim, map.getContext())) {
      ++next;
      continue;
    }
    if (rowSizes[dim] != 1)
      return std::nullopt;
    // A unit row loop: a constant 0 in its place, or nothing.
    if (auto constant = dyn_cast_or_null<AffineConstantExpr>(result);
        constant && constant.getValue() == 0)
      ++next;
  }
  for (AffineExpr result : map.getResults().drop_front(next))
    for (unsigned dim = 0; dim < rows; ++dim)
      if (result.isFunctionOfDim(dim))
        return std::nullopt;
  return next;
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
  std::optional<SmallVector<int64_t>> sizes = getLoopSizes(op);
  if (!sizes || sizes->size() < rows ||
      ArrayRef(*sizes).take_front(rows) != rowSizes ||
      llvm::any_of(ArrayRef(*sizes).drop_front(rows), ShapedType::isDynamic))
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
  ArrayRef<int64_t> opRowSizes = ArrayRef(*sizes).take_front(rows);
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    // A reduction writes one element per row: its output is indexed by
    // the row loops alone.
    std::optional<unsigned> rowResults = getRowAccessResults(map, opRowSizes);
    if (!rowResults || (reduction && map.getNumResults() != *rowResults))
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
  for (linalg::LinalgOp op : ops) {
    ArrayRef<int64_t> rowSizes =
        ArrayRef(op.getStaticLoopRanges()).take_front(rows);
    for (OpOperand &operand : op->getOpOperands())
      if (written.contains(operand.get()) &&
          !getRowAccessResults(op.getMatchingIndexingMap(&operand), rowSizes))
        return false;
  }
  return true;
}

bool mlir::gp::shareRowSizes(ArrayRef<linalg::LinalgOp> ops, unsigned rows) {
  if (ops.empty())
    return true;
  linalg::LinalgOp first = ops.front();
  if (llvm::none_of(first.getStaticLoopRanges(), ShapedType::isDynamic))
    return true;
  // Two ops that index one buffer by their rows have the same row sizes
  // (each op's loop sizes are its operands' sizes); the ops must all be
  // connected so.
  llvm::EquivalenceClasses<unsigned> classes;
  llvm::DenseMap<Value, unsigned> firstRowReader;
  for (auto [position, constOp] : llvm::enumerate(ops)) {
    linalg::LinalgOp op = constOp;
    // The row sizes are read off such a buffer (a unit row loop left out
    // of every map leaves none).
    if (!getRowSizeSource(op, rows))
      return false;
    classes.insert(position);
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()) ||
          !isRowAccess(op.getMatchingIndexingMap(&operand), rows))
        continue;
      auto [known, inserted] =
          firstRowReader.try_emplace(operand.get(), position);
      if (!inserted)
        classes.unionSets(known->second, position);
    }
  }
  return classes.getNumClasses() == 1;
}

Value mlir::gp::getRowSizeSource(linalg::LinalgOp op, unsigned rows) {
  for (OpOperand &operand : op->getOpOperands())
    if (isa<MemRefType>(operand.get().getType()) &&
        isRowAccess(op.getMatchingIndexingMap(&operand), rows))
      return operand.get();
  return {};
}
