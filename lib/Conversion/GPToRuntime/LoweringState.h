//===- LoweringState.h - state shared by the GPToRuntime patterns ---------===//
//
// The patterns do not lower ops in place: each program function becomes a
// new entry point and each partition a new body function, and an op's
// lowering is emitted at the end of the function its region lowers into.
// This state records those functions, which program functions and
// partitions are being lowered, and what the manifest will describe.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_CONVERSION_GPTORUNTIME_LOWERINGSTATE_H
#define GRAPHPART_LIB_CONVERSION_GPTORUNTIME_LOWERINGSTATE_H

#include "GraphPart/Conversion/GPToRuntime/GPToRuntime.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <set>

namespace mlir::gp {

/// Where the code of one lowered region goes, and the values it runs with.
struct LoweredRegion {
  /// The new function; code goes to the end of its last block.
  func::FuncOp function;
  Value program, deviceArena, hostArena;
  /// Partition bodies: the stream argument.
  Value stream;
  /// Entry points: the results array. Partition bodies: the result block.
  Value results;

  // Partition bodies: what the launch in the entry point needs.
  PartitionOp partition;
  Type resultStruct;
  int64_t resultBytes = 0;
  /// Per result, the input the body yields unchanged (the partition passes
  /// it on for ordering), or -1: such a result is the launch's own input,
  /// not a field of the result block, so no replay copies it.
  SmallVector<int64_t> passedInput;
  /// Per result, its field in the result block, or -1 for a passed input.
  SmallVector<int32_t> resultField;
  int64_t globalId = 0;
  SmallVector<Value> inputs;
};

/// Stack memory the kernel launches of one function share for their
/// parameters: the runtime (host kernels) and the driver (cuLaunchKernel)
/// copy a launch's parameter values before it returns, so the next launch
/// may write over them. One launch's code is then a store per value, not a
/// stack slot per value. `slots` holds 8-byte values. `cudaParams` holds
/// pointers to slot 0, 1, ..., the first `filledCudaParams` of them set
/// once, at the function's start; `hostParams` is written by each host
/// kernel launch (a descriptor takes several slots); `cudaFunction` receives
/// each cuda launch's kernel handle.
struct LaunchArea {
  Value cudaParams, hostParams, slots, cudaFunction;
  /// The sizes of the three allocations, set when the lowering ends.
  Operation *cudaParamsCount = nullptr, *hostParamsCount = nullptr,
            *slotsCount = nullptr;
  int64_t neededCudaParams = 0, neededHostParams = 0, neededSlots = 0;
  int64_t filledCudaParams = 0;
  /// The last op of the function's prologue (allocations, params filled).
  Operation *prologueEnd = nullptr;
};

/// A partition as the manifest describes it.
struct ManifestPartition {
  bool capturable;
  int64_t numShapeSymbols;
  std::string reasons;
};

class GPToRuntimeState {
public:
  GPToRuntimeState(ModuleOp module, const GPToRuntimeOptions &options);

  /// Indexes the RNG generators, finds the program functions and the cuda
  /// device, and sizes each function's arenas: its planned buffers, then a
  /// 16-byte slot per RNG state (its `gp.rng_slot` offset) and per scalar
  /// slot (`gp.scalar_slot`, in its device's arena). Reports what
  /// cannot be lowered at all.
  LogicalResult prepare();
  /// Writes the `gp_manifest` global (Manifest.cpp).
  void emitManifest();

  ModuleOp module;
  GPToRuntimeOptions options;
  /// Descriptor types of memrefs.
  LLVMTypeConverter llvmConverter;

  /// The cuda device the program's buffers name (one per program).
  std::optional<int64_t> cudaDevice;
  llvm::StringMap<int32_t> generators;
  int64_t programSeed = 0;
  /// Manifest contents, in lowering order.
  std::vector<ManifestPartition> partitions;
  std::string entriesManifest;
  /// The manifest's `extern` lines: what each call's IR says of its extern.
  std::set<std::string> externStatements;
  int64_t deviceArenaBytes = 0, hostArenaBytes = 0;
  /// Makes host kernel function names unique.
  unsigned uniqueCounter = 0;

  /// The functions with a body: each becomes an entry point.
  llvm::DenseSet<Operation *> programFunctions;
  /// Device and host arena bytes of each program function.
  llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> arenaBytes;
  /// Program functions whose entry point exists and partitions whose body
  /// function exists: legal until their terminator's lowering erases them.
  llvm::DenseSet<Operation *> started;

  /// The lowering of `region` (a program function's or a partition's body).
  LoweredRegion &lowered(Region *region) { return regions[region]; }
  LoweredRegion &loweredParent(Operation *op) {
    return lowered(op->getParentRegion());
  }
  /// Whether `op` sits directly in a program function's body.
  bool atTopLevel(Operation *op) const {
    return programFunctions.contains(op->getParentOp());
  }
  /// Whether `op` sits directly in a partition body.
  bool inPartition(Operation *op) const {
    auto partition = dyn_cast_or_null<PartitionOp>(op->getParentOp());
    return partition && atTopLevel(partition);
  }

  /// The launch area of `function`, made at its start the first time.
  LaunchArea &launchArea(OpBuilder &builder, func::FuncOp function);
  /// Sizes each function's launch area for what its launches used.
  void sizeLaunchAreas();

  /// Reports an error on `op`. The conversion stops at the first one; the
  /// pass drops the driver's generic "failed to legalize" that follows it.
  InFlightDiagnostic emitError(Operation *op) {
    diagnosed = true;
    return op->emitError();
  }
  bool diagnosed = false;

  /// The manifest's description of an entry point argument or result.
  static std::string describe(Type type);

private:
  llvm::DenseMap<Region *, LoweredRegion> regions;
  llvm::DenseMap<Operation *, LaunchArea> launchAreas;
};

} // namespace mlir::gp

#endif // GRAPHPART_LIB_CONVERSION_GPTORUNTIME_LOWERINGSTATE_H
