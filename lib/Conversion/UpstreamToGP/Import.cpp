//===- Import.cpp - bufferized upstream programs into gp ------------------===//
//
// gp-import (Passes.td says what becomes what). Each function is imported
// in three steps: its types are checked (tensors, unranked memrefs and
// foreign memory spaces cannot come in), its memrefs get devices in place
// (only the memory space changes, so upstream ops stay valid), and its ops
// are then rewritten one at a time in program order, so that every op
// sees its operands already imported. The whole module is imported on a
// copy that replaces it only when every function succeeded (a module in
// gp's form already is only checked, in place).
//
//===----------------------------------------------------------------------===//

#include "ImportInternal.h"

#include "GraphPart/Conversion/Passes.h"
#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPIMPORTPASS
#include "GraphPart/Conversion/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;
using namespace mlir::gp::importer;

namespace {

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

} // namespace

namespace mlir::gp::importer {

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

} // namespace mlir::gp::importer

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
  if (failed(expandSoftmaxOps(function)) || failed(checkTypes()))
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

/// Ops the import leaves as they are.
static bool isKeptAsIs(Operation *op) {
  return isa<GPDialect>(op->getDialect()) || isHostScalarOp(op) ||
         isa<func::ReturnOp, scf::YieldOp, scf::ConditionOp, scf::ForOp,
             scf::IfOp, scf::WhileOp, scf::ExecuteRegionOp, scf::IndexSwitchOp,
             cf::BranchOp, cf::CondBranchOp, cf::SwitchOp, cf::AssertOp>(op);
}

bool FunctionImporter::isImported() {
  SmallVector<Operation *> ops;
  for (Block &block : function.getBody())
    collect(block, ops);
  if (!llvm::all_of(ops, isKeptAsIs))
    return false;
  auto hasDevice = [&](Value value) {
    return withDevice(value.getType()) == value.getType();
  };
  return !function
              .walk([&](Operation *op) {
                if (isa<linalg::SoftmaxOp>(op) ||
                    !llvm::all_of(op->getResults(), hasDevice))
                  return WalkResult::interrupt();
                for (Region &region : op->getRegions())
                  for (Block &block : region)
                    if (!llvm::all_of(block.getArguments(), hasDevice))
                      return WalkResult::interrupt();
                return WalkResult::advance();
              })
              .wasInterrupted();
}

LogicalResult FunctionImporter::importOp(Operation *op) {
  builder.setInsertionPoint(op);
  if (isKeptAsIs(op))
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
      .Case<memref::AllocOp, memref::AllocaOp>([&](auto alloc) {
        if (!alloc.getSymbolOperands().empty())
          return LogicalResult(
              alloc.emitError("gp-import: an allocation with a layout map's "
                              "symbols cannot be imported; allocate a "
                              "contiguous buffer"));
        return importAlloc(alloc, alloc.getDynamicSizes());
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
        // Dynamic output sizes are the program's word, not the source's:
        // the groups go along so the lowering can check them when the view
        // is made. (A collapse's sizes are products of the source's own.)
        ArrayAttr groups;
        if (!sizes.empty())
          groups = expand.getReassociation();
        return importReshape(expand, expand.getSrc(), expand.getResult(), sizes,
                             groups);
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

  // Each defined function's device and symbolic-size bounds.
  struct Setup {
    DeviceAttr device;
    SymIntBounds bounds;
  };
  SmallVector<Setup> setups;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    Setup &setup = setups.emplace_back(Setup{*optionDevice, {}});
    if (Attribute attr = function->getAttr("gp.default_device")) {
      setup.device = dyn_cast<DeviceAttr>(attr);
      if (!setup.device) {
        function.emitError() << "gp-import: gp.default_device must be a "
                                "#gp.device attribute, got "
                             << attr;
        return signalPassFailure();
      }
    }
    SymIntBounds &bounds = setup.bounds;
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
  }

  // A failed import leaves the module as it was, so it works on a copy,
  // unless the module is in gp's form already (the pipeline's input is
  // often gp.kernel ops and buffers, and copying 100k ops is half the
  // pass): the import there only checks, and what it removes before a
  // check can fail (host scalars, declarations that nothing uses) changes
  // nothing the program does.
  ImportCounts importCounts;
  Weights weights;
  weights.dir = weightsDir;
  auto definedFunctions = [](ModuleOp in) {
    return llvm::make_filter_range(
        in.getOps<func::FuncOp>(),
        [](func::FuncOp f) { return !f.isExternal(); });
  };
  bool inPlace = module.getOps<memref::GlobalOp>().empty() &&
                 llvm::all_of(llvm::zip_equal(definedFunctions(module), setups),
                              [&](auto pair) {
                                auto [function, setup] = pair;
                                return FunctionImporter(function, setup.device,
                                                        setup.bounds,
                                                        importCounts, weights)
                                    .isImported();
                              });
  OwningOpRef<ModuleOp> copy;
  ModuleOp target = module;
  if (!inPlace) {
    copy = module.clone();
    target = *copy;
  }
  for (auto [function, setup] :
       llvm::zip_equal(definedFunctions(target), setups)) {
    FunctionImporter importer(function, setup.device, setup.bounds,
                              importCounts, weights);
    if (failed(importer.run()) || failed(checkParameterWrites(function)))
      return signalPassFailure();
  }

  // Declarations and globals that nothing uses any more.
  for (Operation &op : llvm::make_early_inc_range(target.getOps())) {
    auto function = dyn_cast<func::FuncOp>(op);
    bool unusedDeclaration = function && function.isExternal() &&
                             function.isPrivate();
    bool global = isa<memref::GlobalOp>(op);
    if ((unusedDeclaration || global) &&
        SymbolTable::symbolKnownUseEmpty(&op, target))
      op.erase();
  }

  if (failed(weights.write(target)))
    return signalPassFailure();
  if (!inPlace) {
    Block *body = module.getBody();
    body->clear();
    body->getOperations().splice(body->end(), copy->getBody()->getOperations());
  }
  numKernels += importCounts.kernels;
  numFallbacks += importCounts.fallbacks;
  numViews += importCounts.views;
}
