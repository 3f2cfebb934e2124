//===- Collectives.cpp - collectives become gpRtCollective ----------------===//
//
// gp.all_reduce, gp.all_gather, gp.reduce_scatter and gp.broadcast, in a
// partition, call gpRtCollective on its stream with their buffers' first
// elements and element counts (the runtime checks the counts against the
// number of ranks); gp.rank and gp.world_size, host values outside the
// partitions, ask the program.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "GraphPart/Conversion/ElementCodes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::gp;

namespace {

/// gpRtCollective's kinds and reductions.
enum : int32_t {
  kAllReduce = 0,
  kAllGather = 1,
  kReduceScatter = 2,
  kBroadcast = 3
};

template <typename OpTy> struct CollectiveLowering : GPToRuntimePattern<OpTy> {
  using GPToRuntimePattern<OpTy>::GPToRuntimePattern;
  using OpAdaptor = typename GPToRuntimePattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    GPToRuntimeState &state = this->state;
    if (!state.inPartition(op))
      return failure();
    Location loc = op.getLoc();
    int32_t kind = kAllReduce, reduction = 0;
    int64_t root = 0;
    Value source, target;
    Type elementType;
    if constexpr (std::is_same_v<OpTy, BroadcastOp>) {
      kind = kBroadcast;
      root = op.getRoot();
      source = target = adaptor.getBuffer();
      elementType = op.getBuffer().getType().getElementType();
    } else {
      if constexpr (std::is_same_v<OpTy, AllGatherOp>)
        kind = kAllGather;
      else
        reduction = static_cast<int32_t>(op.getKind());
      if constexpr (std::is_same_v<OpTy, ReduceScatterOp>)
        kind = kReduceScatter;
      source = adaptor.getSource();
      target = adaptor.getTarget();
      elementType = op.getSource().getType().getElementType();
    }
    LoweredRegion &parent = state.loweredParent(op);
    RuntimeCallBuilder rt = this->emitterFor(op, rewriter);
    rt.callChecked(loc, "gpRtCollective",
                   {parent.program, parent.stream, rt.constI32(loc, kind),
                    rt.constI32(loc, reduction), rt.elementPointer(loc, target),
                    rt.elementPointer(loc, source),
                    rt.elementCount(loc, source), rt.elementCount(loc, target),
                    rt.constI32(loc, runtimeElementCode(elementType)),
                    rt.constI64(loc, root)});
    rewriter.eraseOp(op);
    return success();
  }
};

/// gp.rank and gp.world_size: the program's, read once where they stand.
template <typename OpTy> struct RunSizeLowering : GPToRuntimePattern<OpTy> {
  using GPToRuntimePattern<OpTy>::GPToRuntimePattern;
  using OpAdaptor = typename GPToRuntimePattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    GPToRuntimeState &state = this->state;
    if (!state.atTopLevel(op))
      return failure();
    Location loc = op.getLoc();
    RuntimeCallBuilder rt = this->emitterFor(op, rewriter);
    Value slot = rt.stackSlot(loc, rt.i64);
    rt.callChecked(loc,
                   std::is_same_v<OpTy, RankOp> ? "gpRtProgramRank"
                                                : "gpRtProgramWorldSize",
                   {state.loweredParent(op).program, slot});
    Value value = rt.load(loc, rt.i64, slot);
    rewriter.replaceOp(op, arith::IndexCastOp::create(
                               rewriter, loc, rewriter.getIndexType(), value));
    return success();
  }
};

} // namespace

void mlir::gp::populateCollectivePatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          GPToRuntimeState &state) {
  patterns
      .add<CollectiveLowering<AllReduceOp>, CollectiveLowering<AllGatherOp>,
           CollectiveLowering<ReduceScatterOp>, CollectiveLowering<BroadcastOp>,
           RunSizeLowering<RankOp>, RunSizeLowering<WorldSizeOp>>(converter,
                                                                  state);
}
