//===- BlockLowering.cpp - shared pieces of the block lowerings -----------===//
//
// Recognising how reductions combine, and running a linalg payload at
// given loop indices inside a launch.
//
//===----------------------------------------------------------------------===//

#include "BlockLowering.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace {

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

} // namespace

namespace mlir::gp::blocks {

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
    // Floats narrower than f32 accumulate in f32. Shuffles move 32 or 64
    // bits (convert-gpu-to-nvvm splits a 64-bit one in two); narrower
    // integers keep the loop mapping.
    if (auto floatType = dyn_cast<FloatType>(type)) {
      if (floatType.getWidth() > 64)
        return std::nullopt;
      if (floatType.getWidth() < 32)
        accumulator = Float32Type::get(op.getContext());
    } else if (auto intType = dyn_cast<IntegerType>(type)) {
      if (intType.getWidth() != 32 && intType.getWidth() != 64)
        return std::nullopt;
    } else {
      return std::nullopt;
    }
    std::optional<TypedAttr> neutral = arith::getNeutralElement(combine);
    if (!neutral)
      return std::nullopt;
    TypedAttr accumulatorNeutral = *neutral;
    if (auto floatNeutral = dyn_cast<FloatAttr>(*neutral);
        floatNeutral && accumulator != type) {
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

Value convertFloat(OpBuilder &builder, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  auto from = cast<FloatType>(value.getType());
  auto to = cast<FloatType>(type);
  if (from.getWidth() < to.getWidth())
    return arith::ExtFOp::create(builder, loc, to, value);
  return arith::TruncFOp::create(builder, loc, to, value);
}

Value combine(OpBuilder &builder, Location loc, const Combiner &combiner,
              Value lhs, Value rhs) {
  OperationState state(loc, combiner.op->getName().getIdentifier(),
                       ValueRange{lhs, rhs}, TypeRange{lhs.getType()},
                       combiner.op->getAttrs());
  return builder.create(state)->getResult(0);
}

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

Value product(OpBuilder &builder, Location loc, ArrayRef<Value> sizes) {
  Value result = arith::ConstantIndexOp::create(builder, loc, 1);
  for (Value size : sizes)
    result = arith::MulIOp::create(builder, loc, result, size);
  return result;
}

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

int64_t threadsFor(std::optional<int64_t> length, int64_t maxThreads) {
  int64_t threads = 32;
  int64_t limit = std::max<int64_t>(32, maxThreads);
  int64_t wanted = length ? *length : limit;
  while (threads < limit && threads < wanted)
    threads *= 2;
  return std::min(threads, limit);
}

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

void mapInputs(linalg::LinalgOp op, IRMapping &mapping,
               llvm::function_ref<Value(OpOperand *input)> load) {
  for (OpOperand *input : op.getDpsInputOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(input);
    if (!isa<MemRefType>(input->get().getType()))
      mapping.map(arg, input->get());
    else if (op.payloadUsesValueFromOperand(input))
      mapping.map(arg, load(input));
  }
}

void loadInputs(OpBuilder &builder, Location loc, linalg::LinalgOp op,
                ArrayRef<Value> loops, IRMapping &mapping) {
  mapInputs(op, mapping, [&](OpOperand *input) -> Value {
    return memref::LoadOp::create(
        builder, loc, input->get(),
        applyMap(builder, loc, op.getMatchingIndexingMap(input), loops));
  });
}

void foldIntoOutput(OpBuilder &builder, Location loc, const Combiner &combiner,
                    Value total, Value buffer, ValueRange indices,
                    linalg::FillOp fill) {
  Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
  Value current =
      fill ? fill.getInputs().front()
           : memref::LoadOp::create(builder, loc, buffer, indices).getResult();
  if (isa<FloatType>(elementType))
    current = convertFloat(builder, loc, current, combiner.accumulator);
  Value combined = combine(builder, loc, combiner, current, total);
  if (isa<FloatType>(elementType))
    combined = convertFloat(builder, loc, combined, elementType);
  memref::StoreOp::create(builder, loc, combined, buffer, indices);
}

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

void computeFromInputs(OpBuilder &builder, Location loc, linalg::LinalgOp op,
                       ArrayRef<Value> loops, IRMapping &mapping,
                       KeepYielded keep) {
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
  for (auto [init, yielded, indices] :
       llvm::zip(op.getDpsInitsMutable(), yield.getValues(), outputIndices)) {
    Value value = mapping.lookupOrDefault(yielded);
    if (!keep || !keep(init, value))
      memref::StoreOp::create(builder, loc, value, init.get(), indices);
  }
}

void computeAt(OpBuilder &builder, Location loc, linalg::LinalgOp op,
               ArrayRef<Value> loops) {
  IRMapping mapping;
  loadInputs(builder, loc, op, loops, mapping);
  computeFromInputs(builder, loc, op, loops, mapping);
}

SmallVector<Value> foldStrided(OpBuilder &builder, Location loc, Value start,
                               Value elements, Value stride, int64_t unroll,
                               ArrayRef<Combiner> combiners, FoldElement fold) {
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
    // The thread has ceil((elements - start) / stride) elements; the
    // rounds take as many whole groups of `unroll` of them as there are.
    Value remaining = arith::SelectOp::create(
        builder, loc,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ugt, elements,
                              start),
        arith::SubIOp::create(builder, loc, elements, start), zero);
    Value owned = arith::CeilDivUIOp::create(builder, loc, remaining, stride);
    Value wholeRounds = arith::DivUIOp::create(
        builder, loc, owned,
        arith::ConstantIndexOp::create(builder, loc, unroll));
    roundsEnd = arith::AddIOp::create(
        builder, loc, start,
        arith::MulIOp::create(builder, loc, wholeRounds, roundStride));
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
      llvm::append_range(folded, fold(builder, index,
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

} // namespace mlir::gp::blocks
