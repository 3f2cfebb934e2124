//===- CudaDriver.h - the CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// The runtime builds without the CUDA toolkit: libcuda is opened with dlopen
// on first use and its entry points are kept in one table. Handles are
// opaque pointers and results plain ints.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_RUNTIME_CUDADRIVER_H
#define GRAPHPART_LIB_RUNTIME_CUDADRIVER_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstddef>
#include <string>

namespace gp::rt {

/// The CUDA driver, loaded on first use. Handles are opaque pointers and
/// results plain ints, so the runtime builds without the CUDA toolkit.
struct CudaDriver {
  using Result = int;
  using Handle = void *;
  using DevicePtr = unsigned long long;

  /// Loads libcuda and initialises it; fails with the reason otherwise.
  static gpRtStatus get(const CudaDriver *&driver);

  Result (*cuInit)(unsigned flags) = nullptr;
  Result (*cuDeviceGetCount)(int *count) = nullptr;
  Result (*cuGetErrorString)(Result error, const char **message) = nullptr;
  Result (*cuDeviceGet)(int *device, int ordinal) = nullptr;
  Result (*cuDevicePrimaryCtxRetain)(Handle *context, int device) = nullptr;
  Result (*cuDevicePrimaryCtxRelease)(int device) = nullptr;
  Result (*cuCtxSetCurrent)(Handle context) = nullptr;
  Result (*cuStreamCreate)(Handle *stream, unsigned flags) = nullptr;
  Result (*cuStreamDestroy)(Handle stream) = nullptr;
  Result (*cuStreamSynchronize)(Handle stream) = nullptr;
  Result (*cuStreamBeginCapture)(Handle stream, int mode) = nullptr;
  Result (*cuStreamEndCapture)(Handle stream, Handle *graph) = nullptr;
  Result (*cuGraphInstantiateWithFlags)(Handle *exec, Handle graph,
                                        unsigned long long flags) = nullptr;
  Result (*cuGraphExecUpdate)(Handle exec, Handle graph,
                              void *resultInfo) = nullptr;
  Result (*cuGraphLaunch)(Handle exec, Handle stream) = nullptr;
  Result (*cuGraphDestroy)(Handle graph) = nullptr;
  Result (*cuGraphExecDestroy)(Handle exec) = nullptr;
  Result (*cuMemAlloc)(DevicePtr *pointer, size_t bytes) = nullptr;
  Result (*cuMemFree)(DevicePtr pointer) = nullptr;
  Result (*cuMemHostAlloc)(void **pointer, size_t bytes,
                           unsigned flags) = nullptr;
  Result (*cuMemHostGetDevicePointer)(DevicePtr *device, void *host,
                                      unsigned flags) = nullptr;
  Result (*cuMemFreeHost)(void *pointer) = nullptr;
  Result (*cuMemcpyHtoDAsync)(DevicePtr dst, const void *src, size_t bytes,
                              Handle stream) = nullptr;
  Result (*cuMemcpyDtoHAsync)(void *dst, DevicePtr src, size_t bytes,
                              Handle stream) = nullptr;
  Result (*cuMemcpyDtoDAsync)(DevicePtr dst, DevicePtr src, size_t bytes,
                              Handle stream) = nullptr;
  /// CUDA_MEMCPY2D: `Height` rows of `WidthInBytes`, each `srcPitch` apart
  /// from the source and `dstPitch` apart at the destination.
  struct Memcpy2D {
    size_t srcXInBytes = 0, srcY = 0;
    int srcMemoryType = 0;
    const void *srcHost = nullptr;
    DevicePtr srcDevice = 0;
    Handle srcArray = nullptr;
    size_t srcPitch = 0;
    size_t dstXInBytes = 0, dstY = 0;
    int dstMemoryType = 0;
    void *dstHost = nullptr;
    DevicePtr dstDevice = 0;
    Handle dstArray = nullptr;
    size_t dstPitch = 0;
    size_t WidthInBytes = 0, Height = 0;
  };
  static constexpr int kMemoryTypeUnified = 4; // CU_MEMORYTYPE_UNIFIED
  /// Strided copies in one call (padding a dimension other than the
  /// outermost, Padding.cpp); null if absent, then copied row by row.
  Result (*cuMemcpy2DAsync)(const Memcpy2D *copy, Handle stream) = nullptr;
  Result (*cuMemsetD8Async)(DevicePtr dst, unsigned char value, size_t count,
                            Handle stream) = nullptr;
  Result (*cuMemsetD32Async)(DevicePtr dst, unsigned value, size_t count,
                             Handle stream) = nullptr;
  Result (*cuModuleLoadData)(Handle *module, const void *image) = nullptr;
  Result (*cuModuleUnload)(Handle module) = nullptr;
  Result (*cuModuleGetFunction)(Handle *function, Handle module,
                                const char *name) = nullptr;
  /// Raising a kernel's dynamic shared memory above 48 KiB (the fused
  /// attention kernels, Attention.cpp); null if absent, then those launches
  /// fail with a clear error.
  Result (*cuFuncSetAttribute)(Handle function, int attribute,
                               int value) = nullptr;
  static constexpr int kFuncAttributeMaxDynamicSharedBytes = 8;
  Result (*cuLaunchKernel)(Handle function, unsigned gx, unsigned gy,
                           unsigned gz, unsigned bx, unsigned by, unsigned bz,
                           unsigned sharedBytes, Handle stream, void **params,
                           void **extra) = nullptr;
  // Ordering calls on a caller's stream (gpRtArtifactCallOnStream) and
  // checking where a bound parameter's memory is.
  Result (*cuEventCreate)(Handle *event, unsigned flags) = nullptr;
  Result (*cuEventRecord)(Handle event, Handle stream) = nullptr;
  Result (*cuEventDestroy)(Handle event) = nullptr;
  Result (*cuStreamWaitEvent)(Handle stream, Handle event,
                              unsigned flags) = nullptr;
  Result (*cuPointerGetAttribute)(void *data, int attribute,
                                  DevicePtr pointer) = nullptr;

  // What re-binding graphs to moved inputs needs; absent from older drivers
  // (cuFuncGetParamInfo came with CUDA 12.4), in which case graphs stay
  // keyed by input addresses.
  Result (*cuCtxGetCurrent)(Handle *context) = nullptr;
  /// A context's id, unique in the process (CUDA 12.0): a context created
  /// after another was destroyed may get its address, never its id.
  Result (*cuCtxGetId)(Handle context, unsigned long long *id) = nullptr;
  Result (*cuGraphGetNodes)(Handle graph, Handle *nodes,
                            size_t *count) = nullptr;
  Result (*cuGraphNodeGetType)(Handle node, int *type) = nullptr;
  Result (*cuGraphKernelNodeGetParams)(Handle node, void *params) = nullptr;
  Result (*cuGraphExecKernelNodeSetParams)(Handle exec, Handle node,
                                           const void *params) = nullptr;
  Result (*cuGraphMemcpyNodeGetParams)(Handle node, void *params) = nullptr;
  Result (*cuGraphExecMemcpyNodeSetParams)(Handle exec, Handle node,
                                           const void *params,
                                           Handle context) = nullptr;
  Result (*cuGraphMemsetNodeGetParams)(Handle node, void *params) = nullptr;
  Result (*cuGraphExecMemsetNodeSetParams)(Handle exec, Handle node,
                                           const void *params,
                                           Handle context) = nullptr;
  Result (*cuFuncGetParamInfo)(Handle function, size_t index, size_t *offset,
                               size_t *size) = nullptr;
  Result (*cuKernelGetFunction)(Handle *function, Handle kernel) = nullptr;
  /// Why graphs cannot be re-bound with this driver, or empty.
  std::string rebindUnavailable;

  /// A readable message for a CUDA driver error code.
  std::string errorString(Result error) const;
  /// Fails with GP_RT_ERROR_BACKEND naming `what` when `result` is an error.
  gpRtStatus check(Result result, const char *what) const;
};

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_CUDADRIVER_H
