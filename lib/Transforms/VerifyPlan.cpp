//===- VerifyPlan.cpp - check that a memory plan is safe ------------------===//

#include "GraphPart/Analysis/ProgramOrder.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GraphPart/Transforms/Passes.h"
#include "PassUtils.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPVERIFYPLANPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

namespace {

class PlanChecker {
public:
  explicit PlanChecker(FunctionOpInterface func)
      : func(func), order(func.getFunctionBody().front()) {}

  /// Reports every problem; fails if there was one.
  LogicalResult run() {
    collectLastUses();
    checkLifetimes();
    checkArena();
    return failure(failed);
  }

private:
  /// The storage owner of each buffer operand an op reads or writes (free
  /// and hand-over operands excluded), with the op's position.
  template <typename Fn>
  void forEachUse(Fn &&fn) {
    for (Operation *op : order.getOps()) {
      unsigned pos = order.positionOf(op);
      auto visit = [&](Operation *user) {
        for (Value operand : user->getOperands())
          if (isa<BaseMemRefType>(operand.getType()))
            fn(op, pos, operand);
      };
      if (isa<BufferDeallocOp, BufferReuseOp>(op))
        continue;
      visit(op);
      if (!isa<KernelOp, PartitionOp>(op))
        op->walk([&](Operation *nested) {
          if (nested != op)
            visit(nested);
        });
    }
  }

  void collectLastUses() {
    forEachUse([&](Operation *op, unsigned pos, Value operand) {
      Value owner = getStorageOwner(operand);
      auto [it, inserted] = lastUse.try_emplace(owner, pos, op);
      if (pos >= it->second.first)
        it->second = {pos, op};
    });
  }

  bool isProgramInput(Value value) {
    auto arg = dyn_cast<BlockArgument>(value);
    return arg && arg.getOwner()->getParentOp() == func;
  }

  /// Ends the life of `owner`'s storage at `op` (a free or a hand-over).
  void end(Operation *op, Value owner, StringRef what) {
    unsigned pos = order.positionOf(op);
    if (isProgramInput(owner)) {
      op->emitError() << what << " a program input, which the caller owns";
      failed = true;
      return;
    }
    if (Operation *previous = endedAt.lookup(owner)) {
      InFlightDiagnostic diag =
          op->emitError() << what
                          << " a buffer whose storage was already released"
                          << (isa<BufferDeallocOp>(op) ? " (double free)" : "");
      diag.attachNote(previous->getLoc()) << "released here";
      failed = true;
      return;
    }
    endedAt[owner] = op;
    if (auto it = lastUse.find(owner);
        it != lastUse.end() && it->second.first > pos) {
      InFlightDiagnostic diag =
          op->emitError() << what
                          << " a buffer that is still used later, directly "
                             "or through an alias";
      diag.attachNote(it->second.second->getLoc()) << "used here";
      reported.insert(owner);
      failed = true;
    }
  }

  void checkLifetimes() {
    for (Operation *op : order.getOps()) {
      if (auto free = dyn_cast<BufferDeallocOp>(op)) {
        end(op, getStorageOwner(free.getBuffer()), "frees");
        continue;
      }
      if (auto reuse = dyn_cast<BufferReuseOp>(op)) {
        end(op, getStorageOwner(reuse.getSource()), "hands over");
        continue;
      }
    }
    forEachUse([&](Operation *op, unsigned pos, Value operand) {
      Value owner = getStorageOwner(operand);
      Operation *ended = endedAt.lookup(owner);
      if (!ended || order.positionOf(ended) >= pos || reported.contains(owner))
        return;
      reported.insert(owner);
      InFlightDiagnostic diag = op->emitError(
          "reads or writes a buffer after its storage was released");
      diag.attachNote(ended->getLoc()) << "released here";
      failed = true;
    });
  }

  void checkArena() {
    struct Region {
      BufferAllocOp head;
      int64_t offset, bytes;
      unsigned start, end;
    };
    SmallVector<Region> regions;
    llvm::DenseMap<Value, unsigned> regionOf;
    unsigned end = order.size();
    for (Operation *op : order.getOps()) {
      unsigned pos = order.positionOf(op);
      if (auto alloc = dyn_cast<BufferAllocOp>(op)) {
        std::optional<int64_t> offset = alloc.getOffset();
        std::optional<int64_t> bytes = getStaticByteSize(alloc.getType());
        if (!offset || !bytes)
          continue;
        regionOf[alloc.getResult()] = regions.size();
        regions.push_back({alloc, *offset, *bytes, pos, end});
      } else if (auto reuse = dyn_cast<BufferReuseOp>(op)) {
        auto it = regionOf.find(getBufferObject(reuse.getSource()));
        if (it != regionOf.end())
          regionOf[reuse.getResult()] = it->second;
      }
    }
    // A region lives until the last buffer in it is freed; a hand-over
    // keeps it alive as the next buffer.
    llvm::DenseMap<unsigned, unsigned> lastFree;
    for (Operation *op : order.getOps())
      if (auto free = dyn_cast<BufferDeallocOp>(op))
        if (auto it = regionOf.find(getBufferObject(free.getBuffer()));
            it != regionOf.end())
          lastFree[it->second] = order.positionOf(op);
    for (auto [index, pos] : lastFree)
      regions[index].end = pos;

    llvm::MapVector<Attribute, SmallVector<unsigned>> byDevice;
    for (auto [index, region] : llvm::enumerate(regions))
      byDevice[getDevice(region.head.getType())].push_back(index);
    for (auto &[device, indices] : byDevice) {
      llvm::sort(indices, [&](unsigned a, unsigned b) {
        return regions[a].start < regions[b].start;
      });
      SmallVector<unsigned> active;
      for (unsigned index : indices) {
        Region &r = regions[index];
        llvm::erase_if(active,
                       [&](unsigned o) { return regions[o].end < r.start; });
        for (unsigned o : active) {
          Region &other = regions[o];
          if (r.offset < other.offset + other.bytes &&
              other.offset < r.offset + r.bytes) {
            InFlightDiagnostic diag =
                r.head.emitError()
                << "arena range [" << r.offset << ", " << r.offset + r.bytes
                << ") overlaps [" << other.offset << ", "
                << other.offset + other.bytes
                << ") of a buffer that is alive at the same time";
            diag.attachNote(other.head.getLoc()) << "the other buffer";
            failed = true;
          }
        }
        active.push_back(index);
      }
    }
  }

  FunctionOpInterface func;
  ProgramOrder order;
  llvm::DenseMap<Value, std::pair<unsigned, Operation *>> lastUse;
  llvm::DenseMap<Value, Operation *> endedAt;
  llvm::DenseSet<Value> reported;
  bool failed = false;
};

struct GPVerifyPlanPass
    : public mlir::gp::impl::GPVerifyPlanPassBase<GPVerifyPlanPass> {
  void runOnOperation() override {
    bool ok = true;
    for (FunctionOpInterface func : collectFunctions(getOperation())) {
      if (func.isExternal() || !func.getFunctionBody().hasOneBlock())
        continue;
      if (failed(PlanChecker(func).run()))
        ok = false;
    }
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
