//===- Results.cpp - what callers keep of an entry's results --------------===//
//
// A buffer an entry returns lives in the program's memory (its arena, or a
// pool of run-time-sized blocks) and the next call of the entry on the same
// thread writes there again: a result read after that call shows that
// call's values. Owns the ways to keep a result (copied into caller-owned
// memory during the call, or copied out to the host) and the overwrite
// debug mode, in which each call's results get storage of their own that
// the next call poisons, so a stale result reads as NaN/-1 and the copy-out
// helper names the output and the calls instead of returning wrong values.
//
//===----------------------------------------------------------------------===//

#include "ArtifactState.h"
#include "ElementTypes.h"
#include "Handles.h"
#include "Policy.h"
#include "ProgramState.h"
#include "RuntimeInternal.h"

#include "GraphPart/Runtime/ManifestSchema.h"

#include <cstring>
#include <string>
#include <vector>

using namespace gp::rt;

void gp::rt::releaseTracked(gpRtProgram *program, TrackedResult &tracked) {
  if (!tracked.storage)
    return;
  if (tracked.onDevice)
    gpRtProgramFree(program, tracked.storage);
  else
    std::free(tracked.storage);
  tracked.storage = nullptr;
}

namespace {

/// A buffer result as a call returned it.
struct ResultView {
  const gpRtMemRef *descriptor;
  int64_t rank;
  int64_t elementBytes;
  /// Device memory (a cuda program's non-cpu buffer) or host memory.
  bool onDevice;
  /// "result 0 of entry 'f'", for messages.
  std::string name;

  const int64_t *sizes() const { return descriptor->shape; }
  const int64_t *strides() const { return descriptor->shape + rank; }
  const uint8_t *first() const {
    return static_cast<const uint8_t *>(descriptor->aligned) +
           descriptor->offset * elementBytes;
  }
  int64_t elements() const {
    int64_t count = 1;
    for (int64_t d = 0; d < rank; ++d)
      count *= sizes()[d];
    return count;
  }
  int64_t denseBytes() const { return elements() * elementBytes; }
  /// [begin, end) of the bytes the view can reach.
  std::pair<const uint8_t *, const uint8_t *> extent() const {
    if (elements() == 0)
      return {first(), first()};
    int64_t last = 0;
    for (int64_t d = 0; d < rank; ++d)
      last += (sizes()[d] - 1) * strides()[d];
    return {first(), first() + (last + 1) * elementBytes};
  }
};

/// Fails, naming the result, unless `view`'s sizes, byte count and offset
/// are ones a call can have returned: the caller's descriptor may be
/// anything, and a negative or overflowing byte count would be taken as a
/// size to copy.
gpRtStatus checkView(const ResultView &view, const char *what) {
  auto bad = [&](const std::string &why) {
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": " + view.name + ": " + why);
  };
  auto sizes = [&] {
    std::string words;
    for (int64_t d = 0; d < view.rank; ++d)
      words += (d ? ", " : "") + std::to_string(view.sizes()[d]);
    return "the descriptor has sizes [" + words + "]";
  };
  int64_t bytes = view.elementBytes;
  for (int64_t d = 0; d < view.rank; ++d) {
    if (view.sizes()[d] < 0)
      return bad(sizes() + "; dimension " + std::to_string(d) + " is negative");
    if (__builtin_mul_overflow(bytes, view.sizes()[d], &bytes))
      return bad(sizes() + ", whose byte count overflows");
  }
  if (view.descriptor->offset < 0)
    return bad("the descriptor has a negative offset " +
               std::to_string(view.descriptor->offset));
  return GP_RT_SUCCESS;
}

gpRtStatus viewOf(gpRtArtifact &artifact, int32_t index, int32_t result,
                  const void *descriptor, ResultView &view, const char *what) {
  if (index < 0 || index >= static_cast<int32_t>(artifact.entries.size()))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": no entry " + std::to_string(index));
  const Entry &entry = artifact.entries[index];
  if (result < 0 || result >= static_cast<int32_t>(entry.results.size()) ||
      !entry.results[result].isBuffer)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": entry '" + entry.name +
                    "' has no buffer result " + std::to_string(result));
  if (!descriptor)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": null result descriptor");
  const Value &value = entry.results[result];
  view.descriptor = static_cast<const gpRtMemRef *>(descriptor);
  view.rank = value.shape.size();
  view.elementBytes = elementTypeBytes(value.elementType);
  if (view.elementBytes == 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": result " + std::to_string(result) +
                    " of entry '" + entry.name + "' has element type " +
                    value.elementType + ", which is not whole bytes");
  view.onDevice =
      artifact.target == ::gp::manifest::kTargetCuda && value.device != "cpu";
  view.name =
      "result " + std::to_string(result) + " of entry '" + entry.name + "'";
  return checkView(view, what);
}

/// Copies `view` densely (row-major) to `dst`: one copy when it is
/// contiguous, one per innermost row otherwise. A device view whose
/// innermost stride is not 1 would need a kernel; it is refused.
gpRtStatus copyDense(gpRtProgram *program, const ResultView &view, void *dst,
                     bool toHost, const char *what) {
  int64_t bytes = view.denseBytes();
  if (bytes == 0)
    return GP_RT_SUCCESS;
  // A meta result has sizes only; a caller's descriptor may have no memory.
  if (!view.descriptor->aligned)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": " + view.name + " has null memory for " +
                    std::to_string(view.elements()) + " element(s)");
  ThreadContext *context = nullptr;
  if (gpRtStatus status = program->context(context))
    return status;
  gpRtCopyKind kind = !view.onDevice ? GP_RT_COPY_HOST_TO_HOST
                      : toHost       ? GP_RT_COPY_PROGRAM_TO_HOST
                                     : GP_RT_COPY_PROGRAM_TO_PROGRAM;
  int64_t rank = view.rank;
  bool contiguous = true;
  for (int64_t d = rank - 1, expected = 1; d >= 0; --d) {
    if (view.sizes()[d] != 1 && view.strides()[d] != expected)
      contiguous = false;
    expected *= view.sizes()[d];
  }
  if (contiguous)
    return gpRtCopy(&context->stream, dst, view.first(), bytes, kind);
  // Whole innermost rows when they are contiguous, else single elements.
  int64_t inner = view.sizes()[rank - 1];
  int64_t innerStride = view.strides()[rank - 1];
  bool rows = innerStride == 1 || inner == 1;
  if (!rows && view.onDevice)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": the result's innermost stride is " +
                    std::to_string(innerStride) +
                    "; copying it densely from device memory needs a kernel "
                    "(return a contiguous buffer)");
  int64_t walked = rows ? rank - 1 : rank; // Dimensions stepped through.
  int64_t chunk = view.elementBytes * (rows ? inner : 1);
  int64_t chunks = view.elements() / (rows ? inner : 1);
  auto *out = static_cast<uint8_t *>(dst);
  std::vector<int64_t> index(walked, 0);
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t offset = 0;
    for (int64_t d = 0; d < walked; ++d)
      offset += index[d] * view.strides()[d];
    if (gpRtStatus status =
            gpRtCopy(&context->stream, out + c * chunk,
                     view.first() + offset * view.elementBytes, chunk, kind))
      return status;
    for (int64_t d = walked - 1; d >= 0; --d) {
      if (++index[d] < view.sizes()[d])
        break;
      index[d] = 0;
    }
  }
  return GP_RT_SUCCESS;
}

/// Rewrites `descriptor` to describe a dense row-major buffer at `storage`.
void describeDense(gpRtMemRef *descriptor, int64_t rank, void *storage) {
  descriptor->allocated = storage;
  descriptor->aligned = storage;
  descriptor->offset = 0;
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    descriptor->shape[rank + d] = stride;
    stride *= descriptor->shape[d];
  }
}

/// Whether a result lives in memory the caller gave (inside an argument
/// buffer) rather than in the program's.
bool insideArgument(const Entry &entry, void **args, const ResultView &view) {
  auto [begin, end] = view.extent();
  for (size_t i = 0; i < entry.args.size(); ++i) {
    if (!entry.args[i].isBuffer)
      continue;
    ResultView arg{
        static_cast<const gpRtMemRef *>(args[i]),
        static_cast<int64_t>(entry.args[i].shape.size()),
        std::max<int64_t>(elementTypeBytes(entry.args[i].elementType), 1),
        false, std::string()};
    auto [argBegin, argEnd] = arg.extent();
    if (begin >= argBegin && end <= argEnd && begin < argEnd)
      return true;
  }
  return false;
}

/// The overwrite debug mode around one call of entry `index`: poisons the
/// results the previous call of the entry on this thread handed out, then
/// (after the call) moves this call's program-owned results into storage of
/// their own.
gpRtStatus poisonPrevious(gpRtArtifact &artifact, int32_t index, int64_t call) {
  std::vector<TrackedResult *> previous;
  {
    std::lock_guard<std::mutex> lock(artifact.results.mutex);
    for (TrackedResult &tracked : artifact.results.tracked)
      if (tracked.entry == index && tracked.overwrittenBy == 0 &&
          tracked.thread == std::this_thread::get_id()) {
        tracked.overwrittenBy = call;
        previous.push_back(&tracked);
      }
  }
  ThreadContext *context = nullptr;
  if (gpRtStatus status = artifact.program->context(context))
    return status;
  for (TrackedResult *tracked : previous) {
    if (!tracked->onDevice) {
      std::memset(tracked->storage, 0xFF, tracked->bytes);
      continue;
    }
    std::vector<uint8_t> poison(tracked->bytes, 0xFF);
    if (gpRtStatus status =
            gpRtCopy(&context->stream, tracked->storage, poison.data(),
                     tracked->bytes, GP_RT_COPY_HOST_TO_PROGRAM))
      return status;
    // The staging copy reads `poison` until the stream gets there.
    if (gpRtStatus status = context->device->synchronize(context->stream))
      return status;
  }
  return GP_RT_SUCCESS;
}

gpRtStatus trackResults(gpRtArtifact &artifact, int32_t index, void **args,
                        void **results, int64_t call) {
  const Entry &entry = artifact.entries[index];
  for (size_t r = 0; r < entry.results.size(); ++r) {
    // A meta result has sizes only: nothing to keep or poison.
    if (!entry.results[r].isBuffer || entry.results[r].device == "meta")
      continue;
    ResultView view;
    if (gpRtStatus status = viewOf(artifact, index, r, results[r], view,
                                   "overwrite debug mode"))
      return status;
    if (insideArgument(entry, args, view))
      continue; // The caller's own memory.
    TrackedResult tracked;
    tracked.bytes = std::max<int64_t>(view.denseBytes(), 1);
    tracked.onDevice = view.onDevice;
    tracked.entry = index;
    tracked.result = r;
    tracked.call = call;
    tracked.thread = std::this_thread::get_id();
    if (view.onDevice) {
      if (gpRtStatus status = gpRtProgramAllocate(
              artifact.program, tracked.bytes, &tracked.storage))
        return status;
    } else if (!(tracked.storage = std::aligned_alloc(
                     256, (tracked.bytes + 255) / 256 * 256))) {
      return fail(GP_RT_ERROR_BACKEND,
                  "overwrite debug mode: out of host memory");
    }
    if (gpRtStatus status =
            copyDense(artifact.program, view, tracked.storage,
                      /*toHost=*/false, "overwrite debug mode")) {
      releaseTracked(artifact.program, tracked);
      return status;
    }
    describeDense(static_cast<gpRtMemRef *>(results[r]), view.rank,
                  tracked.storage);
    std::lock_guard<std::mutex> lock(artifact.results.mutex);
    artifact.results.tracked.push_back(tracked);
    while (artifact.results.tracked.size() > ResultTracker::kMaxTracked) {
      releaseTracked(artifact.program, artifact.results.tracked.front());
      artifact.results.tracked.pop_front();
    }
  }
  return GP_RT_SUCCESS;
}

} // namespace

/// "[2, 3]": `rank` words of a descriptor (its sizes or strides).
static std::string describeWords(const int64_t *values, size_t rank) {
  std::string text;
  for (size_t d = 0; d < rank; ++d)
    text += (d ? ", " : "") + std::to_string(values[d]);
  return "[" + text + "]";
}

/// Fails, naming argument `i` of `entry`, unless the caller's descriptor
/// `ref` is one compiled code can read: the entry's static sizes, an
/// element count that fits, a non-negative offset, memory for its elements
/// (a meta tensor has sizes only) and, for a row-major argument, row-major
/// strides. Compiled code trusts all of these: a null pointer or a negative
/// offset would fault inside a kernel, other sizes or strides read wrong.
static gpRtStatus checkBuffer(const Entry &entry, size_t i,
                              const gpRtMemRef &ref) {
  const Value &value = entry.args[i];
  size_t rank = value.shape.size();
  const int64_t *sizes = ref.shape, *strides = ref.shape + rank;
  // Made only for a message: a call that passes allocates nothing here.
  auto what = [&] {
    return "entry '" + entry.name + "': argument " + std::to_string(i);
  };
  for (size_t d = 0; d < rank; ++d)
    if (sizes[d] < 0 || (value.shape[d] >= 0 && sizes[d] != value.shape[d]))
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  what() + " has sizes " + describeWords(sizes, rank) +
                      "; dimension " + std::to_string(d) + " must be " +
                      (value.shape[d] >= 0 ? std::to_string(value.shape[d])
                                           : std::string("at least 0")));
  int64_t elements = 1;
  for (size_t d = 0; d < rank; ++d)
    if (__builtin_mul_overflow(elements, sizes[d], &elements))
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  what() + " has sizes " + describeWords(sizes, rank) +
                      ", whose product overflows");
  if (ref.offset < 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                what() + ": negative offset " + std::to_string(ref.offset));
  if (elements > 0 && !ref.aligned && value.device != "meta")
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                what() + ": null memory (aligned pointer) for " +
                    std::to_string(elements) + " element(s)");
  if (value.strided)
    return GP_RT_SUCCESS;
  int64_t expected = 1;
  for (size_t d = rank; d-- > 0;) {
    if (sizes[d] > 1 && strides[d] != expected)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  what() + " has sizes " + describeWords(sizes, rank) +
                      " and strides " + describeWords(strides, rank) +
                      "; the entry takes a row-major buffer (copy the view "
                      "to a contiguous one)");
    // A zero size makes the whole product fit but not a partial one.
    if (__builtin_mul_overflow(expected, sizes[d], &expected))
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  what() + " has sizes " + describeWords(sizes, rank) +
                      ", whose product overflows");
  }
  return GP_RT_SUCCESS;
}

/// Fails, naming argument `i`, when it is null (an index argument's value
/// is read through its pointer) or a buffer descriptor checkBuffer refuses.
static gpRtStatus checkArgument(const Entry &entry, void **args, size_t i) {
  if (!args[i])
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "entry '" + entry.name + "': argument " + std::to_string(i) +
                    " is null");
  if (entry.args[i].isBuffer)
    return checkBuffer(entry, i, *static_cast<const gpRtMemRef *>(args[i]));
  return GP_RT_SUCCESS;
}

/// Checks the caller's arguments of a call (checkArgument), in order.
/// Bound parameters' descriptors were checked when they were bound: with
/// `resolved` (an entry taking parameters) only the user arguments and the
/// parameters the caller passed itself are checked, so a call costs
/// nothing per bound parameter here.
static gpRtStatus checkArguments(const Entry &entry, void **args,
                                 void **callerArgs,
                                 const ResolvedArguments *resolved) {
  if (!resolved || !resolved->overridden) {
    for (int32_t i : entry.userArgs)
      if (gpRtStatus status = checkArgument(entry, args, i))
        return status;
    return GP_RT_SUCCESS;
  }
  const uint8_t *kinds = resolved->bound->kinds.data();
  for (size_t i = 0; i < entry.args.size(); ++i) {
    bool fromBinding =
        kinds[i] == BoundArguments::Runtime ||
        (kinds[i] == BoundArguments::Parameter && !callerArgs[i]);
    if (!fromBinding)
      if (gpRtStatus status = checkArgument(entry, args, i))
        return status;
  }
  return GP_RT_SUCCESS;
}

/// Calls entry `index`, counting the call, with the debug mode around it;
/// its arguments are checked first, so a call they fail runs nothing.
gpRtStatus gp::rt::callEntry(gpRtArtifact &artifact, int32_t index, void **args,
                             void **results) {
  const Entry &entry = artifact.entries[index];
  // Null slots of parameters take their bound descriptors, from one set of
  // bindings held for the whole call.
  ResolvedArguments resolved;
  void **callerArgs = args;
  if (entry.takesParameters) {
    if (gpRtStatus status = resolveParameters(artifact, index, args, resolved))
      return status;
    args = resolved.args;
  }
  if (gpRtStatus status = checkArguments(
          entry, args, callerArgs, entry.takesParameters ? &resolved : nullptr))
    return status;
  // The sizes the program uses as one must be one: compiled code would
  // read past the smaller buffer.
  if (gpRtStatus status = checkSizes(entry, args))
    return status;
  // Sizes that are not capture sizes run padded to the next one.
  PaddedCall *padded = nullptr;
  if (entry.pads)
    if (gpRtStatus status = padArguments(artifact, index, args, padded))
      return status;
  int64_t call = 0;
  bool debug = false;
  {
    std::lock_guard<std::mutex> lock(artifact.results.mutex);
    call = ++artifact.results.calls[{std::this_thread::get_id(), index}];
    debug = artifact.results.debugOverwrite;
  }
  if (debug)
    if (gpRtStatus status = poisonPrevious(artifact, index, call))
      return status;
  // A result in a padded argument's staging buffer is the runtime's, like
  // one in the program's memory (the debug mode below tracks it).
  if (gpRtStatus status = entry.function(
          artifact.program, padded ? padded->args.data() : args, results))
    return status;
  if (padded) {
    unpadResults(entry, *padded, results);
    artifact.program->count(&gpRtStats::paddedCalls);
  }
  if (debug)
    return trackResults(artifact, index, args, results, call);
  return GP_RT_SUCCESS;
}

extern "C" {

GP_RT_EXPORT gpRtStatus gpRtArtifactResultBytes(gpRtArtifact *artifact,
                                                int32_t index, int32_t result,
                                                const void *descriptor,
                                                int64_t *bytes) {
  if (gpRtStatus status = checkHandle(artifact, "gpRtArtifactResultBytes"))
    return status;
  if (!artifact || !bytes)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtArtifactResultBytes: null");
  ResultView view;
  if (gpRtStatus status = viewOf(*artifact, index, result, descriptor, view,
                                 "gpRtArtifactResultBytes"))
    return status;
  *bytes = view.denseBytes();
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtArtifactCopyResultToHost(
    gpRtArtifact *artifact, int32_t index, int32_t result,
    const void *descriptor, void *dst, int64_t dstBytes) {
  if (gpRtStatus status = checkHandle(artifact, "gpRtArtifactCopyResultToHost"))
    return status;
  const char *what = "gpRtArtifactCopyResultToHost";
  if (!artifact || (!dst && dstBytes > 0))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, std::string(what) + ": null");
  ResultView view;
  if (gpRtStatus status =
          viewOf(*artifact, index, result, descriptor, view, what))
    return status;
  {
    std::lock_guard<std::mutex> lock(artifact->results.mutex);
    const void *data = view.first();
    for (const TrackedResult &tracked : artifact->results.tracked)
      if (tracked.storage == data && tracked.overwrittenBy != 0)
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    std::string(what) + ": output " +
                        std::to_string(tracked.result) + " of call " +
                        std::to_string(tracked.call) + " of entry '" +
                        artifact->entries[tracked.entry].name +
                        "' was overwritten by call " +
                        std::to_string(tracked.overwrittenBy) +
                        " (a result lives in the program's memory until the "
                        "next call of its entry: copy it out, or pass "
                        "output buffers, before calling again)");
  }
  if (dstBytes < view.denseBytes())
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": " + std::to_string(dstBytes) +
                    " bytes given for a result of " +
                    std::to_string(view.denseBytes()));
  return copyDense(artifact->program, view, dst, /*toHost=*/true, what);
}

GP_RT_EXPORT gpRtStatus gpRtArtifactCallWithOutputs(
    gpRtArtifact *artifact, int32_t index, void **args, void **results,
    void *const *outputs, const int64_t *outputBytes) {
  if (gpRtStatus status =
          runCall("gpRtArtifactCallWithOutputs", artifact, index, args, results,
                  std::nullopt, /*onStream=*/false, nullptr))
    return status;
  if (!outputs)
    return GP_RT_SUCCESS;
  const Entry &entry = artifact->entries[index];
  for (size_t r = 0; r < entry.results.size(); ++r) {
    if (!outputs[r])
      continue;
    ResultView view;
    if (gpRtStatus status = viewOf(*artifact, index, r, results[r], view,
                                   "gpRtArtifactCallWithOutputs"))
      return status;
    if (!outputBytes || outputBytes[r] < view.denseBytes())
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "gpRtArtifactCallWithOutputs: output " + std::to_string(r) +
                      " needs " + std::to_string(view.denseBytes()) +
                      " bytes, " +
                      (outputBytes ? std::to_string(outputBytes[r])
                                   : std::string("no size")) +
                      " given");
    if (gpRtStatus status =
            copyDense(artifact->program, view, outputs[r],
                      /*toHost=*/false, "gpRtArtifactCallWithOutputs"))
      return status;
    describeDense(static_cast<gpRtMemRef *>(results[r]), view.rank, outputs[r]);
  }
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtArtifactSetDebugOverwrite(gpRtArtifact *artifact,
                                                      int32_t enabled) {
  if (gpRtStatus status =
          checkHandle(artifact, "gpRtArtifactSetDebugOverwrite"))
    return status;
  if (!artifact)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtArtifactSetDebugOverwrite: null");
  std::lock_guard<std::mutex> lock(artifact->results.mutex);
  artifact->results.debugOverwrite = enabled != 0;
  return GP_RT_SUCCESS;
}

} // extern "C"
