//===- replay_latency.cpp - eager launches vs graph replay ----------------===//
//
// One partition of K dependent tiny kernels (x += 1 on one int64), run
// through the GraphPart runtime on the cuda backend two ways in the same
// process: eagerly (a shape key outside the capture sizes: K launches per
// step) and captured (replayed: one graph launch per step). Prints the
// per-step and per-kernel latency of each and their ratio, and checks the
// result of every step.
//
// usage: gp-bench-replay [KERNELS=1000] [STEPS=200]
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Runtime/GPRuntime.h"
#include "AddChain.h"
#include "AddI64Ptx.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

const char *kAddPtx = kAddI64Ptx;

/// Median microseconds per step of `steps` synchronized steps for `key`.
double measure(gpRtProgram *program, AddChainBody &body, int64_t key, int steps,
               int64_t &expected) {
  std::vector<double> times;
  for (int step = 0; step < steps; ++step) {
    auto start = std::chrono::steady_clock::now();
    CHECK(gpRtRunPartition(program, 0, &key, AddChainBody::run, &body));
    CHECK(gpRtProgramSynchronize(program));
    auto end = std::chrono::steady_clock::now();
    times.push_back(
        std::chrono::duration<double, std::micro>(end - start).count());
    expected += body.kernels;
  }
  int64_t value = 0;
  CHECK(gpRtCopyFromProgram(program, &value, body.target, sizeof(value)));
  if (value != expected) {
    std::fprintf(stderr, "wrong result: %lld, expected %lld\n",
                 static_cast<long long>(value),
                 static_cast<long long>(expected));
    std::exit(1);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  int kernels = argc > 1 ? std::atoi(argv[1]) : 1000;
  int steps = argc > 2 ? std::atoi(argv[2]) : 200;
  if (gpRtBackendAvailable(GP_RT_BACKEND_CUDA) != GP_RT_SUCCESS) {
    std::fprintf(stderr, "no usable CUDA device: %s\n", gpRtGetLastError());
    return 2;
  }
  gpRtPartitionInfo partition{1, 1, nullptr};
  gpRtProgramInfo info{"replay-latency", 1, &partition, 256, 0, 0};
  gpRtProgram *program = nullptr;
  CHECK(gpRtProgramCreate(&info, GP_RT_BACKEND_CUDA, 0, &program));
  void *module = nullptr, *function = nullptr, *arena = nullptr;
  CHECK(gpRtCudaLoadModule(program, kAddPtx, &module));
  CHECK(gpRtCudaGetFunction(program, module, "add_i64", &function));
  CHECK(gpRtProgramArena(program, &arena));
  int64_t zero = 0, expected = 0;
  CHECK(gpRtCopyToProgram(program, arena, &zero, sizeof(zero)));

  // Key 1 is captured; key 2 is outside the capture sizes, so it runs
  // eagerly every time: the baseline, in the same process.
  int64_t captured = 1, eager = 2;
  CHECK(gpRtProgramSetCaptureSizes(program, &captured, 1, 1));
  AddChainBody body{function, arena, 1, kernels};
  measure(program, body, captured, 5, expected); // warm-up, capture
  measure(program, body, eager, 5, expected);
  double eagerUs = measure(program, body, eager, steps, expected);
  double replayUs = measure(program, body, captured, steps, expected);

  gpRtStats stats;
  CHECK(gpRtProgramGetStats(program, &stats));
  std::printf("kernels per step: %d, steps: %d (median of each)\n", kernels,
              steps);
  std::printf("eager:  %10.1f us/step  %6.3f us/kernel\n", eagerUs,
              eagerUs / kernels);
  std::printf("replay: %10.1f us/step  %6.3f us/kernel\n", replayUs,
              replayUs / kernels);
  std::printf("speedup (eager / replay): %.2fx\n", eagerUs / replayUs);
  std::printf("captures %lld, instantiations %lld, replays %lld, eager runs "
              "%lld\n",
              static_cast<long long>(stats.captures),
              static_cast<long long>(stats.instantiations),
              static_cast<long long>(stats.replays),
              static_cast<long long>(stats.eagerRuns));
  CHECK(gpRtProgramDestroy(program));
  return 0;
}
