//===- RowMerging.cpp - merge row-by-row kernels into one -----------------===//
//
// gp-fuse-kernels' `rows` rule: consecutive cuda kernels whose linalg ops
// work row by row (RowLoops.h: a softmax's max, sum of exponentials and
// normalization) merge into one `noalias` kernel, which convert-gp-to-gpu
// runs as one launch with a block per row.
//
//===----------------------------------------------------------------------===//

#include "KernelFusion.h"

#include "GraphPart/Analysis/BufferAliasAnalysis.h"
#include "GraphPart/Analysis/Dependences.h"
#include "GraphPart/Analysis/RowLoops.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::fusion;

namespace {

/// The linalg ops of a kernel body made only of linalg ops on buffers that
/// are its block arguments, and pure scalar ops (constants); nothing
/// otherwise.
std::optional<SmallVector<linalg::LinalgOp>> getRowKernelOps(KernelOp kernel) {
  Block &body = kernel.getBody().front();
  SmallVector<linalg::LinalgOp> ops;
  for (Operation &op : body.without_terminator()) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      // Contractions and convolutions stay whole for cuBLAS and its kin.
      if (!linalgOp.hasPureBufferSemantics() ||
          linalg::isaContractionOpInterface(linalgOp) ||
          linalg::isaConvolutionOpInterface(linalgOp) ||
          llvm::any_of(linalgOp->getOperands(), [&](Value operand) {
            return isBuffer(operand) &&
                   !(isa<BlockArgument>(operand) &&
                     cast<BlockArgument>(operand).getOwner() == &body);
          }))
        return std::nullopt;
      ops.push_back(linalgOp);
      continue;
    }
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op) ||
        llvm::any_of(op.getOperands(), isBuffer) ||
        llvm::any_of(op.getResults(), isBuffer))
      return std::nullopt;
  }
  return ops;
}

/// Whether `ops` (one kernel body) all work on the rows of their first
/// reduction, independently.
bool formsRowKernel(ArrayRef<linalg::LinalgOp> ops) {
  const linalg::LinalgOp *reduction = llvm::find_if(
      ops, [](linalg::LinalgOp op) { return op.getNumReductionLoops() > 0; });
  if (reduction == ops.end())
    return false;
  linalg::LinalgOp first = *reduction;
  std::optional<unsigned> rows = getReductionRows(first);
  std::optional<SmallVector<int64_t>> sizes = getLoopSizes(first);
  if (!rows || !sizes)
    return false;
  ArrayRef<int64_t> rowSizes = ArrayRef(*sizes).take_front(*rows);
  return llvm::all_of(ops,
                      [&](linalg::LinalgOp op) {
                        return worksOnRows(op, *rows, rowSizes);
                      }) &&
         rowsAreIndependent(ops, *rows) && shareRowSizes(ops, *rows);
}

/// The buffer `value` shows through index views, or `value` itself.
Value viewBase(Value value) {
  while (Operation *definition = value.getDefiningOp()) {
    if (!isIndexView(definition))
      break;
    value = definition->getOperand(0);
  }
  return value;
}

/// Whether `map` indexes without division (a view's map composed with an
/// op's may leave floordiv and mod where the view does not line up).
bool isDivisionFree(AffineMap map) {
  bool free = true;
  for (AffineExpr result : map.getResults())
    result.walk([&](AffineExpr expr) {
      free &=
          !llvm::is_contained({AffineExprKind::FloorDiv,
                               AffineExprKind::CeilDiv, AffineExprKind::Mod},
                              expr.getKind());
    });
  return free;
}

/// `toBase` after `map`, for an op whose loops have `ranges`: a loop of
/// extent 1 is 0 throughout, so it is written as 0 (a [1, 12, 1] row space
/// reads a keepdim view of its [1, 12, 1] result at (0, d1 + d2, 0) until
/// d2 becomes 0), and the result simplified.
AffineMap composeAtRanges(AffineMap toBase, AffineMap map,
                          ArrayRef<int64_t> ranges) {
  AffineMap composed = toBase.compose(map);
  SmallVector<AffineExpr> dims;
  for (auto [dim, range] : llvm::enumerate(ranges))
    dims.push_back(range == 1 ? getAffineConstantExpr(0, map.getContext())
                              : getAffineDimExpr(dim, map.getContext()));
  return simplifyAffineMap(composed.replaceDimsAndSymbols(
      dims, {}, composed.getNumDims(), composed.getNumSymbols()));
}

/// Makes `kernel` read a buffer of `written` itself where it reads an
/// index view of it (a softmax's row maximum reshaped to [..., 1] to
/// broadcast, as keepdim gives it): the generics of its body read the
/// buffer through the view's map composed with theirs (viewToBase), so
/// that once merged with the kernel writing it both bodies name one
/// buffer. Only where every use of the view is an input of a generic and
/// the composed maps need no division; the same elements are read.
void readWrittenBuffersDirectly(KernelOp kernel, ValueRange written) {
  Block &body = kernel.getBody().front();
  for (unsigned index = 0; index < kernel.getInputs().size(); ++index) {
    Value view = kernel->getOperand(index);
    Value base = viewBase(view);
    if (base == view || !llvm::is_contained(written, base))
      continue;
    auto viewType = dyn_cast<MemRefType>(view.getType());
    auto baseType = dyn_cast<MemRefType>(base.getType());
    std::optional<AffineMap> toBase =
        viewType && baseType ? viewToBase(viewType, baseType) : std::nullopt;
    if (!toBase)
      continue;
    BlockArgument argument = body.getArgument(index);
    SmallVector<std::pair<linalg::GenericOp, unsigned>> reads;
    bool readable = true;
    SmallVector<AffineMap> composed;
    for (OpOperand &use : argument.getUses()) {
      auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
      if (!generic || !generic.isDpsInput(&use)) {
        readable = false;
        break;
      }
      AffineMap map =
          composeAtRanges(*toBase, generic.getMatchingIndexingMap(&use),
                          generic.getStaticLoopRanges());
      readable &= isDivisionFree(map);
      reads.push_back({generic, use.getOperandNumber()});
      composed.push_back(map);
    }
    if (!readable || reads.empty())
      continue;
    // Each generic's maps with the view's reads replaced; every loop must
    // still take its range from an operand (linalg inverts the maps), which
    // a loop read only through the view and written as 0 no longer does.
    llvm::MapVector<Operation *, SmallVector<AffineMap>> newMaps;
    for (auto [read, map] : llvm::zip(reads, composed)) {
      auto [generic, operand] = read;
      auto inserted = newMaps.try_emplace(generic.getOperation());
      if (inserted.second)
        inserted.first->second = generic.getIndexingMapsArray();
      inserted.first->second[operand] = map;
    }
    if (llvm::any_of(newMaps, [](const auto &entry) {
          return !inversePermutation(
              concatAffineMaps(entry.second, entry.first->getContext()));
        }))
      continue;
    for (auto &[op, maps] : newMaps)
      cast<linalg::GenericOp>(op).setIndexingMapsAttr(
          OpBuilder(op).getAffineMapArrayAttr(maps));
    argument.setType(baseType);
    kernel->setOperand(index, base);
    // The views go when nothing else reads them.
    while (Operation *definition = view.getDefiningOp()) {
      if (!isIndexView(definition) || !definition->use_empty())
        break;
      view = definition->getOperand(0);
      definition->erase();
    }
  }
}

/// Merges `first` into `second` as one noalias row kernel where `second`
/// was, when the rule of Passes.td holds; returns it, or null leaving
/// both kernels.
KernelOp mergeRows(KernelOp first, KernelOp second,
                   const BlockDependences &deps,
                   const BufferAliasAnalysis &aliases) {
  DeviceAttr device = first.getDevice();
  if (!device || !device.isCuda() || second.getDevice() != device)
    return {};
  if (!getRowKernelOps(first) || !getRowKernelOps(second))
    return {};
  unsigned from = deps.indexOf(first), to = deps.indexOf(second);
  for (unsigned successor : deps.getSuccessors(from))
    if (successor > from && successor < to)
      return {};

  // Operands: both kernels' outs, then their other operands, each once.
  SmallVector<Value> outputs, inputs;
  for (KernelOp kernel : {first, second})
    for (Value output : kernel.getOutputs())
      if (!llvm::is_contained(outputs, output))
        outputs.push_back(output);
  for (KernelOp kernel : {first, second})
    for (Value input : kernel.getInputs())
      if (!llvm::is_contained(outputs, input) &&
          !llvm::is_contained(inputs, input))
        inputs.push_back(input);

  OpBuilder builder(second);
  Location loc = builder.getFusedLoc({first.getLoc(), second.getLoc()});
  auto merged = KernelOp::create(
      builder, loc, fusedName(first.getKernelName(), second.getKernelName()),
      inputs, outputs);
  merged.setNoalias(true);
  Block *body = new Block();
  merged.getBody().push_back(body);
  for (Value operand : merged->getOperands())
    body->addArgument(operand.getType(), operand.getLoc());
  builder.setInsertionPointToStart(body);
  for (KernelOp kernel : {first, second}) {
    IRMapping mapping;
    for (auto [operand, argument] : llvm::zip(
             kernel->getOperands(), kernel.getBody().front().getArguments())) {
      auto index = llvm::find(merged->getOperands(), operand) -
                   merged->getOperands().begin();
      mapping.map(argument, body->getArgument(index));
    }
    for (Operation &op : kernel.getBody().front().without_terminator())
      builder.clone(op, mapping);
  }
  YieldOp::create(builder, loc);
  std::optional<SmallVector<linalg::LinalgOp>> ops = getRowKernelOps(merged);
  if (!ops || !formsRowKernel(*ops) ||
      !writesDistinctBuffers(merged, aliases)) {
    merged.erase();
    return {};
  }
  first.erase();
  second.erase();
  return merged;
}

/// Whether `block` has a cuda kernel with a reduction, which a row kernel
/// needs: a block with none (most blocks of a large program) needs no
/// dependences computed, and a function with none no alias analysis.
bool hasRowCandidates(Block &block) {
  return llvm::any_of(block.getOps<KernelOp>(), [](KernelOp k) {
    DeviceAttr device = k.getDevice();
    if (!device || !device.isCuda())
      return false;
    std::optional<SmallVector<linalg::LinalgOp>> ops = getRowKernelOps(k);
    return ops && llvm::any_of(*ops, [](linalg::LinalgOp op) {
             return op.getNumReductionLoops() > 0;
           });
  });
}

/// Merges the first pair of kernels in `block` that may become a row
/// kernel: a kernel and the last kernel before it that writes a buffer
/// it uses (found through the last writer of each buffer, not by scanning
/// back: a block holds tens of thousands of kernels).
bool mergeOnce(Block &block, const BufferAliasAnalysis &aliases,
               llvm::raw_ostream *log) {
  if (!hasRowCandidates(block))
    return false;
  BlockDependences deps(block, aliases);
  SmallVector<KernelOp> kernels = llvm::to_vector(block.getOps<KernelOp>());
  llvm::DenseMap<Value, size_t> lastWriter;
  for (size_t index = 0; index < kernels.size(); ++index) {
    KernelOp second = kernels[index];
    std::optional<size_t> nearest;
    for (Value operand : second->getOperands()) {
      // A view of a written buffer (a keepdim reshape) counts as it.
      auto found = lastWriter.find(viewBase(operand));
      if (found != lastWriter.end() && (!nearest || found->second > *nearest))
        nearest = found->second;
    }
    if (nearest) {
      KernelOp first = kernels[*nearest];
      std::string names;
      if (log)
        names = ("\"" + first.getKernelName() + "\" + \"" +
                 second.getKernelName() + "\"")
                    .str();
      readWrittenBuffersDirectly(second, first.getOutputs());
      if (KernelOp merged = mergeRows(first, second, deps, aliases)) {
        if (log)
          *log << "  " << names << ": \"" << merged.getKernelName() << "\"\n";
        return true;
      }
    }
    for (Value output : second.getOutputs())
      lastWriter[output] = index;
  }
  return false;
}

} // namespace

unsigned mlir::gp::fusion::mergeRowKernels(FunctionOpInterface func,
                                           llvm::raw_ostream *log) {
  SmallVector<Block *> blocks = blocksToFuse(func);
  // Merging in one block gives no other block a candidate.
  llvm::erase_if(blocks,
                 [](Block *block) { return !hasRowCandidates(*block); });
  if (blocks.empty())
    return 0;
  BufferAliasAnalysis aliases(func);
  unsigned merged = 0;
  for (Block *block : blocks)
    while (mergeOnce(*block, aliases, log))
      ++merged;
  return merged;
}
