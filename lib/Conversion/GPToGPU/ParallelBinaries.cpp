//===- ParallelBinaries.cpp - kernels compiled to binaries in parallel ----===//
//
// `gp-gpu-module-to-binary`: what upstream `gpu-module-to-binary` does
// (each gpu.module serialized by its targets into a gpu.binary of the same
// name), with the kernels of a large module split across several modules
// first and the modules serialized on the context's threads at once. A
// whole model's kernels are one module of hundreds of kernels, and its
// serialization (LLVM's NVPTX back end, then ptxas) is the largest part of
// compiling it; each launch names its new module, and the runtime loads
// one image per binary.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include <atomic>
#include <thread>

namespace mlir::gp {
#define GEN_PASS_DEF_GPGPUMODULETOBINARYPASS
#include "GraphPart/Conversion/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;

namespace {

/// The kernels of `module` (functions marked gpu.kernel), by name.
SmallVector<Operation *> kernelsOf(gpu::GPUModuleOp module) {
  SmallVector<Operation *> kernels;
  for (Operation &op : module.getBody()->getOperations())
    if (op.hasAttr(gpu::GPUDialect::getKernelFuncAttrName()) ||
        op.hasAttr("nvvm.kernel"))
      kernels.push_back(&op);
  return kernels;
}

/// Splits `module` into `parts` modules named <name>_<i>, each holding a
/// share of the kernels (balanced by op count) and everything else the
/// module has (helpers, globals, declarations: what a kernel uses stays
/// with it); the launches in `top` name their kernel's new module.
void split(ModuleOp top, gpu::GPUModuleOp module, unsigned parts,
           SmallVectorImpl<gpu::GPUModuleOp> &made) {
  SmallVector<Operation *> kernels = kernelsOf(module);
  SmallVector<std::pair<int64_t, Operation *>> sized;
  for (Operation *kernel : kernels) {
    int64_t ops = 0;
    kernel->walk([&](Operation *) { ++ops; });
    sized.push_back({ops, kernel});
  }
  // Largest first, each to the least loaded part.
  llvm::sort(sized, [](auto &a, auto &b) {
    return a.first != b.first ? a.first > b.first
                              : a.second->isBeforeInBlock(b.second);
  });
  SmallVector<int64_t> load(parts, 0);
  llvm::StringMap<unsigned> partOf;
  for (auto [ops, kernel] : sized) {
    unsigned part = std::min_element(load.begin(), load.end()) - load.begin();
    load[part] += ops;
    partOf[SymbolTable::getSymbolName(kernel).getValue()] = part;
  }

  OpBuilder builder(module);
  StringRef name = module.getName();
  for (unsigned part = 0; part < parts; ++part) {
    auto copy = cast<gpu::GPUModuleOp>(builder.clone(*module));
    copy.setName((name + "_" + Twine(part)).str());
    for (Operation *kernel : kernelsOf(copy))
      if (partOf.lookup(SymbolTable::getSymbolName(kernel).getValue()) !=
          part)
        kernel->erase();
    made.push_back(copy);
  }
  MLIRContext *context = top.getContext();
  top.walk([&](gpu::LaunchFuncOp launch) {
    if (launch.getKernelModuleName() != name)
      return;
    StringRef kernel = launch.getKernelName();
    auto module = StringAttr::get(
        context, name + "_" + Twine(partOf.lookup(kernel)));
    launch.setKernelAttr(SymbolRefAttr::get(
        module, {FlatSymbolRefAttr::get(context, kernel)}));
  });
  module->erase();
}

struct GPGPUModuleToBinaryPass
    : public mlir::gp::impl::GPGPUModuleToBinaryPassBase<
          GPGPUModuleToBinaryPass> {
  using GPGPUModuleToBinaryPassBase::GPGPUModuleToBinaryPassBase;

  void runOnOperation() override {
    ModuleOp top = getOperation();
    MLIRContext *context = &getContext();
    // The machine's threads, unless the option says: the modules are big
    // chunks of work, worth a thread each even where gp-opt keeps MLIR's
    // fine-grained threading off (two hardware threads or fewer).
    unsigned threads = numThreads ? static_cast<unsigned>(numThreads)
                                  : std::max(1u,
                                             std::thread::hardware_concurrency());
    SmallVector<gpu::GPUModuleOp> modules;
    for (auto module :
         llvm::make_early_inc_range(top.getOps<gpu::GPUModuleOp>())) {
      unsigned kernels = kernelsOf(module).size();
      unsigned parts = std::min<unsigned>(
          threads, std::max<unsigned>(1, kernels / minKernelsPerPart));
      if (parts < 2)
        modules.push_back(module);
      else
        split(top, module, parts, modules);
    }
    if (modules.empty())
      return;

    // Built now: the callback the targets may call is not thread-safe to
    // build lazily.
    SymbolTable table(top);
    SmallVector<Attribute> libraries;
    gpu::TargetOptions options(toolkitPath, libraries, cmdOptions, {},
                               gpu::CompilationTarget::Binary,
                               [&]() -> SymbolTable * { return &table; });
    // Per module, its targets' objects (empty: serialization failed).
    SmallVector<SmallVector<Attribute>> objects(modules.size());
    SmallVector<std::string> failures(modules.size());
    // Diagnostics from the threads would interleave: each module's is
    // kept and reported in order afterwards.
    auto serialize = [&](size_t index) -> LogicalResult {
          gpu::GPUModuleOp module = modules[index];
          ArrayAttr targets = module.getTargetsAttr();
          if (!targets || targets.empty()) {
            failures[index] = "has no target attribute";
            return failure();
          }
          for (Attribute attr : targets) {
            auto target = dyn_cast<gpu::TargetAttrInterface>(attr);
            if (!target) {
              failures[index] = "has a target that cannot serialize";
              return failure();
            }
            std::optional<SmallVector<char, 0>> binary =
                target.serializeToObject(module, options);
            if (!binary) {
              failures[index] = "could not be serialized (LLVM or ptxas "
                                "failed; see the messages above)";
              return failure();
            }
            objects[index].push_back(
                target.createObject(module, *binary, options));
          }
          return success();
    };
    // One module per thread at a time, the modules taken in turn. The
    // targets make attributes (uniqued in the context) as they go: the
    // context must be thread-safe while they run.
    bool threaded = context->isMultithreadingEnabled();
    if (threads > 1 && modules.size() > 1 && !threaded)
      context->enableMultithreading(true);
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t index = next++; index < modules.size(); index = next++)
        (void)serialize(index);
    };
    std::vector<std::thread> helpers;
    for (unsigned t = 1; t < std::min<size_t>(threads, modules.size()); ++t)
      helpers.emplace_back(work);
    work();
    for (std::thread &helper : helpers)
      helper.join();
    if (!threaded && context->isMultithreadingEnabled())
      context->enableMultithreading(false);
    bool failed = false;
    for (auto [module, objectsOfModule, failure] :
         llvm::zip(modules, objects, failures)) {
      if (!failure.empty()) {
        module.emitError() << "gp-gpu-module-to-binary: gpu.module @"
                           << module.getName() << " " << failure;
        failed = true;
        continue;
      }
      OpBuilder builder(module);
      gpu::BinaryOp::create(builder, module.getLoc(), module.getName(),
                            module.getOffloadingHandlerAttr(),
                            builder.getArrayAttr(objectsOfModule));
      module->erase();
    }
    if (failed)
      signalPassFailure();
  }
};
} // namespace
