//===- IndexErrors.cpp - a converted program's index-error flag ----------===//
//
// graphpart.convert checks every index an op takes (embedding, gather,
// index, scatter, a key/value cache's position) where eager PyTorch raises
// IndexError: a reduction over the indices writes the number of the failed
// check into one int64, the mutable parameter `graphpart.index_errors`,
// and the op itself reads a clamped index, so nothing outside a tensor is
// read or written. The runtime owns that flag: it allocates and binds it
// at load, and a call whose flag is set fails naming the op (the entry's
// `check <n> <text>` manifest lines), the flag cleared for the next call.
//
// On the host backend a call has run when it returns: its own error is
// reported. On cuda, calls return before their kernels run, so the flag is
// page-locked host memory mapped for the device: reading it costs neither
// a copy nor a synchronization, and an error shows at the first call (or
// the end of this one) after the kernels that found it have run, as CUDA
// reports a device-side assertion at a later call.
//
//===----------------------------------------------------------------------===//

#include "ArtifactState.h"
#include "ProgramState.h"

#include "GraphPart/Runtime/ManifestSchema.h"

using namespace gp::rt;
namespace manifest = gp::manifest;

namespace {
constexpr unsigned kHostAllocPortable = 0x01;  // CU_MEMHOSTALLOC_PORTABLE
constexpr unsigned kHostAllocDeviceMap = 0x02; // CU_MEMHOSTALLOC_DEVICEMAP
} // namespace

gpRtStatus gp::rt::setUpIndexErrors(gpRtArtifact &artifact) {
  ParameterTable &table = artifact.parameters;
  auto found = table.byName.find(manifest::kIndexErrorsParameter);
  if (found == table.byName.end())
    return GP_RT_SUCCESS;
  const Parameter &parameter = table.parameters[found->second];
  if (parameter.elementType != "i64" || parameter.shape.size() != 1 ||
      parameter.shape[0] != 1)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("artifact manifest: parameter '") +
                    manifest::kIndexErrorsParameter + "' (" +
                    parameter.firstUse +
                    ") must be one i64: the program's index-error flag");
  gpRtProgram &program = *artifact.program;
  IndexErrorFlag &flag = artifact.indexErrors;
  uint64_t devicePointer = 0;
  if (const CudaDriver *driver = program.driver) {
    ThreadContext *context = nullptr; // Makes the program's context current.
    if (gpRtStatus status = program.context(context))
      return status;
    void *host = nullptr;
    if (gpRtStatus status = driver->check(
            driver->cuMemHostAlloc(&host, sizeof(int64_t),
                                   kHostAllocPortable | kHostAllocDeviceMap),
            "cuMemHostAlloc (the index-error flag)"))
      return status;
    flag.host = static_cast<volatile int64_t *>(host);
    flag.pinned = true;
    CudaDriver::DevicePtr mapped = 0;
    if (gpRtStatus status = driver->check(
            driver->cuMemHostGetDevicePointer(&mapped, host, 0),
            "cuMemHostGetDevicePointer (the index-error flag)"))
      return status;
    devicePointer = mapped;
  } else {
    flag.host = new int64_t(0);
    devicePointer = reinterpret_cast<uintptr_t>(flag.host);
  }
  *flag.host = 0;
  auto address = static_cast<int64_t>(devicePointer);
  // allocated, aligned, offset, size, stride.
  bindRuntimeParameter(artifact, found->second, {address, address, 0, 1, 1});
  return GP_RT_SUCCESS;
}

gpRtStatus gp::rt::checkIndexErrors(gpRtArtifact &artifact, int32_t entry,
                                    const char *what, bool during) {
  IndexErrorFlag &flag = artifact.indexErrors;
  if (!flag.host)
    return GP_RT_SUCCESS;
  if (during)
    flag.lastEntry.store(entry, std::memory_order_relaxed);
  int64_t code = *flag.host;
  if (code == 0)
    return GP_RT_SUCCESS;
  *flag.host = 0;
  // The entry whose checks wrote it: this call's on the host backend, the
  // last one called on cuda.
  const Entry &named =
      artifact.entries[during ? entry
                              : flag.lastEntry.load(std::memory_order_relaxed)];
  std::string which =
      code > 0 && static_cast<size_t>(code) <= named.checks.size()
          ? named.checks[code - 1]
          : std::string(manifest::kCheck) + " " + std::to_string(code) +
                " (not in the manifest)";
  bool cuda = artifact.program->driver != nullptr;
  return fail(GP_RT_ERROR_INVALID_ARGUMENT,
              std::string(what) + ": entry '" + named.name +
                  "': index out of range in " + which +
                  (cuda ? " (in this call or an earlier one: cuda calls "
                          "return before their kernels run); the results "
                          "of the calls since are not valid"
                        : "; the call's results are not valid") +
                  " (eager PyTorch raises IndexError here)");
}

void gp::rt::releaseIndexErrors(gpRtArtifact &artifact) {
  IndexErrorFlag &flag = artifact.indexErrors;
  if (!flag.host)
    return;
  if (flag.pinned) {
    // The kernels that write it must be done before it goes.
    gpRtProgramSynchronize(artifact.program);
    artifact.program->driver->cuMemFreeHost(const_cast<int64_t *>(flag.host));
  } else {
    delete const_cast<int64_t *>(flag.host);
  }
  flag.host = nullptr;
}
