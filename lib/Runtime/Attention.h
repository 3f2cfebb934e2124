//===- Attention.h - the fused attention built-in extern --------*- C++ -*-===//
//
// gp::attention (Attention.cpp), as the extern registry (Externs.cpp)
// registers it beside the matmuls.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_RUNTIME_ATTENTION_H
#define GRAPHPART_LIB_RUNTIME_ATTENTION_H

#include "Matmul.h"

namespace gp::rt {

/// gp::attention(q, k, v, [mask,] scale, causal, zeroFullyMasked) -> out:
/// capturable, what it captures following moved inputs.
const BuiltinExtern &attentionExtern();

/// gp::attention_into(q, k, v, [mask,] scale, causal, zeroFullyMasked,
/// out): the same computed into `out`, an operand it writes (any strides).
const BuiltinExtern &attentionIntoExtern();

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_ATTENTION_H
