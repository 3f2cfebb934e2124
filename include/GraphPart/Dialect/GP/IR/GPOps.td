//===- GPOps.td - GraphPart operations ---------------------*- tablegen -*-===//

#ifndef GRAPHPART_DIALECT_GP_IR_GPOPS_TD
#define GRAPHPART_DIALECT_GP_IR_GPOPS_TD

include "GraphPart/Dialect/GP/IR/GPDialect.td"
include "GraphPart/Dialect/GP/IR/GPAttrs.td"
include "GraphPart/Dialect/GP/IR/GPTypes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ViewLikeInterface.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def GP_Buffer : Type<
    And<[AnyMemRef.predicate,
         CPred<"::llvm::isa_and_nonnull<::mlir::gp::DeviceAttr>("
               "::llvm::cast<::mlir::MemRefType>($_self).getMemorySpace())">]>,
    "memref with a #gp.device memory space", "::mlir::MemRefType">;

def GP_IntegerOrIndex : AnyTypeOf<[AnySignlessInteger, Index]>;

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

def GP_BufferAllocOp : GP_Op<"buffer.alloc", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "allocate a buffer on a device";
  let description = [{
    Allocates a buffer on the device named by the result's memory space. One
    `index` operand gives each dynamic dimension, in order; those operands
    are usually symints, so the buffer's shape is symbolic.

    After memory planning an allocation carries `offset`, its byte offset
    (a multiple of 256) in its device's arena (see `#gp.arena`).

    ```mlir
    %buf0 = gp.buffer.alloc() : memref<8xf32, #gp.device<cuda:0>>
    %buf1 = gp.buffer.alloc(%s0) : memref<?x4xf32, #gp.device<cuda:0>>
    %buf2 = gp.buffer.alloc() {offset = 256 : i64} : memref<8xf32, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamic_sizes,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$offset);
  let results = (outs Res<GP_Buffer, "the new buffer",
                           [MemAlloc<DefaultResource, 0, FullEffect>]>:$result);
  let assemblyFormat = "`(` $dynamic_sizes `)` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def GP_BufferDeallocOp : GP_Op<"buffer.dealloc"> {
  let summary = "free a buffer";
  let description = [{
    Ends the lifetime of a buffer made by `gp.buffer.alloc`,
    `gp.buffer.reuse` or a `gp.fallback` result. Views of it must be dead:
    a view keeps its base alive.

    ```mlir
    gp.buffer.dealloc %buf0 : memref<8xf32, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins Arg<GP_Buffer, "buffer to free", [MemFree]>:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def GP_BufferReuseOp : GP_Op<"buffer.reuse", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "take over the storage of a dead buffer";
  let description = [{
    Written by memory planning: the result is a new buffer placed in the
    storage of `source`, whose lifetime ends here (`buf2 = buf0; del buf0`).
    The result must fit: same device, and no more bytes than the source.

    ```mlir
    %buf2 = gp.buffer.reuse %buf0 : memref<8xf32, #gp.device<cuda:0>> to memref<2x4xf32, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins GP_Buffer:$source);
  let results = (outs GP_Buffer:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

class GP_ViewOp<string mnemonic, list<Trait> traits = []>
    : GP_Op<mnemonic, !listconcat(traits, [
        Pure, DeclareOpInterfaceMethods<ViewLikeOpInterface>,
        DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>])> {
  let results = (outs GP_Buffer:$result);
  let hasVerifier = 1;
}

def GP_BufferReshapeOp : GP_ViewOp<"buffer.reshape"> {
  let summary = "view a contiguous buffer with another shape";
  let description = [{
    A view of `source` with a new shape and the same elements. Both sides
    are contiguous (identity layout); one `index` operand gives each dynamic
    dimension of the result. The view aliases `source` and keeps it alive.

    `expand` (optional) gives, per source dimension, the result dimensions
    it splits into, as `memref.expand_shape`'s reassociation; gp-import
    keeps it from an expand_shape with dynamic output sizes. Those sizes
    come from the program, not from the source, so where such a view is
    lowered (an entry point or a partition body) each group with a dynamic
    size is checked when it runs: its sizes must be non-negative and
    multiply to the source dimension, or the call fails naming the op and
    both numbers, before anything reads through the view.

    ```mlir
    %view0 = gp.buffer.reshape %buf0() : memref<4x8xf32, #gp.device<cuda:0>> to memref<32xf32, #gp.device<cuda:0>>
    %view1 = gp.buffer.reshape %buf1(%n) expand [[0, 1]] : memref<?xf32, #gp.device<cuda:0>> to memref<?x4xf32, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins GP_Buffer:$source, Variadic<Index>:$dynamic_sizes,
                       OptionalAttr<IndexListArrayAttr>:$expand);
  let builders = [
    // Views made by the compiler itself: their sizes come from the source.
    OpBuilder<(ins "Type":$result, "Value":$source,
                   "ValueRange":$dynamicSizes), [{
      build($_builder, $_state, result, source, dynamicSizes, ArrayAttr());
    }]>
  ];
  let assemblyFormat = [{
    $source `(` $dynamic_sizes `)` (`expand` $expand^)? attr-dict `:` type($source) `to` type($result)
  }];
}

def GP_BufferSliceOp : GP_ViewOp<"buffer.slice", [
    AttrSizedOperandSegments,
    OffsetSizeAndStrideOpInterface]> {
  let summary = "view a strided window of a buffer";
  let description = [{
    A strided window of `source`, with static or dynamic (symint) offsets,
    sizes and strides, as `memref.subview`. The result type's layout gives
    the window's strides and offset. A result of lower rank drops static
    unit dimensions of the window (a rank-reducing subview, `x[i]` of a
    matrix). A window that reaches past its base is rejected.

    ```mlir
    %view1 = gp.buffer.slice %buf0[2] [4] [1]
        : memref<8xf32, #gp.device<cuda:0>> to memref<4xf32, strided<[1], offset: 2>, #gp.device<cuda:0>>
    %view2 = gp.buffer.slice %buf1[%s0] [%s1] [1]
        : memref<?xf32, #gp.device<cuda:0>> to memref<?xf32, strided<[1], offset: ?>, #gp.device<cuda:0>>
    %row = gp.buffer.slice %buf2[2, 0] [1, 8] [1, 1]
        : memref<4x8xf32, #gp.device<cuda:0>> to memref<8xf32, strided<[1], offset: 16>, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins GP_Buffer:$source,
                       Variadic<Index>:$offsets,
                       Variadic<Index>:$sizes,
                       Variadic<Index>:$strides,
                       DenseI64ArrayAttr:$static_offsets,
                       DenseI64ArrayAttr:$static_sizes,
                       DenseI64ArrayAttr:$static_strides);
  let assemblyFormat = [{
    $source
    custom<DynamicIndexList>($offsets, $static_offsets)
    custom<DynamicIndexList>($sizes, $static_sizes)
    custom<DynamicIndexList>($strides, $static_strides)
    attr-dict `:` type($source) `to` type($result)
  }];
  let extraClassDeclaration = [{
    /// Operands before the offsets, sizes and strides (just `source`).
    static unsigned getOffsetSizeAndStrideStartOperandIndex() { return 1; }
    std::array<unsigned, 3> getArrayAttrMaxRanks() {
      unsigned rank = getSource().getType().getRank();
      return {rank, rank, rank};
    }
  }];
}

def GP_BufferTransposeOp : GP_ViewOp<"buffer.transpose"> {
  let summary = "view a buffer with its dimensions permuted";
  let description = [{
    A view of `source` whose dimension `i` is dimension `permutation[i]` of
    the source, as `memref.transpose` or `aten.permute`: no data moves, the
    result's layout carries the permuted strides. The result type is
    inferred from the source and the permutation; it is the identity
    layout when the permuted view happens to be contiguous. The view
    aliases `source` and keeps it alive; kernels, copies and externs take
    it like any strided buffer.

    ```mlir
    %view0 = gp.buffer.transpose %buf0 [1, 0]
        : memref<4x8xf32, #gp.device<cuda:0>> to memref<8x4xf32, strided<[1, 8]>, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins GP_Buffer:$source, DenseI64ArrayAttr:$permutation);
  let assemblyFormat = [{
    $source $permutation attr-dict `:` type($source) `to` type($result)
  }];
  let builders = [
    OpBuilder<(ins "Value":$source, "ArrayRef<int64_t>":$permutation), [{
      build($_builder, $_state,
            inferResultType(cast<MemRefType>(source.getType()), permutation),
            source, $_builder.getDenseI64ArrayAttr(permutation));
    }]>
  ];
  let extraClassDeclaration = [{
    /// The type of the view of `source` permuted by `permutation` (a valid
    /// permutation of a strided source).
    static MemRefType inferResultType(MemRefType source,
                                      ArrayRef<int64_t> permutation);
  }];
}

def GP_BufferBitcastOp : GP_ViewOp<"buffer.bitcast"> {
  let summary = "reinterpret a buffer's bytes as another element type";
  let description = [{
    A view of the bytes of `source` as elements of another type, as
    `aten.view.dtype`: all but the innermost dimension are kept and the
    innermost dimension scales by the ratio of element widths, so the byte
    size is unchanged. Both sides are contiguous.

    ```mlir
    %view0 = gp.buffer.bitcast %buf0 : memref<2xf32, #gp.device<cuda:0>> to memref<8xf8E4M3FN, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins GP_Buffer:$source);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` type($result)";
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def GP_YieldOp : GP_Op<"yield", [
    Pure, Terminator, ReturnLike,
    ParentOneOf<["KernelOp", "PartitionOp"]>]> {
  let summary = "terminate a kernel or partition body";
  let description = [{
    Ends a `gp.kernel` body (no operands) or a `gp.partition` body (the
    partition's outputs, matching its result types).

    ```mlir
    gp.yield %buf0, %arg1 : memref<8xf32, #gp.device<cuda:0>>, memref<8xf32, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def GP_KernelOp : GP_Op<"kernel", [
    AttrSizedOperandSegments,
    IsolatedFromAbove,
    SingleBlockImplicitTerminator<"YieldOp">,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "a capture-safe device computation";
  let description = [{
    A device computation whose body is made of upstream ops (linalg, arith,
    math, memref, scf) acting on the body's block arguments, one per operand
    in order. `ins` are read; `outs` are read and written. Scalars (`index`,
    integers, floats) may be passed in `ins`, e.g. a symint used as a store
    index. The body is isolated from above, so the operands are all it
    touches: its memory effects are exactly reads of `ins` and writes of
    `outs`. All buffer operands live on one device, which is the kernel's.
    Kernels are capture-safe unless they run on the cpu.

    `noalias` promises that every buffer operand the body writes overlaps
    no other operand (as `gp-fuse-kernels` proves before it merges kernels
    into one row kernel): lowerings may then run the body's ops for
    different rows at the same time (`convert-gp-to-gpu` runs a softmax or
    a layer norm as one launch, a block per row).

    ```mlir
    gp.kernel "fill_at" ins(%n : index) outs(%a : memref<7xf32, #gp.device<cuda:0>>) {
    ^bb0(%idx: index, %out: memref<7xf32, #gp.device<cuda:0>>):
      %c = arith.constant -1.0 : f32
      memref.store %c, %out[%idx] : memref<7xf32, #gp.device<cuda:0>>
    }
    ```
  }];
  let arguments = (ins StrAttr:$kernel_name,
                       Variadic<AnyType>:$inputs,
                       Variadic<GP_Buffer>:$outputs,
                       UnitAttr:$noalias);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kernel_name (`noalias` $noalias^)?
    (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    (`outs` `(` $outputs^ `:` type($outputs) `)`)?
    $body attr-dict
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The device of the kernel's buffers (null when it has none).
    DeviceAttr getDevice();
  }];
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// The order in which a rank issues its collectives: every rank must issue
// them in the same order, so collectives never move across each other.
def GP_CollectiveResource : Resource<"::mlir::gp::CollectiveResource">;

class GP_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : GP_Op<mnemonic, !listconcat(traits, [
        MemoryEffects<[MemWrite<GP_CollectiveResource>]>])> {
  let hasVerifier = 1;
}

def GP_AllReduceOp : GP_CollectiveOp<"all_reduce"> {
  let summary = "combine a buffer element by element across the ranks";
  let description = [{
    A program runs as N ranks (`gp.world_size`), each with its own buffers.
    Every rank's `target[i]` becomes the sum (`max`, `min`) over the ranks
    of their `source[i]`. `source` and `target` have one shape and element
    type, are contiguous and live on one device; they may be the same
    buffer (in place). Every rank must issue the same collectives in the
    same order, so passes never move a collective across another.

    ```mlir
    gp.all_reduce sum %partial, %total : memref<8x256xf32, #gp.device<cuda:0>> to memref<8x256xf32, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins GP_ReductionKind:$kind,
                       Arg<GP_Buffer, "", [MemRead]>:$source,
                       Arg<GP_Buffer, "", [MemWrite]>:$target);
  let assemblyFormat = [{
    $kind $source `,` $target attr-dict `:` type($source) `to` type($target)
  }];
}

def GP_AllGatherOp : GP_CollectiveOp<"all_gather"> {
  let summary = "concatenate every rank's buffer along the first dimension";
  let description = [{
    Every rank's `target` becomes the ranks' `source` buffers one after
    the other along dimension 0, rank 0 first: its first dimension is N
    times `source`'s, its others the same.

    ```mlir
    gp.all_gather %shard, %whole : memref<2x64xf32, #gp.device<cuda:0>> to memref<8x64xf32, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins Arg<GP_Buffer, "", [MemRead]>:$source,
                       Arg<GP_Buffer, "", [MemWrite]>:$target);
  let assemblyFormat = [{
    $source `,` $target attr-dict `:` type($source) `to` type($target)
  }];
}

def GP_ReduceScatterOp : GP_CollectiveOp<"reduce_scatter"> {
  let summary = "combine across the ranks and keep this rank's share";
  let description = [{
    The element-by-element sum (`max`, `min`) over the ranks of their
    `source` buffers, cut into N equal parts along dimension 0: rank r's
    `target` becomes part r. `source`'s first dimension is N times
    `target`'s, its others the same.

    ```mlir
    gp.reduce_scatter sum %partial, %shard : memref<8x64xf32, #gp.device<cuda:0>> to memref<2x64xf32, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins GP_ReductionKind:$kind,
                       Arg<GP_Buffer, "", [MemRead]>:$source,
                       Arg<GP_Buffer, "", [MemWrite]>:$target);
  let assemblyFormat = [{
    $kind $source `,` $target attr-dict `:` type($source) `to` type($target)
  }];
}

def GP_BroadcastOp : GP_CollectiveOp<"broadcast"> {
  let summary = "copy one rank's buffer to every rank";
  let description = [{
    Every rank's `buffer` becomes rank `root`'s (in place). `root` must be
    a rank of the run (checked when it runs).

    ```mlir
    gp.broadcast %weights root 0 : memref<64xf32, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins Arg<GP_Buffer, "", [MemRead, MemWrite]>:$buffer,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$root);
  let assemblyFormat = "$buffer `root` $root attr-dict `:` type($buffer)";
}

def GP_RankOp : GP_Op<"rank", [Pure,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "which rank of the run this program instance is";
  let description = [{
    The rank of the program instance running (0 to `gp.world_size` - 1): a
    host value, fixed for the instance (0 when it runs alone).

    ```mlir
    %r = gp.rank : index
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def GP_WorldSizeOp : GP_Op<"world_size", [Pure,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "how many ranks the program runs as";
  let description = [{
    The number of ranks of the run: a host value, fixed for the instance
    (1 when it runs alone).

    ```mlir
    %n = gp.world_size : index
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def GP_FallbackOp : GP_Op<"fallback", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "an opaque external op with a schema";
  let description = [{
    A call of an external op (a library call such as cuBLAS matmul, or a
    user's custom op), named `ns::op` or `ns::op.overload`. Its schema says:

    - `mutates [i, ...]`: the operands it writes (all buffer operands are
      read);
    - `aliases [a0, a1, ...]`: one entry per result, either `-` (a fresh
      buffer the op allocates) or the index of the operand the result is a
      view of. A mutating op that is auto-functionalized returns fresh
      buffers, so its results do not alias what it mutates;
    - `tags [...]`: free-form tags; `"cudagraph_unsafe"` means the op must
      not be captured.

    Results are buffers or `index` values (a data-dependent size). After
    memory planning, `result_offsets` gives each result's byte offset in
    its device's arena, or -1 where the extern provides the storage (a
    symbolic size, an alias of an operand): the runtime hands the extern
    results placed there, so they are reused like any planned buffer.

    ```mlir
    %out:2 = gp.fallback "mylib::op1"(%x) mutates [0] aliases [-, -]
        : (memref<8xf32, #gp.device<cuda:0>>)
        -> (memref<8xf32, #gp.device<cuda:0>>, memref<8xf32, #gp.device<cuda:0>>)
    %mask = gp.fallback "mylib::create_mask"(%s0, %s1) tags ["cudagraph_unsafe"]
        : (index, index) -> memref<?xi1, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins StrAttr:$callee,
                       Variadic<AnyType>:$args,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$mutates,
                       OptionalAttr<DenseI64ArrayAttr>:$aliases,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$tags,
                       OptionalAttr<DenseI64ArrayAttr>:$result_offsets);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)`
    (`mutates` $mutates^)?
    (`aliases` custom<ResultAliases>($aliases)^)?
    (`tags` $tags^)?
    attr-dict `:` functional-type($args, $results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Tag that marks an op that must never be captured in a CUDA graph.
    static constexpr ::llvm::StringLiteral getCudagraphUnsafeTag() {
      return ::llvm::StringLiteral("cudagraph_unsafe");
    }
    bool hasTag(::llvm::StringRef tag);
    bool isMutated(unsigned operandIndex);
    /// The operand result `resultIndex` is a view of, if any.
    std::optional<unsigned> getAliasedOperand(unsigned resultIndex);
    /// `ns::op` without the `.overload` suffix.
    ::llvm::StringRef getOpName();
  }];
}

//===----------------------------------------------------------------------===//
// Device copies and host ops
//===----------------------------------------------------------------------===//

def GP_CopyOp : GP_Op<"copy"> {
  let summary = "copy a buffer's contents into another buffer";
  let description = [{
    Copies `source` into `target`, which have the same shape and element
    type and may live on different devices (`z.cpu()`, `u.cuda()`). A copy
    between devices is a reason to cut a partition.

    ```mlir
    gp.copy %buf2, %buf3 : memref<8xf8E4M3FN, #gp.device<cuda:0>> to memref<8xf8E4M3FN, #gp.device<cpu>>
    ```
  }];
  let arguments = (ins Arg<GP_Buffer, "", [MemRead]>:$source,
                       Arg<GP_Buffer, "", [MemWrite]>:$target);
  let assemblyFormat = "$source `,` $target attr-dict `:` type($source) `to` type($target)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool isCrossDevice() {
      return getSource().getType().getMemorySpace() !=
             getTarget().getType().getMemorySpace();
    }
  }];
}

def GP_ItemOp : GP_Op<"item", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "read a one-element buffer's value on the host";
  let description = [{
    Reads the only element of `source` into a host scalar, as `.item()`:
    for a device buffer this waits for the device, so it is a host op and a
    reason to cut. An integer element may be read as `index`.

    ```mlir
    %scalar = gp.item %buf0 : memref<f32, #gp.device<cuda:0>> -> f32
    ```
  }];
  let arguments = (ins Arg<GP_Buffer, "", [MemRead]>:$source);
  let results = (outs AnyTypeOf<[AnySignlessInteger, Index, AnyFloat]>:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def GP_ScalarSlotOp : GP_Op<"scalar.slot", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "a one-element buffer that holds a host scalar";
  let description = [{
    A 0-d buffer on `slot`'s device that holds `value`, written in stream
    order each time the op runs. A graph bakes a kernel's scalar parameters
    in at capture, so `gp-scalar-slots` passes every non-index scalar input
    of a capturable partition (a `gp.item` result, say) through one: the
    kernel loads the value when it runs, the graph is captured once, and
    every replay sees the current value. Lowering gives each slot 16 bytes
    of the function's device arena, after the planned buffers and RNG
    slots; it must be outside partitions. Writing host data to a device is
    a reason to cut.

    ```mlir
    %slot = gp.scalar.slot %scale : f32 -> memref<f32, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins AnyTypeOf<[AnySignlessInteger, AnyFloat]>:$value);
  let results = (outs Res<GP_Buffer, "", [MemAlloc, MemWrite]>:$slot);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($slot)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Symbolic sizes
//===----------------------------------------------------------------------===//

class GP_SymIntOp<string mnemonic, list<Trait> traits = []>
    : GP_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>])> {
  let results = (outs Index:$result);
  let hasVerifier = 1;
  dag commonArguments = (ins StrAttr:$sym_name,
                             OptionalAttr<I64Attr>:$hint,
                             OptionalAttr<I64Attr>:$min,
                             OptionalAttr<I64Attr>:$max);
}

def GP_SymIntOp : GP_SymIntOp<"symint", [Pure]> {
  let summary = "name a host integer as a symbolic size";
  let description = [{
    Names a host integer (usually an `index` argument of the program) as a
    symint. Symints are plain `index` values: they size buffers, give view
    offsets and strides, and are passed to kernels (e.g. the index of
    `a[n] = -1`). `hint` is a typical value and `min`/`max` are bounds, used
    to estimate memory; the result prints as `%<name>`.

    ```mlir
    %s0 = gp.symint "s0" = %arg0 {hint = 8 : i64, min = 1 : i64, max = 512 : i64}
    ```
  }];
  let arguments = !con((ins Index:$value), commonArguments);
  let assemblyFormat = "$sym_name `=` $value attr-dict";
}

def GP_SymIntDimOp : GP_SymIntOp<"symint.dim", [Pure]> {
  let summary = "name a dynamic dimension of a buffer as a symbolic size";
  let description = [{
    Names dimension `dim` of `source`, which must be dynamic, as a symint
    (`s2 = arg2_1.size()[0]`). This is how the symbolic shape of a program's
    input buffer is written down.

    ```mlir
    %s2 = gp.symint.dim "s2" = %x[0] : memref<?x?xf32, #gp.device<cuda:0>>
    ```
  }];
  let arguments = !con((ins GP_Buffer:$source, I64Attr:$dim), commonArguments);
  let assemblyFormat = "$sym_name `=` $source `[` $dim `]` attr-dict `:` type($source)";
}

def GP_SymIntUnbackedOp : GP_SymIntOp<"symint.unbacked"> {
  let summary = "a data-dependent (unbacked) symbolic size";
  let description = [{
    A symint whose value is read from the data of a one-element integer
    buffer (the count of `nonzero`, a `.item()` used as a size). The host
    must wait for the device to know it, so it is a reason to cut.

    ```mlir
    %u0 = gp.symint.unbacked "u0" = %count {max = 1024 : i64} : memref<i64, #gp.device<cuda:0>>
    ```
  }];
  let arguments = !con((ins Arg<GP_Buffer, "", [MemRead]>:$source), commonArguments);
  let assemblyFormat = "$sym_name `=` $source attr-dict `:` type($source)";
}

//===----------------------------------------------------------------------===//
// RNG
//===----------------------------------------------------------------------===//

def GP_RngGeneratorOp : GP_Op<"rng.generator", [
    Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "declare the generator of one RNG op";
  let description = [{
    Declares a graph-safe generator (philox seed and offset). Each RNG op
    has its own generator, so that a forward and its backward, which run
    their RNG ops in different orders, still draw the same numbers for the
    same op. `seed` overrides the state the runtime derives from the
    program seed.

    ```mlir
    gp.rng.generator @dropout0
    gp.rng.generator @dropout1 seed 42
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$seed);
  let assemblyFormat = "$sym_name (`seed` $seed^)? attr-dict";
}

def GP_RngStateOp : GP_Op<"rng.state", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
    MemoryEffects<[MemRead]>]> {
  let summary = "the state a generator gives one invocation";
  let description = [{
    The state of `generator` for this invocation of the program, on its
    `forward` or `backward` side. The runtime advances a generator's
    forward offset on every forward invocation and gives the matching
    backward invocation the offset its forward saw, so the pair draws the
    same numbers (also when several forwards run before their backwards).
    A state feeds exactly one RNG op.

    ```mlir
    %rng = gp.rng.state @dropout0 forward : !gp.rng_state
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$generator, GP_RngRole:$role);
  let results = (outs GP_RngStateType:$state);
  let assemblyFormat = "$generator $role attr-dict `:` type($state)";
  let hasVerifier = 1;
}

def GP_RngFillOp : GP_Op<"rng.fill", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "fill a buffer with random numbers drawn from a state";
  let description = [{
    Fills `target` with numbers from `distribution` (`uniform` on [0, 1) or
    standard `normal`), drawn from `state`. The draw is a pure function of
    the state's seed and offset, which is what makes it graph-safe.

    ```mlir
    gp.rng.fill uniform %rng, %buf0 : memref<4x4xf32, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins GP_RngDistribution:$distribution,
                       GP_RngStateType:$state,
                       GP_Buffer:$target);
  let assemblyFormat = "$distribution $state `,` $target attr-dict `:` type($target)";
  let hasVerifier = 1;
}

def GP_RngSlotOp : GP_Op<"rng.slot", [Pure]> {
  let summary = "the device memory holding an RNG state's seed and offset";
  let description = [{
    The two 64-bit words (seed, offset) of `state` as a buffer on the device
    that reads them. Lowering makes it: `gp-expand-rng-fills` turns a
    `gp.rng.fill` into a kernel that reads the slot when it runs, and the
    runtime writes the slot in stream order before each call
    (`gpRtRngState`), so a replayed graph draws fresh numbers.

    ```mlir
    %slot = gp.rng.slot %rng : memref<2xi64, #gp.device<cuda:0>>
    ```
  }];
  let arguments = (ins GP_RngStateType:$state);
  let results = (outs GP_Buffer:$slot);
  let assemblyFormat = "$state attr-dict `:` type($slot)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Partitions
//===----------------------------------------------------------------------===//

def GP_PartitionOp : GP_Op<"partition", [
    IsolatedFromAbove,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "a partition of the program: captured as a graph, or eager";
  let description = [{
    The result of partitioning: a run of ops that the runtime either
    captures as one CUDA graph (`capturable`) or runs eagerly (`eager`, with
    the reasons its ops cannot be captured). The body is isolated from
    above, so the signature is explicit: `ins` are the buffers, symints and
    RNG states the body uses, in the order documented in
    docs/Rationale.md; the results are what the body yields. An input the
    partition does not free is yielded back, so later code uses the
    partition's (graph-owned) value.

    `writes` lists the inputs the partition writes (directly or through a
    view); `frees` lists the inputs whose storage ends its life in this
    partition (their last use is here), including bases passed in only so
    that they can be freed here. An input that is freed is not yielded back.

    ```mlir
    %p0:2 = gp.partition 0 capturable ins(%x, %s0 : memref<?xf32, #gp.device<cuda:0>>, index) {
    ^bb0(%in: memref<?xf32, #gp.device<cuda:0>>, %n: index):
      %buf0 = gp.buffer.alloc(%n) : memref<?xf32, #gp.device<cuda:0>>
      ...
      gp.yield %buf0, %in : memref<?xf32, #gp.device<cuda:0>>, memref<?xf32, #gp.device<cuda:0>>
    } -> (memref<?xf32, #gp.device<cuda:0>>, memref<?xf32, #gp.device<cuda:0>>)
    %p1 = gp.partition 1 eager reasons ["cpu ops"] ins(...) {...} -> (...)
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$partition_id,
                       GP_PartitionKind:$kind,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$reasons,
                       Variadic<AnyType>:$inputs,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$writes,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$frees);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $partition_id $kind
    (`reasons` $reasons^)?
    (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    (`writes` $writes^)?
    (`frees` $frees^)?
    $body (`->` `(` type($results)^ `)`)? attr-dict
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    bool isCapturable() { return getKind() == PartitionKind::capturable; }
    YieldOp getYield();
  }];
}

#endif // GRAPHPART_DIALECT_GP_IR_GPOPS_TD
