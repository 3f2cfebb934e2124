//===- GPTypes.td - GraphPart types ------------------------*- tablegen -*-===//

#ifndef GRAPHPART_DIALECT_GP_IR_GPTYPES_TD
#define GRAPHPART_DIALECT_GP_IR_GPTYPES_TD

include "GraphPart/Dialect/GP/IR/GPDialect.td"

def GP_RngStateType : GP_Type<"RngState", "rng_state"> {
  let summary = "a graph-safe random generator state (seed and offset)";
  let description = [{
    A philox generator state owned by exactly one RNG op. The runtime keeps
    it in device memory and advances its offset on the host before each
    replay, so a captured graph draws fresh numbers on every replay; a
    forward and its backward read states of the same `gp.rng.generator` and
    so draw the same numbers.
  }];
}

#endif // GRAPHPART_DIALECT_GP_IR_GPTYPES_TD
