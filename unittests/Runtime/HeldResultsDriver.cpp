//===- HeldResultsDriver.cpp - results kept across calls, end to end ------===//
//
// Loads an artifact of test/Runtime/E2E/Inputs/held_result.mlir (y = x + x,
// y in program memory) and calls it the ways a caller holding results
// would, printing what it reads for FileCheck (test/Runtime/E2E/
// held-results*.test):
//   plain       call 1 (x = 1), call 2 (x = 2): call 1's result now reads 4;
//   outputs     call 1 with a caller-owned output, call 2: still 2;
//   debug       the overwrite debug mode: call 2 poisons call 1's result
//               (it reads NaN) and copying it out names the output and
//               the calls.
//
// usage: gp-held-results ARTIFACT host|cuda
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

#define CHECK(call)                                                            \
  do {                                                                         \
    if (gpRtStatus status_ = (call)) {                                         \
      std::printf("error: %s: %s\n", #call, gpRtGetLastError());               \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct Descriptor {
  void *allocated, *aligned;
  int64_t offset, size, stride;
};

struct Session {
  gpRtArtifact *artifact = nullptr;
  gpRtProgram *program = nullptr;
  void *x = nullptr;
  Descriptor input{};

  void setInput(float value) {
    float values[4] = {value, value, value, value};
    CHECK(gpRtCopyToProgram(program, x, values, sizeof(values)));
  }
  Descriptor call(bool keep, void *output = nullptr) {
    Descriptor result{};
    void *args[] = {&input};
    void *results[] = {&result};
    if (keep) {
      void *outputs[] = {output};
      int64_t bytes[] = {16};
      CHECK(gpRtArtifactCallWithOutputs(artifact, 0, args, results, outputs,
                                        bytes));
    } else {
      CHECK(gpRtArtifactCallChecked(artifact, 0, args, 1, results, 1));
    }
    CHECK(gpRtProgramSynchronize(program));
    return result;
  }
  std::string read(const Descriptor &result) {
    float values[4];
    if (gpRtArtifactCopyResultToHost(artifact, 0, 0, &result, values,
                                     sizeof(values)) != GP_RT_SUCCESS)
      return std::string("error: ") + gpRtGetLastError();
    return format(values);
  }
  /// The bytes at the result's address, bypassing every check.
  std::string readRaw(const Descriptor &result) {
    float values[4];
    CHECK(gpRtCopyFromProgram(program, values, result.aligned, sizeof(values)));
    return format(values);
  }
  static std::string format(const float *values) {
    char text[128];
    std::snprintf(text, sizeof(text), "%g %g %g %g", values[0], values[1],
                  values[2], values[3]);
    return text;
  }
};

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: gp-held-results ARTIFACT host|cuda\n");
    return 2;
  }
  gpRtBackend backend;
  CHECK(gpRtParseBackend(argv[2], &backend));
  Session s;
  CHECK(gpRtArtifactLoad(argv[1], backend, -1, &s.artifact));
  CHECK(gpRtArtifactGetProgram(s.artifact, &s.program));
  CHECK(gpRtProgramAllocate(s.program, 16, &s.x));
  s.input = {s.x, s.x, 0, 4, 1};

  s.setInput(1);
  Descriptor first = s.call(false);
  s.setInput(2);
  Descriptor second = s.call(false);
  std::printf("plain: same storage: %s\n",
              first.aligned == second.aligned ? "yes" : "no");
  std::printf("plain: call 1 reads %s\n", s.read(first).c_str());
  std::printf("plain: call 2 reads %s\n", s.read(second).c_str());

  void *kept = nullptr;
  CHECK(gpRtProgramAllocate(s.program, 16, &kept));
  s.setInput(1);
  Descriptor held = s.call(true, kept);
  s.setInput(3);
  Descriptor later = s.call(false);
  std::printf("outputs: kept in caller memory: %s\n",
              held.aligned == kept ? "yes" : "no");
  std::printf("outputs: call 1 reads %s\n", s.read(held).c_str());
  std::printf("outputs: call 2 reads %s\n", s.read(later).c_str());

  CHECK(gpRtArtifactSetDebugOverwrite(s.artifact, 1));
  s.setInput(1);
  Descriptor stale = s.call(false);
  std::printf("debug: call 1 reads %s\n", s.read(stale).c_str());
  s.setInput(5);
  Descriptor fresh = s.call(false);
  std::printf("debug: call 2 reads %s\n", s.read(fresh).c_str());
  std::printf("debug: call 1 again: %s\n", s.read(stale).c_str());
  std::printf("debug: call 1's bytes: %s\n", s.readRaw(stale).c_str());

  CHECK(gpRtProgramFree(s.program, kept));
  CHECK(gpRtProgramFree(s.program, s.x));
  CHECK(gpRtArtifactUnload(s.artifact));
  std::printf("done\n");
  return 0;
}
