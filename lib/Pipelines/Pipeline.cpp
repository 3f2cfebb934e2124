//===- Pipeline.cpp - the GraphPart pipeline ------------------------------===//

#include "GraphPart/Pipelines/Pipeline.h"

#include "GraphPart/Transforms/Passes.h"

#include "GraphPart/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::gp;

void mlir::gp::buildGraphPartPipeline(OpPassManager &pm,
                                      const GraphPartPipelineOptions &options) {
  // Upstream linalg/memref input comes in; gp input passes through.
  GPImportPassOptions import;
  import.defaultDevice = options.defaultDevice;
  import.weightsDir = options.weightsDir;
  pm.addPass(createGPImportPass(import));
  // The entry's sizes are read off the program as written, before
  // partitioning and fusion move its kernels.
  pm.addNestedPass<func::FuncOp>(createGPSizeClassesPass());
  pm.addPass(createGPExpandStridedCopiesPass());
  if (options.reorder) {
    GPReorderPassOptions reorder;
    reorder.memoryBudget = options.memoryBudget;
    reorder.unsafeOps.assign(options.unsafeOps.begin(),
                             options.unsafeOps.end());
    reorder.skipDynamicGraphs = options.skipDynamicGraphs;
    reorder.captureCollectives = options.captureCollectives;
    reorder.report = options.report;
    pm.addPass(createGPReorderPass(reorder));
  }
  GPPartitionPassOptions partition;
  partition.unsafeOps.assign(options.unsafeOps.begin(),
                             options.unsafeOps.end());
  partition.skipDynamicGraphs = options.skipDynamicGraphs;
  partition.captureCollectives = options.captureCollectives;
  partition.minPartitionSize = options.minPartitionSize;
  partition.cudagraphOrError = options.cudagraphOrError;
  partition.report = options.report;
  partition.dotFile = options.dotFile;
  pm.addPass(createGPPartitionPass(partition));
  if (options.fuse)
    pm.addPass(createGPFuseKernelsPass(
        {options.report, options.fuseRows, options.fuseDuplicate,
         options.fuseSiblings}));
  GPPlanMemoryPassOptions plan;
  plan.report = options.report;
  plan.reportFile = options.reportFile;
  pm.addPass(createGPPlanMemoryPass(plan));
  if (options.debug)
    pm.addPass(createGPVerifyPlanPass());
  if (!options.target.empty())
    buildRuntimeLowering(pm, options);
}

void mlir::gp::buildRuntimeLowering(OpPassManager &pm,
                                    const GraphPartPipelineOptions &options) {
  bool cuda = options.target == "cuda";
  pm.addPass(createGPExpandRngFillsPass());
  GPEmulateFloatsPassOptions floats;
  floats.nativeBF16 = cuda;
  pm.addPass(createGPEmulateFloatsPass(floats));
  pm.addPass(createGPScalarSlotsPass());
  if (options.checked)
    pm.addPass(createGPCheckBoundsPass());
  if (cuda) {
    ConvertGPToGPUPassOptions gpu;
    gpu.elementsPerThread = options.elementsPerThread;
    gpu.rowElementsPerThread = options.rowElementsPerThread;
    pm.addPass(createConvertGPToGPUPass(gpu));
    // One gpu.func per distinct kernel: NVPTX and ptxas compile each once.
    pm.addPass(createGPDeduplicateFunctionsPass());
    GpuNVVMAttachTargetOptions attach;
    attach.chip = options.cudaChip;
    attach.optLevel = 3;
    if (!options.libdevice.empty())
      attach.linkLibs.push_back(options.libdevice);
    pm.addPass(createGpuNVVMAttachTarget(attach));
    OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
    kernels.addPass(createLowerAffinePass());
    kernels.addPass(createSCFToControlFlowPass());
    kernels.addPass(createConvertGpuOpsToNVVMOps());
    // Math ops libdevice has no function for (math.trunc) become LLVM
    // intrinsics the NVPTX backend selects.
    kernels.addPass(createConvertMathToLLVMPass());
    kernels.addPass(createReconcileUnrealizedCastsPass());
    // Kernels to cubins, a large module's share per thread at once.
    pm.addPass(createGPGPUModuleToBinaryPass());
  }
  ConvertGPToRuntimePassOptions runtime;
  runtime.target = options.target;
  runtime.warmupRuns = options.warmupRuns;
  // The parsed list itself: nothing is read again on the way to the
  // manifest.
  runtime.captureSizes = options.captureSizes;
  runtime.shapeWarningLimit = options.shapeWarningLimit;
  runtime.graphCacheCapacity = options.graphCacheCapacity;
  runtime.orError = options.cudagraphOrError;
  pm.addPass(createConvertGPToRuntimePass(runtime));
  // One function per distinct host kernel (and packed form) before LLVM.
  pm.addPass(createGPDeduplicateFunctionsPass());
  // The host side (and host kernels) to the LLVM dialect: first linalg,
  // views, affine, loops and math, in the functions that have them (the
  // kernels, entries with views or host scalar math).
  pm.addPass(createGPLowerKernelCodePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::gp::registerGraphPartPipeline() {
  PassPipelineRegistration<GraphPartPipelineOptions>(
      "gp-pipeline",
      "Reorder, partition at CUDA-graph-unsafe ops, plan memory and, with "
      "target=host|cuda, lower onto the runtime in the LLVM dialect",
      buildGraphPartPipeline);
}
