//===- HostOps.cpp - host arithmetic, casts and unsupported ops -----------===//
//
// Upstream ops that compute on the host (constants, scalar arith, math,
// index and affine ops; `memref.dim` in partitions: launch configurations
// from convert-gp-to-gpu) are cloned
// into the function their region lowers into; convert-gp-to-gpu's
// `memref.memory_space_cast` to the default space is a no-op. Any other op
// in an entry point or a partition body cannot be lowered, and says so.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mlir::gp;

namespace {

/// Scalar math on host values, in an entry point (sizes computed from
/// symints, a scale from a gp.item) or a partition body, where memref.dim
/// also reads the sizes of buffers.
bool isHostComputation(GPToRuntimeState &state, Operation *op) {
  bool topLevel = state.atTopLevel(op);
  if ((!topLevel && !state.inPartition(op)) || op->getNumRegions() != 0)
    return false;
  if (op->hasTrait<OpTrait::ConstantLike>())
    return true;
  auto scalar = [](Type type) { return type.isIntOrIndexOrFloat(); };
  bool scalarMath =
      isa<arith::ArithDialect, affine::AffineDialect, math::MathDialect,
          index::IndexDialect>(op->getDialect()) &&
      llvm::all_of(op->getOperandTypes(), scalar) &&
      llvm::all_of(op->getResultTypes(), scalar);
  return scalarMath || (!topLevel && isa<memref::DimOp>(op));
}

struct HostComputationLowering : ConversionPattern {
  HostComputationLowering(const TypeConverter &converter,
                          GPToRuntimeState &state)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/2,
                          state.module.getContext()),
        state(state) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isHostComputation(state, op))
      return failure();
    rewriter.setInsertionPointToEnd(
        &state.loweredParent(op).function.getBody().back());
    IRMapping mapping;
    mapping.map(op->getOperands(), operands);
    rewriter.replaceOp(op, rewriter.clone(*op, mapping)->getResults());
    return success();
  }

  GPToRuntimeState &state;
};

struct MemorySpaceCastLowering : GPToRuntimePattern<memref::MemorySpaceCastOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(memref::MemorySpaceCastOp cast, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.inPartition(cast))
      return failure();
    rewriter.replaceOp(cast, adaptor.getSource());
    return success();
  }
};

/// Tried last: an op of an entry point or partition body that no pattern
/// lowers.
struct UnsupportedOpRejection : ConversionPattern {
  UnsupportedOpRejection(const TypeConverter &converter,
                         GPToRuntimeState &state)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          state.module.getContext()),
        state(state) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value>,
                                ConversionPatternRewriter &) const override {
    // A pattern that rejected the op already said why.
    if (state.diagnosed)
      return failure();
    // Control flow is lowered around host scalars only: what it would
    // run on a device (a kernel, a copy, an allocation) has no lowering
    // inside a region yet, so say so rather than name the loop alone.
    Operation *deviceWork = nullptr;
    if (op->getNumRegions() != 0 &&
        (state.atTopLevel(op) || state.inPartition(op)))
      op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
        if (nested != op && isa<GPDialect>(nested->getDialect()) &&
            !nested->hasTrait<OpTrait::IsTerminator>()) {
          deviceWork = nested;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
    if (deviceWork)
      return state.emitError(op)
             << "cannot lower '" << op->getName() << "' whose body runs '"
             << deviceWork->getName()
             << "': control flow is supported around host scalars only ("
             << (isa<LoopLikeOpInterface>(op)
                     ? "unroll a loop of static trip count, or call the "
                       "program once per iteration"
                     : "compute both sides and select, or choose between "
                       "two programs in the caller")
             << ")";
    if (state.atTopLevel(op))
      return state.emitError(op)
             << "cannot lower '" << op->getName()
             << "' outside a partition (run gp-pipeline first)";
    if (state.inPartition(op))
      return state.emitError(op)
             << "cannot lower '" << op->getName() << "' inside a partition";
    return failure();
  }

  GPToRuntimeState &state;
};

} // namespace

void mlir::gp::populateHostOpPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      GPToRuntimeState &state) {
  patterns.add<HostComputationLowering, MemorySpaceCastLowering,
               UnsupportedOpRejection>(converter, state);
}
