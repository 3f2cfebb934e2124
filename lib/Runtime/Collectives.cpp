//===- Collectives.cpp - collectives across the ranks of a run ------------===//
//
// gp.all_reduce, gp.all_gather, gp.reduce_scatter and gp.broadcast
// (gpRtCollective), the rank and world size a program instance runs as,
// and the communicator that joins instances into ranks.
//
// A program that runs alone is rank 0 of 1: every collective is then a
// copy of its source (nothing, in place), on either backend, captured or
// not. Ranks that are program instances of one process (threads, each
// calling its own instance) share a local communicator: on the host
// backend a collective meets the other ranks' calls of it there, each rank
// publishing its source, computing its own result from all of them, and
// waiting until every rank has read before it writes (a source may be the
// target). Captured host work records the collective as an extern call, so
// a replay meets the other ranks' replays the same way and reports their
// errors. On the cuda backend a rank's communicator is NCCL's (dlopen'd
// like the CUDA driver: libnccl.so.2, or $GP_NCCL_LIBRARY), one per
// instance and rank, made from a unique id one rank makes and hands to the
// others; its collectives go on the partition's stream, so a capture
// records them and a replay runs them.
//
//===----------------------------------------------------------------------===//

#include "ArtifactState.h"
#include "Device.h"
#include "ElementTypes.h"
#include "Handles.h"
#include "ProgramState.h"
#include "RuntimeInternal.h"

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <vector>

using namespace gp::rt;

namespace {

/// NCCL's C API, the part the collectives use (nccl.h: ncclResult_t is an
/// int enum, ncclUniqueId 128 bytes passed by value, streams are
/// cudaStream_t, the driver's CUstream).
struct NcclLibrary {
  struct UniqueId {
    char internal[128];
  };
  using Comm = void *;
  int (*getUniqueId)(UniqueId *) = nullptr;
  int (*commInitRank)(Comm *, int, UniqueId, int) = nullptr;
  int (*commDestroy)(Comm) = nullptr;
  int (*commAbort)(Comm) = nullptr;
  int (*allReduce)(const void *, void *, size_t, int, int, Comm,
                   void *) = nullptr;
  int (*allGather)(const void *, void *, size_t, int, Comm, void *) = nullptr;
  int (*reduceScatter)(const void *, void *, size_t, int, int, Comm,
                       void *) = nullptr;
  int (*broadcast)(const void *, void *, size_t, int, int, Comm,
                   void *) = nullptr;
  const char *(*getErrorString)(int) = nullptr;

  static gpRtStatus get(const NcclLibrary *&result) {
    static NcclLibrary library;
    static gpRtStatus status = GP_RT_SUCCESS;
    static std::string reason;
    static std::once_flag once;
    std::call_once(once, [] {
      const char *path = std::getenv("GP_NCCL_LIBRARY");
      if (!path || !*path)
        path = "libnccl.so.2";
      void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (!handle) {
        status = GP_RT_ERROR_UNAVAILABLE;
        reason = std::string("no NCCL: cannot load ") + path +
                 " (set GP_NCCL_LIBRARY to its path)";
        return;
      }
      auto load = [&](auto &fn, const char *name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
            dlsym(handle, name));
        return fn != nullptr;
      };
      if (!load(library.getUniqueId, "ncclGetUniqueId") ||
          !load(library.commInitRank, "ncclCommInitRank") ||
          !load(library.commDestroy, "ncclCommDestroy") ||
          !load(library.commAbort, "ncclCommAbort") ||
          !load(library.allReduce, "ncclAllReduce") ||
          !load(library.allGather, "ncclAllGather") ||
          !load(library.reduceScatter, "ncclReduceScatter") ||
          !load(library.broadcast, "ncclBroadcast") ||
          !load(library.getErrorString, "ncclGetErrorString")) {
        status = GP_RT_ERROR_UNAVAILABLE;
        reason = std::string(path) + " lacks an NCCL function the runtime "
                                     "needs";
      }
    });
    if (status)
      return fail(status, reason);
    result = &library;
    return GP_RT_SUCCESS;
  }

  gpRtStatus check(int result, const std::string &what) const {
    if (result == 0)
      return GP_RT_SUCCESS;
    return fail(GP_RT_ERROR_BACKEND, what + ": " + getErrorString(result));
  }
};

/// NCCL's data type for a runtime element type, or -1.
int ncclType(int32_t elementType) {
  switch (elementType) {
  case GP_RT_ELEMENT_I8:
    return 0; // ncclInt8
  case GP_RT_ELEMENT_U8:
    return 1; // ncclUint8
  case GP_RT_ELEMENT_I32:
    return 2; // ncclInt32
  case GP_RT_ELEMENT_I64:
    return 4; // ncclInt64
  case GP_RT_ELEMENT_F16:
    return 6; // ncclFloat16
  case GP_RT_ELEMENT_F32:
    return 7; // ncclFloat32
  case GP_RT_ELEMENT_F64:
    return 8; // ncclFloat64
  case GP_RT_ELEMENT_BF16:
    return 9; // ncclBfloat16
  case GP_RT_ELEMENT_F8E4M3FN:
    return 10; // ncclFloat8e4m3
  case GP_RT_ELEMENT_F8E5M2:
    return 11; // ncclFloat8e5m2
  default:
    return -1;
  }
}

} // namespace

/// Ranks that meet at each collective: ranks of one process (local), or
/// one rank's NCCL communicator.
struct gpRtCommunicator {
  int32_t worldSize = 1;
  /// NCCL: this rank's communicator, and its rank.
  void *nccl = nullptr;
  int32_t ncclRank = 0;
  std::mutex mutex;
  std::condition_variable changed;
  int32_t arrived = 0;
  uint64_t generation = 0;
  bool aborted = false;
  /// What each rank brought to the collective under way.
  struct Call {
    const void *source = nullptr;
    int32_t kind = 0, reduction = 0, elementType = 0;
    int64_t sourceElements = 0, targetElements = 0, root = 0;
  };
  std::vector<Call> calls;

  /// Waits until every rank has arrived; an error once aborted.
  gpRtStatus barrier(const char *what) {
    std::unique_lock<std::mutex> lock(mutex);
    if (aborted)
      return abortedError(what);
    uint64_t mine = generation;
    if (++arrived == worldSize) {
      arrived = 0;
      ++generation;
      changed.notify_all();
      return GP_RT_SUCCESS;
    }
    changed.wait(lock, [&] { return generation != mine || aborted; });
    if (generation == mine)
      return abortedError(what);
    return GP_RT_SUCCESS;
  }

  static gpRtStatus abortedError(const char *what) {
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) +
                    ": the communicator was aborted (another rank failed)");
  }
};

namespace {

enum CollectiveKind : int32_t {
  kAllReduce = 0,
  kAllGather = 1,
  kReduceScatter = 2,
  kBroadcast = 3,
};

const char *collectiveName(int32_t kind) {
  switch (kind) {
  case kAllReduce:
    return "gp.all_reduce";
  case kAllGather:
    return "gp.all_gather";
  case kReduceScatter:
    return "gp.reduce_scatter";
  default:
    return "gp.broadcast";
  }
}

/// A `T` stored as itself: ElementTypes.h's adaptors' shape, in `T`'s own
/// arithmetic.
template <typename T> struct PlainElement {
  using Value = T;
  static constexpr int64_t kBytes = sizeof(T);
  static T load(const char *p) {
    T value;
    std::memcpy(&value, p, sizeof value);
    return value;
  }
  static void store(char *p, T value) { std::memcpy(p, &value, sizeof value); }
};

/// A 16-bit float, combined in f32 and rounded once.
template <typename Half> struct WidenedHalf : Half {
  using Value = float;
  static constexpr int64_t kBytes = 2;
};

/// Combines elements `first` .. `first + count` of every source into `out`
/// (sum 0, max 1, min 2).
template <typename Element>
void reduceAs(int32_t reduction, const std::vector<const char *> &sources,
              int64_t first, int64_t count, char *out) {
  using V = typename Element::Value;
  for (int64_t i = 0; i < count; ++i) {
    int64_t at = (first + i) * Element::kBytes;
    V value = Element::load(sources[0] + at);
    for (size_t r = 1; r < sources.size(); ++r) {
      V other = Element::load(sources[r] + at);
      value = reduction == 0   ? V(value + other)
              : reduction == 1 ? (other > value ? other : value)
                               : (other < value ? other : value);
    }
    Element::store(out + i * Element::kBytes, value);
  }
}

gpRtStatus reduce(const char *what, int32_t type, int32_t reduction,
                  const std::vector<const char *> &sources, int64_t first,
                  int64_t count, char *out) {
  using Reduce = void (*)(int32_t, const std::vector<const char *> &, int64_t,
                          int64_t, char *);
  Reduce run = type == GP_RT_ELEMENT_F32    ? reduceAs<PlainElement<float>>
               : type == GP_RT_ELEMENT_F64  ? reduceAs<PlainElement<double>>
               : type == GP_RT_ELEMENT_F16  ? reduceAs<WidenedHalf<F16Element>>
               : type == GP_RT_ELEMENT_BF16 ? reduceAs<WidenedHalf<BF16Element>>
               : type == GP_RT_ELEMENT_I8   ? reduceAs<PlainElement<int8_t>>
               : type == GP_RT_ELEMENT_U8   ? reduceAs<PlainElement<uint8_t>>
               : type == GP_RT_ELEMENT_I32  ? reduceAs<PlainElement<int32_t>>
               : type == GP_RT_ELEMENT_I64  ? reduceAs<PlainElement<int64_t>>
                                            : Reduce(nullptr);
  if (!run)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": the host backend cannot combine " +
                    gpRtElementTypeName(gpRtElementType(type)) + " elements");
  run(reduction, sources, first, count, out);
  return GP_RT_SUCCESS;
}

/// One rank's part of a collective among the ranks of `communicator`.
gpRtStatus runLocal(gpRtCommunicator &communicator, int32_t rank,
                    const gpRtCommunicator::Call &call, void *target) {
  const char *what = collectiveName(call.kind);
  {
    std::lock_guard<std::mutex> lock(communicator.mutex);
    communicator.calls[rank] = call;
  }
  if (gpRtStatus status = communicator.barrier(what))
    return status;
  // Every rank sees the same calls, so every rank takes the same branch.
  std::vector<const char *> sources;
  for (const gpRtCommunicator::Call &other : communicator.calls) {
    if (other.kind != call.kind || other.reduction != call.reduction ||
        other.elementType != call.elementType ||
        other.sourceElements != call.sourceElements ||
        other.targetElements != call.targetElements || other.root != call.root)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  std::string(what) +
                      ": the ranks did not issue the same collective (each "
                      "must issue the same ones, of the same sizes, in the "
                      "same order)");
    sources.push_back(static_cast<const char *>(other.source));
  }
  int64_t bytes = elementTypeBytes(gpRtElementType(call.elementType));
  std::vector<char> result(call.targetElements * bytes);
  gpRtStatus status = GP_RT_SUCCESS;
  switch (call.kind) {
  case kAllReduce:
    status = reduce(what, call.elementType, call.reduction, sources, 0,
                    call.targetElements, result.data());
    break;
  case kReduceScatter:
    status =
        reduce(what, call.elementType, call.reduction, sources,
               rank * call.targetElements, call.targetElements, result.data());
    break;
  case kAllGather:
    for (size_t r = 0; r < sources.size(); ++r)
      std::memcpy(result.data() + r * call.sourceElements * bytes, sources[r],
                  call.sourceElements * bytes);
    break;
  default:
    std::memcpy(result.data(), sources[call.root], result.size());
  }
  // Every rank has read every source before any target is written.
  if (gpRtStatus waited = communicator.barrier(what))
    return waited;
  if (status)
    return status;
  std::memcpy(target, result.data(), result.size());
  return GP_RT_SUCCESS;
}

/// The recorded form of a host collective (replayed with the graph):
/// source and target (the result) as rank-1 descriptors, then the communicator,
/// the rank and the call's fields as i64 scalars.
gpRtStatus localCollectiveExtern(gpRtStream *, void **args,
                                 const gpRtExternArg *, int32_t) {
  auto element = [&](int i) {
    auto *buffer = static_cast<gpRtMemRef *>(args[i]);
    return static_cast<char *>(buffer->aligned);
  };
  auto scalar = [&](int i) { return *static_cast<int64_t *>(args[i]); };
  auto *communicator = reinterpret_cast<gpRtCommunicator *>(scalar(2));
  gpRtCommunicator::Call call;
  call.source = element(0);
  call.kind = int32_t(scalar(4));
  call.reduction = int32_t(scalar(5));
  call.elementType = int32_t(scalar(6));
  call.sourceElements = scalar(7);
  call.targetElements = scalar(8);
  call.root = scalar(9);
  return runLocal(*communicator, int32_t(scalar(3)), call, element(1));
}

/// A collective on `stream` through the rank's NCCL communicator (captured
/// with the partition when it is being captured).
gpRtStatus ncclCollective(gpRtProgram *program, gpRtStream *stream,
                          gpRtCommunicator &communicator, int32_t kind,
                          int32_t reduction, void *target, const void *source,
                          int64_t sourceElements, int64_t targetElements,
                          int32_t elementType, int64_t root) {
  const char *what = collectiveName(kind);
  if (program->backend != GP_RT_BACKEND_CUDA)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": an NCCL communicator on the host "
                                    "backend");
  const NcclLibrary *nccl = nullptr;
  if (gpRtStatus status = NcclLibrary::get(nccl))
    return status;
  int type = ncclType(elementType);
  if (type < 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": NCCL cannot carry " +
                    gpRtElementTypeName(gpRtElementType(elementType)) +
                    " elements");
  // nccl.h's ncclSum, ncclMax, ncclMin.
  int op = reduction == 0 ? 0 : reduction == 1 ? 2 : 3;
  void *cuStream = streamCudaHandle(stream);
  std::string call = std::string(what) + " (NCCL)";
  switch (kind) {
  case kAllReduce:
    return nccl->check(nccl->allReduce(source, target, targetElements, type, op,
                                       communicator.nccl, cuStream),
                       call);
  case kAllGather:
    return nccl->check(nccl->allGather(source, target, sourceElements, type,
                                       communicator.nccl, cuStream),
                       call);
  case kReduceScatter:
    return nccl->check(nccl->reduceScatter(source, target, targetElements, type,
                                           op, communicator.nccl, cuStream),
                       call);
  default:
    return nccl->check(nccl->broadcast(source, target, targetElements, type,
                                       static_cast<int>(root),
                                       communicator.nccl, cuStream),
                       call);
  }
}

/// A rank-1 memref descriptor over `count` elements at `data`.
struct Descriptor1 {
  void *allocated, *aligned;
  int64_t offset, size, stride;
};

} // namespace

extern "C" {

GP_RT_EXPORT gpRtStatus gpRtCommunicatorCreateLocal(
    int32_t worldSize, gpRtCommunicator **communicator) {
  if (!communicator || worldSize < 1)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtCommunicatorCreateLocal: null result or a world size "
                "below 1 (" +
                    std::to_string(worldSize) + ")");
  return guarded("gpRtCommunicatorCreateLocal", [&] {
    auto *created = new gpRtCommunicator;
    created->worldSize = worldSize;
    created->calls.resize(worldSize);
    *communicator = created;
    return GP_RT_SUCCESS;
  });
}

GP_RT_EXPORT gpRtStatus gpRtCommunicatorAbort(gpRtCommunicator *communicator) {
  if (!communicator)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtCommunicatorAbort: null");
  if (communicator->nccl) {
    const NcclLibrary *nccl = nullptr;
    if (gpRtStatus status = NcclLibrary::get(nccl))
      return status;
    gpRtStatus status =
        nccl->check(nccl->commAbort(communicator->nccl), "ncclCommAbort");
    communicator->nccl = nullptr; // An aborted communicator is freed.
    return status;
  }
  std::lock_guard<std::mutex> lock(communicator->mutex);
  communicator->aborted = true;
  communicator->changed.notify_all();
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus
gpRtCommunicatorDestroy(gpRtCommunicator *communicator) {
  gpRtStatus status = GP_RT_SUCCESS;
  if (communicator && communicator->nccl) {
    const NcclLibrary *nccl = nullptr;
    status = NcclLibrary::get(nccl);
    if (!status)
      status =
          nccl->check(nccl->commDestroy(communicator->nccl), "ncclCommDestroy");
  }
  delete communicator;
  return status;
}

GP_RT_EXPORT gpRtStatus gpRtNcclUniqueId(uint8_t id[128]) {
  if (!id)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtNcclUniqueId: null");
  const NcclLibrary *nccl = nullptr;
  if (gpRtStatus status = NcclLibrary::get(nccl))
    return status;
  NcclLibrary::UniqueId unique;
  if (gpRtStatus status =
          nccl->check(nccl->getUniqueId(&unique), "ncclGetUniqueId"))
    return status;
  std::memcpy(id, unique.internal, sizeof(unique.internal));
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtArtifactJoinNccl(gpRtArtifact *artifact,
                                             const uint8_t id[128],
                                             int32_t worldSize, int32_t rank,
                                             gpRtCommunicator **communicator) {
  const char *what = "gpRtArtifactJoinNccl";
  if (gpRtStatus status = checkHandle(artifact, what))
    return status;
  if (!artifact || !artifact->program || !id || !communicator ||
      worldSize < 1 || rank < 0 || rank >= worldSize)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": null, an inspected artifact, or rank " +
                    std::to_string(rank) + " of a run of " +
                    std::to_string(worldSize));
  gpRtProgram *program = artifact->program;
  if (program->backend != GP_RT_BACKEND_CUDA)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": the program runs on the host backend "
                                    "(gpRtCommunicatorCreateLocal joins host "
                                    "ranks)");
  const NcclLibrary *nccl = nullptr;
  if (gpRtStatus status = NcclLibrary::get(nccl))
    return status;
  // NCCL makes the communicator on the calling thread's current device:
  // the program's.
  if (gpRtStatus status = program->driver->check(
          program->driver->cuCtxSetCurrent(program->cuContext),
          "cuCtxSetCurrent"))
    return status;
  NcclLibrary::UniqueId unique;
  std::memcpy(unique.internal, id, sizeof(unique.internal));
  void *comm = nullptr;
  if (gpRtStatus status =
          nccl->check(nccl->commInitRank(&comm, worldSize, unique, rank),
                      "ncclCommInitRank"))
    return status;
  auto *created = new gpRtCommunicator;
  created->worldSize = worldSize;
  created->nccl = comm;
  created->ncclRank = rank;
  program->communicator = created;
  program->rank = rank;
  *communicator = created;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramSetCommunicator(
    gpRtProgram *program, gpRtCommunicator *communicator, int32_t rank) {
  const char *what = "gpRtProgramSetCommunicator";
  if (!program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, std::string(what) + ": null");
  int32_t world = communicator ? communicator->worldSize : 1;
  if (rank < 0 || rank >= world)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": rank " + std::to_string(rank) +
                    " of a run of " + std::to_string(world));
  if (communicator && communicator->nccl)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": an NCCL communicator belongs to the "
                                    "artifact that joined it "
                                    "(gpRtArtifactJoinNccl)");
  if (communicator && world > 1 && program->backend != GP_RT_BACKEND_HOST)
    return fail(GP_RT_ERROR_UNAVAILABLE,
                std::string(what) +
                    ": ranks on the cuda backend meet through NCCL "
                    "(gpRtArtifactJoinNccl); a local communicator joins "
                    "host ranks");
  program->communicator = communicator;
  program->rank = rank;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtArtifactSetCommunicator(
    gpRtArtifact *artifact, gpRtCommunicator *communicator, int32_t rank) {
  const char *what = "gpRtArtifactSetCommunicator";
  if (gpRtStatus status = checkHandle(artifact, what))
    return status;
  if (!artifact || !artifact->program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": null, or an artifact opened with "
                                    "gpRtArtifactInspect (no program)");
  return gpRtProgramSetCommunicator(artifact->program, communicator, rank);
}

GP_RT_EXPORT gpRtStatus gpRtProgramRank(gpRtProgram *program, int64_t *rank) {
  if (!program || !rank)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtProgramRank: null");
  *rank = program->rank;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramWorldSize(gpRtProgram *program,
                                             int64_t *size) {
  if (!program || !size)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtProgramWorldSize: null");
  *size = program->communicator ? program->communicator->worldSize : 1;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtCollective(gpRtProgram *program, gpRtStream *stream,
                                       int32_t kind, int32_t reduction,
                                       void *target, const void *source,
                                       int64_t sourceElements,
                                       int64_t targetElements,
                                       int32_t elementType, int64_t root) {
  if (!program || !stream || kind < kAllReduce || kind > kBroadcast ||
      reduction < 0 || reduction > 2 || sourceElements < 0 ||
      targetElements < 0 || root < 0 ||
      (targetElements > 0 && (!target || !source)))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtCollective: null program, stream or buffer, or an "
                "unknown kind or reduction");
  const char *what = collectiveName(kind);
  int64_t bytes = elementTypeBytes(gpRtElementType(elementType));
  if (bytes <= 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, std::string(what) +
                                                  ": unknown element type " +
                                                  std::to_string(elementType));
  gpRtCommunicator *communicator = program->communicator;
  int64_t world = communicator ? communicator->worldSize : 1;
  // The sizes the ranks imply: the verifier checked what was static.
  int64_t wanted = kind == kAllGather       ? sourceElements * world
                   : kind == kReduceScatter ? sourceElements / world
                                            : sourceElements;
  if (targetElements != wanted ||
      (kind == kReduceScatter && sourceElements % world != 0))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": " + std::to_string(world) +
                    " rank(s) with a source of " +
                    std::to_string(sourceElements) +
                    " elements need a target of " + std::to_string(wanted) +
                    ", got " + std::to_string(targetElements));
  if (kind == kBroadcast && root >= world)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": root " + std::to_string(root) +
                    " is not a rank of a run of " + std::to_string(world));
  if (communicator && communicator->nccl)
    return ncclCollective(program, stream, *communicator, kind, reduction,
                          target, source, sourceElements, targetElements,
                          elementType, root);
  if (world == 1) {
    // Alone: the result is the source.
    if (target == source || targetElements == 0)
      return GP_RT_SUCCESS;
    return gpRtCopy(stream, target, source, targetElements * bytes,
                    GP_RT_COPY_PROGRAM_TO_PROGRAM);
  }
  if (program->backend != GP_RT_BACKEND_HOST)
    return fail(GP_RT_ERROR_UNAVAILABLE,
                std::string(what) +
                    ": ranks on the cuda backend meet through NCCL "
                    "(gpRtArtifactJoinNccl)");
  gpRtCommunicator::Call call;
  call.source = source;
  call.kind = kind;
  call.reduction = reduction;
  call.elementType = elementType;
  call.sourceElements = sourceElements;
  call.targetElements = targetElements;
  call.root = root;
  if (!streamIsCapturing(stream))
    return runLocal(*communicator, program->rank, call, target);
  Descriptor1 targetBuffer{target, target, 0, targetElements, 1};
  Descriptor1 sourceBuffer{const_cast<void *>(source),
                           const_cast<void *>(source), 0, sourceElements, 1};
  int64_t scalars[] = {reinterpret_cast<int64_t>(communicator),
                       program->rank,
                       kind,
                       reduction,
                       elementType,
                       sourceElements,
                       targetElements,
                       root};
  void *args[10] = {&sourceBuffer, &targetBuffer};
  gpRtExternArg info[10];
  for (int i = 0; i < 2; ++i)
    info[i] = {GP_RT_MEMREF_BYTES(1), GP_RT_EXTERN_ARG_BUFFER, elementType, 1,
               /*isResult=*/i == 1};
  for (int i = 0; i < 8; ++i) {
    args[2 + i] = &scalars[i];
    info[2 + i] = {8, GP_RT_EXTERN_ARG_SCALAR, GP_RT_ELEMENT_I64, 0, 0};
  }
  return recordHostExtern(stream, localCollectiveExtern, args, info, 10);
}

} // extern "C"
