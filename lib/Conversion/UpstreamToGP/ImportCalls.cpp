//===- ImportCalls.cpp - gp-import: calls of declarations -----------------===//
//
// A func.call of an external declaration becomes a gp.fallback named by
// the declaration's gp.op_name (or its own name), with the schema its
// gp.mutates, gp.aliases and gp.tags attributes give. A declaration marked
// gp.rng = "uniform" or "normal" is a random tensor instead: a buffer that
// gp.rng.fill fills from a generator of the call's own.
//
//===----------------------------------------------------------------------===//

#include "ImportInternal.h"

#include "GraphPart/Dialect/GP/IR/OpNames.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::importer;

static bool isIdentifier(StringRef name) {
  return !name.empty() && (llvm::isAlpha(name[0]) || name[0] == '_') &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// The integers of `attr`: a dense i64 array or an array of integers.
static FailureOr<SmallVector<int64_t>> integerList(Attribute attr) {
  SmallVector<int64_t> values;
  if (auto dense = dyn_cast<DenseI64ArrayAttr>(attr)) {
    values.assign(dense.asArrayRef().begin(), dense.asArrayRef().end());
    return values;
  }
  auto array = dyn_cast<ArrayAttr>(attr);
  if (!array)
    return failure();
  for (Attribute element : array) {
    auto integer = dyn_cast<IntegerAttr>(element);
    if (!integer)
      return failure();
    values.push_back(integer.getInt());
  }
  return values;
}

LogicalResult FunctionImporter::importRngCall(func::CallOp call,
                                              func::FuncOp callee) {
  auto kind = dyn_cast<StringAttr>(callee->getAttr("gp.rng"));
  std::optional<RngDistribution> distribution =
      kind ? symbolizeRngDistribution(kind.getValue()) : std::nullopt;
  if (!distribution)
    return callee.emitError() << "gp-import: gp.rng must be \"uniform\" or "
                                 "\"normal\", got "
                              << callee->getAttr("gp.rng");
  auto type = call.getNumResults() == 1
                  ? dyn_cast<MemRefType>(call.getResult(0).getType())
                  : MemRefType();
  if (!type || !isa<FloatType>(type.getElementType()) ||
      static_cast<int64_t>(call.getNumOperands()) !=
          static_cast<int64_t>(type.getNumDynamicDims()) ||
      !llvm::all_of(call.getOperandTypes(), llvm::IsaPred<IndexType>))
    return call.emitError()
           << "gp-import: a gp.rng call returns one floating-point buffer "
              "and takes an index for each of its dynamic sizes";
  // Each random tensor draws from a generator of its own, so that it draws
  // fresh numbers on every call and independently of the others.
  auto module = function->getParentOfType<ModuleOp>();
  std::string name;
  for (unsigned index = 0;; ++index) {
    name = "rng" + std::to_string(index);
    if (!SymbolTable::lookupSymbolIn(module, name))
      break;
  }
  OpBuilder moduleBuilder = OpBuilder::atBlockBegin(module.getBody());
  RngGeneratorOp::create(moduleBuilder, call.getLoc(),
                         moduleBuilder.getStringAttr(name), IntegerAttr());
  Location loc = call.getLoc();
  Value buffer = BufferAllocOp::create(builder, loc, type, call.getOperands(),
                                       IntegerAttr());
  Value state =
      RngStateOp::create(builder, loc, RngStateType::get(builder.getContext()),
                         name, RngRole::forward);
  RngFillOp::create(builder, loc, *distribution, state, buffer);
  replace(call, buffer);
  return success();
}

LogicalResult FunctionImporter::importCall(func::CallOp call) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  if (!callee)
    return call.emitError()
           << "gp-import: no func.func named " << call.getCalleeAttr();
  if (callee->hasAttr("gp.rng"))
    return importRngCall(call, callee);
  if (!callee.isExternal())
    return call.emitError()
           << "gp-import: '" << callee.getSymName()
           << "' has a body; calls of defined functions are not imported "
              "(inline them first: --inline)";

  // The op name the runtime's extern registry knows.
  std::string name;
  if (Attribute attr = callee->getAttr("gp.op_name")) {
    auto text = dyn_cast<StringAttr>(attr);
    if (!text || !isQualifiedOpName(text.getValue()))
      return callee.emitError()
             << "gp-import: gp.op_name must be a string 'ns::op' or "
                "'ns::op.overload', got "
             << attr;
    name = text.getValue().str();
  } else if (isQualifiedOpName(callee.getSymName())) {
    name = callee.getSymName().str();
  } else if (isIdentifier(callee.getSymName())) {
    name = ("extern::" + callee.getSymName()).str();
  } else {
    return callee.emitError()
           << "gp-import: name the op of '" << callee.getSymName()
           << "' with a gp.op_name = \"ns::op\" attribute";
  }

  unsigned numArgs = call.getNumOperands();
  auto schemaError = [&](StringRef attrName) {
    return callee.emitError()
           << "gp-import: " << attrName << " of '" << callee.getSymName()
           << "' must list operand indices below " << numArgs
           << " (of buffer operands for gp.mutates), one per result for "
              "gp.aliases (-1: a fresh buffer)";
  };
  SmallVector<int64_t> mutates;
  if (Attribute attr = callee->getAttr("gp.mutates")) {
    FailureOr<SmallVector<int64_t>> list = integerList(attr);
    if (failed(list))
      return schemaError("gp.mutates");
    for (int64_t index : *list)
      if (index < 0 || index >= numArgs ||
          !isa<MemRefType>(call.getOperand(index).getType()))
        return schemaError("gp.mutates");
    mutates = *list;
  }
  DenseI64ArrayAttr aliases;
  if (Attribute attr = callee->getAttr("gp.aliases")) {
    FailureOr<SmallVector<int64_t>> list = integerList(attr);
    if (failed(list) || list->size() != call.getNumResults())
      return schemaError("gp.aliases");
    for (int64_t index : *list)
      if (index >= static_cast<int64_t>(numArgs) || index < -1)
        return schemaError("gp.aliases");
    aliases = builder.getDenseI64ArrayAttr(*list);
  }
  ArrayAttr tags = builder.getStrArrayAttr({});
  if (Attribute attr = callee->getAttr("gp.tags")) {
    auto array = dyn_cast<ArrayAttr>(attr);
    if (!array || !llvm::all_of(array, llvm::IsaPred<StringAttr>))
      return callee.emitError("gp-import: gp.tags must be an array of "
                              "strings, e.g. [\"cudagraph_unsafe\"]");
    tags = array;
  }
  if (!callee->hasAttr("gp.mutates") && !callee->hasAttr("gp.aliases") &&
      !callee->hasAttr("gp.tags"))
    call.emitRemark() << "gp-import: '" << callee.getSymName()
                      << "' has no schema (gp.mutates, gp.aliases, gp.tags):"
                      << " called as '" << name
                      << "', assumed to write and alias none of its "
                         "operands and to be capturable (an artifact whose "
                         "extern registration says otherwise fails to load; "
                         "tag it gp.tags = [\"cudagraph_unsafe\"] then)";

  for (Type type : call.getResultTypes())
    if (!isa<MemRefType>(type) && !isScalar(type))
      return call.emitError() << "gp-import: a call result of type " << type
                              << " cannot be imported";
  auto fallback =
      FallbackOp::create(builder, call.getLoc(), call.getResultTypes(),
                         builder.getStringAttr(name), call.getOperands(),
                         builder.getDenseI64ArrayAttr(mutates), aliases, tags,
                         DenseI64ArrayAttr());
  ++counts.fallbacks;
  call.replaceAllUsesWith(fallback.getResults());
  call.erase();
  return success();
}
