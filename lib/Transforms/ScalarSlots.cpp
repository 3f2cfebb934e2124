//===- ScalarSlots.cpp - host scalars reach captured kernels by slot ------===//
//
// A captured graph keeps the parameter values of its kernels, so a host
// scalar passed by value would be frozen at its capture-time value. Each
// non-index scalar input of a capturable partition is written into a
// gp.scalar.slot before the partition instead, and the kernels that took
// it load it from the slot when they run. Index inputs are not touched:
// they are the partition's shape key and re-key its graphs. A constant
// needs no slot: it is cloned into the partition, where anything may use
// it (an extern's argument, host arithmetic) and a graph may keep it.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GraphPart/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPSCALARSLOTSPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

namespace {

/// Uses of a scalar input that a constant defines outside take a clone of
/// it at the start of the partition: its value is the same on every call.
void inlineConstants(PartitionOp partition) {
  Block &body = partition.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&body);
  for (auto [index, input] : llvm::enumerate(partition.getInputs())) {
    Operation *definition = input.getDefiningOp();
    BlockArgument argument = body.getArgument(index);
    if (!definition || argument.use_empty() ||
        !isa<IntegerType, FloatType, IndexType>(input.getType()) ||
        !matchPattern(input, m_Constant()))
      continue;
    argument.replaceAllUsesWith(builder.clone(*definition)->getResult(0));
  }
}

/// A scalar that a replay must read afresh: integers and floats, not index.
bool needsSlot(Type type) { return isa<IntegerType, FloatType>(type); }

/// The kernels that take `argument` in their `ins`, or failure when
/// something else in the partition uses it.
FailureOr<SmallVector<std::pair<KernelOp, unsigned>>>
kernelUses(BlockArgument argument) {
  SmallVector<std::pair<KernelOp, unsigned>> uses;
  for (OpOperand &use : argument.getUses()) {
    auto kernel = dyn_cast<KernelOp>(use.getOwner());
    if (!kernel || use.getOperandNumber() >= kernel.getInputs().size() ||
        !kernel.getDevice())
      return failure();
    uses.push_back({kernel, use.getOperandNumber()});
  }
  return uses;
}

/// Makes `kernel` take `slot` in place of its scalar operand `index` and
/// load the scalar where each use is, when it runs: inside a linalg body
/// that is per element, on the threads that use it, so the value never
/// has to cross from one launch of the kernel's lowering to another.
void takeSlot(KernelOp kernel, unsigned index, Value slot) {
  kernel->setOperand(index, slot);
  Block &body = kernel.getBody().front();
  BlockArgument scalar = body.getArgument(index);
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : scalar.getUses())
    uses.push_back(&use);
  scalar.setType(slot.getType());
  OpBuilder builder(kernel.getContext());
  for (OpOperand *use : uses) {
    builder.setInsertionPoint(use->getOwner());
    Value loaded =
        memref::LoadOp::create(builder, kernel.getLoc(), scalar, ValueRange{});
    use->set(loaded);
  }
}

struct GPScalarSlotsPass
    : public gp::impl::GPScalarSlotsPassBase<GPScalarSlotsPass> {
  void runOnOperation() override {
    SmallVector<PartitionOp> partitions;
    getOperation()->walk([&](PartitionOp partition) {
      if (partition.isCapturable())
        partitions.push_back(partition);
    });
    for (PartitionOp partition : partitions)
      rewrite(partition);
  }

  void rewrite(PartitionOp partition) {
    Block &body = partition.getBody().front();
    inlineConstants(partition);
    // First make sure every scalar can go through a slot; otherwise the
    // partition runs eagerly (an eager run sees the current value).
    for (auto [index, input] : llvm::enumerate(partition.getInputs())) {
      if (!needsSlot(input.getType()))
        continue;
      if (failed(kernelUses(body.getArgument(index)))) {
        partition.setKind(PartitionKind::eager);
        partition.setReasonsAttr(
            OpBuilder(partition).getStrArrayAttr({"host scalar outside a "
                                                  "kernel"}));
        ++numMadeEager;
        return;
      }
    }
    OpBuilder builder(partition);
    for (auto [index, input] : llvm::enumerate(partition.getInputs())) {
      if (!needsSlot(input.getType()))
        continue;
      BlockArgument argument = body.getArgument(index);
      SmallVector<std::pair<KernelOp, unsigned>> uses = *kernelUses(argument);
      if (uses.empty())
        continue; // Unused: nothing is baked in.
      // One slot per device the scalar's kernels run on (one, in practice).
      DeviceAttr device = uses.front().first.getDevice();
      bool oneDevice = llvm::all_of(
          uses, [&](auto &use) { return use.first.getDevice() == device; });
      if (!oneDevice) {
        partition.emitError("scalar input ")
            << index << " feeds kernels on several devices";
        return signalPassFailure();
      }
      auto slotType = MemRefType::get({}, input.getType(),
                                      MemRefLayoutAttrInterface(), device);
      Value slot =
          ScalarSlotOp::create(builder, partition.getLoc(), slotType, input);
      partition->setOperand(index, slot);
      argument.setType(slotType);
      for (auto [kernel, operand] : uses)
        takeSlot(kernel, operand, argument);
      ++numSlots;
    }
  }
};

} // namespace
