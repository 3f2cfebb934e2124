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

#include "GraphPart/Analysis/RowLoops.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::gp;

namespace {

/// How one output of a reduction is combined: `yield combine(partial, out)`
/// with `partial` computed from the inputs only.
struct Combiner {
  Operation *op;
  gpu::AllReduceOperation kind;
  /// The payload value folded into the output.
  Value partial;
  /// What threads accumulate in: f32 for narrower floats.
  Type accumulator;
  /// The neutral element, in the accumulator type.
  TypedAttr neutral;
  /// The atomic read-modify-write that folds a block's result into the
  /// output, where LLVM has one (none for mul and xor).
  std::optional<arith::AtomicRMWKind> atomicKind;
};

std::optional<gpu::AllReduceOperation> allReduceKind(Operation *op) {
  using Kind = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<Kind>>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return Kind::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return Kind::MUL; })
      .Case<arith::MaximumFOp>([](auto) { return Kind::MAXIMUMF; })
      .Case<arith::MinimumFOp>([](auto) { return Kind::MINIMUMF; })
      .Case<arith::MaxNumFOp>([](auto) { return Kind::MAXNUMF; })
      .Case<arith::MinNumFOp>([](auto) { return Kind::MINNUMF; })
      .Case<arith::MaxSIOp>([](auto) { return Kind::MAXSI; })
      .Case<arith::MinSIOp>([](auto) { return Kind::MINSI; })
      .Case<arith::MaxUIOp>([](auto) { return Kind::MAXUI; })
      .Case<arith::MinUIOp>([](auto) { return Kind::MINUI; })
      .Case<arith::AndIOp>([](auto) { return Kind::AND; })
      .Case<arith::OrIOp>([](auto) { return Kind::OR; })
      .Case<arith::XOrIOp>([](auto) { return Kind::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<arith::AtomicRMWKind> atomicKind(Operation *op) {
  using Kind = arith::AtomicRMWKind;
  return llvm::TypeSwitch<Operation *, std::optional<Kind>>(op)
      .Case<arith::AddFOp>([](auto) { return Kind::addf; })
      .Case<arith::AddIOp>([](auto) { return Kind::addi; })
      .Case<arith::MaximumFOp>([](auto) { return Kind::maximumf; })
      .Case<arith::MinimumFOp>([](auto) { return Kind::minimumf; })
      .Case<arith::MaxNumFOp>([](auto) { return Kind::maxnumf; })
      .Case<arith::MinNumFOp>([](auto) { return Kind::minnumf; })
      .Case<arith::MaxSIOp>([](auto) { return Kind::maxs; })
      .Case<arith::MinSIOp>([](auto) { return Kind::mins; })
      .Case<arith::MaxUIOp>([](auto) { return Kind::maxu; })
      .Case<arith::MinUIOp>([](auto) { return Kind::minu; })
      .Case<arith::AndIOp>([](auto) { return Kind::andi; })
      .Case<arith::OrIOp>([](auto) { return Kind::ori; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether `value` (in `body`) depends on any of `outputs`.
bool dependsOnOutputs(Value value, Block &body,
                      const llvm::SmallPtrSetImpl<Value> &outputs) {
  SmallVector<Value> work{value};
  llvm::SmallPtrSet<Value, 16> seen;
  while (!work.empty()) {
    Value current = work.pop_back_val();
    if (!seen.insert(current).second)
      continue;
    if (outputs.contains(current))
      return true;
    Operation *definer = current.getDefiningOp();
    if (!definer || definer->getBlock() != &body)
      continue;
    if (definer->getNumRegions() != 0)
      return true; // Nested regions may read anything: be conservative.
    llvm::append_range(work, definer->getOperands());
  }
  return false;
}

/// The combiners of `op`'s outputs, or nothing when any output is not a
/// recognised reduction the block lowering handles.
std::optional<SmallVector<Combiner>> matchCombiners(linalg::LinalgOp op) {
  Block &body = *op.getBlock();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Block::BlockArgListType outputs = op.getRegionOutputArgs();
  llvm::SmallPtrSet<Value, 4> outputSet(outputs.begin(), outputs.end());
  SmallVector<Combiner> combiners;
  for (auto [index, out] : llvm::enumerate(outputs)) {
    Value yielded = yield.getOperand(index);
    Operation *combine = yielded.getDefiningOp();
    if (!combine || combine->getBlock() != &body ||
        combine->getNumOperands() != 2 || combine->getNumResults() != 1)
      return std::nullopt;
    std::optional<gpu::AllReduceOperation> kind = allReduceKind(combine);
    if (!kind)
      return std::nullopt;
    Value lhs = combine->getOperand(0), rhs = combine->getOperand(1);
    Value partial = lhs == out ? rhs : rhs == out ? lhs : Value();
    if (!partial || partial == out ||
        dependsOnOutputs(partial, body, outputSet))
      return std::nullopt;
    // The output is read only by its combiner; the combined value only
    // goes to the yield.
    if (!out.hasOneUse() || !yielded.hasOneUse())
      return std::nullopt;
    Type type = out.getType();
    Type accumulator = type;
    if (auto floatType = dyn_cast<FloatType>(type)) {
      if (floatType.getWidth() > 32)
        return std::nullopt;
      accumulator = Float32Type::get(op.getContext());
    } else if (auto intType = dyn_cast<IntegerType>(type)) {
      // Shuffles move 32-bit values; wider integers keep the loop mapping.
      if (intType.getWidth() != 32)
        return std::nullopt;
    } else {
      return std::nullopt;
    }
    std::optional<TypedAttr> neutral = arith::getNeutralElement(combine);
    if (!neutral)
      return std::nullopt;
    TypedAttr accumulatorNeutral = *neutral;
    if (auto floatNeutral = dyn_cast<FloatAttr>(*neutral)) {
      APFloat value = floatNeutral.getValue();
      bool lostInfo = false;
      value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                    &lostInfo);
      accumulatorNeutral = FloatAttr::get(accumulator, value);
    }
    combiners.push_back({combine, *kind, partial, accumulator,
                         accumulatorNeutral, atomicKind(combine)});
  }
  return combiners;
}

/// `value` converted to `type` (float widening or narrowing).
Value convertFloat(OpBuilder &builder, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  auto from = cast<FloatType>(value.getType());
  auto to = cast<FloatType>(type);
  if (from.getWidth() < to.getWidth())
    return arith::ExtFOp::create(builder, loc, to, value);
  return arith::TruncFOp::create(builder, loc, to, value);
}

/// `combiner`'s operation applied to two values of `type`.
Value combine(OpBuilder &builder, Location loc, const Combiner &combiner,
              Value lhs, Value rhs) {
  OperationState state(loc, combiner.op->getName().getIdentifier(),
                       ValueRange{lhs, rhs}, TypeRange{lhs.getType()},
                       combiner.op->getAttrs());
  return builder.create(state)->getResult(0);
}

/// Splits `linear` into indices of `sizes`, the last one fastest.
SmallVector<Value> delinearize(OpBuilder &builder, Location loc, Value linear,
                               ArrayRef<Value> sizes) {
  SmallVector<Value> indices(sizes.size());
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (i == 0) {
      indices[i] = linear;
      break;
    }
    indices[i] = arith::RemUIOp::create(builder, loc, linear, sizes[i]);
    linear = arith::DivUIOp::create(builder, loc, linear, sizes[i]);
  }
  return indices;
}

/// The product of `sizes` (1 for none).
Value product(OpBuilder &builder, Location loc, ArrayRef<Value> sizes) {
  Value result = arith::ConstantIndexOp::create(builder, loc, 1);
  for (Value size : sizes)
    result = arith::MulIOp::create(builder, loc, result, size);
  return result;
}

/// The indices `map` selects from the loop indices `loops`.
SmallVector<Value> applyMap(OpBuilder &builder, Location loc, AffineMap map,
                            ArrayRef<Value> loops) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      indices.push_back(loops[dim.getPosition()]);
      continue;
    }
    indices.push_back(affine::AffineApplyOp::create(
        builder, loc, AffineMap::get(map.getNumDims(), 0, expr), loops));
  }
  return indices;
}

std::optional<int64_t> staticValue(Value value) {
  return getConstantIntValue(value);
}

/// Threads per block for reductions of `length` elements: a power of two,
/// at least a warp, at most `maxThreads`.
int64_t threadsFor(std::optional<int64_t> length, int64_t maxThreads) {
  int64_t threads = 32;
  int64_t limit = std::max<int64_t>(32, maxThreads);
  int64_t wanted = length ? *length : limit;
  while (threads < limit && threads < wanted)
    threads *= 2;
  return std::min(threads, limit);
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
/// Elements a thread folds per round of its loop, each into its own
/// partial result.
constexpr int64_t kUnroll = 4;
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

/// A launch of `blocks` x `blocksY` blocks of `threads` threads, with the
/// builder inside it, before its terminator.
gpu::LaunchOp createLaunch(OpBuilder &builder, Location loc, Value blocks,
                           Value blocksY, Value threads) {
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  auto launch = gpu::LaunchOp::create(builder, loc, blocks, blocksY, one,
                                      threads, one, one);
  Block &body = launch.getBody().front();
  if (body.empty() || !body.back().hasTrait<OpTrait::IsTerminator>()) {
    builder.setInsertionPointToEnd(&body);
    gpu::TerminatorOp::create(builder, loc);
  }
  builder.setInsertionPoint(&body.back());
  return launch;
}

/// Maps the payload's input arguments to values loaded at `loops` (scalar
/// operands map to themselves), and its `linalg.index` ops to `loops`.
void loadInputs(OpBuilder &builder, Location loc, linalg::LinalgOp op,
                ArrayRef<Value> loops, IRMapping &mapping) {
  for (OpOperand *input : op.getDpsInputOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(input);
    Value operand = input->get();
    if (!isa<MemRefType>(operand.getType())) {
      mapping.map(arg, operand);
      continue;
    }
    if (!op.payloadUsesValueFromOperand(input))
      continue;
    SmallVector<Value> indices =
        applyMap(builder, loc, op.getMatchingIndexingMap(input), loops);
    mapping.map(arg, memref::LoadOp::create(builder, loc, operand, indices));
  }
}

/// Clones the payload's ops but `skip` (and the terminator), mapping
/// `linalg.index` ops to `loops`.
void clonePayload(OpBuilder &builder, linalg::LinalgOp op,
                  ArrayRef<Value> loops,
                  const llvm::SmallPtrSetImpl<Operation *> &skip,
                  IRMapping &mapping) {
  for (Operation &bodyOp : op.getBlock()->without_terminator()) {
    if (skip.contains(&bodyOp))
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(bodyOp)) {
      mapping.map(index.getResult(), loops[index.getDim()]);
      continue;
    }
    builder.clone(bodyOp, mapping);
  }
}

/// Runs `op`'s payload at `loops`: loads its inputs (and the outputs it
/// reads), computes, stores the yielded values into its outputs.
void computeAt(OpBuilder &builder, Location loc, linalg::LinalgOp op,
               ArrayRef<Value> loops) {
  IRMapping mapping;
  loadInputs(builder, loc, op, loops, mapping);
  SmallVector<SmallVector<Value>> outputIndices;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    outputIndices.push_back(
        applyMap(builder, loc, op.getMatchingIndexingMap(&init), loops));
    if (op.payloadUsesValueFromOperand(&init))
      mapping.map(op.getMatchingBlockArgument(&init),
                  memref::LoadOp::create(builder, loc, init.get(),
                                         outputIndices.back()));
  }
  clonePayload(builder, op, loops, llvm::SmallPtrSet<Operation *, 1>(),
               mapping);
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  for (auto [init, value, indices] :
       llvm::zip(op.getDpsInitsMutable(), yield.getValues(), outputIndices))
    memref::StoreOp::create(builder, loc, mapping.lookupOrDefault(value),
                            init.get(), indices);
}

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
            space.loopIndices(builder, loc, parallelIndices,
                              reductionIndices));
  op->erase();
}

using FoldElement = llvm::function_ref<SmallVector<Value>(
    OpBuilder &, Value /*index*/, ValueRange /*accumulators*/)>;

/// Each thread's partial results over the elements `start`, `start +
/// stride`, ... below `elements`, one per combiner: `fold` folds one
/// element into the accumulators. With `unroll` > 1 a thread folds that
/// many elements per round into as many independent partial results, so
/// their loads are in flight together (one chain of dependent loads is
/// latency-bound); a second loop takes what is left.
SmallVector<Value> foldStrided(OpBuilder &builder, Location loc, Value start,
                               Value elements, Value stride, int64_t unroll,
                               ArrayRef<Combiner> combiners,
                               FoldElement fold) {
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  size_t numCombiners = combiners.size();
  SmallVector<Value> inits;
  for (int64_t copy = 0; copy < unroll; ++copy)
    for (const Combiner &combiner : combiners)
      inits.push_back(
          arith::ConstantOp::create(builder, loc, combiner.neutral));
  Value roundsEnd = start;
  scf::ForOp rounds;
  if (unroll > 1) {
    Value roundStride = arith::MulIOp::create(
        builder, loc, stride,
        arith::ConstantIndexOp::create(builder, loc, unroll));
    Value remaining = arith::SelectOp::create(
        builder, loc,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ugt, elements,
                              start),
        arith::SubIOp::create(builder, loc, elements, start), zero);
    roundsEnd = arith::AddIOp::create(
        builder, loc, start,
        arith::MulIOp::create(
            builder, loc,
            arith::DivUIOp::create(builder, loc, remaining, roundStride),
            roundStride));
    rounds =
        scf::ForOp::create(builder, loc, start, roundsEnd, roundStride, inits);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(rounds.getBody());
    SmallVector<Value> folded;
    for (int64_t copy = 0; copy < unroll; ++copy) {
      Value index = arith::AddIOp::create(
          builder, loc, rounds.getInductionVar(),
          arith::MulIOp::create(
              builder, loc, stride,
              arith::ConstantIndexOp::create(builder, loc, copy)));
      llvm::append_range(folded,
                         fold(builder, index,
                              rounds.getRegionIterArgs().slice(
                                  copy * numCombiners, numCombiners)));
    }
    scf::YieldOp::create(builder, loc, folded);
  }
  auto loop = scf::ForOp::create(
      builder, loc, roundsEnd, elements, stride,
      rounds ? ValueRange(rounds.getResults().take_front(numCombiners))
             : ValueRange(ArrayRef<Value>(inits).take_front(numCombiners)));
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(loop.getBody());
    scf::YieldOp::create(
        builder, loc,
        fold(builder, loop.getInductionVar(), loop.getRegionIterArgs()));
  }
  SmallVector<Value> partials(loop.getResults());
  for (int64_t copy = 1; copy < unroll; ++copy)
    for (auto [index, combiner] : llvm::enumerate(combiners))
      partials[index] = combine(builder, loc, combiner, partials[index],
                                rounds.getResult(copy * numCombiners + index));
  return partials;
}

/// `linalg.fill` ops that come right before the reduction that reads
/// their output as its initial value: such a fill need not run on its own
/// when one block owns each output element (its value is folded in where
/// the block writes its result).
using InitialFills = llvm::DenseMap<Value, linalg::FillOp>;

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
  // per point, combined with atomics.
  bool split = points && *points < kSplitBelowPoints &&
               (!length || *length >= kSplitFromLength) &&
               llvm::all_of(*combiners, [](const Combiner &combiner) {
                 return combiner.atomicKind.has_value();
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
      foldStrided(builder, loc, start, elements, stride, shortRows ? 1 : kUnroll,
                  *combiners, foldElement);

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
        memref::AtomicRMWOp::create(builder, loc, *combiner.atomicKind, result,
                                    buffer, indices);
        continue;
      }
      Value current;
      if (linalg::FillOp fill = fills.lookup(buffer))
        current = fill.getInputs().front();
      else
        current = memref::LoadOp::create(builder, loc, buffer, indices);
      if (isa<FloatType>(elementType))
        current = convertFloat(builder, loc, current, combiner.accumulator);
      Value combined = combine(builder, loc, combiner, current, result);
      if (isa<FloatType>(elementType))
        combined = convertFloat(builder, loc, combined, elementType);
      memref::StoreOp::create(builder, loc, combined, buffer, indices);
    }
  }
  if (!split)
    for (OpOperand &init : op.getDpsInitsMutable())
      if (linalg::FillOp fill = fills.lookup(init.get()))
        fill->erase();
  op->erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Row kernels: a softmax or layer norm in one launch
//===----------------------------------------------------------------------===//

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
      if (linalg::LinalgOp op = run[reductionAt];
          op.getNumReductionLoops() > 0)
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
    for (int64_t size : ArrayRef(op.getStaticLoopRanges()).drop_front(group.rows))
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
    for (int64_t size : ArrayRef(op.getStaticLoopRanges()).drop_front(group.rows)) {
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
      SmallVector<Value> partials = foldStrided(
          builder, loc, thread, elements, threadCount,
          innerCount <= threads * kUnroll ? 1 : kUnroll, combiners,
          foldElement);
      SmallVector<Value> totals;
      for (auto [combiner, partial] : llvm::zip(combiners, partials))
        totals.push_back(gpu::AllReduceOp::create(
            builder, loc, partial,
            gpu::AllReduceOperationAttr::get(builder.getContext(),
                                             combiner.kind),
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
      auto loop = scf::ForOp::create(builder, loc, thread, elements, threadCount);
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

void mlir::gp::lowerReductionsToBlocks(func::FuncOp func, int64_t maxThreads,
                                       bool rowKernels) {
  if (rowKernels)
    for (const RowGroup &group : findRowGroups(func))
      lowerRowGroup(group, maxThreads);
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
