//===- Externs.cpp - fallbacks become extern calls ------------------------===//
//
// A `gp.fallback` calls its extern through the registry with
// `gpRtCallExtern`: every operand and result is passed by address with its
// size. Results placed by memory planning (`result_offsets`) point into the
// arena; other results with a static shape are allocated here (aliasing
// results start as the operand they alias); the extern fills in the rest.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::gp;

namespace {

struct FallbackLowering : GPToRuntimePattern<FallbackOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(FallbackOp fallback, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.inPartition(fallback))
      return failure();
    Location loc = fallback.getLoc();
    Value stream = state.loweredParent(fallback).stream;
    RuntimeCallBuilder rt = emitterFor(fallback, rewriter);
    SmallVector<Value> slots;
    SmallVector<int64_t> sizes;
    for (Value value : adaptor.getArgs()) {
      if (!isa<MemRefType, IndexType, IntegerType, FloatType>(value.getType()))
        return state.emitError(fallback) << "cannot pass a value of type "
                                         << value.getType() << " to an extern";
      slots.push_back(rt.spill(loc, value));
      sizes.push_back(rt.storageBytes(value.getType()));
    }
    SmallVector<Value> resultSlots;
    std::optional<ArrayRef<int64_t>> planned = fallback.getResultOffsets();
    LoweredRegion &body = state.loweredParent(fallback);
    for (auto [index, result] : llvm::enumerate(fallback.getResults())) {
      auto type = dyn_cast<MemRefType>(result.getType());
      if (!type)
        return state.emitError(fallback) << "extern results must be buffers";
      Type structType = rt.descriptorType(type);
      Value slot = rt.stackSlot(loc, structType);
      std::optional<unsigned> aliased = fallback.getAliasedOperand(index);
      int64_t offset = planned ? (*planned)[index] : -1;
      if (aliased && fallback.getArgs()[*aliased].getType() == type) {
        rt.store(loc, rt.toStorage(loc, adaptor.getArgs()[*aliased]), slot);
      } else if (offset >= 0) {
        // Planned: the result's place in the arena, reused like any
        // planned buffer once it is dead.
        Value arena = onHost(type) ? body.hostArena : body.deviceArena;
        rt.store(loc,
                 rt.toStorage(loc, rt.makeBuffer(
                                       loc, type,
                                       rt.gep(loc, rt.i8, arena, offset), {})),
                 slot);
      } else if (type.hasStaticShape()) {
        Value bytes = rt.constI64(loc, getStaticByteSize(type).value_or(0));
        Value data = rt.stackSlot(loc, rt.ptrType);
        if (onHost(type))
          return state.emitError(fallback)
                 << "extern results on the cpu device need a planned buffer";
        rt.callChecked(loc, "gpRtAllocate", {stream, bytes, data});
        rt.store(loc,
                 rt.toStorage(loc, rt.makeBuffer(loc, type,
                                                 rt.load(loc, rt.ptrType, data),
                                                 {})),
                 slot);
      } else {
        Value desc = LLVM::ZeroOp::create(rewriter, loc, structType);
        rt.store(loc, desc, slot);
      }
      resultSlots.push_back(slot);
      slots.push_back(slot);
      sizes.push_back(rt.storageBytes(type));
    }
    int64_t count = slots.size();
    Value args = rt.stackSlot(loc, rt.ptrType, std::max<int64_t>(1, count));
    Value argSizes = rt.stackSlot(loc, rt.i64, std::max<int64_t>(1, count));
    for (int64_t i = 0; i < count; ++i) {
      rt.store(loc, slots[i], rt.gep(loc, rt.ptrType, args, i));
      rt.store(loc, rt.constI64(loc, sizes[i]),
               rt.gep(loc, rt.i64, argSizes, i));
    }
    rt.callChecked(loc, "gpRtCallExtern",
                   {stream, rt.stringAddress(loc, fallback.getCallee()), args,
                    argSizes, rt.constI32(loc, count)});
    SmallVector<Value> results;
    for (auto [result, slot] : llvm::zip(fallback.getResults(), resultSlots))
      results.push_back(rt.loadValue(loc, result.getType(), slot));
    rewriter.replaceOp(fallback, results);
    return success();
  }
};

} // namespace

void mlir::gp::populateExternPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      GPToRuntimeState &state) {
  patterns.add<FallbackLowering>(converter, state);
}
