//===- DeduplicateFunctions.cpp - one function per identical body ---------===//
//
// The gp-deduplicate-functions pass (Passes.td says what is merged and
// why that is safe). Functions are bucketed by a structural hash, compared
// op for op within a bucket, and the references to each merged function
// are rewritten in one walk over the module per round, resolving each
// symbol reference in the scope it is written in.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Transforms/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPDEDUPLICATEFUNCTIONSPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;

namespace {

constexpr OperationEquivalence::Flags kIgnoreLocations =
    OperationEquivalence::IgnoreLocations;

/// The function's attributes but its name, in the dictionary's order.
SmallVector<NamedAttribute> attributesButName(FunctionOpInterface function) {
  SmallVector<NamedAttribute> attributes;
  for (NamedAttribute attribute : function->getAttrs())
    if (attribute.getName() != SymbolTable::getSymbolAttrName())
      attributes.push_back(attribute);
  return attributes;
}

/// A hash equal for identical functions (operands are left out: the
/// comparison in `identical` looks at them).
llvm::hash_code structuralHash(FunctionOpInterface function) {
  llvm::hash_code hash = llvm::hash_value(function->getName().getStringRef());
  for (NamedAttribute attribute : attributesButName(function))
    hash = llvm::hash_combine(hash, attribute.getName(), attribute.getValue());
  function.getFunctionBody().walk([&](Operation *op) {
    hash = llvm::hash_combine(
        hash, OperationEquivalence::computeHash(
                  op, OperationEquivalence::ignoreHashValue,
                  OperationEquivalence::ignoreHashValue, kIgnoreLocations));
  });
  return hash;
}

bool identical(FunctionOpInterface a, FunctionOpInterface b) {
  return a->getName() == b->getName() &&
         attributesButName(a) == attributesButName(b) &&
         OperationEquivalence::isRegionEquivalentTo(
             &a.getFunctionBody(), &b.getFunctionBody(), kIgnoreLocations);
}

struct GPDeduplicateFunctionsPass
    : public gp::impl::GPDeduplicateFunctionsPassBase<
          GPDeduplicateFunctionsPass> {
  using GPDeduplicateFunctionsPassBase::GPDeduplicateFunctionsPassBase;

  void runOnOperation() override {
    while (unsigned merged = mergeRound())
      numMerged += merged;
  }

  /// The functions of `table` that only the module refers to.
  static SmallVector<FunctionOpInterface> candidates(Operation *table,
                                                     bool nested) {
    SmallVector<FunctionOpInterface> functions;
    for (Operation &op : table->getRegion(0).front()) {
      auto function = dyn_cast<FunctionOpInterface>(op);
      if (function && !function.isExternal() &&
          (nested || SymbolTable::getSymbolVisibility(function) ==
                         SymbolTable::Visibility::Private))
        functions.push_back(function);
    }
    return functions;
  }

  /// Finds identical functions in every symbol table of the module,
  /// rewrites the references to each onto the first of its class and
  /// erases the others; returns how many went.
  unsigned mergeRound() {
    ModuleOp module = getOperation();
    SmallVector<Operation *> tables = {module};
    module.walk([&](Operation *op) {
      if (op != module && op->hasTrait<OpTrait::SymbolTable>())
        tables.push_back(op);
    });
    llvm::DenseMap<Operation *, StringAttr> keptName;
    for (Operation *table : tables) {
      llvm::DenseMap<llvm::hash_code, SmallVector<FunctionOpInterface>> kept;
      for (FunctionOpInterface function :
           candidates(table, /*nested=*/table != module)) {
        SmallVector<FunctionOpInterface> &bucket =
            kept[structuralHash(function)];
        auto same = llvm::find_if(bucket, [&](FunctionOpInterface other) {
          return identical(other, function);
        });
        if (same == bucket.end())
          bucket.push_back(function);
        else
          keptName[function] = SymbolTable::getSymbolName(*same);
      }
    }
    if (keptName.empty())
      return 0;

    // References are resolved where they are written: a flat @f inside a
    // gpu.module names its function, @mod::@f outside names the same one.
    SymbolTableCollection symbols;
    llvm::DenseMap<Operation *, std::unique_ptr<AttrTypeReplacer>> replacers;
    auto replacerFor = [&](Operation *scope) -> AttrTypeReplacer & {
      std::unique_ptr<AttrTypeReplacer> &replacer = replacers[scope];
      if (replacer)
        return *replacer;
      replacer = std::make_unique<AttrTypeReplacer>();
      replacer->addReplacement(
          [&, scope](SymbolRefAttr reference) -> std::optional<Attribute> {
            Operation *target = symbols.lookupSymbolIn(scope, reference);
            auto kept = keptName.find(target);
            if (!target || kept == keptName.end())
              return std::nullopt;
            auto leaf = FlatSymbolRefAttr::get(kept->second);
            if (reference.getNestedReferences().empty())
              return leaf;
            SmallVector<FlatSymbolRefAttr> nested(
                reference.getNestedReferences());
            nested.back() = leaf;
            return SymbolRefAttr::get(reference.getRootReference(), nested);
          });
      return *replacer;
    };
    module.walk([&](Operation *op) {
      if (op == module || keptName.contains(op))
        return;
      Operation *scope = SymbolTable::getNearestSymbolTable(op->getParentOp());
      replacerFor(scope).replaceElementsIn(op, /*replaceAttrs=*/true,
                                           /*replaceLocs=*/false,
                                           /*replaceTypes=*/false);
    });
    for (auto [function, name] : keptName)
      function->erase();
    return keptName.size();
  }
};

} // namespace
