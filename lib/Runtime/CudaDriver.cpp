//===- CudaDriver.cpp - load the CUDA driver at run time ------------------===//

#include "RuntimeInternal.h"

#include <dlfcn.h>
#include <mutex>

using namespace gp::rt;

std::string CudaDriver::errorString(int error) const {
  const char *message = nullptr;
  if (cuGetErrorString && cuGetErrorString(error, &message) == 0 && message)
    return message;
  return "CUDA driver error " + std::to_string(error);
}

gpRtStatus CudaDriver::get(const CudaDriver *&result) {
  static CudaDriver driver;
  static gpRtStatus status = GP_RT_SUCCESS;
  static std::string reason;
  static std::once_flag once;
  std::call_once(once, [] {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      status = GP_RT_ERROR_UNAVAILABLE;
      reason = "no CUDA driver: cannot load libcuda.so.1";
      return;
    }
    auto load = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(library, name));
      return fn != nullptr;
    };
    if (!load(driver.cuInit, "cuInit") ||
        !load(driver.cuDeviceGetCount, "cuDeviceGetCount") ||
        !load(driver.cuGetErrorString, "cuGetErrorString")) {
      status = GP_RT_ERROR_UNAVAILABLE;
      reason = "libcuda.so.1 lacks the driver entry points GraphPart needs";
      return;
    }
    if (int error = driver.cuInit(0)) {
      status = GP_RT_ERROR_UNAVAILABLE;
      reason = "cuInit failed: " + driver.errorString(error);
    }
  });
  if (status != GP_RT_SUCCESS)
    return fail(status, reason);
  result = &driver;
  return GP_RT_SUCCESS;
}
