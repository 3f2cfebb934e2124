//===- SizeClasses.cpp - record an entry's run-time sizes -----------------===//

#include "GraphPart/Analysis/SizeClasses.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GraphPart/Transforms/Passes.h"

namespace mlir::gp {
#define GEN_PASS_DEF_GPSIZECLASSESPASS
#include "GraphPart/Transforms/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

namespace {

struct GPSizeClassesPass
    : public gp::impl::GPSizeClassesPassBase<GPSizeClassesPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    MLIRContext *context = &getContext();
    Builder builder(context);
    SmallVector<Attribute> attributes;
    for (const SizeClass &sizeClass : computeSizeClasses(function)) {
      SmallVector<int64_t> arguments, results;
      for (auto [index, dim] : sizeClass.arguments)
        arguments.append({index, dim});
      for (auto [index, dim] : sizeClass.results)
        results.append({index, dim});
      attributes.push_back(SizeClassAttr::get(
          context, builder.getStringAttr(sizeClass.name),
          builder.getDenseI64ArrayAttr(arguments),
          builder.getDenseI64ArrayAttr(results), sizeClass.fixed,
          sizeClass.maximum,
          builder.getStringAttr(sizeClass.unpaddable)));
    }
    StringRef name = GPDialect::getSizeClassesAttrName();
    if (attributes.empty())
      function->removeAttr(name);
    else
      function->setAttr(name, builder.getArrayAttr(attributes));
  }
};

} // namespace
