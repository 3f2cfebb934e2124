//===- ParameterTestSupport.h - what the parameter tests share --*- C++ -*-===//
//
// The hand-written artifacts of ParameterArtifact.cpp and
// ParameterCudaArtifact.cpp, descriptors of their arguments, and the few
// CUDA driver calls the GPU tests make on streams of their own (loaded with
// dlopen, as the runtime does).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_UNITTESTS_RUNTIME_PARAMETERTESTSUPPORT_H
#define GRAPHPART_UNITTESTS_RUNTIME_PARAMETERTESTSUPPORT_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <dlfcn.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace gp::test {

inline const char *kParameterArtifact = GP_TEST_PARAMETER_ARTIFACT;
inline const char *kParameterCudaArtifact = GP_TEST_PARAMETER_CUDA_ARTIFACT;

/// Descriptors (gpRtMemRef) of rank 1 and 2.
struct Vec1 {
  float *allocated, *aligned;
  int64_t offset, size, stride;
};
struct Mat2 {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};
struct I64Vec {
  int64_t *allocated, *aligned;
  int64_t offset, size, stride;
};
inline Vec1 vec(float *data, int64_t size) { return {data, data, 0, size, 1}; }
inline Mat2 mat(float *data, int64_t rows, int64_t cols, int64_t rowStride,
                int64_t colStride) {
  return {data, data, 0, {rows, cols}, {rowStride, colStride}};
}

/// The host test artifact, opened once for the whole run: its manifest can
/// be replaced (gp_test_set_manifest) before gpRtArtifactLoad or
/// gpRtArtifactInspect opens it again, which maps the same image.
struct ParameterArtifactLibrary {
  void *handle = nullptr;
  void (*setManifest)(const char *) = nullptr;
  const char *(*defaultManifestFn)() = nullptr;
  std::string error;

  const char *defaultManifest() const { return defaultManifestFn(); }

  static ParameterArtifactLibrary &get() {
    static ParameterArtifactLibrary library = [] {
      ParameterArtifactLibrary made;
      made.handle = dlopen(kParameterArtifact, RTLD_NOW | RTLD_LOCAL);
      if (!made.handle) {
        made.error = dlerror();
        return made;
      }
      made.setManifest = reinterpret_cast<void (*)(const char *)>(
          dlsym(made.handle, "gp_test_set_manifest"));
      made.defaultManifestFn = reinterpret_cast<const char *(*)()>(
          dlsym(made.handle, "gp_test_default_manifest"));
      if (!made.setManifest || !made.defaultManifestFn)
        made.error = "the test artifact lacks gp_test_set_manifest";
      return made;
    }();
    return library;
  }
};

/// The CUDA driver calls the GPU tests make themselves.
struct CudaForTests {
  using Handle = void *;
  using DevicePtr = unsigned long long;
  int (*cuDevicePrimaryCtxRetain)(Handle *, int) = nullptr;
  int (*cuDevicePrimaryCtxRelease)(int) = nullptr;
  int (*cuCtxSetCurrent)(Handle) = nullptr;
  int (*cuStreamCreate)(Handle *, unsigned) = nullptr;
  int (*cuStreamDestroy)(Handle) = nullptr;
  int (*cuStreamSynchronize)(Handle) = nullptr;
  int (*cuStreamQuery)(Handle) = nullptr;
  int (*cuModuleLoadData)(Handle *, const void *) = nullptr;
  int (*cuModuleUnload)(Handle) = nullptr;
  int (*cuModuleGetFunction)(Handle *, Handle, const char *) = nullptr;
  int (*cuLaunchKernel)(Handle, unsigned, unsigned, unsigned, unsigned,
                        unsigned, unsigned, unsigned, Handle, void **,
                        void **) = nullptr;
  int (*cuMemcpyDtoHAsync)(void *, DevicePtr, size_t, Handle) = nullptr;
  int (*cuMemAlloc)(DevicePtr *, size_t) = nullptr;
  int (*cuMemFree)(DevicePtr) = nullptr;
  int (*cuMemAllocHost)(void **, size_t) = nullptr;
  int (*cuMemFreeHost)(void *) = nullptr;
  int (*cuMemAllocManaged)(DevicePtr *, size_t, unsigned) = nullptr;
  std::string error;

  bool load() {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      error = "cannot load libcuda.so.1";
      return false;
    }
    bool ok = true;
    auto get = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(library, name));
      if (!fn) {
        ok = false;
        error = std::string("libcuda.so.1 lacks ") + name;
      }
    };
    get(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    get(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    get(cuCtxSetCurrent, "cuCtxSetCurrent");
    get(cuStreamCreate, "cuStreamCreate");
    get(cuStreamDestroy, "cuStreamDestroy_v2");
    get(cuStreamSynchronize, "cuStreamSynchronize");
    get(cuStreamQuery, "cuStreamQuery");
    get(cuModuleLoadData, "cuModuleLoadData");
    get(cuModuleUnload, "cuModuleUnload");
    get(cuModuleGetFunction, "cuModuleGetFunction");
    get(cuLaunchKernel, "cuLaunchKernel");
    get(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
    get(cuMemAlloc, "cuMemAlloc_v2");
    get(cuMemFree, "cuMemFree_v2");
    get(cuMemAllocHost, "cuMemAllocHost_v2");
    get(cuMemFreeHost, "cuMemFreeHost");
    get(cuMemAllocManaged, "cuMemAllocManaged");
    return ok;
  }
};

} // namespace gp::test

#endif // GRAPHPART_UNITTESTS_RUNTIME_PARAMETERTESTSUPPORT_H
