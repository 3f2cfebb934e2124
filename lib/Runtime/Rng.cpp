//===- Rng.cpp - graph-safe philox RNG state ------------------------------===//

#include "Rng.h"
#include "RuntimeInternal.h"

using namespace gp::rt;

/// splitmix64: decorrelates the per-generator seeds derived from one seed.
static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

void RngState::init(uint64_t programSeed, int32_t numGenerators) {
  generators.assign(numGenerators, {});
  for (int32_t i = 0; i < numGenerators; ++i)
    generators[i].seed = mix(programSeed ^ mix(static_cast<uint64_t>(i)));
}

gpRtStatus RngState::forward(int32_t generator, uint64_t &seed,
                             uint64_t &offset, int64_t &invocation) {
  if (generator < 0 || generator >= static_cast<int32_t>(generators.size()))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRngForward: no generator " + std::to_string(generator));
  Generator &g = generators[generator];
  seed = g.seed;
  offset = g.nextOffset++;
  invocation = nextInvocation++;
  g.pending[invocation] = offset;
  return GP_RT_SUCCESS;
}

gpRtStatus RngState::backward(int32_t generator, int64_t invocation,
                              uint64_t &seed, uint64_t &offset) {
  if (generator < 0 || generator >= static_cast<int32_t>(generators.size()))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRngBackward: no generator " + std::to_string(generator));
  Generator &g = generators[generator];
  auto it = g.pending.find(invocation);
  if (it == g.pending.end())
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRngBackward: generator " + std::to_string(generator) +
                    " has no pending forward invocation " +
                    std::to_string(invocation));
  seed = g.seed;
  offset = it->second;
  g.pending.erase(it);
  return GP_RT_SUCCESS;
}

gpRtStatus RngState::latestBackward(int32_t generator, uint64_t &seed,
                                    uint64_t &offset) {
  if (generator < 0 || generator >= static_cast<int32_t>(generators.size()))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRngState: no generator " + std::to_string(generator));
  Generator &g = generators[generator];
  if (g.pending.empty())
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRngState: a backward of generator " +
                    std::to_string(generator) +
                    " runs with no forward awaiting one");
  return backward(generator, g.pending.rbegin()->first, seed, offset);
}

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3"): counter (element block, offset), key (seed).
static void philox(uint32_t counter[4], uint32_t key[2]) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = static_cast<uint64_t>(kMul0) * counter[0];
    uint64_t p1 = static_cast<uint64_t>(kMul1) * counter[2];
    uint32_t next[4] = {static_cast<uint32_t>(p1 >> 32) ^ counter[1] ^ key[0],
                        static_cast<uint32_t>(p1),
                        static_cast<uint32_t>(p0 >> 32) ^ counter[3] ^ key[1],
                        static_cast<uint32_t>(p0)};
    for (int i = 0; i < 4; ++i)
      counter[i] = next[i];
    key[0] += kWeyl0;
    key[1] += kWeyl1;
  }
}

extern "C" GP_RT_EXPORT void gpRtPhiloxUniform(uint64_t seed, uint64_t offset,
                                               float *out, int64_t count) {
  if (!out || count <= 0)
    return;
  for (int64_t block = 0; block * 4 < count; ++block) {
    uint32_t counter[4] = {static_cast<uint32_t>(block),
                           static_cast<uint32_t>(static_cast<uint64_t>(block) >> 32),
                           static_cast<uint32_t>(offset),
                           static_cast<uint32_t>(offset >> 32)};
    uint32_t key[2] = {static_cast<uint32_t>(seed),
                       static_cast<uint32_t>(seed >> 32)};
    philox(counter, key);
    for (int i = 0; i < 4 && block * 4 + i < count; ++i)
      out[block * 4 + i] = (counter[i] >> 8) * (1.0f / 16777216.0f);
  }
}
