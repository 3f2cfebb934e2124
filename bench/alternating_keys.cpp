//===- alternating_keys.cpp - alternating shape keys vs one steady key ----===//
//
// One capturable partition of K dependent tiny kernels, called with N shape
// keys in rotation (a program called on N batch sizes in turn), three ways
// in one process, on the cuda backend:
//   steady      one key on every call;
//   alternating N keys in rotation with the default graph cache, where each
//               key keeps its own executable;
//   cache of 1  the same rotation with a graph cache of one key, so every
//               call evicts the other key's executable and updates it in
//               place (cuGraphExecUpdate): what every alternation cost when
//               a partition's keys shared one executable.
// Per step = call + synchronize, median. Each key adds its own amount, and
// every variant's result is checked.
//
// usage: gp-bench-alternating-keys [KEYS=5] [KERNELS=20] [STEPS=400]
//
//===----------------------------------------------------------------------===//

#include "AddChain.h"
#include "AddI64Ptx.h"
#include "GraphPart/Runtime/GPRuntime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <vector>

namespace {

/// gpRtProgramSetGraphCacheCapacity when the runtime has it: the bench
/// also runs against runtimes from before the graph cache (with
/// LD_LIBRARY_PATH), which kept one executable per partition and updated
/// it whenever the key changed.
using SetCapacityFn = gpRtStatus (*)(gpRtProgram *, int32_t);
SetCapacityFn setCacheCapacity = reinterpret_cast<SetCapacityFn>(
    dlsym(RTLD_DEFAULT, "gpRtProgramSetGraphCacheCapacity"));

struct Result {
  double medianUs;
  gpRtStats stats;
};

/// Runs `steps` steps rotating over `keys` keys (after one untimed round of
/// warm-up and capture per key) on a fresh program; checks the sum.
Result run(int keys, int kernels, int steps, int32_t cacheCapacity) {
  gpRtPartitionInfo partition{1, 1, nullptr};
  gpRtProgramInfo info{"alternating-keys", 1, &partition, 256, 0, 0};
  gpRtProgram *program = nullptr;
  CHECK(gpRtProgramCreate(&info, GP_RT_BACKEND_CUDA, 0, &program));
  if (cacheCapacity > 0)
    CHECK(setCacheCapacity(program, cacheCapacity));
  void *module = nullptr, *function = nullptr, *arena = nullptr;
  CHECK(gpRtCudaLoadModule(program, kAddI64Ptx, &module));
  CHECK(gpRtCudaGetFunction(program, module, "add_i64", &function));
  CHECK(gpRtProgramArena(program, &arena));
  int64_t zero = 0, expected = 0;
  CHECK(gpRtCopyToProgram(program, arena, &zero, sizeof(zero)));
  std::vector<AddChainBody> bodies;
  for (int k = 0; k < keys; ++k)
    bodies.push_back(AddChainBody{function, arena, k + 1, kernels});
  auto step = [&](int index) {
    int64_t key = 16 * (index % keys + 1);
    AddChainBody &body = bodies[index % keys];
    CHECK(gpRtRunPartition(program, 0, &key, AddChainBody::run, &body));
    expected += body.amount * kernels;
  };
  for (int i = 0; i < 2 * keys; ++i) // Warm-up, then capture, per key.
    step(i);
  CHECK(gpRtProgramSynchronize(program));
  std::vector<double> times;
  for (int i = 0; i < steps; ++i) {
    auto start = std::chrono::steady_clock::now();
    step(i);
    CHECK(gpRtProgramSynchronize(program));
    times.push_back(std::chrono::duration<double, std::micro>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  int64_t value = 0;
  CHECK(gpRtCopyFromProgram(program, &value, arena, sizeof(value)));
  if (value != expected) {
    std::fprintf(stderr, "wrong result: %lld, expected %lld\n",
                 static_cast<long long>(value),
                 static_cast<long long>(expected));
    std::exit(1);
  }
  Result result;
  result.stats = gpRtStats{}; // An older runtime fills fewer fields.
  CHECK(gpRtProgramGetStats(program, &result.stats));
  CHECK(gpRtProgramDestroy(program));
  std::sort(times.begin(), times.end());
  result.medianUs = times[times.size() / 2];
  return result;
}

void print(const char *name, const Result &r, double baseline) {
  std::printf("%-12s %8.1f us/step  %5.2fx of steady   captures %lld, "
              "instantiations %lld, updates %lld, evictions %lld, replays "
              "%lld\n",
              name, r.medianUs, r.medianUs / baseline,
              static_cast<long long>(r.stats.captures),
              static_cast<long long>(r.stats.instantiations),
              static_cast<long long>(r.stats.updates),
              static_cast<long long>(r.stats.evictions),
              static_cast<long long>(r.stats.replays));
}

} // namespace

int main(int argc, char **argv) {
  int keys = argc > 1 ? std::atoi(argv[1]) : 5;
  int kernels = argc > 2 ? std::atoi(argv[2]) : 20;
  int steps = argc > 3 ? std::atoi(argv[3]) : 400;
  if (keys < 1 || kernels < 1 || steps < 1) {
    std::fprintf(stderr, "usage: gp-bench-alternating-keys [KEYS>=1] "
                         "[KERNELS>=1] [STEPS>=1]\n");
    return 2;
  }
  if (gpRtBackendAvailable(GP_RT_BACKEND_CUDA) != GP_RT_SUCCESS) {
    std::fprintf(stderr, "no usable CUDA device: %s\n", gpRtGetLastError());
    return 2;
  }
  std::printf("%d keys, %d kernels per step, %d steps (median)\n", keys,
              kernels, steps);
  Result steady = run(1, kernels, steps, 0);
  Result alternating = run(keys, kernels, steps, 0);
  print("steady", steady, steady.medianUs);
  print("alternating", alternating, steady.medianUs);
  if (setCacheCapacity)
    print("cache of 1", run(keys, kernels, steps, 1), steady.medianUs);
  else
    std::printf("(a runtime without a graph cache: no cache-of-1 run)\n");
  return 0;
}
