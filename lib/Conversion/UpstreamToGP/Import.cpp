//===- Import.cpp - bufferized upstream programs into gp ------------------===//
//
// gp-import (Passes.td says what becomes what). Each function is imported
// in three steps: its types are checked (tensors, unranked memrefs and
// foreign memory spaces cannot come in), its memrefs get devices in place
// (only the memory space changes, so upstream ops stay valid), and its ops
// are then rewritten one at a time in program order, so that every op
// sees its operands already imported. The whole module is imported on a
// copy that replaces it only when every function succeeded.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Conversion/Passes.h"
#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FileSystem.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPIMPORTPASS
#include "GraphPart/Conversion/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

/// Non-splat constants up to this many elements are written element by
/// element; larger ones must come in as arguments.
static constexpr int64_t kMaxStoredConstantElements = 1024;

namespace {

struct SymIntBounds {
  std::optional<int64_t> min, max;
};

struct ImportCounts {
  unsigned kernels = 0, fallbacks = 0, views = 0;
};

/// Large constants that become arguments (the `weights-dir` option): their
/// data, written as `<dir>/<global>.npy` once the import succeeded, and each
/// function's weight arguments in order, listed in `<dir>/<function>.weights`.
struct Weights {
  std::string dir;
  llvm::MapVector<StringRef, DenseElementsAttr> data;
  llvm::MapVector<StringRef, SmallVector<StringRef>> arguments;

  LogicalResult write(ModuleOp module) const;
};

/// `cuda`, `cuda:N`, `cpu` or `meta`.
FailureOr<DeviceAttr> parseDevice(MLIRContext *context, StringRef text) {
  if (text == "cpu")
    return DeviceAttr::get(context, DeviceKind::cpu, 0);
  if (text == "meta")
    return DeviceAttr::get(context, DeviceKind::meta, 0);
  if (text == "cuda")
    return DeviceAttr::get(context, DeviceKind::cuda, 0);
  int64_t index;
  if (text.consume_front("cuda:") && !text.getAsInteger(10, index) &&
      index >= 0)
    return DeviceAttr::get(context, DeviceKind::cuda, index);
  return failure();
}

bool isIdentifier(StringRef name) {
  return !name.empty() && (llvm::isAlpha(name[0]) || name[0] == '_') &&
         llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// `ns::op` or `ns::op.overload`.
bool isQualifiedOpName(StringRef name) {
  auto [qualified, overload] = name.split('.');
  auto [ns, op] = qualified.split("::");
  return isIdentifier(ns) && isIdentifier(op) &&
         (!name.contains('.') || isIdentifier(overload));
}

bool isScalar(Type type) { return type.isIntOrIndexOrFloat(); }

/// Host scalar computations that stay where they are.
bool isHostScalarOp(Operation *op) {
  if (op->getNumRegions() != 0 || !isPure(op))
    return false;
  if (!llvm::all_of(op->getOperandTypes(), isScalar) ||
      !llvm::all_of(op->getResultTypes(), isScalar))
    return false;
  return isa<arith::ArithDialect, math::MathDialect, index::IndexDialect>(
             op->getDialect()) ||
         isa<affine::AffineApplyOp, affine::AffineMinOp, affine::AffineMaxOp>(
             op);
}

class FunctionImporter {
public:
  FunctionImporter(func::FuncOp function, DeviceAttr defaultDevice,
                   SymIntBounds bounds, ImportCounts &counts, Weights &weights)
      : function(function), defaultDevice(defaultDevice), bounds(bounds),
        counts(counts), weights(weights), builder(function.getContext()) {}

  LogicalResult run();

private:
  LogicalResult checkTypes();
  Type withDevice(Type type) const;
  void assignDevices();
  void collect(Block &block, SmallVectorImpl<Operation *> &ops);
  LogicalResult importOp(Operation *op);

  // Kernels.
  LogicalResult wrapInKernel(ArrayRef<Operation *> ops, StringRef baseName);
  LogicalResult importStore(memref::StoreOp store);
  LogicalResult importLoads();
  LogicalResult importGlobal(memref::GetGlobalOp get);
  LogicalResult importWeight(memref::GetGlobalOp get,
                             DenseElementsAttr data);

  // Buffers and views.
  LogicalResult importAlloc(Operation *op, ValueRange dynamicSizes);
  LogicalResult importDealloc(Operation *op, Value buffer);
  LogicalResult importSubView(memref::SubViewOp subview);
  LogicalResult importReshape(Operation *op, Value source, Value result,
                              SmallVector<Value> dynamicSizes);
  LogicalResult importView(memref::ViewOp view);
  LogicalResult importReinterpretCast(memref::ReinterpretCastOp cast);
  LogicalResult importCast(memref::CastOp cast);
  LogicalResult importDim(memref::DimOp dim);
  LogicalResult importCall(func::CallOp call);
  LogicalResult updateFunctionType();

  /// The size of dimension `dim` of `buffer` as an index value.
  Value dimSize(Location loc, Value buffer, int64_t dim);
  /// A symint for a dynamic dimension, made once per buffer and dimension.
  Value dimSymInt(Location loc, Value buffer, int64_t dim);
  std::string uniqueName(StringRef base);
  void replace(Operation *op, Value value) {
    op->getResult(0).replaceAllUsesWith(value);
    op->erase();
  }

  func::FuncOp function;
  DeviceAttr defaultDevice;
  SymIntBounds bounds;
  ImportCounts &counts;
  Weights &weights;
  /// This function's weight arguments, by global.
  llvm::StringMap<Value> weightArguments;
  OpBuilder builder;
  unsigned kernelCounter = 0;
  llvm::StringSet<> usedNames;
  DenseMap<std::pair<Value, int64_t>, Value> dimSymInts;
  /// Top-level loads, imported last (stores may take them into kernels).
  llvm::SetVector<memref::LoadOp> loads;
};

} // namespace

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// Why `type` cannot be imported, if it cannot.
static std::optional<std::string> rejectType(Type type) {
  if (isa<TensorType>(type))
    return std::string("works on tensors; bufferize the program first "
                       "(one-shot-bufferize=\"bufferize-function-boundaries "
                       "function-boundary-type-conversion=identity-layout-"
                       "map\")");
  if (isa<UnrankedMemRefType>(type))
    return std::string("uses an unranked memref; gp buffers have a rank "
                       "(cast to a ranked memref first)");
  if (auto memref = dyn_cast<MemRefType>(type)) {
    Attribute space = memref.getMemorySpace();
    auto integerSpace = dyn_cast_or_null<IntegerAttr>(space);
    if (space && !isa<DeviceAttr>(space) &&
        !(integerSpace && integerSpace.getInt() == 0)) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "uses memory space " << space
         << ", which is not a device; give memrefs #gp.device<...> spaces "
            "or none (the default device)";
      return text;
    }
  }
  return std::nullopt;
}

LogicalResult FunctionImporter::checkTypes() {
  for (auto [index, type] :
       llvm::enumerate(function.getFunctionType().getInputs()))
    if (std::optional<std::string> why = rejectType(type))
      return function.emitError() << "gp-import: argument " << index << " "
                                  << *why;
  for (auto [index, type] :
       llvm::enumerate(function.getFunctionType().getResults()))
    if (std::optional<std::string> why = rejectType(type))
      return function.emitError() << "gp-import: result " << index << " "
                                  << *why;
  WalkResult walk = function.walk([&](Operation *op) {
    auto reject = [&](Type type) {
      if (std::optional<std::string> why = rejectType(type)) {
        op->emitError() << "gp-import: '" << op->getName() << "' " << *why;
        return true;
      }
      return false;
    };
    for (Type type : op->getOperandTypes())
      if (reject(type))
        return WalkResult::interrupt();
    for (Type type : op->getResultTypes())
      if (reject(type))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (reject(type))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

Type FunctionImporter::withDevice(Type type) const {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || isa_and_nonnull<DeviceAttr>(memref.getMemorySpace()))
    return type;
  return MemRefType::get(memref.getShape(), memref.getElementType(),
                         memref.getLayout(), defaultDevice);
}

void FunctionImporter::assignDevices() {
  function.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          argument.setType(withDevice(argument.getType()));
    for (Value result : op->getResults())
      result.setType(withDevice(result.getType()));
  });
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// Ops that become one kernel as a whole: nothing inside them is imported
/// on its own.
static bool isKernelRoot(Operation *op) {
  return isa<linalg::LinalgOp, scf::ParallelOp, scf::ForallOp>(op);
}

void FunctionImporter::collect(Block &block,
                               SmallVectorImpl<Operation *> &ops) {
  for (Operation &op : block) {
    ops.push_back(&op);
    if (isKernelRoot(&op) || isa<GPDialect>(op.getDialect()))
      continue;
    if (isa<scf::ForOp, scf::IfOp, scf::WhileOp, scf::ExecuteRegionOp,
            scf::IndexSwitchOp>(op))
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          collect(nested, ops);
  }
}

LogicalResult FunctionImporter::run() {
  if (failed(checkTypes()))
    return failure();
  function.walk([&](SymIntDimOp symint) {
    usedNames.insert(symint.getSymName());
    dimSymInts[{symint.getSource(), symint.getDim()}] = symint.getResult();
  });
  function.walk([&](SymIntOp symint) { usedNames.insert(symint.getSymName()); });
  function.walk([&](KernelOp kernel) {
    usedNames.insert(kernel.getKernelName());
  });
  assignDevices();

  SmallVector<Operation *> ops;
  for (Block &block : function.getBody())
    collect(block, ops);
  for (Operation *op : ops)
    if (failed(importOp(op)))
      return failure();
  if (failed(importLoads()))
    return failure();
  // Host scalars that only the ops taken into kernels used.
  SmallVector<Operation *> hostOps;
  function.walk([&](Operation *op) {
    if (isHostScalarOp(op) && !op->getParentOfType<KernelOp>() &&
        !isa<linalg::LinalgOp>(op->getParentOp()))
      hostOps.push_back(op);
  });
  for (Operation *op : llvm::reverse(hostOps))
    if (op->use_empty())
      op->erase();
  return updateFunctionType();
}

LogicalResult FunctionImporter::importOp(Operation *op) {
  builder.setInsertionPoint(op);
  if (isa<GPDialect>(op->getDialect()) || isHostScalarOp(op))
    return success();
  if (isa<func::ReturnOp, scf::YieldOp, scf::ConditionOp, scf::ForOp,
          scf::IfOp, scf::WhileOp, scf::ExecuteRegionOp, scf::IndexSwitchOp,
          cf::BranchOp, cf::CondBranchOp, cf::SwitchOp, cf::AssertOp>(op))
    return success();
  if (isKernelRoot(op))
    return wrapInKernel(op, op->getName().stripDialect());
  // Frees are re-planned; one whose updated ownership is used cannot go.
  if (op->getName().getStringRef() == "bufferization.dealloc" &&
      op->use_empty()) {
    op->erase();
    return success();
  }

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](memref::AllocOp alloc) {
        if (!alloc.getSymbolOperands().empty())
          return LogicalResult(
              alloc.emitError("gp-import: an allocation with a layout map's "
                              "symbols cannot be imported; allocate a "
                              "contiguous buffer"));
        return importAlloc(alloc, alloc.getDynamicSizes());
      })
      .Case([&](memref::AllocaOp alloca) {
        if (!alloca.getSymbolOperands().empty())
          return LogicalResult(
              alloca.emitError("gp-import: an allocation with a layout "
                               "map's symbols cannot be imported; allocate "
                               "a contiguous buffer"));
        return importAlloc(alloca, alloca.getDynamicSizes());
      })
      .Case([&](gpu::AllocOp alloc) {
        if (alloc.getAsyncToken() || !alloc.getAsyncDependencies().empty() ||
            alloc.getHostShared())
          return LogicalResult(alloc.emitError(
              "gp-import: only synchronous, device-only gpu.alloc can be "
              "imported"));
        return importAlloc(alloc, alloc.getDynamicSizes());
      })
      .Case([&](memref::DeallocOp dealloc) {
        return importDealloc(dealloc, dealloc.getMemref());
      })
      .Case([&](gpu::DeallocOp dealloc) {
        if (dealloc.getAsyncToken() || !dealloc.getAsyncDependencies().empty())
          return LogicalResult(dealloc.emitError(
              "gp-import: only synchronous gpu.dealloc can be imported"));
        return importDealloc(dealloc, dealloc.getMemref());
      })
      .Case([&](memref::SubViewOp subview) { return importSubView(subview); })
      .Case([&](memref::ExpandShapeOp expand) {
        SmallVector<Value> sizes;
        for (auto [dim, size] : llvm::enumerate(expand.getMixedOutputShape()))
          if (expand.getResultType().isDynamicDim(dim))
            sizes.push_back(cast<Value>(size));
        return importReshape(expand, expand.getSrc(), expand.getResult(),
                             sizes);
      })
      .Case([&](memref::CollapseShapeOp collapse) {
        SmallVector<Value> sizes;
        MemRefType resultType = collapse.getResultType();
        for (auto [dim, group] :
             llvm::enumerate(collapse.getReassociationIndices())) {
          if (!resultType.isDynamicDim(dim))
            continue;
          Value product;
          for (int64_t sourceDim : group) {
            Value size = dimSize(collapse.getLoc(), collapse.getSrc(), sourceDim);
            product = product ? arith::MulIOp::create(builder, collapse.getLoc(),
                                                      product, size)
                              : size;
          }
          sizes.push_back(product);
        }
        return importReshape(collapse, collapse.getSrc(), collapse.getResult(),
                             sizes);
      })
      .Case([&](memref::ReshapeOp reshape) {
        if (!reshape.getType().hasStaticShape())
          return LogicalResult(reshape.emitError(
              "gp-import: memref.reshape to a dynamic shape cannot be "
              "imported; use memref.expand_shape/collapse_shape"));
        return importReshape(reshape, reshape.getSource(), reshape.getResult(),
                             {});
      })
      .Case([&](memref::TransposeOp transpose) {
        AffineMap map = transpose.getPermutation();
        SmallVector<int64_t> permutation;
        for (unsigned dim = 0; dim < map.getNumResults(); ++dim)
          permutation.push_back(map.getDimPosition(dim));
        auto view = BufferTransposeOp::create(builder, transpose.getLoc(),
                                              transpose.getIn(), permutation);
        ++counts.views;
        replace(transpose, view);
        return success();
      })
      .Case([&](memref::ViewOp view) { return importView(view); })
      .Case([&](memref::ReinterpretCastOp cast) {
        return importReinterpretCast(cast);
      })
      .Case([&](memref::CastOp cast) { return importCast(cast); })
      .Case([&](memref::CopyOp copy) {
        CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                       copy.getTarget());
        copy.erase();
        return success();
      })
      .Case([&](gpu::MemcpyOp copy) {
        if (copy.getAsyncToken() || !copy.getAsyncDependencies().empty())
          return LogicalResult(copy.emitError(
              "gp-import: only synchronous gpu.memcpy can be imported"));
        CopyOp::create(builder, copy.getLoc(), copy.getSrc(), copy.getDst());
        copy.erase();
        return success();
      })
      .Case([&](memref::LoadOp load) {
        // After the stores, which may take it into their kernels.
        loads.insert(load);
        return success();
      })
      .Case([&](memref::StoreOp store) { return importStore(store); })
      .Case([&](memref::DimOp dim) { return importDim(dim); })
      .Case([&](memref::GetGlobalOp get) { return importGlobal(get); })
      .Case([&](func::CallOp call) { return importCall(call); })
      .Case([&](linalg::SoftmaxOp softmax) {
        return LogicalResult(softmax.emitError(
            "gp-import: linalg.softmax cannot be imported as it is; "
            "decompose it into linalg.generic ops before bufferizing "
            "(transform.structured.decompose_interface)"));
      })
      .Default([&](Operation *other) {
        InFlightDiagnostic diag = other->emitError()
                                  << "gp-import: cannot import '"
                                  << other->getName() << "'";
        if (other->getDialect() &&
            other->getDialect()->getNamespace() == "bufferization")
          diag << ": the program is not fully bufferized (run "
                  "one-shot-bufferize, and leave deallocation to "
                  "GraphPart)";
        else if (isa_and_nonnull<affine::AffineDialect>(other->getDialect()))
          diag << ": lower affine loops to scf first (lower-affine)";
        else if (other->getNumRegions() != 0)
          diag << ": only scf.for/if/while/execute_region/index_switch, "
                  "scf.parallel/forall and linalg ops may hold regions";
        else
          diag << ": gp takes linalg ops, memref buffers and views, func "
                  "calls of external declarations, and scalar "
                  "arith/math/index ops (docs/Import.md)";
        return LogicalResult(diag);
      });
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

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
    replace(load, ItemOp::create(builder, loc, load.getType(), source));
  }
  return success();
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

/// The dtype `numpy.save` writes for `type`, if `.npy` files hold it.
static std::optional<StringRef> npyDescr(Type type) {
  if (type.isF64())
    return StringRef("<f8");
  if (type.isF32())
    return StringRef("<f4");
  if (type.isF16())
    return StringRef("<f2");
  if (type.isBF16())
    return StringRef("<u2"); // gp-run reads bf16 bits as uint16.
  if (type.isInteger(64))
    return StringRef("<i8");
  if (type.isInteger(32))
    return StringRef("<i4");
  if (type.isInteger(16))
    return StringRef("<i2");
  if (type.isInteger(8))
    return StringRef("|i1");
  return std::nullopt;
}

LogicalResult FunctionImporter::importWeight(memref::GetGlobalOp get,
                                             DenseElementsAttr data) {
  MemRefType type = get.getType();
  if (!npyDescr(type.getElementType()) || !type.hasStaticShape())
    return get.emitError()
           << "gp-import: weight '" << get.getName() << "' of type " << type
           << " cannot be written as .npy (f64, f32, f16, bf16 and i8 to "
              "i64 can)";
  StringRef name = get.getName();
  Value argument = weightArguments.lookup(name);
  if (!argument) {
    MLIRContext *context = function.getContext();
    unsigned index = function.getNumArguments();
    auto attrs = DictionaryAttr::get(
        context, {NamedAttribute(StringAttr::get(context, "gp.weight"),
                                 StringAttr::get(context, name))});
    if (failed(function.insertArgument(index, type, attrs, get.getLoc())))
      return get.emitError("gp-import: could not add a weight argument");
    argument = function.getArgument(index);
    weightArguments[name] = argument;
    weights.data.insert({name, data});
    weights.arguments[function.getSymName()].push_back(name);
  }
  replace(get, argument);
  return success();
}

LogicalResult Weights::write(ModuleOp module) const {
  if (dir.empty())
    return success();
  if (std::error_code error = llvm::sys::fs::create_directories(dir))
    return module.emitError() << "gp-import: cannot create weights-dir '"
                              << dir << "': " << error.message();
  auto writeFile = [&](const Twine &path,
                       llvm::function_ref<void(raw_ostream &)> body) {
    std::error_code error;
    llvm::raw_fd_ostream os(path.str(), error);
    if (error)
      return LogicalResult(module.emitError()
                           << "gp-import: cannot write '" << path.str()
                           << "': " << error.message());
    body(os);
    return success();
  };
  for (const auto &entry : data) {
    StringRef name = entry.first;
    DenseElementsAttr values = entry.second;
    auto type = cast<ShapedType>(values.getType());
    std::string header = "{'descr': '" +
                         npyDescr(type.getElementType())->str() +
                         "', 'fortran_order': False, 'shape': (";
    for (int64_t size : type.getShape())
      header += std::to_string(size) + ", ";
    header += "), }";
    // Magic, version 1.0, a little-endian length; data 64-byte aligned.
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    if (failed(writeFile(dir + "/" + name + ".npy", [&](raw_ostream &os) {
          os << "\x93NUMPY" << '\x01' << '\x00';
          uint16_t length = header.size();
          os << static_cast<char>(length & 0xff)
             << static_cast<char>(length >> 8) << header;
          ArrayRef<char> raw = values.getRawData();
          os.write(raw.data(), raw.size());
        })))
      return failure();
  }
  for (const auto &entry : arguments)
    if (failed(writeFile(dir + "/" + entry.first + ".weights",
                         [&](raw_ostream &os) {
                           for (StringRef name : entry.second)
                             os << name << ".npy\n";
                         })))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Buffers and views
//===----------------------------------------------------------------------===//

LogicalResult FunctionImporter::importAlloc(Operation *op,
                                            ValueRange dynamicSizes) {
  auto type = cast<MemRefType>(op->getResult(0).getType());
  if (!type.getLayout().isIdentity())
    return op->emitError() << "gp-import: allocation of " << type
                           << " has a layout; gp allocates contiguous "
                              "buffers (allocate one and take a view)";
  replace(op, BufferAllocOp::create(builder, op->getLoc(), type, dynamicSizes,
                                    IntegerAttr()));
  return success();
}

LogicalResult FunctionImporter::importDealloc(Operation *op, Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  if (auto argument = dyn_cast<BlockArgument>(buffer);
      argument && argument.getOwner()->isEntryBlock() &&
      argument.getOwner()->getParentOp() == function)
    op->emitRemark() << "gp-import: dropped the free of argument "
                     << argument.getArgNumber()
                     << ": the caller owns the buffers it passes";
  op->erase();
  return success();
}

LogicalResult FunctionImporter::importSubView(memref::SubViewOp subview) {
  auto sourceType = cast<MemRefType>(subview.getSource().getType());
  MemRefType resultType;
  if (subview.getType().getRank() == sourceType.getRank())
    resultType = memref::SubViewOp::inferResultType(
        sourceType, subview.getStaticOffsets(), subview.getStaticSizes(),
        subview.getStaticStrides());
  else
    resultType = memref::SubViewOp::inferRankReducedResultType(
        subview.getType().getShape(), sourceType, subview.getStaticOffsets(),
        subview.getStaticSizes(), subview.getStaticStrides());
  Value slice = BufferSliceOp::create(
      builder, subview.getLoc(), resultType, subview.getSource(),
      subview.getOffsets(), subview.getSizes(), subview.getStrides(),
      subview.getStaticOffsets(), subview.getStaticSizes(),
      subview.getStaticStrides());
  ++counts.views;
  replace(subview, slice);
  return success();
}

LogicalResult FunctionImporter::importReshape(Operation *op, Value source,
                                              Value result,
                                              SmallVector<Value> dynamicSizes) {
  auto sourceType = cast<MemRefType>(source.getType());
  auto resultType = cast<MemRefType>(result.getType());
  if (!sourceType.getLayout().isIdentity() ||
      !resultType.getLayout().isIdentity())
    return op->emitError()
           << "gp-import: '" << op->getName() << "' of " << sourceType
           << " to " << resultType
           << ": gp reshapes contiguous buffers only; copy the view to a "
              "contiguous buffer first (or bufferize with "
              "function-boundary-type-conversion=identity-layout-map)";
  Value view = BufferReshapeOp::create(builder, op->getLoc(), resultType,
                                       source, dynamicSizes);
  ++counts.views;
  replace(op, view);
  return success();
}

/// The type of a contiguous buffer of `shape` and `elementType` on
/// `device`.
static MemRefType contiguous(ArrayRef<int64_t> shape, Type elementType,
                             DeviceAttr device) {
  return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                         device);
}

LogicalResult FunctionImporter::importView(memref::ViewOp view) {
  auto sourceType = cast<MemRefType>(view.getSource().getType()); // 1-D i8.
  MemRefType resultType = view.getType();
  std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
  unsigned bits = resultType.getElementTypeBitWidth();
  if (!shift || *shift != 0 || !resultType.hasStaticShape() ||
      !sourceType.hasStaticShape() || bits % 8 != 0)
    return view.emitError(
        "gp-import: memref.view is imported at byte offset 0 with static "
        "shapes of whole-byte elements only; allocate the buffer with its "
        "own type instead");
  int64_t bytes = resultType.getNumElements() * (bits / 8);
  if (bytes > sourceType.getNumElements())
    return view.emitError() << "gp-import: the view needs " << bytes
                            << " bytes of a buffer of "
                            << sourceType.getNumElements();
  Location loc = view.getLoc();
  DeviceAttr device = getDevice(sourceType);
  Value bytesView = view.getSource();
  if (bytes != sourceType.getNumElements())
    bytesView = BufferSliceOp::create(
        builder, loc, contiguous({bytes}, sourceType.getElementType(), device),
        bytesView, ValueRange{}, ValueRange{}, ValueRange{},
        ArrayRef<int64_t>{0}, ArrayRef<int64_t>{bytes}, ArrayRef<int64_t>{1});
  Value typed = BufferBitcastOp::create(
      builder, loc,
      contiguous({resultType.getNumElements()}, resultType.getElementType(),
                 device),
      bytesView);
  if (resultType.getRank() != 1)
    typed = BufferReshapeOp::create(builder, loc, resultType, typed,
                                    ValueRange{});
  counts.views += 2;
  replace(view, typed);
  return success();
}

LogicalResult
FunctionImporter::importReinterpretCast(memref::ReinterpretCastOp cast) {
  auto sourceType = llvm::cast<MemRefType>(cast.getSource().getType());
  MemRefType resultType = cast.getType();
  std::optional<int64_t> offset =
      cast.getStaticOffsets().size() == 1 &&
              !ShapedType::isDynamic(cast.getStaticOffsets()[0])
          ? std::optional<int64_t>(cast.getStaticOffsets()[0])
          : std::nullopt;
  bool identityStrides =
      resultType.getLayout().isIdentity() ||
      (resultType.hasStaticShape() &&
       resultType.getStridesAndOffset().first ==
           ArrayRef<int64_t>(computeSuffixProduct(resultType.getShape())) &&
       resultType.getStridesAndOffset().second == 0);
  if (!sourceType.getLayout().isIdentity() || !offset || *offset != 0 ||
      !identityStrides || !resultType.hasStaticShape())
    return cast.emitError(
        "gp-import: memref.reinterpret_cast is imported when it views a "
        "contiguous buffer from its start, contiguously, with a static "
        "shape; other strides or offsets need memref.subview, "
        "memref.transpose or a copy");
  Location loc = cast.getLoc();
  DeviceAttr device = getDevice(sourceType);
  MemRefType target = contiguous(resultType.getShape(),
                                 resultType.getElementType(), device);
  int64_t count = resultType.getNumElements();
  Value source = cast.getSource();
  if (!sourceType.hasStaticShape() || sourceType.getNumElements() != count) {
    // A prefix: flatten, take the first `count` elements, reshape.
    if (sourceType.hasStaticShape() && sourceType.getNumElements() < count)
      return cast.emitError() << "gp-import: the cast views " << count
                              << " elements of a buffer of "
                              << sourceType.getNumElements();
    Value total;
    for (int64_t dim = 0; dim < sourceType.getRank(); ++dim) {
      Value size = dimSize(loc, source, dim);
      total = total ? arith::MulIOp::create(builder, loc, total, size) : size;
    }
    SmallVector<Value> flatSizes;
    if (!sourceType.hasStaticShape())
      flatSizes.push_back(total);
    int64_t flatSize = sourceType.hasStaticShape() ? sourceType.getNumElements()
                                                   : ShapedType::kDynamic;
    source = BufferReshapeOp::create(
        builder, loc,
        contiguous({flatSize}, sourceType.getElementType(), device), source,
        flatSizes);
    source = BufferSliceOp::create(
        builder, loc, contiguous({count}, sourceType.getElementType(), device),
        source, ValueRange{}, ValueRange{}, ValueRange{}, ArrayRef<int64_t>{0},
        ArrayRef<int64_t>{count}, ArrayRef<int64_t>{1});
    counts.views += 2;
  }
  // Users take the identity form of a layout that spells out contiguous
  // strides.
  Value view = source;
  if (source.getType() != target) {
    view = BufferReshapeOp::create(builder, loc, target, source, ValueRange{});
    ++counts.views;
  }
  replace(cast, view);
  return success();
}

LogicalResult FunctionImporter::importCast(memref::CastOp cast) {
  Value source = cast.getSource();
  for (OpOperand &use : cast->getUses()) {
    Operation *user = use.getOwner();
    if (source.getType() != cast.getType() &&
        (isa<BranchOpInterface>(user) ||
         user->hasTrait<OpTrait::IsTerminator>()) &&
        !isa<func::ReturnOp>(user))
      return cast.emitError()
             << "gp-import: this memref.cast feeds control flow (" << user->getName()
             << "); gp keeps buffer types precise, so cast before the "
                "branch instead";
  }
  cast.getResult().replaceAllUsesWith(source);
  cast.erase();
  return success();
}

Value FunctionImporter::dimSize(Location loc, Value buffer, int64_t dim) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.isDynamicDim(dim))
    return arith::ConstantIndexOp::create(builder, loc, type.getDimSize(dim));
  unsigned dynamicIndex = type.getDynamicDimIndex(dim);
  if (auto alloc = buffer.getDefiningOp<BufferAllocOp>())
    return alloc.getDynamicSizes()[dynamicIndex];
  if (auto reshape = buffer.getDefiningOp<BufferReshapeOp>())
    return reshape.getDynamicSizes()[dynamicIndex];
  if (auto slice = buffer.getDefiningOp<BufferSliceOp>();
      slice && slice.getType().getRank() == slice.getSource().getType().getRank())
    if (auto size = dyn_cast<Value>(slice.getMixedSizes()[dim]))
      return size;
  return dimSymInt(loc, buffer, dim);
}

Value FunctionImporter::dimSymInt(Location loc, Value buffer, int64_t dim) {
  if (Value known = dimSymInts.lookup({buffer, dim}))
    return known;
  OpBuilder::InsertionGuard guard(builder);
  std::string name;
  if (auto argument = dyn_cast<BlockArgument>(buffer)) {
    builder.setInsertionPointToStart(argument.getOwner());
    if (argument.getOwner()->isEntryBlock() &&
        argument.getOwner()->getParentOp() == function)
      name = ("arg" + Twine(argument.getArgNumber()) + "_dim" + Twine(dim))
                 .str();
  } else {
    builder.setInsertionPointAfterValue(buffer);
  }
  if (name.empty() || usedNames.contains(name)) {
    unsigned counter = 0;
    do {
      name = ("dim" + Twine(counter++)).str();
    } while (usedNames.contains(name));
  }
  usedNames.insert(name);
  auto bound = [&](std::optional<int64_t> value) {
    return value ? builder.getI64IntegerAttr(*value) : IntegerAttr();
  };
  Value symint = SymIntDimOp::create(builder, loc, builder.getIndexType(),
                                     buffer, builder.getI64IntegerAttr(dim),
                                     builder.getStringAttr(name), IntegerAttr(),
                                     bound(bounds.min), bound(bounds.max));
  dimSymInts[{buffer, dim}] = symint;
  return symint;
}

LogicalResult FunctionImporter::importDim(memref::DimOp dim) {
  std::optional<int64_t> index = dim.getConstantIndex();
  auto type = cast<MemRefType>(dim.getSource().getType());
  if (!index || *index < 0 || *index >= type.getRank())
    return dim.emitError("gp-import: memref.dim needs a constant, in-range "
                         "dimension");
  replace(dim, dimSize(dim.getLoc(), dim.getSource(), *index));
  return success();
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

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

LogicalResult FunctionImporter::importCall(func::CallOp call) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  if (!callee)
    return call.emitError() << "gp-import: no func.func named "
                            << call.getCalleeAttr();
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
                         "operands, and captured unless the runtime's "
                         "extern registry says it cannot be";

  for (Type type : call.getResultTypes())
    if (!isa<MemRefType>(type) && !isScalar(type))
      return call.emitError() << "gp-import: a call result of type " << type
                              << " cannot be imported";
  auto fallback = FallbackOp::create(
      builder, call.getLoc(), call.getResultTypes(),
      builder.getStringAttr(name), call.getOperands(),
      builder.getDenseI64ArrayAttr(mutates), aliases, tags,
      DenseI64ArrayAttr());
  ++counts.fallbacks;
  call.replaceAllUsesWith(fallback.getResults());
  call.erase();
  return success();
}

LogicalResult FunctionImporter::updateFunctionType() {
  std::optional<SmallVector<Type>> results;
  WalkResult walk = function.walk([&](func::ReturnOp ret) {
    if (ret->getParentOp() != function)
      return WalkResult::advance();
    SmallVector<Type> types(ret.getOperandTypes());
    if (results && *results != types) {
      ret.emitError("gp-import: the function's returns give buffers of "
                    "different types; return one type from every return");
      return WalkResult::interrupt();
    }
    results = types;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  function.setType(FunctionType::get(
      function.getContext(), function.getBody().front().getArgumentTypes(),
      results ? *results : function.getFunctionType().getResults()));
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct GPImportPass
    : public mlir::gp::impl::GPImportPassBase<GPImportPass> {
  using GPImportPassBase::GPImportPassBase;

  void runOnOperation() override;
};
} // namespace

void GPImportPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();
  FailureOr<DeviceAttr> optionDevice = parseDevice(context, defaultDevice);
  if (failed(optionDevice)) {
    module.emitError() << "gp-import: default-device must be cuda:N, cpu or "
                          "meta, got '"
                       << defaultDevice << "'";
    return signalPassFailure();
  }

  // Work on a copy: a failed import leaves the module as it was.
  OwningOpRef<ModuleOp> copy = module.clone();
  ImportCounts importCounts;
  Weights weights;
  weights.dir = weightsDir;
  for (auto function : copy->getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    DeviceAttr device = *optionDevice;
    if (Attribute attr = function->getAttr("gp.default_device")) {
      device = dyn_cast<DeviceAttr>(attr);
      if (!device) {
        function.emitError() << "gp-import: gp.default_device must be a "
                                "#gp.device attribute, got "
                             << attr;
        return signalPassFailure();
      }
    }
    SymIntBounds bounds;
    if (symintMin >= 0)
      bounds.min = symintMin;
    if (symintMax >= 0)
      bounds.max = symintMax;
    for (auto [attrName, bound] :
         {std::pair<StringRef, std::optional<int64_t> *>{"gp.symint_min",
                                                         &bounds.min},
          {"gp.symint_max", &bounds.max}}) {
      Attribute attr = function->getAttr(attrName);
      if (!attr)
        continue;
      auto integer = dyn_cast<IntegerAttr>(attr);
      if (!integer || integer.getInt() < 0) {
        function.emitError() << "gp-import: " << attrName
                             << " must be a non-negative integer, got "
                             << attr;
        return signalPassFailure();
      }
      *bound = integer.getInt();
    }
    if (bounds.min && bounds.max && *bounds.min > *bounds.max) {
      function.emitError() << "gp-import: symint bounds [" << *bounds.min
                           << ", " << *bounds.max << "] are empty";
      return signalPassFailure();
    }
    FunctionImporter importer(function, device, bounds, importCounts,
                              weights);
    if (failed(importer.run()))
      return signalPassFailure();
  }

  // Declarations and globals that nothing uses any more.
  for (Operation &op : llvm::make_early_inc_range(copy->getOps())) {
    auto function = dyn_cast<func::FuncOp>(op);
    bool unusedDeclaration = function && function.isExternal() &&
                             function.isPrivate();
    bool global = isa<memref::GlobalOp>(op);
    if ((unusedDeclaration || global) &&
        SymbolTable::symbolKnownUseEmpty(&op, *copy))
      op.erase();
  }

  if (failed(weights.write(*copy)))
    return signalPassFailure();
  Block *body = module.getBody();
  body->clear();
  body->getOperations().splice(body->end(), copy->getBody()->getOperations());
  numKernels += importCounts.kernels;
  numFallbacks += importCounts.fallbacks;
  numViews += importCounts.views;
}
