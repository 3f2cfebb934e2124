//===- LowerKernelCode.cpp - upstream lowerings where they apply ----------===//
//
// The gp-lower-kernel-code pass (Passes.td says why): a nested pipeline of
// upstream passes, run with runPipeline on the functions that need it, then
// math-to-libm's patterns on the same functions (its pass works on whole
// modules, as it declares the libm functions it calls).
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPLOWERKERNELCODEPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;

namespace {

OpPassManager kernelCodeLowering() {
  OpPassManager pipeline(func::FuncOp::getOperationName());
  pipeline.addPass(createConvertLinalgToLoopsPass());
  pipeline.addPass(gp::createGPStoreChangedElementsPass());
  // Subviews and transposes expand into affine.apply on their offsets and
  // strides, which lower-affine then turns into arith.
  pipeline.addPass(memref::createExpandStridedMetadataPass());
  pipeline.addPass(createLowerAffinePass());
  pipeline.addPass(createSCFToControlFlowPass());
  pipeline.addPass(math::createMathExpandOpsPass(
      {/*opMnemonics=*/{"asinh", "acosh", "atanh"}}));
  pipeline.addPass(createConvertMathToLLVMPass());
  return pipeline;
}

bool holdsKernelCode(func::FuncOp function) {
  return function
      .walk([](Operation *op) {
        return isa<linalg::LinalgDialect, memref::MemRefDialect,
                   affine::AffineDialect, scf::SCFDialect, math::MathDialect>(
                   op->getDialect())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

struct GPLowerKernelCodePass
    : public gp::impl::GPLowerKernelCodePassBase<GPLowerKernelCodePass> {
  using GPLowerKernelCodePassBase::GPLowerKernelCodePassBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    GPLowerKernelCodePassBase::getDependentDialects(registry);
    kernelCodeLowering().getDependentDialects(registry);
  }

  LogicalResult initialize(MLIRContext *context) override {
    pipeline = kernelCodeLowering();
    RewritePatternSet patterns(context);
    populateMathToLibmConversionPatterns(patterns);
    libmCalls = FrozenRewritePatternSet(std::move(patterns));
    return success();
  }

  void runOnOperation() override {
    SmallVector<func::FuncOp> functions;
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (!function.isExternal() && holdsKernelCode(function))
        functions.push_back(function);
    for (func::FuncOp function : functions) {
      ++numLowered;
      if (failed(runPipeline(pipeline, function)))
        return signalPassFailure();
      // Declares the libm functions it calls in the module, beside this
      // function; nothing else is touched.
      GreedyRewriteConfig config;
      config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
      (void)applyPatternsGreedily(function, libmCalls, config);
    }
  }

  OpPassManager pipeline{func::FuncOp::getOperationName()};
  FrozenRewritePatternSet libmCalls;
};

} // namespace
