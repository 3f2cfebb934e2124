//===- DeduplicateFunctions.cpp - one function per identical body ---------===//
//
// The gp-deduplicate-functions pass (Passes.td says what is merged and
// why that is safe). Functions are first grouped by what is cheap to read
// (type, attributes, number of ops), hashed only where a group has two or
// more, and compared op for op within a hash bucket; the references to
// each merged function are rewritten in one walk over the module per
// round, resolving each symbol reference in the scope it is written in.
// After the runtime lowering most of the module is entry and partition
// code no other function equals, so that code is counted, not hashed, and
// its ops are looked at only for the symbol references they hold.
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
#include "llvm/ADT/MapVector.h"

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

/// What identical functions share and is cheap to read: the op kind, the
/// attributes but the name, and the number of ops in the body.
llvm::hash_code shapeHash(FunctionOpInterface function) {
  llvm::hash_code hash = llvm::hash_value(function->getName().getStringRef());
  for (NamedAttribute attribute : attributesButName(function))
    hash = llvm::hash_combine(hash, attribute.getName(), attribute.getValue());
  size_t ops = 0;
  function.getFunctionBody().walk([&](Operation *) { ++ops; });
  return llvm::hash_combine(hash, ops);
}

/// A hash equal for identical functions (operands are left out: the
/// comparison in `identical` looks at them).
llvm::hash_code structuralHash(FunctionOpInterface function) {
  llvm::hash_code hash = shapeHash(function);
  function.getFunctionBody().walk([&](Operation *op) {
    hash = llvm::hash_combine(
        hash, OperationEquivalence::computeHash(
                  op, OperationEquivalence::ignoreHashValue,
                  OperationEquivalence::ignoreHashValue, kIgnoreLocations));
  });
  return hash;
}

/// False when none of the op's attributes is or may hold a symbol
/// reference: the replacer need not look at it. Attributes of other kinds
/// that nest others (arrays, dictionaries, dialect attributes) may. The
/// inherent attributes are read one by one: asking a properties-holding op
/// for all its attributes builds a dictionary each time.
bool mayReferToSymbol(Operation *op) {
  auto mayHold = [](Attribute value) {
    return !isa<IntegerAttr, FloatAttr, StringAttr, TypeAttr, UnitAttr,
                DenseElementsAttr, DenseArrayAttr>(value);
  };
  std::optional<RegisteredOperationName> name = op->getRegisteredInfo();
  if (!name)
    return llvm::any_of(op->getAttrs(), [&](NamedAttribute attribute) {
      return mayHold(attribute.getValue());
    });
  for (NamedAttribute attribute : op->getDiscardableAttrs())
    if (mayHold(attribute.getValue()))
      return true;
  for (StringAttr attributeName : name->getAttributeNames())
    if (std::optional<Attribute> value = op->getInherentAttr(attributeName))
      if (*value && mayHold(*value))
        return true;
  return false;
}

bool identical(FunctionOpInterface a, FunctionOpInterface b) {
  return a->getName() == b->getName() &&
         attributesButName(a) == attributesButName(b) &&
         OperationEquivalence::isRegionEquivalentTo(
             &a.getFunctionBody(), &b.getFunctionBody(), kIgnoreLocations);
}

/// The merge state of one module: what the rounds share, read once.
class FunctionMerger {
public:
  explicit FunctionMerger(ModuleOp module) : module(module) {
    SmallVector<Operation *> tables = {module};
    module.walk([&](Operation *op) {
      if (op == module)
        return;
      if (op->hasTrait<OpTrait::SymbolTable>())
        tables.push_back(op);
      else if (mayReferToSymbol(op))
        referring.push_back(op);
    });
    // A function's shape (type, attributes, op count) does not change when
    // the references in it are rewritten, so the groups hold for every
    // round; functions alone in their group never merge.
    for (Operation *table : tables) {
      llvm::MapVector<llvm::hash_code, SmallVector<FunctionOpInterface>>
          byShape;
      for (FunctionOpInterface function :
           candidates(table, /*nested=*/table != module))
        byShape[shapeHash(function)].push_back(function);
      for (auto &entry : byShape)
        if (entry.second.size() > 1)
          groups.push_back(std::move(entry.second));
    }
  }

  /// Finds identical functions in every group, rewrites the references to
  /// each onto the first of its class and erases the others; returns how
  /// many went.
  unsigned mergeRound() {
    llvm::DenseMap<Operation *, StringAttr> keptName;
    for (SmallVector<FunctionOpInterface> &group : groups) {
      llvm::DenseMap<llvm::hash_code, SmallVector<FunctionOpInterface>> kept;
      for (FunctionOpInterface function : group) {
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
    // The ops inside a function about to go are dropped from the list; the
    // others get their references rewritten.
    llvm::erase_if(referring, [&](Operation *op) {
      for (Operation *parent = op; parent != module.getOperation();
           parent = parent->getParentOp())
        if (keptName.contains(parent))
          return true;
      Operation *scope = SymbolTable::getNearestSymbolTable(op->getParentOp());
      replacerFor(scope).replaceElementsIn(op, /*replaceAttrs=*/true,
                                           /*replaceLocs=*/false,
                                           /*replaceTypes=*/false);
      return false;
    });
    for (SmallVector<FunctionOpInterface> &group : groups)
      llvm::erase_if(group, [&](FunctionOpInterface function) {
        return keptName.contains(function);
      });
    llvm::erase_if(groups, [](const SmallVector<FunctionOpInterface> &group) {
      return group.size() < 2;
    });
    for (auto [function, name] : keptName)
      function->erase();
    return keptName.size();
  }

private:
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

  ModuleOp module;
  /// Ops whose attributes may name a function, in module order.
  std::vector<Operation *> referring;
  /// Candidates that could be identical (same shape, same table), in
  /// table order, so the function kept is the first of its class.
  SmallVector<SmallVector<FunctionOpInterface>> groups;
};

struct GPDeduplicateFunctionsPass
    : public gp::impl::GPDeduplicateFunctionsPassBase<
          GPDeduplicateFunctionsPass> {
  using GPDeduplicateFunctionsPassBase::GPDeduplicateFunctionsPassBase;

  void runOnOperation() override {
    FunctionMerger merger(getOperation());
    while (unsigned merged = merger.mergeRound())
      numMerged += merged;
  }
};

} // namespace
