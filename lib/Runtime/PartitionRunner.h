//===- PartitionRunner.h - one run of a partition ---------------*- C++ -*-===//
//
// The partition runner (PartitionRunner.cpp): per run, an eager run, a
// warm-up, a capture or a replay of the graph the cache (GraphCache.h)
// holds for the run's key.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_RUNTIME_PARTITIONRUNNER_H
#define GRAPHPART_LIB_RUNTIME_PARTITIONRUNNER_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdint>

namespace gp::rt {

/// Runs capturable or eager partition `partition` of `program` on the
/// calling thread: warm-up, capture, update or replay per the policy.
/// Arguments are checked by the caller.
gpRtStatus runPartition(gpRtProgram &program, int32_t partition,
                        const int64_t *shapeKey, gpRtPartitionBody body,
                        void *userData, void *results, int64_t resultBytes,
                        const gpRtPartitionInput *inputs, int32_t numInputs);

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_PARTITIONRUNNER_H
