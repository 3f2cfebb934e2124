//===- Rng.cpp - RNG generators, states and slots -------------------------===//
//
// Generators become manifest entries (their order is their index). A
// `gp.rng.state` asks `gpRtRngState` to fill a 16-byte slot of the device
// arena that the entry point reserved for it; the partition that consumes
// it sees the slot as a buffer (`gp.rng.slot`). Fills must be kernels by
// now.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

using namespace mlir;
using namespace mlir::gp;

namespace {

/// The manifest counts generators; nothing else remains of them.
struct RngGeneratorErasure : GPToRuntimePattern<RngGeneratorOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(RngGeneratorOp generator, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(generator);
    return success();
  }
};

struct RngStateLowering : GPToRuntimePattern<RngStateOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(RngStateOp rngState, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.atTopLevel(rngState))
      return failure();
    Location loc = rngState.getLoc();
    auto found = state.generators.find(rngState.getGenerator());
    if (found == state.generators.end())
      return state.emitError(rngState)
             << "unknown RNG generator @" << rngState.getGenerator();
    // The state's slot: 16 bytes of the function's device arena, past the
    // planned buffers (reserved by the entry point's lowering).
    int64_t slotOffset =
        rngState->getAttrOfType<IntegerAttr>("gp.rng_slot").getInt();
    LoweredRegion &entry = state.loweredParent(rngState);
    RuntimeCallBuilder rt = emitterFor(rngState, rewriter);
    Value slot = rt.gep(loc, rt.i8, entry.deviceArena, slotOffset);
    bool backward = rngState.getRole() == RngRole::backward;
    rt.callChecked(loc, "gpRtRngState",
                   {entry.program, rt.constI32(loc, found->second),
                    rt.constI32(loc, backward ? 1 : 0), slot});
    rewriter.replaceOp(rngState, slot);
    return success();
  }
};

struct RngSlotLowering : GPToRuntimePattern<RngSlotOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(RngSlotOp slot, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.inPartition(slot))
      return failure();
    // The state arrives as the address of its slot (gpRtRngState wrote it).
    RuntimeCallBuilder rt = emitterFor(slot, rewriter);
    rewriter.replaceOp(slot,
                       rt.makeBuffer(slot.getLoc(), slot.getSlot().getType(),
                                     adaptor.getState(), {}));
    return success();
  }
};

struct RngFillRejection : GPToRuntimePattern<RngFillOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult matchAndRewrite(RngFillOp fill, OpAdaptor,
                                ConversionPatternRewriter &) const override {
    if (!state.inPartition(fill))
      return failure();
    return state.emitError(fill)
           << "RNG fills reach the runtime lowering as kernels: run "
              "gp-expand-rng-fills first";
  }
};

} // namespace

void mlir::gp::populateRngPatterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns,
                                   GPToRuntimeState &state) {
  patterns.add<RngGeneratorErasure, RngStateLowering, RngSlotLowering,
               RngFillRejection>(converter, state);
}
