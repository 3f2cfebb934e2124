//===- GraphCache.cpp - a partition's graphs per shape key ----------------===//
//
// Owns what a thread keeps per partition: shape keys and the warm-up runs
// they had, one executable per recorded key (shape and input addresses) in
// a bounded cache with least-recently-used eviction (an evicted executable
// is updated in place for the new key when the topology matches), and the
// decision, per run, between an eager run, a warm-up, a capture and a
// replay.
//
//===----------------------------------------------------------------------===//

#include "GraphCache.h"
#include "ProgramState.h"
#include "RuntimeInternal.h"

#include <cstring>
#include <functional>
#include <sstream>
#include <string>

using namespace gp::rt;

static std::string describeKey(const std::vector<int64_t> &key) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < key.size(); ++i)
    os << (i ? ", " : "") << key[i];
  os << "]";
  return os.str();
}

/// Finds an executable for `graph`, captured for a new key: a new one
/// while the partition holds fewer keys than the cache capacity; otherwise
/// the least recently used keys are evicted (down to one below the
/// capacity, which an API call may have lowered) and an evicted executable
/// is updated in place when the topologies match (else a new one is made).
static gpRtStatus
makeExecutable(gpRtProgram &program, Device &device, gpRtStream &stream,
               PartitionState &state, Captured &graph,
               std::unique_ptr<Executable> &executable,
               const std::function<void(const char *)> &note) {
  size_t capacity = program.policy.graphCacheCapacity;
  std::vector<std::unique_ptr<Executable>> evicted;
  bool poolsInUse = false;
  while (!state.keys.empty() && state.keys.size() >= capacity) {
    auto victim = state.keys.begin();
    for (auto it = state.keys.begin(); it != state.keys.end(); ++it)
      if (it->second.lastUse < victim->second.lastUse)
        victim = it;
    if (victim->second.pool && !victim->second.pool->blocks.empty()) {
      // Its last replay may still be reading the memory about to be freed.
      if (!poolsInUse)
        if (gpRtStatus status = device.synchronize(stream))
          return status;
      poolsInUse = true;
    }
    evicted.push_back(std::move(victim->second.executable));
    state.keys.erase(victim);
    program.count(&gpRtStats::evictions);
    note("evicted the least recently used key");
  }
  for (std::unique_ptr<Executable> &candidate : evicted) {
    bool updated = false;
    if (gpRtStatus status = device.tryUpdate(*candidate, graph, updated))
      return status;
    if (updated) {
      executable = std::move(candidate);
      program.count(&gpRtStats::updates);
      note("updated an evicted key's executable in place");
      return GP_RT_SUCCESS;
    }
  }
  if (gpRtStatus status = device.instantiate(graph, executable))
    return status;
  program.count(&gpRtStats::instantiations);
  note("instantiated");
  return GP_RT_SUCCESS;
}

gpRtStatus gp::rt::runPartition(gpRtProgram &program, int32_t partition,
                                const int64_t *shapeKey, gpRtPartitionBody body,
                                void *userData, void *results,
                                int64_t resultBytes, void *const *inputs,
                                int32_t numInputs) {
  const gpRtPartitionInfo &info = program.partitions[partition];
  std::vector<int64_t> key(shapeKey, shapeKey + info.numShapeSymbols);
  // Messages name the partition and key; built only when needed, so a
  // replay with logging off formats nothing.
  auto where = [&] {
    return program.name + ": partition " + std::to_string(partition) +
           " shape " + describeKey(key);
  };
  auto note = [&](const std::string &what) {
    if (logEnabled(GP_RT_LOG_CUDAGRAPHS))
      log(GP_RT_LOG_CUDAGRAPHS, where() + ": " + what);
  };

  ThreadContext *context = nullptr;
  if (gpRtStatus status = program.context(context))
    return status;
  gpRtStream &stream = context->stream;
  Device &device = *context->device;
  PartitionState &state = context->partitions[partition];
  // Runs the body now. Memory for run-time sizes lives until the next eager
  // run of the partition: the body's outputs may be read after it returns.
  auto runNow = [&](AllocationTrace *trace) -> gpRtStatus {
    if (!state.lastRunMemory)
      state.lastRunMemory = std::make_unique<DynamicMemory>(program.driver);
    DynamicMemory &memory = *state.lastRunMemory;
    if (!memory.blocks.empty()) {
      // Queued work may still use the memory about to be reused.
      if (gpRtStatus sync = device.synchronize(stream))
        return sync;
      memory.recycle();
    }
    stream.fresh = &memory;
    stream.trace = trace;
    gpRtStatus status = body(&stream, userData);
    stream.fresh = nullptr;
    stream.trace = nullptr;
    memory.endRun();
    return status;
  };
  auto runEagerly = [&](const std::string &why) -> gpRtStatus {
    if (program.policy.orError)
      return fail(GP_RT_ERROR_NOT_CAPTURED,
                  where() + " would run uncaptured (" + why +
                      ") and or-error mode is on");
    program.count(&gpRtStats::eagerRuns);
    note("eager run: " + why);
    return runNow(nullptr);
  };
  if (!info.capturable)
    return runEagerly("eager partition: " + program.reasons[partition]);
  if (!program.policy.captureEnabled) {
    program.count(&gpRtStats::eagerRuns);
    return runNow(nullptr); // The eager reference run: not an or-error.
  }
  if (!program.policy.inCaptureSizes(key))
    return runEagerly("shape not in the capture sizes");

  auto found = state.keys.find(
      GraphKeyView{key, inputs, static_cast<size_t>(numInputs)});
  if (found == state.keys.end()) {
    ShapeState &shape = state.shapes[key];
    if (!shape.captureFault.empty())
      return runEagerly("its capture failed: " + shape.captureFault);
    if (shape.warmups < program.policy.warmupRuns) {
      ++shape.warmups;
      program.count(&gpRtStats::warmupRuns);
      note("warm-up run");
      shape.trace.clear();
      gpRtStatus status = runNow(&shape.trace);
      shape.poolPlan = planPool(shape.trace);
      return status;
    }
    // The key's pool: one block laid out from what the warm-up allocated
    // and freed (what is live at once, not the sum), allocated before the
    // capture (allocating while capturing is not allowed).
    auto pool = std::make_unique<DynamicMemory>(program.driver);
    if (shape.poolPlan.total > 0) {
      void *pointer = nullptr;
      if (gpRtStatus status = pool->allocate(shape.poolPlan.total, pointer))
        return status;
    }
    if (gpRtStatus status = device.beginCapture(stream))
      return status;
    stream.pool = pool.get();
    stream.poolPlan = &shape.poolPlan;
    stream.poolCursor = 0;
    gpRtStatus bodyStatus = body(&stream, userData);
    stream.pool = nullptr;
    stream.poolPlan = nullptr;
    std::unique_ptr<Captured> graph;
    gpRtStatus endStatus = device.endCapture(stream, graph);
    // A capture fault (the body did something a capture cannot hold, or
    // the capture was invalidated: an extern that synchronizes, say)
    // leaves nothing behind; the shape runs eagerly from now on, this run
    // included, unless or-error mode forbids it. Any other failure of the
    // body is the run's error, and the next run captures again.
    bool fault =
        bodyStatus == GP_RT_ERROR_NOT_CAPTURED || endStatus != GP_RT_SUCCESS;
    if (!fault && bodyStatus != GP_RT_SUCCESS)
      return bodyStatus;
    if (fault) {
      shape.captureFault = gpRtGetLastError();
      warn(where() + ": the capture failed (" + shape.captureFault +
           "); this shape runs eagerly from now on");
      pool.reset();
      return runEagerly("its capture failed: " + shape.captureFault);
    }
    program.count(&gpRtStats::captures);
    note(shape.captured ? "captured for new input addresses" : "captured");
    bool newShape = !shape.captured;
    shape.captured = true;
    if (newShape && ++state.recordedShapes > program.policy.shapeWarningLimit) {
      program.count(&gpRtStats::shapeWarnings);
      warn(program.name + ": partition " + std::to_string(partition) +
           " has recorded " + std::to_string(state.recordedShapes) +
           " distinct shapes (limit " +
           std::to_string(program.policy.shapeWarningLimit) +
           "): each new shape costs a capture; consider capture sizes or "
           "static shapes");
    }
    std::unique_ptr<Executable> executable;
    if (gpRtStatus status =
            makeExecutable(program, device, stream, state, *graph, executable,
                           [&](const char *what) { note(what); }))
      return status;
    graph.reset(); // The executable is all a replay needs.
    found = state.keys
                .emplace(GraphKey{key, std::vector<void *>(inputs,
                                                           inputs + numInputs)},
                         KeyState())
                .first;
    KeyState &made = found->second;
    made.executable = std::move(executable);
    made.pool = std::move(pool);
    const uint8_t *written = static_cast<const uint8_t *>(results);
    made.results.assign(written, written + resultBytes);
  }

  KeyState &keyState = found->second;
  keyState.lastUse = ++state.uses;
  if (gpRtStatus status = device.launch(*keyState.executable, stream))
    return status;
  if (resultBytes > 0 &&
      static_cast<int64_t>(keyState.results.size()) == resultBytes)
    std::memcpy(results, keyState.results.data(), resultBytes);
  program.count(&gpRtStats::replays);
  note("replayed");
  return GP_RT_SUCCESS;
}

void gp::rt::addGraphStats(const PartitionState &state, gpRtStats &stats) {
  for (auto &[key, keyState] : state.keys) {
    stats.liveGraphs += keyState.executable ? 1 : 0;
    if (keyState.pool)
      for (auto &block : keyState.pool->blocks)
        stats.poolBytes += block.second;
  }
}
