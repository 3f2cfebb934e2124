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
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Name of the function attribute that records the arena of each device
    /// (an array of `#gp.arena`), written by memory planning.
    static constexpr ::llvm::StringLiteral getArenasAttrName() {
      return ::llvm::StringLiteral("gp.arenas");
    }

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
