//===- LoweringState.cpp - state shared by the GPToRuntime patterns -------===//
//
// What is known about the program before any op is lowered: its generators,
// its functions, the one cuda device it runs on and the arenas of each
// function (LoweringState.h).
//
//===----------------------------------------------------------------------===//

#include "LoweringState.h"
#include "RuntimeCallBuilder.h"

#include "GraphPart/Runtime/ManifestSchema.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::gp;
namespace manifest = ::gp::manifest;

GPToRuntimeState::GPToRuntimeState(ModuleOp module,
                                   const GPToRuntimeOptions &options)
    : module(module), options(options), llvmConverter(module.getContext()) {}

LogicalResult GPToRuntimeState::prepare() {
  // Generators, in module order.
  for (auto generator : module.getOps<RngGeneratorOp>()) {
    int32_t index = generators.size();
    generators[generator.getSymName()] = index;
    if (std::optional<uint64_t> seed = generator.getSeed())
      programSeed = *seed;
  }
  for (auto function : module.getOps<func::FuncOp>())
    if (!function.isDeclaration())
      programFunctions.insert(function);
  if (programFunctions.empty())
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

  // Arenas, before any pattern runs: the RNG slots must not change the ops
  // while they are being converted.
  Builder builder(module.getContext());
  for (auto function : module.getOps<func::FuncOp>()) {
    if (!programFunctions.contains(function))
      continue;
    int64_t deviceBytes = 0, hostBytes = 0;
    if (auto arenas = function->getAttrOfType<ArrayAttr>("gp.arenas"))
      for (Attribute attr : arenas)
        if (auto arena = dyn_cast<ArenaAttr>(attr)) {
          if (arena.getDevice().isCpu())
            hostBytes = std::max(hostBytes, arena.getSize());
          else if (!arena.getDevice().isMeta())
            deviceBytes = std::max(deviceBytes, arena.getSize());
        }
    function.walk([&](RngStateOp rngState) {
      deviceBytes = (deviceBytes + 15) / 16 * 16;
      rngState->setAttr("gp.rng_slot", builder.getI64IntegerAttr(deviceBytes));
      deviceBytes += 16;
    });
    // Scalar slots: 16 bytes each, in the arena of their device.
    function.walk([&](ScalarSlotOp slot) {
      int64_t &bytes =
          onHost(slot.getSlot().getType()) ? hostBytes : deviceBytes;
      bytes = (bytes + 15) / 16 * 16;
      slot->setAttr("gp.scalar_slot", builder.getI64IntegerAttr(bytes));
      bytes += 16;
    });
    arenaBytes[function] = {deviceBytes, hostBytes};
  }
  return success();
}

std::string GPToRuntimeState::describe(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto memref = dyn_cast<MemRefType>(type)) {
    os << manifest::kMemref << " ";
    memref.getElementType().print(os);
    os << " " << memref.getRank();
    for (int64_t dim : memref.getShape())
      os << " "
         << (ShapedType::isDynamic(dim) ? std::string(manifest::kDynamic)
                                        : std::to_string(dim));
    DeviceAttr device = getDevice(memref);
    os << " " << (device ? device.str() : std::string("cuda:0"));
    // The runtime checks that callers pass row-major buffers, unless the
    // type takes strides.
    if (!memref.getLayout().isIdentity())
      os << " " << manifest::kStrided;
    return text;
  }
  if (isa<IndexType>(type))
    return manifest::kIndex;
  os << "scalar ";
  type.print(os);
  return text;
}

LaunchArea &GPToRuntimeState::launchArea(OpBuilder &builder,
                                         func::FuncOp function) {
  LaunchArea &area = launchAreas[function];
  if (area.slots)
    return area;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&function.getBody().front());
  Location loc = function.getLoc();
  MLIRContext *ctx = function.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  // Sized 1 for now: sizeLaunchAreas sets the counts.
  auto allocate = [&](Type element, Operation *&count) {
    count = LLVM::ConstantOp::create(builder, loc, i64,
                                     builder.getI64IntegerAttr(1));
    auto alloca = LLVM::AllocaOp::create(builder, loc, ptrType, element,
                                         count->getResult(0));
    alloca.setAlignment(16);
    return alloca;
  };
  area.cudaParams = allocate(ptrType, area.cudaParamsCount);
  area.hostParams = allocate(ptrType, area.hostParamsCount);
  auto slots = allocate(i64, area.slotsCount);
  area.slots = slots;
  auto one =
      LLVM::ConstantOp::create(builder, loc, i64, builder.getI64IntegerAttr(1));
  auto handle = LLVM::AllocaOp::create(builder, loc, ptrType, ptrType, one);
  area.cudaFunction = handle;
  area.prologueEnd = handle;
  return area;
}

void GPToRuntimeState::sizeLaunchAreas() {
  for (auto &[function, area] : launchAreas) {
    auto size = [](Operation *count, int64_t value) {
      auto constant = cast<LLVM::ConstantOp>(count);
      constant.setValueAttr(
          IntegerAttr::get(constant.getType(), std::max<int64_t>(1, value)));
    };
    size(area.cudaParamsCount, area.neededCudaParams);
    size(area.hostParamsCount, area.neededHostParams);
    size(area.slotsCount, area.neededSlots);
  }
}
