//===- Passes.td - GraphPart conversions -------------------*- tablegen -*-===//

#ifndef GRAPHPART_CONVERSION_PASSES_TD
#define GRAPHPART_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def GPImportPass : Pass<"gp-import", "::mlir::ModuleOp"> {
  let summary = "Take bufferized upstream linalg/memref programs into gp";
  let description = [{
    The front door for upstream frontends (torch-mlir, IREE, hand-written
    linalg): every `func.func` with a body, on memrefs as upstream
    bufferization (`one-shot-bufferize`) leaves them, becomes the `gp` form
    that `gp-pipeline` takes. Programs already in `gp` pass through
    unchanged, so `gp-pipeline` runs this pass first.

    - Devices: a memref without a memory space (or with the integer space
      0) lives on the function's default device: its `gp.default_device`
      attribute (`#gp.device<cuda:0>`), else the `default-device` option.
      A `#gp.device` space is kept; any other space is an error.
    - Each linalg op (named or generic) becomes a `gp.kernel` around it;
      scalars it captures become `ins` (constants are cloned in, so later
      passes see them). A top-level `scf.parallel` or `scf.forall` becomes
      a kernel too (a forall as a parallel loop), its buffers `outs` when
      anything in it writes them through any view.
    - `memref.alloc`/`alloca` and `gpu.alloc` become `gp.buffer.alloc`;
      `memref.dealloc`, `gpu.dealloc` and result-less `bufferization.dealloc`
      are dropped, since `gp-partition` and `gp-plan-memory` re-plan every
      free (dropping a free of a function argument is remarked on: the
      caller owns its buffers).
    - Views: `memref.subview` (rank-reducing too) becomes `gp.buffer.slice`,
      `expand_shape`/`collapse_shape` and contiguous `reshape`,
      `reinterpret_cast` and zero-offset `view` become `gp.buffer.reshape`
      (with a `gp.buffer.bitcast` for `view`), `memref.transpose` becomes
      `gp.buffer.transpose`; `memref.cast` disappears (its users take the
      more precise type).
    - `memref.copy` and `gpu.memcpy` become `gp.copy`, a device copy when
      the memory spaces differ.
    - `func.call` of a `func.func private` declaration becomes a
      `gp.fallback`. The declaration's attributes give the schema:
      `gp.op_name = "ns::op"` (default: the callee's name when it has the
      `ns::op` form), `gp.mutates = [i, ...]`, `gp.aliases = [a, ...]`
      (`-1` for a fresh result) and `gp.tags = ["cudagraph_unsafe"]`.
      Without a schema the call mutates and aliases nothing and is captured
      only if the runtime's registry allows it at capture time; a remark
      says so. Calls of functions with bodies must be inlined first.
    - Scalar `arith`/`math`/`index`/`affine.apply` ops stay host
      computations. A top-level `memref.store` becomes a one-thread
      kernel, which takes along the pure scalar ops and `memref.load`s of
      its device that compute the stored value (so nothing waits for the
      device); any other `memref.load` becomes `gp.item` of a one-element
      slice. `memref.dim` of a dynamic dimension becomes a
      `gp.symint.dim` (`argN_dimD` for arguments) with the bounds of the
      function's `gp.symint_min`/`gp.symint_max` attributes, else the
      `symint-min`/`symint-max` options; of an allocation, its size operand.
    - `memref.get_global` of a constant global (dense or dense_resource)
      becomes a buffer filled by a kernel (a splat fill, or element stores
      up to 1024 elements); with `weights-dir`, a larger one becomes a
      trailing function argument that is a parameter named after the
      global (`gp.parameter = "<global>"`), its data written as
      `<dir>/<global>.npy` for `gp-run --parameters` (by name) and listed
      in `<dir>/<function>.weights` for `gp-run --weights` (by position).
      A global whose name an argument's `gp.parameter` already has is an
      error.
    - `scf.for`, `scf.if`, `scf.while` and `cf` branches stay; their
      bodies are imported the same way and `gp-partition` cuts at them as
      control flow.

    Parameters (`gp.parameter` arguments) are read-only: an op that
    writes or frees one, directly or through a view (a kernel's `outs`, a
    copy's target, a fallback's mutated operand), is a located error.

    Anything else (tensors left unbufferized, unranked memrefs, unknown
    ops) is a located error that names the op and what to do; on error
    the module is left as it was.
  }];
  let dependentDialects = [
    "::mlir::gp::GPDialect", "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::linalg::LinalgDialect"
  ];
  let options = [
    Option<"defaultDevice", "default-device", "std::string", "\"cuda:0\"",
           "Device of memrefs without a memory space: cuda:N or cpu">,
    Option<"symintMin", "symint-min", "int64_t", "-1",
           "Lower bound of imported dynamic sizes (-1: none)">,
    Option<"symintMax", "symint-max", "int64_t", "-1",
           "Upper bound of imported dynamic sizes (-1: none)">,
    Option<"weightsDir", "weights-dir", "std::string", "\"\"",
           "Turn constants of more than 1024 distinct elements into trailing "
           "parameter arguments (gp.parameter = \"<global>\"), written to "
           "DIR/<global>.npy and listed per function in "
           "DIR/<function>.weights (gp-run --parameters DIR or --weights DIR)">,
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernels made">,
    Statistic<"numFallbacks", "fallbacks", "Calls made fallbacks">,
    Statistic<"numViews", "views", "Views made">,
  ];
}

def GPMutableGlobalsToParametersPass
    : Pass<"gp-mutable-globals-to-parameters", "::mlir::ModuleOp"> {
  let summary = "Make mutable ml_program globals state the runtime keeps";
  let description = [{
    torch-mlir keeps state between calls (its RNG seed) in a mutable
    `ml_program.global` read with `global_load` and written with
    `global_store`. On the tensor program, before bufferization, every
    function using such a global gets an argument `{gp.mutable,
    gp.parameter = "<global>"}`; each load becomes the state's value at
    that point, each store its new value, and the final value is returned
    as the result `gp.writes_parameter` names (gp-write-back-parameters
    then writes the state in place). The global's initial value goes to the
    module attribute `gp.initial_values`: the runtime allocates the state
    and fills it when the artifact loads, so no caller binds it.
    `gp-compile --bufferize` runs it first. Loads and stores must sit in
    the body of an entry function (not in a nested region or a called
    function); the global must be a static tensor with a dense or
    dense_resource initial value.

    ```mlir
    ml_program.global private mutable @seed(dense<0> : tensor<i64>) : tensor<i64>
    func.func @f() -> tensor<i64> {
      %s = ml_program.global_load @seed : tensor<i64>
      %n = ... %s ...
      ml_program.global_store @seed = %n : tensor<i64>
      return %n : tensor<i64>
    }
    // becomes
    module attributes {gp.initial_values = {seed = dense<0> : tensor<i64>}}
    func.func @f(%seed: tensor<i64> {gp.mutable, gp.parameter = "seed"})
        -> (tensor<i64>, tensor<i64> {gp.writes_parameter = "seed"}) {
      %n = ... %seed ...
      return %n, %n : tensor<i64>, tensor<i64>
    }
    ```
  }];
  let dependentDialects = ["::mlir::gp::GPDialect"];
}

def GPReadOnlyArgumentsPass
    : Pass<"gp-read-only-arguments", "::mlir::ModuleOp"> {
  let summary = "Keep upstream bufferization from writing into arguments";
  let description = [{
    Marks every tensor argument of a function with a body
    `bufferization.writable = false`, except `gp.mutable` parameters, so
    that `one-shot-bufferize` (`bufferize-function-boundaries`) copies an
    argument that the tensor program uses as the destination of an op
    instead of writing into it in place. Parameters are bound to the
    caller's weights without a copy, and inputs are the caller's tensors:
    in tensor semantics a program writes neither (gp-import refuses a
    program that writes a parameter). A mutable parameter (state such as
    a key/value cache) stays writable, so its update is made in place.
    `gp-compile --bufferize` runs this pass right before bufferizing.

    ```mlir
    func.func @f(%x: tensor<4xf32>, %w: tensor<4xf32> {gp.parameter = "w"})
    // becomes
    func.func @f(%x: tensor<4xf32> {bufferization.writable = false},
                 %w: tensor<4xf32> {bufferization.writable = false,
                                    gp.parameter = "w"})
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def GPWriteBackParametersPass
    : Pass<"gp-write-back-parameters", "::mlir::ModuleOp"> {
  let summary = "Write mutable parameters' new values in place";
  let description = [{
    A tensor program gives the new value of a `gp.mutable` parameter (a
    key/value cache, a running statistic) as a function result marked
    `gp.writes_parameter = "<name>"`. Run after bufferization, this pass
    makes each such result a write of the parameter's own buffer and drops
    the result, so the caller's bound tensor holds the new value and no
    copy is returned: where bufferization already wrote in place (it
    returns the argument itself) nothing is added, else a `memref.copy`
    into the parameter precedes the return. `gp-compile --bufferize` runs
    it right after `one-shot-bufferize`. Functions that are called from the
    program (not entries) may not write parameters.

    ```mlir
    func.func @step(%k: memref<8x4xf32> {gp.mutable, gp.parameter = "k"})
        -> (memref<8x4xf32> {gp.writes_parameter = "k"}) {
      ... writes %k ...
      return %k : memref<8x4xf32>
    }
    // becomes
    func.func @step(%k: memref<8x4xf32> {gp.mutable, gp.parameter = "k"}) {
      ... writes %k ...
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def GPGPUModuleToBinaryPass
    : Pass<"gp-gpu-module-to-binary", "::mlir::ModuleOp"> {
  let summary = "Serialize gpu.modules to binaries, in parallel";
  let description = [{
    What upstream `gpu-module-to-binary{format=bin}` does — each
    `gpu.module` serialized by its target attributes (NVVM: LLVM's NVPTX
    back end, then ptxas) into a `gpu.binary` of the same name — with the
    kernels of a large module first split across up to one module per
    thread (`threads`, default the machine's hardware threads; balanced by
    op count, at least `min-kernels-per-part` kernels each; helpers and
    globals are copied into every part) and the modules serialized at
    once. A whole model's kernels are one module of hundreds of kernels,
    whose serialization is the largest part of compiling it. Each
    `gpu.launch_func` names its kernel's new module; the runtime loads one
    image per binary. With `threads=1` it is the upstream pass.
  }];
  let options = [
    Option<"numThreads", "threads", "unsigned", "0",
           "Modules serialized at once (0: the machine's hardware threads)">,
    Option<"minKernelsPerPart", "min-kernels-per-part", "unsigned", "16",
           "Split a module only into parts of at least this many kernels">,
    Option<"toolkitPath", "toolkit", "std::string", [{""}],
           "The CUDA toolkit's path (default: the target's)">,
    Option<"cmdOptions", "opts", "std::string", [{""}],
           "Options for the tools (ptxas)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def ConvertGPToGPUPass : Pass<"convert-gp-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Outline cuda gp.kernel bodies into GPU kernels";
  let description = [{
    Every `gp.kernel` on a cuda device becomes host-side launch code —
    `gpu.launch_func` ops on kernels outlined into one `gpu.module
    @gp_kernels` — in place, so partitions keep their structure. Kernel
    bodies go through upstream lowering: linalg to parallel loops, loops
    tiled by `block-size` and mapped to blocks and threads (a 4096-element
    elementwise op becomes 16 blocks of 256 threads), then outlined. Work in
    a body that has no parallel loop to map (a store of one element) runs as
    a single GPU thread rather than on the host.

    Linalg ops with reduction loops whose outputs combine a value of the
    inputs with add, mul, max, min, and, or or xor (sums, means, softmax
    and layer-norm statistics, reductions to a scalar) get a block of
    threads per parallel point: threads fold strided shares of the
    reduction (consecutive threads on consecutive elements) and
    `gpu.all_reduce` combines them. When the parallel points are fewer than
    128 and the reductions long, up to 1024 blocks share a point and fold
    their results into the output atomically. f16 and bf16 accumulate in
    f32. Short reductions over many points (fewer than 32 elements, at
    least 1024 points) and other reductions keep a thread per point.

    In a `noalias` kernel (a row kernel of gp-fuse-kernels), consecutive
    linalg ops that work row by row (`RowLoops.h`: shared leading parallel
    loops of static sizes, reductions of everything else, writes only at
    the op's row), at least one a reduction and two not fills, become one
    launch with a block per row: the ops run in order with `gpu.barrier`
    between them, a reduction as above (thread 0 writes the row's value,
    a fill right before it giving the initial value) and an elementwise op
    over its row's elements strided by the threads. A softmax or a layer
    norm is one launch that reads its rows from memory about once.

    A kernel whose body is one contraction (`linalg.matmul`,
    `batch_matmul`, matmuls with transposed operands, a `linalg.generic`
    whose indexing maps and mul-add body make it one), of f32, f16 or bf16
    alike, with at most one batch dimension, becomes a call of the
    runtime's built-in `gp::matmul` extern (cuBLAS on the partition's
    stream, captured with it) on `gp.buffer.transpose` views that order its
    operands [batch,] rows, columns; a +0.0 `linalg.fill` of the output
    before it, in the same kernel or in a fill-only kernel right before,
    turns into the call's overwrite mode (the fill kernel goes).

    Buffers reach the kernels through `memref.memory_space_cast` to the
    default memory space: a kernel sees plain device pointers. The module
    gets `gpu.container_module`. Compile the kernels for sm_90 with
    `nvvm-attach-target{chip=sm_90}`, `convert-gpu-to-nvvm` inside
    `gpu.module`, and `gpu-module-to-binary{format=bin}` (docs/Lowering.md).
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
    "::mlir::affine::AffineDialect", "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect"
  ];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block for mapped parallel loops (and at most, "
           "for reductions)">,
    Option<"libraryCalls", "library-calls", "bool", "true",
           "Run contractions (matmuls) as calls of the runtime's cuBLAS "
           "matmul (off: as kernels)">,
    Option<"parallelReductions", "parallel-reductions", "bool", "true",
           "Reduce with blocks of threads (off: a thread per parallel "
           "point)">,
    Option<"elementsPerThread", "elements-per-thread", "int64_t", "1",
           "Most elements a thread of a long elementwise loop takes, "
           "block-size apart, loading all of them before it stores any "
           "(1: one each; a power of two up to 8)">,
    Option<"rowElementsPerThread", "row-elements-per-thread", "int64_t",
           "1",
           "Elements of a row each thread of a row kernel takes at least, "
           "where the row is long enough (fewer threads a row: 16 puts a "
           "row of 512 on one warp); 1: a thread per element up to "
           "block-size threads. A power of two up to 16">,
  ];
}

def ConvertGPToRuntimePass : Pass<"convert-gp-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Lower a partitioned, planned program onto the GraphPart runtime";
  let description = [{
    Turns each function of a program that went through `gp-pipeline` into
    an entry point of a loadable artifact, calling the runtime's C ABI
    (include/GraphPart/Runtime/GPRuntime.h):

    - `func.func @f` becomes `@gp_entry_f(program, args, results) -> i32`:
      `args[i]` and `results[i]` point to a memref descriptor (buffers) or an
      int64 (index); it returns the first failing runtime status.
    - Each `gp.partition` is outlined into a body function run by
      `gpRtRunPartitionWithResults`, which warms up, captures, replays or
      runs it eagerly; the partition's index inputs are its shape key.
    - Planned buffers (`offset`) are placed in the program's arenas (the
      device arena, or the host arena for `#gp.device<cpu>`); the others are
      taken with `gpRtAllocate` inside the body.
    - Kernels left as `gp.kernel` (all of them for `target=host`, cpu ones
      for `target=cuda`) become host functions launched with
      `gpRtLaunchHostKernel`; `gpu.launch_func` ops (from
      `convert-gp-to-gpu` and `gpu-module-to-binary`) become
      `gpRtLaunchCudaKernel` on the partition's stream, with the cubin kept
      in the artifact. Fallbacks call the extern registry, copies and
      `gp.item` become `gpRtCopy`, RNG states come from `gpRtRngState` (their
      fills are kernels by then: `gp-expand-rng-fills`).
    - A string `gp_manifest` describes the artifact: partitions, arenas,
      generators, entry signatures, the cuda device index the program's
      buffers name and the policy defaults given as options, so loading
      the artifact behaves as compiling it afresh.

    The output still holds func, arith, memref, linalg and LLVM dialect ops;
    the `gp-pipeline` option `target` runs the upstream conversions to the
    LLVM dialect after it (docs/Lowering.md).
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect",
    "::mlir::arith::ArithDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::func::FuncDialect"
  ];
  let options = [
    Option<"target", "target", "std::string", "\"host\"",
           "Where kernels run: host (loops on the CPU) or cuda">,
    Option<"warmupRuns", "warmup-runs", "int64_t", "1",
           "Policy default: eager runs of a shape before its capture">,
    // Parsed where the option is read (Conversion/CaptureSizesOption.h); no
    // default is no list.
    Option<"captureSizes", "capture-sizes", "::gp::CaptureSizes", "",
           "Policy default: the only shape keys captured, e.g. 1,2,4 or "
           "2x3,4x5 or default (Runtime/CaptureSizes.h; "
           "GP_CUDAGRAPH_CAPTURE_SIZES overrides it)">,
    Option<"shapeWarningLimit", "shape-warning-limit", "int64_t", "8",
           "Policy default: distinct shapes per partition before a warning "
           "(GP_CUDAGRAPH_SHAPE_WARNING_LIMIT overrides it)">,
    Option<"graphCacheCapacity", "graph-cache-capacity", "int64_t", "64",
           "Policy default: recorded keys kept per partition and thread "
           "(GP_CUDAGRAPH_CACHE_CAPACITY overrides it)">,
    Option<"orError", "or-error", "bool", "false",
           "Policy default: running anything uncaptured is an error "
           "(GP_CUDAGRAPH_OR_ERROR overrides it)">,
  ];
}

#endif // GRAPHPART_CONVERSION_PASSES_TD
