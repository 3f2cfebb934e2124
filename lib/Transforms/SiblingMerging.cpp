//===- SiblingMerging.cpp - independent elementwise kernels share a launch ===//
//
// gp-fuse-kernels' `siblings` rule. A fused QKV projection is split into
// the query, key and value heads by three kernels that each read a third
// of the projection (plus its bias) and write one head-major buffer;
// BERT's three projections end in three such kernels of one shape. None
// feeds another, so producer-consumer fusion leaves three launches. Two
// elementwise kernels over the same loop ranges with no dependence between
// them become one kernel whose one linalg.generic writes both outputs:
// one launch, the same grid, each thread computing both payloads.
//
// Merging goes in rounds, like fusion: a round computes the dependences of
// a block once and merges pairs whose span shares no op with an earlier
// merge of the round; the next round sees the merged kernels.
//
//===----------------------------------------------------------------------===//

#include "KernelFusion.h"

#include "GraphPart/Analysis/BufferAliasAnalysis.h"
#include "GraphPart/Analysis/Dependences.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::fusion;

namespace {

/// How far apart (in ops of the block) two siblings may be: the earlier
/// kernel's work moves down to the later one, which keeps its inputs alive
/// longer; siblings sit close together in the programs that have them.
constexpr unsigned kMaxSiblingDistance = 16;

/// The elementwise linalg.generic of `kernel` when it is the body's only
/// linalg op, all its loops are parallel and their ranges static.
linalg::GenericOp getElementwiseGeneric(KernelOp kernel) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(
      getSingleLinalgOp(kernel).getOperation());
  if (!generic || generic.getNumLoops() == 0 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      llvm::any_of(generic.getStaticLoopRanges(), ShapedType::isDynamic))
    return {};
  return generic;
}

/// Whether `first` and `second` (later in the block) may become one kernel
/// where `second` is: elementwise over the same loop ranges, on one
/// device, neither depending on the other, and no op in between depending
/// on `first` (whose work moves down to `second`). Dependences are through
/// possibly aliasing memory, so with none the merged payloads write
/// nothing the other reads or writes.
bool areSiblings(KernelOp first, KernelOp second,
                 const BlockDependences &deps) {
  if (first.getDevice() != second.getDevice() || first.getNoalias() ||
      second.getNoalias())
    return false;
  linalg::GenericOp a = getElementwiseGeneric(first),
                    b = getElementwiseGeneric(second);
  if (!a || !b || a.getStaticLoopRanges() != b.getStaticLoopRanges())
    return false;
  unsigned from = deps.indexOf(first), to = deps.indexOf(second);
  return llvm::none_of(deps.getSuccessors(from), [&](unsigned successor) {
    return successor > from && successor <= to;
  });
}

/// Replaces `first` and `second` with one kernel where `second` was, its
/// body one generic: `first`'s inputs and then `second`'s, `first`'s
/// outputs and then `second`'s, both payloads, one yield.
KernelOp mergeSiblings(KernelOp first, KernelOp second) {
  SmallVector<Value> inputs, outputs;
  for (KernelOp kernel : {first, second}) {
    for (Value input : kernel.getInputs())
      if (!llvm::is_contained(inputs, input))
        inputs.push_back(input);
    llvm::append_range(outputs, kernel.getOutputs());
  }
  OpBuilder builder(second);
  Location loc = builder.getFusedLoc({first.getLoc(), second.getLoc()});
  auto merged = KernelOp::create(
      builder, loc, fusedName(first.getKernelName(), second.getKernelName()),
      inputs, outputs);
  Block *body = new Block();
  merged.getBody().push_back(body);
  for (Value operand : merged->getOperands())
    body->addArgument(operand.getType(), operand.getLoc());
  builder.setInsertionPointToStart(body);

  // Each kernel's scalar ops (constants), then its generic's operands in
  // the merged body.
  IRMapping mappings[2];
  SmallVector<Value> genericInputs, genericOutputs;
  SmallVector<AffineMap> inputMaps, outputMaps;
  SmallVector<linalg::GenericOp> generics;
  unsigned outputBase = inputs.size();
  KernelOp kernels[2] = {first, second};
  for (auto [position, kernel] : llvm::enumerate(kernels)) {
    IRMapping &mapping = mappings[position];
    Block &old = kernel.getBody().front();
    for (auto [index, input] : llvm::enumerate(kernel.getInputs()))
      mapping.map(
          old.getArgument(index),
          body->getArgument(llvm::find(inputs, input) - inputs.begin()));
    for (auto [index, output] : llvm::enumerate(kernel.getOutputs()))
      mapping.map(old.getArgument(kernel.getInputs().size() + index),
                  body->getArgument(outputBase + index));
    outputBase += kernel.getOutputs().size();
    linalg::GenericOp generic = getElementwiseGeneric(kernel);
    for (Operation &op : old.without_terminator())
      if (&op != generic.getOperation())
        builder.clone(op, mapping);
    for (OpOperand *input : generic.getDpsInputOperands()) {
      genericInputs.push_back(mapping.lookup(input->get()));
      inputMaps.push_back(generic.getMatchingIndexingMap(input));
    }
    for (OpOperand &output : generic.getDpsInitsMutable()) {
      genericOutputs.push_back(mapping.lookup(output.get()));
      outputMaps.push_back(generic.getMatchingIndexingMap(&output));
    }
    generics.push_back(generic);
  }
  SmallVector<AffineMap> maps(inputMaps);
  llvm::append_range(maps, outputMaps);
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{}, genericInputs, genericOutputs, maps,
      generics.front().getIteratorTypesArray());
  // The payload block's arguments: every input's element, then every
  // output's, in the generic's operand order.
  Block *payload = builder.createBlock(&generic.getRegion());
  SmallVector<std::pair<linalg::GenericOp, unsigned>> argumentOwners;
  for (bool outs : {false, true})
    for (auto [position, old] : llvm::enumerate(generics)) {
      Block &oldPayload = old.getRegion().front();
      unsigned begin = outs ? old.getNumDpsInputs() : 0;
      unsigned end =
          outs ? oldPayload.getNumArguments() : old.getNumDpsInputs();
      for (unsigned index = begin; index < end; ++index) {
        BlockArgument argument = oldPayload.getArgument(index);
        mappings[position].map(
            argument,
            payload->addArgument(argument.getType(), argument.getLoc()));
      }
    }
  builder.setInsertionPointToStart(payload);
  SmallVector<Value> yielded;
  for (auto [position, old] : llvm::enumerate(generics)) {
    Block &oldPayload = old.getRegion().front();
    for (Operation &op : oldPayload.without_terminator())
      builder.clone(op, mappings[position]);
    for (Value value : oldPayload.getTerminator()->getOperands())
      yielded.push_back(mappings[position].lookupOrDefault(value));
  }
  linalg::YieldOp::create(builder, loc, yielded);
  builder.setInsertionPointToEnd(body);
  YieldOp::create(builder, loc);
  first.erase();
  second.erase();
  return merged;
}

/// Whether `block` has two elementwise kernels over the same loop ranges
/// close enough to merge: checked before the dependences are computed,
/// which most blocks of a large program would not need.
bool hasSiblingCandidates(Block &block) {
  SmallVector<std::pair<unsigned, SmallVector<int64_t>>> recent;
  unsigned position = 0;
  for (Operation &op : block.without_terminator()) {
    ++position;
    auto kernel = dyn_cast<KernelOp>(op);
    linalg::GenericOp generic =
        kernel ? getElementwiseGeneric(kernel) : nullptr;
    if (!generic)
      continue;
    SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
    llvm::erase_if(recent, [&](const auto &entry) {
      return position - entry.first > kMaxSiblingDistance;
    });
    if (llvm::any_of(recent,
                     [&](const auto &entry) { return entry.second == ranges; }))
      return true;
    recent.push_back({position, std::move(ranges)});
  }
  return false;
}

/// One round over `block`; returns the number of merges.
unsigned mergeRound(Block &block, const BufferAliasAnalysis &aliases,
                    llvm::raw_ostream *log) {
  if (!hasSiblingCandidates(block))
    return 0;
  BlockDependences deps(block, aliases);
  ArrayRef<Operation *> ops = deps.getOps();
  llvm::BitVector touched(ops.size());
  unsigned merged = 0;
  for (unsigned from = 0; from < ops.size(); ++from) {
    // Merged ops of this round are erased: look only at untouched ones.
    if (touched[from])
      continue;
    auto first = dyn_cast<KernelOp>(ops[from]);
    if (!first || !getElementwiseGeneric(first))
      continue;
    unsigned end =
        std::min<unsigned>(ops.size(), from + 1 + kMaxSiblingDistance);
    for (unsigned to = from + 1; to < end && !touched[to]; ++to) {
      auto second = dyn_cast<KernelOp>(ops[to]);
      if (!second || !areSiblings(first, second, deps))
        continue;
      std::string names;
      if (log)
        names = ("\"" + first.getKernelName() + "\" + \"" +
                 second.getKernelName() + "\"")
                    .str();
      KernelOp kernel = mergeSiblings(first, second);
      if (log)
        *log << "  " << names << ": \"" << kernel.getKernelName() << "\"\n";
      touched.set(from, to + 1);
      ++merged;
      break;
    }
  }
  return merged;
}

} // namespace

unsigned mlir::gp::fusion::mergeSiblingKernels(FunctionOpInterface func,
                                               llvm::raw_ostream *log) {
  SmallVector<Block *> blocks = blocksToFuse(func);
  // Merging in one block gives no other block a candidate; a function
  // with none needs no alias analysis.
  llvm::erase_if(blocks,
                 [](Block *block) { return !hasSiblingCandidates(*block); });
  if (blocks.empty())
    return 0;
  // Merging moves no buffer: one analysis serves every round.
  BufferAliasAnalysis aliases(func);
  unsigned merged = 0;
  for (Block *block : blocks) {
    while (true) {
      unsigned round = mergeRound(*block, aliases, log);
      if (round == 0)
        break;
      merged += round;
    }
  }
  return merged;
}
