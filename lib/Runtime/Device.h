//===- Device.h - what a thread's program context runs on -------*- C++ -*-===//
//
// The backend interface: a per-thread stream, capture of the work a
// partition body issues on it into a graph, finding the graph's input
// addresses, instantiation, in-place update, re-binding to moved inputs,
// launch and synchronisation. HostDevice.cpp and CudaDevice.cpp implement
// it.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_RUNTIME_DEVICE_H
#define GRAPHPART_LIB_RUNTIME_DEVICE_H

#include "Binding.h"
#include "CudaDriver.h"
#include "Log.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace gp::rt {

struct AllocationTrace;
struct DynamicMemory;
struct HostGraph;
struct PoolPlan;

/// A captured graph, before instantiation; counted while alive.
struct Captured {
  Captured() { ++liveCounts().graphs; }
  virtual ~Captured() { --liveCounts().graphs; }
  /// Where the graph holds input addresses (findInputAddresses).
  std::vector<BindingSite> sites;
  /// Why the graph holds addresses that cannot be re-bound, if it does.
  std::string fixedReason;
  /// Inputs read by library kernels, which may have been chosen for the
  /// inputs' alignment: re-bound only to addresses of the same 256-byte
  /// alignment class.
  std::vector<bool> alignmentKeyed;
};

/// An instantiated graph, ready to launch; counted while alive.
struct Executable {
  Executable() { ++liveCounts().graphs; }
  virtual ~Executable() { --liveCounts().graphs; }
  /// The sites of the graph it runs, and the input bases they hold.
  std::vector<BindingSite> sites;
  std::vector<uintptr_t> bound;
  /// Whether `clone` may make another executable of its graph (a cuda
  /// graph with memory allocation nodes can be instantiated only once).
  bool cloneable = true;
};

} // namespace gp::rt

/// A thread's stream of work for one program.
struct gpRtStream {
  std::thread::id owner;
  gpRtBackend backend = GP_RT_BACKEND_HOST;
  /// Host: the graph being recorded, if capturing.
  gp::rt::HostGraph *recording = nullptr;
  /// cuda: inside a stream capture.
  bool capturing = false;
  /// cuda: the driver stream and the ordinal of its device.
  gp::rt::CudaDriver::Handle cuStream = nullptr;
  int32_t cudaDevice = -1;
  /// Where gpRtAllocate takes memory during the body that is running:
  /// fresh blocks (eager and warm-up runs; allocations and frees are
  /// recorded in `trace` when given) or the key's pool (capture), laid out
  /// by `poolPlan` from the warm-up's trace and handed out in order.
  gp::rt::DynamicMemory *fresh = nullptr;
  gp::rt::AllocationTrace *trace = nullptr;
  gp::rt::DynamicMemory *pool = nullptr;
  const gp::rt::PoolPlan *poolPlan = nullptr;
  size_t poolCursor = 0;
  /// Why the capture in progress holds addresses that cannot be re-bound
  /// (an extern registered with GP_RT_EXTERN_FIXED_ADDRESSES), if it does.
  std::string fixedReason;
  /// cuda: the kernels the capture in progress launched through
  /// gpRtLaunchCudaKernel (others in the graph are a library's).
  std::vector<void *> ownKernels;
  /// A library handle bound to this stream (cuBLAS), and how to release it.
  void *libraryHandle = nullptr;
  void (*releaseLibrary)(void *) = nullptr;
};

namespace gp::rt {

/// What a thread context does on its device.
class Device {
public:
  virtual ~Device() = default;
  virtual gpRtStatus beginCapture(gpRtStream &stream) = 0;
  /// Ends the capture begun on `stream`; `graph` is null if it failed.
  virtual gpRtStatus endCapture(gpRtStream &stream,
                                std::unique_ptr<Captured> &graph) = 0;
  virtual gpRtStatus instantiate(Captured &graph,
                                 std::unique_ptr<Executable> &exec) = 0;
  /// Makes `exec` run `graph` when their topologies match (and, on cuda,
  /// neither holds input addresses to re-bind).
  virtual gpRtStatus tryUpdate(Executable &exec, Captured &graph,
                               bool &updated) = 0;
  /// Fills `graph`'s sites, fixed reason and alignment keys for the
  /// partition's `inputs` at capture.
  virtual gpRtStatus
  findInputAddresses(Captured &graph,
                     const std::vector<InputRange> &inputs) = 0;
  /// A second executable of the graph `exec` was instantiated from (same
  /// sites; bound to nothing yet: re-bind it before launching). Only for
  /// executables with sites that are `cloneable`.
  virtual gpRtStatus clone(Executable &exec,
                           std::unique_ptr<Executable> &copy) = 0;
  /// Points `exec`'s sites at `inputs` where exec.bound differs (the
  /// caller then records `inputs` as bound); adds the words written to
  /// `written`.
  virtual gpRtStatus rebind(Executable &exec,
                            const std::vector<InputRange> &inputs,
                            int64_t &written) = 0;
  virtual gpRtStatus launch(Executable &exec, gpRtStream &stream) = 0;
  virtual gpRtStatus synchronize(gpRtStream &stream) = 0;
};

std::unique_ptr<Device> makeHostDevice();
std::unique_ptr<Device> makeCudaDevice(const CudaDriver *driver);

/// Host backend: appends a call of `kernel` with copies of its parameter
/// values to the graph being recorded on `stream`.
gpRtStatus recordHostKernel(gpRtStream *stream, gpRtHostKernel kernel,
                            void **params, const int64_t *sizes, int32_t count,
                            const char *what);

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_DEVICE_H
