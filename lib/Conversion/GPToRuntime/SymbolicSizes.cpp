//===- SymbolicSizes.cpp - symbolic sizes become index values -------------===//
//
// A `gp.symint` is the index value it names; a `gp.symint.dim` is a
// `memref.dim` of its (lowered) buffer. Both appear in entry points and in
// partition bodies. (`gp.symint.unbacked` reads a device buffer: Copies.cpp.)
// In an entry point, a symint with a declared `min`/`max` is checked when
// it is defined, before any partition runs (the partitioner hoists symints
// above them): a value outside the range fails the call, naming the
// symint, its value and its range, and nothing is written.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <limits>

using namespace mlir;
using namespace mlir::gp;

void mlir::gp::emitSymIntRangeCheck(RuntimeCallBuilder &rt, Location loc,
                                    Operation *symint, StringRef name,
                                    Value value) {
  auto bound = [&](StringRef attr, int64_t none) {
    auto declared = symint->getAttrOfType<IntegerAttr>(attr);
    return declared ? declared.getInt() : none;
  };
  int64_t min = bound("min", std::numeric_limits<int64_t>::min());
  int64_t max = bound("max", std::numeric_limits<int64_t>::max());
  if (min == std::numeric_limits<int64_t>::min() &&
      max == std::numeric_limits<int64_t>::max())
    return;
  rt.callChecked(loc, "gpRtCheckSymInt",
                 {rt.stringAddress(loc, name), rt.toStorage(loc, value),
                  rt.constI64(loc, min), rt.constI64(loc, max)});
}

namespace {

bool lowersHere(GPToRuntimeState &state, Operation *op) {
  return state.atTopLevel(op) || state.inPartition(op);
}

struct SymIntLowering : GPToRuntimePattern<SymIntOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(SymIntOp symint, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!lowersHere(state, symint))
      return failure();
    if (state.atTopLevel(symint)) {
      RuntimeCallBuilder rt = emitterFor(symint, rewriter);
      emitSymIntRangeCheck(rt, symint.getLoc(), symint, symint.getSymName(),
                           adaptor.getValue());
    }
    rewriter.replaceOp(symint, adaptor.getValue());
    return success();
  }
};

struct SymIntDimLowering : GPToRuntimePattern<SymIntDimOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(SymIntDimOp dim, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!lowersHere(state, dim))
      return failure();
    continueLowering(dim, rewriter);
    Value size = memref::DimOp::create(rewriter, dim.getLoc(),
                                       adaptor.getSource(), dim.getDim());
    if (state.atTopLevel(dim)) {
      RuntimeCallBuilder rt = emitterFor(dim, rewriter);
      emitSymIntRangeCheck(rt, dim.getLoc(), dim, dim.getSymName(), size);
    }
    rewriter.replaceOp(dim, size);
    return success();
  }
};

} // namespace

void mlir::gp::populateSymbolicSizePatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            GPToRuntimeState &state) {
  patterns.add<SymIntLowering, SymIntDimLowering>(converter, state);
}
