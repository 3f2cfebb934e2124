//===- Rng.h - graph-safe RNG state -----------------------------*- C++ -*-===//

#ifndef GRAPHPART_LIB_RUNTIME_RNG_H
#define GRAPHPART_LIB_RUNTIME_RNG_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdint>
#include <map>
#include <vector>

namespace gp::rt {

/// Graph-safe RNG: per generator, a seed derived from the program seed and
/// a forward offset that advances per forward invocation; each backward
/// gets the offset its forward used.
class RngState {
public:
  void init(uint64_t programSeed, int32_t numGenerators);
  gpRtStatus forward(int32_t generator, uint64_t &seed, uint64_t &offset,
                     int64_t &invocation);
  gpRtStatus backward(int32_t generator, int64_t invocation, uint64_t &seed,
                      uint64_t &offset);
  /// Compiled programs: a forward whose backward will pair with it by
  /// recency (the most recent forward of the generator without one).
  gpRtStatus forwardPending(int32_t generator, uint64_t &seed,
                            uint64_t &offset) {
    int64_t invocation = 0;
    return forward(generator, seed, offset, invocation);
  }
  gpRtStatus latestBackward(int32_t generator, uint64_t &seed,
                            uint64_t &offset);

private:
  struct Generator {
    uint64_t seed = 0;
    uint64_t nextOffset = 0;
    std::map<int64_t, uint64_t> pending; // invocation -> offset
  };
  std::vector<Generator> generators;
  int64_t nextInvocation = 0;
};

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_RNG_H
