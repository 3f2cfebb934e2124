//===- AddChain.h - what the runtime benchmarks launch ----------*- C++ -*-===//
//
// A partition body of `kernels` dependent tiny kernels (target += amount on
// one int64, the add_i64 PTX of test/Runtime/Inputs), and a CHECK that ends
// the benchmark with the runtime's message when a call fails.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_BENCH_ADDCHAIN_H
#define GRAPHPART_BENCH_ADDCHAIN_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdio>
#include <cstdlib>

struct AddChainBody {
  void *function;
  void *target; // device address of the int64
  int64_t amount;
  int kernels;
  static gpRtStatus run(gpRtStream *stream, void *data) {
    auto *self = static_cast<AddChainBody *>(data);
    uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    void *params[] = {&self->target, &self->amount};
    for (int i = 0; i < self->kernels; ++i)
      if (gpRtStatus status = gpRtLaunchCudaKernel(stream, self->function, grid,
                                                   block, 0, params))
        return status;
    return GP_RT_SUCCESS;
  }
};

#define CHECK(call)                                                            \
  do {                                                                         \
    if (gpRtStatus status_ = (call)) {                                         \
      std::fprintf(stderr, "%s failed: %s\n", #call, gpRtGetLastError());      \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#endif // GRAPHPART_BENCH_ADDCHAIN_H
