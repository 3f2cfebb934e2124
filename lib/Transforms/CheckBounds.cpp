//===- CheckBounds.cpp - kernels that refuse out-of-bounds accesses ------===//
//
// The opt-in checked mode (gp-pipeline checked=true): every memref.load and
// memref.store in a kernel body is guarded by a bounds check. An access out
// of bounds is skipped (a load gives zero) and the kernel writes its number
// into a per-function flag slot, zeroed at each call; the entry point reads
// the flag after each partition that can set it and fails the call naming
// the kernel. Entry checks cover symints with a declared range; this covers
// the rest (an index computed in the kernel, a symint with no range).
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GraphPart/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPCHECKBOUNDSPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

namespace {

/// The accesses of a kernel body that can leave their buffer.
SmallVector<Operation *> guardedAccesses(KernelOp kernel) {
  SmallVector<Operation *> accesses;
  kernel.getBody().walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op);
        load && load.getIndices().size())
      accesses.push_back(op);
    if (auto store = dyn_cast<memref::StoreOp>(op);
        store && store.getIndices().size())
      accesses.push_back(op);
  });
  return accesses;
}

/// Whether every index of `indices` is within `buffer`'s dimensions.
Value inBounds(OpBuilder &builder, Location loc, Value buffer,
               ValueRange indices) {
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value all;
  for (auto [dim, index] : llvm::enumerate(indices)) {
    Value size = memref::DimOp::create(builder, loc, buffer, dim);
    Value low = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge,
                                      index, zero);
    Value high = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                       index, size);
    Value both = arith::AndIOp::create(builder, loc, low, high);
    all = all ? arith::AndIOp::create(builder, loc, all, both) : both;
  }
  return all;
}

/// Guards `access`: in bounds it runs; out of bounds it is skipped (a load
/// yields zero) and `code` goes to `flag`.
void guard(Operation *access, Value flag, int64_t code) {
  OpBuilder builder(access);
  Location loc = access->getLoc();
  auto report = [&](OpBuilder &b) {
    Value value = arith::ConstantIntOp::create(b, loc, code, 64);
    memref::StoreOp::create(b, loc, value, flag, ValueRange{});
  };
  if (auto store = dyn_cast<memref::StoreOp>(access)) {
    Value ok = inBounds(builder, loc, store.getMemRef(), store.getIndices());
    auto branch = scf::IfOp::create(builder, loc, ok, /*withElse=*/true);
    store->moveBefore(branch.thenBlock()->getTerminator());
    OpBuilder elseBuilder = branch.getElseBodyBuilder();
    report(elseBuilder);
    return;
  }
  auto load = cast<memref::LoadOp>(access);
  Value ok = inBounds(builder, loc, load.getMemRef(), load.getIndices());
  Type type = load.getType();
  auto branch = scf::IfOp::create(builder, loc, TypeRange{type}, ok,
                                  /*withElse=*/true);
  OpBuilder thenBuilder = branch.getThenBodyBuilder();
  auto inside = cast<memref::LoadOp>(thenBuilder.clone(*load));
  scf::YieldOp::create(thenBuilder, loc, inside.getResult());
  OpBuilder elseBuilder = branch.getElseBodyBuilder();
  report(elseBuilder);
  Value zero = arith::ConstantOp::create(elseBuilder, loc,
                                         elseBuilder.getZeroAttr(type));
  scf::YieldOp::create(elseBuilder, loc, zero);
  load.getResult().replaceAllUsesWith(branch.getResult(0));
  load.erase();
}

struct GPCheckBoundsPass
    : public gp::impl::GPCheckBoundsPassBase<GPCheckBoundsPass> {
  void runOnOperation() override {
    SmallVector<FunctionOpInterface> functions;
    getOperation()->walk([&](FunctionOpInterface function) {
      if (!function.isExternal())
        functions.push_back(function);
    });
    for (FunctionOpInterface function : functions)
      if (failed(check(function)))
        return signalPassFailure();
  }

  LogicalResult check(FunctionOpInterface function) {
    // Kernels to guard, by partition, numbered from 1 in program order.
    SmallVector<std::pair<PartitionOp, SmallVector<KernelOp>>> work;
    DeviceAttr device;
    for (Operation &op : function.getFunctionBody().front()) {
      auto partition = dyn_cast<PartitionOp>(op);
      if (!partition)
        continue;
      SmallVector<KernelOp> kernels;
      partition.getBody().walk([&](KernelOp kernel) {
        DeviceAttr kernelDevice = kernel.getDevice();
        if (!kernelDevice || kernelDevice.isMeta() ||
            guardedAccesses(kernel).empty())
          return;
        // One flag, on the device of the first checked kernel: kernels on
        // another device (a cpu kernel of a cuda program) are not checked.
        if (!device)
          device = kernelDevice;
        if (kernelDevice == device)
          kernels.push_back(kernel);
      });
      if (!kernels.empty())
        work.push_back({partition, kernels});
    }
    if (work.empty())
      return success();

    // The flag: a slot zeroed at every call, before the first partition.
    Block &top = function.getFunctionBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&top);
    Location loc = function.getLoc();
    Value zero = arith::ConstantIntOp::create(builder, loc, 0, 64);
    auto flagType = MemRefType::get({}, builder.getI64Type(),
                                    MemRefLayoutAttrInterface(), device);
    Value flag = ScalarSlotOp::create(builder, loc, flagType, zero);

    int64_t code = 0;
    std::string names;
    for (auto &[partition, kernels] : work) {
      // The partition takes the flag as an input it writes.
      unsigned index = partition.getInputs().size();
      partition.getInputsMutable().append(flag);
      Block &body = partition.getBody().front();
      BlockArgument flagInBody = body.addArgument(flagType, loc);
      SmallVector<int64_t> writes(partition.getWrites());
      writes.push_back(index);
      partition.setWrites(writes);
      partition->setAttr("gp.bounds_flag", builder.getI64IntegerAttr(index));
      for (KernelOp kernel : kernels) {
        ++code;
        names += kernel.getKernelName().str() + "\n";
        kernel.getOutputsMutable().append(flagInBody);
        BlockArgument flagInKernel =
            kernel.getBody().front().addArgument(flagType, loc);
        for (Operation *access : guardedAccesses(kernel))
          guard(access, flagInKernel, code);
        ++numGuardedKernels;
      }
    }
    // Names by code (line N is kernel N), for the entry point's message.
    function->setAttr("gp.bounds_kernels", builder.getStringAttr(names));
    return success();
  }
};

} // namespace
