//===- Buffers.cpp - allocations and views become descriptors -------------===//
//
// Planned buffers are descriptors over their arena offset (the device arena,
// or the host arena for `#gp.device<cpu>`); unplanned ones are taken with
// `gpRtAllocate` on the partition's stream. Reuses, reshapes and bitcasts
// are new descriptors over the source's first element (an expand's dynamic
// groups checked against the source first); slices are
// `memref.subview`s and transposes `memref.transpose`s (or, when only unit
// dimensions move, new contiguous descriptors). Frees are no-ops: arena
// slots and run memory are the runtime's.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::gp;

namespace {

struct AllocLowering : GPToRuntimePattern<BufferAllocOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(BufferAllocOp alloc, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.inPartition(alloc))
      return failure();
    Location loc = alloc.getLoc();
    LoweredRegion &body = state.loweredParent(alloc);
    RuntimeCallBuilder rt = emitterFor(alloc, rewriter);
    auto type = alloc.getType();
    ValueRange sizes = adaptor.getDynamicSizes();
    Value data;
    if (std::optional<uint64_t> offset = alloc.getOffset()) {
      Value arena = onHost(type) ? body.hostArena : body.deviceArena;
      data = rt.gep(loc, rt.i8, arena, *offset);
    } else {
      if (onHost(type) && state.options.cudaTarget)
        return state.emitError(alloc)
               << "a cpu buffer without a planned offset cannot be placed on "
                  "the cuda backend";
      Value bytes = rt.constI64(loc, elementBytes(type));
      unsigned dynamic = 0;
      for (int64_t dim : type.getShape())
        bytes = LLVM::MulOp::create(
            rewriter, loc, bytes,
            ShapedType::isDynamic(dim)
                ? arith::IndexCastOp::create(rewriter, loc, rt.i64,
                                             sizes[dynamic++])
                      .getResult()
                : rt.constI64(loc, dim));
      Value slot = rt.stackSlot(loc, rt.ptrType);
      rt.callChecked(loc, "gpRtAllocate", {body.stream, bytes, slot});
      data = rt.load(loc, rt.ptrType, slot);
    }
    rewriter.replaceOp(alloc, rt.makeBuffer(loc, type, data, sizes));
    return success();
  }
};

struct DeallocLowering : GPToRuntimePattern<BufferDeallocOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(BufferDeallocOp dealloc, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.inPartition(dealloc))
      return failure();
    // Planned buffers' arena space is reused by the plan itself; memory
    // taken at run time (a symbolic size, an extern's result) goes back to
    // the runtime here, so later allocations and the key's pool reuse it.
    if (takenAtRunTime(dealloc.getBuffer())) {
      RuntimeCallBuilder rt = emitterFor(dealloc, rewriter);
      Location loc = dealloc.getLoc();
      rt.callChecked(loc, "gpRtFree",
                     {state.loweredParent(dealloc).stream,
                      rt.elementPointer(loc, adaptor.getBuffer())});
    }
    rewriter.eraseOp(dealloc);
    return success();
  }

  static bool takenAtRunTime(Value buffer) {
    // Through partition boundaries to the op that made the storage.
    while (true) {
      if (auto argument = dyn_cast<BlockArgument>(buffer)) {
        auto partition =
            dyn_cast<PartitionOp>(argument.getOwner()->getParentOp());
        if (!partition)
          return false;
        buffer = partition.getInputs()[argument.getArgNumber()];
        continue;
      }
      if (auto partition = buffer.getDefiningOp<PartitionOp>()) {
        buffer = partition.getYield()
                     .getValues()[cast<OpResult>(buffer).getResultNumber()];
        continue;
      }
      break;
    }
    if (auto alloc = buffer.getDefiningOp<BufferAllocOp>())
      return !alloc.getOffset() && !getDevice(alloc.getType()).isMeta();
    auto fallback = buffer.getDefiningOp<FallbackOp>();
    if (!fallback)
      return false;
    unsigned index = cast<OpResult>(buffer).getResultNumber();
    std::optional<ArrayRef<int64_t>> offsets = fallback.getResultOffsets();
    return !fallback.getAliasedOperand(index) &&
           !(offsets && (*offsets)[index] >= 0) &&
           !getDevice(buffer.getType()).isMeta();
  }
};

struct ReuseLowering : GPToRuntimePattern<BufferReuseOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(BufferReuseOp reuse, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.inPartition(reuse))
      return failure();
    Location loc = reuse.getLoc();
    RuntimeCallBuilder rt = emitterFor(reuse, rewriter);
    rewriter.replaceOp(
        reuse, rt.makeBuffer(loc, reuse.getType(),
                             rt.elementPointer(loc, adaptor.getSource()), {}));
    return success();
  }
};

/// Fails the call (gpRtCheckExpandShape) unless each group of an expand
/// that has a dynamic size multiplies to its source dimension: the sizes
/// are the program's (an expand_shape's output_shape), and a view larger
/// than its source would be read past the source's end. Static groups of
/// static dimensions were checked by the verifier.
static void emitExpandChecks(RuntimeCallBuilder &rt, BufferReshapeOp reshape,
                             Value source, ValueRange dynamicSizes) {
  ArrayAttr expand = reshape.getExpandAttr();
  if (!expand)
    return;
  Location loc = reshape.getLoc();
  MemRefType sourceType = reshape.getSource().getType();
  MemRefType type = reshape.getType();
  std::string op = "'memref.expand_shape'";
  if (std::optional<std::string> where = sourceLocation(loc))
    op += " at " + *where;
  int64_t next = 0;
  for (auto [dim, group] : llvm::enumerate(expand.getAsRange<ArrayAttr>())) {
    // The group's result dimensions: [first, first + count).
    int64_t first = next, count = group.size();
    next += count;
    auto resultDims = llvm::seq<int64_t>(first, next);
    if (!sourceType.isDynamicDim(dim) &&
        llvm::none_of(resultDims,
                      [&](int64_t d) { return type.isDynamicDim(d); }))
      continue;
    Value sizes = rt.stackSlot(loc, rt.i64, count);
    for (int64_t d : resultDims)
      rt.store(loc,
               type.isDynamicDim(d)
                   ? rt.toStorage(loc, dynamicSizes[type.getDynamicDimIndex(d)])
                   : rt.constI64(loc, type.getDimSize(d)),
               rt.gep(loc, rt.i64, sizes, d - first));
    Value sourceSize =
        sourceType.isDynamicDim(dim)
            ? rt.toStorage(loc,
                           memref::DimOp::create(rt.builder, loc, source, dim))
            : rt.constI64(loc, sourceType.getDimSize(dim));
    rt.callChecked(loc, "gpRtCheckExpandShape",
                   {rt.stringAddress(loc, op), rt.constI64(loc, dim),
                    sourceSize, rt.constI64(loc, first), sizes,
                    rt.constI64(loc, count)});
  }
}

struct ReshapeLowering : GPToRuntimePattern<BufferReshapeOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(BufferReshapeOp reshape, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Views are address arithmetic: in a partition body or the entry's.
    if (!state.inPartition(reshape) && !state.atTopLevel(reshape))
      return failure();
    Location loc = reshape.getLoc();
    RuntimeCallBuilder rt = emitterFor(reshape, rewriter);
    emitExpandChecks(rt, reshape, adaptor.getSource(),
                     adaptor.getDynamicSizes());
    rewriter.replaceOp(
        reshape, rt.makeBuffer(loc, cast<MemRefType>(reshape.getType()),
                               rt.elementPointer(loc, adaptor.getSource()),
                               adaptor.getDynamicSizes()));
    return success();
  }
};

struct BitcastLowering : GPToRuntimePattern<BufferBitcastOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(BufferBitcastOp bitcast, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Views are address arithmetic: in a partition body or the entry's.
    if (!state.inPartition(bitcast) && !state.atTopLevel(bitcast))
      return failure();
    Location loc = bitcast.getLoc();
    auto type = cast<MemRefType>(bitcast.getType());
    if (!type.hasStaticShape())
      return state.emitError(bitcast)
             << "a bitcast to a dynamic shape cannot be lowered";
    RuntimeCallBuilder rt = emitterFor(bitcast, rewriter);
    rewriter.replaceOp(
        bitcast,
        rt.makeBuffer(loc, type, rt.elementPointer(loc, adaptor.getSource()),
                      {}));
    return success();
  }
};

struct SliceLowering : GPToRuntimePattern<BufferSliceOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(BufferSliceOp slice, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Views are address arithmetic: in a partition body or the entry's.
    if (!state.inPartition(slice) && !state.atTopLevel(slice))
      return failure();
    continueLowering(slice, rewriter);
    Value view = memref::SubViewOp::create(
        rewriter, slice.getLoc(),
        cast<MemRefType>(stripMemorySpace(slice.getType())),
        adaptor.getSource(), adaptor.getOffsets(), adaptor.getSizes(),
        adaptor.getStrides(), slice.getStaticOffsets(), slice.getStaticSizes(),
        slice.getStaticStrides());
    rewriter.replaceOp(slice, view);
    return success();
  }
};

struct TransposeLowering : GPToRuntimePattern<BufferTransposeOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(BufferTransposeOp transpose, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Views are address arithmetic: in a partition body or the entry's.
    if (!state.inPartition(transpose) && !state.atTopLevel(transpose))
      return failure();
    Location loc = transpose.getLoc();
    auto type = cast<MemRefType>(transpose.getType());
    if (type.getLayout().isIdentity()) {
      // Only unit dimensions move: the same elements in the same order, a
      // new contiguous descriptor (memref.transpose would state strides
      // that no cast can turn into the identity layout).
      RuntimeCallBuilder rt = emitterFor(transpose, rewriter);
      SmallVector<Value> sizes;
      for (auto [dim, sourceDim] : llvm::enumerate(transpose.getPermutation()))
        if (type.isDynamicDim(dim))
          sizes.push_back(memref::DimOp::create(
              rewriter, loc, adaptor.getSource(), sourceDim));
      rewriter.replaceOp(
          transpose,
          rt.makeBuffer(loc, type, rt.elementPointer(loc, adaptor.getSource()),
                        sizes));
      return success();
    }
    continueLowering(transpose, rewriter);
    AffineMap permutation = AffineMap::getPermutationMap(
        SmallVector<unsigned>(llvm::map_range(
            transpose.getPermutation(),
            [](int64_t dim) { return static_cast<unsigned>(dim); })),
        rewriter.getContext());
    Value view = memref::TransposeOp::create(rewriter, loc, adaptor.getSource(),
                                             AffineMapAttr::get(permutation));
    // memref.transpose states the permuted strides exactly; the gp type may
    // only differ in what it leaves dynamic.
    Type stripped = stripMemorySpace(type);
    if (view.getType() != stripped)
      view = memref::CastOp::create(rewriter, loc, stripped, view);
    rewriter.replaceOp(transpose, view);
    return success();
  }
};

} // namespace

void mlir::gp::populateBufferPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      GPToRuntimeState &state) {
  patterns.add<AllocLowering, DeallocLowering, ReuseLowering, ReshapeLowering,
               BitcastLowering, SliceLowering, TransposeLowering>(converter,
                                                                  state);
}
