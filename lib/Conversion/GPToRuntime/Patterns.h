//===- Patterns.h - the GPToRuntime patterns, by op family ----------------===//
//
// The base class of the patterns and the populate function of each op
// family's file.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_CONVERSION_GPTORUNTIME_PATTERNS_H
#define GRAPHPART_LIB_CONVERSION_GPTORUNTIME_PATTERNS_H

#include "LoweringState.h"
#include "RuntimeCallBuilder.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::gp {

/// A pattern of this lowering: it sees the shared state and emits its code
/// where the lowering of its op's region continues.
template <typename OpTy>
class GPToRuntimePattern : public OpConversionPattern<OpTy> {
public:
  GPToRuntimePattern(const TypeConverter &converter, GPToRuntimeState &state)
      : OpConversionPattern<OpTy>(converter, state.module.getContext()),
        state(state) {}

protected:
  /// Moves `rewriter` to the end of the function `op`'s region lowers into.
  void continueLowering(Operation *op,
                        ConversionPatternRewriter &rewriter) const {
    rewriter.setInsertionPointToEnd(
        &state.loweredParent(op).function.getBody().back());
  }
  /// A builder where the lowering of `op`'s region continues.
  RuntimeCallBuilder emitterFor(Operation *op,
                                ConversionPatternRewriter &rewriter) const {
    continueLowering(op, rewriter);
    return builder(rewriter);
  }
  RuntimeCallBuilder builder(ConversionPatternRewriter &rewriter) const {
    return RuntimeCallBuilder(rewriter, state.module, state.llvmConverter);
  }

  GPToRuntimeState &state;
};

/// "file:line:col" of the user's source that `loc` holds, if it holds one:
/// what the manifest and run-time errors name an op by.
std::optional<std::string> sourceLocation(Location loc);

// One per file, named after it.
void populateEntryPointPatterns(const TypeConverter &converter,
                                RewritePatternSet &patterns,
                                GPToRuntimeState &state);
void populatePartitionPatterns(const TypeConverter &converter,
                               RewritePatternSet &patterns,
                               GPToRuntimeState &state);
void populateKernelLaunchPatterns(const TypeConverter &converter,
                                  RewritePatternSet &patterns,
                                  GPToRuntimeState &state);
void populateExternPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns,
                            GPToRuntimeState &state);
void populateCopyPatterns(const TypeConverter &converter,
                          RewritePatternSet &patterns, GPToRuntimeState &state);
void populateRngPatterns(const TypeConverter &converter,
                         RewritePatternSet &patterns, GPToRuntimeState &state);
void populateBufferPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns,
                            GPToRuntimeState &state);
/// Fails the call (gpRtCheckSymInt) when `value`, the symint `name` that
/// `symint` defines, is outside the `min`/`max` it declares.
void emitSymIntRangeCheck(RuntimeCallBuilder &rt, Location loc,
                          Operation *symint, StringRef name, Value value);
void populateSymbolicSizePatterns(const TypeConverter &converter,
                                  RewritePatternSet &patterns,
                                  GPToRuntimeState &state);
void populateCollectivePatterns(const TypeConverter &converter,
                                RewritePatternSet &patterns,
                                GPToRuntimeState &state);
void populateHostOpPatterns(const TypeConverter &converter,
                            RewritePatternSet &patterns,
                            GPToRuntimeState &state);

} // namespace mlir::gp

#endif // GRAPHPART_LIB_CONVERSION_GPTORUNTIME_PATTERNS_H
