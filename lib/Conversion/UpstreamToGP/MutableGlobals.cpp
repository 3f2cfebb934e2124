//===- MutableGlobals.cpp - ml_program globals as mutable parameters ------===//
//
// torch-mlir keeps state between calls (the RNG seed it lowers
// `torch_c.get_next_seed` to) in a mutable `ml_program.global`, read with
// `ml_program.global_load` and written with `ml_program.global_store`.
// GraphPart's form of such state is a mutable parameter: this pass, run on
// the tensor program before bufferization (`gp-compile --bufferize` runs
// it first), gives every function that uses a mutable global an argument
// `{gp.mutable, gp.parameter = "<global>"}`, makes each load the state's
// value at that point and each store its new value, returns the final
// value as the result `gp.writes_parameter` names (gp-write-back-parameters
// makes it a write of the state in place), and records the global's
// initial value in the module attribute `gp.initial_values`, from which the
// runtime allocates and fills the state when the artifact loads.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Conversion/Passes.h"
#include "GraphPart/Dialect/GP/IR/GPDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPMUTABLEGLOBALSTOPARAMETERSPASS
#include "GraphPart/Conversion/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

namespace {

/// Turns the uses of `global` in `function` (loads and stores in its entry
/// block, in order) into a mutable parameter argument and, where it is
/// written, a result giving its final value.
LogicalResult rewriteUses(ml_program::GlobalOp global, func::FuncOp function,
                          ArrayRef<Operation *> uses) {
  MLIRContext *context = global.getContext();
  StringRef name = global.getSymName();
  if (!function.getBody().hasOneBlock())
    return function.emitError()
           << "gp-mutable-globals-to-parameters: @" << function.getSymName()
           << " uses global @" << name
           << " and has several blocks; only single-block functions can";
  for (Operation *use : uses)
    if (use->getBlock() != &function.front())
      return use->emitError()
             << "gp-mutable-globals-to-parameters: global @" << name
             << " is used inside a region; only loads and stores in the "
                "function's body can be made a parameter";
  NamedAttrList attrs;
  attrs.append(GPDialect::getParameterAttrName(), StringAttr::get(context, name));
  attrs.append(GPDialect::getMutableAttrName(), UnitAttr::get(context));
  unsigned index = function.getNumArguments();
  if (failed(function.insertArgument(index, global.getType(),
                                     attrs.getDictionary(context),
                                     global.getLoc())))
    return function.emitError("could not add the state's argument");
  Value current = function.getArgument(index);
  bool written = false;
  SmallVector<Operation *> ordered(uses.begin(), uses.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  for (Operation *use : ordered) {
    if (auto load = dyn_cast<ml_program::GlobalLoadOp>(use)) {
      load.getResult().replaceAllUsesWith(current);
    } else {
      current = cast<ml_program::GlobalStoreOp>(use).getValue();
      written = true;
    }
    use->erase();
  }
  if (!written)
    return success();
  auto ret = cast<func::ReturnOp>(function.front().getTerminator());
  ret->insertOperands(ret->getNumOperands(), current);
  unsigned result = function.getNumResults();
  if (failed(function.insertResult(
          result, global.getType(),
          DictionaryAttr::get(
              context, {NamedAttribute(
                           StringAttr::get(
                               context,
                               GPDialect::getWritesParameterAttrName()),
                           StringAttr::get(context, name))}))))
    return function.emitError("could not add the state's result");
  return success();
}

struct GPMutableGlobalsToParametersPass
    : public mlir::gp::impl::GPMutableGlobalsToParametersPassBase<
          GPMutableGlobalsToParametersPass> {
  using GPMutableGlobalsToParametersPassBase::
      GPMutableGlobalsToParametersPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    SmallVector<NamedAttribute> initialValues;
    if (auto existing = module->getAttrOfType<DictionaryAttr>(
            GPDialect::getInitialValuesAttrName()))
      initialValues.assign(existing.begin(), existing.end());
    for (auto global : llvm::make_early_inc_range(
             module.getOps<ml_program::GlobalOp>())) {
      if (!global.getIsMutable())
        continue;
      if (failed(convert(module, global, initialValues)))
        return signalPassFailure();
    }
    if (!initialValues.empty())
      module->setAttr(GPDialect::getInitialValuesAttrName(),
                      DictionaryAttr::get(context, initialValues));
  }

  LogicalResult convert(ModuleOp module, ml_program::GlobalOp global,
                        SmallVectorImpl<NamedAttribute> &initialValues) {
    StringRef name = global.getSymName();
    auto type = dyn_cast<RankedTensorType>(global.getType());
    auto value = dyn_cast_or_null<ElementsAttr>(global.getValueAttr());
    if (!type || !type.hasStaticShape() || !value)
      return global.emitError()
             << "gp-mutable-globals-to-parameters: mutable global @" << name
             << " must be a static tensor with an initial value (dense or "
                "dense_resource), to become state the runtime fills";
    if (!GPDialect::isValidParameterName(name))
      return global.emitError()
             << "gp-mutable-globals-to-parameters: global @" << name
             << " cannot name a parameter (no whitespace or control "
                "characters)";
    // Uses, by function; anything but loads and stores is not taken.
    llvm::MapVector<func::FuncOp, SmallVector<Operation *>> byFunction;
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(global, module);
    for (const SymbolTable::SymbolUse &use : *uses) {
      Operation *user = use.getUser();
      if (!isa<ml_program::GlobalLoadOp, ml_program::GlobalStoreOp>(user))
        return user->emitError()
               << "gp-mutable-globals-to-parameters: '" << user->getName()
               << "' of mutable global @" << name
               << " is not supported (global_load and global_store are)";
      auto function = user->getParentOfType<func::FuncOp>();
      if (!function)
        return user->emitError() << "gp-mutable-globals-to-parameters: a "
                                    "use of @"
                                 << name << " outside a func.func";
      byFunction[function].push_back(user);
    }
    for (auto &[function, users] : byFunction) {
      if (!SymbolTable::symbolKnownUseEmpty(function, module))
        return function.emitError()
               << "gp-mutable-globals-to-parameters: @"
               << function.getSymName() << " uses mutable global @" << name
               << " and is called from the program; only entry functions "
                  "may";
      if (failed(rewriteUses(global, function, users)))
        return failure();
    }
    initialValues.push_back(
        NamedAttribute(StringAttr::get(&getContext(), name), value));
    global.erase();
    return success();
  }
};
} // namespace
