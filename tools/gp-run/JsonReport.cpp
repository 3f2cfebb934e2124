//===- JsonReport.cpp - gp-run --json -------------------------------------===//
//
// A small JSON writer (gp-run builds without LLVM, in the runtime-only
// configuration too) and the document gp-run --json prints.
//
//===----------------------------------------------------------------------===//

#include "JsonReport.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace gp::run;

namespace {

std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
        out += escaped;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

std::string number(double value) {
  if (!std::isfinite(value))
    return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", value);
  return text;
}

std::string number(int64_t value) { return std::to_string(value); }

/// A partition's reasons ("device copy, cpu ops") as a list.
std::vector<std::string> splitReasons(const char *reasons) {
  std::vector<std::string> list;
  std::string text = reasons ? reasons : "";
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(", ", start);
    list.push_back(text.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 2;
  }
  return list;
}

std::string stringList(const std::vector<std::string> &items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + quoted(items[i]);
  return out + "]";
}

/// Per entry run (by name), its size classes: name, whether calls are
/// padded along it, why not (the compiler's words) and the size the
/// program fixes it at.
std::string sizeClasses(gpRtArtifact *artifact,
                        const std::vector<std::string> &entries) {
  std::string out = "{";
  std::vector<std::string> done;
  for (const std::string &name : entries) {
    int32_t entry = 0;
    if (std::find(done.begin(), done.end(), name) != done.end() ||
        gpRtArtifactFindEntry(artifact, name.c_str(), &entry) != GP_RT_SUCCESS)
      continue;
    std::string list = "[";
    for (int32_t i = 0; i < gpRtArtifactNumSizes(artifact, entry); ++i) {
      gpRtSizeInfo info{};
      if (gpRtArtifactGetSize(artifact, entry, i, &info) != GP_RT_SUCCESS)
        continue;
      list += std::string(i ? ", " : "") + "{\"name\": " + quoted(info.name) +
              ", \"padded\": " + (info.padded ? "true" : "false") +
              ", \"reason\": " + (info.reason ? quoted(info.reason) : "null") +
              ", \"fixed\": " +
              (info.fixed >= 0 ? number(info.fixed) : "null") + "}";
    }
    out += (done.empty() ? "" : ", ") + quoted(name) + ": " + list + "]";
    done.push_back(name);
  }
  return out + "}";
}

} // namespace

double gp::run::percentile(const std::vector<double> &values, double q) {
  if (values.empty())
    return NAN;
  auto rank = static_cast<size_t>(std::ceil(q * values.size()));
  return values[rank == 0 ? 0 : std::min(values.size(), rank) - 1];
}

void gp::run::printJsonReport(FILE *out, gpRtArtifact *artifact,
                              const RunSummary &summary) {
  std::string json = "{\n";
  auto field = [&](const char *name, const std::string &value,
                   bool last = false) {
    json +=
        std::string("  ") + quoted(name) + ": " + value + (last ? "\n" : ",\n");
  };
  field("version", "1");
  field("runtime", quoted(gpRtVersion()));
  field("entries", stringList(summary.entries));
  field("backend", quoted(summary.backend));
  field("warmup", number(summary.warmup));
  field("iterations", number(summary.iterations));
  field("rotate", number(summary.rotate));

  std::string partitions = "[";
  int32_t count = gpRtArtifactNumPartitions(artifact);
  for (int32_t i = 0; i < count; ++i) {
    gpRtPartitionInfo info{};
    if (gpRtArtifactGetPartition(artifact, i, &info) != GP_RT_SUCCESS)
      continue;
    partitions +=
        std::string(i ? ", " : "") + "{\"index\": " + std::to_string(i) +
        ", \"kind\": " + (info.capturable ? "\"capturable\"" : "\"eager\"") +
        ", \"shapeSymbols\": " + std::to_string(info.numShapeSymbols) +
        ", \"reasons\": " +
        stringList(info.capturable ? std::vector<std::string>{}
                                   : splitReasons(info.reasons)) +
        "}";
  }
  field("target", quoted(gpRtArtifactTarget(artifact)));
  field("partitions", partitions + "]");
  field("sizes", sizeClasses(artifact, summary.entries));

  const std::vector<double> &micros = summary.micros;
  double mean = 0;
  for (double value : micros)
    mean += value / static_cast<double>(micros.size());
  field("latencyMicroseconds",
        "{\"steps\": " + std::to_string(micros.size()) +
            ", \"min\": " + number(micros.empty() ? NAN : micros.front()) +
            ", \"median\": " + number(percentile(micros, 0.5)) +
            ", \"mean\": " + number(micros.empty() ? NAN : mean) +
            ", \"p90\": " + number(percentile(micros, 0.9)) +
            ", \"p99\": " + number(percentile(micros, 0.99)) +
            ", \"max\": " + number(micros.empty() ? NAN : micros.back()) + "}");
  const gpRtStats &t = summary.timed;
  field("timedCounters",
        "{\"captures\": " + number(t.captures) + ", \"instantiations\": " +
            number(t.instantiations) + ", \"updates\": " + number(t.updates) +
            ", \"rebinds\": " + number(t.rebinds) +
            ", \"replays\": " + number(t.replays) + "}");
  const gpRtStats &s = summary.total;
  field("counters", "{\"warmupRuns\": " + number(s.warmupRuns) +
                        ", \"captures\": " + number(s.captures) +
                        ", \"instantiations\": " + number(s.instantiations) +
                        ", \"updates\": " + number(s.updates) +
                        ", \"replays\": " + number(s.replays) +
                        ", \"eagerRuns\": " + number(s.eagerRuns) +
                        ", \"shapeWarnings\": " + number(s.shapeWarnings) +
                        ", \"evictions\": " + number(s.evictions) +
                        ", \"rebinds\": " + number(s.rebinds) +
                        ", \"reboundSites\": " + number(s.reboundSites) +
                        ", \"liveGraphs\": " + number(s.liveGraphs) +
                        ", \"paddedCalls\": " + number(s.paddedCalls) + "}");
  field("memoryBytes",
        "{\"pool\": " + number(s.poolBytes) +
            ", \"largestShapePlans\": " + number(s.largestPlanBytes) +
            ", \"plannedDeviceArena\": " + number(summary.deviceArenaBytes) +
            ", \"plannedHostArena\": " + number(summary.hostArenaBytes) + "}");
  if (summary.check)
    field("check", "{\"steps\": " + number(summary.check->first) +
                       ", \"failedSteps\": " + number(summary.check->second) +
                       ", \"ok\": " +
                       (summary.check->second == 0 ? "true" : "false") + "}");
  if (summary.expected)
    field("expectedOutput",
          "{\"results\": " + number(summary.expected->first) +
              ", \"mismatches\": " + number(summary.expected->second) +
              ", \"ok\": " +
              (summary.expected->second == 0 ? "true" : "false") + "}");
  field("outputs", stringList(summary.outputsWritten));
  field("status", std::to_string(summary.status), /*last=*/true);
  json += "}\n";
  std::fputs(json.c_str(), out);
  std::fflush(out);
}
