//===- binding_costs.cpp - what each way of following moved inputs costs --===//
//
// The three ways a captured graph can follow an input that moved, measured
// on their own with the CUDA driver API (no GraphPart runtime): a graph of
// one kernel reading one input, per step = the binding work + graph launch
// + stream synchronize, median of 2000 steps:
//   - fixed: the input never moves (the baseline);
//   - patch: the kernel node's parameter is set to the new address
//     (cuGraphExecKernelNodeSetParams), what the runtime does;
//   - copy S: the graph reads a static slot and the moved input is copied
//     into it first (cuMemcpyDtoDAsync of S bytes), CUDA-graph trees' way;
//   - table: the new addresses are written to a device table the kernels
//     would read (cuMemcpyHtoDAsync of 8 bytes per input, 8 inputs).
//
//   bash bench/binding_costs.sh   (on the GPU machine: builds with nvcc, runs)
//
//===----------------------------------------------------------------------===//

#include "AddI64Ptx.h"

#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    if (CUresult result_ = (call)) {                                           \
      const char *message_ = nullptr;                                          \
      cuGetErrorString(result_, &message_);                                    \
      std::fprintf(stderr, "%s failed: %s\n", #call, message_);                \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

static double medianMicros(CUstream stream, CUgraphExec exec,
                           const std::function<void(int)> &bind) {
  constexpr int kSteps = 2000;
  std::vector<double> micros;
  for (int step = -100; step < kSteps; ++step) {
    auto start = std::chrono::steady_clock::now();
    bind(step);
    CHECK(cuGraphLaunch(exec, stream));
    CHECK(cuStreamSynchronize(stream));
    double us = std::chrono::duration<double, std::micro>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    if (step >= 0)
      micros.push_back(us);
  }
  std::sort(micros.begin(), micros.end());
  return micros[micros.size() / 2];
}

int main() {
  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  CUstream stream;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUmodule module;
  CHECK(cuModuleLoadData(&module, kAddI64Ptx));
  CUfunction accumulate;
  CHECK(cuModuleGetFunction(&accumulate, module, "accumulate_i64"));

  constexpr size_t kLargest = 64u << 20;
  CUdeviceptr dst, slot, table, sources[2];
  CHECK(cuMemAlloc(&dst, 256));
  CHECK(cuMemAlloc(&slot, kLargest));
  CHECK(cuMemAlloc(&table, 256));
  for (CUdeviceptr &source : sources) {
    CHECK(cuMemAlloc(&source, kLargest));
    CHECK(cuMemsetD8(source, 0, kLargest));
  }
  CHECK(cuMemsetD8(dst, 0, 256));

  // The graph: one kernel, dst += *src.
  CUdeviceptr src = sources[0];
  long long scale = 1;
  void *params[] = {&dst, &src, &scale};
  CHECK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
  CHECK(cuLaunchKernel(accumulate, 1, 1, 1, 1, 1, 1, 0, stream, params,
                       nullptr));
  CUgraph graph;
  CHECK(cuStreamEndCapture(stream, &graph));
  CUgraphExec exec;
  CHECK(cuGraphInstantiate(&exec, graph, 0));
  size_t count = 1;
  CUgraphNode node;
  CHECK(cuGraphGetNodes(graph, &node, &count));
  CUDA_KERNEL_NODE_PARAMS nodeParams;
  CHECK(cuGraphKernelNodeGetParams(node, &nodeParams));

  std::printf("| binding | per step (median of 2000) |\n|---|---:|\n");
  auto row = [](const char *what, double us) {
    std::printf("| %s | %.2f us |\n", what, us);
  };
  row("fixed (no binding)", medianMicros(stream, exec, [](int) {}));
  row("patch: 1 kernel node", medianMicros(stream, exec, [&](int step) {
        src = sources[step & 1];
        nodeParams.kernelParams = params;
        CHECK(cuGraphExecKernelNodeSetParams(exec, node, &nodeParams));
      }));
  for (size_t bytes : {size_t(256), size_t(64) << 10, size_t(4) << 20,
                       size_t(64) << 20}) {
    char what[64];
    std::snprintf(what, sizeof(what), "copy %zu bytes into a static slot",
                  bytes);
    row(what, medianMicros(stream, exec, [&](int step) {
          CHECK(cuMemcpyDtoDAsync(slot, sources[step & 1], bytes, stream));
        }));
  }
  // Pinned, as a runtime writing the table on every replay would keep it.
  long long *addresses = nullptr;
  CHECK(cuMemAllocHost(reinterpret_cast<void **>(&addresses), 64));
  row("table: 8 addresses written", medianMicros(stream, exec, [&](int step) {
        addresses[0] = static_cast<long long>(sources[step & 1]);
        CHECK(cuMemcpyHtoDAsync(table, addresses, 64, stream));
      }));
  CHECK(cuMemFreeHost(addresses));

  CHECK(cuGraphExecDestroy(exec));
  CHECK(cuGraphDestroy(graph));
  return 0;
}
