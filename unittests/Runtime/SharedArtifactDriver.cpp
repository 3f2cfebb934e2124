//===- SharedArtifactDriver.cpp - threads sharing one loaded artifact ----===//
//
// Loads an artifact once and calls its first entry from THREADS threads at
// once, STEPS calls each, every thread with its own input buffers and its
// own values per step; each call's results are compared, bit for bit, with
// the same call on an eager instance of the artifact (capture off) that
// the thread owns. With `own`, every thread loads an artifact of its own
// instead of sharing one (the soak's second half). Prints the mismatches
// and the live counts after unloading (all zero). Entries with buffer
// arguments of f32 only.
//
// usage: gp-shared-artifact ARTIFACT host|cuda THREADS STEPS [shared|own]
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Runtime/GPRuntime.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

/// One entry instance with its argument buffers, on one program.
struct Caller {
  gpRtArtifact *artifact = nullptr;
  gpRtProgram *program = nullptr;
  gpRtEntryInfo entry{};
  std::vector<std::vector<uint8_t>> descriptors, results;
  std::vector<void *> memory;
  std::vector<int64_t> counts;

  bool owned = false;

  /// An instance of its own: loaded here, unloaded by close().
  bool open(const char *path, gpRtBackend backend, bool eager,
            std::string &error) {
    if (gpRtArtifactLoad(path, backend, -1, &artifact) ||
        (eager && (gpRtArtifactGetProgram(artifact, &program) ||
                   gpRtProgramSetCaptureEnabled(program, 0)))) {
      error = gpRtGetLastError();
      return false;
    }
    owned = true;
    return prepare(artifact, error);
  }

  /// This caller's argument buffers on `loaded`'s program.
  bool prepare(gpRtArtifact *loaded, std::string &error) {
    artifact = loaded;
    if (gpRtArtifactGetProgram(artifact, &program) ||
        gpRtArtifactGetEntry(artifact, 0, &entry)) {
      error = gpRtGetLastError();
      return false;
    }
    for (int32_t i = 0; i < entry.numArgs; ++i) {
      const gpRtValueInfo &arg = entry.args[i];
      if (!arg.isBuffer || std::string(arg.elementType) != "f32") {
        error = "only f32 buffer arguments are supported";
        return false;
      }
      int64_t count = 1;
      for (int32_t d = 0; d < arg.rank; ++d)
        count *= arg.shape[d] < 0 ? 8 : arg.shape[d];
      void *buffer = nullptr;
      if (gpRtProgramAllocate(program, count * 4, &buffer)) {
        error = gpRtGetLastError();
        return false;
      }
      memory.push_back(buffer);
      counts.push_back(count);
      std::vector<uint8_t> descriptor(GP_RT_MEMREF_BYTES(arg.rank));
      auto *ref = reinterpret_cast<gpRtMemRef *>(descriptor.data());
      ref->allocated = ref->aligned = buffer;
      ref->offset = 0;
      int64_t stride = 1;
      for (int32_t d = arg.rank - 1; d >= 0; --d) {
        ref->shape[d] = arg.shape[d] < 0 ? 8 : arg.shape[d];
        ref->shape[arg.rank + d] = stride;
        stride *= ref->shape[d];
      }
      descriptors.push_back(std::move(descriptor));
    }
    for (int32_t i = 0; i < entry.numResults; ++i)
      results.emplace_back(GP_RT_MEMREF_BYTES(entry.results[i].rank));
    return true;
  }

  /// Calls the entry with every argument element set from (seed, index)
  /// and returns the results' bytes.
  bool call(uint32_t seed, std::vector<std::vector<uint8_t>> &out,
            std::string &error) {
    for (size_t i = 0; i < memory.size(); ++i) {
      std::vector<float> values(counts[i]);
      for (int64_t e = 0; e < counts[i]; ++e)
        values[e] =
            static_cast<float>((seed * 2654435761u + e * 40503u + i) % 1000) /
                250.0f -
            2.0f;
      if (gpRtCopyToProgram(program, memory[i], values.data(),
                            values.size() * 4)) {
        error = gpRtGetLastError();
        return false;
      }
    }
    std::vector<void *> args, resultPointers;
    for (auto &descriptor : descriptors)
      args.push_back(descriptor.data());
    for (auto &result : results)
      resultPointers.push_back(result.data());
    if (gpRtArtifactCallChecked(artifact, 0, args.data(),
                                static_cast<int32_t>(args.size()),
                                resultPointers.data(),
                                static_cast<int32_t>(resultPointers.size()))) {
      error = gpRtGetLastError();
      return false;
    }
    out.clear();
    for (int32_t r = 0; r < entry.numResults; ++r) {
      int64_t bytes = 0;
      if (gpRtArtifactResultBytes(artifact, 0, r, results[r].data(), &bytes)) {
        error = gpRtGetLastError();
        return false;
      }
      out.emplace_back(bytes);
      if (gpRtArtifactCopyResultToHost(artifact, 0, r, results[r].data(),
                                       out.back().data(), bytes)) {
        error = gpRtGetLastError();
        return false;
      }
    }
    return true;
  }

  void close() {
    for (void *buffer : memory)
      gpRtProgramFree(program, buffer);
    if (owned)
      gpRtArtifactUnload(artifact);
  }
};

} // namespace

int main(int argc, char **argv) {
  bool ownArtifacts = argc == 6 && std::string(argv[5]) == "own";
  if ((argc != 5 && argc != 6) ||
      (argc == 6 && !ownArtifacts && std::string(argv[5]) != "shared")) {
    std::fprintf(stderr, "usage: gp-shared-artifact ARTIFACT host|cuda "
                         "THREADS STEPS [shared|own]\n");
    return 2;
  }
  gpRtBackend backend;
  if (gpRtParseBackend(argv[2], &backend)) {
    std::fprintf(stderr, "%s\n", gpRtGetLastError());
    return 2;
  }
  int threads = std::atoi(argv[3]), steps = std::atoi(argv[4]);
  gpRtArtifact *shared = nullptr;
  if (gpRtArtifactLoad(argv[1], backend, -1, &shared)) {
    std::printf("error: %s\n", gpRtGetLastError());
    return 1;
  }
  std::atomic<int> mismatches{0}, failures{0};
  std::atomic<int64_t> ownCaptures{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      Caller mine, reference;
      std::string error;
      if (!(ownArtifacts
                ? mine.open(argv[1], backend, /*eager=*/false, error)
                : mine.prepare(shared, error)) ||
          !reference.open(argv[1], backend, /*eager=*/true, error)) {
        std::printf("thread %d: %s\n", t, error.c_str());
        ++failures;
        return;
      }
      std::vector<std::vector<uint8_t>> got, want;
      for (int step = 0; step < steps; ++step) {
        uint32_t seed = static_cast<uint32_t>(t * 100003 + step);
        if (!mine.call(seed, got, error) ||
            !reference.call(seed, want, error)) {
          std::printf("thread %d step %d: %s\n", t, step, error.c_str());
          ++failures;
          break;
        }
        if (got != want && mismatches++ < 5)
          std::printf("thread %d step %d: results differ from the eager "
                      "run\n",
                      t, step);
      }
      gpRtStats mineStats;
      if (ownArtifacts && !gpRtProgramGetStats(mine.program, &mineStats))
        ownCaptures += mineStats.captures;
      mine.close();
      reference.close();
    });
  for (std::thread &worker : workers)
    worker.join();
  gpRtStats stats;
  gpRtProgram *program = nullptr;
  gpRtArtifactGetProgram(shared, &program);
  gpRtProgramGetStats(program, &stats);
  gpRtArtifactUnload(shared);
  int64_t programs, graphs, streams, pool;
  gpRtGetLiveCounts(&programs, &graphs, &streams, &pool);
  std::printf("%d threads x %d steps on %s: %d mismatches, %d failures, "
              "%lld captures\n",
              threads, steps,
              ownArtifacts ? "an artifact each" : "one artifact",
              mismatches.load(), failures.load(),
              static_cast<long long>(ownArtifacts ? ownCaptures.load()
                                                  : stats.captures));
  std::printf("live after unload: programs %lld, graphs %lld, streams %lld, "
              "pool bytes %lld\n",
              static_cast<long long>(programs), static_cast<long long>(graphs),
              static_cast<long long>(streams), static_cast<long long>(pool));
  return mismatches || failures ? 1 : 0;
}
