//===- GPSymIntRngOps.cpp - gp symbolic-size and RNG operations -----------===//
//
// Verifiers, effects and result names of the symbolic sizes (gp.symint,
// gp.symint.dim, gp.symint.unbacked) and the RNG ops (gp.rng.state,
// gp.rng.fill, gp.rng.slot).
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GPOpsUtils.h"

#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::detail;

//===----------------------------------------------------------------------===//
// SymInt ops
//===----------------------------------------------------------------------===//

template <typename OpTy>
static LogicalResult verifySymInt(OpTy op) {
  if (!isIdentifier(op.getSymName()))
    return op.emitOpError() << "symint name '" << op.getSymName()
                            << "' is not an identifier";
  std::optional<int64_t> min = op.getMin(), max = op.getMax(),
                         hint = op.getHint();
  if (min && max && *min > *max)
    return op.emitOpError() << "min " << *min << " exceeds max " << *max;
  if (hint && ((min && *hint < *min) || (max && *hint > *max)))
    return op.emitOpError() << "hint " << *hint << " lies outside [min, max]";
  return success();
}

#define GP_SYMINT_NAMES(OP)                                                    \
  void OP::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {                  \
    setNameFn(getResult(), getSymName());                                      \
  }
GP_SYMINT_NAMES(SymIntOp)
GP_SYMINT_NAMES(SymIntDimOp)
GP_SYMINT_NAMES(SymIntUnbackedOp)
#undef GP_SYMINT_NAMES

LogicalResult SymIntOp::verify() { return verifySymInt(*this); }

LogicalResult SymIntDimOp::verify() {
  MemRefType source = getSource().getType();
  int64_t dim = getDim();
  if (dim < 0 || dim >= source.getRank())
    return emitOpError() << "dimension " << dim << " is out of range for "
                         << source;
  if (!source.isDynamicDim(dim))
    return emitOpError() << "dimension " << dim << " of " << source
                         << " is static (" << source.getDimSize(dim)
                         << "); only dynamic dimensions are symbolic";
  return verifySymInt(*this);
}

LogicalResult SymIntUnbackedOp::verify() {
  if (failed(verifySingleElement(*this, getSource().getType(), getType(),
                                 /*integersOnly=*/true)))
    return failure();
  return verifySymInt(*this);
}

//===----------------------------------------------------------------------===//
// RNG ops
//===----------------------------------------------------------------------===//

void RngStateOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "rng");
}

LogicalResult RngStateOp::verify() {
  unsigned uses = std::distance(getState().use_begin(), getState().use_end());
  if (uses > 1)
    return emitOpError() << "state has " << uses
                         << " uses; each RNG state feeds exactly one op";
  return success();
}

LogicalResult
RngStateOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!symbolTable.lookupNearestSymbolFrom<RngGeneratorOp>(*this,
                                                           getGeneratorAttr()))
    return emitOpError() << "'@" << getGenerator()
                         << "' does not name a gp.rng.generator";
  return success();
}

LogicalResult RngFillOp::verify() {
  Type element = getTarget().getType().getElementType();
  if (!isa<FloatType>(element))
    return emitOpError() << "fills floating-point buffers, not " << element;
  return success();
}

LogicalResult RngSlotOp::verify() {
  MemRefType type = getSlot().getType();
  DeviceAttr device = getDevice(type);
  if (!type.hasStaticShape() || type.getShape() != ArrayRef<int64_t>{2} ||
      !type.getElementType().isInteger(64) || !type.getLayout().isIdentity())
    return emitOpError() << "expects memref<2xi64> on a device, got " << type;
  if (device && device.isMeta())
    return emitOpError() << "a slot holds data; it cannot be on the meta "
                            "device";
  return success();
}

void RngFillOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // Drawing advances the state, so two draws from one state are ordered.
  effects.emplace_back(MemoryEffects::Read::get(), &getStateMutable());
  effects.emplace_back(MemoryEffects::Write::get(), &getStateMutable());
  effects.emplace_back(MemoryEffects::Write::get(), &getTargetMutable());
}
