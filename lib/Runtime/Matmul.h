//===- Matmul.h - the matmul-class built-in externs -------------*- C++ -*-===//
//
// gp::matmul, aten::mm, aten::bmm and aten::addmm (Matmul.cpp), as the
// extern registry (Externs.cpp) registers them.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_RUNTIME_MATMUL_H
#define GRAPHPART_LIB_RUNTIME_MATMUL_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <vector>

namespace gp::rt {

/// Picks the function a built-in extern runs for arguments of these kinds,
/// ranks and element types (one per rank, so the function's loops know
/// it). Fails with GP_RT_ERROR_INVALID_ARGUMENT, naming what does not fit,
/// otherwise. The function picked is what runs, and what a host capture
/// records.
using ExternSelector = gpRtStatus (*)(const gpRtExternArg *argInfo,
                                      int32_t numArgs, gpRtExternFn &fn);

struct BuiltinExtern {
  const char *name;
  ExternSelector select;
};

/// gp::matmul, aten::mm, aten::bmm and aten::addmm: capturable, and what
/// they capture follows moved inputs.
const std::vector<BuiltinExtern> &matmulExterns();

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_MATMUL_H
