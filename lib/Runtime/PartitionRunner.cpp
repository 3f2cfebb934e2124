//===- PartitionRunner.cpp - eager run, warm-up, capture or replay --------===//
//
// One run of a partition on the calling thread, as the policy decides it:
// an eager run (eager partitions, capture off, shapes outside the capture
// sizes, shapes whose capture failed), warm-up runs that learn what the
// body allocates, a capture into the partition's pool, or a replay of the
// graph the cache (GraphCache.cpp) holds for the run's key, re-bound to
// inputs that moved.
//
//===----------------------------------------------------------------------===//

#include "PartitionRunner.h"

#include "GraphCache.h"
#include "ProgramState.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>

using namespace gp::rt;

namespace {

std::string describeKey(const std::vector<int64_t> &key) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < key.size(); ++i)
    os << (i ? ", " : "") << key[i];
  os << "]";
  return os.str();
}

/// One call of gpRtRunPartition: the partition, its key and body, and the
/// calling thread's state of the partition.
class PartitionRun {
public:
  PartitionRun(gpRtProgram &program, int32_t partition, const int64_t *shapeKey,
               gpRtPartitionBody body, void *userData, void *results,
               int64_t resultBytes, gpRtStream &stream, Device &device,
               PartitionState &state)
      : program(program), partition(partition),
        info(program.partitions[partition]),
        key(shapeKey, shapeKey + info.numShapeSymbols), body(body),
        userData(userData), results(results), resultBytes(resultBytes),
        stream(stream), device(device), state(state),
        note([this](const std::string &what) {
          if (logEnabled(GP_RT_LOG_CUDAGRAPHS))
            log(GP_RT_LOG_CUDAGRAPHS, where() + ": " + what);
        }) {}

  gpRtStatus run(const gpRtPartitionInput *inputs, int32_t numInputs);

private:
  /// Names the partition and key; built only for a message, so a replay
  /// with logging off formats nothing.
  std::string where() const {
    return program.name + ": partition " + std::to_string(partition) +
           " shape " + describeKey(key);
  }
  /// What the cache needs of the program: made where the cache is called,
  /// so a replay of the last run's graph builds nothing.
  GraphCacheEnv cache() const {
    return {program.name, program.driver, program.policy.graphCacheCapacity,
            program.mutex, program.stats};
  }
  gpRtStatus runNow(AllocationTrace *trace);
  gpRtStatus runEagerly(const std::string &why);
  gpRtStatus warmUp(ShapeState &shape);
  gpRtStatus capture(ShapeState &shape, KeyState *&placed);
  gpRtStatus replay(KeyState &keyState, Executable &executable);

  gpRtProgram &program;
  int32_t partition;
  const gpRtPartitionInfo &info;
  std::vector<int64_t> key;
  gpRtPartitionBody body;
  void *userData;
  void *results;
  int64_t resultBytes;
  gpRtStream &stream;
  Device &device;
  PartitionState &state;
  NoteFn note;
};

} // namespace

/// Runs the body now. Memory for run-time sizes lives until the next eager
/// run of the partition: the body's outputs may be read after it returns.
gpRtStatus PartitionRun::runNow(AllocationTrace *trace) {
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
}

gpRtStatus PartitionRun::runEagerly(const std::string &why) {
  if (program.policy.orError)
    return fail(GP_RT_ERROR_NOT_CAPTURED, where() + " would run uncaptured (" +
                                              why +
                                              ") and or-error mode is on");
  program.count(&gpRtStats::eagerRuns);
  note("eager run: " + why);
  return runNow(nullptr);
}

/// A run that learns what the body allocates: the capture lays those
/// buffers out in the pool as this plan says.
gpRtStatus PartitionRun::warmUp(ShapeState &shape) {
  ++shape.warmups;
  program.count(&gpRtStats::warmupRuns);
  note("warm-up run");
  shape.trace.clear();
  gpRtStatus status = runNow(&shape.trace);
  shape.poolPlan = planPool(shape.trace);
  state.largestPlan = std::max(state.largestPlan, shape.poolPlan.total);
  return status;
}

/// Captures the body for the run's key into the cache (`placed`). A
/// capture fault (the body did something a capture cannot hold, or the
/// capture was invalidated: an extern that synchronizes, say) leaves
/// nothing behind; the shape runs eagerly from now on, this run included,
/// unless or-error mode forbids it. Any other failure of the body is the
/// run's error, and the next run captures again. `placed` stays null when
/// the run ended without a graph to replay.
gpRtStatus PartitionRun::capture(ShapeState &shape, KeyState *&placed) {
  // The capture lays its run-time-sized buffers out in the partition's
  // pool as the warm-up's plan says (what is live at once, not the sum).
  // The pool is allocated before the capture (allocating while capturing
  // is not allowed); one too small is replaced by one as large as the
  // largest plan seen, the keys captured so far are re-bound to it.
  if (shape.poolPlan.total > state.poolCapacity) {
    if (gpRtStatus status = growPool(cache(), device, stream, state, note))
      return status;
  } else if (!state.pool) {
    state.pool = std::make_unique<DynamicMemory>(program.driver);
  }
  bindToPool(state);
  stream.fixedReason.clear();
  stream.ownKernels.clear();
  if (gpRtStatus status = device.beginCapture(stream))
    return status;
  stream.pool = state.pool.get();
  stream.poolPlan = &shape.poolPlan;
  stream.poolCursor = 0;
  gpRtStatus bodyStatus = body(&stream, userData);
  stream.pool = nullptr;
  stream.poolPlan = nullptr;
  std::unique_ptr<Captured> graph;
  gpRtStatus endStatus = device.endCapture(stream, graph);
  bool fault =
      bodyStatus == GP_RT_ERROR_NOT_CAPTURED || endStatus != GP_RT_SUCCESS;
  if (!fault && bodyStatus != GP_RT_SUCCESS)
    return bodyStatus;
  if (fault) {
    shape.captureFault = gpRtGetLastError();
    warn(where() + ": the capture failed (" + shape.captureFault +
         "); this shape runs eagerly from now on");
    return runEagerly("its capture failed: " + shape.captureFault);
  }
  program.count(&gpRtStats::captures);
  note(shape.captured ? "captured for another placement of its inputs"
                      : "captured");
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
  return storeCapture(cache(), device, partition, state, key, std::move(graph),
                      results, resultBytes, placed, note);
}

/// Launches `executable` (bound to this run's inputs) and hands back the
/// results its capture recorded.
gpRtStatus PartitionRun::replay(KeyState &keyState, Executable &executable) {
  if (gpRtStatus status = device.launch(executable, stream))
    return status;
  if (resultBytes > 0 &&
      static_cast<int64_t>(keyState.results.size()) == resultBytes)
    std::memcpy(results, keyState.results.data(), resultBytes);
  program.count(&gpRtStats::replays);
  note("replayed");
  return GP_RT_SUCCESS;
}

gpRtStatus PartitionRun::run(const gpRtPartitionInput *inputs,
                             int32_t numInputs) {
  if (!info.capturable)
    return runEagerly("eager partition: " + program.reasons[partition]);
  if (!program.policy.captureEnabled) {
    program.count(&gpRtStats::eagerRuns);
    return runNow(nullptr); // The eager reference run: not an or-error.
  }
  if (!program.policy.inCaptureSizes(key))
    return runEagerly("shape not in the capture sizes");

  // The last run's graph, on the same inputs: replayed as it is.
  if (PartitionState::LastReplay &last = state.lastReplay;
      last.variant && last.shapeKey == key &&
      sameInputs(state.inputs, inputs, numInputs)) {
    ++state.uses;
    last.variant->lastUse = state.uses;
    return replay(*last.key, *last.variant->executable);
  }
  // The last replay's key when only inputs that stand alone moved: its
  // variants are then chosen or re-bound for the new addresses below.
  KeyState *keyState = nullptr;
  if (PartitionState::LastReplay &last = state.lastReplay;
      last.variant && last.shapeKey == key &&
      samePlacement(state, inputs, numInputs))
    keyState = last.key;
  state.lastReplay = {};
  setInputs(state, inputs, numInputs);
  if (!keyState) {
    placeInputs(state);
    auto found = state.keys.find(GraphKeyView{key, state.placement});
    if (found != state.keys.end())
      keyState = &found->second;
  }
  if (!keyState) {
    ShapeState &shape = state.shapes[key];
    if (!shape.captureFault.empty())
      return runEagerly("its capture failed: " + shape.captureFault);
    if (shape.warmups < program.policy.warmupRuns)
      return warmUp(shape);
    if (gpRtStatus status = capture(shape, keyState))
      return status;
    if (!keyState)
      return GP_RT_SUCCESS; // Ran eagerly: the capture failed.
  }

  ++state.uses;
  Executable *executable = nullptr;
  if (gpRtStatus status =
          bindVariant(cache(), device, state, *keyState, executable, note))
    return status;
  for (Variant &variant : keyState->variants)
    if (variant.executable.get() == executable)
      state.lastReplay = {key, keyState, &variant};
  return replay(*keyState, *executable);
}

gpRtStatus gp::rt::runPartition(gpRtProgram &program, int32_t partition,
                                const int64_t *shapeKey, gpRtPartitionBody body,
                                void *userData, void *results,
                                int64_t resultBytes,
                                const gpRtPartitionInput *inputs,
                                int32_t numInputs) {
  ThreadContext *context = nullptr;
  if (gpRtStatus status = program.context(context))
    return status;
  PartitionRun run(program, partition, shapeKey, body, userData, results,
                   resultBytes, context->stream, *context->device,
                   context->partitions[partition]);
  return run.run(inputs, numInputs);
}
