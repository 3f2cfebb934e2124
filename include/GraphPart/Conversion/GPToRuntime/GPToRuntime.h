//===- GPToRuntime.h - lower programs onto the GraphPart runtime -*- C++
//-*-===//
//
// Conversion patterns that turn a partitioned, planned program into host
// code calling the runtime's C ABI (include/GraphPart/Runtime/GPRuntime.h).
// The pass `convert-gp-to-runtime` drives them; see its description in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_CONVERSION_GPTORUNTIME_GPTORUNTIME_H
#define GRAPHPART_CONVERSION_GPTORUNTIME_GPTORUNTIME_H

#include "mlir/Transforms/DialectConversion.h"

#include "GraphPart/Runtime/CaptureSizes.h"

#include <string>

namespace mlir::gp {

/// What the artifact is built for, and the runtime policy defaults its
/// manifest carries.
struct GPToRuntimeOptions {
  bool cudaTarget = false;
  int64_t warmupRuns = 1;
  /// The pass option's value, parsed where the option was read.
  ::gp::CaptureSizes captureSizes;
  int64_t shapeWarningLimit = 8;
  bool orError = false;
  int64_t graphCacheCapacity = 64;
};

/// What the patterns share while one module is lowered: the functions they
/// emit into and what the manifest will describe (lib/Conversion/GPToRuntime/
/// LoweringState.h).
class GPToRuntimeState;

/// Memrefs in a memory space (`#gp.device<...>`) become plain memrefs; RNG
/// states become the pointer to their slot.
class GPToRuntimeTypeConverter : public TypeConverter {
public:
  explicit GPToRuntimeTypeConverter(MLIRContext *ctx);
};

/// Program functions, partitions and the ops in them are illegal; what the
/// patterns emit is legal.
void configureGPToRuntimeConversionTarget(ConversionTarget &target,
                                          GPToRuntimeState &state);

/// All patterns of the lowering, one set per op family.
void populateGPToRuntimeConversionPatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           GPToRuntimeState &state);

} // namespace mlir::gp

#endif // GRAPHPART_CONVERSION_GPTORUNTIME_GPTORUNTIME_H
