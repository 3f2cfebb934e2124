//===- SymbolicSizes.cpp - symbolic sizes become index values -------------===//
//
// A `gp.symint` is the index value it names; a `gp.symint.dim` is a
// `memref.dim` of its (lowered) buffer. Both appear in entry points and in
// partition bodies. (`gp.symint.unbacked` reads a device buffer: Copies.cpp.)
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::gp;

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
