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
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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

    // The launch: each value in the function's launch area, params[i]
    // pointing to the i-th; its sizes a constant array.
    continueLowering(kernel, rewriter);
    LoweredRegion &region = state.loweredParent(kernel);
    LaunchArea &area = state.launchArea(rewriter, region.function);
    ValueRange operands = adaptor.getOperands();
    int64_t count = operands.size();
    SmallVector<int64_t> sizes;
    int64_t slot = 0;
    for (auto [index, value] : llvm::enumerate(operands)) {
      int64_t bytes = rt.storageBytes(value.getType());
      Value storage = rt.gep(loc, rt.i64, area.slots, slot);
      rt.store(loc, rt.toStorage(loc, value), storage);
      rt.store(loc, storage, rt.gep(loc, rt.ptrType, area.hostParams, index));
      sizes.push_back(bytes);
      slot += llvm::divideCeil(bytes, 8);
    }
    area.neededHostParams = std::max(area.neededHostParams, count);
    area.neededSlots = std::max(area.neededSlots, slot);
    rt.callChecked(
        loc, "gpRtLaunchHostKernel",
        {region.stream, rt.functionAddress(loc, packed), area.hostParams,
         count ? rt.constantArray(loc, rt.i64, sizes)
               : LLVM::ZeroOp::create(rewriter, loc, rt.ptrType).getResult(),
         rt.constI32(loc, count)});
    rewriter.eraseOp(kernel);
    return success();
  }
};

struct CudaLaunchLowering : GPToRuntimePattern<gpu::LaunchFuncOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  /// The launch area's cuda params of `function`, its first `count`
  /// pointing to slots 0 .. count-1 (set at the function's start, once).
  Value launchParams(RuntimeCallBuilder &rt, func::FuncOp function,
                     int64_t count, ConversionPatternRewriter &rewriter) const {
    LaunchArea &area = state.launchArea(rewriter, function);
    if (area.filledCudaParams < count) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfter(area.prologueEnd);
      Location loc = function.getLoc();
      for (int64_t index = area.filledCudaParams; index < count; ++index) {
        Value slot = rt.gep(loc, rt.i64, area.slots, index);
        rt.store(loc, slot, rt.gep(loc, rt.ptrType, area.cudaParams, index));
      }
      // The last op inserted (the insertion point may be the block's end).
      area.prologueEnd = &*std::prev(rewriter.getInsertionPoint());
      area.filledCudaParams = count;
    }
    area.neededCudaParams = std::max(area.neededCudaParams, count);
    area.neededSlots = std::max(area.neededSlots, count);
    return area.cudaParams;
  }

  /// Whether a kernel parameter of `type` fits a launch area slot.
  static bool fitsSlot(Type type) {
    if (isa<LLVM::LLVMPointerType>(type))
      return true;
    if (type.isIntOrFloat())
      return type.getIntOrFloatBitWidth() <= 64;
    return false;
  }

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
    for (Value value : adaptor.getKernelOperands())
      if (!isa<MemRefType>(value.getType()) &&
          !fitsSlot(rt.storageType(value.getType())))
        return state.emitError(launch)
               << "a kernel parameter of type " << value.getType()
               << " (wider than 8 bytes) cannot be passed to cuLaunchKernel";
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
    Value function = state.launchArea(rewriter, body.function).cudaFunction;
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
    // Field i in slot i of the function's launch area, params[i] pointing
    // to it from the function's start on.
    Value params = launchParams(rt, body.function, fields.size(), rewriter);
    for (auto [index, field] : llvm::enumerate(fields))
      rt.store(loc, field,
               rt.gep(loc, rt.i64,
                      state.launchArea(rewriter, body.function).slots, index));
    // Grid and block sizes: constant arrays when they are constants.
    auto dims = [&](Value x, Value y, Value z) {
      Value sizes[] = {x, y, z};
      SmallVector<int64_t> constants;
      for (Value size : sizes)
        if (std::optional<int64_t> constant = getConstantIntValue(size))
          constants.push_back(*constant);
      if (constants.size() == 3 && llvm::all_of(constants, [](int64_t v) {
            return v >= 0 && v <= INT32_MAX;
          }))
        return rt.constantArray(loc, rt.i32, constants);
      Value array = rt.stackSlot(loc, rt.i32, 3);
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
