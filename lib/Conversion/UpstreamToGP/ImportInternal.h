//===- ImportInternal.h - gp-import's shared declarations -------*- C++ -*-===//
//
// The function importer, whose work is split by what it imports: the
// driver and the pass (Import.cpp), types and devices (ImportTypes.cpp),
// kernels (ImportKernels.cpp), buffers and views (ImportBuffers.cpp), calls
// (ImportCalls.cpp), weights (ImportWeights.cpp), parameters
// (ImportParameters.cpp) and linalg.softmax (ImportSoftmax.cpp). Private to
// lib/Conversion/UpstreamToGP.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_CONVERSION_UPSTREAMTOGP_IMPORTINTERNAL_H
#define GRAPHPART_LIB_CONVERSION_UPSTREAMTOGP_IMPORTINTERNAL_H

#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>

namespace mlir::gp::importer {

struct SymIntBounds {
  std::optional<int64_t> min, max;
};

struct ImportCounts {
  unsigned kernels = 0, fallbacks = 0, views = 0;
};

/// Large constants that become parameters (the `weights-dir` option): their
/// data, written as `<dir>/<global>.npy` once the import succeeded, and each
/// function's weight arguments in order, listed in `<dir>/<function>.weights`.
struct Weights {
  std::string dir;
  llvm::MapVector<StringRef, DenseElementsAttr> data;
  llvm::MapVector<StringRef, SmallVector<StringRef>> arguments;

  LogicalResult write(ModuleOp module) const;
};

bool isScalar(Type type);

/// Host scalar computations that stay where they are.
bool isHostScalarOp(Operation *op);

/// Replaces every buffer `linalg.softmax` of `function` by the linalg ops
/// it stands for (ImportSoftmax.cpp).
LogicalResult expandSoftmaxOps(func::FuncOp function);

/// Fails, with a located error, when an op of the imported `function`
/// writes or frees storage of a `gp.parameter` argument (ImportParameters.cpp).
LogicalResult checkParameterWrites(func::FuncOp function);

class FunctionImporter {
public:
  FunctionImporter(func::FuncOp function, DeviceAttr defaultDevice,
                   SymIntBounds bounds, ImportCounts &counts, Weights &weights)
      : function(function), defaultDevice(defaultDevice), bounds(bounds),
        counts(counts), weights(weights), builder(function.getContext()) {}

  LogicalResult run();

  /// Whether the function is in gp's form already: every op the import
  /// visits is a gp op, a host scalar or control flow, every value has its
  /// device, and no linalg.softmax is left to expand. run() then only
  /// checks, and removes host scalars that nothing uses.
  bool isImported();

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
  /// `expand`: an expand_shape's reassociation, for the run-time check of
  /// its dynamic output sizes (gp.buffer.reshape's `expand`).
  LogicalResult importReshape(Operation *op, Value source, Value result,
                              SmallVector<Value> dynamicSizes,
                              ArrayAttr expand = {});
  LogicalResult importView(memref::ViewOp view);
  LogicalResult importReinterpretCast(memref::ReinterpretCastOp cast);
  LogicalResult importCast(memref::CastOp cast);
  LogicalResult importDim(memref::DimOp dim);
  LogicalResult importCall(func::CallOp call);
  LogicalResult importRngCall(func::CallOp call, func::FuncOp callee);
  LogicalResult updateFunctionType();

  /// The size of dimension `dim` of `buffer` as an index value.
  Value dimSize(Location loc, Value buffer, int64_t dim);
  /// A symint for a dynamic dimension, made once per buffer and dimension.
  Value dimSymInt(Location loc, Value buffer, int64_t dim);
  /// A `gp.symint.unbacked` reading the one-element buffer `element`,
  /// named u0, u1, ... and bounded like the function's other symints.
  Value unbackedSymInt(Location loc, Value element);
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

} // namespace mlir::gp::importer

#endif // GRAPHPART_LIB_CONVERSION_UPSTREAMTOGP_IMPORTINTERNAL_H
