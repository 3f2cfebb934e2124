//===- SameAddressDriver.cpp - one buffer, many sizes, one address -------===//
//
// Calls entry 0 of an artifact whose only argument is a 1-D f32 buffer of
// dynamic size, once per SIZE given, always at the same address (a caller
// that keeps one large buffer and uses a prefix of it), with every element
// set to its index; prints result 0's first elements and the runtime's
// counters, for FileCheck (test/Runtime/E2E/unused-symbols*.test).
//
// usage: gp-same-address ARTIFACT host|cuda SIZE...
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Runtime/GPRuntime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    if (gpRtStatus status_ = (call)) {                                         \
      std::printf("error: %s: %s\n", #call, gpRtGetLastError());               \
      return 1;                                                                \
    }                                                                          \
  } while (0)

struct Descriptor1D {
  void *allocated, *aligned;
  int64_t offset, size, stride;
};

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: gp-same-address ARTIFACT host|cuda SIZE...\n");
    return 2;
  }
  gpRtBackend backend;
  CHECK(gpRtParseBackend(argv[2], &backend));
  std::vector<int64_t> sizes;
  for (int i = 3; i < argc; ++i)
    sizes.push_back(std::atoll(argv[i]));
  int64_t largest = *std::max_element(sizes.begin(), sizes.end());
  gpRtArtifact *artifact = nullptr;
  gpRtProgram *program = nullptr;
  CHECK(gpRtArtifactLoad(argv[1], backend, -1, &artifact));
  CHECK(gpRtArtifactGetProgram(artifact, &program));
  void *buffer = nullptr;
  CHECK(gpRtProgramAllocate(program, largest * 4, &buffer));
  std::vector<float> values(largest);
  for (int64_t i = 0; i < largest; ++i)
    values[i] = static_cast<float>(i);
  CHECK(gpRtCopyToProgram(program, buffer, values.data(), largest * 4));
  for (int64_t size : sizes) {
    Descriptor1D input{buffer, buffer, 0, size, 1};
    std::vector<uint8_t> result(GP_RT_MEMREF_BYTES(1));
    void *args[] = {&input};
    void *results[] = {result.data()};
    CHECK(gpRtArtifactCallChecked(artifact, 0, args, 1, results, 1));
    float first[8]; // The result: 8 elements.
    CHECK(gpRtArtifactCopyResultToHost(artifact, 0, 0, result.data(), first,
                                       sizeof(first)));
    std::printf("size %lld: %g %g %g %g\n", static_cast<long long>(size),
                first[0], first[1], first[2], first[3]);
  }
  gpRtStats stats;
  CHECK(gpRtProgramGetStats(program, &stats));
  std::printf("captures: %lld  replays: %lld  warm-up runs: %lld\n",
              static_cast<long long>(stats.captures),
              static_cast<long long>(stats.replays),
              static_cast<long long>(stats.warmupRuns));
  CHECK(gpRtProgramFree(program, buffer));
  CHECK(gpRtArtifactUnload(artifact));
  return 0;
}
