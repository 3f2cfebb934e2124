//===- TestCaptureSafety.cpp - print capture-safety classification --------===//

#include "GraphPart/Analysis/CaptureSafety.h"
#include "TestPasses.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::gp::test {
#define GEN_PASS_DEF_TESTGPCAPTURESAFETYPASS
#include "TestPasses.h.inc"
} // namespace mlir::gp::test

using namespace mlir;
using namespace mlir::gp;

static StringRef roleName(OpRole role) {
  switch (role) {
  case OpRole::Compute:
    return "compute";
  case OpRole::Glue:
    return "glue";
  case OpRole::HostDefinition:
    return "host definition";
  case OpRole::Terminator:
    return "terminator";
  }
  llvm_unreachable("unknown role");
}

namespace {
struct TestGPCaptureSafetyPass
    : public mlir::gp::test::impl::TestGPCaptureSafetyPassBase<
          TestGPCaptureSafetyPass> {
  using TestGPCaptureSafetyPassBase::TestGPCaptureSafetyPassBase;

  void runOnOperation() override {
    CaptureSafetyOptions options;
    options.unsafeOps.assign(unsafeOps.begin(), unsafeOps.end());
    options.skipDynamicGraphs = skipDynamicGraphs;
    getOperation()->walk([&](FunctionOpInterface func) {
      for (Block &block : func.getFunctionBody()) {
        CaptureSafetyAnalysis safety(block, options);
        for (Operation &op : block) {
          OpRole role = getOpRole(&op);
          InFlightDiagnostic remark = op.emitRemark() << roleName(role);
          if (role != OpRole::Compute)
            continue;
          if (std::optional<StringRef> reason = safety.getReason(&op))
            remark << ": " << *reason;
          else
            remark << ": capture-safe";
        }
      }
      return WalkResult::skip();
    });
  }
};
} // namespace
