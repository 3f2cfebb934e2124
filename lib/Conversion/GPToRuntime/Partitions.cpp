//===- Partitions.cpp - partitions become body functions and launches -----===//
//
// A `gp.partition` is outlined into `gp_partition_<f>_<id>(stream, context)`,
// whose context array holds the program, the arenas, the result block and
// the inputs. Its ops are lowered into that function one by one; lowering
// its `gp.yield` stores the results, and then the entry point launches the
// finished body with `gpRtRunPartitionInContext`, passing a constant table
// of its buffer inputs' layouts from which the runtime computes what the
// body can reach through each, and reads the results back. The
// launch waits for the body so that what the body declares comes first in
// the module, as the artifact has always been laid out.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::gp;

namespace {

/// The memory a buffer input's descriptor was loaded from whole, through
/// casts, when it is of `descriptor`'s type: an entry's argument, whose
/// descriptor the caller (or the runtime, for a bound parameter) holds
/// unchanged until the call returns. The body reads it there instead of
/// from a copy on the entry's stack: an entry with hundreds of bound
/// parameters copied each one's descriptor on every call.
Value descriptorMemory(Value value, Type descriptor) {
  while (auto cast = value.getDefiningOp<UnrealizedConversionCastOp>()) {
    if (cast->getNumOperands() != 1)
      return {};
    value = cast->getOperand(0);
  }
  auto load = value.getDefiningOp<LLVM::LoadOp>();
  if (!load || load.getType() != descriptor)
    return {};
  return load.getAddr();
}

/// Slots of a partition body's context array (pointers).
enum ContextSlot : int64_t {
  kContextProgram = 0,
  kContextDeviceArena = 1,
  kContextHostArena = 2,
  kContextResults = 3,
  kContextFirstInput = 4
};

struct PartitionOutlining : GPToRuntimePattern<PartitionOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(PartitionOp partition, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.atTopLevel(partition))
      return failure();
    MLIRContext *ctx = partition.getContext();
    Location loc = partition.getLoc();
    RuntimeCallBuilder rt = builder(rewriter);
    Block &body = partition.getBody().front();
    LoweredRegion &lowered = state.lowered(&partition.getBody());
    lowered.partition = partition;
    lowered.globalId = state.partitions.size();
    lowered.inputs.assign(adaptor.getInputs().begin(),
                          adaptor.getInputs().end());

    // Result block: one storage slot per result the body makes. An input
    // yielded unchanged is the launch's input again: a slot for it would be
    // copied on every replay (and every bound parameter is one).
    SmallVector<Type> resultStorage;
    auto yield = cast<YieldOp>(body.getTerminator());
    for (auto [index, value] : llvm::enumerate(yield.getValues())) {
      auto argument = dyn_cast<BlockArgument>(value);
      bool passed = argument && argument.getOwner() == &body &&
                    argument.getType() == partition.getResult(index).getType();
      lowered.passedInput.push_back(
          passed ? static_cast<int64_t>(argument.getArgNumber()) : -1);
      lowered.resultField.push_back(
          passed ? -1 : static_cast<int32_t>(resultStorage.size()));
      if (passed)
        continue;
      Type type = partition.getResult(index).getType();
      resultStorage.push_back(rt.storageType(type));
      lowered.resultBytes += rt.storageBytes(type);
    }
    lowered.resultStruct = LLVM::LLVMStructType::getLiteral(ctx, resultStorage);

    // The outlined body.
    auto function = partition->getParentOfType<func::FuncOp>();
    std::string bodyName = "gp_partition_" + function.getSymName().str() + "_" +
                           std::to_string(partition.getPartitionId());
    rewriter.setInsertionPointToEnd(state.module.getBody());
    auto bodyFunction = func::FuncOp::create(
        rewriter, loc, bodyName,
        FunctionType::get(ctx, {rt.ptrType, rt.ptrType}, {rt.i32}));
    bodyFunction.setPrivate();
    // The body runs only for warm-ups, captures and eager partitions, and
    // is glue around kernel launches (kernels are functions of their own):
    // optimizing it buys nothing, and a whole model's body is one function
    // of tens of thousands of lines that took most of clang's -O2 time
    // (GPT-2 124M: 2.2 s of gp-compile's 6.5).
    bodyFunction->setAttr("passthrough",
                          rewriter.getArrayAttr({rewriter.getStringAttr(
                                                     "optnone"),
                                                 rewriter.getStringAttr(
                                                     "noinline")}));
    Block *entry = rewriter.createBlock(
        &bodyFunction.getBody(), bodyFunction.getBody().end(),
        bodyFunction.getArgumentTypes(), SmallVector<Location>(2, loc));
    Value context = entry->getArgument(1);
    auto slot = [&](int64_t index) {
      return rt.load(loc, rt.ptrType, rt.gep(loc, rt.ptrType, context, index));
    };
    lowered.function = bodyFunction;
    lowered.stream = entry->getArgument(0);
    lowered.program = slot(kContextProgram);
    lowered.deviceArena = slot(kContextDeviceArena);
    lowered.hostArena = slot(kContextHostArena);
    lowered.results = slot(kContextResults);
    // A buffer's offset is folded into its pointers, so the graph holds
    // the caller's address only as pointers the runtime can re-bind when
    // the caller passes another buffer (see launch()).
    for (auto [index, argument] : llvm::enumerate(body.getArguments())) {
      Value value = rt.loadValue(loc, argument.getType(),
                                 slot(kContextFirstInput + index));
      if (auto type = dyn_cast<MemRefType>(argument.getType()))
        value = rt.foldOffsetIntoPointers(loc, type, value);
      rewriter.replaceAllUsesWith(argument, value);
    }
    // The partition stays (legal now) until its yield is lowered.
    state.started.insert(partition);
    rewriter.modifyOpInPlace(partition, [] {});
    return success();
  }
};

struct PartitionYieldLowering : GPToRuntimePattern<YieldOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(YieldOp yield, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.inPartition(yield))
      return failure();
    LoweredRegion &body = state.loweredParent(yield);
    PartitionOp partition = body.partition;
    Location loc = partition.getLoc();

    // The body's end: results into the result block.
    RuntimeCallBuilder rt = emitterFor(yield, rewriter);
    for (auto [index, value] : llvm::enumerate(adaptor.getValues())) {
      if (body.resultField[index] < 0)
        continue; // A passed input: the launch has it.
      Value field = LLVM::GEPOp::create(
          rewriter, loc, rt.ptrType, body.resultStruct, body.results,
          ArrayRef<LLVM::GEPArg>{0, body.resultField[index]});
      rt.store(loc, rt.toStorage(loc, value), field);
    }
    func::ReturnOp::create(rewriter, loc, rt.constI32(loc, 0));

    SmallVector<Value> results = launch(partition, body, rewriter);
    rewriter.eraseOp(yield);
    rewriter.replaceOp(partition, results);
    return success();
  }

  /// The call in the entry point; returns the partition's results.
  SmallVector<Value> launch(PartitionOp partition, LoweredRegion &body,
                            ConversionPatternRewriter &rewriter) const {
    Location loc = partition.getLoc();
    LoweredRegion &entry = state.loweredParent(partition);
    RuntimeCallBuilder rt = emitterFor(partition, rewriter);
    Type ptrType = rt.ptrType;
    int64_t numInputs = partition.getInputs().size();
    Value context = rt.stackSlot(loc, ptrType, kContextFirstInput + numInputs);
    Value resultsBlock = rt.stackSlot(loc, body.resultStruct);
    rt.store(loc, entry.program,
             rt.gep(loc, ptrType, context, kContextProgram));
    rt.store(loc, entry.deviceArena,
             rt.gep(loc, ptrType, context, kContextDeviceArena));
    rt.store(loc, entry.hostArena,
             rt.gep(loc, ptrType, context, kContextHostArena));
    rt.store(loc, resultsBlock, rt.gep(loc, ptrType, context, kContextResults));
    SmallVector<Value> shapeKey;
    // gpRtPartitionInputLayout per buffer input: the runtime reads what it
    // reaches from the descriptor in the context.
    SmallVector<int64_t> layouts;
    for (auto [index, input] : llvm::enumerate(partition.getInputs())) {
      Value value = body.inputs[index];
      Value memory;
      if (auto type = dyn_cast<MemRefType>(input.getType()))
        memory = descriptorMemory(value, rt.descriptorType(type));
      rt.store(loc, memory ? memory : rt.spill(loc, value),
               rt.gep(loc, ptrType, context, kContextFirstInput + index));
      if (isa<IndexType>(input.getType()))
        shapeKey.push_back(rt.toStorage(loc, value));
      else if (auto type = dyn_cast<MemRefType>(input.getType()))
        layouts.append({kContextFirstInput + static_cast<int64_t>(index),
                        type.getRank(), elementBytes(type),
                        reachStaticOffset(type)});
    }
    Value key = rt.stackSlot(loc, rt.i64, std::max<size_t>(1, shapeKey.size()));
    for (auto [index, value] : llvm::enumerate(shapeKey))
      rt.store(loc, value, rt.gep(loc, rt.i64, key, index));
    Value layoutTable =
        layouts.empty() ? LLVM::ZeroOp::create(rewriter, loc, ptrType)
                        : rt.constantArray(loc, rt.i64, layouts);
    rt.callChecked(loc, "gpRtRunPartitionInContext",
                   {entry.program, rt.constI32(loc, body.globalId), key,
                    rt.functionAddress(loc, body.function), context,
                    resultsBlock, rt.constI64(loc, body.resultBytes),
                    layoutTable,
                    rt.constI32(loc, static_cast<int64_t>(layouts.size() / 4))});
    // Checked mode: the partition's kernels report out-of-bounds accesses
    // in a flag; the call fails here, naming the kernel.
    if (auto flag = partition->getAttrOfType<IntegerAttr>("gp.bounds_flag")) {
      auto kernels = partition->getParentOp()->getAttrOfType<StringAttr>(
          "gp.bounds_kernels");
      rt.callChecked(
          loc, "gpRtCheckBoundsFlag",
          {entry.program, rt.elementPointer(loc, body.inputs[flag.getInt()]),
           rt.stringAddress(loc, kernels ? kernels.getValue() : StringRef())});
    }
    SmallVector<Value> results;
    for (auto [index, result] : llvm::enumerate(partition.getResults())) {
      if (body.passedInput[index] >= 0) {
        results.push_back(body.inputs[body.passedInput[index]]);
        continue;
      }
      Value field = LLVM::GEPOp::create(
          rewriter, loc, ptrType, body.resultStruct, resultsBlock,
          ArrayRef<LLVM::GEPArg>{0, body.resultField[index]});
      results.push_back(rt.loadValue(loc, result.getType(), field));
    }

    std::string reasons;
    for (Attribute reason : partition.getReasons())
      reasons += (reasons.empty() ? "" : ", ") +
                 cast<StringAttr>(reason).getValue().str();
    state.partitions.push_back(
        {partition.getKind() == PartitionKind::capturable,
         static_cast<int64_t>(shapeKey.size()), reasons});
    return results;
  }
};

} // namespace

void mlir::gp::populatePartitionPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns,
                                         GPToRuntimeState &state) {
  patterns.add<PartitionOutlining, PartitionYieldLowering>(converter, state);
}
