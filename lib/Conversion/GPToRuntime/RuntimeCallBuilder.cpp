//===- RuntimeCallBuilder.cpp - LLVM builders for the runtime lowering ----===//
//
// The builders shared by every GPToRuntime pattern (RuntimeCallBuilder.h).
//
//===----------------------------------------------------------------------===//

#include "RuntimeCallBuilder.h"

#include "GraphPart/Dialect/GP/IR/GPOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::gp;

int64_t mlir::gp::elementBytes(MemRefType type) {
  return getElementByteSize(type.getElementType()).value_or(1);
}

bool mlir::gp::onHost(Type type) {
  DeviceAttr device = getDevice(type);
  return device && device.isCpu();
}

RuntimeCallBuilder::RuntimeCallBuilder(OpBuilder &builder, ModuleOp module,
                                       const LLVMTypeConverter &converter)
    : builder(builder), module(module), converter(converter) {
  MLIRContext *ctx = module.getContext();
  ptrType = LLVM::LLVMPointerType::get(ctx);
  i32 = IntegerType::get(ctx, 32);
  i64 = IntegerType::get(ctx, 64);
  i8 = IntegerType::get(ctx, 8);
}

Value RuntimeCallBuilder::constI32(Location loc, int64_t value) {
  return LLVM::ConstantOp::create(builder, loc, i32,
                                  builder.getI32IntegerAttr(value));
}

Value RuntimeCallBuilder::constI64(Location loc, int64_t value) {
  return LLVM::ConstantOp::create(builder, loc, i64,
                                  builder.getI64IntegerAttr(value));
}

Type RuntimeCallBuilder::descriptorType(MemRefType type) {
  return converter.convertType(cast<MemRefType>(stripMemorySpace(type)));
}

Type RuntimeCallBuilder::storageType(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type))
    return descriptorType(memref);
  if (isa<IndexType>(type))
    return i64;
  if (isa<RngStateType>(type))
    return ptrType;
  return converter.convertType(type);
}

int64_t RuntimeCallBuilder::storageBytes(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type))
    return 24 + 16 * memref.getRank();
  if (type.isIntOrFloat() && !isa<IndexType>(type))
    return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  return 8;
}

Value RuntimeCallBuilder::stackSlot(Location loc, Type type, int64_t count) {
  // In the function's entry block: an alloca anywhere else is a dynamic
  // one, which takes stack on each pass and gives none back until the
  // function returns (a body with thousands of launches grew its stack by
  // each launch's parameters).
  OpBuilder::InsertionGuard guard(builder);
  Block *block = builder.getInsertionBlock();
  Operation *function = block->getParentOp();
  if (!isa<FunctionOpInterface>(function))
    function = function->getParentOfType<FunctionOpInterface>();
  if (function)
    builder.setInsertionPointToStart(&function->getRegion(0).front());
  return LLVM::AllocaOp::create(builder, loc, ptrType, type,
                                constI64(loc, count));
}

Value RuntimeCallBuilder::constantArray(Location loc, Type element,
                                        ArrayRef<int64_t> values) {
  std::string name = "gp_array_";
  llvm::raw_string_ostream stream(name);
  stream << element;
  for (int64_t value : values)
    stream << "_" << value;
  for (char &c : name)
    if (!llvm::isAlnum(c) && c != '_')
      c = '_';
  auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
  if (!global) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    auto type = LLVM::LLVMArrayType::get(element, values.size());
    auto tensorType =
        RankedTensorType::get({static_cast<int64_t>(values.size())}, element);
    SmallVector<APInt> elements;
    for (int64_t value : values)
      elements.push_back(
          APInt(element.getIntOrFloatBitWidth(), value, /*isSigned=*/true));
    global = LLVM::GlobalOp::create(
        builder, loc, type, /*isConstant=*/true, LLVM::Linkage::Internal, name,
        DenseElementsAttr::get(tensorType, elements));
  }
  return LLVM::AddressOfOp::create(builder, loc, global);
}

Value RuntimeCallBuilder::gep(Location loc, Type element, Value base,
                              int64_t index) {
  // GEP's constant indices are signed kGEPConstantBitWidth-bit (29-bit)
  // integers: larger ones (an arena offset of 256 MiB or more) would wrap,
  // so they go in as a value.
  constexpr int64_t kLargestConstant =
      (int64_t{1} << (LLVM::kGEPConstantBitWidth - 1)) - 1;
  if (index < -kLargestConstant - 1 || index > kLargestConstant)
    return gepDynamic(loc, element, base, constI64(loc, index));
  return LLVM::GEPOp::create(
      builder, loc, ptrType, element, base,
      ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
}

Value RuntimeCallBuilder::gepDynamic(Location loc, Type element, Value base,
                                     Value index) {
  return LLVM::GEPOp::create(builder, loc, ptrType, element, base,
                             ArrayRef<LLVM::GEPArg>{index});
}

Value RuntimeCallBuilder::load(Location loc, Type type, Value pointer) {
  return LLVM::LoadOp::create(builder, loc, type, pointer);
}

void RuntimeCallBuilder::store(Location loc, Value value, Value pointer) {
  LLVM::StoreOp::create(builder, loc, value, pointer);
}

Value RuntimeCallBuilder::castTo(Location loc, Type type, Value value) {
  return UnrealizedConversionCastOp::create(builder, loc, type, value)
      .getResult(0);
}

Value RuntimeCallBuilder::toStorage(Location loc, Value value) {
  Type type = value.getType();
  if (auto memref = dyn_cast<MemRefType>(type))
    return castTo(loc, descriptorType(memref), value);
  if (isa<IndexType>(type))
    return arith::IndexCastOp::create(builder, loc, i64, value);
  return value;
}

Value RuntimeCallBuilder::fromStorage(Location loc, Type type, Value stored) {
  if (isa<MemRefType>(type))
    return castTo(loc, stripMemorySpace(type), stored);
  if (isa<IndexType>(type))
    return arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                      stored);
  return stored;
}

Value RuntimeCallBuilder::spill(Location loc, Value value) {
  Value stored = toStorage(loc, value);
  Value slot = stackSlot(loc, stored.getType());
  store(loc, stored, slot);
  return slot;
}

Value RuntimeCallBuilder::loadValue(Location loc, Type type, Value pointer) {
  return fromStorage(loc, type, load(loc, storageType(type), pointer));
}

func::FuncOp RuntimeCallBuilder::runtimeFunction(StringRef name,
                                                 TypeRange arguments,
                                                 TypeRange results) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(module.getBody());
  auto function = func::FuncOp::create(
      builder, module.getLoc(), name,
      FunctionType::get(module.getContext(), arguments, results));
  function.setPrivate();
  return function;
}

Value RuntimeCallBuilder::callRuntime(Location loc, StringRef name,
                                      ValueRange arguments) {
  func::FuncOp function =
      runtimeFunction(name, TypeRange(arguments), TypeRange{i32});
  return func::CallOp::create(builder, loc, function, arguments).getResult(0);
}

void RuntimeCallBuilder::checkStatus(Location loc, Value status) {
  Block *current = builder.getInsertionBlock();
  Region *region = current->getParent();
  Block *failed, *next;
  {
    // Through the builder, so a conversion rewriter tracks the new blocks.
    OpBuilder::InsertionGuard guard(builder);
    failed = builder.createBlock(region, region->end());
    next = builder.createBlock(region, region->end());
  }
  Value zero = constI32(loc, 0);
  Value bad =
      LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::ne, status, zero);
  cf::CondBranchOp::create(builder, loc, bad, failed, next);
  builder.setInsertionPointToEnd(failed);
  func::ReturnOp::create(builder, loc, status);
  builder.setInsertionPointToEnd(next);
}

void RuntimeCallBuilder::callChecked(Location loc, StringRef name,
                                     ValueRange arguments) {
  checkStatus(loc, callRuntime(loc, name, arguments));
}

Value RuntimeCallBuilder::stringAddress(Location loc, StringRef value) {
  std::string name = "gp_str_" + llvm::utohexstr(llvm::hash_value(value), true);
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

Value RuntimeCallBuilder::functionAddress(Location loc, func::FuncOp function) {
  Value constant = func::ConstantOp::create(
      builder, loc, function.getFunctionType(), SymbolRefAttr::get(function));
  return castTo(loc, ptrType, constant);
}

Value RuntimeCallBuilder::makeBuffer(Location loc, MemRefType type, Value data,
                                     ValueRange dynamicSizes) {
  Type structType = descriptorType(type);
  Value desc = LLVM::UndefOp::create(builder, loc, structType);
  desc = LLVM::InsertValueOp::create(builder, loc, desc, data,
                                     ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(builder, loc, desc, data,
                                     ArrayRef<int64_t>{1});
  desc = LLVM::InsertValueOp::create(builder, loc, desc, constI64(loc, 0),
                                     ArrayRef<int64_t>{2});
  SmallVector<Value> sizes;
  unsigned dynamic = 0;
  for (int64_t dim : type.getShape())
    sizes.push_back(ShapedType::isDynamic(dim)
                        ? arith::IndexCastOp::create(builder, loc, i64,
                                                     dynamicSizes[dynamic++])
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

Value RuntimeCallBuilder::elementPointer(Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  Value desc = castTo(loc, descriptorType(type), buffer);
  Value aligned =
      LLVM::ExtractValueOp::create(builder, loc, desc, ArrayRef<int64_t>{1});
  Value offset =
      LLVM::ExtractValueOp::create(builder, loc, desc, ArrayRef<int64_t>{2});
  Value bytes = LLVM::MulOp::create(builder, loc, offset,
                                    constI64(loc, elementBytes(type)));
  return gepDynamic(loc, i8, aligned, bytes);
}

Value RuntimeCallBuilder::elementCount(Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  Value desc = castTo(loc, descriptorType(type), buffer);
  Value count = constI64(loc, 1);
  for (int64_t i = 0; i < type.getRank(); ++i)
    count =
        LLVM::MulOp::create(builder, loc, count,
                            LLVM::ExtractValueOp::create(
                                builder, loc, desc, ArrayRef<int64_t>{3, i}));
  return count;
}

Value RuntimeCallBuilder::byteSize(Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  return LLVM::MulOp::create(builder, loc, elementCount(loc, buffer),
                             constI64(loc, elementBytes(type)));
}

/// The layout's static offset, or nullopt when the layout is not strided;
/// a dynamic offset is reported as 0 (it is folded into the pointers).
static std::optional<int64_t> normalizedOffset(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return std::nullopt;
  return ShapedType::isDynamic(offset) ? 0 : offset;
}

Value RuntimeCallBuilder::foldOffsetIntoPointers(Location loc, MemRefType type,
                                                 Value buffer) {
  std::optional<int64_t> staticOffset = normalizedOffset(type);
  if (!staticOffset)
    return buffer;
  Value desc = castTo(loc, descriptorType(type), buffer);
  Value aligned =
      LLVM::ExtractValueOp::create(builder, loc, desc, ArrayRef<int64_t>{1});
  Value offset =
      LLVM::ExtractValueOp::create(builder, loc, desc, ArrayRef<int64_t>{2});
  Value shift =
      LLVM::SubOp::create(builder, loc, offset, constI64(loc, *staticOffset));
  Value shiftBytes = LLVM::MulOp::create(builder, loc, shift,
                                         constI64(loc, elementBytes(type)));
  Value base = gepDynamic(loc, i8, aligned, shiftBytes);
  desc = LLVM::InsertValueOp::create(builder, loc, desc, base,
                                     ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(builder, loc, desc, base,
                                     ArrayRef<int64_t>{1});
  desc = LLVM::InsertValueOp::create(
      builder, loc, desc, constI64(loc, *staticOffset), ArrayRef<int64_t>{2});
  return castTo(loc, buffer.getType(), desc);
}

int64_t mlir::gp::reachStaticOffset(MemRefType type) {
  return normalizedOffset(type).value_or(-1);
}
