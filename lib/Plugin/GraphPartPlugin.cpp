//===- GraphPartPlugin.cpp - load GraphPart into any mlir-opt -------------===//
//
// One shared object that is both a dialect plugin and a pass plugin:
//
//   mlir-opt --load-dialect-plugin=lib/GraphPartPlugin.so \
//            --load-pass-plugin=lib/GraphPartPlugin.so \
//            --pass-pipeline="builtin.module(gp-import,gp-pipeline)" ...
//
// (passes from a pass plugin are reachable through --pass-pipeline only:
// mlir-opt parses its command line before it loads the plugin).
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Conversion/Passes.h"
#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Transforms/Passes.h"
#include "GraphPart/Pipelines/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "GraphPart", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<mlir::gp::GPDialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "GraphPart", LLVM_VERSION_STRING, [] {
            mlir::gp::registerGraphPartPasses();
            mlir::gp::registerGraphPartConversionPasses();
            mlir::gp::registerGraphPartPipeline();
          }};
}
