//===- Describe.cpp - what gp-run prints of an artifact and writes -------===//
//
// --print-entries (an --input template per argument), --print-partitions
// (the partition table and each entry's size classes) and --output
// (results as .npy files).
//
//===----------------------------------------------------------------------===//

#include "Describe.h"

#include "Diagnostics.h"
#include "Npy.h"

#include <cstdio>
#include <cstring>
#include <string>

using namespace gp::run;

/// --print-entries: one line per value: `entry NAME`, then `arg SPEC
/// DEVICE [dynamic-dims=D,...]` where SPEC is an --input template (8 for
/// the dynamic dimensions listed), `result TYPE DEVICE` (? for dynamic
/// sizes).
void gp::run::printEntries(gpRtArtifact *artifact) {
  auto describe = [](const gpRtValueInfo &value, bool asInput) {
    if (!value.isBuffer)
      return std::string(asInput ? "4 index" : "index");
    std::string spec;
    for (int32_t d = 0; d < value.rank; ++d)
      spec +=
          value.shape[d] < 0 && !asInput
              ? std::string("?x")
              : std::to_string(value.shape[d] < 0 ? 8 : value.shape[d]) + "x";
    return spec + value.elementType + (asInput ? "=random " : " ") +
           value.device;
  };
  for (int32_t e = 0; e < gpRtArtifactNumEntries(artifact); ++e) {
    gpRtEntryInfo info;
    check(gpRtArtifactGetEntry(artifact, e, &info), "entry");
    std::printf("entry %s\n", info.name);
    for (int32_t i = 0; i < info.numArgs; ++i) {
      // Which dimensions the template sized (8) because they are dynamic.
      std::string dynamic;
      for (int32_t d = 0; d < info.args[i].rank; ++d)
        if (info.args[i].isBuffer && info.args[i].shape[d] < 0)
          dynamic +=
              (dynamic.empty() ? " dynamic-dims=" : ",") + std::to_string(d);
      // A named parameter (bound once by --parameters, else an --input).
      std::string parameter =
          info.args[i].parameter
              ? std::string(" parameter=") + info.args[i].parameter
              : std::string();
      std::printf("arg %s%s%s\n", describe(info.args[i], true).c_str(),
                  dynamic.c_str(), parameter.c_str());
    }
    for (int32_t i = 0; i < info.numResults; ++i)
      std::printf("result %s\n", describe(info.results[i], false).c_str());
  }
}

void gp::run::printPartitions(gpRtArtifact *artifact, FILE *messages) {
  int32_t count = gpRtArtifactNumPartitions(artifact);
  std::fprintf(messages, "partitions: %d (target %s)\n", count,
              gpRtArtifactTarget(artifact));
  for (int32_t i = 0; i < count; ++i) {
    gpRtPartitionInfo info;
    check(gpRtArtifactGetPartition(artifact, i, &info), "partition");
    std::fprintf(messages, "  partition %d: %s, shape key of %d symbol(s)%s%s\n", i,
                info.capturable ? "capturable" : "eager", info.numShapeSymbols,
                info.capturable ? "" : ": ",
                info.capturable ? "" : info.reasons);
  }
  // The sizes each entry uses as one, and whether calls are padded along
  // them to the capture sizes.
  for (int32_t e = 0; e < gpRtArtifactNumEntries(artifact); ++e) {
    const char *sizes = nullptr;
    check(gpRtArtifactDescribeSizes(artifact, e, &sizes), "sizes");
    if (!*sizes)
      continue;
    gpRtEntryInfo info;
    check(gpRtArtifactGetEntry(artifact, e, &info), "entry");
    std::fprintf(messages, "entry %s sizes:\n", info.name);
    for (const char *line = sizes; *line;) {
      const char *end = std::strchr(line, '\n');
      size_t length = end ? end - line : std::strlen(line);
      std::fprintf(messages, "  %.*s\n", static_cast<int>(length), line);
      line += length + (end ? 1 : 0);
    }
  }
}

/// --output: PATH itself for one result, PATH.N.npy for each of several.
void gp::run::writeResults(const std::string &output,
                           const std::vector<Array> &results,
                           std::vector<std::string> &written, FILE *messages) {
  for (size_t i = 0; i < results.size(); ++i) {
    std::string file = output;
    if (results.size() > 1) {
      size_t dot = file.rfind(".npy");
      std::string index = "." + std::to_string(i);
      file = dot == std::string::npos ? file + index + ".npy"
                                      : file.substr(0, dot) + index + ".npy";
    }
    std::string error;
    if (!writeNpy(file, results[i], error))
      die("--output: " + error);
    written.push_back(file);
    std::fprintf(messages, "wrote %s\n", file.c_str());
  }
}

