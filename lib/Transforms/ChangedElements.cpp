//===- ChangedElements.cpp - store only the elements that change ---------===//
//
// storeOnlyChangedElements and the gp-store-changed-elements pass
// (ChangedElements.h, Passes.td): run by both kernel lowerings right after
// linalg becomes loops (convert-gp-to-gpu for cuda kernels, and
// gp-lower-kernel-code for host ones).
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Transforms/ChangedElements.h"
#include "GraphPart/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPSTORECHANGEDELEMENTSPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;

void mlir::gp::storeOnlyChangedElements(Operation *root) {
  SmallVector<memref::StoreOp> stores;
  root->walk([&](memref::StoreOp store) { stores.push_back(store); });
  for (memref::StoreOp store : stores) {
    auto select = store.getValue().getDefiningOp<arith::SelectOp>();
    if (!select || !select.getCondition().getType().isInteger(1))
      continue;
    memref::LoadOp old;
    bool storeWhenTrue = true;
    for (bool oldOnFalse : {true, false}) {
      Value kept = oldOnFalse ? select.getFalseValue() : select.getTrueValue();
      auto load = kept.getDefiningOp<memref::LoadOp>();
      if (load && load.getMemRef() == store.getMemRef() &&
          llvm::equal(load.getIndices(), store.getIndices()) &&
          load->getBlock() == store->getBlock()) {
        old = load;
        storeWhenTrue = oldOnFalse;
        break;
      }
    }
    if (!old || !old->isBeforeInBlock(store))
      continue;
    // Nothing between the load and the store may write memory.
    bool writes = false;
    for (Operation *op = old->getNextNode(); op != store.getOperation();
         op = op->getNextNode())
      writes |= !isMemoryEffectFree(op) && !isa<memref::LoadOp>(op);
    if (writes)
      continue;
    OpBuilder builder(store);
    Location loc = store.getLoc();
    Value condition = select.getCondition();
    if (!storeWhenTrue)
      condition = arith::XOrIOp::create(
          builder, loc, condition,
          arith::ConstantIntOp::create(builder, loc, 1, 1));
    Value value =
        storeWhenTrue ? select.getTrueValue() : select.getFalseValue();
    auto guard = scf::IfOp::create(builder, loc, condition,
                                   /*withElseRegion=*/false);
    builder.setInsertionPointToStart(&guard.getThenRegion().front());
    memref::StoreOp::create(builder, loc, value, store.getMemRef(),
                            store.getIndices(), store.getNontemporal());
    store.erase();
    if (select->use_empty())
      select.erase();
    if (old->use_empty())
      old.erase();
  }
}

namespace {
struct GPStoreChangedElementsPass
    : public gp::impl::GPStoreChangedElementsPassBase<
          GPStoreChangedElementsPass> {
  using GPStoreChangedElementsPassBase::GPStoreChangedElementsPassBase;
  void runOnOperation() override {
    gp::storeOnlyChangedElements(getOperation());
  }
};
} // namespace
