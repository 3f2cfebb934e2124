//===- Patterns.cpp - type converter, target and pattern set --------------===//
//
// The public entry points of the lowering (GPToRuntime.h): how types
// convert, what is legal, and the patterns of every op family.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::gp;

GPToRuntimeTypeConverter::GPToRuntimeTypeConverter(MLIRContext *ctx) {
  addConversion([](Type type) { return type; });
  addConversion([](MemRefType type) { return stripMemorySpace(type); });
  addConversion(
      [ctx](RngStateType) -> Type { return LLVM::LLVMPointerType::get(ctx); });
}

std::optional<std::string> mlir::gp::sourceLocation(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  return std::nullopt;
}

void mlir::gp::configureGPToRuntimeConversionTarget(ConversionTarget &target,
                                                    GPToRuntimeState &state) {
  // Ops directly in a program function or a partition body are lowered;
  // everything else (the new functions, kernel bodies) is left alone.
  target.markUnknownOpDynamicallyLegal([&state](Operation *op) {
    return !state.atTopLevel(op) && !state.inPartition(op);
  });
  target.addIllegalDialect<GPDialect>();
  target.addIllegalOp<gpu::BinaryOp>();
  // Program functions and partitions stay while their bodies are lowered.
  target.addDynamicallyLegalOp<func::FuncOp>([&state](func::FuncOp function) {
    return !state.programFunctions.contains(function) ||
           state.started.contains(function);
  });
  target.addDynamicallyLegalOp<PartitionOp>([&state](PartitionOp partition) {
    return state.started.contains(partition);
  });
}

void mlir::gp::populateGPToRuntimeConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    GPToRuntimeState &state) {
  populateEntryPointPatterns(converter, patterns, state);
  populatePartitionPatterns(converter, patterns, state);
  populateKernelLaunchPatterns(converter, patterns, state);
  populateExternPatterns(converter, patterns, state);
  populateCopyPatterns(converter, patterns, state);
  populateRngPatterns(converter, patterns, state);
  populateBufferPatterns(converter, patterns, state);
  populateSymbolicSizePatterns(converter, patterns, state);
  populateCollectivePatterns(converter, patterns, state);
  populateHostOpPatterns(converter, patterns, state);
}
