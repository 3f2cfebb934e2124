//===- ProgramState.h - a program and what each thread holds of it -*- C++
//-*-===//

#ifndef GRAPHPART_LIB_RUNTIME_PROGRAMSTATE_H
#define GRAPHPART_LIB_RUNTIME_PROGRAMSTATE_H

#include "CudaDriver.h"
#include "Device.h"
#include "GraphCache.h"
#include "Policy.h"
#include "Rng.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gp::rt {

/// What one thread holds of a program: its stream, arena and graphs.
struct ThreadContext {
  const CudaDriver *driver = nullptr; // cuda backend only
  std::unique_ptr<Device> device;
  gpRtStream stream;
  void *arena = nullptr;
  int64_t arenaBytes = 0;
  void *hostArena = nullptr;
  int64_t hostArenaBytes = 0;
  std::vector<PartitionState> partitions;
  /// gpRtProgramGetBindingReport's text, kept for its caller.
  std::string bindingReport;
  /// cuda: the events that order calls on a caller's stream
  /// (gpRtArtifactCallOnStream): `callerDone` is recorded on the caller's
  /// stream and waited for by this context's, `callDone` the reverse. Made
  /// on first use, with timing disabled; reused by every call (a wait
  /// takes the record made before it).
  CudaDriver::Handle callerDone = nullptr, callDone = nullptr;

  ThreadContext() = default;
  ThreadContext(const ThreadContext &) = delete;
  ~ThreadContext();
};

} // namespace gp::rt

/// A loaded program: its partitions, policy and per-thread contexts.
struct gpRtProgram {
  std::string name;
  std::vector<gpRtPartitionInfo> partitions;
  std::vector<std::string> reasons;
  int64_t arenaBytes = 0;
  int64_t hostArenaBytes = 0;
  gpRtBackend backend = GP_RT_BACKEND_HOST;
  int32_t device = 0;

  // cuda backend.
  const gp::rt::CudaDriver *driver = nullptr;
  gp::rt::CudaDriver::Handle cuContext = nullptr;
  int cuDevice = 0;
  std::vector<gp::rt::CudaDriver::Handle> modules;
  /// gpRtCudaGetKernel's cache: (image, name) -> function.
  std::map<std::pair<const void *, std::string>, void *> kernels;
  std::map<const void *, gp::rt::CudaDriver::Handle> imageModules;

  gp::rt::Policy policy;

  /// The ranks this instance runs among (gpRtArtifactSetCommunicator), or
  /// null: rank 0 of 1.
  gpRtCommunicator *communicator = nullptr;
  int32_t rank = 0;

  std::mutex mutex; // Guards contexts, modules, stats and RNG.
  std::map<std::thread::id, std::unique_ptr<gp::rt::ThreadContext>> contexts;
  gpRtStats stats{};
  gp::rt::RngState rng;

  ~gpRtProgram();

  /// The calling thread's context, made on first use.
  gpRtStatus context(gp::rt::ThreadContext *&result);

  void count(int64_t gpRtStats::*field, int64_t by = 1) {
    std::lock_guard<std::mutex> lock(mutex);
    stats.*field += by;
  }
};

#endif // GRAPHPART_LIB_RUNTIME_PROGRAMSTATE_H
