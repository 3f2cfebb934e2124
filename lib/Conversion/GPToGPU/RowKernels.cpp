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
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

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
    std::optional<SmallVector<int64_t>> sizes = getLoopSizes(run[reductionAt]);
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
    // Static rows: at least one, and no more than a grid holds (dynamic
    // ones are checked when the kernel runs).
    int64_t staticRows = 1;
    for (int64_t size : group.rowSizes)
      if (!ShapedType::isDynamic(size))
        staticRows *= size;
    size_t work = llvm::count_if(group.ops, [](linalg::LinalgOp op) {
      return !isa<linalg::FillOp>(op.getOperation());
    });
    if (work >= 2 && staticRows > 0 && staticRows <= INT32_MAX &&
        rowsAreIndependent(group.ops, group.rows) &&
        shareRowSizes(group.ops, group.rows))
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

/// Elements of a row a thread keeps in registers at most. Up to this many
/// per thread, each thread's elements are unrolled: every input element is
/// read from memory once and the group's later ops take it from
/// registers (a softmax reads its row once, like PyTorch's, where the
/// strided loops read it once per op and wait on one load at a time).
constexpr int64_t kMaxResidentElements = 16;

/// The loops of a group's op after the rows, flattened.
struct InnerSpace {
  SmallVector<Value> sizes;
  int64_t count = 1;
  /// Which distinct shape of the group's inner loops this is: elements of
  /// ops of the same shape at the same position are the same.
  unsigned shape = 0;
};

/// Lowers one row group to one launch where its last op was (every scalar
/// its ops use is defined by then): a block per row, the ops in order with
/// a barrier between them. A reduction folds each thread's share of its
/// row in registers, `gpu.all_reduce` combines the threads and the first
/// thread writes the row's result (with the initial value of a fill right
/// before it); an elementwise op runs its row's elements over the threads.
/// Thread t takes elements t, t + threads, ... of each op's row:
/// consecutive threads on consecutive elements.
class RowGroupLowering {
public:
  RowGroupLowering(const RowGroup &group, int64_t maxThreads,
                   int64_t elementsPerThread,
                   const llvm::DenseSet<Value> &unreadAfter)
      : group(group), builder(group.ops.back()),
        loc(group.ops.back()->getLoc()) {
    int64_t longest = 1;
    for (linalg::LinalgOp op : group.ops)
      longest = std::max(longest, innerCount(op));
    threads =
        threadsFor(llvm::divideCeil(longest, elementsPerThread), maxThreads);
    resident = llvm::divideCeil(longest, threads) <= kMaxResidentElements;
    for (linalg::LinalgOp op : group.ops)
      for (Value init : op.getDpsInits())
        written.insert(init);
    if (resident)
      findHeldOutputs(unreadAfter);
  }

  void lower() {
    // Dynamic row sizes are those of a buffer the first op indexes by its
    // rows (shareRowSizes: every op's).
    Value sizeSource = getRowSizeSource(group.ops.front(), group.rows);
    SmallVector<Value> rowSizes;
    bool dynamic = false;
    for (auto [dim, size] : llvm::enumerate(group.rowSizes)) {
      dynamic |= ShapedType::isDynamic(size);
      rowSizes.push_back(
          ShapedType::isDynamic(size)
              ? memref::DimOp::create(builder, loc, sizeSource, dim).getResult()
              : constant(size));
    }
    Value numRows = product(builder, loc, rowSizes);
    threadCount = constant(threads);
    // A launch needs a block: with no rows, the one block does nothing.
    Value blocks =
        dynamic ? arith::MaxUIOp::create(builder, loc, numRows, constant(1))
                : numRows;
    gpu::LaunchOp launch =
        createLaunch(builder, loc, blocks, constant(1), threadCount);
    Value block = launch.getBlockIds().x;
    if (dynamic) {
      Value isRow = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ult, block, numRows);
      auto rowExists = scf::IfOp::create(builder, loc, isRow,
                                         /*withElse=*/false);
      builder.setInsertionPointToStart(rowExists.thenBlock());
    }
    thread = launch.getThreadIds().x;
    rowIndices = delinearize(builder, loc, block, rowSizes);

    SmallVector<Operation *> lowered;
    for (size_t position = 0; position < group.ops.size(); ++position) {
      linalg::LinalgOp op = group.ops[position];
      lowered.push_back(op);
      if (isInitialFill(position))
        continue;
      if (op.getNumReductionLoops() > 0)
        lowerReduction(op);
      else
        lowerElementwise(op);
      // The next op reads what this one wrote, in other threads.
      if (position + 1 < group.ops.size() && needsBarrierAfter(position))
        gpu::BarrierOp::create(builder, loc);
    }
    for (Operation *op : llvm::reverse(lowered))
      op->erase();
  }

private:
  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }

  /// Fills `held`: the group's outputs whose rows stay in registers. Nothing
  /// reads one after the kernel (`unreadAfter`), one elementwise op of the
  /// group writes each of its elements once, and only later ops of the
  /// group read it, with the writer's inner loops and indexing map, so that
  /// a thread reads exactly the elements it wrote. A softmax's scaled
  /// scores and exponentials are such rows: storing them would write the
  /// score matrix three times over.
  void findHeldOutputs(const llvm::DenseSet<Value> &unreadAfter) {
    for (size_t position = 0; position < group.ops.size(); ++position) {
      linalg::LinalgOp writer = group.ops[position];
      if (writer.getNumReductionLoops() > 0 ||
          isa<linalg::FillOp>(writer.getOperation()))
        continue;
      for (OpOperand &init : writer.getDpsInitsMutable()) {
        Value buffer = init.get();
        AffineMap map = writer.getMatchingIndexingMap(&init);
        if (!unreadAfter.contains(buffer) ||
            writer.payloadUsesValueFromOperand(&init) ||
            !writesEachElementOnce(writer, map))
          continue;
        ArrayRef<int64_t> inner =
            ArrayRef(writer.getStaticLoopRanges()).drop_front(group.rows);
        Operation *writerOp = writer.getOperation();
        auto readsAsWritten = [&](Operation *user) {
          if (user == writerOp)
            return llvm::count(user->getOperands(), buffer) == 1;
          const auto *reader =
              llvm::find_if(group.ops, [&](linalg::LinalgOp op) {
                return op.getOperation() == user;
              });
          if (reader == group.ops.end() ||
              reader - group.ops.begin() <= static_cast<ptrdiff_t>(position))
            return false;
          linalg::LinalgOp op = *reader;
          if (llvm::is_contained(op.getDpsInits(), buffer) ||
              ArrayRef(op.getStaticLoopRanges()).drop_front(group.rows) !=
                  inner)
            return false;
          return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
            return input->get() != buffer ||
                   op.getMatchingIndexingMap(input) == map;
          });
        };
        if (llvm::all_of(buffer.getUsers(), readsAsWritten))
          held.insert(buffer);
      }
    }
  }

  /// Whether other threads may touch, after the op at `position`, memory it
  /// touched: not when each of its outputs is held (what it stores, a
  /// guarded tail, only its own thread reads back) and no later op writes
  /// a buffer it reads.
  bool needsBarrierAfter(size_t position) const {
    linalg::LinalgOp op = group.ops[position];
    if (op.getNumReductionLoops() > 0 ||
        !llvm::all_of(op.getDpsInits(),
                      [&](Value init) { return held.contains(init); }))
      return true;
    for (linalg::LinalgOp later : ArrayRef(group.ops).drop_front(position + 1))
      for (Value init : later.getDpsInits())
        if (llvm::is_contained(op->getOperands(), init))
          return true;
    return false;
  }

  /// Whether `op` (all parallel loops) writes each element of the output
  /// it reaches through `map` at one point of its loops: the map permutes
  /// the loops, leaving out only loops of one iteration.
  static bool writesEachElementOnce(linalg::LinalgOp op, AffineMap map) {
    if (!map.isProjectedPermutation())
      return false;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    for (unsigned loop = 0; loop < map.getNumDims(); ++loop)
      if (!map.isFunctionOfDim(loop) && ranges[loop] != 1)
        return false;
    return true;
  }

  int64_t innerCount(linalg::LinalgOp op) const {
    int64_t count = 1;
    for (int64_t size :
         ArrayRef(op.getStaticLoopRanges()).drop_front(group.rows))
      count *= size;
    return count;
  }

  InnerSpace innerSpace(linalg::LinalgOp op) {
    InnerSpace inner;
    ArrayRef<int64_t> sizes =
        ArrayRef(op.getStaticLoopRanges()).drop_front(group.rows);
    for (int64_t size : sizes) {
      inner.sizes.push_back(constant(size));
      inner.count *= size;
    }
    auto *known = llvm::find(shapes, sizes);
    inner.shape = known - shapes.begin();
    if (known == shapes.end())
      shapes.push_back(llvm::to_vector(sizes));
    return inner;
  }

  /// The op's loop indices at element `index` of its row.
  SmallVector<Value> loopsAt(const InnerSpace &inner, Value index) {
    SmallVector<Value> loops(rowIndices);
    llvm::append_range(loops, delinearize(builder, loc, index, inner.sizes));
    return loops;
  }

  /// The thread's `k`th element of a row.
  Value elementIndex(int64_t k) {
    return k == 0 ? thread
                  : arith::AddIOp::create(builder, loc, thread,
                                          constant(k * threads));
  }

  /// Whether the op at `position` is a fill of the next op's reduction
  /// output, which is then its initial value (recorded in `fills`).
  bool isInitialFill(size_t position) {
    auto fill = dyn_cast<linalg::FillOp>(*group.ops[position]);
    if (!fill || position + 1 == group.ops.size())
      return false;
    linalg::LinalgOp next = group.ops[position + 1];
    Value buffer = fill.getOutputs().front();
    if (next.getNumReductionLoops() == 0 ||
        !llvm::is_contained(next.getDpsInits(), buffer) ||
        llvm::is_contained(next.getDpsInputs(), buffer) ||
        fill.getInputs().front().getType() !=
            getElementTypeOrSelf(buffer.getType()))
      return false;
    fills[buffer] = fill;
    return true;
  }

  /// Maps the payload's inputs at the thread's `k`th element (`loops`) to
  /// their values. An element of a buffer the group does not write is
  /// loaded once for the whole group and then taken from registers; one
  /// that an earlier op wrote (a row's maximum) once per op. A `guarded`
  /// element (the tail, inside its bounds check) takes loaded values but
  /// leaves its own loads to itself: they do not dominate what follows.
  void loadResident(linalg::LinalgOp op, const InnerSpace &inner, int64_t k,
                    ArrayRef<Value> loops, IRMapping &mapping,
                    bool guarded = false) {
    mapInputs(op, mapping, [&](OpOperand *input) -> Value {
      Value operand = input->get();
      AffineMap map = op.getMatchingIndexingMap(input);
      // A held row's element is the value its writer kept for this thread
      // (a guarded tail element was stored: it loads it back).
      if (!written.contains(operand) || held.contains(operand)) {
        ElementKey key{operand, map, k, inner.shape};
        Value value = loaded.lookup(key);
        if (!value) {
          value = memref::LoadOp::create(builder, loc, operand,
                                         applyMap(builder, loc, map, loops));
          if (!guarded)
            loaded[key] = value;
        }
        return value;
      }
      SmallVector<Value> indices = applyMap(builder, loc, map, loops);
      bool ownOutput = llvm::is_contained(op.getDpsInits(), operand);
      auto *known = llvm::find_if(loadedByOp, [&](const LoadedElement &entry) {
        return entry.buffer == operand && entry.indices == indices;
      });
      if (!ownOutput && known != loadedByOp.end())
        return known->value;
      Value value = memref::LoadOp::create(builder, loc, operand, indices);
      if (!ownOutput && !guarded)
        loadedByOp.push_back({operand, indices, value});
      return value;
    });
  }

  /// The thread's elements every thread has (each row's first
  /// `threads * whole`), with their loop indices and inputs loaded, loads
  /// first so that they are in flight together.
  struct Unrolled {
    SmallVector<SmallVector<Value>> loops;
    SmallVector<IRMapping> inputs;
  };
  Unrolled loadWholeElements(linalg::LinalgOp op, const InnerSpace &inner) {
    Unrolled unrolled;
    int64_t whole = inner.count / threads;
    unrolled.loops.resize(whole);
    unrolled.inputs.resize(whole);
    for (int64_t k = 0; k < whole; ++k) {
      unrolled.loops[k] = loopsAt(inner, elementIndex(k));
      loadResident(op, inner, k, unrolled.loops[k], unrolled.inputs[k]);
    }
    return unrolled;
  }

  /// Whether the thread has an element after its whole ones, and which:
  /// rows that are no multiple of the threads end in a partial round.
  std::optional<int64_t> tailElement(const InnerSpace &inner) const {
    int64_t whole = inner.count / threads;
    if (whole * threads == inner.count)
      return std::nullopt;
    return whole;
  }

  Value tailGuard(const InnerSpace &inner, Value index) {
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, index,
                                 constant(inner.count));
  }

  /// `values` combined pairwise (a tree, not a chain of dependent ops).
  Value combineAll(const Combiner &combiner, SmallVector<Value> values) {
    while (values.size() > 1) {
      SmallVector<Value> next;
      for (size_t i = 0; i + 1 < values.size(); i += 2)
        next.push_back(
            combine(builder, loc, combiner, values[i], values[i + 1]));
      if (values.size() % 2)
        next.push_back(values.back());
      values = std::move(next);
    }
    return values.front();
  }

  /// The thread's partial results of the reduction `op`, one per combiner,
  /// with its elements unrolled.
  SmallVector<Value>
  foldResident(linalg::LinalgOp op, const InnerSpace &inner,
               ArrayRef<Combiner> combiners,
               const llvm::SmallPtrSetImpl<Operation *> &combineOps) {
    Unrolled unrolled = loadWholeElements(op, inner);
    SmallVector<SmallVector<Value>> partials(combiners.size());
    for (auto [loops, mapping] : llvm::zip(unrolled.loops, unrolled.inputs)) {
      clonePayload(builder, op, loops, combineOps, mapping);
      for (auto [combiner, values] : llvm::zip(combiners, partials))
        values.push_back(partialOf(combiner, mapping));
    }
    SmallVector<Value> folded;
    for (auto [combiner, values] : llvm::zip(combiners, partials))
      folded.push_back(values.empty() ? arith::ConstantOp::create(
                                            builder, loc, combiner.neutral)
                                      : combineAll(combiner, values));
    std::optional<int64_t> tail = tailElement(inner);
    if (!tail)
      return folded;
    Value index = elementIndex(*tail);
    SmallVector<Type> types;
    for (const Combiner &combiner : combiners)
      types.push_back(combiner.accumulator);
    auto guard = scf::IfOp::create(builder, loc, types, tailGuard(inner, index),
                                   /*withElse=*/true);
    OpBuilder::InsertionGuard insertion(builder);
    builder.setInsertionPointToStart(guard.thenBlock());
    SmallVector<Value> loops = loopsAt(inner, index);
    IRMapping mapping;
    loadResident(op, inner, *tail, loops, mapping, /*guarded=*/true);
    clonePayload(builder, op, loops, combineOps, mapping);
    SmallVector<Value> withTail;
    for (auto [combiner, value] : llvm::zip(combiners, folded))
      withTail.push_back(
          combine(builder, loc, combiner, value, partialOf(combiner, mapping)));
    scf::YieldOp::create(builder, loc, withTail);
    builder.setInsertionPointToStart(guard.elseBlock());
    scf::YieldOp::create(builder, loc, folded);
    return SmallVector<Value>(guard.getResults());
  }

  /// The value `combiner` folds, from a payload cloned into `mapping`, in
  /// the accumulator type.
  Value partialOf(const Combiner &combiner, const IRMapping &mapping) {
    Value partial = mapping.lookupOrDefault(combiner.partial);
    if (isa<FloatType>(partial.getType()))
      partial = convertFloat(builder, loc, partial, combiner.accumulator);
    return partial;
  }

  void lowerReduction(linalg::LinalgOp op) {
    loadedByOp.clear();
    InnerSpace inner = innerSpace(op);
    SmallVector<Combiner> combiners = *matchCombiners(op);
    llvm::SmallPtrSet<Operation *, 4> combineOps;
    for (const Combiner &combiner : combiners)
      combineOps.insert(combiner.op);
    SmallVector<Value> partials;
    if (resident) {
      partials = foldResident(op, inner, combiners, combineOps);
    } else {
      auto foldElement = [&](OpBuilder &b, Value index,
                             ValueRange accumulators) -> SmallVector<Value> {
        SmallVector<Value> loops = loopsAt(inner, index);
        IRMapping mapping;
        loadInputs(b, loc, op, loops, mapping);
        clonePayload(b, op, loops, combineOps, mapping);
        SmallVector<Value> folded;
        for (auto [combiner, accumulated] : llvm::zip(combiners, accumulators))
          folded.push_back(combine(b, loc, combiner, accumulated,
                                   partialOf(combiner, mapping)));
        return folded;
      };
      partials = foldStrided(builder, loc, thread, constant(inner.count),
                             threadCount, kUnroll, combiners, foldElement);
    }
    SmallVector<Value> totals;
    for (auto [combiner, partial] : llvm::zip(combiners, partials))
      totals.push_back(gpu::AllReduceOp::create(
          builder, loc, partial,
          gpu::AllReduceOperationAttr::get(builder.getContext(), combiner.kind),
          /*uniform=*/true));
    Value firstThread = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, thread, constant(0));
    auto writer =
        scf::IfOp::create(builder, loc, firstThread, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(writer.thenBlock());
    SmallVector<Value> loops(rowIndices);
    loops.append(op.getNumLoops() - group.rows, constant(0));
    for (auto [combiner, total, init] :
         llvm::zip(combiners, totals, op.getDpsInitsMutable()))
      foldIntoOutput(
          builder, loc, combiner, total, init.get(),
          applyMap(builder, loc, op.getMatchingIndexingMap(&init), loops),
          fills.lookup(init.get()));
    // A later reduction into the same buffer folds into what this one
    // wrote, not into the fill.
    for (Value init : op.getDpsInits())
      fills.erase(init);
  }

  void lowerElementwise(linalg::LinalgOp op) {
    loadedByOp.clear();
    InnerSpace inner = innerSpace(op);
    if (!resident) {
      auto loop = scf::ForOp::create(builder, loc, thread,
                                     constant(inner.count), threadCount);
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(loop.getBody());
      computeAt(builder, loc, op, loopsAt(inner, loop.getInductionVar()));
      return;
    }
    Unrolled unrolled = loadWholeElements(op, inner);
    for (auto [k, loops, mapping] :
         llvm::enumerate(unrolled.loops, unrolled.inputs))
      computeFromInputs(
          builder, loc, op, loops, mapping,
          [&, k = k](OpOperand &init, Value value) {
            if (!held.contains(init.get()))
              return false;
            loaded[ElementKey{init.get(), op.getMatchingIndexingMap(&init),
                              static_cast<int64_t>(k), inner.shape}] = value;
            return true;
          });
    std::optional<int64_t> tail = tailElement(inner);
    if (!tail)
      return;
    Value index = elementIndex(*tail);
    auto guard = scf::IfOp::create(builder, loc, tailGuard(inner, index),
                                   /*withElse=*/false);
    OpBuilder::InsertionGuard insertion(builder);
    builder.setInsertionPointToStart(guard.thenBlock());
    SmallVector<Value> loops = loopsAt(inner, index);
    IRMapping mapping;
    loadResident(op, inner, *tail, loops, mapping, /*guarded=*/true);
    computeFromInputs(builder, loc, op, loops, mapping);
  }

  const RowGroup &group;
  OpBuilder builder;
  Location loc;
  int64_t threads;
  bool resident;
  Value thread, threadCount;
  SmallVector<Value> rowIndices;
  InitialFills fills;
  /// Buffers an op of the group writes: read from memory where used, but
  /// those `held` in registers (findHeldOutputs).
  llvm::DenseSet<Value> written;
  llvm::DenseSet<Value> held;
  /// Input elements in registers, by buffer, indexing map, the thread's
  /// element and the inner shape.
  using ElementKey = std::tuple<Value, AffineMap, int64_t, unsigned>;
  llvm::DenseMap<ElementKey, Value> loaded;
  /// Elements of buffers the group writes that the op being lowered has
  /// loaded (its own outputs excepted): valid until the next barrier.
  struct LoadedElement {
    Value buffer;
    SmallVector<Value> indices;
    Value value;
  };
  SmallVector<LoadedElement> loadedByOp;
  SmallVector<SmallVector<int64_t>> shapes;
};

} // namespace

void mlir::gp::blocks::lowerRowKernels(
    func::FuncOp func, int64_t maxThreads, int64_t elementsPerThread,
    const llvm::DenseSet<Value> &unreadAfter) {
  for (const RowGroup &group : findRowGroups(func))
    RowGroupLowering(group, maxThreads, elementsPerThread, unreadAfter).lower();
}
