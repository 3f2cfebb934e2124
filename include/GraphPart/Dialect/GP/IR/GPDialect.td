//===- GPDialect.td - GraphPart dialect definition ---------*- tablegen -*-===//
//
// The `gp` dialect: buffers with a device, views, kernels, fallback kernels,
// symbolic sizes, graph-safe RNG state and partitions.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_DIALECT_GP_IR_GPDIALECT_TD
#define GRAPHPART_DIALECT_GP_IR_GPDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def GP_Dialect : Dialect {
  let name = "gp";
  let cppNamespace = "::mlir::gp";
  let summary = "GraphPart: tensor programs partitioned into CUDA graphs";
  let description = [{
    The `gp` dialect models a bufferized tensor program as GraphPart's
    passes see it: buffers are ordinary memrefs whose memory space is a
    `#gp.device` (`cuda:N`, `cpu` or `meta`); views alias their base; device
    computations are `gp.kernel` regions of upstream ops; opaque external ops
    are `gp.fallback` calls whose schema says what they mutate and what their
    results alias; symbolic sizes are named `index` values; RNG ops take an
    explicit `!gp.rng_state`; and partitioning produces `gp.partition` ops
    whose regions are isolated, so every partition's signature is explicit.

    ```mlir
    #cuda0 = #gp.device<cuda:0>
    func.func @f(%x: memref<8xf32, #cuda0>) -> memref<8xf32, #cuda0> {
      %y = gp.buffer.alloc() : memref<8xf32, #cuda0>
      gp.kernel "add_one" ins(%x : memref<8xf32, #cuda0>)
                          outs(%y : memref<8xf32, #cuda0>) {
      ^bb0(%in: memref<8xf32, #cuda0>, %out: memref<8xf32, #cuda0>):
        ...
      }
      return %y : memref<8xf32, #cuda0>
    }
    ```

    Model parameters: a `func.func` argument that carries the discardable
    attribute `gp.parameter = "<name>"` is named program state (a weight)
    rather than an input of each call. The name is the PyTorch fully
    qualified name (`h.0.attn.c_attn.weight`) or, for the weights gp-import
    takes out of constant globals, the global's name; the runtime binds
    parameters by name once after loading the artifact, whose manifest names
    them (`arg memref ... parameter <name>`). The verifier allows it only on
    arguments of a top-level `func.func` with a body, on a memref or ranked
    tensor argument, with a non-empty name without whitespace or control
    characters, each name once per function. A parameter is read-only
    unless it also carries the unit attribute `gp.mutable`: gp-import
    refuses a program that writes a read-only one (through any view), and
    `gp-read-only-arguments` makes upstream bufferization copy a tensor
    parameter instead of writing into it.

    Mutable parameters are state the program updates in place, such as a
    decoder's key/value cache: the runtime binds them like weights, and the
    program's writes land in the caller's buffer. In tensor form, a program
    gives a mutable parameter's new value as a function result carrying
    `gp.writes_parameter = "<name>"` (the name of a `gp.mutable` parameter
    of the same type, each at most once); after bufferization,
    `gp-write-back-parameters` makes that an in-place write and drops the
    result.

    ```mlir
    func.func @forward(%x: tensor<4x8xf32>,
                       %w: tensor<8x16xf32> {gp.parameter = "fc.weight"},
                       %b: tensor<16xf32> {gp.parameter = "fc.bias"})
        -> tensor<4x16xf32>
    func.func @decode(%x: tensor<1x64xf32>, %pos: tensor<1xi64>,
                      %k: tensor<256x64xf32> {gp.mutable,
                                              gp.parameter = "k_cache"})
        -> (tensor<1x64xf32>, tensor<256x64xf32> {gp.writes_parameter = "k_cache"})
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Name of the function attribute that records the arena of each device
    /// (an array of `#gp.arena`), written by memory planning.
    static constexpr ::llvm::StringLiteral getArenasAttrName() {
      return ::llvm::StringLiteral("gp.arenas");
    }

    /// Name of the function argument attribute that makes the argument a
    /// named model parameter (a string: the parameter's name).
    static constexpr ::llvm::StringLiteral getParameterAttrName() {
      return ::llvm::StringLiteral("gp.parameter");
    }

    /// Name of the unit argument attribute that lets the program write a
    /// parameter in place (state such as a key/value cache).
    static constexpr ::llvm::StringLiteral getMutableAttrName() {
      return ::llvm::StringLiteral("gp.mutable");
    }

    /// Name of the function attribute describing the program's run-time
    /// index checks (an array of strings, the op and range of check N at
    /// position N - 1): a call whose `getIndexErrorsParameterName()` flag
    /// holds N fails with that description.
    static constexpr ::llvm::StringLiteral getIndexChecksAttrName() {
      return ::llvm::StringLiteral("gp.index_checks");
    }

    /// Name of the module attribute giving the initial value of state the
    /// runtime keeps (a dictionary: mutable parameter name -> elements).
    static constexpr ::llvm::StringLiteral getInitialValuesAttrName() {
      return ::llvm::StringLiteral("gp.initial_values");
    }

    /// The mutable parameter (one i64) that index checks write the number
    /// of a failed check into; the runtime binds it itself.
    static constexpr ::llvm::StringLiteral getIndexErrorsParameterName() {
      return ::llvm::StringLiteral("graphpart.index_errors");
    }

    /// Name of the function result attribute naming the mutable parameter
    /// whose new value the result is (tensor programs, before
    /// gp-write-back-parameters).
    static constexpr ::llvm::StringLiteral getWritesParameterAttrName() {
      return ::llvm::StringLiteral("gp.writes_parameter");
    }

    /// Name of the function attribute listing the entry's run-time sizes
    /// (an array of `#gp.size_class`), written by gp-size-classes.
    static constexpr ::llvm::StringLiteral getSizeClassesAttrName() {
      return ::llvm::StringLiteral("gp.size_classes");
    }

    /// Whether `name` can name a parameter: not empty, and no whitespace or
    /// control characters (the manifest separates fields by spaces).
    static bool isValidParameterName(::llvm::StringRef name);

  private:
    void registerAttributes();
    void registerTypes();

  public:
  }];
}

class GP_Op<string mnemonic, list<Trait> traits = []>
    : Op<GP_Dialect, mnemonic, traits>;

class GP_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<GP_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class GP_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<GP_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

#endif // GRAPHPART_DIALECT_GP_IR_GPDIALECT_TD
