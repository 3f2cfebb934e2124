//===- gp-opt.cpp - GraphPart optimizer driver ----------------------------===//
//
// Like mlir-opt, with the gp dialect and GraphPart's passes registered beside
// every upstream dialect and pass: linalg from torch-mlir or IREE parses,
// upstream bufferization runs, and gp-import (first in gp-pipeline) takes
// the bufferized program into gp.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Conversion/Passes.h"
#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Transforms/Passes.h"
#include "GraphPart/Pipelines/Pipeline.h"
#include "HugePageHeap.h"
#include "TestPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Threading.h"

/// On a machine with two hardware threads or fewer, MLIR's threading costs
/// more than it gives for GraphPart's pipelines: its passes work on whole
/// modules, so threads only verify kernel bodies in parallel, one task per
/// kernel (a 100k-op program compiles in 2.1 s threaded against 1.7 s
/// single-threaded on 2 cores; docs/Performance.md). There, gp-opt runs
/// single-threaded unless --mlir-disable-threading is given either way.
static void disableThreadingOnSmallMachines() {
  llvm::cl::Option *option =
      llvm::cl::getRegisteredOptions().lookup("mlir-disable-threading");
  if (!option || option->getNumOccurrences() != 0 ||
      llvm::hardware_concurrency().compute_thread_count() > 2)
    return;
  // Through the option's own parser, as if given on the command line.
  (void)option->addOccurrence(/*pos=*/0, option->ArgStr, "true");
}

int main(int argc, char **argv) {
  gp::useHugePageHeap();
  mlir::registerAllPasses();
  mlir::gp::registerGraphPartPasses();
  mlir::gp::registerGraphPartConversionPasses();
  mlir::gp::registerGraphPartPipeline();
  mlir::gp::test::registerGraphPartTestPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates kernels to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::gp::GPDialect>();

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv,
      "GraphPart optimizer driver\n\n"
      "  On machines with two hardware threads or fewer, runs single-threaded\n"
      "  unless --mlir-disable-threading=false is given.\n",
      registry);
  disableThreadingOnSmallMachines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
}
