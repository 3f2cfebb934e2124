//===- Pipeline.cpp - the GraphPart pipeline ------------------------------===//

#include "GraphPart/Transforms/Pipeline.h"

#include "GraphPart/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::gp;

void mlir::gp::buildGraphPartPipeline(OpPassManager &pm,
                                      const GraphPartPipelineOptions &options) {
  if (options.reorder) {
    GPReorderPassOptions reorder;
    reorder.memoryBudget = options.memoryBudget;
    reorder.unsafeOps.assign(options.unsafeOps.begin(), options.unsafeOps.end());
    reorder.skipDynamicGraphs = options.skipDynamicGraphs;
    reorder.report = options.report;
    pm.addPass(createGPReorderPass(reorder));
  }
  GPPartitionPassOptions partition;
  partition.unsafeOps.assign(options.unsafeOps.begin(),
                             options.unsafeOps.end());
  partition.skipDynamicGraphs = options.skipDynamicGraphs;
  partition.minPartitionSize = options.minPartitionSize;
  partition.cudagraphOrError = options.cudagraphOrError;
  partition.report = options.report;
  pm.addPass(createGPPartitionPass(partition));
  GPPlanMemoryPassOptions plan;
  plan.report = options.report;
  pm.addPass(createGPPlanMemoryPass(plan));
  if (options.debug)
    pm.addPass(createGPVerifyPlanPass());
}

void mlir::gp::registerGraphPartPipeline() {
  PassPipelineRegistration<GraphPartPipelineOptions>(
      "gp-pipeline",
      "Reorder, partition at CUDA-graph-unsafe ops, and plan memory",
      buildGraphPartPipeline);
}
