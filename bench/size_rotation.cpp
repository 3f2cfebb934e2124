//===- size_rotation.cpp - many sizes in rotation against one size --------===//
//
// A program over a dynamic batch (bench/gen_batch_mlp.py) called with K
// batch sizes in rotation, as a server sees them, in one process:
//   one size      batch 128 (the rotations' mean) or 256 (their largest)
//                 on every call (the baselines);
//   K sizes       batches 1..K in turn with the default capture sizes
//                 (1, 2, 4, 8, steps of 8 to 256, of 16 to 512): calls
//                 between them run the next one's graph on padded inputs;
//   K sizes, no capture sizes   every size captured for itself (the graph
//                 cache holds 64 keys), as before padding.
// Per step = call + synchronize, median over STEPS calls after three
// untimed rounds. Reports captures during the timed steps, pool bytes
// against the largest size's pool plan, padded calls, and checks every
// size's result against a call of a fresh artifact at that size with no
// capture sizes.
//
// usage: gp-bench-size-rotation ARTIFACT [host|cuda] [STEPS=512]
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Runtime/GPRuntime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define CHECK(call)                                                            \
  do {                                                                         \
    if (gpRtStatus status_ = (call)) {                                         \
      std::fprintf(stderr, "%s failed (%d): %s\n", #call,                      \
                   static_cast<int>(status_), gpRtGetLastError());             \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr int64_t kMaxBatch = 512;

/// A loaded artifact with its arguments in program memory, sized for the
/// largest batch; a call at batch n passes them with dimension 0 = n.
struct Loaded {
  gpRtArtifact *artifact = nullptr;
  gpRtProgram *program = nullptr;
  std::vector<void *> memory;
  std::vector<std::vector<int64_t>> shapes; // -1 = the batch
  std::vector<std::vector<uint8_t>> descriptors;
  std::vector<void *> args;
  std::vector<uint8_t> result;
  void *results[1] = {nullptr};

  Loaded(const char *path, gpRtBackend backend, const char *captureSizes,
         bool padding) {
    CHECK(gpRtArtifactLoad(path, backend, 0, &artifact));
    CHECK(gpRtArtifactGetProgram(artifact, &program));
    CHECK(gpRtArtifactSetCaptureSizes(artifact, captureSizes));
    CHECK(gpRtArtifactSetPadding(artifact, padding ? 1 : 0));
    // Capturing every size is what the unpadded runs measure: not warned.
    CHECK(gpRtProgramSetShapeWarningLimit(program, 1 << 30));
    gpRtEntryInfo entry;
    CHECK(gpRtArtifactGetEntry(artifact, 0, &entry));
    if (entry.numResults != 1) {
      std::fprintf(stderr, "the probe takes an entry with one result\n");
      std::exit(2);
    }
    uint32_t seed = 12345;
    for (int32_t i = 0; i < entry.numArgs; ++i) {
      const gpRtValueInfo &info = entry.args[i];
      if (!info.isBuffer || std::strcmp(info.elementType, "f32") != 0) {
        std::fprintf(stderr, "the probe takes f32 buffer arguments\n");
        std::exit(2);
      }
      std::vector<int64_t> shape(info.shape, info.shape + info.rank);
      int64_t elements = 1;
      for (int64_t &size : shape)
        elements *= size < 0 ? kMaxBatch : size;
      std::vector<float> values(elements);
      for (float &value : values) {
        seed = seed * 1664525u + 1013904223u;
        value = static_cast<float>(seed >> 8) / float(1 << 24) - 0.5f;
      }
      void *block = nullptr;
      CHECK(gpRtProgramAllocate(program, elements * 4, &block));
      CHECK(gpRtCopyToProgram(program, block, values.data(), elements * 4));
      memory.push_back(block);
      shapes.push_back(shape);
      descriptors.emplace_back(GP_RT_MEMREF_BYTES(info.rank));
    }
    for (auto &descriptor : descriptors)
      args.push_back(descriptor.data());
    result.resize(GP_RT_MEMREF_BYTES(entry.results[0].rank));
    results[0] = result.data();
  }
  ~Loaded() { CHECK(gpRtArtifactUnload(artifact)); }

  void call(int64_t batch) {
    for (size_t i = 0; i < shapes.size(); ++i) {
      auto *ref = reinterpret_cast<gpRtMemRef *>(descriptors[i].data());
      size_t rank = shapes[i].size();
      ref->allocated = ref->aligned = memory[i];
      ref->offset = 0;
      int64_t stride = 1;
      for (size_t d = rank; d-- > 0;) {
        ref->shape[d] = shapes[i][d] < 0 ? batch : shapes[i][d];
        ref->shape[rank + d] = stride;
        stride *= ref->shape[d];
      }
    }
    CHECK(gpRtArtifactCallChecked(artifact, 0, args.data(),
                                  static_cast<int32_t>(args.size()), results,
                                  1));
  }

  std::vector<float> resultValues() {
    int64_t bytes = 0;
    CHECK(gpRtArtifactResultBytes(artifact, 0, 0, result.data(), &bytes));
    std::vector<float> values(bytes / 4);
    CHECK(gpRtArtifactCopyResultToHost(artifact, 0, 0, result.data(),
                                       values.data(), bytes));
    return values;
  }

  gpRtStats stats() {
    gpRtStats s{};
    CHECK(gpRtProgramGetStats(program, &s));
    return s;
  }
};

struct Outcome {
  double medianUs = 0;
  gpRtStats timed{}, total{};
  double worstError = 0;
};

Outcome run(const char *path, gpRtBackend backend,
            const std::vector<int64_t> &sizes, const char *captureSizes,
            bool padding, int steps) {
  Loaded loaded(path, backend, captureSizes, padding);
  Outcome outcome;
  std::vector<std::vector<float>> lastResults(sizes.size());
  for (int round = 0; round < 3; ++round)
    for (int64_t size : sizes)
      loaded.call(size);
  CHECK(gpRtProgramSynchronize(loaded.program));
  gpRtStats before = loaded.stats();
  std::vector<double> times;
  for (int i = 0; i < steps; ++i) {
    auto start = std::chrono::steady_clock::now();
    loaded.call(sizes[i % sizes.size()]);
    CHECK(gpRtProgramSynchronize(loaded.program));
    times.push_back(std::chrono::duration<double, std::micro>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  outcome.total = loaded.stats();
  outcome.timed.captures = outcome.total.captures - before.captures;
  outcome.timed.paddedCalls = outcome.total.paddedCalls - before.paddedCalls;
  outcome.timed.eagerRuns = outcome.total.eagerRuns - before.eagerRuns;
  std::sort(times.begin(), times.end());
  outcome.medianUs = times[times.size() / 2];
  // Results of a few sizes against a fresh artifact without capture sizes.
  for (int64_t size : {sizes.front(), sizes[sizes.size() / 2], sizes.back()}) {
    loaded.call(size);
    std::vector<float> got = loaded.resultValues();
    Loaded reference(path, backend, nullptr, false);
    reference.call(size);
    std::vector<float> want = reference.resultValues();
    if (got.size() != want.size()) {
      std::fprintf(stderr, "batch %lld: %zu result values, expected %zu\n",
                   static_cast<long long>(size), got.size(), want.size());
      std::exit(1);
    }
    for (size_t i = 0; i < got.size(); ++i)
      outcome.worstError =
          std::max(outcome.worstError, double(std::fabs(got[i] - want[i])));
  }
  if (outcome.worstError > 1e-5) {
    std::fprintf(stderr, "results differ from unpadded calls by %g\n",
                 outcome.worstError);
    std::exit(1);
  }
  return outcome;
}

void print(const char *name, const Outcome &o, double baseline) {
  std::printf("| %-32s | %8.1f | %5.2fx | %4lld | %6lld | %6lld | %10lld | "
              "%10lld | %5.2f | %.1e |\n",
              name, o.medianUs, o.medianUs / baseline,
              static_cast<long long>(o.timed.captures),
              static_cast<long long>(o.timed.paddedCalls),
              static_cast<long long>(o.timed.eagerRuns),
              static_cast<long long>(o.total.poolBytes),
              static_cast<long long>(o.total.largestPlanBytes),
              o.total.largestPlanBytes
                  ? double(o.total.poolBytes) / o.total.largestPlanBytes
                  : 0.0,
              o.worstError);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: gp-bench-size-rotation ARTIFACT [host|cuda] [STEPS]\n");
    return 2;
  }
  const char *path = argv[1];
  gpRtBackend backend = argc > 2 && std::string(argv[2]) == "host"
                            ? GP_RT_BACKEND_HOST
                            : GP_RT_BACKEND_CUDA;
  int steps = argc > 3 ? std::atoi(argv[3]) : 512;
  if (steps < 1) {
    std::fprintf(stderr, "STEPS must be positive\n");
    return 2;
  }
  auto range = [](int64_t count) {
    std::vector<int64_t> sizes;
    for (int64_t n = 1; n <= count; ++n)
      sizes.push_back(n);
    return sizes;
  };
  std::printf("%s, %s backend, %d timed steps (median)\n\n", path,
              backend == GP_RT_BACKEND_HOST ? "host" : "cuda", steps);
  std::printf("| run | us/step | vs one size | captures (timed) | padded "
              "(timed) | eager (timed) | pool bytes | largest plan | pool / "
              "plan | max error |\n|---|---:|---:|---:|---:|---:|---:|---:|"
              "---:|---:|\n");
  Outcome one = run(path, backend, {128}, "default", true, steps);
  print("one size (128)", one, one.medianUs);
  print("one size (256)", run(path, backend, {256}, "default", true, steps),
        one.medianUs);
  print("64 sizes, padded to buckets",
        run(path, backend, range(64), "default", true, steps), one.medianUs);
  print("256 sizes, padded to buckets",
        run(path, backend, range(256), "default", true, steps), one.medianUs);
  print("64 sizes, each captured",
        run(path, backend, range(64), nullptr, false, steps), one.medianUs);
  print("256 sizes, each captured",
        run(path, backend, range(256), nullptr, false, steps), one.medianUs);
  return 0;
}
