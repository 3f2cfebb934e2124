//===- gp-codegen.cpp - a lowered program to host object files ------------===//
//
// gp-compile's back end: reads the program gp-opt lowered onto the runtime
// (the LLVM dialect, text or bytecode), translates it to LLVM IR and writes
// object files for the host, in one process.
//
// The code is of two kinds, compiled differently:
//   - kernels and small functions (the entry of a model, packed wrappers)
//     get clang's -O2: the IR pipeline, then optimizing code generation;
//   - glue the runtime runs only around launches (partition bodies, marked
//     `optnone` by the lowering) and any function larger than
//     --largest-optimized-function instructions get -O0's code generation
//     (fast instruction selection and register allocation). At -O2 these
//     straight-line bodies of tens of thousands of lines took most of the
//     time (instruction selection and the greedy register allocator) and
//     gained nothing.
// (Splitting the glue further to generate it in parallel cost as much as
// it saved on two cores: the split, bitcode out and back in each thread's
// LLVMContext.)
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Conversion/Passes.h"
#include "GraphPart/Conversion/TMTensorRefusal.h"
#include "GraphPart/Dialect/GP/IR/GPDialect.h"
#include "GraphPart/Pipelines/Pipeline.h"
#include "GraphPart/Transforms/Passes.h"
#include "HugePageHeap.h"
#include "ParseFailureHeap.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <chrono>

using namespace llvm;

static cl::opt<std::string>
    inputFilename(cl::Positional, cl::Required,
                  cl::desc("<program: lowered, or the input of --pipeline>"));
static cl::opt<std::string> pipeline(
    "pipeline", cl::init(""),
    cl::desc("A pass pipeline, as gp-opt's --pass-pipeline takes it, that "
             "lowers the input first (gp-compile: its gp-pipeline): run "
             "here, the lowered program is not written and read back"));
static cl::opt<std::string>
    emitMLIR("emit-mlir", cl::init(""),
             cl::desc("Also write the lowered program, with locations, to "
                      "this file"));
static cl::opt<std::string>
    objectDir("object-dir", cl::Required,
              cl::desc("Directory the object files are written to"));
static cl::opt<std::string>
    emitLLVM("emit-llvm", cl::init(""),
             cl::desc("Also write the whole program's LLVM IR to this file"));
static cl::opt<unsigned> largestOptimizedFunction(
    "largest-optimized-function", cl::init(20000),
    cl::desc("Functions with more LLVM instructions than this are compiled "
             "without optimization (glue, not kernels)"));

static cl::opt<bool>
    timePhases("time-phases", cl::init(false),
               cl::desc("Print the wall time of each phase to stderr"));

namespace {

/// Wall time since the previous phase ended, printed with --time-phases.
class PhaseTimer {
public:
  void done(StringRef phase) {
    auto now = std::chrono::steady_clock::now();
    if (timePhases)
      errs() << format("gp-codegen: %-28s %7.3f s\n", phase.str().c_str(),
                       std::chrono::duration<double>(now - last).count());
    last = now;
  }

private:
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};

[[noreturn]] void fail(const Twine &message) {
  errs() << "gp-codegen: " << message << "\n";
  exit(1);
}

/// A target machine for the host, as clang targets it by default (a
/// generic CPU: the artifact may run on another machine of the same
/// architecture) and position-independent, for a shared object.
std::unique_ptr<TargetMachine> hostMachine(const Triple &triple,
                                           CodeGenOptLevel level) {
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    fail("no target for " + triple.str() + ": " + error);
  StringRef cpu = triple.isX86() ? "x86-64" : "generic";
  return std::unique_ptr<TargetMachine>(target->createTargetMachine(
      triple, cpu, "", TargetOptions(), Reloc::PIC_, std::nullopt, level));
}

/// Writes `module` as an object file at `path`, after clang's -O2 IR
/// pipeline when `optimize`.
void emitObject(Module &module, TargetMachine &machine, bool optimize,
                StringRef path) {
  if (optimize) {
    LoopAnalysisManager loops;
    FunctionAnalysisManager functions;
    CGSCCAnalysisManager sccs;
    ModuleAnalysisManager modules;
    PassBuilder builder(&machine);
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
    builder.buildPerModuleDefaultPipeline(OptimizationLevel::O2)
        .run(module, modules);
  }
  std::error_code error;
  ToolOutputFile output(path, error, sys::fs::OF_None);
  if (error)
    fail("cannot write " + path + ": " + error.message());
  legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, output.os(), nullptr,
                                  CodeGenFileType::ObjectFile))
    fail("the target cannot emit object files");
  codegen.run(module);
  output.keep();
}

/// The index paths of the scalar leaves of aggregate `type`.
void leafPaths(Type *type, SmallVectorImpl<unsigned> &prefix,
               SmallVectorImpl<SmallVector<unsigned>> &paths) {
  if (auto *structType = dyn_cast<StructType>(type)) {
    for (unsigned i = 0; i < structType->getNumElements(); ++i) {
      prefix.push_back(i);
      leafPaths(structType->getElementType(i), prefix, paths);
      prefix.pop_back();
    }
  } else if (auto *arrayType = dyn_cast<ArrayType>(type)) {
    for (unsigned i = 0; i < arrayType->getNumElements(); ++i) {
      prefix.push_back(i);
      leafPaths(arrayType->getElementType(), prefix, paths);
      prefix.pop_back();
    }
  } else {
    paths.emplace_back(prefix.begin(), prefix.end());
  }
}

/// The address of the field at `path` of the aggregate at `base`.
Value *fieldAddress(IRBuilder<> &builder, Type *aggregate, Value *base,
                    ArrayRef<unsigned> path) {
  SmallVector<Value *> indices = {builder.getInt32(0)};
  for (unsigned index : path)
    indices.push_back(builder.getInt32(index));
  return builder.CreateInBoundsGEP(aggregate, base, indices);
}

/// Rewrites `function`'s first-class aggregates into their scalars: a load
/// or store of a struct or array becomes one per field, and an extractvalue
/// the value inserted there. Memref descriptors are such structs, built
/// with insertvalue and stored for every launch; at -O0, fast instruction
/// selection handles none of them and hands each basic block that has one
/// to the SelectionDAG, which then took 80% of the glue's code generation.
void scalarizeAggregates(Function &function) {
  const DataLayout &layout = function.getDataLayout();
  SmallVector<LoadInst *> loads;
  SmallVector<StoreInst *> stores;
  for (Instruction &instruction : instructions(function)) {
    if (auto *load = dyn_cast<LoadInst>(&instruction);
        load && load->isSimple() && load->getType()->isAggregateType())
      loads.push_back(load);
    if (auto *store = dyn_cast<StoreInst>(&instruction);
        store && store->isSimple() &&
        store->getValueOperand()->getType()->isAggregateType())
      stores.push_back(store);
  }
  IRBuilder<> builder(function.getContext());
  SmallVector<unsigned> prefix;
  auto offsetOf = [&](Type *aggregate, ArrayRef<unsigned> path) {
    SmallVector<Value *> indices = {builder.getInt32(0)};
    for (unsigned index : path)
      indices.push_back(builder.getInt32(index));
    return layout.getIndexedOffsetInType(aggregate, indices);
  };
  for (LoadInst *load : loads) {
    Type *type = load->getType();
    SmallVector<SmallVector<unsigned>> paths;
    leafPaths(type, prefix, paths);
    builder.SetInsertPoint(load);
    Value *rebuilt = PoisonValue::get(type);
    for (ArrayRef<unsigned> path : paths) {
      Type *fieldType = ExtractValueInst::getIndexedType(type, path);
      Value *field = builder.CreateAlignedLoad(
          fieldType,
          fieldAddress(builder, type, load->getPointerOperand(), path),
          commonAlignment(load->getAlign(), offsetOf(type, path)));
      rebuilt = builder.CreateInsertValue(rebuilt, field, path);
    }
    load->replaceAllUsesWith(rebuilt);
    load->eraseFromParent();
  }
  for (StoreInst *store : stores) {
    Value *value = store->getValueOperand();
    Type *type = value->getType();
    SmallVector<SmallVector<unsigned>> paths;
    leafPaths(type, prefix, paths);
    builder.SetInsertPoint(store);
    for (ArrayRef<unsigned> path : paths) {
      // The scalar inserted at `path` (an extractvalue when there is none).
      Value *field = FindInsertedValue(value, path, store->getIterator());
      builder.CreateAlignedStore(
          field, fieldAddress(builder, type, store->getPointerOperand(), path),
          commonAlignment(store->getAlign(), offsetOf(type, path)));
    }
    store->eraseFromParent();
  }
  SmallVector<ExtractValueInst *> extracts;
  for (Instruction &instruction : instructions(function))
    if (auto *extract = dyn_cast<ExtractValueInst>(&instruction))
      extracts.push_back(extract);
  for (ExtractValueInst *extract : extracts)
    if (Value *inserted = FindInsertedValue(extract->getAggregateOperand(),
                                            extract->getIndices());
        inserted && inserted != extract) {
      extract->replaceAllUsesWith(inserted);
      extract->eraseFromParent();
    }
  // What built the aggregates is now unused.
  SmallSetVector<Instruction *, 16> dead;
  for (Instruction &instruction : instructions(function))
    if (isa<InsertValueInst, ExtractValueInst>(instruction) &&
        instruction.use_empty())
      dead.insert(&instruction);
  while (!dead.empty()) {
    Instruction *instruction = dead.pop_back_val();
    SmallVector<Value *> operands(instruction->operands());
    instruction->eraseFromParent();
    for (Value *operand : operands)
      if (auto *built = dyn_cast<Instruction>(operand);
          built && isa<InsertValueInst, ExtractValueInst>(built) &&
          built->use_empty())
        dead.insert(built);
  }
}

/// True when every use of `global` is in a function `inPart` accepts.
bool usedOnlyIn(const GlobalValue &global,
                function_ref<bool(const Function &)> inPart) {
  SmallVector<const User *> users(global.users());
  while (!users.empty()) {
    const User *user = users.pop_back_val();
    if (auto *instruction = dyn_cast<Instruction>(user)) {
      if (!inPart(*instruction->getFunction()))
        return false;
    } else if (isa<ConstantExpr>(user) || isa<ConstantAggregate>(user)) {
      users.append(user->user_begin(), user->user_end());
    } else {
      return false; // another global's initializer, an alias, ...
    }
  }
  return true;
}

/// Parses the program and, given --pipeline, lowers it as gp-opt would:
/// frees deferred while it parses (ParseFailureHeap.h), input and output
/// verified but not each pass, single-threaded on small machines.
mlir::OwningOpRef<mlir::ModuleOp>
loadProgram(mlir::MLIRContext &context, SourceMgr &sources, PhaseTimer &timer) {
  gp::deferFrees();
  mlir::OwningOpRef<mlir::ModuleOp> program =
      mlir::parseSourceFile<mlir::ModuleOp>(sources, &context);
  if (!program)
    return nullptr;
  gp::releaseDeferredFrees();
  timer.done("parse");
  if (pipeline.empty())
    return program;
  mlir::PassManager passes(&context, mlir::ModuleOp::getOperationName());
  passes.enableVerifier(false);
  FailureOr<mlir::OpPassManager> parsed =
      mlir::parsePassPipeline(pipeline, errs());
  if (failed(parsed))
    fail("cannot parse --pipeline '" + pipeline + "'");
  if (parsed->getOpAnchorName() != passes.getOpAnchorName())
    fail("--pipeline must be anchored on builtin.module, as "
         "'builtin.module(gp-pipeline{target=host})'");
  static_cast<mlir::OpPassManager &>(passes) = *parsed;
  if (mlir::failed(passes.run(*program)) ||
      mlir::failed(mlir::verify(*program)))
    return nullptr;
  timer.done("pipeline");
  if (!emitMLIR.empty()) {
    std::error_code fileError;
    ToolOutputFile output(emitMLIR, fileError, sys::fs::OF_Text);
    if (fileError)
      fail("cannot write " + emitMLIR + ": " + fileError.message());
    program->print(output.os(), mlir::OpPrintingFlags().enableDebugInfo());
    output.keep();
  }
  return program;
}

} // namespace

int main(int argc, char **argv) {
  gp::useHugePageHeap();
  InitLLVM init(argc, argv);
  mlir::registerAllPasses();
  mlir::gp::registerGraphPartPasses();
  mlir::gp::registerGraphPartConversionPasses();
  mlir::gp::registerGraphPartPipeline();
  cl::ParseCommandLineOptions(
      argc, argv,
      "gp-codegen: a program lowered by gp-opt (the LLVM dialect), or one "
      "that --pipeline lowers, to host object files\n");
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  PhaseTimer timer;

  // The lowered program, into LLVM IR.
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::gp::GPDialect>();
  // torch-mlir's tm_tensor ops: refused by name where they are parsed.
  mlir::gp::registerTMTensorRefusal(registry);
  mlir::MLIRContext context(registry);
  // As gp-opt: two hardware threads or fewer run the passes on one.
  if (llvm::hardware_concurrency().compute_thread_count() <= 2)
    context.disableMultithreading();
  SourceMgr sources;
  std::string error;
  std::unique_ptr<MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input)
    fail(error);
  sources.AddNewSourceBuffer(std::move(input), SMLoc());
  mlir::SourceMgrDiagnosticHandler diagnostics(sources, &context);
  mlir::OwningOpRef<mlir::ModuleOp> program =
      loadProgram(context, sources, timer);
  if (!program)
    return 1;
  // A function the program made private (partition bodies, kernels and
  // their packed forms) is for the program alone: it stays out of the
  // artifact's dynamic symbols, which are its manifest and entry points.
  program->walk([](mlir::LLVM::LLVMFuncOp function) {
    if (!function.isExternal() && function.isPrivate() &&
        function.getLinkage() == mlir::LLVM::Linkage::External)
      function.setLinkage(mlir::LLVM::Linkage::Internal);
  });
  LLVMContext llvmContext;
  std::unique_ptr<Module> glue =
      mlir::translateModuleToLLVMIR(*program, llvmContext, inputFilename);
  if (!glue)
    return 1;
  program = nullptr;
  timer.done("translate");

  Triple triple(sys::getDefaultTargetTriple());
  std::unique_ptr<TargetMachine> optimizing =
      hostMachine(triple, CodeGenOptLevel::Default);
  glue->setTargetTriple(triple);
  glue->setDataLayout(optimizing->createDataLayout());
  if (!emitLLVM.empty()) {
    std::error_code fileError;
    ToolOutputFile output(emitLLVM, fileError, sys::fs::OF_Text);
    if (fileError)
      fail("cannot write " + emitLLVM + ": " + fileError.message());
    glue->print(output.os(), nullptr);
    output.keep();
  }
  if (std::error_code dirError = sys::fs::create_directories(objectDir))
    fail("cannot create " + objectDir + ": " + dirError.message());

  // The two halves refer to each other's functions and globals by name:
  // what was local to the program becomes hidden, so that it still is not
  // exported from the shared object.
  unsigned unnamed = 0;
  for (GlobalValue &value : glue->global_values()) {
    if (!value.hasLocalLinkage())
      continue;
    if (!value.hasName())
      value.setName("gp_local_" + Twine(unnamed++));
    value.setLinkage(GlobalValue::ExternalLinkage);
    value.setVisibility(GlobalValue::HiddenVisibility);
  }
  auto optimized = [](const Function &function) {
    return !function.isDeclaration() && !function.hasOptNone() &&
           function.getInstructionCount() <= largestOptimizedFunction;
  };
  // A global only optimized functions use goes with them, so that loads
  // from a constant table still fold.
  DenseSet<const GlobalValue *> moved;
  for (const Function &function : glue->functions())
    if (optimized(function))
      moved.insert(&function);
  for (const GlobalVariable &global : glue->globals())
    if (!global.isDeclaration() && usedOnlyIn(global, optimized))
      moved.insert(&global);
  ValueToValueMapTy mapping;
  std::unique_ptr<Module> kernels =
      CloneModule(*glue, mapping, [&](const GlobalValue *value) {
        return moved.contains(value);
      });
  for (Function &function : glue->functions())
    if (moved.contains(&function))
      function.deleteBody();
  for (GlobalVariable &global : glue->globals())
    if (moved.contains(&global))
      global.setInitializer(nullptr);

  std::unique_ptr<TargetMachine> unoptimized =
      hostMachine(triple, CodeGenOptLevel::None);
  for (Function &function : glue->functions())
    if (!function.isDeclaration())
      scalarizeAggregates(function);
  if (verifyModule(*glue, &errs()) || verifyModule(*kernels, &errs()))
    fail("the program's LLVM IR does not verify after the split");
  timer.done("split, glue aggregates to scalars");
  emitObject(*glue, *unoptimized, /*optimize=*/false, objectDir + "/glue.o");
  timer.done("glue (-O0 code generation)");
  emitObject(*kernels, *optimizing, /*optimize=*/true,
             objectDir + "/optimized.o");
  timer.done("kernels (-O2)");
  return 0;
}
