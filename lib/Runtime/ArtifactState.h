//===- ArtifactState.h - a loaded artifact ----------------------*- C++ -*-===//

#ifndef GRAPHPART_LIB_RUNTIME_ARTIFACTSTATE_H
#define GRAPHPART_LIB_RUNTIME_ARTIFACTSTATE_H

#include "GraphPart/Runtime/CaptureSizes.h"
#include "GraphPart/Runtime/GPRuntime.h"
#include "RuntimeInternal.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
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
/// One dimension (or index value) of a size class: a buffer argument's
/// dimension `dim`, index argument `index` itself, a buffer result's
/// dimension `dim`, or index result `index` itself.
struct SizeMember {
  enum Kind : uint8_t { ArgumentDim, IndexArgument, ResultDim, IndexResult };
  bool isResult() const { return kind == ResultDim || kind == IndexResult; }
  Kind kind = ArgumentDim;
  int32_t index = 0;
  int32_t dim = 0;
};

/// A size class (the manifest's `size` line): dynamic dimensions the
/// program uses as one size, which every call must give equal (and equal
/// to `fixed` when the program fixes it), and whether padding along it is
/// safe: every element along it is computed independently, so a call on
/// inputs padded along it, its results sliced back, gives the same values.
struct SizeClass {
  std::string name;
  int64_t fixed = -1; // -1: not fixed (`?`)
  /// Argument members first (in manifest order), then result members.
  std::vector<SizeMember> members;
  int32_t numArgumentMembers = 0;
  bool paddable = false;
  /// The largest size the entry accepts (`pad <max>`, a symint's declared
  /// bound), or -1: calls are not padded past it.
  int64_t maximum = -1;
  /// Why not (`nopad <reason>`), else "".
  std::string reason;
  /// The manifest line, for messages about it once the entry is read.
  std::string line;

  /// Whether calls may be padded along it.
  bool pads() const { return paddable && fixed < 0; }
};

struct Entry {
  std::string name;
  std::vector<Value> args, results;
  /// The size classes, and gpRtArtifactDescribeSizes' text for them.
  std::vector<SizeClass> sizes;
  std::string sizesText;
  /// Whether any class pads (SizeClass::pads).
  bool pads = false;
  std::vector<gpRtValueInfo> argInfos, resultInfos;
  /// Per argument, the index of the parameter it is in the artifact's
  /// table, or -1.
  std::vector<int32_t> argParameters;
  /// Whether any argument is a parameter, and whether every one is (a
  /// call then needs no argument array).
  bool takesParameters = false;
  bool onlyParameters = true;
  /// The arguments that are not parameters, in order: all a call checks
  /// when it passes no parameter of its own.
  std::vector<int32_t> userArgs;
  /// The run-time index checks (the manifest's `check <n> <text>` lines):
  /// check n's description at n - 1.
  std::vector<std::string> checks;
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
  /// Bound by the runtime itself at load (the index-error flag): callers
  /// may not bind it, and a call always passes the runtime's binding.
  bool runtimeOwned = false;
};

/// One entry's argument array as a set of bindings fills it: each
/// parameter slot points at its bound descriptor (null while unbound),
/// other slots are null; `kinds` says per slot what a caller's pointer
/// there does.
struct BoundArguments {
  enum Kind : uint8_t {
    User,      // Not a parameter: the caller's pointer.
    Parameter, // The caller's pointer when not null, else the binding.
    Runtime,   // The runtime's own state: always the binding.
  };
  std::vector<void *> slots;
  std::vector<uint8_t> kinds;
  /// All bits set for a Parameter slot, else 0: a call finds whether the
  /// caller passed any parameter itself with one AND-OR pass.
  std::vector<uintptr_t> parameterMask;
  /// Every parameter of the entry is bound.
  bool complete = true;
};

/// What the parameters are bound to: per parameter, the caller's
/// descriptor (gpRtMemRef words: allocated, aligned, offset, sizes,
/// strides), or null while unbound. Never changed once published: a
/// binding makes a new set, so a call holding one sees all of it.
struct ParameterBindings {
  std::vector<std::shared_ptr<const std::vector<int64_t>>> descriptors;
  /// Per entry, its argument array as this set fills it: made by the
  /// first call of the entry that holds the set (resolveParameters), so a
  /// call copies one array instead of looking each parameter up, and
  /// binding stays linear in the parameters however many entries there
  /// are.
  std::unique_ptr<std::atomic<const BoundArguments *>[]> entryArgs;
  size_t numEntries = 0;

  ParameterBindings() = default;
  ParameterBindings(const ParameterBindings &) = delete;
  ParameterBindings &operator=(const ParameterBindings &) = delete;
  ~ParameterBindings() {
    for (size_t e = 0; e < numEntries; ++e)
      delete entryArgs[e].load(std::memory_order_relaxed);
  }
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
/// `bindings` for the call). `args` is scratch memory of the calling
/// thread, one array per call in progress on it (an extern may call
/// another entry), reused by later calls: no allocation per call.
struct ResolvedArguments {
  std::shared_ptr<const ParameterBindings> bindings;
  /// The entry's argument array as `bindings` fills it.
  const BoundArguments *bound = nullptr;
  void **args = nullptr;
  /// The caller passed a pointer of its own for some parameter: checked
  /// like any argument, where bound descriptors were checked when bound.
  bool overridden = false;
  bool leased = false; // Holds a scratch array of the thread.

  ResolvedArguments() = default;
  ResolvedArguments(const ResolvedArguments &) = delete;
  ResolvedArguments &operator=(const ResolvedArguments &) = delete;
  ~ResolvedArguments();
};

/// Reads the manifest `text` (Manifest.cpp) into `artifact`: its entries,
/// partitions, externs, policy defaults, size classes, index checks and
/// initial values; fails naming the bad line.
gpRtStatus parseManifest(gpRtArtifact &artifact, const char *text);

/// Builds the parameter table from the entries' arguments (after the
/// manifest is read): fails, naming the parameter, when a name appears
/// twice in one entry or entries disagree on its element type, shape or
/// device.
gpRtStatus collectParameters(gpRtArtifact &artifact);

/// Resolves the parameter slots of a call of entry `index`: fails, naming
/// the parameter, on a null slot of an unbound one.
gpRtStatus resolveParameters(gpRtArtifact &artifact, int32_t index, void **args,
                             ResolvedArguments &resolved);

/// Binds parameter `index` to `words` (a descriptor the runtime made) and
/// marks it runtime-owned, without the checks a caller's binding gets.
void bindRuntimeParameter(gpRtArtifact &artifact, int32_t index,
                          std::vector<int64_t> words);

/// The index-error flag of a converted program (IndexErrors.cpp): the
/// parameter `graphpart.index_errors`, one int64 that the program's index
/// checks write the number of a failed check into. The runtime allocates
/// it (host memory; on cuda, page-locked host memory mapped for the
/// device, so reading it needs no copy and no synchronization) and binds
/// it at load.
struct IndexErrorFlag {
  volatile int64_t *host = nullptr; // null: the program has no checks
  bool pinned = false;              // cuMemHostAlloc'd (else new'd)
  /// The entry called last, whose checks name a code seen before a call.
  std::atomic<int32_t> lastEntry{0};
};

/// State with an initial value the artifact carries (the manifest's
/// `initial <name> <hex>` lines: a torch-mlir global such as its RNG
/// seed), which the runtime allocates, fills and binds at load.
struct InitialValue {
  std::string name;
  std::string bytes;
  void *memory = nullptr; // In the program's memory, once allocated.
};
/// Allocates, fills and binds every parameter with an initial value.
gpRtStatus setUpInitialValues(gpRtArtifact &artifact);
void releaseInitialValues(gpRtArtifact &artifact);

/// Allocates and binds the flag when the program takes one.
gpRtStatus setUpIndexErrors(gpRtArtifact &artifact);
/// Fails, naming the op whose check failed, when the flag is set (and
/// clears it); `during` says whether the call of `entry` just ran (the
/// host backend, or a cuda call whose work is done) or it is about to run
/// (a cuda check, seeing what earlier calls left).
gpRtStatus checkIndexErrors(gpRtArtifact &artifact, int32_t entry,
                            const char *what, bool during);
void releaseIndexErrors(gpRtArtifact &artifact);

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

/// A runtime-owned buffer a padded argument is copied into: device memory
/// for a cuda program's device buffers, host memory otherwise.
struct StagingBuffer {
  void *data = nullptr;
  int64_t bytes = 0;
  bool onDevice = false;
  /// How many leading bytes a padded fill has written since it was
  /// allocated: only the caller's elements and copies of them, so every
  /// element there is one an earlier call passed.
  int64_t written = 0;
};

/// What one thread holds to pad the calls of one entry, reused by each of
/// them: a call allocates nothing once the buffers are large enough, and
/// the buffers keep their addresses, so graphs that hold them replay
/// without re-binding.
struct PaddedCall {
  /// The arguments the entry runs on: the caller's, with each padded
  /// buffer's slot pointing at its descriptor in `descriptors` and each
  /// padded index at its value in `indexValues`.
  std::vector<void *> args;
  /// Per argument: gpRtMemRef words, the padded sizes, the staging buffer.
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<std::vector<int64_t>> sizes;
  std::vector<StagingBuffer> staging;
  std::vector<int64_t> indexValues;
  /// Per size class of the entry: the size a call had before it was padded
  /// (its results are sliced back to it), or -1 when it was not padded.
  std::vector<int64_t> from;
  /// Scratch for the copies (dimension counters).
  std::vector<int64_t> counter;
};

/// An artifact's padding to the capture sizes (Padding.cpp).
struct PaddingState {
  /// Off with GP_PAD_TO_CAPTURE_SIZES=0 or gpRtArtifactSetPadding(0).
  std::atomic<bool> enabled{true};
  std::mutex mutex; // Guards `calls` (the table, not each call's) and
                    // `warned`.
  std::map<std::pair<std::thread::id, int32_t>, std::unique_ptr<PaddedCall>>
      calls;
  /// (entry, size class c, -1 for a layout, or -2 - c for a size whose
  /// next capture size is past its maximum) already warned about.
  std::set<std::pair<int32_t, int32_t>> warned;
};

/// Reads a manifest `size` line (after the key) into `size`: fails,
/// quoting `text`, when it is malformed.
gpRtStatus parseSizeLine(std::istringstream &line, const std::string &text,
                         SizeClass &size);

/// Checks `entry`'s size classes against its arguments and results (each
/// member a dynamic dimension of a buffer, or an index argument; no
/// dimension in two classes; names unique; at least one argument member)
/// and orders each one's members, arguments first; writes the entry's
/// description. Fails quoting the line.
gpRtStatus finishSizes(Entry &entry);

/// Fails, naming both members and the size, when a call's arguments
/// disagree on one of the entry's size classes or miss a fixed one. No
/// allocation unless it fails.
gpRtStatus checkSizes(const Entry &entry, void *const *args);

/// The value of argument member `member` in a call (checked by the
/// argument checks): a buffer's dimension or an index argument.
int64_t memberValue(void *const *args, const SizeMember &member);

/// Pads a call of entry `index` (arguments checked) to the capture sizes
/// where its size classes allow: `padded` is the padded call, or null when
/// the call runs at its own sizes.
gpRtStatus padArguments(gpRtArtifact &artifact, int32_t index, void **args,
                        PaddedCall *&padded);

/// Slices a padded call's results back: every result member of a padded
/// class gets the size the call had.
void unpadResults(const Entry &entry, const PaddedCall &padded, void **results);

/// Frees the staging buffers (at unload, before the program goes).
void releaseStaging(gpRtArtifact &artifact);

/// Calls entry `index` of `artifact` on the calling thread (arguments
/// checked by the caller), counting the call, with the overwrite debug mode
/// around it when it is on.
gpRtStatus callEntry(gpRtArtifact &artifact, int32_t index, void **args,
                     void **results);

/// The lengths of a call's arrays, when the caller says them (the Checked
/// entry points); gpRtArtifactCall takes the entry's own on trust.
struct CallCounts {
  int32_t numArgs, numResults;
};

/// A call of entry `index` behind the C ABI (`what` names the entry point
/// in messages): checks the artifact, the entry, the arrays (against
/// `counts` when given) and the result pointers, then calls it on the
/// calling thread or, when `onStream` on a cuda program, ordered on the
/// caller's CUDA stream `cudaStream` (which must be NULL otherwise).
gpRtStatus runCall(const char *what, gpRtArtifact *artifact, int32_t index,
                   void **args, void **results,
                   std::optional<CallCounts> counts, bool onStream,
                   void *cudaStream);

/// Frees a tracked result's storage.
void releaseTracked(gpRtProgram *program, TrackedResult &tracked);

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
  gp::CaptureSizes captureSizes; // Empty: none compiled in.
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
  /// Calls padded to the capture sizes (staging buffers per thread).
  gp::rt::PaddingState padding;
  /// A converted program's index-error flag (IndexErrors.cpp).
  gp::rt::IndexErrorFlag indexErrors;
  /// State with initial values (InitialValues.cpp).
  std::vector<gp::rt::InitialValue> initialValues;

  ~gpRtArtifact() {
    gp::rt::releaseInitialValues(*this);
    gp::rt::releaseIndexErrors(*this);
    gp::rt::releaseStaging(*this);
    for (gp::rt::TrackedResult &tracked : results.tracked)
      gp::rt::releaseTracked(program, tracked);
    if (program)
      gpRtProgramDestroy(program);
    if (library)
      dlclose(library);
  }
};

#endif // GRAPHPART_LIB_RUNTIME_ARTIFACTSTATE_H
