//===- KernelLaunches.cpp - kernels become runtime launches ---------------===//
//
// A `gp.kernel` left for the host becomes a function over plain memrefs and
// its packed form, launched with `gpRtLaunchHostKernel`; a `gpu.launch_func`
// becomes `gpRtLaunchCudaKernel` on the partition's stream, with the cubin of
// its `gpu.binary` kept in the artifact (the binary itself goes away).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::gp;

namespace {

struct HostKernelLowering : GPToRuntimePattern<KernelOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(KernelOp kernel, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.inPartition(kernel))
      return failure();
    MLIRContext *ctx = kernel.getContext();
    Location loc = kernel.getLoc();
    if (state.options.cudaTarget &&
        !onHost(kernel.getOutputs().empty()
                    ? Type()
                    : kernel.getOutputs().front().getType())) {
      DeviceAttr device = kernel.getDevice();
      if (device && device.isCuda())
        return state.emitError(kernel)
               << "a cuda kernel reached the runtime lowering: run "
                  "convert-gp-to-gpu and compile the kernels first";
    }
    std::string name = "gp_kernel_" + kernel.getKernelName().str() + "_" +
                       std::to_string(state.uniqueCounter++);
    for (char &c : name)
      if (!llvm::isAlnum(c) && c != '_')
        c = '_';
    Block &body = kernel.getBody().front();

    // The kernel as a function over plain memrefs, and its packed form
    // `void name_packed(void **params)` that the runtime calls.
    RuntimeCallBuilder rt = builder(rewriter);
    SmallVector<Type> argumentTypes;
    for (BlockArgument argument : body.getArguments())
      argumentTypes.push_back(stripMemorySpace(argument.getType()));
    rewriter.setInsertionPointToEnd(state.module.getBody());
    auto function = func::FuncOp::create(
        rewriter, loc, name, FunctionType::get(ctx, argumentTypes, {}));
    function.setPrivate();
    Block *entry = rewriter.createBlock(
        &function.getBody(), function.getBody().end(), argumentTypes,
        SmallVector<Location>(argumentTypes.size(), loc));
    IRMapping bodyMapping;
    bodyMapping.map(body.getArguments(), entry->getArguments());
    for (Operation &op : body.without_terminator())
      rewriter.clone(op, bodyMapping);
    func::ReturnOp::create(rewriter, loc);

    rewriter.setInsertionPointToEnd(state.module.getBody());
    auto packed =
        func::FuncOp::create(rewriter, loc, name + "_packed",
                             FunctionType::get(ctx, {rt.ptrType}, {}));
    packed.setPrivate();
    Block *packedEntry = rewriter.createBlock(
        &packed.getBody(), packed.getBody().end(), {rt.ptrType}, {loc});
    SmallVector<Value> values;
    for (auto [index, type] : llvm::enumerate(argumentTypes)) {
      Value pointer =
          rt.load(loc, rt.ptrType,
                  rt.gep(loc, rt.ptrType, packedEntry->getArgument(0), index));
      values.push_back(rt.loadValue(loc, type, pointer));
    }
    func::CallOp::create(rewriter, loc, function, values);
    func::ReturnOp::create(rewriter, loc);

    // The launch.
    continueLowering(kernel, rewriter);
    ValueRange operands = adaptor.getOperands();
    int64_t count = operands.size();
    Value params = rt.stackSlot(loc, rt.ptrType, std::max<int64_t>(1, count));
    Value sizes = rt.stackSlot(loc, rt.i64, std::max<int64_t>(1, count));
    for (auto [index, value] : llvm::enumerate(operands)) {
      rt.store(loc, rt.spill(loc, value),
               rt.gep(loc, rt.ptrType, params, index));
      rt.store(loc, rt.constI64(loc, rt.storageBytes(value.getType())),
               rt.gep(loc, rt.i64, sizes, index));
    }
    rt.callChecked(loc, "gpRtLaunchHostKernel",
                   {state.loweredParent(kernel).stream,
                    rt.functionAddress(loc, packed), params, sizes,
                    rt.constI32(loc, count)});
    rewriter.eraseOp(kernel);
    return success();
  }
};

struct CudaLaunchLowering : GPToRuntimePattern<gpu::LaunchFuncOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(gpu::LaunchFuncOp launch, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.inPartition(launch))
      return failure();
    Location loc = launch.getLoc();
    ModuleOp module = state.module;
    if (!state.options.cudaTarget)
      return state.emitError(launch) << "gpu.launch_func needs target=cuda";
    auto binary =
        module.lookupSymbol<gpu::BinaryOp>(launch.getKernelModuleName());
    if (!binary)
      return state.emitError(launch)
             << "no compiled kernels (gpu.binary @"
             << launch.getKernelModuleName()
             << "): run gpu-module-to-binary before convert-gp-to-runtime";
    LoweredRegion &body = state.loweredParent(launch);
    RuntimeCallBuilder rt = emitterFor(launch, rewriter);
    std::string imageName = "gp_image_" + launch.getKernelModuleName().str();
    auto image = module.lookupSymbol<LLVM::GlobalOp>(imageName);
    if (!image) {
      auto object = dyn_cast<gpu::ObjectAttr>(binary.getObjects()[0]);
      if (!object || object.getFormat() != gpu::CompilationTarget::Binary)
        return state.emitError(binary)
               << "expects one cubin object (format=bin)";
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      StringRef bytes = object.getObject().getValue();
      image = LLVM::GlobalOp::create(
          rewriter, loc, LLVM::LLVMArrayType::get(rt.i8, bytes.size()),
          /*isConstant=*/true, LLVM::Linkage::Internal, imageName,
          rewriter.getStringAttr(bytes), /*alignment=*/64);
    }
    Value function = rt.stackSlot(loc, rt.ptrType);
    rt.callChecked(
        loc, "gpRtCudaGetKernel",
        {body.program, LLVM::AddressOfOp::create(rewriter, loc, image),
         rt.stringAddress(loc, launch.getKernelName().getValue()), function});

    // Parameters: a memref expands to its descriptor's fields, as upstream
    // lowers gpu.func arguments.
    SmallVector<Value> fields;
    for (Value value : adaptor.getKernelOperands()) {
      if (auto type = dyn_cast<MemRefType>(value.getType())) {
        Value desc = rt.castTo(loc, rt.descriptorType(type), value);
        fields.push_back(LLVM::ExtractValueOp::create(rewriter, loc, desc,
                                                      ArrayRef<int64_t>{0}));
        fields.push_back(LLVM::ExtractValueOp::create(rewriter, loc, desc,
                                                      ArrayRef<int64_t>{1}));
        fields.push_back(LLVM::ExtractValueOp::create(rewriter, loc, desc,
                                                      ArrayRef<int64_t>{2}));
        for (int64_t part : {3, 4})
          for (int64_t i = 0; i < type.getRank(); ++i)
            fields.push_back(LLVM::ExtractValueOp::create(
                rewriter, loc, desc, ArrayRef<int64_t>{part, i}));
        continue;
      }
      fields.push_back(rt.toStorage(loc, value));
    }
    Value params =
        rt.stackSlot(loc, rt.ptrType, std::max<size_t>(1, fields.size()));
    for (auto [index, field] : llvm::enumerate(fields)) {
      Value slot = rt.stackSlot(loc, field.getType());
      rt.store(loc, field, slot);
      rt.store(loc, slot, rt.gep(loc, rt.ptrType, params, index));
    }
    auto dims = [&](Value x, Value y, Value z) {
      Value array = rt.stackSlot(loc, rt.i32, 3);
      Value sizes[] = {x, y, z};
      for (auto [index, size] : llvm::enumerate(sizes)) {
        Value value = arith::IndexCastOp::create(rewriter, loc, rt.i64, size);
        rt.store(loc, LLVM::TruncOp::create(rewriter, loc, rt.i32, value),
                 rt.gep(loc, rt.i32, array, index));
      }
      return array;
    };
    Value grid = dims(adaptor.getGridSizeX(), adaptor.getGridSizeY(),
                      adaptor.getGridSizeZ());
    Value block = dims(adaptor.getBlockSizeX(), adaptor.getBlockSizeY(),
                       adaptor.getBlockSizeZ());
    Value shared =
        adaptor.getDynamicSharedMemorySize()
            ? LLVM::TruncOp::create(rewriter, loc, rt.i32,
                                    arith::IndexCastOp::create(
                                        rewriter, loc, rt.i64,
                                        adaptor.getDynamicSharedMemorySize()))
                  .getResult()
            : rt.constI32(loc, 0);
    rt.callChecked(loc, "gpRtLaunchCudaKernel",
                   {body.stream, rt.load(loc, rt.ptrType, function), grid,
                    block, shared, params});
    rewriter.eraseOp(launch);
    return success();
  }
};

/// The cubins live on as the launches' images.
struct BinaryErasure : GPToRuntimePattern<gpu::BinaryOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(gpu::BinaryOp binary, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(binary);
    return success();
  }
};

} // namespace

void mlir::gp::populateKernelLaunchPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            GPToRuntimeState &state) {
  patterns.add<HostKernelLowering, CudaLaunchLowering, BinaryErasure>(converter,
                                                                      state);
}
