//===- CudaDevice.cpp - the cuda backend ----------------------------------===//
//
// Owns the cuda backend: stream capture (thread-local mode) into driver
// graphs, instantiation, in-place update with cuGraphExecUpdate, launch and
// stream synchronisation.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "RuntimeInternal.h"

using namespace gp::rt;

namespace {

/// CUDA backend: driver graphs and executables.
struct CudaGraph : Captured {
  const CudaDriver *driver;
  CudaDriver::Handle graph;
  CudaGraph(const CudaDriver *driver, CudaDriver::Handle graph)
      : driver(driver), graph(graph) {}
  ~CudaGraph() override { driver->cuGraphDestroy(graph); }
};

struct CudaExecutable : Executable {
  const CudaDriver *driver;
  CudaDriver::Handle exec;
  CudaExecutable(const CudaDriver *driver, CudaDriver::Handle exec)
      : driver(driver), exec(exec) {}
  ~CudaExecutable() override { driver->cuGraphExecDestroy(exec); }
};

class CudaDevice : public Device {
public:
  explicit CudaDevice(const CudaDriver *driver) : driver(driver) {}

  gpRtStatus beginCapture(gpRtStream &stream) override {
    // Thread-local mode: other threads' work is not pulled into this graph
    // and their unsafe calls do not break it.
    constexpr int kThreadLocalCapture = 1;
    gpRtStatus status = driver->check(
        driver->cuStreamBeginCapture(stream.cuStream, kThreadLocalCapture),
        "cuStreamBeginCapture");
    stream.capturing = status == GP_RT_SUCCESS;
    return status;
  }
  gpRtStatus endCapture(gpRtStream &stream,
                        std::unique_ptr<Captured> &graph) override {
    CudaDriver::Handle handle = nullptr;
    stream.capturing = false;
    if (gpRtStatus status =
            driver->check(driver->cuStreamEndCapture(stream.cuStream, &handle),
                          "cuStreamEndCapture"))
      return status;
    graph = std::make_unique<CudaGraph>(driver, handle);
    return GP_RT_SUCCESS;
  }
  gpRtStatus instantiate(Captured &graph,
                         std::unique_ptr<Executable> &exec) override {
    CudaDriver::Handle handle = nullptr;
    if (gpRtStatus status = driver->check(
            driver->cuGraphInstantiateWithFlags(
                &handle, static_cast<CudaGraph &>(graph).graph, 0),
            "cuGraphInstantiate"))
      return status;
    exec = std::make_unique<CudaExecutable>(driver, handle);
    return GP_RT_SUCCESS;
  }
  gpRtStatus tryUpdate(Executable &exec, Captured &graph,
                       bool &updated) override {
    // CUgraphExecUpdateResultInfo: a result code and two node handles.
    struct {
      int result;
      void *errorNode;
      void *errorFromNode;
    } info{};
    constexpr int kUpdateFailure = 910; // CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE
    CudaDriver::Result result =
        driver->cuGraphExecUpdate(static_cast<CudaExecutable &>(exec).exec,
                                  static_cast<CudaGraph &>(graph).graph, &info);
    updated = result == 0;
    if (result == kUpdateFailure)
      return GP_RT_SUCCESS; // Another topology: instantiate instead.
    return driver->check(result, "cuGraphExecUpdate");
  }
  gpRtStatus launch(Executable &exec, gpRtStream &stream) override {
    return driver->check(
        driver->cuGraphLaunch(static_cast<CudaExecutable &>(exec).exec,
                              stream.cuStream),
        "cuGraphLaunch");
  }
  gpRtStatus synchronize(gpRtStream &stream) override {
    return driver->check(driver->cuStreamSynchronize(stream.cuStream),
                         "cuStreamSynchronize");
  }

private:
  const CudaDriver *driver;
};

} // namespace

std::unique_ptr<Device> gp::rt::makeCudaDevice(const CudaDriver *driver) {
  return std::make_unique<CudaDevice>(driver);
}
