//===- CudaDevice.cpp - the cuda backend ----------------------------------===//
//
// Owns the cuda backend: stream capture (thread-local mode) into driver
// graphs, finding the input addresses a graph's kernel, copy and memset
// nodes hold, instantiation, in-place update with cuGraphExecUpdate,
// re-binding an executable's nodes to moved inputs
// (cuGraphExec*NodeSetParams), launch and stream synchronisation.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <memory>
#include <tuple>

using namespace gp::rt;

namespace {

// The driver's node parameter structs (cuda.h: CUDA_KERNEL_NODE_PARAMS_v2,
// CUDA_MEMCPY3D, CUDA_MEMSET_NODE_PARAMS), field for field.
struct KernelNodeParams {
  CudaDriver::Handle function;
  unsigned grid[3];
  unsigned block[3];
  unsigned sharedMemBytes;
  void **kernelParams;
  void **extra;
  CudaDriver::Handle kernel;
  CudaDriver::Handle context;
};
struct CopyNodeParams {
  size_t srcXInBytes, srcY, srcZ, srcLOD;
  int srcMemoryType;
  const void *srcHost;
  CudaDriver::DevicePtr srcDevice;
  void *srcArray, *reserved0;
  size_t srcPitch, srcHeight;
  size_t dstXInBytes, dstY, dstZ, dstLOD;
  int dstMemoryType;
  void *dstHost;
  CudaDriver::DevicePtr dstDevice;
  void *dstArray, *reserved1;
  size_t dstPitch, dstHeight;
  size_t widthInBytes, height, depth;
};
struct MemsetNodeParams {
  CudaDriver::DevicePtr dst;
  size_t pitch;
  unsigned value, elementSize;
  size_t width, height;
};

enum NodeType {
  kKernelNode = 0,
  kCopyNode = 1,
  kMemsetNode = 2,
  kEmptyNode = 5,
  kWaitEventNode = 6,
  kRecordEventNode = 7,
  kMemoryAllocationNode = 10,
  kMemoryFreeNode = 11
};
enum MemoryType { kDeviceMemory = 2, kUnifiedMemory = 4 };

const char *nodeTypeName(int type) {
  switch (type) {
  case 3:
    return "host function";
  case 4:
    return "child graph";
  case 8:
  case 9:
    return "external semaphore";
  case 12:
    return "batched memory operation";
  case 13:
    return "conditional";
  default:
    return "unknown";
  }
}

/// A node of a captured graph that holds input addresses, with its
/// parameters as they will be set when an input moves.
struct PatchableNode {
  CudaDriver::Handle node = nullptr;
  int type = kKernelNode;
  KernelNodeParams kernel{};
  /// Kernel parameter values, and pointers to them for kernelParams.
  std::vector<std::vector<uint8_t>> values;
  std::vector<void *> pointers;
  CopyNodeParams copy{};
  MemsetNodeParams memset{};
  bool dirty = false;
};

/// CUDA backend: driver graphs and executables.
struct CudaGraph : Captured {
  const CudaDriver *driver;
  CudaDriver::Handle graph;
  /// The kernels the capture launched through gpRtLaunchCudaKernel.
  std::vector<void *> ownKernels;
  std::vector<PatchableNode> patchable;
  CudaDriver::Handle context = nullptr;
  /// It allocates or frees memory itself: instantiable only once at a time.
  bool memoryNodes = false;
  CudaGraph(const CudaDriver *driver, CudaDriver::Handle graph)
      : driver(driver), graph(graph) {}
  ~CudaGraph() override {
    if (graph)
      driver->cuGraphDestroy(graph);
  }
};

struct CudaExecutable : Executable {
  const CudaDriver *driver;
  CudaDriver::Handle exec;
  /// The graph it was instantiated from, whose nodes name the executable's
  /// nodes when their parameters are set, kept while it has sites (shared
  /// with the executables cloned from it).
  std::shared_ptr<void> graph;
  std::vector<PatchableNode> patchable;
  CudaDriver::Handle context = nullptr;
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
    auto captured = std::make_unique<CudaGraph>(driver, handle);
    captured->ownKernels = std::move(stream.ownKernels);
    captured->fixedReason = std::move(stream.fixedReason);
    stream.ownKernels.clear();
    stream.fixedReason.clear();
    graph = std::move(captured);
    return GP_RT_SUCCESS;
  }
  gpRtStatus instantiate(Captured &graph,
                         std::unique_ptr<Executable> &exec) override {
    auto &cuda = static_cast<CudaGraph &>(graph);
    CudaDriver::Handle handle = nullptr;
    if (gpRtStatus status = driver->check(
            driver->cuGraphInstantiateWithFlags(&handle, cuda.graph, 0),
            "cuGraphInstantiate"))
      return status;
    auto made = std::make_unique<CudaExecutable>(driver, handle);
    made->cloneable = !cuda.memoryNodes;
    if (!cuda.patchable.empty()) {
      made->patchable = std::move(cuda.patchable);
      made->context = cuda.context;
      const CudaDriver *owner = driver;
      made->graph = std::shared_ptr<void>(
          cuda.graph, [owner](void *graph) { owner->cuGraphDestroy(graph); });
      cuda.graph = nullptr;
    }
    exec = std::move(made);
    return GP_RT_SUCCESS;
  }
  gpRtStatus
  findInputAddresses(Captured &graph,
                     const std::vector<InputRange> &inputs) override {
    auto &cuda = static_cast<CudaGraph &>(graph);
    graph.alignmentKeyed.assign(inputs.size(), false);
    if (!driver->rebindUnavailable.empty()) {
      graph.fixedReason = driver->rebindUnavailable;
      return GP_RT_SUCCESS;
    }
    size_t count = 0;
    if (gpRtStatus status =
            driver->check(driver->cuGraphGetNodes(cuda.graph, nullptr, &count),
                          "cuGraphGetNodes"))
      return status;
    std::vector<CudaDriver::Handle> nodes(count);
    if (gpRtStatus status = driver->check(
            driver->cuGraphGetNodes(cuda.graph, nodes.data(), &count),
            "cuGraphGetNodes"))
      return status;
    if (gpRtStatus status = driver->check(
            driver->cuCtxGetCurrent(&cuda.context), "cuCtxGetCurrent"))
      return status;
    for (CudaDriver::Handle node : nodes) {
      int type = -1;
      if (gpRtStatus status = driver->check(
              driver->cuGraphNodeGetType(node, &type), "cuGraphNodeGetType"))
        return status;
      PatchableNode patch;
      patch.node = node;
      patch.type = type;
      auto index = static_cast<uint32_t>(cuda.patchable.size());
      size_t before = graph.sites.size();
      switch (type) {
      case kKernelNode:
        if (gpRtStatus status = findKernelSites(cuda, patch, inputs, index))
          return status;
        break;
      case kCopyNode:
        if (gpRtStatus status = driver->check(
                driver->cuGraphMemcpyNodeGetParams(node, &patch.copy),
                "cuGraphMemcpyNodeGetParams"))
          return status;
        for (auto [field, memoryType, address] :
             {std::tuple{0u, patch.copy.srcMemoryType, &patch.copy.srcDevice},
              std::tuple{1u, patch.copy.dstMemoryType, &patch.copy.dstDevice}})
          if (memoryType == kDeviceMemory || memoryType == kUnifiedMemory)
            findSites(address, sizeof(*address), inputs, SiteKind::CopyAddress,
                      index, field, graph.sites);
        break;
      case kMemsetNode:
        if (gpRtStatus status = driver->check(
                driver->cuGraphMemsetNodeGetParams(node, &patch.memset),
                "cuGraphMemsetNodeGetParams"))
          return status;
        findSites(&patch.memset.dst, sizeof(patch.memset.dst), inputs,
                  SiteKind::CopyAddress, index, 0, graph.sites);
        break;
      case kEmptyNode:
      case kWaitEventNode:
      case kRecordEventNode:
      // Memory the graph allocates and frees itself (cuBLAS's workspace,
      // through cudaMallocAsync): never a caller's buffer.
      case kMemoryAllocationNode:
      case kMemoryFreeNode:
        cuda.memoryNodes = true;
        break;
      default:
        if (graph.fixedReason.empty())
          graph.fixedReason = std::string("the graph holds a ") +
                              nodeTypeName(type) +
                              " node, which the runtime does not re-bind";
        break;
      }
      if (graph.sites.size() > before)
        cuda.patchable.push_back(std::move(patch));
    }
    return GP_RT_SUCCESS;
  }
  gpRtStatus clone(Executable &exec,
                   std::unique_ptr<Executable> &copy) override {
    auto &source = static_cast<CudaExecutable &>(exec);
    CudaDriver::Handle handle = nullptr;
    if (gpRtStatus status = driver->check(
            driver->cuGraphInstantiateWithFlags(&handle, source.graph.get(), 0),
            "cuGraphInstantiate"))
      return status;
    auto made = std::make_unique<CudaExecutable>(driver, handle);
    made->graph = source.graph;
    made->context = source.context;
    made->patchable = source.patchable;
    for (PatchableNode &patch : made->patchable) {
      // Its parameter pointers are its own values', and every node is set
      // at the first re-binding (the executable holds the capture's
      // values, the copies the source's current ones).
      for (size_t i = 0; i < patch.values.size(); ++i)
        patch.pointers[i] = patch.values[i].data();
      patch.dirty = true;
    }
    copy = std::move(made);
    return GP_RT_SUCCESS;
  }
  gpRtStatus rebind(Executable &exec, const std::vector<InputRange> &inputs,
                    int64_t &written) override {
    auto &cuda = static_cast<CudaExecutable &>(exec);
    written += rewriteSites(exec.sites, inputs, exec.bound,
                            [&](const BindingSite &site) -> void * {
                              PatchableNode &patch = cuda.patchable[site.node];
                              patch.dirty = true;
                              if (patch.type == kKernelNode)
                                return patch.values[site.field].data();
                              if (patch.type == kCopyNode)
                                return site.field == 0 ? &patch.copy.srcDevice
                                                       : &patch.copy.dstDevice;
                              return &patch.memset.dst;
                            });
    for (PatchableNode &patch : cuda.patchable) {
      if (!patch.dirty)
        continue;
      patch.dirty = false;
      CudaDriver::Result result = 0;
      const char *what = "";
      if (patch.type == kKernelNode) {
        patch.kernel.kernelParams = patch.pointers.data();
        result = driver->cuGraphExecKernelNodeSetParams(cuda.exec, patch.node,
                                                        &patch.kernel);
        what = "cuGraphExecKernelNodeSetParams";
      } else if (patch.type == kCopyNode) {
        result = driver->cuGraphExecMemcpyNodeSetParams(
            cuda.exec, patch.node, &patch.copy, cuda.context);
        what = "cuGraphExecMemcpyNodeSetParams";
      } else {
        result = driver->cuGraphExecMemsetNodeSetParams(
            cuda.exec, patch.node, &patch.memset, cuda.context);
        what = "cuGraphExecMemsetNodeSetParams";
      }
      if (gpRtStatus status = driver->check(result, what))
        return status;
    }
    return GP_RT_SUCCESS;
  }
  gpRtStatus tryUpdate(Executable &exec, Captured &graph,
                       bool &updated) override {
    // Parameters are set through the nodes of the graph an executable was
    // instantiated from, so one with sites keeps its own graph.
    if (!exec.sites.empty() || !graph.sites.empty()) {
      updated = false;
      return GP_RT_SUCCESS;
    }
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
  /// The sites of a kernel node: every 8-byte word of its parameters (as
  /// cuFuncGetParamInfo lays them out) that holds an input address. Inputs
  /// a library kernel reads are keyed by alignment class.
  gpRtStatus findKernelSites(CudaGraph &graph, PatchableNode &patch,
                             const std::vector<InputRange> &inputs,
                             uint32_t index) {
    if (gpRtStatus status = driver->check(
            driver->cuGraphKernelNodeGetParams(patch.node, &patch.kernel),
            "cuGraphKernelNodeGetParams"))
      return status;
    if (!patch.kernel.kernelParams) {
      if (patch.kernel.extra && graph.fixedReason.empty())
        graph.fixedReason = "a kernel in the graph takes its parameters as "
                            "one buffer ('extra'), which the runtime does "
                            "not re-bind";
      return GP_RT_SUCCESS;
    }
    CudaDriver::Handle function = patch.kernel.function;
    if (!function && patch.kernel.kernel)
      if (gpRtStatus status = driver->check(
              driver->cuKernelGetFunction(&function, patch.kernel.kernel),
              "cuKernelGetFunction"))
        return status;
    size_t before = graph.sites.size();
    for (size_t i = 0;; ++i) {
      size_t offset = 0, size = 0;
      if (driver->cuFuncGetParamInfo(function, i, &offset, &size) != 0)
        break; // Past the last parameter.
      const uint8_t *value =
          static_cast<const uint8_t *>(patch.kernel.kernelParams[i]);
      patch.values.emplace_back(value, value + size);
      findSites(value, size, inputs, SiteKind::KernelParameter, index,
                static_cast<uint32_t>(i), graph.sites);
    }
    for (std::vector<uint8_t> &value : patch.values)
      patch.pointers.push_back(value.data());
    bool own = std::find(graph.ownKernels.begin(), graph.ownKernels.end(),
                         patch.kernel.function) != graph.ownKernels.end();
    if (!own)
      for (size_t s = before; s < graph.sites.size(); ++s)
        graph.alignmentKeyed[graph.sites[s].input] = true;
    return GP_RT_SUCCESS;
  }

  const CudaDriver *driver;
};

} // namespace

std::unique_ptr<Device> gp::rt::makeCudaDevice(const CudaDriver *driver) {
  return std::make_unique<CudaDevice>(driver);
}
