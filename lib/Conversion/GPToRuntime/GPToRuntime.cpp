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

  /// An error about the pass's options, at the module's location (on the
  /// module op itself it would print the whole module after it).
  InFlightDiagnostic optionError(const Twine &message) {
    return mlir::emitError(getOperation().getLoc(), message);
  }

  /// The ranges the option types do not enforce. Capture sizes are not
  /// among them: a malformed list is refused where the option is read
  /// (Conversion/CaptureSizesOption.h).
  LogicalResult checkOptions() {
    if (target != "host" && target != "cuda")
      return optionError("convert-gp-to-runtime: target must be host or "
                         "cuda, not '")
             << target << "'";
    // The runtime holds them as 32-bit integers.
    if (warmupRuns < 0 || shapeWarningLimit < 0 || warmupRuns > INT32_MAX ||
        shapeWarningLimit > INT32_MAX)
      return optionError(
          "convert-gp-to-runtime: warmup-runs and shape-warning-limit must be "
          "non-negative 32-bit integers");
    if (graphCacheCapacity < 1 || graphCacheCapacity > INT32_MAX)
      return optionError(
          "convert-gp-to-runtime: graph-cache-capacity must be a positive "
          "32-bit integer");
    return success();
  }

  void runOnOperation() override {
    if (failed(checkOptions()))
      return signalPassFailure();
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    GPToRuntimeState state(module,
                           {target == "cuda", warmupRuns, captureSizes,
                            shapeWarningLimit, orError, graphCacheCapacity});
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

    state.sizeLaunchAreas();
    module->removeAttr("gpu.container_module");
    state.emitManifest();
    stripMemorySpaces(module);
  }
};

} // namespace
