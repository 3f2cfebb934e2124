//===- GPToGPU.cpp - outline cuda kernels into the GPU dialect ------------===//
//
// Each cuda gp.kernel is lowered on its own: its body is cloned into a
// scratch module as a function over plain (memory-space-free) memrefs, the
// upstream chain maps its parallel loops to GPU blocks and threads, leftover
// device work is wrapped in single-thread launches, and the launches are
// outlined. The outlined kernels move into the one `gpu.module @gp_kernels`
// and the function's host side (launch configuration and gpu.launch_func)
// replaces the gp.kernel where it stood.
//
//===----------------------------------------------------------------------===//

#include "Contractions.h"
#include "Reductions.h"
#include "ThreadTiling.h"

#include "GraphPart/Analysis/BufferAliasAnalysis.h"
#include "GraphPart/Conversion/Passes.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"
#include "GraphPart/Transforms/ChangedElements.h"

#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::gp {
#define GEN_PASS_DEF_CONVERTGPTOGPUPASS
#include "GraphPart/Conversion/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

static constexpr llvm::StringLiteral kKernelModuleName = "gp_kernels";

namespace {
struct ConvertGPToGPUPass
    : public mlir::gp::impl::ConvertGPToGPUPassBase<ConvertGPToGPUPass> {
  using ConvertGPToGPUPassBase::ConvertGPToGPUPassBase;

  void runOnOperation() override;
  /// `distinctOutputs`: the kernel's outputs share storage with none of
  /// its other operands (writesDistinctBuffers).
  LogicalResult lowerKernel(KernelOp kernel, gpu::GPUModuleOp kernels,
                            bool distinctOutputs);
};
} // namespace

/// Runs the kernel body's device work inside single-thread launches where
/// the loop mapping left it on the host side: each run of such ops between
/// two launches goes into one launch, with the pure ops that compute on
/// their results (a load, an add, a store of the sum), so values flow
/// between them on the device. Pure ops on host values (constants) stay.
static LogicalResult wrapLeftoverWork(func::FuncOp func) {
  OpBuilder builder(func.getContext());
  SmallVector<SmallVector<Operation *>> groups(1);
  llvm::SmallPtrSet<Operation *, 8> grouped;
  for (Operation &op : func.getBody().front().without_terminator()) {
    if (isa<gpu::LaunchOp>(op)) {
      if (!groups.back().empty())
        groups.emplace_back();
      continue;
    }
    bool usesGroup = llvm::any_of(op.getOperands(), [&](Value operand) {
      Operation *definer = operand.getDefiningOp();
      return definer && grouped.contains(definer);
    });
    if (isPure(&op) && op.getNumRegions() == 0 && !usesGroup)
      continue;
    groups.back().push_back(&op);
    grouped.insert(&op);
  }
  // Each group's launch goes where its last op was: every host value its
  // ops use is defined by then, and nothing between them has effects.
  for (ArrayRef<Operation *> group : groups) {
    if (group.empty())
      continue;
    Location loc = group.back()->getLoc();
    builder.setInsertionPointAfter(group.back());
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    auto launch =
        gpu::LaunchOp::create(builder, loc, one, one, one, one, one, one);
    Block &body = launch.getBody().front();
    if (body.empty() || !body.back().hasTrait<OpTrait::IsTerminator>()) {
      builder.setInsertionPointToEnd(&body);
      gpu::TerminatorOp::create(builder, loc);
    }
    for (Operation *op : group)
      op->moveBefore(&body.back());
    // Constants go in with the work: as launch parameters, a kernel that
    // stores a constant table (gp-import's constant globals) would pass
    // each element, beyond what a launch may take.
    OpBuilder inside = OpBuilder::atBlockBegin(&body);
    llvm::DenseMap<Value, Value> sunk;
    launch.getBody().walk([&](Operation *op) {
      for (OpOperand &operand : op->getOpOperands()) {
        Operation *definer = operand.get().getDefiningOp();
        if (!definer || !definer->hasTrait<OpTrait::ConstantLike>() ||
            launch->isAncestor(definer))
          continue;
        Value &copy = sunk[operand.get()];
        if (!copy)
          copy = inside.clone(*definer)->getResult(0);
        operand.set(copy);
      }
    });
  }
  // A device value used outside its launch cannot be.
  for (Operation *op : grouped)
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers())
        if (user->getParentOfType<gpu::LaunchOp>() !=
            op->getParentOfType<gpu::LaunchOp>())
          return op->emitOpError("in a gp.kernel body makes a value that "
                                 "later host-side code uses; it cannot run "
                                 "on the GPU");
  return success();
}

/// Whether nothing reads what `kernel` writes into its output `buffer`: a
/// planned buffer (not a view, an argument or a parameter) that the kernel
/// takes once and whose other users only end its life or take over its
/// storage (gp-plan-memory places them after its last use).
static bool isUnreadAfter(KernelOp kernel, Value buffer) {
  if (!isa_and_nonnull<BufferAllocOp, BufferReuseOp>(buffer.getDefiningOp()) ||
      llvm::count(kernel->getOperands(), buffer) != 1)
    return false;
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    return user == kernel.getOperation() ||
           isa<BufferDeallocOp, BufferReuseOp>(user);
  });
}

LogicalResult ConvertGPToGPUPass::lowerKernel(KernelOp kernel,
                                              gpu::GPUModuleOp kernels,
                                              bool distinctOutputs) {
  MLIRContext *context = &getContext();
  Location loc = kernel.getLoc();
  Block &body = kernel.getBody().front();

  // 1. The body as a function over plain memrefs, in a scratch module.
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
  OpBuilder builder(context);
  builder.setInsertionPointToEnd(scratch->getBody());
  SmallVector<Type> argTypes;
  for (Type type : body.getArgumentTypes())
    argTypes.push_back(stripMemorySpace(type));
  auto func = func::FuncOp::create(builder, loc, kernel.getKernelName(),
                                   builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  IRMapping mapping;
  mapping.map(body.getArguments(), entry->getArguments());
  builder.setInsertionPointToEnd(entry);
  for (Operation &op : body.without_terminator())
    builder.clone(op, mapping);
  func::ReturnOp::create(builder, loc);
  func.walk([](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(stripMemorySpace(arg.getType()));
    for (Value result : op->getResults())
      result.setType(stripMemorySpace(result.getType()));
  });

  // 2. Reductions get blocks of threads of their own; the rest becomes
  //    parallel loops, collapsed to one dimension (so that any rank fills
  //    whole blocks), tiled and mapped to blocks and threads.
  if (parallelReductions) {
    llvm::DenseSet<Value> unreadAfter;
    unsigned firstOutput = kernel.getInputs().size();
    for (auto [index, output] : llvm::enumerate(kernel.getOutputs()))
      if (isUnreadAfter(kernel, output))
        unreadAfter.insert(entry->getArgument(firstOutput + index));
    lowerReductionsToBlocks(func, blockSize, kernel.getNoalias(),
                            rowElementsPerThread, unreadAfter);
  }
  PassManager toLoops(context);
  toLoops.nest<func::FuncOp>().addPass(
      createConvertLinalgToParallelLoopsPass());
  if (failed(toLoops.run(*scratch)))
    return kernel.emitOpError("body could not be turned into loops");
  storeOnlyChangedElements(func, distinctOutputs);
  iterateOnlyWhereStored(func);
  IRRewriter rewriter(context);
  for (auto loop : llvm::make_early_inc_range(
           func.getBody().front().getOps<scf::ParallelOp>())) {
    unsigned rank = loop.getNumLoops();
    if (rank < 2)
      continue;
    std::vector<unsigned> all(rank);
    for (unsigned dim = 0; dim < rank; ++dim)
      all[dim] = dim;
    rewriter.setInsertionPoint(loop);
    collapseParallelLoops(rewriter, loop, {all});
  }
  PassManager simplify(context);
  simplify.nest<func::FuncOp>().addPass(createCanonicalizerPass());
  if (failed(simplify.run(*scratch)))
    return kernel.emitOpError("body could not be simplified");
  // Fixed-size tiles with a bounds check inside: every block has
  // blockSize threads whatever the trip count (and a long elementwise
  // loop several elements per thread).
  tileForThreads(func, blockSize, elementsPerThread);
  PassManager mapPipeline(context);
  OpPassManager &funcPipeline = mapPipeline.nest<func::FuncOp>();
  funcPipeline.addPass(createGpuMapParallelLoopsPass());
  funcPipeline.addPass(createConvertParallelLoopToGpuPass());
  funcPipeline.addPass(createCanonicalizerPass());
  if (failed(mapPipeline.run(*scratch)))
    return kernel.emitOpError("body could not be mapped to GPU threads");
  if (failed(wrapLeftoverWork(func)))
    return failure();

  // 3. Outline the launches into kernels.
  PassManager outline(context);
  // Constants inside the kernels, not kernel parameters: the compiler then
  // knows trip counts, offsets and bounds.
  outline.addPass(createGpuLaunchSinkIndexComputationsPass());
  outline.addPass(createGpuKernelOutliningPass());
  if (failed(outline.run(*scratch)))
    return kernel.emitOpError("could not outline the GPU kernels");

  // 4. Move the kernels into @gp_kernels under unique names.
  SymbolTable kernelSymbols(kernels);
  llvm::DenseMap<Attribute, SymbolRefAttr> renamed;
  for (auto module :
       llvm::make_early_inc_range(scratch->getOps<gpu::GPUModuleOp>())) {
    for (auto gpuFunc :
         llvm::make_early_inc_range(module.getOps<gpu::GPUFuncOp>())) {
      SymbolRefAttr oldRef =
          SymbolRefAttr::get(module.getNameAttr(),
                             {FlatSymbolRefAttr::get(gpuFunc.getNameAttr())});
      gpuFunc->remove();
      gpuFunc.setName(kernel.getKernelName());
      StringAttr name = kernelSymbols.insert(gpuFunc);
      renamed[oldRef] =
          SymbolRefAttr::get(StringAttr::get(context, kKernelModuleName),
                             {FlatSymbolRefAttr::get(name)});
    }
    module.erase();
  }
  func.walk([&](gpu::LaunchFuncOp launch) {
    if (SymbolRefAttr target = renamed.lookup(launch.getKernel()))
      launch.setKernelAttr(target);
  });

  // 5. The host side replaces the gp.kernel: buffers go in as plain device
  //    pointers.
  builder.setInsertionPoint(kernel);
  IRMapping host;
  for (auto [arg, operand] :
       llvm::zip(func.getArguments(), kernel->getOperands())) {
    Value value = operand;
    if (value.getType() != arg.getType())
      value =
          memref::MemorySpaceCastOp::create(builder, loc, arg.getType(), value);
    host.map(arg, value);
  }
  for (Operation &op : func.getBody().front().without_terminator())
    builder.clone(op, host);
  kernel.erase();
  return success();
}

void ConvertGPToGPUPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (blockSize <= 0) {
    module.emitError() << "convert-gp-to-gpu: block-size must be positive, got "
                       << static_cast<int64_t>(blockSize);
    return signalPassFailure();
  }
  if (elementsPerThread < 1 || elementsPerThread > 8 ||
      !llvm::isPowerOf2_64(elementsPerThread)) {
    module.emitError() << "convert-gp-to-gpu: elements-per-thread must be 1, "
                          "2, 4 or 8, got "
                       << static_cast<int64_t>(elementsPerThread);
    return signalPassFailure();
  }
  if (rowElementsPerThread < 1 || rowElementsPerThread > 16 ||
      !llvm::isPowerOf2_64(rowElementsPerThread)) {
    module.emitError() << "convert-gp-to-gpu: row-elements-per-thread must "
                          "be 1, 2, 4, 8 or 16, got "
                       << static_cast<int64_t>(rowElementsPerThread);
    return signalPassFailure();
  }
  auto collectCudaKernels = [&] {
    SmallVector<KernelOp> kernels;
    module.walk([&](KernelOp kernel) {
      if (DeviceAttr device = kernel.getDevice(); device && device.isCuda())
        kernels.push_back(kernel);
    });
    return kernels;
  };
  SmallVector<KernelOp> kernels = collectCudaKernels();
  // Contractions become cuBLAS calls first; that may also erase the zero
  // fill kernel before one, so the rest is collected again.
  if (libraryCalls && !kernels.empty()) {
    for (KernelOp kernel : kernels)
      lowerContractionToLibrary(kernel);
    kernels = collectCudaKernels();
  }
  if (kernels.empty())
    return;

  auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName);
  if (!gpuModule) {
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    gpuModule =
        gpu::GPUModuleOp::create(builder, module.getLoc(), kKernelModuleName);
  }
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(&getContext()));
  // Which kernels write buffers of their own, decided before lowering
  // changes the module under the analysis.
  BufferAliasAnalysis aliases(module);
  llvm::DenseMap<Operation *, bool> distinctOutputs;
  for (KernelOp kernel : kernels)
    distinctOutputs[kernel] =
        kernel.getNoalias() || writesDistinctBuffers(kernel, aliases);
  for (KernelOp kernel : kernels)
    if (failed(lowerKernel(kernel, gpuModule, distinctOutputs.lookup(kernel))))
      return signalPassFailure();
}
