//===- LinearCopies.cpp - copies in linear order become views -------------===//
//
// A kernel that copies a contiguous buffer into a fresh one whose elements
// lie in the same order in memory (what moves is dimensions of extent 1:
// a decode step's heads merged back, [12, 1, 64] into [1, 1, 12, 64]; or
// a contiguous() of what already is) copies nothing a view could not
// show: the destination becomes a gp.buffer.reshape of the source, the
// kernel and its buffer go.
//
//===----------------------------------------------------------------------===//

#include "KernelFusion.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::fusion;

namespace {

/// The element offset `map` reaches in a contiguous buffer of `type` at the
/// loop point of `loopSizes`, as an affine expression of the loops, loops
/// of one iteration set to 0.
AffineExpr linearOffset(AffineMap map, MemRefType type,
                        ArrayRef<int64_t> loopSizes) {
  MLIRContext *context = map.getContext();
  SmallVector<AffineExpr> zeroed;
  for (auto [dim, size] : llvm::enumerate(loopSizes))
    zeroed.push_back(size == 1 ? getAffineConstantExpr(0, context)
                               : getAffineDimExpr(dim, context));
  AffineExpr offset = getAffineConstantExpr(0, context);
  int64_t stride = 1;
  for (int64_t dim = type.getRank() - 1; dim >= 0; --dim) {
    offset = offset + map.getResult(dim).replaceDims(zeroed) * stride;
    stride *= type.getDimSize(dim);
  }
  return simplifyAffineExpr(offset, map.getNumDims(), 0);
}

/// Whether `copy` copies its one input into its one output element for
/// element in the same linear order, both contiguous and static.
bool copiesInLinearOrder(KernelOp copy) {
  if (copy.getInputs().size() != 1 || copy.getOutputs().size() != 1)
    return false;
  auto source = dyn_cast<MemRefType>(copy.getInputs()[0].getType());
  auto target = dyn_cast<MemRefType>(copy.getOutputs()[0].getType());
  linalg::LinalgOp body = getSingleLinalgOp(copy);
  if (!source || !target || !body || !source.hasStaticShape() ||
      !target.hasStaticShape() || !source.getLayout().isIdentity() ||
      !target.getLayout().isIdentity() ||
      source.getElementType() != target.getElementType() ||
      source.getNumElements() != target.getNumElements() ||
      body.getNumDpsInputs() != 1 || body.getNumDpsInits() != 1 ||
      body.getNumParallelLoops() != body.getNumLoops() ||
      body.getDpsInputOperand(0)->get() != copy.getBody().getArgument(0) ||
      body.getDpsInitOperand(0)->get() != copy.getBody().getArgument(1))
    return false;
  // The payload yields the input element unchanged.
  Block &payload = body->getRegion(0).front();
  if (payload.getOperations().size() != 1 ||
      payload.getTerminator()->getOperand(0) != payload.getArgument(0))
    return false;
  SmallVector<int64_t> loopSizes = body.getStaticLoopRanges();
  if (llvm::any_of(loopSizes, ShapedType::isDynamic))
    return false;
  // Every loop point writes one element (the output map covers the loops
  // of more than one iteration) at the offset it reads.
  AffineMap targetMap = body.getMatchingIndexingMap(body.getDpsInitOperand(0));
  for (auto [dim, size] : llvm::enumerate(loopSizes))
    if (size != 1 && !targetMap.isFunctionOfDim(dim))
      return false;
  return linearOffset(body.getMatchingIndexingMap(body.getDpsInputOperand(0)),
                      source,
                      loopSizes) == linearOffset(targetMap, target, loopSizes);
}

/// Every use of `root`, through index views, with the view or root used.
void collectUses(Value root, SmallVectorImpl<OpOperand *> &uses) {
  for (OpOperand &use : root.getUses()) {
    if (isIndexView(use.getOwner())) {
      collectUses(use.getOwner()->getResult(0), uses);
      continue;
    }
    uses.push_back(&use);
  }
}

/// Whether `use` may write what it is given.
bool mayWrite(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto kernel = dyn_cast<KernelOp>(user))
    return use.getOperandNumber() >= kernel.getInputs().size();
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(user)) {
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    return llvm::any_of(list, [&](MemoryEffects::EffectInstance &effect) {
      return !isa<MemoryEffects::Read>(effect.getEffect()) &&
             (!effect.getValue() || effect.getValue() == use.get());
    });
  }
  return true;
}

/// Folds `copy` when safe; returns whether it did.
bool fold(KernelOp copy) {
  if (!copiesInLinearOrder(copy))
    return false;
  Block *block = copy->getBlock();
  auto alloc = copy.getOutputs()[0].getDefiningOp<BufferAllocOp>();
  if (!alloc || alloc->getBlock() != block)
    return false;
  // The destination: written by the copy alone, read in this block only
  // (not handed out: a partition's result or the program's).
  SmallVector<OpOperand *> targetUses;
  collectUses(alloc.getResult(), targetUses);
  SmallVector<Operation *> targetDeallocs;
  Operation *lastTargetUse = copy;
  for (OpOperand *use : targetUses) {
    Operation *user = use->getOwner();
    if (user == copy.getOperation())
      continue;
    if (isa<BufferDeallocOp>(user)) {
      targetDeallocs.push_back(user);
      continue;
    }
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (!inBlock || isa<YieldOp>(user) ||
        user->hasTrait<OpTrait::IsTerminator>() || isa<PartitionOp>(user) ||
        mayWrite(*use) || !copy->isBeforeInBlock(inBlock))
      return false;
    if (lastTargetUse->isBeforeInBlock(inBlock))
      lastTargetUse = inBlock;
  }
  // The source: an allocation of this block (or a reshape of one) that
  // nothing writes after the copy (nor hands out), so that a view of it
  // reads what the copy would have copied for as long as the destination
  // is read.
  Value source = copy.getInputs()[0];
  Value root = source;
  while (auto reshape = root.getDefiningOp<BufferReshapeOp>())
    root = reshape.getSource();
  auto sourceAlloc = root.getDefiningOp<BufferAllocOp>();
  if (!sourceAlloc || sourceAlloc->getBlock() != block)
    return false;
  SmallVector<OpOperand *> sourceUses;
  collectUses(sourceAlloc.getResult(), sourceUses);
  SmallVector<Operation *> sourceDeallocs;
  for (OpOperand *use : sourceUses) {
    Operation *user = use->getOwner();
    if (isa<BufferDeallocOp>(user)) {
      sourceDeallocs.push_back(user);
      continue;
    }
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (!inBlock || user->hasTrait<OpTrait::IsTerminator>() ||
        isa<PartitionOp>(user))
      return false;
    if (mayWrite(*use) && !inBlock->isBeforeInBlock(copy))
      return false;
  }
  for (Operation *dealloc : sourceDeallocs)
    if (dealloc->getBlock() != block)
      return false;

  OpBuilder builder(copy);
  auto view = BufferReshapeOp::create(builder, copy.getLoc(), alloc.getType(),
                                      source, ValueRange());
  for (Operation *dealloc : targetDeallocs)
    dealloc->erase();
  alloc.getResult().replaceUsesWithIf(view.getResult(), [&](OpOperand &use) {
    return use.getOwner() != copy.getOperation();
  });
  // The source now lives as long as the destination's readers.
  for (Operation *dealloc : sourceDeallocs)
    if (dealloc->isBeforeInBlock(lastTargetUse))
      dealloc->moveAfter(lastTargetUse);
  copy.erase();
  alloc.erase();
  return true;
}

} // namespace

unsigned mlir::gp::fusion::foldLinearCopies(FunctionOpInterface func) {
  SmallVector<KernelOp> kernels;
  func.walk([&](KernelOp kernel) { kernels.push_back(kernel); });
  unsigned folded = 0;
  for (KernelOp kernel : kernels)
    folded += fold(kernel);
  return folded;
}
