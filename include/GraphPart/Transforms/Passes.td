//===- Passes.td - GraphPart passes ------------------------*- tablegen -*-===//

#ifndef GRAPHPART_TRANSFORMS_PASSES_TD
#define GRAPHPART_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def GPPartitionPass : Pass<"gp-partition"> {
  let summary = "Cut a program into capturable and eager partitions";
  let description = [{
    Runs on every function (any `FunctionOpInterface` op) at or under the
    op it is scheduled on. Classifies every compute op of each block (see `CaptureSafety.h` for the
    reasons an op cannot be captured), groups maximal runs of capture-safe
    ops into `capturable` partitions and runs of unsafe ops into `eager`
    partitions, and wraps each run in a `gp.partition` with an explicit
    signature:

    - inputs: every value the partition's ops use; the symints in the
      shapes, strides and offsets of its buffer inputs; RNG states its RNG
      ops draw from; and buffers allocated earlier whose last use (through
      any alias) is here, so they can be freed after it — in the order
      documented in docs/Rationale.md;
    - results: values made inside and used later, then every buffer input
      the partition does not free (yielded back);
    - `writes`: inputs written through any alias; `frees`: inputs whose
      storage ends its life here.

    Allocations and views go into the partition of their first user;
    symints, RNG states and other host scalars stay outside. A dynamic
    dimension no `gp.symint.dim` names, of a buffer argument or of a buffer
    a compute op makes (an extern's result) that a later partition uses,
    gets one (`arg0_dim0`, `result0_dim0`), so that the shape key of a
    partition whose work depends on it holds it; names no partition takes
    are erased.

    With `cudagraph-or-error` (or `GP_CUDAGRAPH_OR_ERROR=1` in the
    environment) every unsafe op is an error instead. `report` prints the
    partitions and the reasons to stderr; `dot-file` writes a Graphviz
    picture (render with `dot -Tsvg FILE -o out.svg`).
  }];
  let dependentDialects = ["::mlir::gp::GPDialect"];
  let options = [
    ListOption<"unsafeOps", "unsafe-ops", "std::string",
               "Fallback ops to cut at: ns::op (every overload) or ns::op.overload">,
    Option<"skipDynamicGraphs", "skip-dynamic-graphs", "bool", "false",
           "Do not capture ops with symbolic sizes">,
    Option<"captureCollectives", "capture-collectives", "bool", "true",
           "Capture collectives (gp.all_reduce, ...) with the work around "
           "them (off: cut at each, for comparison)">,
    Option<"minPartitionSize", "min-partition-size", "unsigned", "1",
           "Capturable partitions with fewer compute ops than this run eagerly">,
    Option<"cudagraphOrError", "cudagraph-or-error", "bool", "false",
           "Fail, naming each op that cannot be captured, instead of cutting">,
    Option<"report", "report", "bool", "false",
           "Print the partitions, their signatures and the reasons to stderr">,
    Option<"dotFile", "dot-file", "std::string", "\"\"",
           "Write the partitioned program as Graphviz DOT to this file">,
    Option<"reportFile", "report-file", "std::string", "\"\"",
           "Write the partitions as JSON to this file (docs/Reports.md)">,
  ];
  let statistics = [
    Statistic<"numPartitions", "partitions", "Partitions created">,
    Statistic<"numCapturable", "capturable-partitions", "Capturable partitions">,
    Statistic<"numEager", "eager-partitions", "Eager partitions">,
    Statistic<"numUnsafeOps", "unsafe-ops", "Ops that cannot be captured">,
  ];
}

def GPReorderPass : Pass<"gp-reorder"> {
  let summary = "Reorder ops so that the program cuts into fewer partitions";
  let description = [{
    Reorders the ops of every block of every function (at or under the op
    it runs on) without changing results: the new order respects every
    dependence (`Dependences.h`: def-use, and read/write/free of any alias
    of a buffer, RNG states).

    - `min-partitions`: a topological order with three ready-queues —
      allocations, views and host definitions are taken as soon as ready;
      then the queue of ops that cannot be captured is drained, then the
      queue of capture-safe ops, and again, each queue keeping the original
      relative order. Both starting queues are tried; the better order has
      the minimum number of partitions (checked against brute force on
      random programs).
    - `simple`: an unsafe op with no compute op before it in the dependence
      graph moves to the front; one with no compute op after it (its only
      users are the program's outputs) moves to the end.

    By default both run, `simple` after `min-partitions`. Each strategy's
    order is kept only if it has fewer partitions and its estimated peak
    memory (`MemoryEstimate.h`) is at most `memory-budget` times the current
    order's; otherwise the current order stays (the report says why). Allocations, views
    and symints are then re-placed just before their first user, and frees
    as early as their dependences allow.
  }];
  let dependentDialects = ["::mlir::gp::GPDialect"];
  let options = [
    ListOption<"strategies", "strategy", "std::string",
               "Strategies to run, in this order: min-partitions, simple "
               "(default: both)">,
    Option<"memoryBudget", "memory-budget", "double", "1.1",
           "Accept a min-partitions order only if its estimated peak memory "
           "is at most this times the current order's">,
    ListOption<"unsafeOps", "unsafe-ops", "std::string",
               "As for gp-partition: fallback ops that cannot be captured">,
    Option<"skipDynamicGraphs", "skip-dynamic-graphs", "bool", "false",
           "As for gp-partition: ops with symbolic sizes cannot be captured">,
    Option<"captureCollectives", "capture-collectives", "bool", "true",
           "As for gp-partition: off, collectives cannot be captured">,
    Option<"report", "report", "bool", "false",
           "Print partition counts and peak memory before and after to stderr">,
  ];
  let statistics = [
    Statistic<"partitionsBefore", "partitions-before",
              "Partitions the blocks would cut into before reordering">,
    Statistic<"partitionsAfter", "partitions-after",
              "Partitions the blocks cut into after reordering">,
    Statistic<"peakBytesBefore", "peak-bytes-before",
              "Estimated peak bytes before reordering">,
    Statistic<"peakBytesAfter", "peak-bytes-after",
              "Estimated peak bytes after reordering">,
    Statistic<"rejectedForMemory", "rejected-for-memory",
              "min-partitions orders rejected by the memory budget">,
  ];
}

def GPFuseKernelsPass : Pass<"gp-fuse-kernels"> {
  let summary = "Merge elementwise producer kernels into their consumers";
  let description = [{
    An importer makes one `gp.kernel` per op, each body a single linalg op
    (named or generic) over the kernel's block arguments, so a chain of
    elementwise ops writes and reads a temporary buffer per op. This pass
    merges a producer kernel P into a consumer kernel C, inside one
    `gp.partition` body (never across partitions), when:

    - P's output T is a `gp.buffer.alloc` of the same block whose only
      users are P (its one output, not read), C (as inputs only), views
      of T that only C and further views use, and, after C, its
      `gp.buffer.dealloc`: not yielded, not returned, not a program
      input. The views are reshapes, slices and transposes of static
      shape, offset and strides (an importer's head splits); each gives
      the map from its indices to T's (its element at d is T's at linear
      position offset + sum(d_k * stride_k), split by T's strides, with
      no division where the arithmetic is exact), and a dimension of an
      input of P that the fused op indexes by a loop alone must have that
      loop's size (linalg's rule; a slice of the first columns of T
      fails it);
    - P writes every element of T without reading it: all iterators
      parallel, a permutation as output map, the old value of T unused,
      a payload free of memory effects (it may be recomputed), e.g. an
      elementwise `linalg.generic`, `linalg.map` or `linalg.fill`;
    - C reads T through any indexing map and is elementwise or a
      reduction, but not a contraction or convolution (those stay whole
      for cuBLAS and its kin), except that a contraction takes in a P that
      only copies or transposes a buffer whose last dimension is
      contiguous, read through a permutation of the contraction's loops
      (`x @ W.T`'s weight transpose; a decode step's key cache transposed
      for `q @ k^T`): cuBLAS takes such an operand as it is. Where the
      buffer has dimensions of extent 1 that the fused contraction reads
      at 0 (a [1, H, L, E] cache read as [H, L, E]), the kernel reads a
      rank-reducing `gp.buffer.slice` without them instead;
    - no op between P and C depends on P (`Dependences.h`: none writes an
      input of P, touches T, or has unknown effects), and no input of P
      may alias an output of C (`BufferAliasAnalysis.h`), so reading P's
      inputs at C's place sees the values P saw;
    - both kernels are on one device.

    The fused kernel sits where C was: its `ins` are C's inputs without T
    followed by P's inputs (deduplicated, scalars included), its `outs`
    are C's outs, and its body is one `linalg.generic` (named ops are
    generalised first) over C's iteration space in which P's payload is
    computed inline wherever C's payload read T, P's inputs being indexed
    by (P's input map) . (P's output map)^-1 . (view map) . (C's map for
    T or its view). T's allocation, its views and its free go away. Fusing repeats until nothing changes, so
    a chain of elementwise ops becomes one kernel, and producers fold into
    reductions (softmax, layer norm). The kernel is named `P_C` (C's name
    with `_fused` once that grows past 48 characters); its location fuses
    both.

    Then (option `duplicate`) a producer that several kernels read: when
    its payload has at most 4 ops, every reader is elementwise (a reduction
    reader keeps its row kernel), each reader and P meet the rule above
    (T read only as inputs, directly or through views) and every kernel
    between P and a reader that depends on P is another reader, P is
    computed again in each reader and T goes away. One such producer at a
    time, then the one-reader rule again, until nothing changes.

    Then row kernels: a softmax or a layer norm reaches this pass as a few
    cuda kernels (a reduction's fill and reduction, another reduction, the
    normalization) that no rule above fuses, as a reduction's result is
    read at every element of its row. Two such kernels A and B (A before
    B, B reading or writing an output of A) become one kernel, A's body
    followed by B's, where B was, when:

    - both are cuda kernels whose bodies are linalg ops on their block
      arguments and pure scalar ops;
    - the ops of both work row by row (`RowLoops.h`): they share leading
      parallel loops of the same sizes, those of the first reduction (a
      dynamic size only when every op is linked to the others through a
      buffer both index by their rows, so that the sizes are equal), the
      other loops are static, each reduction reduces every other loop, and
      a buffer any of them writes is read and written only at the op's own
      row;
    - no op between A and B depends on A (A's work moves down to B);
    - every buffer the merged kernel writes may alias none of its other
      operands (`BufferAliasAnalysis.h`).

    The merged kernel is `noalias` (its buffers are distinct memory), which
    lets convert-gp-to-gpu run it as one launch with a block per row. Its
    `outs` are both kernels' outs, its `ins` their other operands; no
    buffer goes away. Merging repeats until nothing changes.

    In a function without partitions (the pass run on its own before
    gp-partition), the same rules apply to the blocks of the function
    body. In a partitioned function only partition bodies are fused.

    Before fusing, a call of an extern that can write a given buffer of
    any layout (gp::attention, as gp::attention_into) whose fresh result
    is only copied through a permutation into another buffer, with
    nothing but pure ops and allocations between the two, writes that
    buffer through the permuted `gp.buffer.transpose` view instead; the
    copy kernel and the result's deallocations go (attention's result
    merged back to [B, L, H, E] before the output projection). Likewise
    such a call that reads a fresh buffer filled only by a plain copy of a
    view of memory nothing in the program writes (a slice of a buffer
    parameter, copied because bufferization gives calls identity layouts)
    reads the view instead.

    Then (option `siblings`), independent elementwise kernels share a
    launch: two kernels A and B (A before B, at most 16 ops apart) become
    one kernel where B was when both bodies are one `linalg.generic` (and
    pure scalar ops) with parallel loops only, over the same static loop
    ranges; they are on one device and neither is `noalias`; and no op
    after A up to and including B depends on A (`Dependences.h`: B reads
    nothing A writes and writes nothing A reads or writes, through
    possibly aliasing memory, and A's work may move down to B). The merged
    kernel's one generic has A's inputs then B's, A's outputs then B's,
    and both payloads: the query, key and value heads split from one
    projection (three kernels reading one buffer) or written by three
    projections become one launch. Merging repeats until nothing changes.

    Last, a copy kernel whose fresh destination holds its source's
    elements in the same order in memory (both contiguous and static; what
    moves is dimensions of extent 1, as a decode step's heads merged back
    from [12, 1, 64] into [1, 1, 12, 64]) becomes a `gp.buffer.reshape` of
    the source, where the source is an allocation of the block (or a
    reshape of one) that nothing writes after the copy nor hands out, and
    the destination is only read, in the block; the source's frees move
    after the destination's last reader.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::affine::AffineDialect"
  ];
  let options = [
    Option<"report", "report", "bool", "false",
           "Print each fusion and the counts per function to stderr">,
    Option<"rows", "rows", "bool", "true",
           "Merge the cuda kernels of row-by-row ops (softmax, layer "
           "norm) into row kernels">,
    Option<"duplicate", "duplicate", "bool", "true",
           "Compute a cheap producer (at most 4 payload ops) again in "
           "each of several consumers">,
    Option<"siblings", "siblings", "bool", "true",
           "Merge independent elementwise kernels over the same loop "
           "ranges into one kernel">,
  ];
  let statistics = [
    Statistic<"numFused", "kernels-fused",
              "Producer kernels merged into their consumers">,
    Statistic<"numBuffersRemoved", "buffers-removed",
              "Intermediate buffers no longer allocated">,
    Statistic<"numRowMerges", "row-merges",
              "Kernels merged into row kernels">,
    Statistic<"numSiblingMerges", "sibling-merges",
              "Independent elementwise kernels merged into one">,
  ];
}

def GPPlanMemoryPass : Pass<"gp-plan-memory"> {
  let summary = "Insert frees, reuse dead buffers, assign arena offsets";
  let description = [{
    Plans the memory of every single-block function at or under the op it
    runs on, normally after gp-partition:

    1. liveness over the program in execution order (partition bodies in
       place): each buffer object the function makes (allocations, fresh
       fallback results) gets a `gp.buffer.dealloc` right after the last use
       of its storage through any alias — never while a view of it is used,
       and each result of a multi-result fallback at its own last use. A
       partition whose `frees` names a buffer frees it inside. Program
       inputs and returned storage are not freed.
    2. reuse within each partition: an allocation takes over
       (`gp.buffer.reuse`) the storage of a buffer freed earlier in the same
       partition when the device matches and it fits (best fit), unless that
       buffer is an output of the partition.
    3. static arena offsets: every statically sized, non-meta allocation
       gets `offset`, a multiple of 256 in its device's arena, such that
       buffers alive at the same time never overlap; the function gets
       `gp.arenas`. Buffers with symbolic sizes are left to the runtime,
       which plans them once per shape key.

    Functions that branch between blocks are left unplanned (with a
    warning). Run gp-verify-plan afterwards to check the plan.
  }];
  let dependentDialects = ["::mlir::gp::GPDialect"];
  let options = [
    Option<"report", "report", "bool", "false",
           "Print frees, reuses, bytes saved and arena sizes to stderr">,
    Option<"reportFile", "report-file", "std::string", "\"\"",
           "Write partitions, planned buffers, frees and arenas as JSON to "
           "this file (docs/Reports.md)">,
  ];
  let statistics = [
    Statistic<"numFrees", "frees", "Frees inserted">,
    Statistic<"numReuses", "reuses", "Allocations that reuse a dead buffer">,
    Statistic<"bytesSavedByReuse", "bytes-saved-by-reuse",
              "Bytes not allocated thanks to reuse">,
    Statistic<"arenaBytes", "arena-bytes", "Total arena bytes">,
  ];
}

def GPSizeClassesPass : Pass<"gp-size-classes", "func::FuncOp"> {
  let summary = "Record an entry's run-time sizes and whether padding them is safe";
  let description = [{
    Finds which dynamic argument dimensions (and `index` arguments used as
    sizes) the function uses as one size, and which result dimensions are
    that size (`computeSizeClasses`): a linalg loop ties every dimension it
    indexes directly, a copy ties its sides, and buffers allocated or viewed
    with a symint have that symint's size. Records them as the function's
    `gp.size_classes` (`#gp.size_class`), which the manifest carries to the
    runtime: it checks at every call that the caller's sizes agree, and may
    pad a size whose positions are proven independent (every loop over it
    parallel and direct, no opaque op or reshape mixing it, never read as a
    value, no argument sized by it written in place) to a captured size.
    Runs on gp programs before partitioning.

    ```mlir
    // gp-opt --gp-size-classes
    func.func @f(%x: memref<?x16xf32, #gp.device<cuda:0>>, ...)
        attributes {gp.size_classes = [#gp.size_class<"arg0_dim0",
            arguments = [0, 0], results = [0, 0],
            fixed = -1, unpaddable = "">]}
    ```
  }];
  let dependentDialects = ["::mlir::gp::GPDialect"];
}

def GPVerifyPlanPass : Pass<"gp-verify-plan"> {
  let summary = "Check that a memory plan never touches freed memory";
  let description = [{
    Walks each function in execution order (partition bodies in place) and
    reports, with a located error:

    - a read or write of a buffer (directly or through any alias) after its
      storage was freed or handed to another buffer by `gp.buffer.reuse`;
    - a free of a buffer that was already freed, of a program input, or of a
      buffer one of whose aliases is still used later;
    - two buffers alive at the same time whose arena ranges overlap on one
      device.

    It changes nothing; gp-pipeline runs it after planning when `debug` is
    set.
  }];
}

def GPExpandStridedCopiesPass : Pass<"gp-expand-strided-copies"> {
  let summary = "Rewrite copies of non-contiguous views as copy kernels";
  let description = [{
    The runtime copies whole contiguous buffers; a `gp.copy` from or into a
    strided view (a transpose, a window) is rewritten here. On one device
    it becomes a `gp.kernel` whose body is a `linalg.copy` (a GPU kernel on
    cuda, loops on the host), so it stays capturable. Between devices, each
    strided side is staged through a new contiguous buffer of the same
    static shape on its own device, with a copy kernel there, and the
    devices exchange the contiguous buffers. A copy between devices with a
    strided side of dynamic shape is an error (stage it through a
    contiguous buffer in the program). gp-pipeline runs this first.

    ```mlir
    gp.copy %t, %y : memref<7x5xf32, strided<[1, 7]>, #gp.device<cuda:0>> to memref<7x5xf32, #gp.device<cuda:0>>
    // becomes
    gp.kernel "strided_copy" ins(%t : ...) outs(%y : ...) {
    ^bb0(%in: ..., %out: ...):
      linalg.copy ins(%in : ...) outs(%out : ...)
    }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def GPEmulateFloatsPass : Pass<"gp-emulate-floats"> {
  let summary = "Compute on small float types through f32 in kernel bodies";
  let description = [{
    Buffers may hold f16, bf16, f8E4M3FN and f8E5M2 elements, but neither
    backend computes on all of them: in `gp.kernel` bodies, every `arith`
    and `math` op on f8E4M3FN or f8E5M2 values, on bf16 values unless the
    target has bf16 arithmetic (`native-bf16`, sm_90), and every `math` op
    on f16 or bf16 values, is computed in f32, between an `arith.extf` of
    its operands and an `arith.truncf` of its results (upstream's float
    emulation). A named linalg op whose body this changes is generalized
    first. The f8 conversions then become integer code, since LLVM has no
    f8 types: `arith.extf` from f8 decodes the bits exactly (subnormals,
    infinities and NaNs included); `arith.truncf` to f8 rounds to nearest
    even, with subnormals, and overflows to NaN (f8E4M3FN, which has no
    infinity: values of magnitude above 464) or to infinity (f8E5M2, at
    least 61440). A value wider than f32 is rounded to f32 first. Without
    `native-bf16` (the host target), bf16 conversions are integer code too
    (upstream `arith-expand`). What is left on f8 values besides loads,
    stores, selects, constants and bitcasts is an error.

    gp-pipeline runs it before the kernels are lowered, on both targets.
  }];
  let options = [
    Option<"nativeBF16", "native-bf16", "bool", "false",
           "The target has bf16 arithmetic and conversions (sm_90): only "
           "math functions on bf16 go through f32">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"
  ];
}

def GPExpandRngFillsPass : Pass<"gp-expand-rng-fills"> {
  let summary = "Rewrite RNG fills as kernels that compute philox";
  let description = [{
    Each `gp.rng.fill` becomes a `gp.kernel` on the filled buffer's device
    whose body reads the state's `gp.rng.slot` and computes Philox4x32-10
    per element (element i takes lane i % 4 of the block i / 4, counter
    (block, offset), key seed), the same numbers as the runtime's
    `gpRtPhiloxUniform`: uniform floats in [0, 1) from the top 24 bits;
    normal ones by Box-Muller over lane pairs. The kernel then goes through
    the same lowering as every other kernel (host loops, or a GPU kernel
    from `convert-gp-to-gpu`). gp-pipeline runs it first when `target` is
    set.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect"
  ];
}

def GPCheckBoundsPass : Pass<"gp-check-bounds"> {
  let summary = "Guard kernels' loads and stores against out-of-bounds indices";
  let description = [{
    The opt-in checked mode (`gp-pipeline checked=true`). Entry points
    check symints that declare a range; indices that nothing bounds (a
    symint with no range, an index computed in the kernel) are checked
    here: every `memref.load` and `memref.store` in a kernel body runs only
    when each index is within its dimension. An access out of bounds is
    skipped (a load gives zero) and the kernel writes its number into a
    per-function flag (a `gp.scalar.slot` zeroed at each call); the
    partition takes the flag as an input it writes (`gp.bounds_flag` names
    which), and the entry point reads it after that partition and fails the
    call naming the kernel (`gp.bounds_kernels` on the function lists the
    kernels in order). Costs a bounds check per access and a wait for the
    device after each such partition: for debugging.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
  let statistics = [
    Statistic<"numGuardedKernels", "guarded-kernels",
              "Kernels whose loads and stores are bounds-checked">,
  ];
}

def GPScalarSlotsPass : Pass<"gp-scalar-slots"> {
  let summary = "Pass host scalars to captured kernels through device slots";
  let description = [{
    A CUDA graph (and the host backend's recording) keeps the kernel
    parameters it was captured with, so a capturable partition that takes a
    non-index scalar (a `gp.item` result, for instance) would replay with
    the value of its capture. Index values are the partition's shape key,
    so they re-key the graph instead; floats and other integers are not.
    Each such input is given a `gp.scalar.slot` before the partition (the
    runtime writes it in stream order on every call), the partition takes
    the slot instead, and each kernel that took the scalar takes the slot
    and loads the value when it runs. A graph is then captured once and
    every replay computes with the current value, bit for bit as an eager
    run does.

    A scalar input that a constant defines outside needs no slot: the
    constant is cloned into the partition, so that an extern may take it
    (gp::attention's scale and flags) and the partition stays capturable.
    Any other scalar used inside the partition by anything other than a
    kernel's `ins` (host arithmetic, an extern's argument) could only be
    baked in, so that partition becomes eager, with the reason "host scalar
    outside a kernel". gp-pipeline runs this pass when `target` is set, after
    planning.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numSlots", "slots", "Scalar inputs given device slots">,
    Statistic<"numMadeEager", "made-eager",
              "Partitions made eager for a scalar used outside kernels">,
  ];
}

def GPDeduplicateFunctionsPass : Pass<"gp-deduplicate-functions", "ModuleOp"> {
  let summary = "Merge functions whose bodies are identical into one";
  let description = [{
    Lowering gives every kernel a function of its own (a `gpu.func` in
    `@gp_kernels` for cuda, a private `func.func` and its packed form for
    the host), though many are the same code: the layers of a transformer,
    the same elementwise op on buffers of one shape. Everything after the
    lowering (NVPTX and ptxas, or LLVM and clang) then compiles each copy.
    This pass keeps one function per class of identical ones and points
    every reference of the others at it, like IREE's executable
    deduplication.

    Functions are identical when their attributes other than the name
    (type, argument attributes, `gpu.kernel`, known block sizes, ...) are
    equal and their bodies are equivalent op for op (locations aside):
    anything that tells two kernels apart in what they compute or report
    (a bounds-check number, an index-check code, a constant) is in the
    body, so those stay apart. Only functions the program alone can refer
    to are merged: private functions, and functions in a nested symbol
    table (a `gpu.module`), whose references are all in the module. A merge
    can make callers identical (two packed wrappers that now call one
    kernel), so it repeats until nothing merges. The function kept is the
    first in its symbol table.
  }];
  let statistics = [
    Statistic<"numMerged", "functions-merged",
              "Functions replaced by an identical one">,
  ];
}

def GPStoreChangedElementsPass
    : Pass<"gp-store-changed-elements", "func::FuncOp"> {
  let summary = "Store an element only where a select changes it";
  let description = [{
    In loops over memrefs (linalg after `convert-linalg-to-loops` or
    `-to-parallel-loops`), a store of `arith.select %c, %v, %old`, where
    `%old` was loaded from the same memref at the same indices earlier in
    the same block and nothing in between writes memory, becomes
    `scf.if %c { memref.store %v }` (`select %c, %old, %v` stores under
    `not %c`), and the load goes when nothing else uses it. A scatter at a
    position held on the device, the form of a key/value cache's
    `index_copy_`, then writes one row and reads none of the cache; masked
    updates in place write only their masked elements. Then a loop nest
    (an `scf.parallel`, or a perfect nest of `scf.for`) whose every store
    is so guarded by `iv_k == x`, one loop k and one x computed from values
    the nest does not vary (pure ops, loads of memory it does not store
    to), drops loop k: the rest runs with `iv_k = x` when x is one of loop
    k's iterations, so a cache update walks its row, not the cache. Both
    kernel lowerings run it (convert-gp-to-gpu, gp-lower-kernel-code);
    convert-gp-to-gpu also lets stores into a kernel's other outputs lie
    between a load and its store where the kernel's outputs share storage
    with none of its operands (the key and value caches updated by one
    kernel).
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def GPLowerKernelCodePass : Pass<"gp-lower-kernel-code", "ModuleOp"> {
  let summary = "Lower linalg, views, affine, loops and math, only in the "
                "functions that have them";
  let description = [{
    Runs what turns the code kernels are written in into arith, cf and
    LLVM intrinsics, on each `func.func` of the module holding an op of the
    linalg, memref, affine, scf or math dialect, and on no other:
    upstream `convert-linalg-to-loops`, then `gp-store-changed-elements`,
    `expand-strided-metadata`, `lower-affine`, `convert-scf-to-cf`,
    `math-expand-ops` (asinh, acosh
    and atanh to logarithms and square roots, which LLVM has no intrinsic
    for), `convert-math-to-llvm`, then `convert-math-to-libm`'s patterns
    for what is left (erf, atan2, cbrt, ...: calls to libm, as a host
    compiler makes them). The result is the same as running those passes
    on the whole module in that order.

    After the runtime lowering, a large program is mostly entry and
    partition code already in the LLVM dialect: with 100,000 ops, 3.6
    million LLVM ops no pattern of these passes matches, though each
    module-wide run still visits and folds every one (10 s together, where
    the kernels and the few views and scalars of the entries need a
    fraction of a second).
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
  let statistics = [
    Statistic<"numLowered", "functions-lowered",
              "Functions the lowering ran on">,
  ];
}

#endif // GRAPHPART_TRANSFORMS_PASSES_TD
