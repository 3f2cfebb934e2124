//===- Artifact.cpp - load compiled programs ------------------------------===//
//
// An artifact is a shared object made by gp-compile: entry points
// `gp_entry_<name>`, partition bodies, kernels (host functions, or cubins
// held as constants), and `gp_manifest`, its description (read by
// Manifest.cpp). Loading makes the program the manifest describes, with its
// policy defaults; calls check their arguments and run an entry, ordered
// on a caller's CUDA stream where asked.
//
//===----------------------------------------------------------------------===//

#include "ArtifactState.h"
#include "Handles.h"
#include "Policy.h"
#include "ProgramState.h"
#include "RuntimeInternal.h"

#include "GraphPart/Runtime/ManifestSchema.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

using namespace gp::rt;

/// The policy defaults compiled into the artifact, where the environment
/// does not say otherwise (gpRtProgramCreate read it).
static gpRtStatus applyPolicy(gpRtArtifact &artifact) {
  gpRtProgram *program = artifact.program;
  const Policy &environment = program->policy;
  if (gpRtStatus status =
          gpRtProgramSetWarmupRuns(program, artifact.warmupRuns))
    return status;
  if (!artifact.captureSizes.empty() &&
      !environment.captureSizesFromEnvironment) {
    const gp::CaptureSizes &sizes = artifact.captureSizes;
    if (gpRtStatus status = gpRtProgramSetCaptureSizes(
            program, sizes.sizes.data(), sizes.numKeys(), sizes.keyLength))
      return status;
  }
  if (!environment.shapeWarningLimitFromEnvironment)
    if (gpRtStatus status = gpRtProgramSetShapeWarningLimit(
            program, artifact.shapeWarningLimit))
      return status;
  if (!environment.graphCacheCapacityFromEnvironment)
    if (gpRtStatus status = gpRtProgramSetGraphCacheCapacity(
            program, artifact.graphCacheCapacity))
      return status;
  if (!environment.orErrorFromEnvironment)
    if (gpRtStatus status =
            gpRtProgramSetOrError(program, artifact.orError ? 1 : 0))
      return status;
  return GP_RT_SUCCESS;
}

/// Checks that `path` is a whole 64-bit ELF file before dlopen maps it: a
/// truncated file would fault (SIGBUS) when the loader touches the pages
/// that are not there.
static gpRtStatus checkElf(const char *path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("cannot load artifact '") + path +
                    "': cannot open it");
  uint64_t size = static_cast<uint64_t>(file.tellg());
  unsigned char header[64];
  file.seekg(0);
  auto bad = [&](const std::string &why) {
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("cannot load artifact '") + path + "': " + why);
  };
  if (size < sizeof(header) ||
      !file.read(reinterpret_cast<char *>(header), sizeof(header)))
    return bad("not an ELF shared object (too short)");
  if (std::memcmp(header,
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      header[4] != 2)
    return bad("not a 64-bit ELF shared object");
  auto read = [&](const unsigned char *at, int bytes) {
    uint64_t value = 0;
    std::memcpy(&value, at, bytes); // Little-endian, as the loader's.
    return value;
  };
  // Whether [offset, offset + count * each) lies inside the file.
  auto inside = [&](uint64_t offset, uint64_t count, uint64_t each) {
    return offset <= size && (each == 0 || count <= (size - offset) / each);
  };
  uint64_t phoff = read(header + 32, 8), shoff = read(header + 40, 8);
  uint64_t phentsize = read(header + 54, 2), phnum = read(header + 56, 2);
  uint64_t shentsize = read(header + 58, 2), shnum = read(header + 60, 2);
  if (!inside(phoff, phnum, phentsize) || !inside(shoff, shnum, shentsize) ||
      phentsize < 56)
    return bad("truncated (its headers reach past the end of the file)");
  for (uint64_t i = 0; i < phnum; ++i) {
    unsigned char entry[56];
    file.seekg(phoff + i * phentsize);
    if (!file.read(reinterpret_cast<char *>(entry), sizeof(entry)))
      return bad("truncated (a program header cannot be read)");
    uint64_t offset = read(entry + 8, 8), fileSize = read(entry + 32, 8);
    if (!inside(offset, fileSize, 1))
      return bad("truncated (a segment reaches past the end of the file)");
  }
  return GP_RT_SUCCESS;
}

gpRtStatus gp::rt::loadManifest(gpRtArtifact &artifact, const char *manifest,
                                gpRtBackend backend, int32_t device,
                                const char *path) {
  if (gpRtStatus status = parseManifest(artifact, manifest))
    return status;
  bool cudaArtifact = artifact.target == ::gp::manifest::kTargetCuda;
  if (cudaArtifact != (backend == GP_RT_BACKEND_CUDA))
    return fail(
        GP_RT_ERROR_INVALID_ARGUMENT,
        std::string("artifact '") + path + "' was compiled for " +
            artifact.target + " and cannot run on the " +
            gpRtBackendName(backend) +
            " backend (compile with target=" + gpRtBackendName(backend) + ")");
  std::string name = artifact.entries.empty() ? std::string("program")
                                              : artifact.entries.front().name;
  gpRtProgramInfo info{name.c_str(),
                       static_cast<int32_t>(artifact.partitions.size()),
                       artifact.partitions.data(),
                       artifact.arenaBytes,
                       artifact.generators,
                       artifact.seed,
                       artifact.hostArenaBytes};
  for (const ExternStatement &statement : artifact.externs)
    if (gpRtStatus status = checkExternStatement(statement))
      return fail(status, std::string("cannot load artifact '") + path +
                              "': " + gpRtGetLastError());
  if (device < 0)
    device = artifact.device;
  if (gpRtStatus status =
          gpRtProgramCreate(&info, backend, device, &artifact.program))
    return status;
  if (gpRtStatus status = applyPolicy(artifact))
    return status;
  if (gpRtStatus status = setUpIndexErrors(artifact))
    return status;
  return setUpInitialValues(artifact);
}

/// Opens the artifact at `path`; with `backend` null, for its manifest
/// only (no program is created).
static gpRtStatus loadArtifact(const char *path,
                               std::optional<gpRtBackend> backend,
                               int32_t device, gpRtArtifact **result) {
  if (!path || !result)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                backend ? "gpRtArtifactLoad: null"
                        : "gpRtArtifactInspect: null");
  if (gpRtStatus status = checkElf(path))
    return status;
  auto artifact = std::make_unique<gpRtArtifact>();
  // RTLD_LOCAL: several artifacts may be loaded at once.
  artifact->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!artifact->library)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("cannot load artifact '") + path +
                    "': " + dlerror());
  auto *manifest =
      static_cast<const char *>(dlsym(artifact->library, "gp_manifest"));
  if (!manifest)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("'") + path +
                    "' is not a GraphPart artifact (no gp_manifest)");
  if (gpRtStatus status =
          backend ? loadManifest(*artifact, manifest, *backend, device, path)
                  : parseManifest(*artifact, manifest))
    return status;
  for (Entry &entry : artifact->entries) {
    std::string symbol = "gp_entry_" + entry.name;
    entry.function = reinterpret_cast<decltype(entry.function)>(
        dlsym(artifact->library, symbol.c_str()));
    if (!entry.function)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  std::string("artifact '") + path + "' lacks " + symbol);
  }
  if (const char *env = std::getenv("GP_DEBUG_OVERWRITE"); env && *env)
    artifact->results.debugOverwrite =
        parseBoolean("GP_DEBUG_OVERWRITE", env, false);
  if (const char *env = std::getenv("GP_PAD_TO_CAPTURE_SIZES"); env && *env)
    artifact->padding.enabled =
        parseBoolean("GP_PAD_TO_CAPTURE_SIZES", env, true);
  registerHandle(HandleKind::Artifact, artifact.get());
  *result = artifact.release();
  return GP_RT_SUCCESS;
}

/// loadArtifact behind the C ABI, for the entry point `what`: nothing may
/// escape it, so a manifest or file that makes the standard library throw
/// is an error like any other.
static gpRtStatus openArtifact(const char *what, const char *path,
                               std::optional<gpRtBackend> backend,
                               int32_t device, gpRtArtifact **result) {
  return guarded(what,
                 [&] { return loadArtifact(path, backend, device, result); });
}

extern "C" {

GP_RT_EXPORT gpRtStatus gpRtArtifactLoad(const char *path, gpRtBackend backend,
                                         int32_t device,
                                         gpRtArtifact **result) {
  return openArtifact("gpRtArtifactLoad", path, backend, device, result);
}

GP_RT_EXPORT gpRtStatus gpRtArtifactInspect(const char *path,
                                            gpRtArtifact **result) {
  return openArtifact("gpRtArtifactInspect", path, std::nullopt, -1, result);
}

GP_RT_EXPORT gpRtStatus gpRtArtifactUnload(gpRtArtifact *artifact) {
  if (!artifact)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtArtifactUnload: null");
  return releaseHandle(HandleKind::Artifact, artifact, "gpRtArtifactUnload");
}

GP_RT_EXPORT gpRtStatus gpRtArtifactGetProgram(gpRtArtifact *artifact,
                                               gpRtProgram **program) {
  if (gpRtStatus status = checkHandle(artifact, "gpRtArtifactGetProgram"))
    return status;
  if (!artifact || !program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtArtifactGetProgram: null");
  if (!artifact->program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtArtifactGetProgram: the artifact was opened with "
                "gpRtArtifactInspect and has no program");
  *program = artifact->program;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT const char *gpRtArtifactTarget(gpRtArtifact *artifact) {
  if (checkHandle(artifact, "gpRtArtifactTarget"))
    return nullptr;
  return artifact ? artifact->target.c_str() : nullptr;
}

GP_RT_EXPORT gpRtStatus gpRtArtifactGetArenaBytes(gpRtArtifact *artifact,
                                                  int64_t *deviceBytes,
                                                  int64_t *hostBytes) {
  if (gpRtStatus status = checkHandle(artifact, "gpRtArtifactGetArenaBytes"))
    return status;
  if (!artifact || !deviceBytes || !hostBytes)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtArtifactGetArenaBytes: null");
  *deviceBytes = artifact->arenaBytes;
  *hostBytes = artifact->hostArenaBytes;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT int32_t gpRtArtifactNumPartitions(gpRtArtifact *artifact) {
  if (checkHandle(artifact, "gpRtArtifactNumPartitions"))
    return 0;
  return artifact ? static_cast<int32_t>(artifact->partitions.size()) : 0;
}

GP_RT_EXPORT gpRtStatus gpRtArtifactGetPartition(gpRtArtifact *artifact,
                                                 int32_t index,
                                                 gpRtPartitionInfo *info) {
  if (gpRtStatus status = checkHandle(artifact, "gpRtArtifactGetPartition"))
    return status;
  if (!artifact || !info || index < 0 ||
      index >= static_cast<int32_t>(artifact->partitions.size()))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtArtifactGetPartition: null or no such partition");
  *info = artifact->partitions[index];
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT int32_t gpRtArtifactNumEntries(gpRtArtifact *artifact) {
  if (checkHandle(artifact, "gpRtArtifactNumEntries"))
    return 0;
  return artifact ? static_cast<int32_t>(artifact->entries.size()) : 0;
}

GP_RT_EXPORT gpRtStatus gpRtArtifactGetEntry(gpRtArtifact *artifact,
                                             int32_t index,
                                             gpRtEntryInfo *info) {
  if (gpRtStatus status = checkHandle(artifact, "gpRtArtifactGetEntry"))
    return status;
  if (!artifact || !info || index < 0 ||
      index >= static_cast<int32_t>(artifact->entries.size()))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtArtifactGetEntry: null or no such entry");
  const Entry &entry = artifact->entries[index];
  *info = {entry.name.c_str(), static_cast<int32_t>(entry.argInfos.size()),
           entry.argInfos.data(),
           static_cast<int32_t>(entry.resultInfos.size()),
           entry.resultInfos.data()};
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtArtifactFindEntry(gpRtArtifact *artifact,
                                              const char *name,
                                              int32_t *index) {
  if (gpRtStatus status = checkHandle(artifact, "gpRtArtifactFindEntry"))
    return status;
  if (!artifact || !name || !index)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtArtifactFindEntry: null");
  std::string names;
  for (size_t i = 0; i < artifact->entries.size(); ++i) {
    if (artifact->entries[i].name == name) {
      *index = i;
      return GP_RT_SUCCESS;
    }
    names += (i ? ", " : "") + artifact->entries[i].name;
  }
  return fail(GP_RT_ERROR_INVALID_ARGUMENT,
              std::string("no entry '") + name + "' (entries: " + names + ")");
}

/// "1 argument", "3 results".
static std::string counted(int64_t n, const char *noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

/// The checks every call of an entry makes before running it; `what` names
/// the C entry point. The arrays are read only within the entry's counts
/// (`counts`, when given, must be those): an index past a short array
/// cannot be told from a good pointer.
static gpRtStatus checkCall(gpRtArtifact *artifact, int32_t index, void **args,
                            void **results, const char *what,
                            std::optional<CallCounts> counts = std::nullopt) {
  if (!artifact || index < 0 ||
      index >= static_cast<int32_t>(artifact->entries.size()))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": null artifact or no such entry");
  if (!artifact->program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) +
                    ": the artifact was opened with "
                    "gpRtArtifactInspect and cannot run; load it with "
                    "gpRtArtifactLoad");
  const Entry &entry = artifact->entries[index];
  // Made only for a message: a call that passes allocates nothing here.
  auto prefix = [&] {
    return std::string(what) + ": entry '" + entry.name + "'";
  };
  int64_t numArgs = entry.args.size(), numResults = entry.results.size();
  if (counts && counts->numArgs != numArgs)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                prefix() + " takes " + counted(numArgs, "argument") + ", got " +
                    std::to_string(counts->numArgs));
  if (counts && counts->numResults != numResults)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                prefix() + " returns " + counted(numResults, "result") +
                    ", got room for " + std::to_string(counts->numResults));
  // No argument array is needed when every argument is a bound parameter.
  if (numArgs > 0 && !args && !entry.onlyParameters)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                prefix() + ": null argument array (the entry takes " +
                    counted(numArgs, "argument") + ")");
  if (numResults > 0 && !results)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                prefix() + ": null result array (the entry returns " +
                    counted(numResults, "result") + ")");
  // The entry writes each result through its pointer.
  for (int64_t r = 0; r < numResults; ++r)
    if (!results[r])
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  prefix() + ": result " + std::to_string(r) +
                      " is null (results[" + std::to_string(r) +
                      "] must point to storage for it)");
  return GP_RT_SUCCESS;
}

/// Orders a call of entry `index` on the caller's stream `caller`: the
/// program's stream for this thread waits for what `caller` has queued,
/// the call runs, and `caller` waits for what the call queued. Events, no
/// host synchronisation.
static gpRtStatus callOnStream(gpRtArtifact &artifact, int32_t index,
                               void **args, void **results, void *caller) {
  gpRtProgram &program = *artifact.program;
  ThreadContext *context = nullptr;
  if (gpRtStatus status = program.context(context))
    return status;
  const CudaDriver *driver = program.driver;
  constexpr unsigned kDisableTiming = 2; // CU_EVENT_DISABLE_TIMING
  for (CudaDriver::Handle *event : {&context->callerDone, &context->callDone})
    if (!*event)
      if (gpRtStatus status = driver->check(
              driver->cuEventCreate(event, kDisableTiming), "cuEventCreate"))
        return status;
  CudaDriver::Handle ours = context->stream.cuStream;
  if (gpRtStatus status =
          driver->check(driver->cuEventRecord(context->callerDone, caller),
                        "cuEventRecord (on the caller's stream)"))
    return status;
  if (gpRtStatus status =
          driver->check(driver->cuStreamWaitEvent(ours, context->callerDone, 0),
                        "cuStreamWaitEvent"))
    return status;
  gpRtStatus status = callEntry(artifact, index, args, results);
  // Whatever the call queued before it failed is ordered too; a failing
  // call's own error is the one reported.
  CudaDriver::Result record = driver->cuEventRecord(context->callDone, ours);
  CudaDriver::Result wait =
      record ? record : driver->cuStreamWaitEvent(caller, context->callDone, 0);
  if (status != GP_RT_SUCCESS)
    return status;
  if (record)
    return driver->check(record, "cuEventRecord");
  return driver->check(wait, "cuStreamWaitEvent (on the caller's stream)");
}

} // extern "C"

gpRtStatus gp::rt::runCall(const char *what, gpRtArtifact *artifact,
                           int32_t index, void **args, void **results,
                           std::optional<CallCounts> counts, bool onStream,
                           void *cudaStream) {
  if (gpRtStatus status = checkHandle(artifact, what))
    return status;
  if (gpRtStatus status =
          checkCall(artifact, index, args, results, what, counts))
    return status;
  bool cudaCall = onStream && artifact->program->driver;
  if (cudaStream && !cudaCall)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) +
                    ": a CUDA stream given for a program on the host "
                    "backend (pass NULL)");
  // Index errors of earlier calls whose work is done (cuda: calls return
  // before their kernels run), reported before this call queues more.
  if (gpRtStatus status = checkIndexErrors(*artifact, index, what, false))
    return status;
  gpRtStatus status = guarded(what, [&] {
    return cudaCall ? callOnStream(*artifact, index, args, results, cudaStream)
                    : callEntry(*artifact, index, args, results);
  });
  if (status != GP_RT_SUCCESS)
    return status;
  return checkIndexErrors(*artifact, index, what, true);
}

extern "C" {

GP_RT_EXPORT gpRtStatus gpRtArtifactCall(gpRtArtifact *artifact, int32_t index,
                                         void **args, void **results) {
  return runCall("gpRtArtifactCall", artifact, index, args, results,
                 std::nullopt, /*onStream=*/false, nullptr);
}

GP_RT_EXPORT gpRtStatus gpRtArtifactCallOnStream(gpRtArtifact *artifact,
                                                 int32_t index, void **args,
                                                 void **results,
                                                 void *cudaStream) {
  return runCall("gpRtArtifactCallOnStream", artifact, index, args, results,
                 std::nullopt, /*onStream=*/true, cudaStream);
}

GP_RT_EXPORT gpRtStatus gpRtArtifactCallChecked(gpRtArtifact *artifact,
                                                int32_t index, void **args,
                                                int32_t numArgs, void **results,
                                                int32_t numResults) {
  return runCall("gpRtArtifactCallChecked", artifact, index, args, results,
                 CallCounts{numArgs, numResults}, /*onStream=*/false, nullptr);
}

GP_RT_EXPORT gpRtStatus gpRtArtifactCallOnStreamChecked(
    gpRtArtifact *artifact, int32_t index, void **args, int32_t numArgs,
    void **results, int32_t numResults, void *cudaStream) {
  return runCall("gpRtArtifactCallOnStreamChecked", artifact, index, args,
                 results, CallCounts{numArgs, numResults}, /*onStream=*/true,
                 cudaStream);
}

} // extern "C"
