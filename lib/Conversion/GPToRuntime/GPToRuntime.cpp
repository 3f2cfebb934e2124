//===- GPToRuntime.cpp - lower programs onto the GraphPart runtime --------===//
//
// A partitioned, planned program becomes host code that calls the runtime's
// C ABI. Values cross function boundaries (entry points, partition bodies,
// host kernels, externs) as MLIR memref descriptors or int64s stored in
// memory, so the code here moves descriptors in and out of memory with LLVM
// dialect ops and `unrealized_conversion_cast`s between a memref and its
// descriptor struct; the upstream conversions to the LLVM dialect that run
// afterwards fold those casts away.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Conversion/Passes.h"
#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::gp {
#define GEN_PASS_DEF_CONVERTGPTORUNTIMEPASS
#include "GraphPart/Conversion/Passes.h.inc"
} // namespace mlir::gp

using namespace mlir;
using namespace mlir::gp;

namespace {

// Matches gpRtCopyKind.
enum CopyKind : int32_t {
  kHostToHost = 0,
  kHostToProgram = 1,
  kProgramToHost = 2,
  kProgramToProgram = 3
};

/// Slots of a partition body's context array (pointers).
enum ContextSlot : int64_t {
  kContextProgram = 0,
  kContextDeviceArena = 1,
  kContextHostArena = 2,
  kContextResults = 3,
  kContextFirstInput = 4
};

int64_t elementBytes(MemRefType type) {
  return getElementByteSize(type.getElementType()).value_or(1);
}

/// Whether a buffer of `type` lives in host memory on every backend.
bool onHost(Type type) {
  DeviceAttr device = getDevice(type);
  return device && device.isCpu();
}

/// Runtime policy defaults an artifact carries.
struct PolicyDefaults {
  int64_t warmupRuns = 1;
  std::string captureSizes;
  int64_t shapeWarningLimit = 8;
  bool orError = false;
};

class Lowering {
public:
  Lowering(ModuleOp module, bool cudaTarget, PolicyDefaults policy)
      : module(module), ctx(module.getContext()), cudaTarget(cudaTarget),
        policy(std::move(policy)), converter(ctx), builder(ctx) {
    ptrType = LLVM::LLVMPointerType::get(ctx);
    i32 = IntegerType::get(ctx, 32);
    i64 = IntegerType::get(ctx, 64);
    i8 = IntegerType::get(ctx, 8);
  }

  LogicalResult run();

private:
  // Program description.
  struct Partition {
    bool capturable;
    int64_t numShapeSymbols;
    std::string reasons;
  };
  ModuleOp module;
  MLIRContext *ctx;
  bool cudaTarget;
  PolicyDefaults policy;
  /// The cuda device the program's buffers name (one per program).
  std::optional<int64_t> cudaDevice;
  LLVMTypeConverter converter;
  OpBuilder builder;
  Type ptrType, i32, i64, i8;
  std::vector<Partition> partitions;
  std::string entriesManifest;
  int64_t deviceArenaBytes = 0, hostArenaBytes = 0;
  llvm::StringMap<int32_t> generators;
  int64_t programSeed = 0;
  unsigned uniqueCounter = 0;

  // Per function being lowered.
  std::string functionName;
  int64_t deviceArenaBase = 0, hostArenaBase = 0;

  /// Where a partition body's common values live while it is built.
  struct BodyState {
    Value stream, program, deviceArena, hostArena;
    func::FuncOp function;
  };

  //===--- Small builders -----------------------------------------------===//

  Value constI32(Location loc, int64_t value) {
    return LLVM::ConstantOp::create(builder, loc, i32,
                                    builder.getI32IntegerAttr(value));
  }
  Value constI64(Location loc, int64_t value) {
    return LLVM::ConstantOp::create(builder, loc, i64,
                                    builder.getI64IntegerAttr(value));
  }
  Type descriptorType(MemRefType type) {
    return converter.convertType(cast<MemRefType>(stripMemorySpace(type)));
  }
  /// How a value is stored in memory: descriptor struct, int64 or its own
  /// LLVM type (floats, pointers).
  Type storageType(Type type) {
    if (auto memref = dyn_cast<MemRefType>(type))
      return descriptorType(memref);
    if (isa<IndexType>(type))
      return i64;
    if (isa<RngStateType>(type))
      return ptrType;
    return converter.convertType(type);
  }
  /// Bytes of a value's storage (descriptors: two pointers, offset, sizes,
  /// strides, all 8 bytes).
  int64_t storageBytes(Type type) {
    if (auto memref = dyn_cast<MemRefType>(type))
      return 24 + 16 * memref.getRank();
    if (type.isIntOrFloat() && !isa<IndexType>(type))
      return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
    return 8;
  }
  Value stackSlot(Location loc, Type type, int64_t count = 1) {
    return LLVM::AllocaOp::create(builder, loc, ptrType, type,
                                  constI64(loc, count));
  }
  Value gep(Location loc, Type element, Value base, int64_t index) {
    return LLVM::GEPOp::create(builder, loc, ptrType, element, base,
                               ArrayRef<LLVM::GEPArg>{index});
  }
  Value gepDynamic(Location loc, Type element, Value base, Value index) {
    return LLVM::GEPOp::create(builder, loc, ptrType, element, base,
                               ArrayRef<LLVM::GEPArg>{index});
  }
  Value load(Location loc, Type type, Value pointer) {
    return LLVM::LoadOp::create(builder, loc, type, pointer);
  }
  void store(Location loc, Value value, Value pointer) {
    LLVM::StoreOp::create(builder, loc, value, pointer);
  }
  Value castTo(Location loc, Type type, Value value) {
    return UnrealizedConversionCastOp::create(builder, loc, type, value)
        .getResult(0);
  }
  /// `value` (a program value) in its storage form.
  Value toStorage(Location loc, Value value) {
    Type type = value.getType();
    if (auto memref = dyn_cast<MemRefType>(type))
      return castTo(loc, descriptorType(memref), value);
    if (isa<IndexType>(type))
      return arith::IndexCastOp::create(builder, loc, i64, value);
    return value;
  }
  /// A program value of `type` from its storage form.
  Value fromStorage(Location loc, Type type, Value stored) {
    if (isa<MemRefType>(type))
      return castTo(loc, stripMemorySpace(type), stored);
    if (isa<IndexType>(type))
      return arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                        stored);
    return stored;
  }
  /// Stores `value` on the stack and returns its address.
  Value spill(Location loc, Value value) {
    Value stored = toStorage(loc, value);
    Value slot = stackSlot(loc, stored.getType());
    store(loc, stored, slot);
    return slot;
  }
  Value loadValue(Location loc, Type type, Value pointer) {
    return fromStorage(loc, type, load(loc, storageType(type), pointer));
  }

  /// A private declaration of runtime function `name`.
  func::FuncOp runtimeFunction(StringRef name, TypeRange arguments,
                               TypeRange results) {
    if (auto existing = module.lookupSymbol<func::FuncOp>(name))
      return existing;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(module.getBody());
    auto function = func::FuncOp::create(
        builder, module.getLoc(), name,
        FunctionType::get(ctx, arguments, results));
    function.setPrivate();
    return function;
  }
  Value callRuntime(Location loc, StringRef name, ValueRange arguments) {
    func::FuncOp function =
        runtimeFunction(name, TypeRange(arguments), TypeRange{i32});
    return func::CallOp::create(builder, loc, function, arguments)
        .getResult(0);
  }
  /// Returns the status from the enclosing function unless it is success.
  void checkStatus(Location loc, Value status) {
    Block *current = builder.getInsertionBlock();
    Region *region = current->getParent();
    Block *failed = new Block();
    Block *next = new Block();
    region->push_back(failed);
    region->push_back(next);
    Value zero = constI32(loc, 0);
    Value bad = LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::ne,
                                     status, zero);
    cf::CondBranchOp::create(builder, loc, bad, failed, next);
    builder.setInsertionPointToEnd(failed);
    func::ReturnOp::create(builder, loc, status);
    builder.setInsertionPointToEnd(next);
  }
  void callChecked(Location loc, StringRef name, ValueRange arguments) {
    checkStatus(loc, callRuntime(loc, name, arguments));
  }

  /// The address of a NUL-terminated constant string.
  Value stringAddress(Location loc, StringRef value) {
    std::string name =
        "gp_str_" + llvm::utohexstr(llvm::hash_value(value), true);
    auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
    if (!global) {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(module.getBody());
      std::string text = value.str();
      text.push_back('\0');
      auto type = LLVM::LLVMArrayType::get(i8, text.size());
      global = LLVM::GlobalOp::create(builder, loc, type, /*isConstant=*/true,
                                      LLVM::Linkage::Internal, name,
                                      builder.getStringAttr(text));
    }
    return LLVM::AddressOfOp::create(builder, loc, global);
  }
  /// The address of function `function`.
  Value functionAddress(Location loc, func::FuncOp function) {
    Value constant = func::ConstantOp::create(
        builder, loc, function.getFunctionType(),
        SymbolRefAttr::get(function));
    return castTo(loc, ptrType, constant);
  }

  //===--- Descriptors --------------------------------------------------===//

  /// A descriptor of `type` (identity layout) over memory at `data`.
  Value makeBuffer(Location loc, MemRefType type, Value data,
                   ValueRange dynamicSizes) {
    Type structType = descriptorType(type);
    Value desc = LLVM::UndefOp::create(builder, loc, structType);
    desc = LLVM::InsertValueOp::create(builder, loc, desc, data, ArrayRef<int64_t>{0});
    desc = LLVM::InsertValueOp::create(builder, loc, desc, data, ArrayRef<int64_t>{1});
    desc = LLVM::InsertValueOp::create(builder, loc, desc, constI64(loc, 0), ArrayRef<int64_t>{2});
    SmallVector<Value> sizes;
    unsigned dynamic = 0;
    for (int64_t dim : type.getShape())
      sizes.push_back(ShapedType::isDynamic(dim)
                          ? arith::IndexCastOp::create(
                                builder, loc, i64, dynamicSizes[dynamic++])
                                .getResult()
                          : constI64(loc, dim));
    Value stride = constI64(loc, 1);
    for (int64_t i = type.getRank() - 1; i >= 0; --i) {
      desc = LLVM::InsertValueOp::create(builder, loc, desc, sizes[i],
                                         ArrayRef<int64_t>{3, i});
      desc = LLVM::InsertValueOp::create(builder, loc, desc, stride,
                                         ArrayRef<int64_t>{4, i});
      stride = LLVM::MulOp::create(builder, loc, stride, sizes[i]);
    }
    return castTo(loc, stripMemorySpace(type), desc);
  }
  /// The descriptor's first element (aligned pointer plus offset), in bytes.
  Value elementPointer(Location loc, Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    Value desc = castTo(loc, descriptorType(type), buffer);
    Value aligned = LLVM::ExtractValueOp::create(builder, loc, desc, ArrayRef<int64_t>{1});
    Value offset = LLVM::ExtractValueOp::create(builder, loc, desc, ArrayRef<int64_t>{2});
    Value bytes = LLVM::MulOp::create(
        builder, loc, offset, constI64(loc, elementBytes(type)));
    return gepDynamic(loc, i8, aligned, bytes);
  }
  /// Number of elements of `buffer` as an i64.
  Value elementCount(Location loc, Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    Value desc = castTo(loc, descriptorType(type), buffer);
    Value count = constI64(loc, 1);
    for (int64_t i = 0; i < type.getRank(); ++i)
      count = LLVM::MulOp::create(
          builder, loc, count,
          LLVM::ExtractValueOp::create(builder, loc, desc,
                                       ArrayRef<int64_t>{3, i}));
    return count;
  }
  Value byteSize(Location loc, Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    return LLVM::MulOp::create(builder, loc, elementCount(loc, buffer),
                               constI64(loc, elementBytes(type)));
  }

  //===--- Lowering -----------------------------------------------------===//

  LogicalResult lowerFunction(func::FuncOp function);
  LogicalResult lowerTopLevelOp(Operation *op, IRMapping &mapping,
                                Value program, Value deviceArena);
  LogicalResult lowerPartition(PartitionOp partition, IRMapping &mapping,
                               Value program, Value deviceArena,
                               Value hostArena);
  LogicalResult lowerBodyOp(Operation *op, IRMapping &mapping,
                            BodyState &state);
  LogicalResult lowerHostKernel(KernelOp kernel, IRMapping &mapping,
                                BodyState &state);
  LogicalResult lowerCudaLaunch(gpu::LaunchFuncOp launch, IRMapping &mapping,
                                BodyState &state);
  LogicalResult lowerFallback(FallbackOp fallback, IRMapping &mapping,
                              BodyState &state);
  LogicalResult lowerSymbolicSize(Operation *op, IRMapping &mapping);
  LogicalResult embedBinaries();
  void emitManifest();
  void stripMemorySpaces();
  std::string describe(Type type);
};

} // namespace

std::string Lowering::describe(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto memref = dyn_cast<MemRefType>(type)) {
    os << "memref ";
    memref.getElementType().print(os);
    os << " " << memref.getRank();
    for (int64_t dim : memref.getShape())
      os << " " << (ShapedType::isDynamic(dim) ? std::string("?")
                                               : std::to_string(dim));
    DeviceAttr device = getDevice(memref);
    os << " " << (device ? device.str() : std::string("cuda:0"));
    return text;
  }
  if (isa<IndexType>(type))
    return "index";
  os << "scalar ";
  type.print(os);
  return text;
}

LogicalResult Lowering::lowerSymbolicSize(Operation *op, IRMapping &mapping) {
  Location loc = op->getLoc();
  if (auto symint = dyn_cast<SymIntOp>(op)) {
    mapping.map(symint.getResult(), mapping.lookup(symint.getValue()));
    return success();
  }
  if (auto dim = dyn_cast<SymIntDimOp>(op)) {
    Value source = mapping.lookup(dim.getSource());
    Value size = memref::DimOp::create(builder, loc, source, dim.getDim());
    mapping.map(dim.getResult(), size);
    return success();
  }
  return failure();
}

LogicalResult Lowering::lowerTopLevelOp(Operation *op, IRMapping &mapping,
                                        Value program, Value deviceArena) {
  Location loc = op->getLoc();
  if (succeeded(lowerSymbolicSize(op, mapping)))
    return success();
  if (auto state = dyn_cast<RngStateOp>(op)) {
    auto found = generators.find(state.getGenerator());
    if (found == generators.end())
      return op->emitError("unknown RNG generator @") << state.getGenerator();
    // The state's slot: 16 bytes of the function's device arena, past the
    // planned buffers (reserved in lowerFunction).
    int64_t slotOffset =
        state->getAttrOfType<IntegerAttr>("gp.rng_slot").getInt();
    Value slot = gep(loc, i8, deviceArena, slotOffset);
    bool backward = state.getRole() == RngRole::backward;
    callChecked(loc, "gpRtRngState",
                {program, constI32(loc, found->second),
                 constI32(loc, backward ? 1 : 0), slot});
    mapping.map(state.getState(), slot);
    return success();
  }
  if (isa<arith::ConstantOp>(op)) {
    builder.clone(*op, mapping);
    return success();
  }
  return op->emitError("cannot lower '")
         << op->getName() << "' outside a partition (run gp-pipeline first)";
}

LogicalResult Lowering::lowerFunction(func::FuncOp function) {
  Location loc = function.getLoc();
  functionName = function.getSymName().str();
  FunctionType type = function.getFunctionType();

  // This function's share of the program's arenas; RNG state slots follow
  // its planned device buffers.
  int64_t deviceBytes = 0, hostBytes = 0;
  if (auto arenas = function->getAttrOfType<ArrayAttr>("gp.arenas"))
    for (Attribute attr : arenas)
      if (auto arena = dyn_cast<ArenaAttr>(attr)) {
        if (arena.getDevice().isCpu())
          hostBytes = std::max(hostBytes, arena.getSize());
        else if (!arena.getDevice().isMeta())
          deviceBytes = std::max(deviceBytes, arena.getSize());
      }
  function.walk([&](RngStateOp state) {
    deviceBytes = (deviceBytes + 15) / 16 * 16;
    state->setAttr("gp.rng_slot", builder.getI64IntegerAttr(deviceBytes));
    deviceBytes += 16;
  });
  deviceArenaBase = deviceArenaBytes;
  hostArenaBase = hostArenaBytes;
  deviceArenaBytes += (deviceBytes + 255) / 256 * 256;
  hostArenaBytes += (hostBytes + 255) / 256 * 256;

  // The entry point.
  builder.setInsertionPointToEnd(module.getBody());
  auto entry = func::FuncOp::create(
      builder, loc, "gp_entry_" + functionName,
      FunctionType::get(ctx, {ptrType, ptrType, ptrType}, {i32}));
  Block *block = entry.addEntryBlock();
  builder.setInsertionPointToEnd(block);
  Value program = block->getArgument(0);
  Value args = block->getArgument(1);
  Value results = block->getArgument(2);

  std::string signature = "entry " + functionName + " " +
                          std::to_string(type.getNumInputs()) + " " +
                          std::to_string(type.getNumResults()) + "\n";
  IRMapping mapping;
  for (auto [index, argument] : llvm::enumerate(function.getArguments())) {
    if (!isa<MemRefType, IndexType>(argument.getType()))
      return function.emitError("argument ")
             << index << " has type " << argument.getType()
             << "; entry points take buffers and index values";
    Value pointer = load(loc, ptrType, gep(loc, ptrType, args, index));
    mapping.map(argument, loadValue(loc, argument.getType(), pointer));
    signature += "arg " + describe(argument.getType()) + "\n";
  }
  for (Type result : type.getResults()) {
    if (!isa<MemRefType, IndexType>(result))
      return function.emitError("result type ")
             << result << " is not a buffer or an index";
    signature += "result " + describe(result) + "\n";
  }
  entriesManifest += signature;

  Value deviceArena, hostArena;
  {
    Value slot = stackSlot(loc, ptrType);
    callChecked(loc, "gpRtProgramArena", {program, slot});
    deviceArena = gep(loc, i8, load(loc, ptrType, slot), deviceArenaBase);
    callChecked(loc, "gpRtProgramHostArena", {program, slot});
    hostArena = gep(loc, i8, load(loc, ptrType, slot), hostArenaBase);
  }

  for (Operation &op : function.getBody().front()) {
    if (auto partition = dyn_cast<PartitionOp>(op)) {
      if (failed(lowerPartition(partition, mapping, program, deviceArena,
                                hostArena)))
        return failure();
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
        Value pointer = load(loc, ptrType, gep(loc, ptrType, results, index));
        store(loc, toStorage(loc, mapping.lookup(value)), pointer);
      }
      func::ReturnOp::create(builder, loc, constI32(loc, 0));
      continue;
    }
    if (failed(lowerTopLevelOp(&op, mapping, program, deviceArena)))
      return failure();
  }
  return success();
}

LogicalResult Lowering::lowerPartition(PartitionOp partition,
                                       IRMapping &mapping, Value program,
                                       Value deviceArena, Value hostArena) {
  Location loc = partition.getLoc();
  int64_t globalId = partitions.size();
  Block &body = partition.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());

  // Result block: one storage slot per result.
  SmallVector<Type> resultStorage;
  for (Type type : partition.getResultTypes())
    resultStorage.push_back(storageType(type));
  auto resultStruct = LLVM::LLVMStructType::getLiteral(ctx, resultStorage);
  int64_t resultBytes = 0;
  for (Type type : partition.getResultTypes())
    resultBytes += storageBytes(type);

  // The outlined body.
  std::string bodyName = "gp_partition_" + functionName + "_" +
                         std::to_string(partition.getPartitionId());
  func::FuncOp bodyFunction;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(module.getBody());
    bodyFunction = func::FuncOp::create(
        builder, loc, bodyName,
        FunctionType::get(ctx, {ptrType, ptrType}, {i32}));
    bodyFunction.setPrivate();
    Block *entry = bodyFunction.addEntryBlock();
    builder.setInsertionPointToEnd(entry);
    Value stream = entry->getArgument(0);
    Value context = entry->getArgument(1);
    auto slot = [&](int64_t index) {
      return load(loc, ptrType, gep(loc, ptrType, context, index));
    };
    BodyState state{stream, slot(kContextProgram), slot(kContextDeviceArena),
                    slot(kContextHostArena), bodyFunction};
    Value resultsBlock = slot(kContextResults);
    IRMapping bodyMapping;
    for (auto [index, argument] : llvm::enumerate(body.getArguments()))
      bodyMapping.map(argument,
                      loadValue(loc, argument.getType(),
                                slot(kContextFirstInput + index)));
    for (Operation &op : body.without_terminator())
      if (failed(lowerBodyOp(&op, bodyMapping, state)))
        return failure();
    for (auto [index, value] : llvm::enumerate(yield.getValues())) {
      Value field = LLVM::GEPOp::create(
          builder, loc, ptrType, resultStruct, resultsBlock,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(index)});
      store(loc, toStorage(loc, bodyMapping.lookup(value)), field);
    }
    func::ReturnOp::create(builder, loc, constI32(loc, 0));
  }

  // The call in the entry point.
  int64_t numInputs = partition.getInputs().size();
  Value context = stackSlot(loc, ptrType, kContextFirstInput + numInputs);
  Value resultsBlock = stackSlot(loc, resultStruct);
  store(loc, program, gep(loc, ptrType, context, kContextProgram));
  store(loc, deviceArena, gep(loc, ptrType, context, kContextDeviceArena));
  store(loc, hostArena, gep(loc, ptrType, context, kContextHostArena));
  store(loc, resultsBlock, gep(loc, ptrType, context, kContextResults));
  SmallVector<Value> shapeKey, inputAddresses;
  for (auto [index, input] : llvm::enumerate(partition.getInputs())) {
    Value value = mapping.lookup(input);
    store(loc, spill(loc, value),
          gep(loc, ptrType, context, kContextFirstInput + index));
    if (isa<IndexType>(input.getType()))
      shapeKey.push_back(toStorage(loc, value));
    else if (isa<MemRefType>(input.getType()))
      inputAddresses.push_back(elementPointer(loc, value));
  }
  Value key = stackSlot(loc, i64, std::max<size_t>(1, shapeKey.size()));
  for (auto [index, value] : llvm::enumerate(shapeKey))
    store(loc, value, gep(loc, i64, key, index));
  Value addresses =
      stackSlot(loc, ptrType, std::max<size_t>(1, inputAddresses.size()));
  for (auto [index, value] : llvm::enumerate(inputAddresses))
    store(loc, value, gep(loc, ptrType, addresses, index));
  callChecked(loc, "gpRtRunPartitionWithResults",
              {program, constI32(loc, globalId), key,
               functionAddress(loc, bodyFunction), context, resultsBlock,
               constI64(loc, resultBytes), addresses,
               constI32(loc, inputAddresses.size())});
  for (auto [index, result] : llvm::enumerate(partition.getResults())) {
    Value field = LLVM::GEPOp::create(
        builder, loc, ptrType, resultStruct, resultsBlock,
        ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(index)});
    mapping.map(result, loadValue(loc, result.getType(), field));
  }

  std::string reasons;
  for (Attribute reason : partition.getReasons())
    reasons += (reasons.empty() ? "" : ", ") +
               cast<StringAttr>(reason).getValue().str();
  partitions.push_back({partition.getKind() == PartitionKind::capturable,
                        static_cast<int64_t>(shapeKey.size()), reasons});
  return success();
}

LogicalResult Lowering::lowerBodyOp(Operation *op, IRMapping &mapping,
                                    BodyState &state) {
  Location loc = op->getLoc();
  if (succeeded(lowerSymbolicSize(op, mapping)))
    return success();
  if (auto alloc = dyn_cast<BufferAllocOp>(op)) {
    auto type = alloc.getType();
    SmallVector<Value> sizes;
    for (Value size : alloc.getDynamicSizes())
      sizes.push_back(mapping.lookup(size));
    Value data;
    if (std::optional<uint64_t> offset = alloc.getOffset()) {
      Value arena = onHost(type) ? state.hostArena : state.deviceArena;
      data = gep(loc, i8, arena, *offset);
    } else {
      if (onHost(type) && cudaTarget)
        return op->emitError("a cpu buffer without a planned offset cannot "
                             "be placed on the cuda backend");
      Value bytes = constI64(loc, elementBytes(type));
      unsigned dynamic = 0;
      for (int64_t dim : type.getShape())
        bytes = LLVM::MulOp::create(
            builder, loc, bytes,
            ShapedType::isDynamic(dim)
                ? arith::IndexCastOp::create(builder, loc, i64,
                                             sizes[dynamic++])
                      .getResult()
                : constI64(loc, dim));
      Value slot = stackSlot(loc, ptrType);
      callChecked(loc, "gpRtAllocate", {state.stream, bytes, slot});
      data = load(loc, ptrType, slot);
    }
    mapping.map(alloc.getResult(), makeBuffer(loc, type, data, sizes));
    return success();
  }
  if (isa<BufferDeallocOp>(op))
    return success(); // Arena slots and run memory are the runtime's.
  if (auto reuse = dyn_cast<BufferReuseOp>(op)) {
    Value source = mapping.lookup(reuse.getSource());
    mapping.map(reuse.getResult(),
                makeBuffer(loc, reuse.getType(), elementPointer(loc, source),
                           {}));
    return success();
  }
  if (auto reshape = dyn_cast<BufferReshapeOp>(op)) {
    Value source = mapping.lookup(reshape.getSource());
    SmallVector<Value> sizes;
    for (Value size : reshape.getDynamicSizes())
      sizes.push_back(mapping.lookup(size));
    mapping.map(reshape.getResult(),
                makeBuffer(loc, cast<MemRefType>(reshape.getType()),
                           elementPointer(loc, source), sizes));
    return success();
  }
  if (auto bitcast = dyn_cast<BufferBitcastOp>(op)) {
    Value source = mapping.lookup(bitcast.getSource());
    auto type = cast<MemRefType>(bitcast.getType());
    if (!type.hasStaticShape())
      return op->emitError("a bitcast to a dynamic shape cannot be lowered");
    mapping.map(bitcast.getResult(),
                makeBuffer(loc, type, elementPointer(loc, source), {}));
    return success();
  }
  if (auto slice = dyn_cast<BufferSliceOp>(op)) {
    auto lookup = [&](ValueRange values) {
      SmallVector<Value> mapped;
      for (Value value : values)
        mapped.push_back(mapping.lookup(value));
      return mapped;
    };
    Value view = memref::SubViewOp::create(
        builder, loc, cast<MemRefType>(stripMemorySpace(slice.getType())),
        mapping.lookup(slice.getSource()), lookup(slice.getOffsets()),
        lookup(slice.getSizes()), lookup(slice.getStrides()),
        slice.getStaticOffsets(), slice.getStaticSizes(),
        slice.getStaticStrides());
    mapping.map(slice.getResult(), view);
    return success();
  }
  if (auto kernel = dyn_cast<KernelOp>(op))
    return lowerHostKernel(kernel, mapping, state);
  if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
    return lowerCudaLaunch(launch, mapping, state);
  if (auto fallback = dyn_cast<FallbackOp>(op))
    return lowerFallback(fallback, mapping, state);
  if (auto slot = dyn_cast<RngSlotOp>(op)) {
    // The state arrives as the address of its slot (gpRtRngState wrote it).
    mapping.map(slot.getSlot(), makeBuffer(loc, slot.getSlot().getType(),
                                           mapping.lookup(slot.getState()), {}));
    return success();
  }
  if (isa<RngFillOp>(op))
    return op->emitError("RNG fills reach the runtime lowering as kernels: "
                         "run gp-expand-rng-fills first");
  if (auto copy = dyn_cast<CopyOp>(op)) {
    Value source = mapping.lookup(copy.getSource());
    Value target = mapping.lookup(copy.getTarget());
    for (Value buffer : {source, target}) {
      auto type = cast<MemRefType>(buffer.getType());
      if (!type.getLayout().isIdentity())
        return op->emitError("copies of non-contiguous views are not "
                             "supported yet; copy through a contiguous "
                             "buffer");
    }
    bool fromHost = onHost(copy.getSource().getType());
    bool toHost = onHost(copy.getTarget().getType());
    int32_t kind = fromHost ? (toHost ? kHostToHost : kHostToProgram)
                            : (toHost ? kProgramToHost : kProgramToProgram);
    callChecked(loc, "gpRtCopy",
                {state.stream, elementPointer(loc, target),
                 elementPointer(loc, source), byteSize(loc, source),
                 constI32(loc, kind)});
    return success();
  }
  if (isa<ItemOp, SymIntUnbackedOp>(op)) {
    Value source = mapping.lookup(op->getOperand(0));
    auto type = cast<MemRefType>(source.getType());
    Type element = type.getElementType();
    Type stored = isa<IndexType>(element) ? i64 : converter.convertType(element);
    Value slot = stackSlot(loc, stored);
    int32_t kind = onHost(op->getOperand(0).getType()) ? kHostToHost
                                                       : kProgramToHost;
    callChecked(loc, "gpRtCopy",
                {state.stream, slot, elementPointer(loc, source),
                 constI64(loc, elementBytes(type)),
                 constI32(loc, kind)});
    Value value = load(loc, stored, slot);
    Type resultType = op->getResult(0).getType();
    if (isa<IndexType>(resultType)) {
      if (!isa<IntegerType, IndexType>(element))
        return op->emitError("a size must be read from an integer buffer");
      if (stored != i64)
        value = LLVM::SExtOp::create(builder, loc, i64, value);
      value = arith::IndexCastOp::create(builder, loc, resultType, value);
    } else if (resultType != stored) {
      return op->emitError("reads ")
             << element << " into " << resultType << ", which is not supported";
    }
    mapping.map(op->getResult(0), value);
    return success();
  }
  // Host-side arithmetic (launch configurations from convert-gp-to-gpu).
  if (op->getNumRegions() == 0 &&
      (op->hasTrait<OpTrait::ConstantLike>() ||
       isa<arith::ArithDialect, affine::AffineDialect>(op->getDialect()) ||
       isa<memref::DimOp>(op))) {
    builder.clone(*op, mapping);
    return success();
  }
  if (isa<memref::MemorySpaceCastOp>(op)) {
    // convert-gp-to-gpu's cast to the default memory space: a no-op here.
    mapping.map(op->getResult(0), mapping.lookup(op->getOperand(0)));
    return success();
  }
  return op->emitError("cannot lower '") << op->getName()
                                         << "' inside a partition";
}

LogicalResult Lowering::lowerHostKernel(KernelOp kernel, IRMapping &mapping,
                                        BodyState &state) {
  Location loc = kernel.getLoc();
  if (cudaTarget && !onHost(kernel.getOutputs().empty()
                                ? Type()
                                : kernel.getOutputs().front().getType())) {
    DeviceAttr device = kernel.getDevice();
    if (device && device.isCuda())
      return kernel.emitError("a cuda kernel reached the runtime lowering: run "
                              "convert-gp-to-gpu and compile the kernels first");
  }
  std::string name = "gp_kernel_" + kernel.getKernelName().str() + "_" +
                     std::to_string(uniqueCounter++);
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_')
      c = '_';
  Block &body = kernel.getBody().front();

  // The kernel as a function over plain memrefs, and its packed form
  // `void name_packed(void **params)` that the runtime calls.
  SmallVector<Type> argumentTypes;
  for (BlockArgument argument : body.getArguments())
    argumentTypes.push_back(stripMemorySpace(argument.getType()));
  func::FuncOp function, packed;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(module.getBody());
    function = func::FuncOp::create(builder, loc, name,
                                    FunctionType::get(ctx, argumentTypes, {}));
    function.setPrivate();
    Block *entry = function.addEntryBlock();
    IRMapping bodyMapping;
    bodyMapping.map(body.getArguments(), entry->getArguments());
    builder.setInsertionPointToEnd(entry);
    for (Operation &op : body.without_terminator())
      builder.clone(op, bodyMapping);
    func::ReturnOp::create(builder, loc);

    builder.setInsertionPointToEnd(module.getBody());
    packed = func::FuncOp::create(builder, loc, name + "_packed",
                                  FunctionType::get(ctx, {ptrType}, {}));
    packed.setPrivate();
    Block *packedEntry = packed.addEntryBlock();
    builder.setInsertionPointToEnd(packedEntry);
    SmallVector<Value> values;
    for (auto [index, type] : llvm::enumerate(argumentTypes)) {
      Value pointer = load(loc, ptrType,
                           gep(loc, ptrType, packedEntry->getArgument(0), index));
      values.push_back(loadValue(loc, type, pointer));
    }
    func::CallOp::create(builder, loc, function, values);
    func::ReturnOp::create(builder, loc);
  }

  // The launch.
  SmallVector<Value> operands;
  for (Value operand : kernel->getOperands())
    operands.push_back(mapping.lookup(operand));
  int64_t count = operands.size();
  Value params = stackSlot(loc, ptrType, std::max<int64_t>(1, count));
  Value sizes = stackSlot(loc, i64, std::max<int64_t>(1, count));
  for (auto [index, value] : llvm::enumerate(operands)) {
    store(loc, spill(loc, value), gep(loc, ptrType, params, index));
    store(loc, constI64(loc, storageBytes(value.getType())),
          gep(loc, i64, sizes, index));
  }
  callChecked(loc, "gpRtLaunchHostKernel",
              {state.stream, functionAddress(loc, packed), params, sizes,
               constI32(loc, count)});
  return success();
}

LogicalResult Lowering::lowerCudaLaunch(gpu::LaunchFuncOp launch,
                                        IRMapping &mapping,
                                        BodyState &state) {
  Location loc = launch.getLoc();
  if (!cudaTarget)
    return launch.emitError("gpu.launch_func needs target=cuda");
  auto binary = module.lookupSymbol<gpu::BinaryOp>(
      launch.getKernelModuleName());
  if (!binary)
    return launch.emitError("no compiled kernels (gpu.binary @")
           << launch.getKernelModuleName()
           << "): run gpu-module-to-binary before convert-gp-to-runtime";
  std::string imageName = ("gp_image_" + launch.getKernelModuleName().str());
  auto image = module.lookupSymbol<LLVM::GlobalOp>(imageName);
  if (!image) {
    auto object = dyn_cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    if (!object || object.getFormat() != gpu::CompilationTarget::Binary)
      return binary.emitError("expects one cubin object (format=bin)");
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    StringRef bytes = object.getObject().getValue();
    image = LLVM::GlobalOp::create(
        builder, loc, LLVM::LLVMArrayType::get(i8, bytes.size()),
        /*isConstant=*/true, LLVM::Linkage::Internal, imageName,
        builder.getStringAttr(bytes), /*alignment=*/64);
  }
  Value function = stackSlot(loc, ptrType);
  callChecked(loc, "gpRtCudaGetKernel",
              {state.program, LLVM::AddressOfOp::create(builder, loc, image),
               stringAddress(loc, launch.getKernelName().getValue()),
               function});

  // Parameters: a memref expands to its descriptor's fields, as upstream
  // lowers gpu.func arguments.
  SmallVector<Value> fields;
  for (Value operand : launch.getKernelOperands()) {
    Value value = mapping.lookup(operand);
    if (auto type = dyn_cast<MemRefType>(value.getType())) {
      Value desc = castTo(loc, descriptorType(type), value);
      fields.push_back(LLVM::ExtractValueOp::create(builder, loc, desc, ArrayRef<int64_t>{0}));
      fields.push_back(LLVM::ExtractValueOp::create(builder, loc, desc, ArrayRef<int64_t>{1}));
      fields.push_back(LLVM::ExtractValueOp::create(builder, loc, desc, ArrayRef<int64_t>{2}));
      for (int64_t part : {3, 4})
        for (int64_t i = 0; i < type.getRank(); ++i)
          fields.push_back(LLVM::ExtractValueOp::create(
              builder, loc, desc, ArrayRef<int64_t>{part, i}));
      continue;
    }
    fields.push_back(toStorage(loc, value));
  }
  Value params = stackSlot(loc, ptrType, std::max<size_t>(1, fields.size()));
  for (auto [index, field] : llvm::enumerate(fields)) {
    Value slot = stackSlot(loc, field.getType());
    store(loc, field, slot);
    store(loc, slot, gep(loc, ptrType, params, index));
  }
  auto dims = [&](gpu::KernelDim3 dim) {
    Value array = stackSlot(loc, i32, 3);
    Value sizes[] = {dim.x, dim.y, dim.z};
    for (auto [index, size] : llvm::enumerate(sizes)) {
      Value value = arith::IndexCastOp::create(builder, loc, i64,
                                               mapping.lookup(size));
      store(loc, LLVM::TruncOp::create(builder, loc, i32, value),
            gep(loc, i32, array, index));
    }
    return array;
  };
  Value grid = dims(launch.getGridSizeOperandValues());
  Value block = dims(launch.getBlockSizeOperandValues());
  Value shared = launch.getDynamicSharedMemorySize()
                     ? LLVM::TruncOp::create(
                           builder, loc, i32,
                           arith::IndexCastOp::create(
                               builder, loc, i64,
                               mapping.lookup(
                                   launch.getDynamicSharedMemorySize())))
                           .getResult()
                     : constI32(loc, 0);
  callChecked(loc, "gpRtLaunchCudaKernel",
              {state.stream, load(loc, ptrType, function), grid, block, shared,
               params});
  return success();
}

LogicalResult Lowering::lowerFallback(FallbackOp fallback, IRMapping &mapping,
                                      BodyState &state) {
  Location loc = fallback.getLoc();
  SmallVector<Value> slots;
  SmallVector<int64_t> sizes;
  for (Value operand : fallback.getArgs()) {
    Value value = mapping.lookup(operand);
    if (!isa<MemRefType, IndexType, IntegerType, FloatType>(value.getType()))
      return fallback.emitError("cannot pass a value of type ")
             << value.getType() << " to an extern";
    slots.push_back(spill(loc, value));
    sizes.push_back(storageBytes(value.getType()));
  }
  // Results: allocated here when their shape is static (aliasing results
  // start as the operand they alias); otherwise the extern fills them in.
  SmallVector<Value> resultSlots;
  for (auto [index, result] : llvm::enumerate(fallback.getResults())) {
    auto type = dyn_cast<MemRefType>(result.getType());
    if (!type)
      return fallback.emitError("extern results must be buffers");
    Type structType = descriptorType(type);
    Value slot = stackSlot(loc, structType);
    std::optional<unsigned> aliased = fallback.getAliasedOperand(index);
    if (aliased && fallback.getArgs()[*aliased].getType() == type) {
      store(loc, toStorage(loc, mapping.lookup(fallback.getArgs()[*aliased])),
            slot);
    } else if (type.hasStaticShape()) {
      Value bytes = constI64(loc, getStaticByteSize(type).value_or(0));
      Value data = stackSlot(loc, ptrType);
      if (onHost(type))
        return fallback.emitError("extern results on the cpu device need a "
                                  "planned buffer");
      callChecked(loc, "gpRtAllocate", {state.stream, bytes, data});
      store(loc,
            toStorage(loc, makeBuffer(loc, type, load(loc, ptrType, data), {})),
            slot);
    } else {
      Value desc = LLVM::ZeroOp::create(builder, loc, structType);
      store(loc, desc, slot);
    }
    resultSlots.push_back(slot);
    slots.push_back(slot);
    sizes.push_back(storageBytes(type));
  }
  int64_t count = slots.size();
  Value args = stackSlot(loc, ptrType, std::max<int64_t>(1, count));
  Value argSizes = stackSlot(loc, i64, std::max<int64_t>(1, count));
  for (int64_t i = 0; i < count; ++i) {
    store(loc, slots[i], gep(loc, ptrType, args, i));
    store(loc, constI64(loc, sizes[i]), gep(loc, i64, argSizes, i));
  }
  callChecked(loc, "gpRtCallExtern",
              {state.stream, stringAddress(loc, fallback.getCallee()), args,
               argSizes, constI32(loc, count)});
  for (auto [result, slot] : llvm::zip(fallback.getResults(), resultSlots))
    mapping.map(result, loadValue(loc, result.getType(), slot));
  return success();
}

void Lowering::emitManifest() {
  std::string text = "graphpart-artifact 1\n";
  text += std::string("target ") + (cudaTarget ? "cuda" : "host") + "\n";
  text += "arena " + std::to_string(deviceArenaBytes) + "\n";
  text += "host-arena " + std::to_string(hostArenaBytes) + "\n";
  text += "generators " + std::to_string(generators.size()) + "\n";
  text += "seed " + std::to_string(programSeed) + "\n";
  text += "device " + std::to_string(cudaDevice.value_or(0)) + "\n";
  text += "warmup-runs " + std::to_string(policy.warmupRuns) + "\n";
  text += "capture-sizes " +
          (policy.captureSizes.empty() ? std::string("-")
                                       : policy.captureSizes) +
          "\n";
  text += "shape-warning-limit " + std::to_string(policy.shapeWarningLimit) +
          "\n";
  text += std::string("or-error ") + (policy.orError ? "1" : "0") + "\n";
  for (auto [index, partition] : llvm::enumerate(partitions))
    text += "partition " + std::to_string(index) + " " +
            (partition.capturable ? "capturable" : "eager") + " " +
            std::to_string(partition.numShapeSymbols) + " " +
            (partition.reasons.empty() ? "-" : partition.reasons) + "\n";
  text += entriesManifest;
  builder.setInsertionPointToStart(module.getBody());
  text.push_back('\0');
  LLVM::GlobalOp::create(builder, module.getLoc(),
                         LLVM::LLVMArrayType::get(i8, text.size()),
                         /*isConstant=*/true, LLVM::Linkage::External,
                         "gp_manifest", builder.getStringAttr(text));
}

void Lowering::stripMemorySpaces() {
  // Kernel functions keep the types they were cloned with; give every value
  // and function signature its memory-space-free type.
  module.walk([&](Operation *op) {
    for (Value result : op->getResults())
      result.setType(stripMemorySpace(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          argument.setType(stripMemorySpace(argument.getType()));
    if (auto function = dyn_cast<func::FuncOp>(op)) {
      FunctionType type = function.getFunctionType();
      SmallVector<Type> inputs, results;
      for (Type t : type.getInputs())
        inputs.push_back(stripMemorySpace(t));
      for (Type t : type.getResults())
        results.push_back(stripMemorySpace(t));
      function.setFunctionType(FunctionType::get(ctx, inputs, results));
    }
  });
}

LogicalResult Lowering::run() {
  // Generators, in module order.
  for (auto generator : module.getOps<RngGeneratorOp>()) {
    int32_t index = generators.size();
    generators[generator.getSymName()] = index;
    if (std::optional<uint64_t> seed = generator.getSeed())
      programSeed = *seed;
  }
  SmallVector<func::FuncOp> functions;
  for (auto function : module.getOps<func::FuncOp>())
    if (!function.isDeclaration())
      functions.push_back(function);
  if (functions.empty())
    return module.emitError("no function to lower");
  // The device: the runtime runs a program on one GPU (gp-run --device
  // moves it to another).
  WalkResult devices = module.walk([&](Operation *op) {
    auto check = [&](Type type) {
      DeviceAttr device = getDevice(type);
      if (!device || !device.isCuda())
        return true;
      if (cudaDevice && *cudaDevice != device.getIndex()) {
        op->emitError("the program uses cuda:")
            << *cudaDevice << " and cuda:" << device.getIndex()
            << "; a program runs on one GPU";
        return false;
      }
      cudaDevice = device.getIndex();
      return true;
    };
    for (Type type : op->getResultTypes())
      if (!check(type))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          if (!check(argument.getType()))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (devices.wasInterrupted())
    return failure();
  for (func::FuncOp function : functions)
    if (failed(lowerFunction(function)))
      return failure();
  for (func::FuncOp function : functions)
    function.erase();
  for (auto generator :
       llvm::make_early_inc_range(module.getOps<RngGeneratorOp>()))
    generator.erase();
  for (auto binary : llvm::make_early_inc_range(module.getOps<gpu::BinaryOp>()))
    binary.erase();
  module->removeAttr("gpu.container_module");
  emitManifest();
  stripMemorySpaces();
  return success();
}

namespace {
struct ConvertGPToRuntimePass
    : public mlir::gp::impl::ConvertGPToRuntimePassBase<
          ConvertGPToRuntimePass> {
  using ConvertGPToRuntimePassBase::ConvertGPToRuntimePassBase;

  void runOnOperation() override {
    if (target != "host" && target != "cuda") {
      getOperation().emitError("convert-gp-to-runtime: target must be host "
                               "or cuda, not '")
          << target << "'";
      return signalPassFailure();
    }
    if (warmupRuns < 0 || shapeWarningLimit < 0) {
      getOperation().emitError("convert-gp-to-runtime: warmup-runs and "
                               "shape-warning-limit must be non-negative");
      return signalPassFailure();
    }
    // Capture sizes: sizes or size tuples (2x3), all of one length.
    if (!captureSizes.empty()) {
      size_t length = 0;
      for (StringRef entry : llvm::split(StringRef(captureSizes), ',')) {
        size_t parts = 0;
        bool valid = !entry.empty();
        for (StringRef part : llvm::split(entry, 'x')) {
          uint64_t value;
          valid &= !part.getAsInteger(10, value);
          ++parts;
        }
        if (!valid || (length && parts != length)) {
          getOperation().emitError("convert-gp-to-runtime: capture-sizes '")
              << captureSizes
              << "' is not a list of sizes or size tuples of one length "
                 "(1,2,4 or 2x3,4x5)";
          return signalPassFailure();
        }
        length = parts;
      }
    }
    PolicyDefaults policy{warmupRuns, captureSizes, shapeWarningLimit,
                          orError};
    Lowering lowering(getOperation(), target == "cuda", policy);
    if (failed(lowering.run()))
      signalPassFailure();
  }
};
} // namespace
