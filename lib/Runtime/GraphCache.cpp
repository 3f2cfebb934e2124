//===- GraphCache.cpp - a partition's graphs per shape key ----------------===//
//
// The cache of a partition's graphs: one executable per recorded key (shape
// and placement of the inputs) in a bounded cache with least-recently-used
// eviction (an evicted executable is updated in place for the new key when
// the topology matches), variants per recurring set of input addresses,
// and re-binding a replayed executable to inputs that moved. When to warm
// up, capture or replay is the partition runner's (PartitionRunner.cpp).
//
//===----------------------------------------------------------------------===//

#include "GraphCache.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>

using namespace gp::rt;

static size_t executableCount(const PartitionState &state) {
  size_t count = 0;
  for (const auto &entry : state.keys)
    count += entry.second.variants.size();
  return count;
}

/// Drops the least recently used executable of the partition, handing it
/// to `evicted`; a key whose last executable it was is evicted (its pool
/// memory is the partition's, which stays).
static void evictOne(const GraphCacheEnv &env, PartitionState &state,
                     std::vector<std::unique_ptr<Executable>> &evicted,
                     const NoteFn &note) {
  auto victim = state.keys.end();
  size_t variant = 0;
  for (auto it = state.keys.begin(); it != state.keys.end(); ++it)
    for (size_t v = 0; v < it->second.variants.size(); ++v)
      if (victim == state.keys.end() ||
          it->second.variants[v].lastUse <
              victim->second.variants[variant].lastUse) {
        victim = it;
        variant = v;
      }
  KeyState &key = victim->second;
  evicted.push_back(std::move(key.variants[variant].executable));
  key.variants.erase(key.variants.begin() + variant);
  if (!key.variants.empty())
    return;
  state.keys.erase(victim);
  env.count(&gpRtStats::evictions);
  note("evicted the least recently used key");
}

/// Finds an executable for `graph`, captured for a new key: a new one
/// while the partition holds fewer executables than the cache capacity;
/// otherwise the least recently used are evicted (down to one below the
/// capacity, which an API call may have lowered) and an evicted executable
/// is updated in place when the topologies match (else a new one is made).
static gpRtStatus makeExecutable(const GraphCacheEnv &env, Device &device,
                                 PartitionState &state, Captured &graph,
                                 std::unique_ptr<Executable> &executable,
                                 const NoteFn &note) {
  size_t capacity = env.capacity;
  std::vector<std::unique_ptr<Executable>> evicted;
  while (!state.keys.empty() && executableCount(state) >= capacity)
    evictOne(env, state, evicted, note);
  for (std::unique_ptr<Executable> &candidate : evicted) {
    bool updated = false;
    if (gpRtStatus status = device.tryUpdate(*candidate, graph, updated))
      return status;
    if (updated) {
      executable = std::move(candidate);
      env.count(&gpRtStats::updates);
      note("updated an evicted key's executable in place");
      return GP_RT_SUCCESS;
    }
  }
  if (gpRtStatus status = device.instantiate(graph, executable))
    return status;
  env.count(&gpRtStats::instantiations);
  note("instantiated");
  return GP_RT_SUCCESS;
}

/// A hash of the run's input bases: each base mixed with its position on
/// its own, then summed, so that the inputs hash in parallel rather than
/// as one chain of multiplies (this runs whenever an input moved, over
/// every input). Equal hashes are confirmed by comparing the bases.
static uint64_t hashBases(const std::vector<InputRange> &inputs) {
  uint64_t hash = inputs.size();
  for (size_t i = 0; i < inputs.size(); ++i) {
    uint64_t word = inputs[i].base + i * 0x9e3779b97f4a7c15ull;
    word = (word ^ (word >> 31)) * 0xbf58476d1ce4e5b9ull;
    hash += word ^ (word >> 29);
  }
  return hash;
}

static bool boundTo(const Executable &exec,
                    const std::vector<InputRange> &inputs) {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (exec.bound[i] != inputs[i].base)
      return false;
  return true;
}

/// Whether a run's `inputs` are where the last run's (`last`) were. One
/// memcmp: this runs on every replay, over every input (bound parameters
/// included), so it must cost next to nothing per input.
bool gp::rt::sameInputs(const std::vector<InputRange> &last,
                        const gpRtPartitionInput *inputs, int32_t numInputs) {
  static_assert(
      sizeof(InputRange) == sizeof(gpRtPartitionInput) &&
          offsetof(InputRange, base) == offsetof(gpRtPartitionInput, base) &&
          offsetof(InputRange, bytes) == offsetof(gpRtPartitionInput, bytes) &&
          sizeof(uintptr_t) == sizeof(void *),
      "InputRange mirrors gpRtPartitionInput");
  if (static_cast<int32_t>(last.size()) != numInputs)
    return false;
  return numInputs == 0 ||
         std::memcmp(last.data(), inputs,
                     numInputs * sizeof(gpRtPartitionInput)) == 0;
}

/// Keeps what a capture found about its inputs: a graph holding addresses
/// that cannot be re-bound makes the partition keyed by input addresses
/// from now on (said once), library kernels key their inputs' alignment.
static void recordBindings(const GraphCacheEnv &env, int32_t partition,
                           PartitionState &state, const Captured &graph,
                           const std::vector<BindingSite> &resultSites,
                           const NoteFn &note) {
  size_t numInputs = state.inputs.size();
  if (!graph.fixedReason.empty() && state.fixedReason.empty()) {
    state.fixedReason = graph.fixedReason;
    std::string message =
        env.name + ": partition " + std::to_string(partition) +
        " keeps graphs per input address: " + state.fixedReason;
    if (logEnabled(GP_RT_LOG_PARTITIONS) || logEnabled(GP_RT_LOG_CUDAGRAPHS))
      log(logEnabled(GP_RT_LOG_PARTITIONS) ? GP_RT_LOG_PARTITIONS
                                           : GP_RT_LOG_CUDAGRAPHS,
          message);
  }
  state.alignmentKeyed.resize(numInputs, false);
  for (size_t i = 0; i < graph.alignmentKeyed.size() && i < numInputs; ++i)
    if (graph.alignmentKeyed[i])
      state.alignmentKeyed[i] = true;
  state.siteCounts.assign(state.bindings.size(), {0, 0, 0});
  for (const auto *sites : {&graph.sites, &resultSites})
    for (const BindingSite &site : *sites)
      ++state.siteCounts[site.input][static_cast<int>(site.kind)];
  note("its graph holds input and pool addresses in " +
       std::to_string(graph.sites.size() + resultSites.size()) + " places");
}

/// The executable of `key` to replay for this run's inputs: the variant
/// bound to them if there is one; else, for a set of addresses seen before
/// while the cache has room, a new variant bound to it (instantiated from
/// the key's graph, no capture); else the least recently used variant,
/// re-bound. Also points the key's results at the inputs. The partition's
/// pool counts as one more input: graphs captured before it was replaced
/// are re-bound to the new one here.
gpRtStatus gp::rt::bindVariant(const GraphCacheEnv &env, Device &device,
                               PartitionState &state, KeyState &key,
                               Executable *&chosen, const NoteFn &note) {
  const std::vector<InputRange> &inputs = state.bindings;
  auto rebound = [&] {
    for (size_t i = 0; i < inputs.size(); ++i)
      key.resultsBound[i] = inputs[i].base;
  };
  int64_t written =
      rewriteSites(key.resultSites, inputs, key.resultsBound,
                   [&](const BindingSite &) { return key.results.data(); });
  rebound();
  Variant *variant = &key.variants.front();
  if (variant->executable->sites.empty()) {
    // Nothing in the graph to re-bind: one executable serves every set.
    variant->lastUse = state.uses;
    chosen = variant->executable.get();
    return GP_RT_SUCCESS;
  }
  uint64_t addresses = hashBases(inputs);
  for (Variant &candidate : key.variants)
    if (candidate.addresses == addresses &&
        boundTo(*candidate.executable, inputs)) {
      candidate.lastUse = state.uses;
      chosen = candidate.executable.get();
      if (written > 0)
        env.count(&gpRtStats::reboundSites, written);
      return GP_RT_SUCCESS;
    }
  size_t capacity = env.capacity;
  auto seen = state.seenAddressSets.find(addresses);
  bool recurring = seen != state.seenAddressSets.end();
  if (state.seenAddressSets.size() >= 4 * capacity)
    state.seenAddressSets.clear(); // Bounded; sets that recur come back.
  state.seenAddressSets[addresses] = state.uses;
  if (recurring && variant->executable->cloneable &&
      executableCount(state) < capacity) {
    Variant made;
    if (gpRtStatus status = device.clone(*variant->executable, made.executable))
      return status;
    Executable &exec = *made.executable;
    exec.sites = variant->executable->sites;
    // Bound to nothing: every site is written for these inputs.
    exec.bound.assign(inputs.size(), ~uintptr_t(0));
    if (gpRtStatus status = device.rebind(exec, inputs, written))
      return status;
    env.count(&gpRtStats::instantiations);
    note("instantiated a variant for a recurring set of input addresses");
    key.variants.push_back(std::move(made));
    variant = &key.variants.back();
  } else {
    for (Variant &candidate : key.variants)
      if (candidate.lastUse < variant->lastUse)
        variant = &candidate;
    if (gpRtStatus status =
            device.rebind(*variant->executable, inputs, written))
      return status;
    std::lock_guard<std::mutex> lock(env.mutex);
    ++env.stats.rebinds;
    env.stats.reboundSites += written;
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    variant->executable->bound[i] = inputs[i].base;
  variant->addresses = addresses;
  variant->lastUse = state.uses;
  chosen = variant->executable.get();
  note("re-bound " + std::to_string(written) + " addresses to moved inputs");
  return GP_RT_SUCCESS;
}

/// Whether a run whose inputs differ from the last run's (`state.inputs`)
/// only in where a few of them are keeps the last run's placement, so that
/// the key the last run replayed is this run's without placing every input
/// again and looking the key up (a caller's fresh input beside many bound
/// parameters, which never move): every input that moved keeps its size,
/// was alone in its group of overlapping inputs (`state.alone`) and
/// overlaps no other input now, and its address is not part of the key
/// (the partition is not keyed by address, and where a library kernel
/// reads it its alignment class is unchanged). Anything else places the
/// inputs again.
bool gp::rt::samePlacement(const PartitionState &state,
                           const gpRtPartitionInput *inputs,
                           int32_t numInputs) {
  if (static_cast<int32_t>(state.inputs.size()) != numInputs ||
      static_cast<int32_t>(state.alone.size()) != numInputs ||
      !state.fixedReason.empty())
    return false;
  constexpr int kMaxMoved = 8; // Past a few, placing them all is as cheap.
  int32_t moved[kMaxMoved];
  int count = 0;
  for (int32_t i = 0; i < numInputs; ++i) {
    const InputRange &last = state.inputs[i];
    auto base = reinterpret_cast<uintptr_t>(inputs[i].base);
    if (base == last.base && inputs[i].bytes == last.bytes)
      continue;
    if (count == kMaxMoved || inputs[i].bytes != last.bytes ||
        inputs[i].bytes < 0 || !state.alone[i])
      return false;
    if (static_cast<size_t>(i) < state.alignmentKeyed.size() &&
        state.alignmentKeyed[i] && base % 256 != last.base % 256)
      return false;
    moved[count++] = i;
  }
  // As placementKey groups them: an empty input counts as one byte.
  auto end = [&](int32_t j) {
    return reinterpret_cast<uintptr_t>(inputs[j].base) +
           static_cast<uintptr_t>(std::max<int64_t>(inputs[j].bytes, 1));
  };
  for (int k = 0; k < count; ++k) {
    int32_t i = moved[k];
    uintptr_t base = reinterpret_cast<uintptr_t>(inputs[i].base);
    uintptr_t limit = end(i);
    bool overlaps = false;
    for (int32_t j = 0; j < numInputs; ++j)
      overlaps |= j != i &&
                  reinterpret_cast<uintptr_t>(inputs[j].base) < limit &&
                  base < end(j);
    if (overlaps)
      return false;
  }
  return true;
}

/// Replaces the partition's pool by one of the largest plan seen. The
/// stream's queued replays may still use the old one, so they finish
/// first. Graphs of earlier keys keep the old pool's addresses as sites
/// and are re-bound when they next replay, unless the partition's graphs
/// cannot be re-bound: those keys are dropped and captured again.
gpRtStatus gp::rt::growPool(const GraphCacheEnv &env, Device &device,
                            gpRtStream &stream, PartitionState &state,
                            const NoteFn &note) {
  if (state.pool && !state.pool->blocks.empty())
    if (gpRtStatus status = device.synchronize(stream))
      return status;
  if (!state.fixedReason.empty() && !state.keys.empty()) {
    env.count(&gpRtStats::evictions, static_cast<int64_t>(state.keys.size()));
    state.keys.clear();
    note("dropped the keys captured on the smaller pool (" + state.fixedReason +
         ")");
  }
  state.pool.reset();
  state.poolCapacity = 0;
  auto pool = std::make_unique<DynamicMemory>(env.driver);
  void *pointer = nullptr;
  if (gpRtStatus status = pool->allocate(state.largestPlan, pointer))
    return status;
  state.pool = std::move(pool);
  state.poolCapacity = roundToBlock(state.largestPlan);
  note("pool of " + std::to_string(state.poolCapacity) + " bytes");
  return GP_RT_SUCCESS;
}

void gp::rt::setInputs(PartitionState &state, const gpRtPartitionInput *inputs,
                       int32_t numInputs) {
  state.inputs.resize(numInputs);
  for (int32_t i = 0; i < numInputs; ++i)
    state.inputs[i] = {reinterpret_cast<uintptr_t>(inputs[i].base),
                       inputs[i].bytes};
  bindToPool(state);
}

void gp::rt::bindToPool(PartitionState &state) {
  state.bindings = state.inputs;
  state.bindings.push_back(
      {state.pool && !state.pool->blocks.empty()
           ? reinterpret_cast<uintptr_t>(state.pool->blocks.front().first)
           : 0,
       state.poolCapacity});
}

void gp::rt::placeInputs(PartitionState &state) {
  placementKey(state.inputs, state.alignmentKeyed, !state.fixedReason.empty(),
               state.placementOrder, state.placement);
  // Which inputs are alone in their group, for samePlacement.
  size_t n = state.inputs.size();
  std::vector<uint32_t> &members = state.groupMembers;
  members.assign(n, 0);
  for (size_t i = 0; i < n; ++i)
    ++members[state.placement[2 * i]];
  state.alone.resize(n);
  for (size_t i = 0; i < n; ++i)
    state.alone[i] = members[state.placement[2 * i]] == 1;
}

gpRtStatus gp::rt::storeCapture(const GraphCacheEnv &env, Device &device,
                                int32_t partition, PartitionState &state,
                                const std::vector<int64_t> &key,
                                std::unique_ptr<Captured> graph,
                                const void *results, int64_t resultBytes,
                                KeyState *&placed, const NoteFn &note) {
  // Where the graph and the results hold input addresses, so that runs
  // with inputs elsewhere re-bind them rather than capture again.
  if (gpRtStatus status = device.findInputAddresses(*graph, state.bindings))
    return status;
  std::vector<BindingSite> resultSites;
  findSites(const_cast<void *>(results), resultBytes > 0 ? resultBytes : 0,
            state.bindings, SiteKind::ResultWord, 0, 0, resultSites);
  recordBindings(env, partition, state, *graph, resultSites, note);
  placeInputs(state);
  std::unique_ptr<Executable> executable;
  if (gpRtStatus status =
          makeExecutable(env, device, state, *graph, executable, note))
    return status;
  executable->sites = std::move(graph->sites);
  executable->bound.resize(state.bindings.size());
  for (size_t i = 0; i < state.bindings.size(); ++i)
    executable->bound[i] = state.bindings[i].base;
  graph.reset(); // The executable is all a replay needs.
  KeyState &made =
      state.keys.emplace(GraphKey{key, state.placement}, KeyState())
          .first->second;
  made.variants.push_back(
      {std::move(executable), hashBases(state.bindings), state.uses});
  const uint8_t *written = static_cast<const uint8_t *>(results);
  made.results.assign(written, written + resultBytes);
  made.resultSites = std::move(resultSites);
  made.resultsBound.resize(state.bindings.size());
  for (size_t i = 0; i < state.bindings.size(); ++i)
    made.resultsBound[i] = state.bindings[i].base;
  placed = &made;
  return GP_RT_SUCCESS;
}

void gp::rt::addGraphStats(const PartitionState &state, gpRtStats &stats) {
  for (auto &[key, keyState] : state.keys)
    stats.liveGraphs += static_cast<int64_t>(keyState.variants.size());
  if (state.pool)
    for (auto &block : state.pool->blocks)
      stats.poolBytes += block.second;
  stats.largestPlanBytes += state.largestPlan;
}

std::string
gp::rt::describeBindings(const std::vector<PartitionState> &partitions,
                         const void *arena, int64_t arenaBytes,
                         const void *hostArena, int64_t hostArenaBytes) {
  auto inside = [](uintptr_t address, const void *base, int64_t bytes) {
    auto start = reinterpret_cast<uintptr_t>(base);
    return base && address >= start &&
           address - start < static_cast<uint64_t>(bytes);
  };
  std::ostringstream os;
  for (size_t p = 0; p < partitions.size(); ++p) {
    const PartitionState &state = partitions[p];
    if (state.keys.empty())
      continue; // Nothing captured: nothing bound.
    for (size_t i = 0; i < state.inputs.size(); ++i) {
      std::array<int64_t, 3> counts = {0, 0, 0};
      if (i < state.siteCounts.size())
        counts = state.siteCounts[i];
      os << "partition " << p << " input " << i << ": ";
      uintptr_t base = state.inputs[i].base;
      if (inside(base, arena, arenaBytes) ||
          inside(base, hostArena, hostArenaBytes))
        os << "in the program's arena (never moves)";
      else if (state.inputs[i].bytes < 0)
        os << "keyed by address (how far it reaches is unknown)";
      else if (!state.fixedReason.empty())
        os << "keyed by address (" << state.fixedReason << ")";
      else if (counts[0] + counts[1] + counts[2] == 0)
        os << "not held by the graph";
      else {
        os << "re-bound in place (" << counts[0] << " kernel parameters, "
           << counts[1] << " copy/memset addresses, " << counts[2]
           << " result words)";
        if (i < state.alignmentKeyed.size() && state.alignmentKeyed[i])
          os << "; read by a library kernel: re-bound within its 256-byte "
                "alignment class";
      }
      os << "\n";
    }
  }
  return os.str();
}
