//===- TestAliasAnalysis.cpp - print storage classes ----------------------===//

#include "GraphPart/Analysis/BufferAliasAnalysis.h"
#include "TestPasses.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::gp::test {
#define GEN_PASS_DEF_TESTGPALIASPASS
#include "TestPasses.h.inc"
} // namespace mlir::gp::test

using namespace mlir;
using namespace mlir::gp;

namespace {
struct TestGPAliasPass
    : public mlir::gp::test::impl::TestGPAliasPassBase<TestGPAliasPass> {
  void runOnOperation() override {
    getOperation()->walk([](FunctionOpInterface func) {
      if (func.isExternal())
        return WalkResult::skip();
      BufferAliasAnalysis aliases(func);
      auto describe = [&](Value value) {
        unsigned cls = aliases.getClass(value);
        bool root = llvm::is_contained(aliases.getRoots(cls), value);
        return "class " + std::to_string(cls) + (root ? " root" : " view");
      };
      for (BlockArgument arg : func.getArguments())
        if (isa<BaseMemRefType>(arg.getType()))
          func.emitRemark() << "arg " << arg.getArgNumber() << ": "
                            << describe(arg);
      func.getFunctionBody().walk([&](Operation *op) {
        for (OpResult result : op->getResults())
          if (isa<BaseMemRefType>(result.getType()))
            op->emitRemark() << "result " << result.getResultNumber() << ": "
                             << describe(result);
      });
      return WalkResult::skip();
    });
  }
};
} // namespace
