//===- gp-opt.cpp - GraphPart optimizer driver ----------------------------===//
//
// Like mlir-opt, with the gp dialect and GraphPart's passes registered beside
// every upstream dialect and pass: linalg from torch-mlir or IREE parses,
// upstream bufferization runs, and gp-import (first in gp-pipeline) takes
// the bufferized program into gp.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Conversion/Passes.h"
#include "GraphPart/Conversion/TMTensorRefusal.h"
#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Pipelines/Pipeline.h"
#include "GraphPart/Transforms/Passes.h"
#include "HugePageHeap.h"
#include "ParseFailureHeap.h"
#include "TestPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ToolOutputFile.h"

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

namespace {
/// Defers frees again once a pass manager is done with its input (it is
/// destroyed before the module), so that the next input of a
/// --split-input-file run is parsed with deferred frees too.
struct DeferFreesAfterPipeline final : mlir::PassInstrumentation {
  ~DeferFreesAfterPipeline() override { gp::deferFrees(); }
};
} // namespace

/// Runs the pass pipeline the command line asks for on each input, with
/// frees deferred while an input is parsed (ParseFailureHeap.h): the parse
/// finishes, or fails with its error and exit code 1, on live memory.
static mlir::LogicalResult runOptimizer(llvm::StringRef inputFilename,
                                        llvm::StringRef outputFilename,
                                        mlir::DialectRegistry &registry) {
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  mlir::MlirOptMainConfig commandLinePipeline = config;
  config.setPassPipelineSetupFn(
      [commandLinePipeline](mlir::PassManager &pm) -> mlir::LogicalResult {
        // The input parsed and verified: what it freed can go now.
        gp::releaseDeferredFrees();
        pm.addInstrumentation(std::make_unique<DeferFreesAfterPipeline>());
        return commandLinePipeline.setupPassPipeline(pm);
      });

  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return mlir::failure();
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return mlir::failure();
  }
  gp::deferFrees();
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return mlir::failure();
  output->keep();
  return mlir::success();
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
  // torch-mlir's tm_tensor ops: refused by name where they are parsed.
  mlir::gp::registerTMTensorRefusal(registry);

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv,
      "GraphPart optimizer driver\n\n"
      "  On machines with two hardware threads or fewer, runs single-threaded\n"
      "  unless --mlir-disable-threading=false is given.\n",
      registry);
  disableThreadingOnSmallMachines();
  return mlir::asMainReturnCode(
      runOptimizer(inputFilename, outputFilename, registry));
}
