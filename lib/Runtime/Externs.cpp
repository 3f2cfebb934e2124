//===- Externs.cpp - the registry of external ops -------------------------===//
//
// gp.fallback ops call into this registry by name. Built in: aten::mm, as
// cuBLAS SGEMM on the cuda backend (loaded with dlopen, bound to the
// calling thread's stream, so it can be captured) and a plain loop on the
// host backend. Users add their own with gpRtRegisterExtern or from a shared
// library (gpRtLoadExternLibrary).
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "RuntimeInternal.h"

#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>

using namespace gp::rt;

namespace {

struct Extern {
  gpRtExternFn fn;
  bool capturable;
  /// What it captures holds addresses the runtime cannot re-bind.
  bool fixedAddresses = false;
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, Extern> externs;
};

Registry &registry() {
  static Registry instance;
  return instance;
}

/// cuBLAS, loaded on first use.
struct Cublas {
  using Handle = void *;
  int (*create)(Handle *) = nullptr;
  int (*destroy)(Handle) = nullptr;
  int (*setStream)(Handle, void *) = nullptr;
  int (*sgemm)(Handle, int, int, int, int, int, const float *, const float *,
               int, const float *, int, const float *, float *, int) = nullptr;
  /// Optional (cuBLAS 11 and later).
  int (*setWorkspace)(Handle, void *, size_t) = nullptr;

  static gpRtStatus get(const Cublas *&result) {
    static Cublas cublas;
    static std::string reason;
    static std::once_flag once;
    std::call_once(once, [] {
      void *library = nullptr;
      for (const char *name :
           {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
        if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
          break;
      if (!library) {
        reason = "cannot load cuBLAS (libcublas.so)";
        return;
      }
      cublas.create = reinterpret_cast<decltype(cublas.create)>(
          dlsym(library, "cublasCreate_v2"));
      cublas.destroy = reinterpret_cast<decltype(cublas.destroy)>(
          dlsym(library, "cublasDestroy_v2"));
      cublas.setStream = reinterpret_cast<decltype(cublas.setStream)>(
          dlsym(library, "cublasSetStream_v2"));
      cublas.sgemm = reinterpret_cast<decltype(cublas.sgemm)>(
          dlsym(library, "cublasSgemm_v2"));
      cublas.setWorkspace = reinterpret_cast<decltype(cublas.setWorkspace)>(
          dlsym(library, "cublasSetWorkspace_v2"));
      if (!cublas.create || !cublas.destroy || !cublas.setStream ||
          !cublas.sgemm)
        reason = "libcublas lacks cublasCreate/SetStream/Sgemm";
    });
    if (!reason.empty())
      return fail(GP_RT_ERROR_UNAVAILABLE, "aten::mm: " + reason);
    result = &cublas;
    return GP_RT_SUCCESS;
  }
};

/// A rank-2 row-major contiguous f32 matrix of a descriptor.
gpRtStatus matrix(void *arg, const char *which, float *&data, int64_t &rows,
                  int64_t &cols) {
  auto *ref = static_cast<gpRtMemRef *>(arg);
  if (!ref || !ref->aligned)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("aten::mm: ") + which + " has no memory");
  rows = ref->shape[0];
  cols = ref->shape[1];
  if (rows < 0 || cols < 0 || (rows > 1 && ref->shape[2] != cols) ||
      (cols > 1 && ref->shape[3] != 1))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("aten::mm: ") + which +
                    " is not a row-major contiguous matrix");
  data = static_cast<float *>(ref->aligned) + ref->offset;
  return GP_RT_SUCCESS;
}

gpRtStatus matmulArgs(void **args, int32_t numArgs, const float *&a,
                      const float *&b, float *&c, int64_t &m, int64_t &k,
                      int64_t &n) {
  if (numArgs != 3 || !args)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "aten::mm takes (A, B, C) as rank-2 descriptors, got " +
                    std::to_string(numArgs) + " arguments");
  float *pa, *pb;
  int64_t k2, m2, n2;
  if (gpRtStatus status = matrix(args[0], "A", pa, m, k))
    return status;
  if (gpRtStatus status = matrix(args[1], "B", pb, k2, n))
    return status;
  if (gpRtStatus status = matrix(args[2], "C", c, m2, n2))
    return status;
  if (k2 != k || m2 != m || n2 != n)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "aten::mm: shapes do not agree: [" + std::to_string(m) + "x" +
                    std::to_string(k) + "] x [" + std::to_string(k2) + "x" +
                    std::to_string(n) + "] -> [" + std::to_string(m2) + "x" +
                    std::to_string(n2) + "]");
  a = pa;
  b = pb;
  return GP_RT_SUCCESS;
}

/// cuBLAS's workspace per stream: what its documentation recommends for
/// Hopper.
constexpr size_t kCublasWorkspaceBytes = 32u << 20;

/// A stream's cuBLAS handle and workspace, made on first use and released
/// with the stream.
struct CublasOnStream {
  void *handle = nullptr;
  CudaDriver::DevicePtr workspace = 0;
};

gpRtStatus cublasOnStream(gpRtStream *stream, const Cublas &cublas,
                          CublasOnStream *&result) {
  void *&slot = streamLibraryHandle(stream);
  if (!slot) {
    auto made = std::make_unique<CublasOnStream>();
    if (int error = cublas.create(&made->handle))
      return fail(GP_RT_ERROR_BACKEND,
                  "cublasCreate failed with status " + std::to_string(error));
    // Allocating is not allowed while capturing: a first call inside a
    // capture leaves cuBLAS its own workspace.
    const CudaDriver *driver = nullptr;
    if (cublas.setWorkspace && !streamIsCapturing(stream) &&
        CudaDriver::get(driver) == GP_RT_SUCCESS &&
        driver->cuMemAlloc(&made->workspace, kCublasWorkspaceBytes) != 0)
      made->workspace = 0;
    slot = made.release();
    setStreamLibraryRelease(stream, [](void *pointer) {
      std::unique_ptr<CublasOnStream> library(
          static_cast<CublasOnStream *>(pointer));
      const Cublas *loaded = nullptr;
      if (Cublas::get(loaded) == GP_RT_SUCCESS)
        loaded->destroy(library->handle);
      const CudaDriver *driver = nullptr;
      if (library->workspace && CudaDriver::get(driver) == GP_RT_SUCCESS)
        driver->cuMemFree(library->workspace);
    });
  }
  result = static_cast<CublasOnStream *>(slot);
  return GP_RT_SUCCESS;
}

/// C[m,n] = A[m,k] B[k,n], row-major f32.
gpRtStatus atenMm(gpRtStream *stream, void **args, int32_t numArgs) {
  const float *a, *b;
  float *c;
  int64_t m, k, n;
  if (gpRtStatus status = matmulArgs(args, numArgs, a, b, c, m, k, n))
    return status;
  if (streamBackend(stream) == GP_RT_BACKEND_HOST) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum += a[i * k + p] * b[p * n + j];
        c[i * n + j] = sum;
      }
    return GP_RT_SUCCESS;
  }
  const Cublas *cublas = nullptr;
  if (gpRtStatus status = Cublas::get(cublas))
    return status;
  CublasOnStream *library = nullptr;
  if (gpRtStatus status = cublasOnStream(stream, *cublas, library))
    return status;
  void *handle = library->handle;
  if (int error = cublas->setStream(handle, streamCudaHandle(stream)))
    return fail(GP_RT_ERROR_BACKEND,
                "cublasSetStream failed with status " + std::to_string(error));
  // After every cublasSetStream, which resets it: cuBLAS then allocates
  // nothing while captured, so its graphs hold no memory nodes (a graph
  // with them can be instantiated only once, which rules out executables
  // bound to other inputs).
  if (library->workspace && cublas->setWorkspace)
    if (int error = cublas->setWorkspace(
            handle, reinterpret_cast<void *>(library->workspace),
            kCublasWorkspaceBytes))
      return fail(GP_RT_ERROR_BACKEND,
                  "cublasSetWorkspace failed with status " +
                      std::to_string(error));
  // Row-major C = A B is column-major C^T = B^T A^T.
  const float one = 1.0f, zero = 0.0f;
  constexpr int kNoTranspose = 0;
  if (int error = cublas->sgemm(handle, kNoTranspose, kNoTranspose, n, m, k,
                                &one, b, n, a, k, &zero, c, n))
    return fail(GP_RT_ERROR_BACKEND,
                "cublasSgemm failed with status " + std::to_string(error));
  return GP_RT_SUCCESS;
}

/// Registers the built-ins once.
void ensureBuiltins() {
  static std::once_flag once;
  std::call_once(once, [] { registry().externs["aten::mm"] = {atenMm, true}; });
}

/// The extern for `name`: an exact match, else `ns::op` for `ns::op.overload`.
const Extern *lookup(const std::string &name) {
  auto &externs = registry().externs;
  auto it = externs.find(name);
  if (it == externs.end()) {
    size_t dot = name.find('.');
    if (dot != std::string::npos)
      it = externs.find(name.substr(0, dot));
  }
  return it == externs.end() ? nullptr : &it->second;
}

} // namespace

extern "C" {

GP_RT_EXPORT gpRtStatus gpRtRegisterExtern(const char *name, gpRtExternFn fn,
                                           int32_t flags) {
  if (!name || !*name || !fn)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRegisterExtern: empty name or null function");
  constexpr int32_t known =
      GP_RT_EXTERN_CAPTURABLE | GP_RT_EXTERN_FIXED_ADDRESSES;
  if (flags & ~known)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("gpRtRegisterExtern: extern '") + name +
                    "': unknown flags " + std::to_string(flags & ~known) +
                    " (known: GP_RT_EXTERN_CAPTURABLE = 1, "
                    "GP_RT_EXTERN_FIXED_ADDRESSES = 2)");
  ensureBuiltins();
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().externs[name] = {fn, (flags & GP_RT_EXTERN_CAPTURABLE) != 0,
                              (flags & GP_RT_EXTERN_FIXED_ADDRESSES) != 0};
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtLoadExternLibrary(const char *path) {
  if (!path)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtLoadExternLibrary: null");
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("cannot load extern library '") + path +
                    "': " + dlerror());
  using Register = gpRtStatus (*)(const char *, gpRtExternFn, int32_t);
  auto entry = reinterpret_cast<void (*)(Register)>(
      dlsym(library, "gp_register_externs"));
  if (!entry)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("extern library '") + path +
                    "' does not export gp_register_externs");
  entry(gpRtRegisterExtern);
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtCallExtern(gpRtStream *stream, const char *name,
                                       void **args, const int64_t *argSizes,
                                       int32_t numArgs) {
  if (!stream || !name || numArgs < 0 || (numArgs > 0 && (!args || !argSizes)))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtCallExtern: null stream, name or arguments");
  if (!streamOnThisThread(stream))
    return fail(GP_RT_ERROR_WRONG_THREAD,
                "gpRtCallExtern: the stream belongs to another thread");
  ensureBuiltins();
  Extern found;
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    const Extern *entry = lookup(name);
    if (!entry)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  std::string("no extern registered for '") + name + "'");
    found = *entry;
  }
  if (streamIsCapturing(stream)) {
    if (!found.capturable)
      return fail(GP_RT_ERROR_NOT_CAPTURED,
                  std::string("extern '") + name +
                      "' cannot run inside a captured graph");
    if (found.fixedAddresses)
      markFixedAddresses(stream, std::string("extern '") + name +
                                     "' was registered with "
                                     "GP_RT_EXTERN_FIXED_ADDRESSES");
    if (streamBackend(stream) == GP_RT_BACKEND_HOST)
      return recordHostExtern(stream, found.fn, args, argSizes, numArgs);
  }
  return found.fn(stream, args, numArgs);
}

} // extern "C"
