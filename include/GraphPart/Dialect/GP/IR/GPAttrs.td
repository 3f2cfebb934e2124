//===- GPAttrs.td - GraphPart attributes and enums ---------*- tablegen -*-===//

#ifndef GRAPHPART_DIALECT_GP_IR_GPATTRS_TD
#define GRAPHPART_DIALECT_GP_IR_GPATTRS_TD

include "GraphPart/Dialect/GP/IR/GPDialect.td"
include "mlir/IR/EnumAttr.td"

def GP_DeviceKind : I32EnumAttr<"DeviceKind", "kind of device a buffer lives on", [
    I32EnumAttrCase<"cuda", 0>,
    I32EnumAttrCase<"cpu", 1>,
    I32EnumAttrCase<"meta", 2>
  ]> {
  let cppNamespace = "::mlir::gp";
  let genSpecializedAttr = 0;
}

def GP_PartitionKind : I32EnumAttr<"PartitionKind",
    "whether a partition is captured as a CUDA graph", [
    I32EnumAttrCase<"capturable", 0>,
    I32EnumAttrCase<"eager", 1>
  ]> {
  let cppNamespace = "::mlir::gp";
}

def GP_RngDistribution : I32EnumAttr<"RngDistribution",
    "distribution an RNG op draws from", [
    I32EnumAttrCase<"uniform", 0>,
    I32EnumAttrCase<"normal", 1>
  ]> {
  let cppNamespace = "::mlir::gp";
}

def GP_RngRole : I32EnumAttr<"RngRole",
    "which side of a forward/backward pair reads an RNG state", [
    I32EnumAttrCase<"forward", 0>,
    I32EnumAttrCase<"backward", 1>
  ]> {
  let cppNamespace = "::mlir::gp";
}

def GP_ReductionKind : I32EnumAttr<"ReductionKind",
    "how a collective combines the ranks' elements", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>
  ]> {
  let cppNamespace = "::mlir::gp";
}

def GP_DeviceAttr : GP_Attr<"Device", "device"> {
  let summary = "a device: cuda:N, cpu or meta";
  let description = [{
    Where a buffer lives. Used as the memory space of memrefs, so a buffer is
    an ordinary memref that carries its device:

    ```mlir
    memref<8x256xf32, #gp.device<cuda:0>>
    memref<8xf32, #gp.device<cpu>>
    memref<1x16x128x128xf32, #gp.device<meta>>
    ```

    `meta` buffers have a shape but no data: operations on them do no work
    and never prevent capture. Only `cuda` devices take an index.
  }];
  let parameters = (ins "DeviceKind":$kind, "int64_t":$index);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isCuda() const { return getKind() == DeviceKind::cuda; }
    bool isCpu() const { return getKind() == DeviceKind::cpu; }
    bool isMeta() const { return getKind() == DeviceKind::meta; }
    /// `cuda:0`, `cpu`, `meta`.
    std::string str() const;
  }];
}

def GP_ArenaAttr : GP_Attr<"Arena", "arena"> {
  let summary = "the planned arena of one device";
  let description = [{
    Memory planning gives each program one arena per device; every planned
    `gp.buffer.alloc` carries its byte `offset` into the arena of its
    device, so captured graphs see the same addresses on every replay. The
    function records its arenas in the `gp.arenas` attribute:

    ```mlir
    func.func @f(...) attributes {gp.arenas = [#gp.arena<#gp.device<cuda:0>, 4096>]}
    ```
  }];
  let parameters = (ins "DeviceAttr":$device, "int64_t":$size);
  let assemblyFormat = "`<` $device `,` $size `>`";
  let genVerifyDecl = 1;
}

def GP_SizeClassAttr : GP_Attr<"SizeClass", "size_class"> {
  let summary = "one run-time size of an entry, and whether it may be padded";
  let description = [{
    Written by `gp-size-classes` into the function's `gp.size_classes`
    (one per class): the dynamic dimensions of the arguments and results
    that the program uses as one size. `arguments` and `results` are pairs
    (index, dimension); an argument pair whose dimension is -1 is an
    `index` argument whose value is the size. `fixed` is the size the
    program fixes (a static dimension it is used with), or -1. `maximum` is
    the smallest `max` its symints declare (the entry checks it), or -1: a
    call is never padded past it. `unpaddable`
    is empty when the program computes every position along the size on
    its own (no reduction, scan, gather or view mixes positions), so that a
    call may run on inputs padded along it and slice the results back;
    otherwise it says why not.

    ```mlir
    func.func @f(...) attributes {gp.size_classes = [
        #gp.size_class<"arg0_dim0", arguments = [0, 0, 1, 0],
                       results = [0, 0], fixed = -1, maximum = -1,
                       unpaddable = "">]}
    ```
  }];
  let parameters = (ins "StringAttr":$name,
                        "DenseI64ArrayAttr":$arguments,
                        "DenseI64ArrayAttr":$results,
                        "int64_t":$fixed,
                        "int64_t":$maximum,
                        "StringAttr":$unpaddable);
  let assemblyFormat = [{
    `<` $name `,` `arguments` `=` $arguments `,` `results` `=` $results `,`
    `fixed` `=` $fixed `,` `maximum` `=` $maximum `,`
    `unpaddable` `=` $unpaddable `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isPaddable() const { return getUnpaddable().getValue().empty(); }
  }];
}

#endif // GRAPHPART_DIALECT_GP_IR_GPATTRS_TD
