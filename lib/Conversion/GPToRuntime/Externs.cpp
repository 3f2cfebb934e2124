//===- Externs.cpp - fallbacks become extern calls ------------------------===//
//
// A `gp.fallback` calls its extern through the registry with
// `gpRtCallExtern`: every operand and result is passed by address, with a
// gpRtExternArg saying what it is (extern ABI version 2). Each call's schema
// goes into the manifest, where the runtime compares it with the extern's
// registration when the artifact loads. Results placed by memory planning
// (`result_offsets`) point into the arena; other results with a static shape
// are allocated here (aliasing results start as the operand they alias); the
// extern fills in the rest.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "GraphPart/Conversion/ElementCodes.h"
#include "GraphPart/Runtime/GPRuntime.h"
#include "GraphPart/Runtime/ManifestSchema.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <cstddef>

using namespace mlir;
using namespace mlir::gp;

namespace {

std::string indexList(ArrayRef<int64_t> list) {
  std::string text;
  for (auto [i, value] : llvm::enumerate(list))
    text +=
        (i ? "," : "") + (value < 0 ? std::string("-") : std::to_string(value));
  return "[" + text + "]";
}

/// The manifest's statement of what `fallback`'s IR says of its extern:
///   extern <name> capturable|unsafe <mutates> <aliases> <location>
std::string externStatement(FallbackOp fallback) {
  SmallVector<int64_t> aliases;
  for (unsigned i = 0, e = fallback.getNumResults(); i < e; ++i) {
    std::optional<unsigned> aliased = fallback.getAliasedOperand(i);
    aliases.push_back(aliased ? static_cast<int64_t>(*aliased) : -1);
  }
  SmallVector<int64_t> mutates(fallback.getMutates());
  llvm::sort(mutates);
  bool unsafe = fallback.hasTag(FallbackOp::getCudagraphUnsafeTag());
  return std::string(::gp::manifest::kExtern) + " " +
         fallback.getCallee().str() + " " +
         (unsafe ? ::gp::manifest::kUnsafe : ::gp::manifest::kCapturable) +
         " " + indexList(mutates) + " " + indexList(aliases) + " " +
         sourceLocation(fallback.getLoc()).value_or("unknown") + "\n";
}

struct FallbackLowering : GPToRuntimePattern<FallbackOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(FallbackOp fallback, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.inPartition(fallback))
      return failure();
    Location loc = fallback.getLoc();
    Value stream = state.loweredParent(fallback).stream;
    RuntimeCallBuilder rt = emitterFor(fallback, rewriter);
    SmallVector<Value> slots;
    SmallVector<gpRtExternArg> infos;
    for (Value value : adaptor.getArgs()) {
      Type type = value.getType();
      if (auto memref = dyn_cast<MemRefType>(type)) {
        slots.push_back(rt.spill(loc, value));
        infos.push_back({rt.storageBytes(type), GP_RT_EXTERN_ARG_BUFFER,
                         runtimeElementCode(memref.getElementType()),
                         static_cast<int32_t>(memref.getRank()), 0});
        continue;
      }
      if (!isa<IndexType, IntegerType, FloatType>(type))
        return state.emitError(fallback)
               << "cannot pass a value of type " << type << " to an extern";
      // Integers travel as int64 (i1 zero-extended); floats as they are.
      Value scalar = value;
      if (auto integer = dyn_cast<IntegerType>(type);
          integer && integer.getWidth() < 64)
        scalar = integer.getWidth() == 1 || integer.isUnsigned()
                     ? arith::ExtUIOp::create(rewriter, loc, rt.i64, value)
                           .getResult()
                     : arith::ExtSIOp::create(rewriter, loc, rt.i64, value)
                           .getResult();
      else if (auto integer = dyn_cast<IntegerType>(type);
               integer && integer.getWidth() > 64)
        return state.emitError(fallback)
               << "cannot pass a value of type " << type
               << " to an extern (integers of up to 64 bits)";
      slots.push_back(rt.spill(loc, scalar));
      infos.push_back({rt.storageBytes(scalar.getType()),
                       GP_RT_EXTERN_ARG_SCALAR, runtimeElementCode(type), 0,
                       0});
    }
    SmallVector<Value> resultSlots;
    std::optional<ArrayRef<int64_t>> planned = fallback.getResultOffsets();
    LoweredRegion &body = state.loweredParent(fallback);
    for (auto [index, result] : llvm::enumerate(fallback.getResults())) {
      auto type = dyn_cast<MemRefType>(result.getType());
      if (!type)
        return state.emitError(fallback) << "extern results must be buffers";
      Type structType = rt.descriptorType(type);
      Value slot = rt.stackSlot(loc, structType);
      std::optional<unsigned> aliased = fallback.getAliasedOperand(index);
      int64_t offset = planned ? (*planned)[index] : -1;
      if (aliased && fallback.getArgs()[*aliased].getType() == type) {
        rt.store(loc, rt.toStorage(loc, adaptor.getArgs()[*aliased]), slot);
      } else if (offset >= 0) {
        // Planned: the result's place in the arena, reused like any
        // planned buffer once it is dead.
        Value arena = onHost(type) ? body.hostArena : body.deviceArena;
        rt.store(loc,
                 rt.toStorage(
                     loc, rt.makeBuffer(loc, type,
                                        rt.gep(loc, rt.i8, arena, offset), {})),
                 slot);
      } else if (type.hasStaticShape()) {
        Value bytes = rt.constI64(loc, getStaticByteSize(type).value_or(0));
        Value data = rt.stackSlot(loc, rt.ptrType);
        if (onHost(type))
          return state.emitError(fallback)
                 << "extern results on the cpu device need a planned buffer";
        rt.callChecked(loc, "gpRtAllocate", {stream, bytes, data});
        rt.store(loc,
                 rt.toStorage(loc, rt.makeBuffer(loc, type,
                                                 rt.load(loc, rt.ptrType, data),
                                                 {})),
                 slot);
      } else {
        Value desc = LLVM::ZeroOp::create(rewriter, loc, structType);
        rt.store(loc, desc, slot);
      }
      resultSlots.push_back(slot);
      slots.push_back(slot);
      infos.push_back({rt.storageBytes(type), GP_RT_EXTERN_ARG_BUFFER,
                       runtimeElementCode(type.getElementType()),
                       static_cast<int32_t>(type.getRank()), 1});
    }
    int64_t count = slots.size();
    Value args = rt.stackSlot(loc, rt.ptrType, std::max<int64_t>(1, count));
    // The gpRtExternArg array, field by field at the struct's offsets.
    static_assert(sizeof(gpRtExternArg) == 24 &&
                      offsetof(gpRtExternArg, kind) == 8 &&
                      offsetof(gpRtExternArg, isResult) == 20,
                  "gpRtExternArg's layout is what the stores below assume");
    int64_t infoBytes = sizeof(gpRtExternArg);
    Value argInfo =
        rt.stackSlot(loc, rt.i64, std::max<int64_t>(1, count) * infoBytes / 8);
    for (int64_t i = 0; i < count; ++i) {
      rt.store(loc, slots[i], rt.gep(loc, rt.ptrType, args, i));
      const gpRtExternArg &info = infos[i];
      auto field = [&](int64_t offset) {
        return rt.gep(loc, rt.i8, argInfo, i * infoBytes + offset);
      };
      rt.store(loc, rt.constI64(loc, info.bytes), field(0));
      rt.store(loc, rt.constI32(loc, info.kind), field(8));
      rt.store(loc, rt.constI32(loc, info.elementType), field(12));
      rt.store(loc, rt.constI32(loc, info.rank), field(16));
      rt.store(loc, rt.constI32(loc, info.isResult), field(20));
    }
    state.externStatements.insert(externStatement(fallback));
    rt.callChecked(loc, "gpRtCallExtern",
                   {stream, rt.stringAddress(loc, fallback.getCallee()), args,
                    argInfo, rt.constI32(loc, count)});
    SmallVector<Value> results;
    for (auto [result, slot] : llvm::zip(fallback.getResults(), resultSlots))
      results.push_back(rt.loadValue(loc, result.getType(), slot));
    rewriter.replaceOp(fallback, results);
    return success();
  }
};

} // namespace

void mlir::gp::populateExternPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      GPToRuntimeState &state) {
  patterns.add<FallbackLowering>(converter, state);
}
