//===- CudaDriver.cpp - load the CUDA driver at run time ------------------===//

#include "CudaDriver.h"
#include "RuntimeInternal.h"

#include <dlfcn.h>
#include <mutex>

using namespace gp::rt;

static_assert(sizeof(CudaDriver::Memcpy2D) == 128,
              "CudaDriver::Memcpy2D must have CUDA_MEMCPY2D's layout");

gpRtStatus CudaDriver::check(Result result, const char *what) const {
  if (result == 0)
    return GP_RT_SUCCESS;
  return fail(GP_RT_ERROR_BACKEND,
              std::string(what) + " failed: " + errorString(result));
}

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
        !load(driver.cuGetErrorString, "cuGetErrorString") ||
        !load(driver.cuDeviceGet, "cuDeviceGet") ||
        !load(driver.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") ||
        !load(driver.cuDevicePrimaryCtxRelease,
              "cuDevicePrimaryCtxRelease_v2") ||
        !load(driver.cuCtxSetCurrent, "cuCtxSetCurrent") ||
        !load(driver.cuStreamCreate, "cuStreamCreate") ||
        !load(driver.cuStreamDestroy, "cuStreamDestroy_v2") ||
        !load(driver.cuStreamSynchronize, "cuStreamSynchronize") ||
        !load(driver.cuStreamBeginCapture, "cuStreamBeginCapture_v2") ||
        !load(driver.cuStreamEndCapture, "cuStreamEndCapture") ||
        !load(driver.cuGraphInstantiateWithFlags,
              "cuGraphInstantiateWithFlags") ||
        !load(driver.cuGraphExecUpdate, "cuGraphExecUpdate_v2") ||
        !load(driver.cuGraphLaunch, "cuGraphLaunch") ||
        !load(driver.cuGraphDestroy, "cuGraphDestroy") ||
        !load(driver.cuGraphExecDestroy, "cuGraphExecDestroy") ||
        !load(driver.cuMemAlloc, "cuMemAlloc_v2") ||
        !load(driver.cuMemFree, "cuMemFree_v2") ||
        !load(driver.cuMemHostAlloc, "cuMemHostAlloc") ||
        !load(driver.cuMemHostGetDevicePointer,
              "cuMemHostGetDevicePointer_v2") ||
        !load(driver.cuMemFreeHost, "cuMemFreeHost") ||
        !load(driver.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2") ||
        !load(driver.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2") ||
        !load(driver.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2") ||
        !load(driver.cuMemsetD8Async, "cuMemsetD8Async") ||
        !load(driver.cuMemsetD32Async, "cuMemsetD32Async") ||
        !load(driver.cuModuleLoadData, "cuModuleLoadData") ||
        !load(driver.cuModuleUnload, "cuModuleUnload") ||
        !load(driver.cuModuleGetFunction, "cuModuleGetFunction") ||
        !load(driver.cuLaunchKernel, "cuLaunchKernel") ||
        !load(driver.cuEventCreate, "cuEventCreate") ||
        !load(driver.cuEventRecord, "cuEventRecord") ||
        !load(driver.cuEventDestroy, "cuEventDestroy_v2") ||
        !load(driver.cuStreamWaitEvent, "cuStreamWaitEvent") ||
        !load(driver.cuPointerGetAttribute, "cuPointerGetAttribute")) {
      status = GP_RT_ERROR_UNAVAILABLE;
      reason = "libcuda.so.1 lacks the driver entry points GraphPart needs";
      return;
    }
    const char *missing = nullptr;
    auto optional = [&](auto &fn, const char *name) {
      if (!load(fn, name) && !missing)
        missing = name;
    };
    // Not needed for re-binding: row-by-row copies stand in for it.
    load(driver.cuMemcpy2DAsync, "cuMemcpy2DAsync_v2");
    load(driver.cuFuncSetAttribute, "cuFuncSetAttribute");
    optional(driver.cuCtxGetCurrent, "cuCtxGetCurrent");
    optional(driver.cuCtxGetId, "cuCtxGetId");
    optional(driver.cuGraphGetNodes, "cuGraphGetNodes");
    optional(driver.cuGraphNodeGetType, "cuGraphNodeGetType");
    optional(driver.cuGraphKernelNodeGetParams,
             "cuGraphKernelNodeGetParams_v2");
    optional(driver.cuGraphExecKernelNodeSetParams,
             "cuGraphExecKernelNodeSetParams_v2");
    optional(driver.cuGraphMemcpyNodeGetParams, "cuGraphMemcpyNodeGetParams");
    optional(driver.cuGraphExecMemcpyNodeSetParams,
             "cuGraphExecMemcpyNodeSetParams");
    optional(driver.cuGraphMemsetNodeGetParams, "cuGraphMemsetNodeGetParams");
    optional(driver.cuGraphExecMemsetNodeSetParams,
             "cuGraphExecMemsetNodeSetParams");
    optional(driver.cuFuncGetParamInfo, "cuFuncGetParamInfo");
    optional(driver.cuKernelGetFunction, "cuKernelGetFunction");
    if (missing)
      driver.rebindUnavailable = std::string("the CUDA driver lacks ") +
                                 missing + " (CUDA 12.4 or later has it)";
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
