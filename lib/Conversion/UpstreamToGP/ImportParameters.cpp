//===- ImportParameters.cpp - parameters are read-only --------------------===//
//
// A `gp.parameter` argument is model state that the runtime binds once, by
// name and without a copy, to the user's buffer: a program that wrote it
// would change the user's weights (and every later call's result). After a
// function is imported, every op that writes or frees storage is checked
// against the parameters' alias classes (BufferAliasAnalysis, so writes
// through views and partitions count), and a write is a located error.
// Upstream bufferization writes into a tensor argument in place when it
// can; `gp-read-only-arguments` (run by `gp-compile --bufferize` before
// it) marks parameters and inputs `bufferization.writable = false`, so a
// tensor program gets a copy instead.
//
// A `gp.mutable` parameter is state the program updates in place (a
// key/value cache): writes to it are allowed, bufferization may write it
// in place, and `gp-write-back-parameters` (after bufferization) turns the
// result that gives its new value into a write of the parameter's buffer.
//
//===----------------------------------------------------------------------===//

#include "ImportInternal.h"

#include "GraphPart/Analysis/BufferAliasAnalysis.h"
#include "GraphPart/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPREADONLYARGUMENTSPASS
#define GEN_PASS_DEF_GPWRITEBACKPARAMETERSPASS
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
    if (function.getArgAttr(index, attrName) &&
        !function.getArgAttr(index, GPDialect::getMutableAttrName()))
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
// gp-read-only-arguments
//===----------------------------------------------------------------------===//

namespace {
struct GPReadOnlyArgumentsPass
    : public mlir::gp::impl::GPReadOnlyArgumentsPassBase<
          GPReadOnlyArgumentsPass> {
  using GPReadOnlyArgumentsPassBase::GPReadOnlyArgumentsPassBase;

  void runOnOperation() override {
    auto writable = StringAttr::get(
        &getContext(), bufferization::BufferizationDialect::kWritableAttrName);
    auto no = BoolAttr::get(&getContext(), false);
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      for (unsigned index = 0, e = function.getNumArguments(); index < e;
           ++index)
        if (!function.getArgAttr(index, GPDialect::getMutableAttrName()) &&
            isa<TensorType>(function.getArgumentTypes()[index]))
          function.setArgAttr(index, writable, no);
    }
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// gp-write-back-parameters
//===----------------------------------------------------------------------===//

/// Makes each result of `function` that gives a mutable parameter's new
/// value (`gp.writes_parameter`) a write of the parameter's buffer: nothing
/// when bufferization already returns the parameter itself (it wrote in
/// place), else a copy into it before each return; then drops the result.
static LogicalResult writeBackParameters(func::FuncOp function) {
  StringRef writesName = GPDialect::getWritesParameterAttrName();
  llvm::BitVector dropped(function.getNumResults());
  SmallVector<std::pair<unsigned, unsigned>> written; // (result, argument)
  for (unsigned result = 0, e = function.getNumResults(); result < e;
       ++result) {
    auto name = function.getResultAttrOfType<StringAttr>(result, writesName);
    if (!name)
      continue;
    std::optional<unsigned> argument;
    for (unsigned index = 0, n = function.getNumArguments(); index < n;
         ++index)
      if (function.getArgAttrOfType<StringAttr>(
              index, GPDialect::getParameterAttrName()) == name)
        argument = index;
    // The dialect's verifier has checked the name and the types.
    if (!argument)
      return function.emitError() << "result " << result
                                  << " writes parameter " << name
                                  << ", which no argument is";
    if (!isa<MemRefType>(function.getResultTypes()[result]))
      return function.emitError()
             << "gp-write-back-parameters: result " << result
             << " (parameter " << name << ") is a "
             << function.getResultTypes()[result]
             << "; run it after bufferization (gp-compile --bufferize does)";
    written.push_back({result, *argument});
    dropped.set(result);
  }
  if (written.empty())
    return success();
  if (!SymbolTable::symbolKnownUseEmpty(function, function->getParentOp()))
    return function.emitError()
           << "gp-write-back-parameters: @" << function.getSymName()
           << " writes parameters in place and is called from the program; "
              "only entry functions may";

  function.walk([&](func::ReturnOp ret) {
    OpBuilder builder(ret);
    for (auto [result, argument] : written) {
      Value value = ret.getOperand(result);
      Value parameter = function.getArgument(argument);
      if (value == parameter)
        continue; // Written in place already.
      memref::CopyOp::create(builder, ret.getLoc(), value, parameter);
    }
    SmallVector<Value> kept;
    for (auto [index, value] : llvm::enumerate(ret.getOperands()))
      if (!dropped.test(index))
        kept.push_back(value);
    ret->setOperands(kept);
  });
  if (failed(function.eraseResults(dropped)))
    return function.emitError() << "could not drop the written parameters' "
                                   "results";
  return success();
}

namespace {
struct GPWriteBackParametersPass
    : public mlir::gp::impl::GPWriteBackParametersPassBase<
          GPWriteBackParametersPass> {
  using GPWriteBackParametersPassBase::GPWriteBackParametersPassBase;

  void runOnOperation() override {
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (!function.isExternal() && failed(writeBackParameters(function)))
        return signalPassFailure();
  }
};
} // namespace
