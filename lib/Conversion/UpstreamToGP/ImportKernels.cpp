//===- ImportKernels.cpp - gp-import: ops that become gp.kernel -----------===//
//
// Linalg ops, scf.parallel and scf.forall become kernels as a whole; a
// top-level store becomes a kernel with the scalar ops and device loads
// that compute its value; top-level loads become gp.item; constant globals
// become a buffer that a kernel fills (large ones become weights,
// ImportWeights.cpp).
//
//===----------------------------------------------------------------------===//

#include "ImportInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::importer;

/// Non-splat constants up to this many elements are written element by
/// element; larger ones must come in as arguments.
static constexpr int64_t kMaxStoredConstantElements = 1024;

std::string FunctionImporter::uniqueName(StringRef base) {
  std::string name;
  do {
    name = (base + "_" + Twine(kernelCounter++)).str();
  } while (usedNames.contains(name));
  usedNames.insert(name);
  return name;
}

/// Whether `value` is defined by one of `ops` or inside one of them.
static bool isDefinedWithin(Value value,
                            const llvm::SmallPtrSetImpl<Operation *> &ops) {
  Operation *owner = value.getDefiningOp();
  if (!owner)
    owner = value.getParentBlock()->getParentOp();
  for (; owner; owner = owner->getParentOp())
    if (ops.contains(owner))
      return true;
  return false;
}

LogicalResult FunctionImporter::wrapInKernel(ArrayRef<Operation *> ops,
                                             StringRef baseName) {
  Operation *last = ops.back();
  Location loc = last->getLoc();
  llvm::SmallPtrSet<Operation *, 8> inside(ops.begin(), ops.end());

  // What the ops use from outside, in order of first use.
  llvm::SetVector<Value> captured;
  for (Operation *op : ops)
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (!isDefinedWithin(operand, inside))
          captured.insert(operand);
    });

  // The buffers written, through any view made inside.
  auto rootOf = [&](Value value) {
    while (auto view = value.getDefiningOp<ViewLikeOpInterface>()) {
      if (!isDefinedWithin(value, inside))
        break;
      value = view.getViewSource();
    }
    return value;
  };
  llvm::DenseSet<Value> written;
  bool writesUnknown = false;
  for (Operation *op : ops)
    op->walk([&](Operation *nested) {
      if (auto effects = dyn_cast<MemoryEffectOpInterface>(nested)) {
        SmallVector<MemoryEffects::EffectInstance> list;
        effects.getEffects(list);
        for (MemoryEffects::EffectInstance &effect : list) {
          if (!isa<MemoryEffects::Write>(effect.getEffect()))
            continue;
          if (Value value = effect.getValue())
            written.insert(rootOf(value));
          else
            writesUnknown = true;
        }
      } else if (!nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
        for (Value operand : nested->getOperands())
          if (isa<MemRefType>(operand.getType()))
            written.insert(rootOf(operand));
      }
    });

  SmallVector<Value> inputs, outputs, constants;
  DeviceAttr device;
  for (Value value : captured) {
    if (!isa<MemRefType>(value.getType())) {
      if (matchPattern(value, m_Constant()))
        constants.push_back(value);
      else if (isScalar(value.getType()))
        inputs.push_back(value);
      else
        return last->emitError()
               << "gp-import: '" << last->getName() << "' uses a value of type "
               << value.getType() << " from outside; kernels take buffers "
               << "and scalars";
      continue;
    }
    DeviceAttr valueDevice = getDevice(value.getType());
    if (device && valueDevice != device)
      return last->emitError()
             << "gp-import: '" << last->getName() << "' uses buffers on "
             << device.str() << " and " << valueDevice.str()
             << "; a kernel runs on one device (copy the buffers to one "
                "device first, memref.copy)";
    device = valueDevice;
    if (writesUnknown || written.contains(value))
      outputs.push_back(value);
    else
      inputs.push_back(value);
  }

  builder.setInsertionPoint(last);
  auto kernel = KernelOp::create(builder, loc, uniqueName(baseName), inputs,
                                 outputs);
  SmallVector<Type> types;
  SmallVector<Location> locs;
  for (Value value : kernel->getOperands()) {
    types.push_back(value.getType());
    locs.push_back(value.getLoc());
  }
  Block *body = builder.createBlock(&kernel.getBody(), {}, types, locs);
  IRMapping mapping;
  mapping.map(kernel->getOperands(), body->getArguments());
  for (Value constant : constants)
    mapping.map(constant, builder.clone(*constant.getDefiningOp())->getResult(
                              cast<OpResult>(constant).getResultNumber()));
  for (Operation *op : ops)
    builder.clone(*op, mapping);
  YieldOp::create(builder, loc);

  // A forall runs as a parallel loop (its threads are independent).
  SmallVector<scf::ForallOp> foralls;
  body->walk([&](scf::ForallOp forall) { foralls.push_back(forall); });
  IRRewriter rewriter(builder);
  for (scf::ForallOp forall : foralls) {
    rewriter.setInsertionPoint(forall);
    if (failed(scf::forallToParallelLoop(rewriter, forall)))
      return forall.emitError("gp-import: this scf.forall cannot become a "
                              "parallel loop");
  }

  // What the kernel took along stays where something else still uses it.
  for (Operation *op : llvm::reverse(ops)) {
    if (!op->use_empty())
      continue;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      loads.remove(load);
    op->erase();
  }
  ++counts.kernels;
  return success();
}

/// Whether nothing between `from` and `to` (same block) can write memory.
static bool onlyReadsBetween(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (!isPure(op) && !isa<memref::LoadOp>(op))
      return false;
  return true;
}

LogicalResult FunctionImporter::importStore(memref::StoreOp store) {
  DeviceAttr device = getDevice(store.getMemRefType());
  // The pure scalar ops that compute the stored value and indices in this
  // block, with loads of the same device that nothing overwrites before
  // the store: they run in the kernel, so the value never visits the host.
  llvm::SetVector<Operation *> chain;
  bool readsDevice = false;
  SmallVector<Value> worklist(store->getOperands().begin(),
                              store->getOperands().end());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    Operation *op = value.getDefiningOp();
    if (!op || op->getBlock() != store->getBlock() || chain.contains(op) ||
        matchPattern(value, m_Constant()))
      continue;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (getDevice(load.getMemRefType()) != device ||
          !onlyReadsBetween(load, store))
        continue;
      readsDevice = true;
    } else if (!isHostScalarOp(op)) {
      continue;
    }
    chain.insert(op);
    for (Value operand : op->getOperands())
      if (!isa<MemRefType>(operand.getType()))
        worklist.push_back(operand);
  }
  SmallVector<Operation *> ops;
  if (readsDevice) {
    ops.assign(chain.begin(), chain.end());
    llvm::sort(ops, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
  }
  ops.push_back(store);
  return wrapInKernel(ops, "store");
}

LogicalResult FunctionImporter::importLoads() {
  for (memref::LoadOp load : loads) {
    if (load.use_empty()) {
      load.erase();
      continue;
    }
    builder.setInsertionPoint(load);
    Location loc = load.getLoc();
    Value source = load.getMemRef();
    MemRefType type = load.getMemRefType();
    if (type.getNumElements() != 1 || !type.hasStaticShape()) {
      // The one element it reads, as a one-element window (constant
      // indices become static offsets).
      SmallVector<int64_t> staticOffsets, ones(type.getRank(), 1);
      SmallVector<Value> dynamicOffsets;
      dispatchIndexOpFoldResults(getAsOpFoldResult(load.getIndices()),
                                 dynamicOffsets, staticOffsets);
      MemRefType windowType =
          memref::SubViewOp::inferResultType(type, staticOffsets, ones, ones);
      source = BufferSliceOp::create(builder, loc, windowType, source,
                                     dynamicOffsets, ValueRange{},
                                     ValueRange{}, staticOffsets, ones, ones);
      ++counts.views;
    }
    // A value read from the device and used as a size (a tensor.empty or a
    // view whose size is data-dependent: nonzero's count, an .item() of
    // torch.export's unbacked u0) is an unbacked symint.
    if (isa<IntegerType>(load.getType()))
      for (Operation *user : llvm::make_early_inc_range(load->getUsers())) {
        auto cast = dyn_cast<arith::IndexCastOp>(user);
        if (!cast || !cast.getType().isIndex())
          continue;
        replace(cast, unbackedSymInt(cast.getLoc(), source));
      }
    // Host arithmetic on the value that nothing uses (a conversion of it
    // left over) does not make the program wait for it twice.
    SmallVector<Operation *> unused(load->getUsers());
    while (!unused.empty()) {
      Operation *user = unused.pop_back_val();
      // Pure ops with unused results only (func.return is pure too).
      if (user->getNumResults() == 0 || !isPure(user) || !user->use_empty())
        continue;
      for (Value operand : user->getOperands())
        if (Operation *producer = operand.getDefiningOp();
            producer && producer != load)
          unused.push_back(producer);
      user->erase();
    }
    if (load.use_empty()) {
      load.erase();
      continue;
    }
    replace(load, ItemOp::create(builder, loc, load.getType(), source));
  }
  return success();
}

Value FunctionImporter::unbackedSymInt(Location loc, Value element) {
  std::string name;
  unsigned counter = 0;
  do {
    name = ("u" + Twine(counter++)).str();
  } while (usedNames.contains(name));
  usedNames.insert(name);
  auto bound = [&](std::optional<int64_t> value) {
    return value ? builder.getI64IntegerAttr(*value) : IntegerAttr();
  };
  return SymIntUnbackedOp::create(builder, loc, builder.getIndexType(),
                                  element, builder.getStringAttr(name),
                                  IntegerAttr(), bound(bounds.min),
                                  bound(bounds.max));
}

LogicalResult FunctionImporter::importGlobal(memref::GetGlobalOp get) {
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  MemRefType type = get.getType();
  Attribute value =
      global ? global.getInitialValue().value_or(Attribute()) : Attribute();
  // torch-mlir's weights are dense_resource blobs: the same bytes.
  DenseElementsAttr initial = dyn_cast_or_null<DenseElementsAttr>(value);
  if (auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return get.emitError() << "gp-import: the data of constant '"
                             << get.getName() << "' was elided";
    if (!type.getElementType().isInteger(1))
      initial = DenseElementsAttr::getFromRawBuffer(resource.getType(),
                                                    blob->getData());
  }
  if (!global || !global.getConstant() || !initial)
    return get.emitError()
           << "gp-import: only constant globals with a dense initial value "
              "can be imported; pass '"
           << get.getName() << "' to the function as an argument";
  if (!type.getLayout().isIdentity())
    return get.emitError("gp-import: a global with a layout cannot be "
                         "imported");
  if (!initial.isSplat() &&
      initial.getNumElements() > kMaxStoredConstantElements) {
    if (weights.dir.empty())
      return get.emitError()
             << "gp-import: constant '" << get.getName() << "' has "
             << initial.getNumElements()
             << " elements; constants of more than "
             << kMaxStoredConstantElements
             << " distinct elements become weight arguments with the "
                "weights-dir=DIR option (gp-compile --weights DIR), or must "
                "be passed as arguments";
    return importWeight(get, initial);
  }
  Location loc = get.getLoc();
  Value buffer = BufferAllocOp::create(builder, loc, type, ValueRange{},
                                       IntegerAttr());
  auto kernel = KernelOp::create(builder, loc, uniqueName("constant"),
                                 ValueRange{}, ValueRange{buffer});
  Block *body = builder.createBlock(&kernel.getBody(), {}, {type}, {loc});
  Value target = body->getArgument(0);
  if (initial.isSplat()) {
    Value value = arith::ConstantOp::create(
        builder, loc, cast<TypedAttr>(initial.getSplatValue<Attribute>()));
    linalg::FillOp::create(builder, loc, value, target);
  } else {
    SmallVector<int64_t> strides = computeSuffixProduct(type.getShape());
    for (auto [linear, element] :
         llvm::enumerate(initial.getValues<Attribute>())) {
      Value value =
          arith::ConstantOp::create(builder, loc, cast<TypedAttr>(element));
      SmallVector<Value> indices;
      for (int64_t index : delinearize(static_cast<int64_t>(linear), strides))
        indices.push_back(arith::ConstantIndexOp::create(builder, loc, index));
      memref::StoreOp::create(builder, loc, value, target, indices);
    }
  }
  YieldOp::create(builder, loc);
  ++counts.kernels;
  builder.setInsertionPointAfter(kernel);
  replace(get, buffer);
  return success();
}
