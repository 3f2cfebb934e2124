//===- Copies.cpp - copies and device reads become gpRtCopy ---------------===//
//
// `gp.copy` copies whole contiguous buffers; `gp.item` and
// `gp.symint.unbacked` copy one element to a stack slot on the host and read
// it (a size as an index); `gp.scalar.slot` writes a host scalar into its
// arena slot, in stream order, before the partition that reads it.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::gp;

namespace {

struct CopyLowering : GPToRuntimePattern<CopyOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(CopyOp copy, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.inPartition(copy))
      return failure();
    Location loc = copy.getLoc();
    Value source = adaptor.getSource();
    Value target = adaptor.getTarget();
    for (Value buffer : {source, target}) {
      auto type = cast<MemRefType>(buffer.getType());
      if (!type.getLayout().isIdentity())
        return state.emitError(copy)
               << "copies of non-contiguous views are not supported yet; "
                  "copy through a contiguous buffer";
    }
    bool fromHost = onHost(copy.getSource().getType());
    bool toHost = onHost(copy.getTarget().getType());
    int32_t kind = fromHost ? (toHost ? kHostToHost : kHostToProgram)
                            : (toHost ? kProgramToHost : kProgramToProgram);
    Value stream = state.loweredParent(copy).stream;
    RuntimeCallBuilder rt = emitterFor(copy, rewriter);
    rt.callChecked(loc, "gpRtCopy",
                   {stream, rt.elementPointer(loc, target),
                    rt.elementPointer(loc, source), rt.byteSize(loc, source),
                    rt.constI32(loc, kind)});
    rewriter.eraseOp(copy);
    return success();
  }
};

/// `gp.item` and `gp.symint.unbacked`: the first element of their operand.
template <typename OpTy> struct DeviceReadLowering : GPToRuntimePattern<OpTy> {
  using GPToRuntimePattern<OpTy>::GPToRuntimePattern;
  using OpAdaptor = typename GPToRuntimePattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    GPToRuntimeState &state = this->state;
    if (!state.inPartition(op))
      return failure();
    Location loc = op.getLoc();
    Value stream = state.loweredParent(op).stream;
    RuntimeCallBuilder rt = this->emitterFor(op, rewriter);
    Value source = adaptor.getOperands()[0];
    auto type = cast<MemRefType>(source.getType());
    Type element = type.getElementType();
    Type stored = isa<IndexType>(element)
                      ? rt.i64
                      : state.llvmConverter.convertType(element);
    Value slot = rt.stackSlot(loc, stored);
    int32_t kind =
        onHost(op->getOperand(0).getType()) ? kHostToHost : kProgramToHost;
    rt.callChecked(loc, "gpRtCopy",
                   {stream, slot, rt.elementPointer(loc, source),
                    rt.constI64(loc, elementBytes(type)),
                    rt.constI32(loc, kind)});
    Value value = rt.load(loc, stored, slot);
    Type resultType = op->getResult(0).getType();
    if (isa<IndexType>(resultType)) {
      if (!isa<IntegerType, IndexType>(element))
        return state.emitError(op)
               << "a size must be read from an integer buffer";
      if (stored != rt.i64)
        value = LLVM::SExtOp::create(rewriter, loc, rt.i64, value);
      value = arith::IndexCastOp::create(rewriter, loc, resultType, value);
    } else if (resultType != stored) {
      return state.emitError(op) << "reads " << element << " into "
                                 << resultType << ", which is not supported";
    }
    if constexpr (std::is_same_v<OpTy, SymIntUnbackedOp>)
      emitSymIntRangeCheck(rt, loc, op, op.getSymName(), value);
    rewriter.replaceOp(op, value);
    return success();
  }
};

struct ScalarSlotLowering : GPToRuntimePattern<ScalarSlotOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(ScalarSlotOp slotOp, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.atTopLevel(slotOp))
      return failure();
    Location loc = slotOp.getLoc();
    // 16 bytes of the function's arena past the planned buffers and RNG
    // slots (prepare() chose the offset).
    int64_t offset =
        slotOp->getAttrOfType<IntegerAttr>("gp.scalar_slot").getInt();
    LoweredRegion &entry = state.loweredParent(slotOp);
    RuntimeCallBuilder rt = emitterFor(slotOp, rewriter);
    MemRefType type = slotOp.getSlot().getType();
    Value arena = onHost(type) ? entry.hostArena : entry.deviceArena;
    Value slot = rt.gep(loc, rt.i8, arena, offset);
    Type valueType = slotOp.getValue().getType();
    int64_t bytes = std::max<int64_t>(
        1, (valueType.getIntOrFloatBitWidth() + 7) / 8);
    rt.callChecked(loc, "gpRtProgramWrite",
                   {entry.program, slot, rt.spill(loc, adaptor.getValue()),
                    rt.constI64(loc, bytes)});
    rewriter.replaceOp(slotOp, rt.makeBuffer(loc, type, slot, {}));
    return success();
  }
};

} // namespace

void mlir::gp::populateCopyPatterns(const TypeConverter &converter,
                                    RewritePatternSet &patterns,
                                    GPToRuntimeState &state) {
  patterns.add<CopyLowering, DeviceReadLowering<ItemOp>,
               DeviceReadLowering<SymIntUnbackedOp>, ScalarSlotLowering>(
      converter, state);
}
