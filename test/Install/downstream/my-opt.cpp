// A downstream mlir-opt with GraphPart's dialect, passes (conversions and
// gp-import included), pipeline and the LLVM IR translations it needs.
#include "GraphPart/Conversion/Passes.h"
#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Pipelines/Pipeline.h"
#include "GraphPart/Transforms/Passes.h"

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
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::gp::GPDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "GraphPart downstream tool\n", registry));
}
