//===- Padding.cpp - calls padded to the capture sizes ---------------------===//
//
// With capture sizes of one value set (GP_CUDAGRAPH_CAPTURE_SIZES=1,2,4,8
// or `default`), a call whose size n of a `pad` size class (SizeClasses.cpp)
// is not a capture size but is below the largest runs on copies of its
// arguments padded to the smallest capture size above n, and its results
// are sliced back to n: the partitions see a capture size, so they are
// captured for the capture sizes only instead of running eagerly.
//
// A padded position is a copy of the last real one along its dimension
// (edge padding: it cannot make the program do anything a real position
// would not: divide by zero, index out of range); zeros when n is 0. The
// copies go into staging buffers per thread, entry and argument, reused
// by every call so their addresses stay stable (graphs holding them replay
// as they are); on the cuda backend they are device memory written in
// stream order on the calling thread's program stream, the stream the
// entry's work goes on.
//
//===----------------------------------------------------------------------===//


#include "ArtifactState.h"
#include "ElementTypes.h"
#include "Handles.h"
#include "Log.h"
#include "Memory.h"
#include "Policy.h"
#include "ProgramState.h"
#include "RuntimeInternal.h"

#include "GraphPart/Runtime/ManifestSchema.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

using namespace gp::rt;

//===----------------------------------------------------------------------===//
// Padding
//===----------------------------------------------------------------------===//

namespace {

/// Where a size stands among capture sizes of one value.
struct Bucket {
  bool listed = false;
  int64_t above = -1;   // The smallest capture size above it, or -1.
  int64_t largest = -1; // The largest capture size.
};

Bucket bucketOf(const Policy &policy, int64_t size) {
  Bucket bucket;
  for (int64_t value : policy.captureSizes.sizes) {
    bucket.listed = bucket.listed || value == size;
    bucket.largest = std::max(bucket.largest, value);
    if (value > size && (bucket.above < 0 || value < bucket.above))
      bucket.above = value;
  }
  return bucket;
}

/// Whether calls of `artifact` may be padded now: padding on, and capture
/// sizes of one value set. A program with capture off runs every call at
/// its own sizes: padding is for captures, and the eager reference run
/// (gp-run --check's) then checks the padded one.
bool paddingApplies(gpRtArtifact &artifact) {
  const Policy &policy = artifact.program->policy;
  return artifact.padding.enabled.load(std::memory_order_relaxed) &&
         policy.captureEnabled && policy.hasCaptureSizes &&
         policy.captureSizes.keyLength == 1 && !policy.captureSizes.empty();
}

/// The size class `c` of a call pads to, or -1 (it runs at its size).
int64_t paddedSize(const Policy &policy, const SizeClass &size,
                   void *const *args) {
  if (!size.pads())
    return -1;
  int64_t n = memberValue(args, size.members[0]);
  if (n < 0)
    return -1;
  Bucket bucket = bucketOf(policy, n);
  if (bucket.listed || (size.maximum >= 0 && bucket.above > size.maximum))
    return -1;
  return bucket.above;
}

/// Warns with `line` the first time (entry, what) comes up.
void warnOnce(gpRtArtifact &artifact, int32_t entry, int32_t what,
              const std::string &line) {
  {
    std::lock_guard<std::mutex> lock(artifact.padding.mutex);
    if (!artifact.padding.warned.insert({entry, what}).second)
      return;
  }
  warn(line);
}

std::string describeList(const int64_t *values, int64_t count) {
  std::string text;
  for (int64_t i = 0; i < count; ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return "[" + text + "]";
}

/// Copies into a staging buffer: memcpy in host memory; on the device,
/// copies queued on the calling thread's program stream.
class Copier {
public:
  Copier(const CudaDriver *driver, CudaDriver::Handle stream)
      : driver(driver), stream(stream) {}

  /// `height` rows of `width` bytes, `srcPitch` apart from `src`, to
  /// `dstPitch` apart from `dst`.
  gpRtStatus rows(uint8_t *dst, int64_t dstPitch, const uint8_t *src,
                  int64_t srcPitch, int64_t width, int64_t height) const {
    if (width <= 0 || height <= 0)
      return GP_RT_SUCCESS;
    if (height == 1 || (dstPitch == width && srcPitch == width))
      return copy(dst, src, width * height);
    if (driver && driver->cuMemcpy2DAsync && dstPitch <= kMaxPitch &&
        srcPitch <= kMaxPitch) {
      CudaDriver::Memcpy2D copy;
      copy.srcMemoryType = copy.dstMemoryType = CudaDriver::kMemoryTypeUnified;
      copy.srcDevice = address(src);
      copy.dstDevice = address(dst);
      copy.srcPitch = srcPitch;
      copy.dstPitch = dstPitch;
      copy.WidthInBytes = width;
      copy.Height = height;
      // A driver that refuses it (a pitch past its limit) gets the rows
      // one by one instead.
      if (driver->cuMemcpy2DAsync(&copy, stream) == 0)
        return GP_RT_SUCCESS;
    }
    for (int64_t row = 0; row < height; ++row)
      if (gpRtStatus status =
              copy(dst + row * dstPitch, src + row * srcPitch, width))
        return status;
    return GP_RT_SUCCESS;
  }

  gpRtStatus zero(uint8_t *dst, int64_t bytes) const {
    if (!driver) {
      std::memset(dst, 0, bytes);
      return GP_RT_SUCCESS;
    }
    return driver->check(driver->cuMemsetD8Async(address(dst), 0, bytes,
                                                 stream),
                         "cuMemsetD8Async (padding)");
  }

private:
  /// CU_DEVICE_ATTRIBUTE_MAX_PITCH on every device so far.
  static constexpr int64_t kMaxPitch = INT32_MAX;

  static CudaDriver::DevicePtr address(const void *pointer) {
    return reinterpret_cast<CudaDriver::DevicePtr>(pointer);
  }
  gpRtStatus copy(uint8_t *dst, const uint8_t *src, int64_t bytes) const {
    if (!driver) {
      std::memcpy(dst, src, bytes);
      return GP_RT_SUCCESS;
    }
    return driver->check(
        driver->cuMemcpyDtoDAsync(address(dst), address(src), bytes, stream),
        "cuMemcpyDtoDAsync (padding)");
  }

  const CudaDriver *driver;
  CudaDriver::Handle stream;
};

/// Fills a row-major staging buffer of sizes `target` from the caller's
/// row-major `src` of sizes `source` (equal but along padded dimensions,
/// where target is larger): the caller's elements in place, every padded
/// position a copy of the last real one along its dimension, or zeros when
/// a padded dimension is empty.
///
/// The real elements go as rows of the innermost padded dimension q
/// (contiguous on both sides: dimensions after q are not padded), as few
/// strided copies as there are index tuples of the padded dimensions before
/// q (one for a single padded dimension). Then each padded dimension p,
/// innermost first, is filled by doubling: slab n-1 to n, slabs [n-1, n+1)
/// to [n+1, n+3), ... (log2 copies per run of rows); a slab along p
/// includes the padding of the dimensions after p, filled before it.
class Filler {
public:
  Filler(const Copier &copier, const int64_t *source, const int64_t *target,
         int64_t rank, int64_t elementBytes, std::vector<int64_t> &scratch)
      : copier(copier), source(source), target(target), rank(rank),
        bytes(elementBytes) {
    // Counters, then the staging buffer's and the caller's strides.
    scratch.assign(3 * rank, 0);
    counter = scratch.data();
    dstStride = counter + rank;
    srcStride = dstStride + rank;
    for (int64_t d = rank - 1, dst = 1, src = 1; d >= 0; --d) {
      dstStride[d] = dst;
      srcStride[d] = src;
      dst *= target[d];
      src *= source[d];
    }
  }

  /// `stale`: the padded positions already hold elements of earlier
  /// calls (the buffer's written prefix covers them): they are left as
  /// they are, which is as safe as copies of this call's (each is an
  /// element a caller passed, and positions are computed apart) and saves
  /// the replicating copies.
  gpRtStatus fill(uint8_t *dst, const uint8_t *src, bool stale) {
    int64_t total = 1;
    for (int64_t d = 0; d < rank; ++d)
      total *= target[d];
    if (total == 0)
      return GP_RT_SUCCESS;
    int64_t innermost = -1;
    for (int64_t d = 0; d < rank; ++d) {
      if (!padded(d))
        continue;
      if (source[d] == 0)
        return stale ? GP_RT_SUCCESS : copier.zero(dst, total * bytes);
      innermost = d;
    }
    if (innermost < 0)
      return copier.rows(dst, 0, src, 0, total * bytes, 1);
    int64_t q = innermost;
    int64_t width = source[q] * dstStride[q] * bytes;
    if (gpRtStatus status =
            forEachRun(q, [&](int64_t dstAt, int64_t srcAt, int64_t height) {
              return copier.rows(dst + dstAt * bytes, pitch(dstStride, q),
                                 src + srcAt * bytes, pitch(srcStride, q),
                                 width, height);
            }))
      return status;
    if (stale)
      return GP_RT_SUCCESS;
    for (int64_t p = q; p >= 0; --p)
      if (padded(p))
        if (gpRtStatus status = replicate(dst, p))
          return status;
    return GP_RT_SUCCESS;
  }

private:
  bool padded(int64_t d) const { return target[d] != source[d]; }
  /// Bytes between consecutive index tuples of dimensions [0, d).
  int64_t pitch(const int64_t *strides, int64_t d) const {
    return d > 0 ? strides[d - 1] * bytes : 0;
  }

  /// Fills positions [n, target) of padded dimension `p` with copies of
  /// position n - 1, doubling what is copied each time.
  gpRtStatus replicate(uint8_t *dst, int64_t p) {
    int64_t n = source[p], extra = target[p] - n;
    int64_t slab = dstStride[p] * bytes;
    for (int64_t filled = 0; filled < extra;) {
      int64_t count = std::min(filled + 1, extra - filled);
      if (gpRtStatus status =
              forEachRun(p, [&](int64_t dstAt, int64_t, int64_t height) {
                uint8_t *base = dst + dstAt * bytes;
                return copier.rows(base + (n + filled) * slab,
                                   pitch(dstStride, p), base + (n - 1) * slab,
                                   pitch(dstStride, p), count * slab, height);
              }))
        return status;
      filled += count;
    }
    return GP_RT_SUCCESS;
  }

  /// Calls `copy(dstOffset, srcOffset, height)` (offsets in elements) for
  /// every run of the real index tuples of dimensions [0, end) that are
  /// evenly spaced on both sides: the tuples that differ only after the
  /// last padded dimension before `end`.
  template <typename Copy> gpRtStatus forEachRun(int64_t end, Copy copy) {
    int64_t last = -1; // The last padded dimension before `end`.
    for (int64_t d = 0; d < end; ++d)
      if (padded(d))
        last = d;
    int64_t height = 1;
    for (int64_t d = last + 1; d < end; ++d)
      height *= source[d];
    std::fill(counter, counter + rank, 0);
    while (true) {
      int64_t dstAt = 0, srcAt = 0;
      for (int64_t d = 0; d <= last; ++d) {
        dstAt += counter[d] * dstStride[d];
        srcAt += counter[d] * srcStride[d];
      }
      if (gpRtStatus status = copy(dstAt, srcAt, height))
        return status;
      int64_t d = last;
      for (; d >= 0; --d) {
        if (++counter[d] < source[d])
          break;
        counter[d] = 0;
      }
      if (d < 0)
        return GP_RT_SUCCESS;
    }
  }

  const Copier &copier;
  const int64_t *source, *target;
  int64_t rank, bytes;
  int64_t *counter = nullptr, *dstStride = nullptr, *srcStride = nullptr;
};

/// The calling thread's padded call of entry `index`, made on first use.
PaddedCall &paddedCall(gpRtArtifact &artifact, int32_t index) {
  std::lock_guard<std::mutex> lock(artifact.padding.mutex);
  std::unique_ptr<PaddedCall> &slot =
      artifact.padding.calls[{std::this_thread::get_id(), index}];
  if (!slot) {
    const Entry &entry = artifact.entries[index];
    slot = std::make_unique<PaddedCall>();
    size_t count = entry.args.size();
    slot->descriptors.resize(count);
    slot->sizes.resize(count);
    slot->staging.resize(count);
    slot->indexValues.resize(count);
    for (size_t i = 0; i < count; ++i)
      if (entry.args[i].isBuffer) {
        int64_t rank = entry.args[i].shape.size();
        slot->descriptors[i].resize(3 + 2 * rank);
        slot->sizes[i].resize(rank);
      }
  }
  return *slot;
}

void freeStaging(gpRtProgram *program, StagingBuffer &staging) {
  if (!staging.data)
    return;
  freeBlock(staging.onDevice ? program->driver : nullptr, staging.data);
  liveCounts().poolBytes -= staging.bytes;
  staging = StagingBuffer();
}

/// Makes `staging` hold at least `bytes` (keeping it, and its address, when
/// it does already; else at least doubling it, so a growing size moves it
/// rarely).
gpRtStatus reserve(gpRtProgram *program, ThreadContext *context,
                   StagingBuffer &staging, int64_t bytes, bool onDevice) {
  if (staging.data && staging.onDevice == onDevice && staging.bytes >= bytes)
    return GP_RT_SUCCESS;
  if (gpRtStatus status = checkBlockSize(bytes, "padding"))
    return status;
  if (staging.data && staging.onDevice && context)
    // The previous call's queued work may still read the old buffer.
    if (gpRtStatus status = context->device->synchronize(context->stream))
      return status;
  int64_t grown = std::max(roundToBlock(bytes),
                           std::min(2 * staging.bytes, kMaxBlockBytes));
  freeStaging(program, staging);
  void *data = nullptr;
  if (gpRtStatus status = allocateBlock(onDevice ? program->driver : nullptr,
                                        grown, data, "padding"))
    return status;
  staging = {data, grown, onDevice};
  liveCounts().poolBytes += grown;
  return GP_RT_SUCCESS;
}

/// Why argument `i` of a call cannot be padded (not row-major, or of an
/// element type narrower than a byte), or "".
std::string unpaddable(const Value &value, const gpRtMemRef *ref,
                       int64_t elementBytes) {
  int64_t rank = value.shape.size();
  const int64_t *sizes = ref->shape, *strides = ref->shape + rank;
  if (elementBytes == 0)
    return "has element type " + value.elementType +
           ", which is not whole bytes";
  for (int64_t d = rank - 1, expected = 1; d >= 0; --d) {
    if (sizes[d] > 1 && strides[d] != expected)
      return "is not row-major (sizes " + describeList(sizes, rank) +
             ", strides " + describeList(strides, rank) + ")";
    expected *= sizes[d];
  }
  return "";
}

/// Pads the buffer argument `i` of a call into its staging buffer and
/// points its descriptor there.
gpRtStatus padBuffer(gpRtArtifact &artifact, const Entry &entry, size_t i,
                     void *const *args, PaddedCall &call,
                     ThreadContext *context) {
  const Value &value = entry.args[i];
  const auto *ref = static_cast<const gpRtMemRef *>(args[i]);
  int64_t rank = value.shape.size();
  const std::vector<int64_t> &target = call.sizes[i];
  std::vector<int64_t> &words = call.descriptors[i];
  for (int64_t d = rank - 1, stride = 1; d >= 0; --d) {
    words[3 + d] = target[d];
    words[3 + rank + d] = stride;
    stride *= target[d];
  }
  // Meta buffers carry sizes only.
  if (value.device == "meta") {
    std::memcpy(words.data(), ref, 3 * sizeof(int64_t));
    return GP_RT_SUCCESS;
  }
  int64_t bytes = elementTypeBytes(value.elementType);
  for (int64_t d = 0; d < rank; ++d)
    if (__builtin_mul_overflow(bytes, target[d], &bytes))
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "entry '" + entry.name + "': argument " + std::to_string(i) +
                      " padded to sizes " + describeList(target.data(), rank) +
                      " has more bytes than can be allocated");
  bool onDevice =
      artifact.target == ::gp::manifest::kTargetCuda && value.device != "cpu";
  StagingBuffer &staging = call.staging[i];
  if (gpRtStatus status = reserve(artifact.program, context, staging,
                                  std::max<int64_t>(bytes, 1), onDevice))
    return status;
  int64_t elementBytes = elementTypeBytes(value.elementType);
  const auto *src = static_cast<const uint8_t *>(ref->aligned) +
                    ref->offset * elementBytes;
  Copier copier(onDevice ? artifact.program->driver : nullptr,
                onDevice ? context->stream.cuStream : nullptr);
  Filler filler(copier, ref->shape, target.data(), rank, elementBytes,
                call.counter);
  // `bytes` is the padded size: within what earlier fills wrote, the
  // padded positions hold earlier callers' elements already.
  if (gpRtStatus status = filler.fill(static_cast<uint8_t *>(staging.data),
                                      src, bytes <= staging.written))
    return status;
  staging.written = std::max(staging.written, bytes);
  auto pointer = reinterpret_cast<int64_t>(staging.data);
  words[0] = words[1] = pointer;
  words[2] = 0;
  return GP_RT_SUCCESS;
}

} // namespace

gpRtStatus gp::rt::padArguments(gpRtArtifact &artifact, int32_t index,
                                void **args, PaddedCall *&padded) {
  padded = nullptr;
  const Entry &entry = artifact.entries[index];
  if (!paddingApplies(artifact))
    return GP_RT_SUCCESS;
  const Policy &policy = artifact.program->policy;
  // Which classes pad, without touching the thread's state: most calls of
  // a steady workload are at capture sizes already.
  bool any = false;
  for (size_t c = 0; c < entry.sizes.size(); ++c) {
    const SizeClass &size = entry.sizes[c];
    if (!size.pads())
      continue;
    int64_t n = memberValue(args, size.members[0]);
    Bucket bucket = bucketOf(policy, n);
    if (n < 0 || bucket.listed)
      continue;
    if (bucket.above < 0) {
      warnOnce(artifact, index, static_cast<int32_t>(c),
               "entry '" + entry.name + "': size " + size.name + " = " +
                   std::to_string(n) + " is above the largest capture size " +
                   std::to_string(bucket.largest) + ": runs at its own size");
      continue;
    }
    if (size.maximum >= 0 && bucket.above > size.maximum) {
      // The entry would refuse the padded size (its symint's bound).
      warnOnce(artifact, index, -2 - static_cast<int32_t>(c),
               "entry '" + entry.name + "': size " + size.name + " = " +
                   std::to_string(n) + " would be padded to " +
                   std::to_string(bucket.above) +
                   ", above the largest size the program accepts (" +
                   std::to_string(size.maximum) + "): runs at its own size");
      continue;
    }
    any = true;
  }
  if (!any)
    return GP_RT_SUCCESS;

  PaddedCall &call = paddedCall(artifact, index);
  call.from.assign(entry.sizes.size(), -1);
  call.args.assign(args, args + entry.args.size());
  bool device = false;
  for (size_t c = 0; c < entry.sizes.size(); ++c) {
    const SizeClass &size = entry.sizes[c];
    int64_t to = paddedSize(policy, size, args);
    if (to < 0)
      continue;
    call.from[c] = memberValue(args, size.members[0]);
    for (int32_t m = 0; m < size.numArgumentMembers; ++m) {
      const SizeMember &member = size.members[m];
      size_t i = member.index;
      if (member.kind == SizeMember::IndexArgument) {
        call.indexValues[i] = to;
        call.args[i] = &call.indexValues[i];
        continue;
      }
      const Value &value = entry.args[i];
      const auto *ref = static_cast<const gpRtMemRef *>(args[i]);
      if (call.args[i] == args[i]) { // First padded dimension of it.
        int64_t bytes = elementTypeBytes(value.elementType);
        if (std::string why = unpaddable(value, ref, bytes);
            !why.empty() && value.device != "meta") {
          warnOnce(artifact, index, -1,
                   "entry '" + entry.name + "': argument " + std::to_string(i) +
                       " " + why +
                       ": calls whose sizes would be padded to a capture "
                       "size run at their own sizes");
          return GP_RT_SUCCESS;
        }
        std::copy(ref->shape, ref->shape + value.shape.size(),
                  call.sizes[i].begin());
        call.args[i] = call.descriptors[i].data();
        device = device || (artifact.target == ::gp::manifest::kTargetCuda &&
                            value.device != "cpu" && value.device != "meta");
      }
      call.sizes[i][member.dim] = to;
    }
  }
  ThreadContext *context = nullptr;
  if (device)
    if (gpRtStatus status = artifact.program->context(context))
      return status;
  for (size_t i = 0; i < entry.args.size(); ++i)
    if (entry.args[i].isBuffer && call.args[i] != args[i])
      if (gpRtStatus status =
              padBuffer(artifact, entry, i, args, call, context))
        return status;
  padded = &call;
  return GP_RT_SUCCESS;
}

void gp::rt::unpadResults(const Entry &entry, const PaddedCall &padded,
                          void **results) {
  for (size_t c = 0; c < entry.sizes.size(); ++c) {
    if (padded.from[c] < 0)
      continue;
    const SizeClass &size = entry.sizes[c];
    // Strides stay: the result is a view of the padded one's first
    // positions.
    for (size_t m = size.numArgumentMembers; m < size.members.size(); ++m) {
      const SizeMember &member = size.members[m];
      void *result = results[member.index];
      if (!result)
        continue;
      if (member.kind == SizeMember::IndexResult)
        *static_cast<int64_t *>(result) = padded.from[c];
      else
        static_cast<gpRtMemRef *>(result)->shape[member.dim] = padded.from[c];
    }
  }
}

void gp::rt::releaseStaging(gpRtArtifact &artifact) {
  if (artifact.program && artifact.program->driver)
    artifact.program->driver->cuCtxSetCurrent(artifact.program->cuContext);
  for (auto &[key, call] : artifact.padding.calls)
    for (StagingBuffer &staging : call->staging)
      freeStaging(artifact.program, staging);
  artifact.padding.calls.clear();
}

//===----------------------------------------------------------------------===//
// The C ABI
//===----------------------------------------------------------------------===//

extern "C" {

GP_RT_EXPORT gpRtStatus gpRtArtifactSetPadding(gpRtArtifact *artifact,
                                               int32_t enabled) {
  if (gpRtStatus status = checkHandle(artifact, "gpRtArtifactSetPadding"))
    return status;
  if (!artifact)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtArtifactSetPadding: null");
  artifact->padding.enabled = enabled != 0;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtArtifactSetCaptureSizes(gpRtArtifact *artifact,
                                                    const char *sizes) {
  if (gpRtStatus status = checkHandle(artifact, "gpRtArtifactSetCaptureSizes"))
    return status;
  const char *what = "gpRtArtifactSetCaptureSizes";
  if (!artifact)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, std::string(what) + ": null");
  if (!artifact->program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": the artifact was opened with "
                                    "gpRtArtifactInspect and has no program");
  return guarded(what, [&] {
    if (!sizes || !*sizes || std::string(sizes) == "-")
      return gpRtProgramSetCaptureSizes(artifact->program, nullptr, -1, 0);
    gp::CaptureSizes parsed;
    if (gpRtStatus status = parseCaptureSizes(what, sizes, parsed))
      return status;
    return gpRtProgramSetCaptureSizes(artifact->program, parsed.sizes.data(),
                                      parsed.numKeys(), parsed.keyLength);
  });
}


} // extern "C"
