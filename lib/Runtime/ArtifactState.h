//===- ArtifactState.h - a loaded artifact ----------------------*- C++ -*-===//

#ifndef GRAPHPART_LIB_RUNTIME_ARTIFACTSTATE_H
#define GRAPHPART_LIB_RUNTIME_ARTIFACTSTATE_H

#include "GraphPart/Runtime/GPRuntime.h"
#include "RuntimeInternal.h"

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

struct gpRtArtifact;

namespace gp::rt {

/// An argument or result of an entry, from the manifest.
struct Value {
  bool isBuffer = false;
  /// A buffer whose type takes any strides; others must be row-major.
  bool strided = false;
  std::string elementType, device;
  std::vector<int64_t> shape;
};
struct Entry {
  std::string name;
  std::vector<Value> args, results;
  std::vector<gpRtValueInfo> argInfos, resultInfos;
  gpRtStatus (*function)(gpRtProgram *, void **, void **) = nullptr;
};

/// A buffer result's storage handed out in the overwrite debug mode: a
/// copy made for one call, poisoned when the next call of the entry on the
/// same thread would have overwritten the original.
struct TrackedResult {
  void *storage = nullptr;
  int64_t bytes = 0;
  bool onDevice = false;
  int32_t entry = 0, result = 0;
  int64_t call = 0;
  int64_t overwrittenBy = 0; // 0 while current
  std::thread::id thread;
};

/// Per artifact: call counts per thread and entry, and in the debug mode
/// the tracked results (the most recent kMaxTracked are kept, so their
/// addresses are not reused while a caller may still hold them).
struct ResultTracker {
  static constexpr size_t kMaxTracked = 256;
  std::mutex mutex;
  bool debugOverwrite = false;
  std::map<std::pair<std::thread::id, int32_t>, int64_t> calls;
  std::deque<TrackedResult> tracked;
};

/// Calls entry `index` of `artifact` on the calling thread (arguments
/// checked by the caller), counting the call, with the overwrite debug mode
/// around it when it is on.
gpRtStatus callEntry(gpRtArtifact &artifact, int32_t index, void **args,
                     void **results);

/// Frees a tracked result's storage.
void releaseTracked(gpRtProgram *program, TrackedResult &tracked);

/// Bytes of one element of a manifest element type ("f32", "bf16", "i1",
/// "index", "f8E4M3FN", ...); 0 when unknown or narrower than a byte.
int64_t elementTypeBytes(const std::string &name);

} // namespace gp::rt

namespace gp::rt {
/// Reads an artifact's manifest into `artifact` and creates its program on
/// `backend` (`path` names the artifact in messages). What
/// gpRtArtifactLoad does once the library is open; apart for fuzzing.
gpRtStatus loadManifest(gpRtArtifact &artifact, const char *manifest,
                        gpRtBackend backend, int32_t device, const char *path);
} // namespace gp::rt

struct gpRtArtifact {
  void *library = nullptr;
  std::string target;
  int64_t arenaBytes = 0, hostArenaBytes = 0;
  int32_t generators = 0;
  uint64_t seed = 0;
  int32_t device = 0;
  int32_t warmupRuns = 1;
  std::string captureSizes;
  int32_t shapeWarningLimit = 8;
  bool orError = false;
  int32_t graphCacheCapacity = 64;
  std::vector<gpRtPartitionInfo> partitions;
  std::vector<std::string> reasons;
  std::vector<gp::rt::Entry> entries;
  /// What the program's IR states of each extern it calls.
  std::vector<gp::rt::ExternStatement> externs;
  gpRtProgram *program = nullptr;
  /// What callers keep of results (copy-out, the overwrite debug mode).
  gp::rt::ResultTracker results;

  ~gpRtArtifact() {
    for (gp::rt::TrackedResult &tracked : results.tracked)
      gp::rt::releaseTracked(program, tracked);
    if (program)
      gpRtProgramDestroy(program);
    if (library)
      dlclose(library);
  }
};

#endif // GRAPHPART_LIB_RUNTIME_ARTIFACTSTATE_H
