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
  /// The name of the parameter the argument is (`parameter <name>`), or "".
  std::string parameter;
};
struct Entry {
  std::string name;
  std::vector<Value> args, results;
  std::vector<gpRtValueInfo> argInfos, resultInfos;
  /// Per argument, the index of the parameter it is in the artifact's
  /// table, or -1.
  std::vector<int32_t> argParameters;
  /// Whether any argument is a parameter.
  bool takesParameters = false;
  gpRtStatus (*function)(gpRtProgram *, void **, void **) = nullptr;
};

/// A named parameter of the program (Parameters.cpp): what every entry
/// taking it agrees on.
struct Parameter {
  std::string name, elementType, device;
  std::vector<int64_t> shape;
  /// Some entry takes it row-major (not `strided`): bindings must be.
  bool rowMajor = false;
  /// Where it first appears ("entry 'f' argument 2"), for messages.
  std::string firstUse;
};

/// What the parameters are bound to: per parameter, the caller's
/// descriptor (gpRtMemRef words: allocated, aligned, offset, sizes,
/// strides), or null while unbound. Never changed once published: a
/// binding makes a new set, so a call holding one sees all of it.
struct ParameterBindings {
  std::vector<std::shared_ptr<const std::vector<int64_t>>> descriptors;
};

/// The program's parameters and their current bindings.
struct ParameterTable {
  std::vector<Parameter> parameters;
  std::map<std::string, int32_t> byName;
  std::mutex mutex; // Guards `bindings` (the pointer, not what it holds).
  std::shared_ptr<const ParameterBindings> bindings;

  std::shared_ptr<const ParameterBindings> current() {
    std::lock_guard<std::mutex> lock(mutex);
    return bindings;
  }
};

/// The arguments of one call with parameters resolved: the caller's, with
/// each null parameter slot pointing at its bound descriptor (kept alive by
/// `bindings` for the call).
struct ResolvedArguments {
  std::shared_ptr<const ParameterBindings> bindings;
  std::vector<void *> args;
  /// Per argument, 1 when it is a bound descriptor (checked when bound).
  std::vector<uint8_t> fromBinding;
};

/// Builds the parameter table from the entries' arguments (after the
/// manifest is read): fails, naming the parameter, when a name appears
/// twice in one entry or entries disagree on its element type, shape or
/// device.
gpRtStatus collectParameters(gpRtArtifact &artifact);

/// Resolves the parameter slots of a call of `entry`: fails, naming the
/// parameter, on a null slot of an unbound one.
gpRtStatus resolveParameters(gpRtArtifact &artifact, const Entry &entry,
                             void **args, ResolvedArguments &resolved);

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
  /// The named parameters (`parameter <name>` arguments) and their bindings.
  gp::rt::ParameterTable parameters;

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
