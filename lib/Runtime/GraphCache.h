//===- GraphCache.h - a partition's graphs per shape key --------*- C++ -*-===//
//
// What a thread keeps per partition (PartitionState) and the cache of its
// graphs. The decision per run (eager, warm-up, capture or replay) is the
// partition runner's (PartitionRunner.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_RUNTIME_GRAPHCACHE_H
#define GRAPHPART_LIB_RUNTIME_GRAPHCACHE_H

#include "Device.h"
#include "Memory.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace gp::rt {

/// What a partition has learnt about one shape key.
struct ShapeState {
  int64_t warmups = 0;
  /// What the last warm-up run allocated and freed, and the key pool's
  /// layout made from it.
  AllocationTrace trace;
  PoolPlan poolPlan;
  bool captured = false; // Counted in recordedShapes.
  /// Why capturing this shape failed, when it did: it runs eagerly since.
  std::string captureFault;
};

/// A graph is recorded for a shape key and a placement of the partition's
/// inputs (Binding.h: which overlap, and addresses only where they cannot
/// be re-bound); inputs elsewhere re-bind the graph instead.
struct GraphKey {
  std::vector<int64_t> shape;
  std::vector<int64_t> placement;
};
/// A key as a run sees it, looked up without copying.
struct GraphKeyView {
  const std::vector<int64_t> &shape;
  const std::vector<int64_t> &placement;
};
struct GraphKeyLess {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A &a, const B &b) const {
    if (a.shape != b.shape)
      return a.shape < b.shape;
    return a.placement < b.placement;
  }
};

/// An executable of a key's graph, bound to one set of input addresses.
struct Variant {
  std::unique_ptr<Executable> executable;
  /// A hash of the input bases it is bound to, to find it quickly.
  uint64_t addresses = 0;
  int64_t lastUse = 0;
};

/// A recorded key: its own executables, so alternating keys replay without
/// re-instantiating or updating anything.
struct KeyState {
  /// The capture's executable, then one per further set of input addresses
  /// that recurs (a caller rotating buffers, a caching allocator handing
  /// the same tensors back): a run on a set one of them is bound to
  /// replays it as it is; another set re-binds the least recently used.
  std::vector<Variant> variants;
  /// What the capture's body handed back to its caller, written back on
  /// every replay, its words that hold input (or pool) addresses and the
  /// bases they hold now.
  std::vector<uint8_t> results;
  std::vector<BindingSite> resultSites;
  std::vector<uintptr_t> resultsBound;
};

struct PartitionState {
  std::map<std::vector<int64_t>, ShapeState> shapes;
  /// One pool for the run-time-sized buffers of every captured key: keys
  /// run one at a time on the thread's stream, so the pool needs the
  /// largest key's plan, not the sum. A capture whose plan does not fit
  /// replaces it with one that does; graphs of the other keys hold the old
  /// pool's addresses as binding sites (the pool is their last binding
  /// range, after the inputs) and are re-bound to the new pool when they
  /// next replay.
  std::unique_ptr<DynamicMemory> pool;
  int64_t poolCapacity = 0;
  /// The largest plan total of any shape warmed up: what one pool needs.
  int64_t largestPlan = 0;
  /// At most the policy's graph-cache capacity of executables (over all
  /// keys' variants); past it, the least recently used key is evicted and
  /// its executable updated in place for the new key when the topology
  /// matches.
  std::map<GraphKey, KeyState, GraphKeyLess> keys;
  int64_t recordedShapes = 0;
  int64_t uses = 0;
  /// Why the partition's graphs hold addresses that cannot be re-bound:
  /// its keys then include every input address.
  std::string fixedReason;
  /// Inputs a library kernel reads: keys include their alignment class.
  std::vector<bool> alignmentKeyed;
  /// The last run's inputs, and its key's placement part.
  std::vector<InputRange> inputs;
  /// The ranges graphs are bound to: the last run's inputs, then the pool.
  std::vector<InputRange> bindings;
  std::vector<int64_t> placement;
  /// Per input of the last run, whether it overlaps no other (its group in
  /// `placement` is itself alone), and scratch for finding it.
  std::vector<uint8_t> alone;
  std::vector<uint32_t> groupMembers;
  /// The inputs by base address at the last run: the next run starts its
  /// sort from there (bound parameters do not move between calls).
  std::vector<uint32_t> placementOrder;
  /// When the last run replayed: its shape key, key and variant. A run of
  /// the same shape on the same inputs (bound parameters never move, a
  /// loop's inputs often do not) replays that variant again without
  /// keying its placement. Only runs of this partition on this thread
  /// change keys and variants, and each clears this first.
  struct LastReplay {
    std::vector<int64_t> shapeKey;
    KeyState *key = nullptr;
    Variant *variant = nullptr;
  } lastReplay;
  /// Input address sets seen lately (hash, last use): a set seen twice gets
  /// a variant of its own while the cache has room.
  std::unordered_map<uint64_t, int64_t> seenAddressSets;
  /// Per input (then the pool), the sites of each kind the last capture
  /// found.
  std::vector<std::array<int64_t, 3>> siteCounts;
  /// Memory for run-time sizes of the last eager or warm-up run: its
  /// buffers may outlive the body (partition outputs), so it is kept until
  /// the partition runs eagerly again on this thread.
  std::unique_ptr<DynamicMemory> lastRunMemory;
};

//===----------------------------------------------------------------------===//
// The cache the partition runner keeps its graphs in (GraphCache.cpp): keys,
// placement of inputs, eviction and re-binding.
//===----------------------------------------------------------------------===//

/// Says what the cache did (the runner logs it, naming partition and key).
using NoteFn = std::function<void(const std::string &)>;

/// What the cache reads of the program it serves and counts into, so that
/// it depends on these alone rather than the whole program
/// (ProgramState.h). References: the capacity is the policy's as an API
/// call last set it, and counts land in the program's stats.
struct GraphCacheEnv {
  /// The program's name, for messages.
  const std::string &name;
  /// Where pools are allocated; null on the host backend.
  const CudaDriver *driver;
  /// Executables a partition keeps per thread (over its keys' variants).
  const int32_t &capacity;
  /// The program's stats and the mutex that guards them.
  std::mutex &mutex;
  gpRtStats &stats;

  void count(int64_t gpRtStats::*field, int64_t by = 1) const {
    std::lock_guard<std::mutex> lock(mutex);
    stats.*field += by;
  }
};

/// Whether a run's `inputs` are exactly where the last run's were.
bool sameInputs(const std::vector<InputRange> &last,
                const gpRtPartitionInput *inputs, int32_t numInputs);

/// Whether a run whose inputs differ from the last run's only in where a
/// few lone inputs are keeps the last run's placement (and so its key).
bool samePlacement(const PartitionState &state,
                   const gpRtPartitionInput *inputs, int32_t numInputs);

/// Makes `inputs` the partition's last run's inputs, and its bindings
/// those inputs then the pool.
void setInputs(PartitionState &state, const gpRtPartitionInput *inputs,
               int32_t numInputs);
/// The bindings: the last run's inputs, then the pool (after it changed).
void bindToPool(PartitionState &state);
/// Computes the placement part of the key of the last run's inputs.
void placeInputs(PartitionState &state);

/// Replaces the partition's pool by one of the largest plan seen (graphs
/// captured on the old one are re-bound at their next replay, or dropped
/// when they cannot be).
gpRtStatus growPool(const GraphCacheEnv &env, Device &device,
                    gpRtStream &stream, PartitionState &state,
                    const NoteFn &note);

/// Keeps a capture of `key` for the last run's placement (`graph`, whose
/// body wrote `resultBytes` of results at `results`): what it holds of
/// its inputs, an executable (new, or an evicted one updated in place),
/// and the results to hand back on replays. `placed` is the new key.
gpRtStatus storeCapture(const GraphCacheEnv &env, Device &device,
                        int32_t partition, PartitionState &state,
                        const std::vector<int64_t> &key,
                        std::unique_ptr<Captured> graph, const void *results,
                        int64_t resultBytes, KeyState *&placed,
                        const NoteFn &note);

/// The executable of `key` to replay for the last run's inputs: a variant
/// bound to them, a new one for a recurring set, or the least recently
/// used re-bound.
gpRtStatus bindVariant(const GraphCacheEnv &env, Device &device,
                       PartitionState &state, KeyState &key,
                       Executable *&chosen, const NoteFn &note);

/// One line per partition input a thread's graphs (`partitions`) hold: how
/// it is bound (re-bound, keyed by address and why, in one of the thread's
/// arenas).
std::string describeBindings(const std::vector<PartitionState> &partitions,
                             const void *arena, int64_t arenaBytes,
                             const void *hostArena, int64_t hostArenaBytes);

/// Adds a partition's live graphs, pool bytes and largest plan to `stats`.
void addGraphStats(const PartitionState &state, gpRtStats &stats);

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_GRAPHCACHE_H
