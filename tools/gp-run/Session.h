//===- Session.h - run an artifact and report -------------------*- C++ -*-===//
//
// What gp-run does once its options are parsed: load the artifact, run its
// entry points, optionally check them against an eager run, and report
// latency and the runtime's counters.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_TOOLS_GPRUN_SESSION_H
#define GRAPHPART_TOOLS_GPRUN_SESSION_H

#include <cstdint>
#include <string>
#include <vector>

namespace gp::run {

/// --rotate's bounds: each set is a copy of every input, so a typo such as
/// `--rotate 10000000` must not take the machine's memory.
constexpr int64_t kMaxRotate = 4096;
constexpr int64_t kMaxRotateBytes = int64_t(1) << 30;

/// gp-run's options, as parsed from its command line.
struct RunOptions {
  std::string path, output, backendName;
  /// --weights: gp-import's weights directory; each entry's weight
  /// arguments (DIR/<entry>.weights) follow its own --input values.
  std::string weightsDir;
  /// --parameters: a directory of <name>.npy files or a .safetensors file;
  /// every named parameter of the program is bound from it once.
  /// --parameters, in the order given (the first holding a name gives it).
  std::vector<std::string> parameterPaths;
  std::vector<std::string> inputSpecs, externLibs, entryNames;
  /// --expected-output: reference results (.npy), one per result in order.
  std::vector<std::string> expectedOutputs;
  /// --check: steps with fresh random inputs in the same buffers (then one
  /// more at new addresses).
  int64_t checkSteps = 3;
  int32_t device = -1; // The artifact's.
  int64_t warmup = 1, iterations = 10;
  /// --rotate: sets of input buffers the steps use in turn.
  int64_t rotate = 1;
  uint64_t seed = 0;
  double rtol = 1e-5, atol = 1e-6;
  bool doCheck = false, printPartitions = false, noCapture = false,
       printEntries = false;
  /// --json: the report as one JSON document on stdout (JsonReport.h);
  /// other lines go to stderr.
  bool json = false;
  /// --ranks: program instances run together as ranks, one thread each
  /// (0: not given, the program runs alone).
  int64_t ranks = 0;
};

/// Runs the program `options` name and prints the report; returns the exit
/// status (1 when --check finds a mismatch). Dies on errors.
int runProgram(const RunOptions &options);

} // namespace gp::run

#endif // GRAPHPART_TOOLS_GPRUN_SESSION_H
