//===- param_call_overhead.cpp - per-call cost of bound parameters --------===//
//
// Times gpRtArtifactCallChecked on artifacts whose entries take one user
// input and N bound parameters (bench/call_overhead.py make, e.g. with
// --width 1 so that the kernel's own work is small next to the call
// path), with no Python in between: what the runtime spends per call as N
// grows. Each artifact is loaded, every parameter bound once to host
// memory, then CALLS calls are timed back to back per round; the median
// per-call time over ROUNDS rounds is printed per artifact, with the
// difference per extra parameter against the first artifact. With
// --rotate K the user inputs move: each call passes the next of K copies
// (a caller's fresh tensors), so graphs are re-bound or chosen per set of
// addresses instead of replayed as they were.
//
// Built as gp-bench-param-call-overhead (bench/CMakeLists.txt; also in the
// runtime-only configuration).
// usage: gp-bench-param-call-overhead [--backend host|cuda] [--calls C]
//          [--rounds R] [--rotate K] A.so [B.so ...]
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Runtime/GPRuntime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string &what) {
  std::fprintf(stderr, "param_call_overhead: %s: %s\n", what.c_str(),
               gpRtGetLastError());
  std::exit(1);
}

/// A loaded artifact with its parameters bound and its call's arrays.
struct Loaded {
  std::string path;
  gpRtArtifact *artifact = nullptr;
  int32_t parameters = 0;
  std::vector<std::vector<float>> memory;
  std::vector<std::vector<int64_t>> descriptors, resultWords;
  std::vector<void *> results;
  /// Per rotation, the user arguments' descriptors (parameter slots null).
  std::vector<std::vector<void *>> rotations;
  size_t turn = 0;

  void call() {
    const std::vector<void *> &args = rotations[turn++ % rotations.size()];
    if (gpRtArtifactCallChecked(artifact, 0, const_cast<void **>(args.data()),
                                static_cast<int32_t>(args.size()),
                                results.data(),
                                static_cast<int32_t>(results.size())))
      die("call " + path);
  }
};

/// Row-major gpRtMemRef words for `data` of `shape`.
std::vector<int64_t> describe(void *data, const int64_t *shape, int32_t rank) {
  auto address = reinterpret_cast<int64_t>(data);
  std::vector<int64_t> words = {address, address, 0};
  words.insert(words.end(), shape, shape + rank);
  int64_t stride = 1;
  std::vector<int64_t> strides(rank);
  for (int32_t d = rank; d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  words.insert(words.end(), strides.begin(), strides.end());
  return words;
}

int64_t elements(const int64_t *shape, int32_t rank) {
  int64_t count = 1;
  for (int32_t d = 0; d < rank; ++d)
    count *= std::max<int64_t>(shape[d], 1);
  return count;
}

void load(Loaded &loaded, gpRtBackend backend, int rotate) {
  if (gpRtArtifactLoad(loaded.path.c_str(), backend, -1, &loaded.artifact))
    die("load " + loaded.path);
  gpRtArtifact *artifact = loaded.artifact;
  loaded.parameters = gpRtArtifactNumParameters(artifact);
  for (int32_t p = 0; p < loaded.parameters; ++p) {
    gpRtParameterInfo info;
    if (gpRtArtifactGetParameter(artifact, p, &info))
      die("parameter");
    loaded.memory.emplace_back(elements(info.shape, info.rank), 1.0f);
    std::vector<int64_t> words =
        describe(loaded.memory.back().data(), info.shape, info.rank);
    if (gpRtArtifactBindParameter(artifact, info.name, info.elementType,
                                  words.data()))
      die(std::string("bind ") + info.name);
  }
  gpRtEntryInfo entry;
  if (gpRtArtifactGetEntry(artifact, 0, &entry))
    die("entry");
  loaded.descriptors.reserve(rotate * entry.numArgs);
  for (int k = 0; k < rotate; ++k) {
    std::vector<void *> args(entry.numArgs, nullptr);
    for (int32_t i = 0; i < entry.numArgs; ++i) {
      const gpRtValueInfo &arg = entry.args[i];
      if (arg.parameter)
        continue; // NULL: the bound descriptor.
      loaded.memory.emplace_back(elements(arg.shape, arg.rank), 2.0f);
      loaded.descriptors.push_back(
          describe(loaded.memory.back().data(), arg.shape, arg.rank));
      args[i] = loaded.descriptors.back().data();
    }
    loaded.rotations.push_back(std::move(args));
  }
  loaded.resultWords.resize(entry.numResults);
  for (int32_t r = 0; r < entry.numResults; ++r) {
    loaded.resultWords[r].assign(3 + 2 * entry.results[r].rank, 0);
    loaded.results.push_back(loaded.resultWords[r].data());
  }
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  gpRtBackend backend = GP_RT_BACKEND_HOST;
  int calls = 20000, rounds = 7, rotate = 1;
  std::vector<Loaded> loaded;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--backend" && i + 1 < argc) {
      if (gpRtParseBackend(argv[++i], &backend))
        die("backend");
    } else if (arg == "--calls" && i + 1 < argc) {
      calls = std::atoi(argv[++i]);
    } else if (arg == "--rounds" && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else if (arg == "--rotate" && i + 1 < argc) {
      rotate = std::atoi(argv[++i]);
    } else {
      loaded.emplace_back();
      loaded.back().path = arg;
    }
  }
  if (loaded.empty() || calls <= 0 || rounds <= 0 || rotate <= 0) {
    std::fprintf(stderr,
                 "usage: %s [--backend host|cuda] [--calls C] "
                 "[--rounds R] [--rotate K] A.so [B.so ...]\n",
                 argv[0]);
    return 2;
  }
  for (Loaded &each : loaded)
    load(each, backend, rotate);
  std::vector<std::vector<double>> samples(loaded.size());
  for (int round = 0; round < rounds; ++round)
    for (size_t a = 0; a < loaded.size(); ++a) {
      Loaded &each = loaded[a];
      for (int i = 0; i < 100; ++i)
        each.call();
      gpRtProgram *program = nullptr;
      gpRtArtifactGetProgram(each.artifact, &program);
      gpRtProgramSynchronize(program);
      auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i)
        each.call();
      gpRtProgramSynchronize(program);
      auto end = std::chrono::steady_clock::now();
      samples[a].push_back(
          std::chrono::duration<double, std::nano>(end - start).count() /
          calls);
    }
  double first = median(samples[0]);
  for (size_t a = 0; a < loaded.size(); ++a) {
    double ns = median(samples[a]);
    std::printf("%-40s %4d parameters: %8.1f ns per call (min %.1f)",
                loaded[a].path.c_str(), loaded[a].parameters, ns,
                *std::min_element(samples[a].begin(), samples[a].end()));
    if (a > 0 && loaded[a].parameters != loaded[0].parameters)
      std::printf("; %.2fx, %.2f ns per extra parameter", ns / first,
                  (ns - first) / (loaded[a].parameters - loaded[0].parameters));
    std::printf("\n");
  }
  for (Loaded &each : loaded)
    gpRtArtifactUnload(each.artifact);
  return 0;
}
