//===- JsonReport.h - gp-run --json ---------------------------*- C++ -*-===//
//
// The run as one JSON document on stdout, for scripts: the program's
// partitions, the size classes of the entries run, per-step latency
// percentiles, the runtime's counters (the
// timed steps' and the whole run's), memory, and what --check and
// --expected-output found. docs/Reports.md describes every field.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_TOOLS_GPRUN_JSONREPORT_H
#define GRAPHPART_TOOLS_GPRUN_JSONREPORT_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace gp::run {

struct RunSummary {
  std::vector<std::string> entries;
  std::string backend;
  int64_t warmup = 0, iterations = 0, rotate = 1;
  /// Microseconds of each timed step, sorted.
  std::vector<double> micros;
  /// The timed steps' counters (captures, instantiations, updates, rebinds,
  /// replays) and the whole run's.
  gpRtStats timed{}, total{};
  int64_t deviceArenaBytes = 0, hostArenaBytes = 0;
  /// --check: steps compared and how many differed.
  std::optional<std::pair<int64_t, int64_t>> check;
  /// --expected-output: results compared and mismatching elements.
  std::optional<std::pair<int64_t, int64_t>> expected;
  std::vector<std::string> outputsWritten;
  int status = 0;
};

/// The element at fraction `q` of sorted `values` (nearest rank).
double percentile(const std::vector<double> &values, double q);

/// Writes `summary` and `artifact`'s partition table as JSON to `out`.
void printJsonReport(FILE *out, gpRtArtifact *artifact,
                     const RunSummary &summary);

} // namespace gp::run

#endif // GRAPHPART_TOOLS_GPRUN_JSONREPORT_H
