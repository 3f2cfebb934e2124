//===- FuseKernels.cpp - merge elementwise producers into consumers -------===//
//
// The gp-fuse-kernels pass. A producer kernel P whose output T only feeds
// one consumer kernel C is merged into C: the fused kernel computes P's
// value inline in C's linalg payload, reading P's inputs through the
// composed indexing maps, and T's buffer disappears; a cheap P read by
// several kernels is computed in each. The rule, and why each condition
// keeps results unchanged, is in Passes.td and docs/Architecture.md; it is
// checked in FusionRule.cpp, views are read through ViewIndexing.cpp, and
// row kernels are merged in RowMerging.cpp. This file rewrites.
//
// Fusion goes in rounds over each block: a round finds the fusable pairs
// with one dependence graph (BlockDependences) and fuses those that share
// no kernel with an earlier fusion of the round; the next round sees the
// fused kernels. Fusing only removes dependences between the other pairs
// of the round (the producer's reads move later, to its consumer, and read
// nothing the other pairs write), so a pair found legal stays legal.
//
//===----------------------------------------------------------------------===//

#include "KernelFusion.h"
#include "PassUtils.h"

#include "GraphPart/Analysis/BufferAliasAnalysis.h"
#include "GraphPart/Analysis/Dependences.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GraphPart/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPFUSEKERNELSPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::fusion;

namespace {

/// Longest name `P_C` a fused kernel gets; longer chains keep the
/// consumer's name with `_fused`.
constexpr size_t kMaxFusedNameLength = 48;

} // namespace

std::string mlir::gp::fusion::fusedName(StringRef producer,
                                        StringRef consumer) {
  std::string name = (producer + "_" + consumer).str();
  if (name.size() <= kMaxFusedNameLength)
    return name;
  if (consumer.ends_with("_fused"))
    return consumer.str();
  return (consumer + "_fused").str();
}

SmallVector<Block *> mlir::gp::fusion::blocksToFuse(FunctionOpInterface func) {
  SmallVector<Block *> blocks;
  func->walk([&](PartitionOp partition) {
    blocks.push_back(&partition.getBody().front());
  });
  if (blocks.empty())
    for (Block &block : func.getFunctionBody())
      blocks.push_back(&block);
  return blocks;
}

namespace {

/// The producer's loop index `expr` (over the consumer's loops) inside the
/// fused payload.
Value producerIndex(OpBuilder &builder, Location loc, AffineExpr expr,
                    unsigned numLoops) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return linalg::IndexOp::create(builder, loc, dim.getPosition());
  SmallVector<Value> indices;
  for (unsigned loop = 0; loop < numLoops; ++loop)
    indices.push_back(linalg::IndexOp::create(builder, loc, loop));
  return affine::AffineApplyOp::create(
      builder, loc, AffineMap::get(numLoops, 0, expr), indices);
}

/// Builds, at the builder's insertion point, the generic over `consume`'s
/// iteration space that computes `produce`'s payload wherever `consume`
/// reads one of `bufferArgs` (each with the map from its indices to the
/// producer's output). `mapping` maps the kernels' block arguments and
/// scalar ops to the fused kernel's.
void buildFusedGeneric(OpBuilder &builder, Location loc,
                       linalg::GenericOp produce, linalg::GenericOp consume,
                       const llvm::DenseMap<Value, AffineMap> &bufferArgs,
                       IRMapping &mapping) {
  unsigned numLoops = consume.getNumLoops();
  AffineMap producerOutput =
      produce.getMatchingIndexingMap(produce.getDpsInitOperand(0));
  AffineMap outputToLoops = inversePermutation(producerOutput);

  // Operands and maps: C's, with P's inputs in place of each read of T.
  SmallVector<Value> inputs, outputs;
  SmallVector<AffineMap> maps;
  SmallVector<AffineMap> producerLoops; // per read of T
  for (OpOperand *operand : consume.getDpsInputOperands()) {
    AffineMap map = consume.getMatchingIndexingMap(operand);
    auto read = bufferArgs.find(operand->get());
    if (read == bufferArgs.end()) {
      inputs.push_back(mapping.lookup(operand->get()));
      maps.push_back(map);
      continue;
    }
    AffineMap loops = outputToLoops.compose(read->second.compose(map));
    producerLoops.push_back(loops);
    for (OpOperand *input : produce.getDpsInputOperands()) {
      inputs.push_back(mapping.lookup(input->get()));
      maps.push_back(produce.getMatchingIndexingMap(input).compose(loops));
    }
  }
  for (OpOperand &init : consume.getDpsInitsMutable()) {
    outputs.push_back(mapping.lookup(init.get()));
    maps.push_back(consume.getMatchingIndexingMap(&init));
  }
  auto fused =
      linalg::GenericOp::create(builder, loc, TypeRange{}, inputs, outputs,
                                maps, consume.getIteratorTypesArray());

  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (Value value : llvm::concat<Value>(inputs, outputs)) {
    argTypes.push_back(getElementTypeOrSelf(value.getType()));
    argLocs.push_back(loc);
  }
  OpBuilder::InsertionGuard guard(builder);
  Block *block = builder.createBlock(&fused.getRegion(), {}, argTypes, argLocs);

  // P's payload once per read of T, then C's payload reading its value.
  Block &producerPayload = produce.getRegion().front();
  unsigned next = 0, read = 0;
  for (OpOperand *operand : consume.getDpsInputOperands()) {
    BlockArgument consumerArg = consume.getMatchingBlockArgument(operand);
    if (!bufferArgs.contains(operand->get())) {
      mapping.map(consumerArg, block->getArgument(next++));
      continue;
    }
    for (OpOperand *input : produce.getDpsInputOperands())
      mapping.map(produce.getMatchingBlockArgument(input),
                  block->getArgument(next++));
    SmallVector<linalg::IndexOp> producerIndices;
    for (Operation &op : producerPayload.without_terminator()) {
      Operation *clone = builder.clone(op, mapping);
      clone->walk(
          [&](linalg::IndexOp index) { producerIndices.push_back(index); });
    }
    // P's loop indices are functions of C's.
    AffineMap loops = producerLoops[read++];
    for (linalg::IndexOp index : producerIndices) {
      OpBuilder::InsertionGuard indexGuard(builder);
      builder.setInsertionPoint(index);
      Value value = producerIndex(builder, index.getLoc(),
                                  loops.getResult(index.getDim()), numLoops);
      index.replaceAllUsesWith(value);
      index.erase();
    }
    mapping.map(consumerArg,
                mapping.lookupOrDefault(
                    producerPayload.getTerminator()->getOperand(0)));
  }
  for (OpOperand &init : consume.getDpsInitsMutable())
    mapping.map(consume.getMatchingBlockArgument(&init),
                block->getArgument(next++));
  for (Operation &op : consume.getRegion().front())
    builder.clone(op, mapping);
}

/// The generic form of a kernel's linalg op: named ops are generalised in
/// place (the same computation, so a failure part-way changes no result).
FailureOr<linalg::GenericOp> generalize(RewriterBase &rewriter,
                                        linalg::LinalgOp op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return generic;
  rewriter.setInsertionPoint(op);
  return linalg::generalizeNamedOp(rewriter, op);
}

/// Replaces the candidate's two kernels by one, where the consumer was;
/// fails, leaving both, if a linalg op has no generic form. Unless
/// `lastReader` is false (the producer still has other readers to be
/// fused into), the producer, its buffer, the buffer's views and its free
/// go away too.
FailureOr<KernelOp> fuse(Candidate candidate, bool lastReader = true) {
  KernelOp producer = candidate.producer, consumer = candidate.consumer;
  IRRewriter rewriter(consumer.getContext());
  FailureOr<linalg::GenericOp> produce =
      generalize(rewriter, getSingleLinalgOp(producer));
  if (failed(produce))
    return failure();
  FailureOr<linalg::GenericOp> consume =
      generalize(rewriter, getSingleLinalgOp(consumer));
  if (failed(consume))
    return failure();

  // Operands: C's inputs without T, then P's inputs, each value once.
  SmallVector<Value> inputs;
  llvm::DenseMap<Value, unsigned> inputIndex;
  auto addInput = [&](Value value) {
    auto [it, inserted] = inputIndex.try_emplace(value, inputs.size());
    if (inserted)
      inputs.push_back(value);
    return it->second;
  };
  SmallVector<std::pair<BlockArgument, unsigned>> argumentTargets;
  llvm::DenseMap<Value, AffineMap> bufferArgs;
  for (auto [index, input] : llvm::enumerate(consumer.getInputs())) {
    if (auto read = candidate.reads.find(input); read != candidate.reads.end())
      bufferArgs[bodyArgument(consumer, index)] = read->second;
    else
      argumentTargets.push_back(
          {bodyArgument(consumer, index), addInput(input)});
  }
  for (auto [index, input] : llvm::enumerate(producer.getInputs()))
    argumentTargets.push_back({bodyArgument(producer, index), addInput(input)});
  SmallVector<Value> outputs(consumer.getOutputs());
  unsigned numInputs = consumer.getInputs().size();
  for (auto [index, output] : llvm::enumerate(outputs))
    argumentTargets.push_back(
        {bodyArgument(consumer, numInputs + index), inputs.size() + index});

  Location loc = rewriter.getFusedLoc({producer.getLoc(), consumer.getLoc()});
  rewriter.setInsertionPoint(consumer);
  auto fused = KernelOp::create(
      rewriter, loc,
      fusedName(producer.getKernelName(), consumer.getKernelName()), inputs,
      outputs);
  Block *body = new Block();
  fused.getBody().push_back(body);
  for (Value operand : fused->getOperands())
    body->addArgument(operand.getType(), operand.getLoc());
  IRMapping mapping;
  for (auto [argument, target] : argumentTargets)
    mapping.map(argument, body->getArgument(target));

  // The scalar ops of both bodies, then the fused generic.
  rewriter.setInsertionPointToStart(body);
  for (KernelOp kernel : {producer, consumer})
    for (Operation &op : kernel.getBody().front().without_terminator())
      if (!isa<linalg::LinalgOp>(op))
        rewriter.clone(op, mapping);
  buildFusedGeneric(
      rewriter, rewriter.getFusedLoc({produce->getLoc(), consume->getLoc()}),
      *produce, *consume, bufferArgs, mapping);
  YieldOp::create(rewriter, loc);

  rewriter.eraseOp(consumer);
  if (!lastReader)
    return fused;
  rewriter.eraseOp(producer);
  if (candidate.dealloc)
    rewriter.eraseOp(candidate.dealloc);
  for (Operation *view : llvm::reverse(candidate.views))
    rewriter.eraseOp(view);
  rewriter.eraseOp(candidate.alloc);
  return fused;
}

struct GPFuseKernelsPass
    : public gp::impl::GPFuseKernelsPassBase<GPFuseKernelsPass> {
  using GPFuseKernelsPassBase::GPFuseKernelsPassBase;

  void runOnOperation() override {
    for (FunctionOpInterface func : collectFunctions(getOperation())) {
      if (func.isExternal())
        continue;
      std::string text;
      llvm::raw_string_ostream os(text);
      unsigned folded = fusion::foldPermutedExternResults(func);
      if (report && folded)
        os << "  " << folded << " copies folded into extern calls\n";
      auto [fused, removed] = fuseFunction(func, report ? &os : nullptr);
      numFused += fused;
      numBuffersRemoved += removed;
      std::string merges;
      llvm::raw_string_ostream mergeLog(merges);
      unsigned merged =
          rows ? fusion::mergeRowKernels(func, report ? &mergeLog : nullptr)
               : 0;
      numRowMerges += merged;
      std::string siblingMerges;
      llvm::raw_string_ostream siblingLog(siblingMerges);
      unsigned mergedSiblings =
          siblings ? fusion::mergeSiblingKernels(func,
                                                 report ? &siblingLog : nullptr)
                   : 0;
      numSiblingMerges += mergedSiblings;
      // Last: fusion composes views through indexing maps, and a reshape
      // of a slice's copy would not survive that.
      unsigned viewed = fusion::foldLinearCopies(func);
      if (report && viewed)
        os << "  " << viewed << " copies in linear order made views\n";
      if (report) {
        writeReport("gp-fuse-kernels: @" + func.getName().str() + ": " +
                    std::to_string(fused) + " fusions, " +
                    std::to_string(removed) + " buffers removed\n" + text);
        if (merged)
          writeReport("gp-fuse-kernels: @" + func.getName().str() + ": " +
                      std::to_string(merged) + " row merges\n" + merges);
        if (mergedSiblings)
          writeReport("gp-fuse-kernels: @" + func.getName().str() + ": " +
                      std::to_string(mergedSiblings) + " sibling merges\n" +
                      siblingMerges);
      }
    }
  }

  /// Fuses in every partition body of `func`, or in its own blocks when it
  /// has no partitions; returns the number of fusions and of buffers
  /// removed. Producers with one reader go first, until none is left;
  /// then one cheap producer with several readers, and again.
  std::pair<unsigned, unsigned> fuseFunction(FunctionOpInterface func,
                                             llvm::raw_ostream *log) {
    SmallVector<Block *> blocks = blocksToFuse(func);
    // Fusion adds no values that the analysis has to know: the fused
    // kernels take values it has seen, and the buffers it removes are
    // never asked about again.
    BufferAliasAnalysis aliases(func);
    llvm::DenseSet<Operation *> fusedKernels;
    unsigned fused = 0, removed = 0;
    for (Block *block : blocks) {
      while (true) {
        while (unsigned round = fuseRound(*block, aliases, fusedKernels, log)) {
          fused += round;
          removed += round;
        }
        if (!duplicate)
          break;
        auto [readers, gone] =
            duplicateOnce(*block, aliases, fusedKernels, log);
        if (!readers)
          break;
        fused += readers;
        removed += gone;
      }
    }
    return {fused, removed};
  }

  /// Fuses the first cheap producer whose buffer several kernels read
  /// into every one of them (each computes it again where it reads it),
  /// when each pair meets the rule; returns the number of fusions (0 when
  /// there is none) and whether the buffer went away (not when a fusion
  /// failed part-way: the readers left keep reading it).
  std::pair<unsigned, bool>
  duplicateOnce(Block &block, const BufferAliasAnalysis &aliases,
                llvm::DenseSet<Operation *> &fusedKernels,
                llvm::raw_ostream *log) {
    BlockDependences deps(block, aliases);
    for (BufferAllocOp alloc : llvm::to_vector(block.getOps<BufferAllocOp>())) {
      std::optional<TemporaryUses> uses = findTemporaryUses(alloc);
      if (!uses || uses->readers.size() < 2 ||
          !isCheapToRecompute(uses->producer))
        continue;
      SmallVector<Candidate> candidates;
      llvm::SmallPtrSet<Operation *, 4> readers;
      for (auto &entry : uses->readers) {
        candidates.push_back(candidateFor(alloc, *uses, entry.first));
        readers.insert(entry.first);
      }
      if (!llvm::all_of(candidates, [&](const Candidate &candidate) {
            linalg::LinalgOp consume = getSingleLinalgOp(candidate.consumer);
            return consume && consume.getNumReductionLoops() == 0 &&
                   areFusable(candidate,
                              fusedKernels.contains(candidate.consumer)) &&
                   isLegalToMove(candidate, deps, aliases, &readers);
          }))
        continue;
      Operation *producer = uses->producer;
      std::string producerName = uses->producer.getKernelName().str();
      unsigned fused = 0;
      for (auto [index, candidate] : llvm::enumerate(candidates)) {
        std::string consumerName = candidate.consumer.getKernelName().str();
        Operation *consumer = candidate.consumer;
        bool last = index + 1 == candidates.size();
        FailureOr<KernelOp> kernel = fuse(candidate, last);
        if (failed(kernel))
          return {fused, false};
        fusedKernels.erase(consumer);
        fusedKernels.insert(*kernel);
        if (last)
          fusedKernels.erase(producer);
        if (log)
          *log << "  \"" << producerName << "\" into \"" << consumerName
               << "\" (one of " << candidates.size() << " readers): \""
               << kernel->getKernelName() << "\"\n";
        ++fused;
      }
      return {fused, true};
    }
    return {0, false};
  }

  /// One round over `block`; returns the number of fusions. `fusedKernels`
  /// holds the kernels this pass made (and that still exist).
  unsigned fuseRound(Block &block, const BufferAliasAnalysis &aliases,
                     llvm::DenseSet<Operation *> &fusedKernels,
                     llvm::raw_ostream *log) {
    BlockDependences deps(block, aliases);
    SmallVector<KernelOp> kernels = llvm::to_vector(block.getOps<KernelOp>());
    llvm::DenseSet<Operation *> touched;
    unsigned fused = 0;
    for (KernelOp consumer : kernels) {
      if (touched.contains(consumer))
        continue;
      for (Value input : consumer.getInputs()) {
        Value base = input;
        while (base.getDefiningOp() && isIndexView(base.getDefiningOp()))
          base = base.getDefiningOp()->getOperand(0);
        auto alloc = base.getDefiningOp<BufferAllocOp>();
        if (!alloc)
          continue;
        std::optional<Candidate> candidate = findCandidate(consumer, alloc);
        if (!candidate || touched.contains(candidate->producer) ||
            !areFusable(*candidate, fusedKernels.contains(consumer)) ||
            !isLegalToMove(*candidate, deps, aliases))
          continue;
        std::string names = ("\"" + candidate->producer.getKernelName() +
                             "\" into \"" + consumer.getKernelName() + "\"")
                                .str();
        Operation *producer = candidate->producer;
        // A contraction that takes in a transpose (areFusable allows no
        // other producer) is still a contraction a library computes, so
        // later decisions treat it as one, not as a kernel this pass made.
        linalg::LinalgOp consume = getSingleLinalgOp(consumer);
        bool stillContraction = !fusedKernels.contains(consumer) && consume &&
                                linalg::isaContractionOpInterface(consume);
        FailureOr<KernelOp> kernel = fuse(*candidate);
        if (failed(kernel))
          continue;
        if (stillContraction)
          sliceUnitZeroOperands(*kernel);
        touched.insert(producer);
        touched.insert(consumer);
        fusedKernels.erase(producer);
        fusedKernels.erase(consumer);
        if (!stillContraction)
          fusedKernels.insert(*kernel);
        if (log)
          *log << "  " << names << ": \"" << kernel->getKernelName() << "\"\n";
        ++fused;
        break;
      }
    }
    return fused;
  }
};

} // namespace
