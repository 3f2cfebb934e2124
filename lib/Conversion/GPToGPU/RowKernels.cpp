//===- RowKernels.cpp - softmax and layer norm as one launch -------------===//
//
// A row group (consecutive linalg ops over the same leading "row" loops,
// RowLoops.h) runs as one launch with a block per row: its ops in order,
// a barrier between them, reductions combined with `gpu.all_reduce`.
//
//===----------------------------------------------------------------------===//

#include "BlockLowering.h"

#include "GraphPart/Analysis/RowLoops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::blocks;

namespace {

/// Consecutive linalg ops of a kernel body that run as one launch with a
/// block per row: each op's first `rows` loops are the rows (of the same
/// static sizes), a reduction reduces everything else, and every op writes
/// only its row's elements.
struct RowGroup {
  unsigned rows = 0;
  SmallVector<int64_t> rowSizes;
  SmallVector<linalg::LinalgOp> ops;
};

/// Whether `op` joins a row group: it works on the rows and, if a
/// reduction, combines in a way the block lowering handles.
bool fitsRows(linalg::LinalgOp op, unsigned rows, ArrayRef<int64_t> rowSizes) {
  return worksOnRows(op, rows, rowSizes) &&
         (op.getNumReductionLoops() == 0 || matchCombiners(op));
}

/// The groups worth a launch of their own in one run of consecutive linalg
/// ops: with a reduction and at least one more op that is not a fill.
void formRowGroups(ArrayRef<linalg::LinalgOp> run,
                   SmallVectorImpl<RowGroup> &groups) {
  size_t next = 0;
  while (next < run.size()) {
    // The rows come from the first reduction.
    size_t reductionAt = next;
    std::optional<unsigned> rows;
    for (; reductionAt < run.size() && !rows; ++reductionAt)
      if (linalg::LinalgOp op = run[reductionAt]; op.getNumReductionLoops() > 0)
        rows = getReductionRows(op);
    if (!rows)
      return;
    --reductionAt;
    std::optional<SmallVector<int64_t>> sizes =
        getStaticLoopSizes(run[reductionAt]);
    if (!sizes) {
      next = reductionAt + 1;
      continue;
    }
    RowGroup group;
    group.rows = *rows;
    group.rowSizes.assign(sizes->begin(), sizes->begin() + *rows);
    // The ops right before the reduction that fit, then those after it.
    size_t begin = reductionAt;
    while (begin > next && fitsRows(run[begin - 1], group.rows, group.rowSizes))
      --begin;
    size_t end = begin;
    while (end < run.size() && fitsRows(run[end], group.rows, group.rowSizes))
      ++end;
    next = std::max(end, reductionAt + 1);
    if (end <= reductionAt)
      continue; // the reduction itself does not fit (no combiners)
    group.ops.assign(run.begin() + begin, run.begin() + end);
    int64_t numRows = 1;
    for (int64_t size : group.rowSizes)
      numRows *= size;
    size_t work = llvm::count_if(group.ops, [](linalg::LinalgOp op) {
      return !isa<linalg::FillOp>(op.getOperation());
    });
    if (work >= 2 && numRows > 0 && numRows <= INT32_MAX &&
        rowsAreIndependent(group.ops, group.rows))
      groups.push_back(std::move(group));
  }
}

/// The row groups of `func`'s body, each in one run of linalg ops with
/// only pure scalar ops (constants) between them.
SmallVector<RowGroup> findRowGroups(func::FuncOp func) {
  SmallVector<RowGroup> groups;
  SmallVector<linalg::LinalgOp> run;
  for (Operation &op : func.getBody().front()) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      run.push_back(linalgOp);
      continue;
    }
    if (isPure(&op) && op.getNumRegions() == 0)
      continue;
    formRowGroups(run, groups);
    run.clear();
  }
  formRowGroups(run, groups);
  return groups;
}

/// Lowers `group` to one launch where its last op was (every scalar its
/// ops use is defined by then): a block per row, the ops in order with a
/// barrier between them. A reduction folds strided shares of its row into
/// registers, `gpu.all_reduce` combines them and the first thread writes
/// the row's result (with the initial value of a fill right before it); an
/// elementwise op runs its row's elements strided over the threads. The
/// row stays in the SM's cache between the ops, so the data is read from
/// memory about once where separate launches read it once per op.
void lowerRowGroup(const RowGroup &group, int64_t maxThreads) {
  linalg::LinalgOp last = group.ops.back();
  Location loc = last.getLoc();
  OpBuilder builder(last);
  int64_t longest = 1;
  for (linalg::LinalgOp op : group.ops) {
    int64_t inner = 1;
    for (int64_t size :
         ArrayRef(op.getStaticLoopRanges()).drop_front(group.rows))
      inner *= size;
    longest = std::max(longest, inner);
  }
  int64_t threads = threadsFor(longest, maxThreads);
  int64_t numRows = 1;
  SmallVector<Value> rowSizes;
  for (int64_t size : group.rowSizes) {
    numRows *= size;
    rowSizes.push_back(arith::ConstantIndexOp::create(builder, loc, size));
  }
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value threadCount = arith::ConstantIndexOp::create(builder, loc, threads);
  gpu::LaunchOp launch = createLaunch(
      builder, loc, arith::ConstantIndexOp::create(builder, loc, numRows), one,
      threadCount);
  Value thread = launch.getThreadIds().x;
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  SmallVector<Value> rowIndices =
      delinearize(builder, loc, launch.getBlockIds().x, rowSizes);
  Value firstThread = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::eq, thread, zero);

  InitialFills fills;
  SmallVector<Operation *> lowered;
  for (size_t position = 0; position < group.ops.size(); ++position) {
    linalg::LinalgOp op = group.ops[position];
    lowered.push_back(op);
    // A fill of the next op's reduction output is its initial value.
    if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation());
        fill && position + 1 < group.ops.size()) {
      linalg::LinalgOp next = group.ops[position + 1];
      Value buffer = fill.getOutputs().front();
      if (next.getNumReductionLoops() > 0 &&
          llvm::is_contained(next.getDpsInits(), buffer) &&
          !llvm::is_contained(next.getDpsInputs(), buffer) &&
          fill.getInputs().front().getType() ==
              getElementTypeOrSelf(buffer.getType())) {
        fills[buffer] = fill;
        continue;
      }
    }
    SmallVector<Value> innerSizes;
    int64_t innerCount = 1;
    for (int64_t size :
         ArrayRef(op.getStaticLoopRanges()).drop_front(group.rows)) {
      innerSizes.push_back(arith::ConstantIndexOp::create(builder, loc, size));
      innerCount *= size;
    }
    Value elements = arith::ConstantIndexOp::create(builder, loc, innerCount);
    auto loopsAt = [&](OpBuilder &b, Value index) {
      SmallVector<Value> loops(rowIndices);
      llvm::append_range(loops, delinearize(b, loc, index, innerSizes));
      return loops;
    };
    if (op.getNumReductionLoops() > 0) {
      SmallVector<Combiner> combiners = *matchCombiners(op);
      llvm::SmallPtrSet<Operation *, 4> combineOps;
      for (const Combiner &combiner : combiners)
        combineOps.insert(combiner.op);
      auto foldElement = [&](OpBuilder &b, Value index,
                             ValueRange accumulators) -> SmallVector<Value> {
        SmallVector<Value> loops = loopsAt(b, index);
        IRMapping mapping;
        loadInputs(b, loc, op, loops, mapping);
        clonePayload(b, op, loops, combineOps, mapping);
        SmallVector<Value> folded;
        for (auto [combiner, accumulated] :
             llvm::zip(combiners, accumulators)) {
          Value partial = mapping.lookupOrDefault(combiner.partial);
          if (isa<FloatType>(partial.getType()))
            partial = convertFloat(b, loc, partial, combiner.accumulator);
          folded.push_back(combine(b, loc, combiner, accumulated, partial));
        }
        return folded;
      };
      SmallVector<Value> partials =
          foldStrided(builder, loc, thread, elements, threadCount,
                      innerCount <= threads * kUnroll ? 1 : kUnroll, combiners,
                      foldElement);
      SmallVector<Value> totals;
      for (auto [combiner, partial] : llvm::zip(combiners, partials))
        totals.push_back(
            gpu::AllReduceOp::create(builder, loc, partial,
                                     gpu::AllReduceOperationAttr::get(
                                         builder.getContext(), combiner.kind),
                                     /*uniform=*/true));
      auto writer =
          scf::IfOp::create(builder, loc, firstThread, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(writer.thenBlock());
      SmallVector<Value> loops(rowIndices);
      loops.append(op.getNumLoops() - group.rows, zero);
      for (auto [combiner, total, init] :
           llvm::zip(combiners, totals, op.getDpsInitsMutable())) {
        Value buffer = init.get();
        Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
        SmallVector<Value> indices =
            applyMap(builder, loc, op.getMatchingIndexingMap(&init), loops);
        Value current;
        if (linalg::FillOp fill = fills.lookup(buffer))
          current = fill.getInputs().front();
        else
          current = memref::LoadOp::create(builder, loc, buffer, indices);
        if (isa<FloatType>(elementType))
          current = convertFloat(builder, loc, current, combiner.accumulator);
        Value combined = combine(builder, loc, combiner, current, total);
        if (isa<FloatType>(elementType))
          combined = convertFloat(builder, loc, combined, elementType);
        memref::StoreOp::create(builder, loc, combined, buffer, indices);
      }
      // A later reduction into the same buffer folds into what this one
      // wrote, not into the fill.
      for (Value init : op.getDpsInits())
        fills.erase(init);
    } else {
      auto loop =
          scf::ForOp::create(builder, loc, thread, elements, threadCount);
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(loop.getBody());
      computeAt(builder, loc, op, loopsAt(builder, loop.getInductionVar()));
    }
    // The next op reads what this one wrote, in other threads.
    if (position + 1 < group.ops.size())
      gpu::BarrierOp::create(builder, loc);
  }
  for (Operation *op : llvm::reverse(lowered))
    op->erase();
}

} // namespace

void mlir::gp::blocks::lowerRowKernels(func::FuncOp func, int64_t maxThreads) {
  for (const RowGroup &group : findRowGroups(func))
    lowerRowGroup(group, maxThreads);
}
