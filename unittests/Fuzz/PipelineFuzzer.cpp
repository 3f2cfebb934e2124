//===- PipelineFuzzer.cpp - bytes through parse, verify and gp-pipeline ---===//
//
// libFuzzer target: the input is an MLIR source file. It is parsed with
// every upstream dialect and the gp dialect (as gp-opt does), verified, and,
// when valid, run through gp-pipeline with target=host (partitioning,
// reordering, memory planning, the lowering to the runtime and to the LLVM
// dialect). Errors are expected; a crash, a sanitizer report or a hang is a
// finding. scripts/fuzz.sh builds and runs it.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Conversion/Passes.h"
#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Pipelines/Pipeline.h"
#include "GraphPart/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstdlib>
#include <string>

using namespace mlir;

static const DialectRegistry &registry() {
  static DialectRegistry *made = [] {
    registerAllPasses();
    gp::registerGraphPartPasses();
    gp::registerGraphPartConversionPasses();
    gp::registerGraphPartPipeline();
    auto *result = new DialectRegistry();
    registerAllDialects(*result);
    registerAllExtensions(*result);
    result->insert<gp::GPDialect>();
    return result;
  }();
  return *made;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A context per input: nothing one input uniques leaks into the next.
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  ParserConfig config(&context);
  // NUL-terminated, as a file gp-opt reads is: MLIR's lexer stops there.
  std::string source(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, config);
  if (!module || failed(verify(*module)))
    return 0;
  PassManager pm(&context);
  if (failed(parsePassPipeline("builtin.module(gp-pipeline{target=host})", pm)))
    std::abort(); // The pipeline itself must parse.
  (void)pm.run(*module);
  return 0;
}
