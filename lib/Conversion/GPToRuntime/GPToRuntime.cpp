//===- GPToRuntime.cpp - the convert-gp-to-runtime pass -------------------===//
//
// Checks the options, runs the conversion patterns over the module (one op
// family per file in this directory), then finishes the artifact: the
// manifest, and plain memref types where the patterns copied ops verbatim
// (host kernel bodies, declarations).
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Conversion/GPToRuntime/GPToRuntime.h"
#include "GraphPart/Conversion/Passes.h"

#include "LoweringState.h"

#include "mlir/IR/Diagnostics.h"

namespace mlir::gp {
#define GEN_PASS_DEF_CONVERTGPTORUNTIMEPASS
#include "GraphPart/Conversion/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

namespace {

/// Gives every value and function signature its memory-space-free type.
void stripMemorySpaces(ModuleOp module) {
  module.walk([&](Operation *op) {
    for (Value result : op->getResults())
      result.setType(stripMemorySpace(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          argument.setType(stripMemorySpace(argument.getType()));
    if (auto function = dyn_cast<func::FuncOp>(op)) {
      FunctionType type = function.getFunctionType();
      SmallVector<Type> inputs, results;
      for (Type t : type.getInputs())
        inputs.push_back(stripMemorySpace(t));
      for (Type t : type.getResults())
        results.push_back(stripMemorySpace(t));
      function.setFunctionType(
          FunctionType::get(module.getContext(), inputs, results));
    }
  });
}

struct ConvertGPToRuntimePass
    : public mlir::gp::impl::ConvertGPToRuntimePassBase<
          ConvertGPToRuntimePass> {
  using ConvertGPToRuntimePassBase::ConvertGPToRuntimePassBase;

  LogicalResult checkOptions() {
    if (target != "host" && target != "cuda")
      return getOperation().emitError("convert-gp-to-runtime: target must be "
                                      "host or cuda, not '")
             << target << "'";
    if (warmupRuns < 0 || shapeWarningLimit < 0)
      return getOperation().emitError(
          "convert-gp-to-runtime: warmup-runs and shape-warning-limit must be "
          "non-negative");
    if (graphCacheCapacity < 1 || graphCacheCapacity > INT32_MAX)
      return getOperation().emitError(
          "convert-gp-to-runtime: graph-cache-capacity must be a positive "
          "32-bit integer");
    // Capture sizes: sizes or size tuples (2x3), all of one length.
    if (captureSizes.empty())
      return success();
    size_t length = 0;
    for (StringRef entry : llvm::split(StringRef(captureSizes), ',')) {
      size_t parts = 0;
      bool valid = !entry.empty();
      for (StringRef part : llvm::split(entry, 'x')) {
        uint64_t value;
        valid &= !part.getAsInteger(10, value);
        ++parts;
      }
      if (!valid || (length && parts != length))
        return getOperation().emitError(
                   "convert-gp-to-runtime: capture-sizes '")
               << captureSizes
               << "' is not a list of sizes or size tuples of one length "
                  "(1,2,4 or 2x3,4x5)";
      length = parts;
    }
    return success();
  }

  void runOnOperation() override {
    if (failed(checkOptions()))
      return signalPassFailure();
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    GPToRuntimeState state(module, {target == "cuda", warmupRuns, captureSizes,
                                    shapeWarningLimit, orError,
                                    graphCacheCapacity});
    if (failed(state.prepare()))
      return signalPassFailure();

    GPToRuntimeTypeConverter converter(ctx);
    ConversionTarget conversionTarget(*ctx);
    configureGPToRuntimeConversionTarget(conversionTarget, state);
    RewritePatternSet patterns(ctx);
    populateGPToRuntimeConversionPatterns(converter, patterns, state);
    // Folding would bypass the patterns (and their diagnostics). Pattern
    // rollback (the default) defers replacements, so the program stays as
    // written until the conversion succeeds and diagnostics show it so.
    ConversionConfig config;
    config.foldingMode = DialectConversionFoldingMode::Never;
    LogicalResult converted = failure();
    {
      // A pattern that rejects an op says why; the driver's generic
      // "failed to legalize" that follows adds nothing.
      ScopedDiagnosticHandler dropFollowUp(ctx, [&](Diagnostic &diag) {
        return success(
            state.diagnosed &&
            diag.getSeverity() == DiagnosticSeverity::Error &&
            StringRef(diag.str()).starts_with("failed to legalize operation"));
      });
      converted = applyPartialConversion(module, conversionTarget,
                                         std::move(patterns), config);
    }
    if (failed(converted))
      return signalPassFailure();

    module->removeAttr("gpu.container_module");
    state.emitManifest();
    stripMemorySpaces(module);
  }
};

} // namespace
