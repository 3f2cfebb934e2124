//===- FusionRule.cpp - which producer kernels fuse into which consumers --===//
//
// The side of gp-fuse-kernels that decides (Passes.td has the rule): the
// uses of a temporary buffer, and whether a producer may be computed in a
// consumer, once or in each of several readers. FuseKernels.cpp rewrites.
//
//===----------------------------------------------------------------------===//

#include "KernelFusion.h"

#include "GraphPart/Analysis/BufferAliasAnalysis.h"
#include "GraphPart/Analysis/Dependences.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::fusion;

namespace {

/// Payload ops a producer may have to be computed again in each of several
/// consumers (an add of a bias, a scale): more would trade a launch for
/// repeated arithmetic.
constexpr unsigned kMaxRecomputedOps = 4;
/// What a fused kernel may take as launch parameters: CUDA refuses more than
/// 4352 bytes (PTX before ISA 8.1), so a kernel fusing many weights (every
/// buffer a descriptor of 3 + 2 * rank words) stays below it, with room for
/// the sizes the lowering adds.
constexpr int64_t kMaxKernelParameterBytes = 4096;

/// The launch parameter bytes `operands` take once lowered: a buffer's
/// descriptor (pointers, offset, sizes and strides), 8 bytes per scalar.
int64_t parameterBytes(ValueRange operands) {
  int64_t bytes = 0;
  for (Value operand : operands) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    bytes += type ? 8 * (3 + 2 * type.getRank()) : 8;
  }
  return bytes;
}

/// Whether each dimension of `operand` that `map` indexes by a loop alone
/// has that loop's static size (`loopSizes`).
bool hasLoopSizes(AffineMap map, Value operand, ArrayRef<int64_t> loopSizes) {
  auto type = dyn_cast<MemRefType>(operand.getType());
  if (!type)
    return true; // a scalar
  for (auto [dim, result] : llvm::enumerate(map.getResults()))
    if (auto loop = dyn_cast<AffineDimExpr>(result)) {
      int64_t size = type.getDimSize(dim);
      int64_t loopSize = loopSizes[loop.getPosition()];
      if (ShapedType::isDynamic(size) || ShapedType::isDynamic(loopSize) ||
          size != loopSize)
        return false;
    }
  return true;
}

} // namespace

/// Whether `produce` copies its one input, unchanged and in full, through
/// a permutation of its dimensions: a transpose.
bool mlir::gp::fusion::isPermutationCopy(linalg::LinalgOp produce) {
  if (produce.getNumDpsInputs() != 1 || produce.getNumDpsInits() != 1)
    return false;
  OpOperand *input = produce.getDpsInputOperand(0);
  if (!produce.getMatchingIndexingMap(input).isPermutation() ||
      !produce.getMatchingIndexingMap(produce.getDpsInitOperand(0))
           .isPermutation())
    return false;
  Block &payload = produce->getRegion(0).front();
  return payload.getOperations().size() == 1 &&
         payload.getTerminator()->getOperand(0) ==
             payload.getArgument(input->getOperandNumber());
}

/// The dimensions of `type` of extent 1 that `map` reads at constant 0.
static SmallVector<int64_t> unitZeroDims(AffineMap map, MemRefType type) {
  SmallVector<int64_t> dims;
  for (auto [dim, result] : llvm::enumerate(map.getResults()))
    if (auto constant = dyn_cast<AffineConstantExpr>(result);
        constant && constant.getValue() == 0 &&
        dim < static_cast<size_t>(type.getRank()) && type.getDimSize(dim) == 1)
      dims.push_back(dim);
  return dims;
}

/// `map` without the results at `positions`.
static AffineMap dropResults(AffineMap map, ArrayRef<int64_t> positions) {
  SmallVector<AffineExpr> kept;
  for (auto [position, result] : llvm::enumerate(map.getResults()))
    if (!llvm::is_contained(positions, static_cast<int64_t>(position)))
      kept.push_back(result);
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), kept,
                        map.getContext());
}

AffineMap mlir::gp::fusion::dropUnitZeros(AffineMap map, MemRefType type) {
  return dropResults(map, unitZeroDims(map, type));
}

void mlir::gp::fusion::sliceUnitZeroOperands(KernelOp kernel) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(
      getSingleLinalgOp(kernel).getOperation());
  if (!generic)
    return;
  Block &body = kernel.getBody().front();
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  bool changed = false;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    auto argument = dyn_cast<BlockArgument>(input->get());
    if (!argument || argument.getOwner() != &body || !argument.hasOneUse())
      continue;
    Value buffer = kernel->getOperand(argument.getArgNumber());
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || !type.hasStaticShape() || !type.isStrided())
      continue;
    AffineMap map = maps[input->getOperandNumber()];
    SmallVector<int64_t> zeros = unitZeroDims(map, type);
    if (zeros.empty())
      continue;
    SmallVector<int64_t> shape;
    for (auto [dim, size] : llvm::enumerate(type.getShape()))
      if (!llvm::is_contained(zeros, static_cast<int64_t>(dim)))
        shape.push_back(size);
    SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
    auto slicedType =
        cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
            shape, type, offsets, type.getShape(), strides));
    OpBuilder builder(kernel);
    Value sliced = BufferSliceOp::create(
        builder, kernel.getLoc(), slicedType, buffer, ValueRange{},
        ValueRange{}, ValueRange{}, offsets, type.getShape(), strides);
    kernel->setOperand(argument.getArgNumber(), sliced);
    argument.setType(slicedType);
    maps[input->getOperandNumber()] = dropResults(map, zeros);
    changed = true;
  }
  if (changed)
    generic.setIndexingMapsAttr(OpBuilder(generic).getAffineMapArrayAttr(maps));
}

/// For a contraction consumer: whether the producer is a transpose of a
/// buffer whose last dimension is contiguous, and the contraction indexes
/// that dimension by one of its row, column or reduction loops. The fused
/// contraction then reads the buffer through a permutation that a GEMM
/// library takes as a transposed operand (a unit stride in a matrix
/// dimension), so no copy is made and the contraction stays one call.
static bool readsStridedForContraction(Candidate candidate,
                                       linalg::LinalgOp produce,
                                       linalg::LinalgOp consume) {
  if (!isPermutationCopy(produce))
    return false;
  OpOperand *input = produce.getDpsInputOperand(0);
  auto inputArg = dyn_cast<BlockArgument>(input->get());
  if (!inputArg)
    return false;
  auto inputType = dyn_cast<MemRefType>(
      candidate.producer.getInputs()[inputArg.getArgNumber()].getType());
  if (!inputType || inputType.getRank() == 0 || !inputType.isStrided())
    return false;
  auto [strides, offset] = inputType.getStridesAndOffset();
  if (strides.back() != 1)
    return false;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(consume);
  if (failed(dims))
    return false;
  AffineMap outputToLoops = inversePermutation(
      produce.getMatchingIndexingMap(produce.getDpsInitOperand(0)));
  for (auto [index, consumerInput] :
       llvm::enumerate(candidate.consumer.getInputs())) {
    auto read = candidate.reads.find(consumerInput);
    if (read == candidate.reads.end())
      continue;
    // The one use of T in the contraction, and which of its loops walks
    // the contiguous dimension of the producer's input.
    BlockArgument argument = bodyArgument(candidate.consumer, index);
    if (!argument.hasOneUse())
      return false;
    OpOperand &use = *argument.getUses().begin();
    if (use.getOwner() != consume.getOperation() || !consume.isDpsInput(&use))
      return false;
    AffineMap loops = outputToLoops.compose(
        read->second.compose(consume.getMatchingIndexingMap(&use)));
    // The input must be read through a permutation of the loops that
    // index T (not through a reshape's floordiv and mod), as the library
    // call takes only strided views of whole operands.
    AffineMap composed = dropUnitZeros(
        produce.getMatchingIndexingMap(input).compose(loops), inputType);
    if (!composed.isProjectedPermutation() ||
        composed.getNumResults() !=
            consume.getMatchingIndexingMap(&use).getNumResults())
      return false;
    unsigned loop =
        cast<AffineDimExpr>(composed.getResults().back()).getPosition();
    if (!llvm::is_contained(dims->m, loop) &&
        !llvm::is_contained(dims->n, loop) &&
        !llvm::is_contained(dims->k, loop))
      return false;
  }
  return true;
}

linalg::LinalgOp mlir::gp::fusion::getSingleLinalgOp(KernelOp kernel) {
  linalg::LinalgOp found;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (found)
        return {};
      found = linalgOp;
      continue;
    }
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op) ||
        llvm::any_of(op.getOperands(), isBuffer) ||
        llvm::any_of(op.getResults(), isBuffer))
      return {};
  }
  if (!found || !found.hasPureBufferSemantics() ||
      found->getNumRegions() != 1 || found->getNumResults() != 0)
    return {};
  for (Value operand : found->getOperands())
    if (isBuffer(operand) &&
        !(isa<BlockArgument>(operand) &&
          cast<BlockArgument>(operand).getOwner() == &kernel.getBody().front()))
      return {};
  if (llvm::any_of(found.getIndexingMapsArray(),
                   [](AffineMap map) { return map.getNumSymbols() != 0; }))
    return {};
  return found;
}

std::optional<TemporaryUses>
mlir::gp::fusion::findTemporaryUses(BufferAllocOp alloc) {
  Value buffer = alloc.getResult();
  auto baseType = cast<MemRefType>(buffer.getType());
  Block *block = alloc->getBlock();
  TemporaryUses uses;
  SmallVector<Value> work{buffer};
  while (!work.empty()) {
    Value value = work.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user->getBlock() != block)
        return std::nullopt;
      if (auto kernel = dyn_cast<KernelOp>(user)) {
        if (use.getOperandNumber() < kernel.getInputs().size()) {
          std::optional<AffineMap> map =
              value == buffer
                  ? AffineMap::getMultiDimIdentityMap(baseType.getRank(),
                                                      value.getContext())
                  : viewToBase(cast<MemRefType>(value.getType()), baseType);
          if (!map)
            return std::nullopt;
          uses.readers[kernel][value] = *map;
          continue;
        }
        // A writer: the producer, which writes T alone and reads nothing
        // of it.
        if (value != buffer || uses.producer || kernel.getOutputs().size() != 1)
          return std::nullopt;
        uses.producer = kernel;
        continue;
      }
      if (auto dealloc = dyn_cast<BufferDeallocOp>(user)) {
        if (value != buffer || uses.dealloc)
          return std::nullopt;
        uses.dealloc = dealloc;
        continue;
      }
      if (!isIndexView(user))
        return std::nullopt;
      uses.views.push_back(user);
      work.push_back(user->getResult(0));
    }
  }
  if (!uses.producer || uses.readers.empty() ||
      uses.readers.contains(uses.producer))
    return std::nullopt;
  for (auto &[reader, reads] : uses.readers)
    if (!uses.producer->isBeforeInBlock(reader) ||
        (uses.dealloc && uses.dealloc->isBeforeInBlock(reader)))
      return std::nullopt;
  return uses;
}

Candidate mlir::gp::fusion::candidateFor(BufferAllocOp alloc,
                                         const TemporaryUses &uses,
                                         Operation *reader) {
  Candidate candidate;
  candidate.producer = uses.producer;
  candidate.consumer = cast<KernelOp>(reader);
  candidate.alloc = alloc;
  candidate.dealloc = uses.dealloc;
  candidate.reads = uses.readers.lookup(reader);
  candidate.views = uses.views;
  return candidate;
}

std::optional<Candidate> mlir::gp::fusion::findCandidate(KernelOp consumer,
                                                         BufferAllocOp alloc) {
  std::optional<TemporaryUses> uses = findTemporaryUses(alloc);
  if (!uses || uses->readers.size() != 1 ||
      uses->readers.front().first != consumer.getOperation())
    return std::nullopt;
  return candidateFor(alloc, *uses, consumer);
}

bool mlir::gp::fusion::isCheapToRecompute(KernelOp kernel) {
  linalg::LinalgOp op = getSingleLinalgOp(kernel);
  return op && op->getNumRegions() == 1 &&
         llvm::range_size(op.getBlock()->without_terminator()) <=
             kMaxRecomputedOps;
}

BlockArgument mlir::gp::fusion::bodyArgument(KernelOp kernel, unsigned index) {
  return kernel.getBody().front().getArgument(index);
}

bool mlir::gp::fusion::areFusable(Candidate candidate, bool consumerIsFused) {
  KernelOp producer = candidate.producer, consumer = candidate.consumer;
  if (producer.getDevice() != consumer.getDevice())
    return false;
  // The fused kernel takes both kernels' operands (a buffer both read
  // counted twice: an upper bound).
  if (parameterBytes(producer.getInputs()) +
          parameterBytes(consumer.getInputs()) +
          parameterBytes(consumer.getOutputs()) >
      kMaxKernelParameterBytes)
    return false;
  linalg::LinalgOp produce = getSingleLinalgOp(producer);
  linalg::LinalgOp consume = getSingleLinalgOp(consumer);
  if (!produce || !consume)
    return false;

  // The producer: elementwise, a full write of T, a pure payload.
  if (produce.getNumParallelLoops() != produce.getNumLoops() ||
      produce.getNumDpsInits() != 1)
    return false;
  OpOperand *init = produce.getDpsInitOperand(0);
  BlockArgument producerBuffer =
      bodyArgument(producer, producer.getInputs().size());
  if (init->get() != producerBuffer || !producerBuffer.hasOneUse() ||
      !produce.getMatchingIndexingMap(init).isPermutation() ||
      produce.payloadUsesValueFromOperand(init))
    return false;
  Block &payload = produce->getRegion(0).front();
  for (Operation &op : payload.without_terminator())
    if (!isMemoryEffectFree(&op))
      return false;
  if (payload.getTerminator()->getNumOperands() != 1)
    return false;

  // The consumer: no contraction (it would no longer be one a library
  // computes), unless the producer only permutes a contiguous buffer (a
  // weight's transpose for `x @ W.T`) into operands the library takes with
  // any strides; T only as linalg inputs.
  if (!consumerIsFused && linalg::isaConvolutionOpInterface(consume))
    return false;
  if (!consumerIsFused && linalg::isaContractionOpInterface(consume) &&
      !readsStridedForContraction(candidate, produce, consume))
    return false;
  llvm::DenseMap<Value, AffineMap> bufferArgs;
  llvm::SmallDenseSet<Value> viewArgs;
  for (auto [index, input] : llvm::enumerate(consumer.getInputs())) {
    auto read = candidate.reads.find(input);
    if (read == candidate.reads.end())
      continue;
    bufferArgs[bodyArgument(consumer, index)] = read->second;
    if (input != candidate.alloc.getResult())
      viewArgs.insert(bodyArgument(consumer, index));
    for (OpOperand &use : bodyArgument(consumer, index).getUses())
      if (use.getOwner() != consume.getOperation() || !consume.isDpsInput(&use))
        return false;
  }

  // Every loop of the fused op must still take its range from an operand:
  // T may have been the only operand to index a reduction loop (a
  // broadcast producer into a reduction over the broadcast dimension).
  AffineMap outputToLoops =
      inversePermutation(produce.getMatchingIndexingMap(init));
  SmallVector<int64_t> loopSizes = consume.getStaticLoopRanges();
  llvm::SmallBitVector covered(consume.getNumLoops());
  auto cover = [&](AffineMap map) {
    for (AffineExpr result : map.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(result))
        covered.set(dim.getPosition());
  };
  for (OpOperand &operand : consume->getOpOperands()) {
    AffineMap map = consume.getMatchingIndexingMap(&operand);
    auto read = bufferArgs.find(operand.get());
    if (read == bufferArgs.end()) {
      cover(map);
      continue;
    }
    AffineMap loops = outputToLoops.compose(read->second.compose(map));
    for (OpOperand *input : produce.getDpsInputOperands()) {
      AffineMap composed = produce.getMatchingIndexingMap(input).compose(loops);
      cover(composed);
      // Through a view, a loop may now index a dimension of another size
      // (a slice's base), which linalg rejects: each dimension indexed by
      // a loop alone must have the loop's size.
      if (viewArgs.contains(operand.get()) &&
          !hasLoopSizes(composed, input->get(), loopSizes))
        return false;
    }
  }
  return covered.all();
}

bool mlir::gp::fusion::isLegalToMove(
    Candidate candidate, const BlockDependences &deps,
    const BufferAliasAnalysis &aliases,
    const llvm::SmallPtrSetImpl<Operation *> *otherReaders) {
  unsigned from = deps.indexOf(candidate.producer);
  unsigned to = deps.indexOf(candidate.consumer);
  for (unsigned successor : deps.getSuccessors(from))
    if (successor > from && successor < to &&
        !(otherReaders && otherReaders->contains(deps.getOps()[successor])))
      return false;
  for (Value input : candidate.producer.getInputs()) {
    if (!isBuffer(input))
      continue;
    std::optional<unsigned> inputClass = aliases.findClass(input);
    if (!inputClass)
      return false;
    for (Value output : candidate.consumer.getOutputs()) {
      std::optional<unsigned> outputClass = aliases.findClass(output);
      if (!outputClass || *outputClass == *inputClass)
        return false;
    }
  }
  return true;
}
