//===- Reductions.cpp - block-parallel reductions for cuda kernels --------===//
//
// The generic loop mapping gives each parallel point one thread that runs
// the whole reduction on its own, and a reduction to a scalar one thread
// in all. Here a reduction gets a block per parallel point (a row of a
// softmax, a layer norm's statistics): the block's threads read the row
// with consecutive threads on consecutive elements, each folds its share
// into a register, and `gpu.all_reduce` (warp shuffles and shared memory
// once lowered to NVVM) combines the threads. When there are few parallel
// points and long reductions (a sum to a scalar), several blocks share a
// point and combine their results into the output with an atomic
// read-modify-write, which also folds in the output's initial value as
// linalg semantics require.
//
//===----------------------------------------------------------------------===//

#include "Reductions.h"

#include "BlockLowering.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::blocks;

namespace {

std::optional<int64_t> staticValue(Value value) {
  return getConstantIntValue(value);
}

/// Elements each thread of a split reduction folds (one round of four
/// loads): a 128x128 sum over 16 blocks took 3.9 us on the H200, over 4
/// blocks of 16 elements a thread 5.8 us.
constexpr int64_t kElementsPerThread = 4;
/// Reductions shorter than this stay in one block per point: a block of
/// 256 threads folds 4K elements (16 each, four rounds of four loads) in
/// about the time a second launch and atomics would add; longer ones are
/// latency-bound in one block (a 128x128 sum took 12 us on the H200).
constexpr int64_t kSplitFromLength = 1 << 12;
/// Blocks that share one reduction at most.
constexpr int64_t kMaxBlocksPerPoint = 1024;
/// Below this many parallel points, long reductions are split over blocks.
constexpr int64_t kSplitBelowPoints = 128;
/// Reductions shorter than this, over many parallel points, keep the
/// thread-per-point loop mapping (a block per point would idle).
constexpr int64_t kShortReduction = 32;
constexpr int64_t kManyPoints = 1024;

/// The iteration space of a linalg op split into its parallel and
/// reduction loops.
struct IterationSpace {
  SmallVector<Range> ranges;
  SmallVector<Value> parallelSizes, reductionSizes;
  SmallVector<unsigned> parallelDims, reductionDims;
  /// Static products of the parallel and reduction sizes, where known.
  std::optional<int64_t> points = 1, length = 1;

  IterationSpace(OpBuilder &builder, Location loc, linalg::LinalgOp op) {
    ranges = op.createLoopRanges(builder, loc);
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    for (auto [dim, range] : llvm::enumerate(ranges)) {
      Value size = getValueOrCreateConstantIndexOp(builder, loc, range.size);
      std::optional<int64_t> known = staticValue(size);
      bool parallel = iterators[dim] == utils::IteratorType::parallel;
      (parallel ? parallelSizes : reductionSizes).push_back(size);
      (parallel ? parallelDims : reductionDims).push_back(dim);
      std::optional<int64_t> &total = parallel ? points : length;
      total = known && total ? std::optional<int64_t>(*total * *known)
                             : std::nullopt;
    }
  }

  /// The op's loop indices from parallel and reduction indices (zeros
  /// where `reduction` is empty), offset by the ranges' starts.
  SmallVector<Value> loopIndices(OpBuilder &builder, Location loc,
                                 ArrayRef<Value> parallel,
                                 ArrayRef<Value> reduction) const {
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    SmallVector<Value> loops(ranges.size(), zero);
    for (auto [dim, index] : llvm::zip(parallelDims, parallel))
      loops[dim] = index;
    for (auto [dim, index] : llvm::zip(reductionDims, reduction))
      loops[dim] = index;
    for (auto [dim, range] : llvm::enumerate(ranges))
      if (!isZeroInteger(range.offset))
        loops[dim] = arith::AddIOp::create(
            builder, loc, loops[dim],
            getValueOrCreateConstantIndexOp(builder, loc, range.offset));
    return loops;
  }
};

/// A thread per parallel point, each running the reduction loops in order
/// as linalg defines them (outputs read and written in memory): for
/// reductions too short for a block, and payloads that are not a plain
/// combination. Unlike the generic loop mapping, the reduction loops stay
/// inside the thread whatever their position among the op's loops.
void lowerWithThreads(linalg::LinalgOp op, const IterationSpace &space,
                      int64_t maxThreads) {
  Location loc = op.getLoc();
  OpBuilder builder(op);
  Value numPoints = product(builder, loc, space.parallelSizes);
  Value threadCount = arith::ConstantIndexOp::create(builder, loc, maxThreads);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value blocks = arith::MaxUIOp::create(
      builder, loc,
      arith::CeilDivUIOp::create(builder, loc, numPoints, threadCount), one);
  gpu::LaunchOp launch = createLaunch(builder, loc, blocks, one, threadCount);
  Value point = arith::AddIOp::create(
      builder, loc,
      arith::MulIOp::create(builder, loc, launch.getBlockIds().x, threadCount),
      launch.getThreadIds().x);
  Value inside = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                       point, numPoints);
  auto guard = scf::IfOp::create(builder, loc, inside, /*withElse=*/false);
  builder.setInsertionPointToStart(guard.thenBlock());
  SmallVector<Value> parallelIndices =
      delinearize(builder, loc, point, space.parallelSizes);
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  auto loop = scf::ForOp::create(
      builder, loc, zero, product(builder, loc, space.reductionSizes), one);
  builder.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> reductionIndices =
      delinearize(builder, loc, loop.getInductionVar(), space.reductionSizes);
  computeAt(builder, loc, op,
            space.loopIndices(builder, loc, parallelIndices, reductionIndices));
  op->erase();
}

/// Folds `value` into the f32 element `buffer[indices]` with maximumf
/// (`isMax`) or minimumf, atomically. LLVM has no instruction for those
/// and makes them compare-and-swap loops, which serialise the blocks that
/// share an output (a 128x128 max over 16 blocks took 3x PyTorch's time).
/// As integers, non-negative floats order like their bits read as signed
/// ints and negative ones like their bits read as unsigned ints, reversed;
/// so one native integer atomic does it: max is a signed max for a
/// non-negative value and an unsigned min for a negative one (min the
/// mirror image). A NaN becomes the quiet NaN that wins either way:
/// positive for max (the largest signed), negative for min (the largest
/// unsigned, and negative as signed).
void foldMinMaxAtomically(OpBuilder &builder, Location loc, bool isMax,
                          Value value, Value buffer, ValueRange indices) {
  MLIRContext *context = builder.getContext();
  Type i32 = builder.getI32Type();
  APFloat quietNaN = APFloat::getQNaN(APFloat::IEEEsingle(), !isMax);
  Value nan = arith::ConstantOp::create(
      builder, loc, builder.getF32FloatAttr(quietNaN.convertToFloat()));
  Value isNaN = arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::UNO,
                                      value, value);
  value = arith::SelectOp::create(builder, loc, isNaN, nan, value);
  Value bits = arith::BitcastOp::create(builder, loc, i32, value);
  Value negative =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, bits,
                            arith::ConstantIntOp::create(builder, loc, i32, 0));

  // The element's address: aligned pointer + (offset + indices . strides) * 4.
  auto metadata =
      memref::ExtractStridedMetadataOp::create(builder, loc, buffer);
  Value element = metadata.getOffset();
  for (auto [index, stride] : llvm::zip(indices, metadata.getStrides()))
    element = arith::AddIOp::create(
        builder, loc, element,
        arith::MulIOp::create(builder, loc, index, stride));
  Value address = arith::AddIOp::create(
      builder, loc,
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer),
      arith::MulIOp::create(builder, loc, element,
                            arith::ConstantIndexOp::create(builder, loc, 4)));
  Value address64 =
      arith::IndexCastOp::create(builder, loc, builder.getI64Type(), address);
  Value pointer = LLVM::IntToPtrOp::create(
      builder, loc, LLVM::LLVMPointerType::get(context), address64);

  auto branches = scf::IfOp::create(builder, loc, negative, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(branches.thenBlock());
  LLVM::AtomicRMWOp::create(
      builder, loc, isMax ? LLVM::AtomicBinOp::umin : LLVM::AtomicBinOp::umax,
      pointer, bits, LLVM::AtomicOrdering::monotonic);
  builder.setInsertionPointToStart(branches.elseBlock());
  LLVM::AtomicRMWOp::create(
      builder, loc, isMax ? LLVM::AtomicBinOp::max : LLVM::AtomicBinOp::min,
      pointer, bits, LLVM::AtomicOrdering::monotonic);
}

LogicalResult lowerReduction(linalg::LinalgOp op, int64_t maxThreads,
                             const InitialFills &fills) {
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() == 0)
    return failure();
  // Outputs must be indexed by parallel loops only: each parallel point
  // then owns its outputs.
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (OpOperand &init : op.getDpsInitsMutable())
    for (AffineExpr expr : op.getMatchingIndexingMap(&init).getResults()) {
      bool reductionDim = false;
      expr.walk([&](AffineExpr sub) {
        if (auto dim = dyn_cast<AffineDimExpr>(sub))
          reductionDim |=
              iterators[dim.getPosition()] == utils::IteratorType::reduction;
      });
      if (reductionDim)
        return failure();
    }

  Location loc = op.getLoc();
  OpBuilder builder(op);
  IterationSpace space(builder, loc, op);
  std::optional<SmallVector<Combiner>> combiners = matchCombiners(op);
  std::optional<int64_t> points = space.points, length = space.length;
  if (!combiners || (length && *length < kShortReduction &&
                     (!points || *points >= kManyPoints))) {
    lowerWithThreads(op, space, maxThreads);
    return success();
  }
  const SmallVector<Value> &parallelSizes = space.parallelSizes;
  const SmallVector<Value> &reductionSizes = space.reductionSizes;

  int64_t threads = threadsFor(length, maxThreads);
  // Few parallel points and long (or unknown) reductions: several blocks
  // per point, combined with atomics. Not into 64-bit integers: the index
  // checks' flag (an i64 maximum) is host memory mapped for the device,
  // where a device atomic over PCIe is not guaranteed to be one.
  bool split = points && *points < kSplitBelowPoints &&
               (!length || *length >= kSplitFromLength) &&
               llvm::all_of(*combiners, [](const Combiner &combiner) {
                 return combiner.atomicKind.has_value() &&
                        !combiner.accumulator.isInteger(64);
               });
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value numPoints = product(builder, loc, parallelSizes);
  Value numElements = product(builder, loc, reductionSizes);
  Value threadCount = arith::ConstantIndexOp::create(builder, loc, threads);
  Value blocksPerPoint = one;
  if (split) {
    // ceil(elements / (threads * kElementsPerThread)), clamped.
    Value chunk = arith::ConstantIndexOp::create(builder, loc,
                                                 threads * kElementsPerThread);
    Value wanted = arith::CeilDivUIOp::create(builder, loc, numElements, chunk);
    Value limit = arith::ConstantIndexOp::create(
        builder, loc,
        std::max<int64_t>(1, kMaxBlocksPerPoint /
                                 std::max<int64_t>(1, points.value_or(1))));
    blocksPerPoint = arith::MinUIOp::create(
        builder, loc, arith::MaxUIOp::create(builder, loc, wanted, one), limit);
  }

  // Blocks along x are the parallel points (x allows 2^31 - 1 of them),
  // along y the blocks that share a point. A launch needs one block: with
  // no parallel points, the one block reduces nothing and writes nothing.
  Value gridPoints = arith::MaxUIOp::create(builder, loc, numPoints, one);
  gpu::LaunchOp launch =
      createLaunch(builder, loc, gridPoints, blocksPerPoint, threadCount);
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  gpu::KernelDim3 threadIds = launch.getThreadIds();
  Value point = blockIds.x;
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value pointExists = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::ult, point, numPoints);
  Value elements =
      arith::SelectOp::create(builder, loc, pointExists, numElements, zero);
  // The first element of this thread, and the stride over all threads of
  // all blocks that share the point.
  Value start = arith::AddIOp::create(
      builder, loc,
      arith::MulIOp::create(builder, loc, blockIds.y, threadCount),
      threadIds.x);
  Value stride =
      arith::MulIOp::create(builder, loc, threadCount, blocksPerPoint);
  SmallVector<Value> parallelIndices =
      delinearize(builder, loc, point, parallelSizes);

  llvm::SmallPtrSet<Operation *, 4> combineOps;
  for (const Combiner &combiner : *combiners)
    combineOps.insert(combiner.op);
  // Folds reduction element `index` (linear) into `accumulators`, one per
  // combiner.
  auto foldElement = [&](OpBuilder &b, Value index,
                         ValueRange accumulators) -> SmallVector<Value> {
    SmallVector<Value> reductionIndices =
        delinearize(b, loc, index, reductionSizes);
    SmallVector<Value> loops =
        space.loopIndices(b, loc, parallelIndices, reductionIndices);
    IRMapping mapping;
    loadInputs(b, loc, op, loops, mapping);
    clonePayload(b, op, loops, combineOps, mapping);
    SmallVector<Value> folded;
    for (auto [combiner, accumulated] : llvm::zip(*combiners, accumulators)) {
      Value partial = mapping.lookupOrDefault(combiner.partial);
      if (isa<FloatType>(partial.getType()))
        partial = convertFloat(b, loc, partial, combiner.accumulator);
      folded.push_back(combine(b, loc, combiner, accumulated, partial));
    }
    return folded;
  };

  // Rows no longer than kUnroll elements per thread need no rounds.
  bool shortRows = !split && length && *length <= threads * kUnroll;
  SmallVector<Value> partials =
      foldStrided(builder, loc, start, elements, stride,
                  shortRows ? 1 : kUnroll, *combiners, foldElement);

  // Combine the threads, then one thread folds the block's result into the
  // output.
  SmallVector<Value> totals;
  for (auto [combiner, partial] : llvm::zip(*combiners, partials))
    totals.push_back(gpu::AllReduceOp::create(
        builder, loc, partial,
        gpu::AllReduceOperationAttr::get(builder.getContext(), combiner.kind),
        /*uniform=*/true));
  Value first = arith::AndIOp::create(
      builder, loc, pointExists,
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, threadIds.x,
                            zero));
  auto writer = scf::IfOp::create(builder, loc, first, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(writer.thenBlock());
    SmallVector<Value> loops =
        space.loopIndices(builder, loc, parallelIndices, {});
    for (auto [combiner, total, init] :
         llvm::zip(*combiners, totals, op.getDpsInitsMutable())) {
      Value buffer = init.get();
      Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
      SmallVector<Value> indices =
          applyMap(builder, loc, op.getMatchingIndexingMap(&init), loops);
      Value result = total;
      if (split) {
        if (isa<FloatType>(elementType))
          result = convertFloat(builder, loc, result, elementType);
        arith::AtomicRMWKind kind = *combiner.atomicKind;
        if (elementType.isF32() && (kind == arith::AtomicRMWKind::maximumf ||
                                    kind == arith::AtomicRMWKind::minimumf)) {
          foldMinMaxAtomically(builder, loc,
                               kind == arith::AtomicRMWKind::maximumf, result,
                               buffer, indices);
          continue;
        }
        memref::AtomicRMWOp::create(builder, loc, kind, result, buffer,
                                    indices);
        continue;
      }
      foldIntoOutput(builder, loc, combiner, result, buffer, indices,
                     fills.lookup(buffer));
    }
  }
  if (!split)
    for (OpOperand &init : op.getDpsInitsMutable())
      if (linalg::FillOp fill = fills.lookup(init.get()))
        fill->erase();
  op->erase();
  return success();
}

} // namespace

void mlir::gp::lowerReductionsToBlocks(
    func::FuncOp func, int64_t maxThreads, bool rowKernels,
    int64_t rowElementsPerThread, const llvm::DenseSet<Value> &unreadAfter) {
  if (rowKernels)
    lowerRowKernels(func, maxThreads, rowElementsPerThread, unreadAfter);
  SmallVector<std::pair<linalg::LinalgOp, InitialFills>> candidates;
  // Only top-level linalg ops: one nested in a loop of the kernel body runs
  // once per iteration, which the loop mapping handles.
  InitialFills pending;
  for (Operation &op : func.getBody().front()) {
    if (matchPattern(&op, m_Constant()))
      continue;
    auto fill = dyn_cast<linalg::FillOp>(op);
    if (fill && fill.hasPureBufferSemantics()) {
      pending[fill.getOutputs().front()] = fill;
      continue;
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp) {
      pending.clear();
      continue;
    }
    // The fills of this op's outputs, unless it also reads them as inputs.
    InitialFills fills;
    for (Value init : linalgOp.getDpsInits())
      if (linalg::FillOp fill = pending.lookup(init);
          fill && fill.getInputs().front().getType() ==
                      getElementTypeOrSelf(init.getType()))
        fills[init] = fill;
    for (Value input : linalgOp.getDpsInputs())
      fills.erase(input);
    candidates.push_back({linalgOp, std::move(fills)});
    pending.clear();
  }
  for (auto &[op, fills] : candidates)
    (void)lowerReduction(op, maxThreads, fills);
}
