//===- ImportParameters.cpp - parameters are read-only --------------------===//
//
// A `gp.parameter` argument is model state that the runtime binds once, by
// name and without a copy, to the user's buffer: a program that wrote it
// would change the user's weights (and every later call's result). After a
// function is imported, every op that writes or frees storage is checked
// against the parameters' alias classes (BufferAliasAnalysis, so writes
// through views and partitions count), and a write is a located error.
// Upstream bufferization writes into a tensor argument in place when it
// can; `gp-read-only-parameters` (run by `gp-compile --bufferize` before
// it) marks parameters `bufferization.writable = false`, so a tensor
// program gets a copy instead.
//
//===----------------------------------------------------------------------===//

#include "ImportInternal.h"

#include "GraphPart/Analysis/BufferAliasAnalysis.h"
#include "GraphPart/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPREADONLYPARAMETERSPASS
#include "GraphPart/Conversion/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

/// The op as the user knows it: an imported op's kernel or call.
static std::string describe(Operation *op) {
  if (auto kernel = dyn_cast<KernelOp>(op))
    return ("kernel '" + kernel.getKernelName() + "'").str();
  if (auto fallback = dyn_cast<FallbackOp>(op))
    return ("call of '" + fallback.getCallee() + "'").str();
  return ("'" + op->getName().getStringRef() + "'").str();
}

LogicalResult importer::checkParameterWrites(func::FuncOp function) {
  StringRef attrName = GPDialect::getParameterAttrName();
  SmallVector<unsigned> parameters;
  for (unsigned index = 0, e = function.getNumArguments(); index < e; ++index)
    if (function.getArgAttr(index, attrName))
      parameters.push_back(index);
  if (parameters.empty() || function.isExternal())
    return success();

  BufferAliasAnalysis aliases(function);
  /// The parameter argument of each alias class that holds one.
  DenseMap<unsigned, unsigned> parameterOf;
  for (unsigned index : parameters)
    if (std::optional<unsigned> cls =
            aliases.findClass(function.getArgument(index)))
      parameterOf.try_emplace(*cls, index);
  if (parameterOf.empty())
    return success();

  auto check = [&](Operation *op) -> LogicalResult {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    // A partition reports its body's effects, which are checked op by op.
    if (!effects || isa<PartitionOp>(op))
      return success();
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (MemoryEffects::EffectInstance &effect : list) {
      bool frees = isa<MemoryEffects::Free>(effect.getEffect());
      if (!frees && !isa<MemoryEffects::Write>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value)
        continue;
      std::optional<unsigned> cls = aliases.findClass(value);
      if (!cls)
        continue;
      auto it = parameterOf.find(*cls);
      if (it == parameterOf.end())
        continue;
      unsigned index = it->second;
      auto name = function.getArgAttrOfType<StringAttr>(index, attrName);
      InFlightDiagnostic diag =
          op->emitError() << "gp-import: " << describe(op) << " "
                          << (frees ? "frees" : "writes") << " parameter "
                          << name << " (argument " << index << " of @"
                          << function.getSymName()
                          << "); parameters are read-only model state, "
                             "bound to the caller's buffers without a copy: "
                             "write to a new buffer instead";
      diag.attachNote(function.getArgument(index).getLoc())
          << "parameter " << name << " is argument " << index;
      return diag;
    }
    return success();
  };
  WalkResult walk = function.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (failed(check(op)))
      return WalkResult::interrupt();
    // A kernel's body works on the kernel's own arguments; its effects on
    // the program's buffers are the kernel's.
    return isa<KernelOp>(op) ? WalkResult::skip() : WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// gp-read-only-parameters
//===----------------------------------------------------------------------===//

namespace {
struct GPReadOnlyParametersPass
    : public mlir::gp::impl::GPReadOnlyParametersPassBase<
          GPReadOnlyParametersPass> {
  using GPReadOnlyParametersPassBase::GPReadOnlyParametersPassBase;

  void runOnOperation() override {
    StringRef attrName = GPDialect::getParameterAttrName();
    auto writable = StringAttr::get(
        &getContext(), bufferization::BufferizationDialect::kWritableAttrName);
    auto no = BoolAttr::get(&getContext(), false);
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      for (unsigned index = 0, e = function.getNumArguments(); index < e;
           ++index)
        if (function.getArgAttr(index, attrName) &&
            isa<TensorType>(function.getArgumentTypes()[index]))
          function.setArgAttr(index, writable, no);
    }
  }
};
} // namespace
