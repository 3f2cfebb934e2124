//===- EntryPoints.cpp - program functions become entry points ------------===//
//
// `func.func @f` becomes `@gp_entry_f(program, args, results) -> i32`: its
// share of the program's arenas (GPToRuntimeState::prepare sized it), its
// arguments loaded from `args`, its results stored through `results`; its
// signature goes into the manifest (`entry`, an `arg` line per argument, a
// parameter's ending in `parameter <name>`, a `result` line per result,
// and a `size` line per run-time size gp-size-classes found: `size <name>
// <fixed|?> <members> pad [max]` or `... nopad <reason>`, members `aI.D`,
// `aI` (an index argument) and `rJ.D`). The function stays while its body
// is lowered op by op; lowering its `func.return` erases it.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "GraphPart/Runtime/ManifestSchema.h"

#include <string_view>

using namespace mlir;
using namespace mlir::gp;
namespace manifest = ::gp::manifest;

// The runtime binds the index-error flag by the name the dialect gives it.
static_assert(
    std::string_view(GPDialect::getIndexErrorsParameterName().data(),
                     GPDialect::getIndexErrorsParameterName().size()) ==
    manifest::kIndexErrorsParameter);

namespace {

/// The manifest's `size` lines of `function`.
std::string describeSizeClasses(func::FuncOp function) {
  auto classes = function->getAttrOfType<ArrayAttr>(
      GPDialect::getSizeClassesAttrName());
  if (!classes)
    return "";
  std::string text;
  for (auto sizeClass : classes.getAsRange<SizeClassAttr>()) {
    text += std::string(manifest::kSize) + " " +
            sizeClass.getName().getValue().str() + " " +
            (sizeClass.getFixed() < 0 ? std::string(manifest::kDynamic)
                                      : std::to_string(sizeClass.getFixed())) +
            " ";
    std::string members;
    for (auto [prefix, pairs] :
         {std::pair{manifest::kArgumentMember,
                    sizeClass.getArguments().asArrayRef()},
          std::pair{manifest::kResultMember,
                    sizeClass.getResults().asArrayRef()}})
      for (size_t i = 0; i < pairs.size(); i += 2) {
        members += (members.empty() ? "" : ",") + std::string(1, prefix) +
                   std::to_string(pairs[i]);
        if (pairs[i + 1] >= 0)
          members += "." + std::to_string(pairs[i + 1]);
      }
    text += members;
    if (sizeClass.isPaddable()) {
      // Padding stops at the largest size the entry accepts.
      text += std::string(" ") + manifest::kPad +
              (sizeClass.getMaximum() < 0
                   ? std::string("\n")
                   : " " + std::to_string(sizeClass.getMaximum()) + "\n");
    } else {
      // One line: the reason's line breaks (none are written) as spaces.
      std::string reason = sizeClass.getUnpaddable().getValue().str();
      for (char &c : reason)
        if (c == '\n' || c == '\r')
          c = ' ';
      text += std::string(" ") + manifest::kNoPad + " " + reason + "\n";
    }
  }
  return text;
}

struct EntryPointLowering : GPToRuntimePattern<func::FuncOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(func::FuncOp function, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.programFunctions.contains(function))
      return failure();
    MLIRContext *ctx = function.getContext();
    Location loc = function.getLoc();
    std::string functionName = function.getSymName().str();
    FunctionType type = function.getFunctionType();

    // This function's share of the program's arenas.
    auto [deviceBytes, hostBytes] = state.arenaBytes.lookup(function);
    int64_t deviceArenaBase = state.deviceArenaBytes;
    int64_t hostArenaBase = state.hostArenaBytes;
    state.deviceArenaBytes += (deviceBytes + 255) / 256 * 256;
    state.hostArenaBytes += (hostBytes + 255) / 256 * 256;

    // The entry point.
    RuntimeCallBuilder rt = builder(rewriter);
    rewriter.setInsertionPointToEnd(state.module.getBody());
    auto entry = func::FuncOp::create(
        rewriter, loc, "gp_entry_" + functionName,
        FunctionType::get(ctx, {rt.ptrType, rt.ptrType, rt.ptrType}, {rt.i32}));
    Block *block = rewriter.createBlock(&entry.getBody(), entry.getBody().end(),
                                        entry.getArgumentTypes(),
                                        SmallVector<Location>(3, loc));
    Value program = block->getArgument(0);
    Value args = block->getArgument(1);
    Value results = block->getArgument(2);

    std::string signature = std::string(manifest::kEntry) + " " + functionName +
                            " " + std::to_string(type.getNumInputs()) + " " +
                            std::to_string(type.getNumResults()) + "\n";
    for (auto [index, argument] : llvm::enumerate(function.getArguments())) {
      if (!isa<MemRefType, IndexType>(argument.getType()))
        return state.emitError(function)
               << "argument " << index << " has type " << argument.getType()
               << "; entry points take buffers and index values";
      Value pointer =
          rt.load(loc, rt.ptrType, rt.gep(loc, rt.ptrType, args, index));
      rewriter.replaceAllUsesWith(
          argument, rt.loadValue(loc, argument.getType(), pointer));
      signature += std::string(manifest::kArg) + " " +
                   GPToRuntimeState::describe(argument.getType());
      // A parameter (model state the runtime binds by name) says so last:
      // `arg memref ... parameter <name>`.
      if (auto parameter = function.getArgAttrOfType<StringAttr>(
              index, GPDialect::getParameterAttrName()))
        signature += std::string(" ") + manifest::kParameter + " " +
                     parameter.getValue().str();
      signature += "\n";
    }
    for (Type result : type.getResults()) {
      if (!isa<MemRefType, IndexType>(result))
        return state.emitError(function)
               << "result type " << result << " is not a buffer or an index";
      signature += std::string(manifest::kResult) + " " +
                   GPToRuntimeState::describe(result) + "\n";
    }
    signature += describeSizeClasses(function);
    // Run-time index checks: `check <n> <text>`, n from 1, the number a
    // failed check writes into the index-error flag.
    if (auto checks = function->getAttrOfType<ArrayAttr>(
            GPDialect::getIndexChecksAttrName()))
      for (auto [index, check] : llvm::enumerate(checks))
        signature += std::string(manifest::kCheck) + " " +
                     std::to_string(index + 1) + " " +
                     cast<StringAttr>(check).getValue().str() + "\n";
    state.entriesManifest += signature;

    Value deviceArena, hostArena;
    {
      Value slot = rt.stackSlot(loc, rt.ptrType);
      rt.callChecked(loc, "gpRtProgramArena", {program, slot});
      deviceArena =
          rt.gep(loc, rt.i8, rt.load(loc, rt.ptrType, slot), deviceArenaBase);
      rt.callChecked(loc, "gpRtProgramHostArena", {program, slot});
      hostArena =
          rt.gep(loc, rt.i8, rt.load(loc, rt.ptrType, slot), hostArenaBase);
    }

    LoweredRegion &lowered = state.lowered(&function.getBody());
    lowered.function = entry;
    lowered.program = program;
    lowered.deviceArena = deviceArena;
    lowered.hostArena = hostArena;
    lowered.results = results;
    // The function itself stays (legal now) until its return is lowered.
    state.started.insert(function);
    rewriter.modifyOpInPlace(function, [] {});
    return success();
  }
};

struct EntryReturnLowering : GPToRuntimePattern<func::ReturnOp> {
  using GPToRuntimePattern::GPToRuntimePattern;

  LogicalResult
  matchAndRewrite(func::ReturnOp ret, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!state.atTopLevel(ret))
      return failure();
    Operation *function = ret->getParentOp();
    Location loc = function->getLoc();
    Value results = state.loweredParent(ret).results;
    RuntimeCallBuilder rt = emitterFor(ret, rewriter);
    for (auto [index, value] : llvm::enumerate(adaptor.getOperands())) {
      Value pointer =
          rt.load(loc, rt.ptrType, rt.gep(loc, rt.ptrType, results, index));
      rt.store(loc, rt.toStorage(loc, value), pointer);
    }
    func::ReturnOp::create(rewriter, loc, rt.constI32(loc, 0));
    rewriter.eraseOp(ret);
    rewriter.eraseOp(function);
    return success();
  }
};

} // namespace

void mlir::gp::populateEntryPointPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          GPToRuntimeState &state) {
  patterns.add<EntryPointLowering, EntryReturnLowering>(converter, state);
}
