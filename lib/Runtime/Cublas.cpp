//===- Cublas.cpp - cuBLAS and the matmuls' state per stream --------------===//
//
// Loads libcublas on first use (the runtime links no CUDA library) and
// keeps, per stream, what the matmul externs use on the device: a cuBLAS
// handle with its workspace, and the module of the strided copy kernel
// aten::addmm writes its bias with. Both are made on first use and
// released with the stream (through its library slot, RuntimeInternal.h),
// so a stream's calls reuse them and a capture on it allocates nothing
// that would outlive or escape its graph.
//
//===----------------------------------------------------------------------===//

#include "Cublas.h"

#include "CudaDriver.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

using namespace gp::rt;

//===----------------------------------------------------------------------===//
// cuBLAS, loaded on first use
//===----------------------------------------------------------------------===//

gpRtStatus Cublas::get(const char *op, const Cublas *&result) {
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
    auto load = [&](auto &entry, const char *name) {
      entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(
          dlsym(library, name));
    };
    load(cublas.cublasCreate, "cublasCreate_v2");
    load(cublas.cublasDestroy, "cublasDestroy_v2");
    load(cublas.cublasSetStream, "cublasSetStream_v2");
    load(cublas.cublasGemmEx, "cublasGemmEx");
    load(cublas.cublasGemmStridedBatchedEx, "cublasGemmStridedBatchedEx");
    load(cublas.cublasSetWorkspace, "cublasSetWorkspace_v2");
    if (!cublas.cublasCreate || !cublas.cublasDestroy ||
        !cublas.cublasSetStream || !cublas.cublasGemmEx ||
        !cublas.cublasGemmStridedBatchedEx)
      reason = "libcublas lacks cublasCreate/SetStream/GemmEx/"
               "GemmStridedBatchedEx";
  });
  if (!reason.empty())
    return fail(GP_RT_ERROR_UNAVAILABLE, std::string(op) + ": " + reason);
  result = &cublas;
  return GP_RT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// What the matmuls keep per stream
//===----------------------------------------------------------------------===//

namespace {

/// cuBLAS's workspace per stream: what its documentation recommends for
/// Hopper.
constexpr size_t kCublasWorkspaceBytes = 32u << 20;

/// gp_rt_copy_2d_b32(dst, src, rows, cols, dstRowStride, dstColStride,
/// srcRowStride, srcColStride): a StridedCopy32 (Cublas.h), its fields in
/// order; a grid-stride loop over rows * cols. PTX, compiled by the driver
/// for whatever device runs it.
constexpr const char *kCopyKernelName = "gp_rt_copy_2d_b32";
constexpr const char *kCopyKernelPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry gp_rt_copy_2d_b32(
  .param .u64 dst, .param .u64 src, .param .u64 rows, .param .u64 cols,
  .param .u64 dstRowStride, .param .u64 dstColStride,
  .param .u64 srcRowStride, .param .u64 srcColStride)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<17>;
  ld.param.u64 %rd1, [dst];
  ld.param.u64 %rd2, [src];
  ld.param.u64 %rd3, [rows];
  ld.param.u64 %rd4, [cols];
  ld.param.u64 %rd5, [dstRowStride];
  ld.param.u64 %rd6, [dstColStride];
  ld.param.u64 %rd7, [srcRowStride];
  ld.param.u64 %rd8, [srcColStride];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mul.lo.s64 %rd9, %rd3, %rd4;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd10, %r1, %r2;
  cvt.u64.u32 %rd11, %r3;
  add.s64 %rd10, %rd10, %rd11;
  mul.wide.u32 %rd12, %r4, %r2;
$L_loop:
  setp.ge.s64 %p1, %rd10, %rd9;
  @%p1 bra $L_done;
  div.s64 %rd13, %rd10, %rd4;
  mul.lo.s64 %rd14, %rd13, %rd4;
  sub.s64 %rd14, %rd10, %rd14;
  mul.lo.s64 %rd15, %rd13, %rd7;
  mad.lo.s64 %rd15, %rd14, %rd8, %rd15;
  shl.b64 %rd15, %rd15, 2;
  add.s64 %rd15, %rd2, %rd15;
  ld.global.b32 %r5, [%rd15];
  mul.lo.s64 %rd16, %rd13, %rd5;
  mad.lo.s64 %rd16, %rd14, %rd6, %rd16;
  shl.b64 %rd16, %rd16, 2;
  add.s64 %rd16, %rd1, %rd16;
  st.global.b32 [%rd16], %r5;
  add.s64 %rd10, %rd10, %rd12;
  bra.uni $L_loop;
$L_done:
  ret;
}
)";

/// What the matmuls keep per stream, made on first use and released with
/// the stream: the cuBLAS handle and its workspace, and the copy kernel
/// (loaded on first use by aten::addmm).
struct MatmulOnStream {
  Cublas::Handle handle = nullptr;
  CudaDriver::DevicePtr workspace = 0;
  CudaDriver::Handle module = nullptr;
  CudaDriver::Handle copyKernel = nullptr;
};

void releaseMatmulOnStream(void *pointer) {
  std::unique_ptr<MatmulOnStream> state(static_cast<MatmulOnStream *>(pointer));
  const Cublas *cublas = nullptr;
  if (state->handle && Cublas::get("cuBLAS", cublas) == GP_RT_SUCCESS)
    cublas->cublasDestroy(state->handle);
  const CudaDriver *driver = nullptr;
  if ((state->workspace || state->module) &&
      CudaDriver::get(driver) == GP_RT_SUCCESS) {
    if (state->workspace)
      driver->cuMemFree(state->workspace);
    if (state->module)
      driver->cuModuleUnload(state->module);
  }
}

MatmulOnStream &matmulOnStream(gpRtStream *stream) {
  void *&slot = streamLibraryHandle(stream);
  if (!slot) {
    slot = new MatmulOnStream;
    setStreamLibraryRelease(stream, releaseMatmulOnStream);
  }
  return *static_cast<MatmulOnStream *>(slot);
}

} // namespace

gpRtStatus gp::rt::cublasOnStream(gpRtStream *stream, const char *op,
                                  const Cublas *&cublas,
                                  Cublas::Handle &handle) {
  if (gpRtStatus status = Cublas::get(op, cublas))
    return status;
  MatmulOnStream &state = matmulOnStream(stream);
  if (!state.handle) {
    if (int error = cublas->cublasCreate(&state.handle))
      return fail(GP_RT_ERROR_BACKEND, std::string(op) +
                                           ": cublasCreate failed with "
                                           "status " +
                                           std::to_string(error));
    // Allocating is not allowed while capturing: a first call inside a
    // capture leaves cuBLAS its own workspace.
    const CudaDriver *driver = nullptr;
    if (cublas->cublasSetWorkspace && !streamIsCapturing(stream) &&
        CudaDriver::get(driver) == GP_RT_SUCCESS &&
        driver->cuMemAlloc(&state.workspace, kCublasWorkspaceBytes) != 0)
      state.workspace = 0;
  }
  handle = state.handle;
  if (int error = cublas->cublasSetStream(handle, streamCudaHandle(stream)))
    return fail(GP_RT_ERROR_BACKEND, std::string(op) +
                                         ": cublasSetStream failed with "
                                         "status " +
                                         std::to_string(error));
  // After every cublasSetStream, which resets it: cuBLAS then allocates
  // nothing while captured, so its graphs hold no memory nodes (a graph
  // with them can be instantiated only once, which rules out executables
  // bound to other inputs).
  if (state.workspace && cublas->cublasSetWorkspace)
    if (int error = cublas->cublasSetWorkspace(
            handle, reinterpret_cast<void *>(state.workspace),
            kCublasWorkspaceBytes))
      return fail(GP_RT_ERROR_BACKEND, std::string(op) +
                                           ": cublasSetWorkspace failed "
                                           "with status " +
                                           std::to_string(error));
  return GP_RT_SUCCESS;
}

gpRtStatus gp::rt::copyStrided32OnStream(gpRtStream *stream,
                                         StridedCopy32 copy) {
  const CudaDriver *driver = nullptr;
  if (gpRtStatus status = CudaDriver::get(driver))
    return status;
  MatmulOnStream &state = matmulOnStream(stream);
  if (!state.copyKernel) {
    if (!state.module) {
      CudaDriver::Handle module = nullptr;
      if (gpRtStatus status =
              driver->check(driver->cuModuleLoadData(&module, kCopyKernelPtx),
                            "cuModuleLoadData(gp_rt_copy_2d_b32)"))
        return status;
      state.module = module;
    }
    if (gpRtStatus status =
            driver->check(driver->cuModuleGetFunction(
                              &state.copyKernel, state.module, kCopyKernelName),
                          "cuModuleGetFunction(gp_rt_copy_2d_b32)"))
      return status;
  }
  // The kernel's parameters, in its order; the launch copies their values.
  void *params[] = {&copy.dst,          &copy.src,          &copy.rows,
                    &copy.cols,         &copy.dstRowStride, &copy.dstColStride,
                    &copy.srcRowStride, &copy.srcColStride};
  constexpr int64_t kThreads = 256, kMaxBlocks = 4096;
  auto blocks = static_cast<unsigned>(
      std::min(kMaxBlocks, (copy.rows * copy.cols + kThreads - 1) / kThreads));
  return driver->check(
      driver->cuLaunchKernel(state.copyKernel, blocks, 1, 1, kThreads, 1, 1, 0,
                             streamCudaHandle(stream), params, nullptr),
      "cuLaunchKernel(gp_rt_copy_2d_b32)");
}
