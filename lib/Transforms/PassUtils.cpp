//===- PassUtils.cpp - helpers shared by GraphPart's passes ---------------===//

#include "PassUtils.h"

#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

SmallVector<FunctionOpInterface> mlir::gp::collectFunctions(Operation *root) {
  SmallVector<FunctionOpInterface> funcs;
  root->walk<WalkOrder::PreOrder>([&](FunctionOpInterface func) {
    funcs.push_back(func);
    return WalkResult::skip();
  });
  return funcs;
}

void mlir::gp::writeReport(StringRef text) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  llvm::errs() << text;
}
