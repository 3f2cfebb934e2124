//===- gp-opt.cpp - GraphPart optimizer driver ----------------------------===//
//
// Like mlir-opt, with the gp dialect and GraphPart's passes registered beside
// every upstream dialect and pass, so torch-mlir and IREE output parses.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Conversion/Passes.h"
#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Transforms/Passes.h"
#include "GraphPart/Transforms/Pipeline.h"
#include "TestPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
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

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "GraphPart optimizer driver\n", registry));
}
