//===- Describe.h - what gp-run prints of an artifact and writes -*- C++ -*-===//

#ifndef GRAPHPART_TOOLS_GPRUN_DESCRIBE_H
#define GRAPHPART_TOOLS_GPRUN_DESCRIBE_H

#include "ElementType.h"

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdio>
#include <string>
#include <vector>

namespace gp::run {

/// --print-entries, on stdout: `entry NAME`, then per argument `arg SPEC
/// DEVICE [dynamic-dims=D,...] [parameter=NAME]` (SPEC an --input template)
/// and per result `result TYPE DEVICE`.
void printEntries(gpRtArtifact *artifact);

/// --print-partitions: the partition table, then per entry with size
/// classes `entry NAME sizes:` and a line per class
/// (gpRtArtifactDescribeSizes), on `messages`.
void printPartitions(gpRtArtifact *artifact, FILE *messages);

/// --output: PATH itself for one result, PATH.N.npy for each of several;
/// each file written is added to `written` and named on `messages`.
void writeResults(const std::string &output, const std::vector<Array> &results,
                  std::vector<std::string> &written, FILE *messages);

} // namespace gp::run

#endif // GRAPHPART_TOOLS_GPRUN_DESCRIBE_H
