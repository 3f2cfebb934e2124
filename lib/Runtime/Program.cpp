//===- Program.cpp - programs, partitions, capture and replay -------------===//
//
// A program is a table of partitions. Each thread that runs a program gets
// its own context (arena, stream, graphs), so threads never allocate into
// each other's pools. Per partition and shape key, a capturable partition
// is run eagerly for the warm-up runs, then captured once, then replayed.
// When a new capture has the same topology as an executable the partition
// already holds, that executable is updated in place instead of
// instantiating another.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include <algorithm>
#include <tuple>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

using namespace gp::rt;

//===----------------------------------------------------------------------===//
// Live counts and logs
//===----------------------------------------------------------------------===//

namespace {
std::atomic<int64_t> livePrograms{0}, liveGraphs{0}, liveStreams{0},
    livePoolBytes{0};

struct LogState {
  std::mutex mutex;
  int32_t mask = 0;
  gpRtLogSink sink = nullptr;
  void *userData = nullptr;

  LogState() {
    if (const char *env = std::getenv("GP_LOG")) {
      std::string value = env;
      if (value.find("partitions") != std::string::npos || value == "all")
        mask |= GP_RT_LOG_PARTITIONS;
      if (value.find("cudagraphs") != std::string::npos || value == "all")
        mask |= GP_RT_LOG_CUDAGRAPHS;
    }
  }
};

LogState &logState() {
  static LogState state;
  return state;
}
} // namespace

void gp::rt::log(int32_t kind, const std::string &line) {
  LogState &state = logState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!(state.mask & kind))
    return;
  if (state.sink)
    state.sink(line.c_str(), state.userData);
  else
    std::fprintf(stderr, "[graphpart] %s\n", line.c_str());
}

void gp::rt::warn(const std::string &line) {
  LogState &state = logState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.sink)
    state.sink(("warning: " + line).c_str(), state.userData);
  else
    std::fprintf(stderr, "[graphpart] warning: %s\n", line.c_str());
}

bool gp::rt::logEnabled(int32_t kind) {
  LogState &state = logState();
  std::lock_guard<std::mutex> lock(state.mutex);
  return state.mask & kind;
}

//===----------------------------------------------------------------------===//
// Graphs and devices
//===----------------------------------------------------------------------===//

namespace {

/// A captured graph, before instantiation; counted while alive.
struct Captured {
  Captured() { ++liveGraphs; }
  virtual ~Captured() { --liveGraphs; }
};

/// An instantiated graph, ready to launch; counted while alive.
struct Executable {
  Executable() { ++liveGraphs; }
  virtual ~Executable() { --liveGraphs; }
};

/// Host backend: a graph is the list of recorded launches, with parameter
/// values by copy.
struct HostLaunch {
  gpRtHostKernel kernel;
  std::vector<std::vector<uint8_t>> params;
  /// A recorded extern call instead of a kernel.
  gpRtExternFn externFn = nullptr;
  gpRtStream *stream = nullptr;
};

struct HostGraph : Captured {
  std::vector<HostLaunch> launches;

  bool sameTopology(const HostGraph &other) const {
    if (launches.size() != other.launches.size())
      return false;
    for (size_t i = 0; i < launches.size(); ++i) {
      const HostLaunch &a = launches[i], &b = other.launches[i];
      if (a.kernel != b.kernel || a.externFn != b.externFn ||
          a.params.size() != b.params.size())
        return false;
      for (size_t p = 0; p < a.params.size(); ++p)
        if (a.params[p].size() != b.params[p].size())
          return false;
    }
    return true;
  }
};

struct HostExecutable : Executable {
  HostGraph graph;
  std::vector<std::vector<void *>> pointers;

  void assign(const HostGraph &source) {
    graph.launches = source.launches;
    pointers.assign(graph.launches.size(), {});
    for (size_t i = 0; i < graph.launches.size(); ++i)
      for (std::vector<uint8_t> &param : graph.launches[i].params)
        pointers[i].push_back(param.data());
  }
};

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

} // namespace

namespace {
/// Blocks of memory for buffers sized at run time, released together.
struct DynamicMemory {
  const CudaDriver *driver = nullptr; // cuda backend only
  std::vector<std::pair<void *, int64_t>> blocks;

  explicit DynamicMemory(const CudaDriver *driver) : driver(driver) {}
  DynamicMemory(const DynamicMemory &) = delete;
  ~DynamicMemory() {
    releaseSpare();
    for (auto [pointer, bytes] : blocks) {
      if (driver)
        driver->cuMemFree(reinterpret_cast<CudaDriver::DevicePtr>(pointer));
      else
        std::free(pointer);
      livePoolBytes -= bytes;
    }
  }

  /// Blocks of an earlier run, handed out again (in order, when they fit)
  /// so a partition's run-time-sized outputs keep their addresses from run
  /// to run: a captured partition reading them then keeps replaying.
  std::vector<std::pair<void *, int64_t>> spare;

  /// Makes the blocks given out so far spare for the next run.
  void recycle() {
    releaseSpare();
    spare = std::move(blocks);
    blocks.clear();
  }
  void releaseSpare() {
    for (auto [pointer, bytes] : spare) {
      if (driver)
        driver->cuMemFree(reinterpret_cast<CudaDriver::DevicePtr>(pointer));
      else
        std::free(pointer);
      livePoolBytes -= bytes;
    }
    spare.clear();
  }

  gpRtStatus allocate(int64_t bytes, void *&pointer) {
    int64_t rounded = std::max<int64_t>((bytes + 255) / 256 * 256, 256);
    for (auto it = spare.begin(); it != spare.end(); ++it)
      if (it->second >= rounded) {
        pointer = it->first;
        blocks.push_back(*it);
        spare.erase(it);
        return GP_RT_SUCCESS;
      }
    if (driver) {
      CudaDriver::DevicePtr device = 0;
      if (gpRtStatus status =
              driver->check(driver->cuMemAlloc(&device, rounded), "cuMemAlloc"))
        return status;
      pointer = reinterpret_cast<void *>(device);
    } else {
      pointer = std::aligned_alloc(256, rounded);
      if (!pointer)
        return fail(GP_RT_ERROR_BACKEND, "gpRtAllocate: out of host memory");
    }
    blocks.emplace_back(pointer, rounded);
    livePoolBytes += rounded;
    return GP_RT_SUCCESS;
  }
};
} // namespace

struct gpRtStream {
  std::thread::id owner;
  gpRtBackend backend = GP_RT_BACKEND_HOST;
  /// Host: the graph being recorded, if capturing.
  HostGraph *recording = nullptr;
  /// cuda: inside a stream capture.
  bool capturing = false;
  /// cuda: the driver stream.
  CudaDriver::Handle cuStream = nullptr;
  /// Where gpRtAllocate takes memory during the body that is running:
  /// fresh blocks (eager and warm-up runs; their sizes are recorded in
  /// `sizes` when given) or the key's pool (capture), handed out in order.
  DynamicMemory *fresh = nullptr;
  std::vector<int64_t> *sizes = nullptr;
  DynamicMemory *pool = nullptr;
  size_t poolCursor = 0;
  /// A library handle bound to this stream (cuBLAS), and how to release it.
  void *libraryHandle = nullptr;
  void (*releaseLibrary)(void *) = nullptr;
};

gpRtBackend gp::rt::streamBackend(gpRtStream *stream) {
  return stream->backend;
}
bool gp::rt::streamIsCapturing(gpRtStream *stream) {
  if (stream->backend == GP_RT_BACKEND_HOST)
    return stream->recording != nullptr;
  return stream->capturing;
}
bool gp::rt::streamOnThisThread(gpRtStream *stream) {
  return stream->owner == std::this_thread::get_id();
}
void *gp::rt::streamCudaHandle(gpRtStream *stream) { return stream->cuStream; }
void *&gp::rt::streamLibraryHandle(gpRtStream *stream) {
  return stream->libraryHandle;
}
void gp::rt::setStreamLibraryRelease(gpRtStream *stream,
                                     void (*release)(void *)) {
  stream->releaseLibrary = release;
}

/// Appends `launch`, with copies of its parameter values, to the graph being
/// recorded on `stream`.
static gpRtStatus record(gpRtStream *stream, HostLaunch launch, void **params,
                         const int64_t *sizes, int32_t count,
                         const char *what) {
  for (int32_t i = 0; i < count; ++i) {
    if (sizes[i] < 0 || (sizes[i] > 0 && !params[i]))
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  std::string(what) + ": parameter " + std::to_string(i) +
                      " has no value or a negative size");
    const uint8_t *bytes = static_cast<const uint8_t *>(params[i]);
    launch.params.emplace_back(bytes, bytes + sizes[i]);
  }
  stream->recording->launches.push_back(std::move(launch));
  return GP_RT_SUCCESS;
}

gpRtStatus gp::rt::recordHostExtern(gpRtStream *stream, gpRtExternFn fn,
                                    void **args, const int64_t *argSizes,
                                    int32_t numArgs) {
  return record(stream, HostLaunch{nullptr, {}, fn, stream}, args, argSizes,
                numArgs, "gpRtCallExtern");
}

namespace {

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
  /// Makes `exec` run `graph` when their topologies match.
  virtual gpRtStatus tryUpdate(Executable &exec, Captured &graph,
                               bool &updated) = 0;
  virtual gpRtStatus launch(Executable &exec, gpRtStream &stream) = 0;
  virtual gpRtStatus synchronize(gpRtStream &stream) = 0;
};

class HostDevice : public Device {
public:
  gpRtStatus beginCapture(gpRtStream &stream) override {
    pending = std::make_unique<HostGraph>();
    stream.recording = pending.get();
    return GP_RT_SUCCESS;
  }
  gpRtStatus endCapture(gpRtStream &stream,
                        std::unique_ptr<Captured> &graph) override {
    stream.recording = nullptr;
    graph = std::move(pending);
    return GP_RT_SUCCESS;
  }
  gpRtStatus instantiate(Captured &graph,
                         std::unique_ptr<Executable> &exec) override {
    auto host = std::make_unique<HostExecutable>();
    host->assign(static_cast<HostGraph &>(graph));
    exec = std::move(host);
    return GP_RT_SUCCESS;
  }
  gpRtStatus tryUpdate(Executable &exec, Captured &graph,
                       bool &updated) override {
    auto &host = static_cast<HostExecutable &>(exec);
    auto &source = static_cast<HostGraph &>(graph);
    updated = host.graph.sameTopology(source);
    if (updated)
      host.assign(source);
    return GP_RT_SUCCESS;
  }
  gpRtStatus launch(Executable &exec, gpRtStream &) override {
    auto &host = static_cast<HostExecutable &>(exec);
    for (size_t i = 0; i < host.graph.launches.size(); ++i) {
      HostLaunch &launch = host.graph.launches[i];
      if (launch.externFn) {
        if (gpRtStatus status =
                launch.externFn(launch.stream, host.pointers[i].data(),
                                host.pointers[i].size()))
          return status;
        continue;
      }
      launch.kernel(host.pointers[i].data());
    }
    return GP_RT_SUCCESS;
  }
  gpRtStatus synchronize(gpRtStream &) override { return GP_RT_SUCCESS; }

private:
  std::unique_ptr<HostGraph> pending;
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
    if (gpRtStatus status = driver->check(
            driver->cuStreamEndCapture(stream.cuStream, &handle),
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
    CudaDriver::Result result = driver->cuGraphExecUpdate(
        static_cast<CudaExecutable &>(exec).exec,
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

/// What a partition has learnt about one shape key.
struct ShapeState {
  int64_t warmups = 0;
  /// Sizes the warm-up runs asked gpRtAllocate for.
  std::vector<int64_t> allocationSizes;
  bool captured = false; // Counted in recordedShapes.
};

/// A graph is recorded for a shape key and the addresses of the partition's
/// input buffers, which the graph bakes in: inputs at other addresses get
/// a graph of their own (usually an in-place update of an executable).
struct GraphKey {
  std::vector<int64_t> shape;
  std::vector<void *> inputs;
};
/// A key as a replay sees it, looked up without copying.
struct GraphKeyView {
  const std::vector<int64_t> &shape;
  void *const *inputs;
  size_t numInputs;
};
struct GraphKeyLess {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A &a, const B &b) const {
    if (a.shape != b.shape)
      return a.shape < b.shape;
    return std::lexicographical_compare(begin(a), end(a), begin(b), end(b));
  }

private:
  static void *const *begin(const GraphKey &k) { return k.inputs.data(); }
  static void *const *end(const GraphKey &k) {
    return k.inputs.data() + k.inputs.size();
  }
  static void *const *begin(const GraphKeyView &k) { return k.inputs; }
  static void *const *end(const GraphKeyView &k) {
    return k.inputs + k.numInputs;
  }
};

struct KeyState {
  /// The pool the capture got for the shape's run-time sizes (alive as long
  /// as the graph).
  std::unique_ptr<DynamicMemory> pool;
  std::unique_ptr<Captured> graph;
  Executable *executable = nullptr;
  /// What the capture's body handed back to its caller, written back on
  /// every replay.
  std::vector<uint8_t> results;
  int64_t lastUse = 0;
};

/// Graphs kept per shape key for different input addresses; beyond this the
/// least recently used is dropped.
constexpr size_t kMaxAddressVariants = 8;

struct PartitionState {
  std::map<std::vector<int64_t>, ShapeState> shapes;
  std::map<GraphKey, KeyState, GraphKeyLess> keys;
  std::vector<std::unique_ptr<Executable>> executables;
  /// Which key each executable currently holds.
  std::map<Executable *, GraphKey> holder;
  int64_t recordedShapes = 0;
  int64_t uses = 0;
  /// Memory for run-time sizes of the last eager or warm-up run: its
  /// buffers may outlive the body (partition outputs), so it is kept until
  /// the partition runs eagerly again on this thread.
  std::unique_ptr<DynamicMemory> lastRunMemory;
};

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

  ~ThreadContext() {
    partitions.clear(); // Graphs before the stream and memory they use.
    if (stream.libraryHandle && stream.releaseLibrary)
      stream.releaseLibrary(stream.libraryHandle);
    if (driver) {
      if (arena)
        driver->cuMemFree(reinterpret_cast<CudaDriver::DevicePtr>(arena));
      if (stream.cuStream)
        driver->cuStreamDestroy(stream.cuStream);
    } else if (arena) {
      std::free(arena);
    }
    if (arena)
      livePoolBytes -= arenaBytes;
    if (hostArena) {
      std::free(hostArena);
      livePoolBytes -= hostArenaBytes;
    }
    --liveStreams;
  }
};

std::string describeKey(const std::vector<int64_t> &key) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < key.size(); ++i)
    os << (i ? ", " : "") << key[i];
  os << "]";
  return os.str();
}

} // namespace

struct gpRtProgram {
  std::string name;
  std::vector<gpRtPartitionInfo> partitions;
  std::vector<std::string> reasons;
  int64_t arenaBytes = 0;
  int64_t hostArenaBytes = 0;
  gpRtBackend backend = GP_RT_BACKEND_HOST;
  int32_t device = 0;

  // cuda backend.
  const CudaDriver *driver = nullptr;
  CudaDriver::Handle cuContext = nullptr;
  int cuDevice = 0;
  std::vector<CudaDriver::Handle> modules;
  /// gpRtCudaGetKernel's cache: (image, name) -> function.
  std::map<std::pair<const void *, std::string>, void *> kernels;
  std::map<const void *, CudaDriver::Handle> imageModules;

  // Policy.
  int32_t warmupRuns = 1;
  int32_t shapeWarningLimit = 8;
  bool orError = false;
  bool captureEnabled = true;
  bool hasCaptureSizes = false;
  int32_t captureKeyLength = 0;
  std::vector<std::vector<int64_t>> captureSizes;

  std::mutex mutex; // Guards contexts, modules, stats and RNG.
  std::map<std::thread::id, std::unique_ptr<ThreadContext>> contexts;
  gpRtStats stats{};
  RngState rng;

  ~gpRtProgram() {
    if (driver)
      driver->cuCtxSetCurrent(cuContext);
    contexts.clear();
    if (driver) {
      for (CudaDriver::Handle module : modules)
        driver->cuModuleUnload(module);
      driver->cuDevicePrimaryCtxRelease(cuDevice);
    }
  }

  /// The calling thread's context, made on first use.
  gpRtStatus context(ThreadContext *&result) {
    if (driver)
      if (gpRtStatus status = driver->check(driver->cuCtxSetCurrent(cuContext),
                                            "cuCtxSetCurrent"))
        return status;
    std::lock_guard<std::mutex> lock(mutex);
    auto &slot = contexts[std::this_thread::get_id()];
    if (!slot) {
      auto made = std::make_unique<ThreadContext>();
      ++liveStreams;
      made->partitions.resize(partitions.size());
      made->stream.owner = std::this_thread::get_id();
      made->stream.backend = backend;
      int64_t rounded = (arenaBytes + 255) / 256 * 256;
      if (driver) {
        made->driver = driver;
        made->device = std::make_unique<CudaDevice>(driver);
        // Non-blocking: the legacy default stream (synchronous copies and
        // frees, anyone's) must not synchronise with this stream, or it
        // would invalidate a capture open on it.
        constexpr unsigned kStreamNonBlocking = 1; // CU_STREAM_NON_BLOCKING
        if (gpRtStatus status = driver->check(
                driver->cuStreamCreate(&made->stream.cuStream,
                                       kStreamNonBlocking),
                "cuStreamCreate"))
          return status;
        if (rounded > 0) {
          CudaDriver::DevicePtr pointer = 0;
          if (gpRtStatus status = driver->check(
                  driver->cuMemAlloc(&pointer, rounded), "cuMemAlloc"))
            return status;
          made->arena = reinterpret_cast<void *>(pointer);
        }
      } else {
        made->device = std::make_unique<HostDevice>();
        if (rounded > 0)
          made->arena = std::aligned_alloc(256, rounded);
      }
      if (made->arena) {
        made->arenaBytes = rounded;
        livePoolBytes += rounded;
      }
      if (int64_t hostRounded = (hostArenaBytes + 255) / 256 * 256) {
        made->hostArena = std::aligned_alloc(256, hostRounded);
        if (!made->hostArena)
          return fail(GP_RT_ERROR_BACKEND, "out of host memory for the host "
                                           "arena");
        made->hostArenaBytes = hostRounded;
        livePoolBytes += hostRounded;
      }
      slot = std::move(made);
    }
    result = slot.get();
    return GP_RT_SUCCESS;
  }

  void count(int64_t gpRtStats::*field, int64_t by = 1) {
    std::lock_guard<std::mutex> lock(mutex);
    stats.*field += by;
  }

  bool inCaptureSizes(const std::vector<int64_t> &key) const {
    if (!hasCaptureSizes ||
        static_cast<int32_t>(key.size()) != captureKeyLength)
      return true; // The list speaks about keys of its own length only.
    for (const std::vector<int64_t> &allowed : captureSizes)
      if (allowed == key)
        return true;
    return false;
  }
};

/// Parses "1,2,4" (keys of one value) or "2x3,4x5" (keys of two).
gpRtStatus gp::rt::parseCaptureSizes(const std::string &text,
                                    std::vector<std::vector<int64_t>> &keys,
                                    int32_t &keyLength) {
  keys.clear();
  keyLength = -1;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    std::vector<int64_t> key;
    std::stringstream parts(item);
    std::string part;
    while (std::getline(parts, part, 'x')) {
      char *end = nullptr;
      long long value = std::strtoll(part.c_str(), &end, 10);
      if (part.empty() || *end != '\0' || value < 0)
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    "GP_CUDAGRAPH_CAPTURE_SIZES: '" + item +
                        "' is not a size or a size tuple like 2x3");
      key.push_back(value);
    }
    if (keyLength >= 0 && static_cast<int32_t>(key.size()) != keyLength)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "GP_CUDAGRAPH_CAPTURE_SIZES: every entry must have the "
                  "same number of sizes");
    keyLength = key.size();
    keys.push_back(key);
  }
  if (keys.empty())
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "GP_CUDAGRAPH_CAPTURE_SIZES is empty");
  return GP_RT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

extern "C" {

GP_RT_EXPORT gpRtStatus gpRtProgramCreate(const gpRtProgramInfo *info,
                                          gpRtBackend backend, int32_t device,
                                          gpRtProgram **program) {
  if (!info || !program || (info->numPartitions > 0 && !info->partitions) ||
      info->numPartitions < 0 || info->arenaBytes < 0 ||
      info->hostArenaBytes < 0 ||
      info->numGenerators < 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramCreate: missing or negative program description");
  if (backend != GP_RT_BACKEND_HOST && backend != GP_RT_BACKEND_CUDA)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramCreate: unknown backend " +
                    std::to_string(backend));
  for (int32_t i = 0; i < info->numPartitions; ++i)
    if (info->partitions[i].numShapeSymbols < 0)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "gpRtProgramCreate: partition " + std::to_string(i) +
                      " has a negative shape-key length");

  auto result = std::make_unique<gpRtProgram>();
  result->name = info->name ? info->name : "program";
  result->partitions.assign(info->partitions,
                            info->partitions + info->numPartitions);
  for (const gpRtPartitionInfo &partition : result->partitions)
    result->reasons.push_back(partition.reasons ? partition.reasons : "");
  result->arenaBytes = info->arenaBytes;
  result->hostArenaBytes = info->hostArenaBytes;
  result->backend = backend;
  result->device = device;
  result->rng.init(info->seed, info->numGenerators);
  if (backend == GP_RT_BACKEND_CUDA) {
    const CudaDriver *driver = nullptr;
    if (gpRtStatus status = CudaDriver::get(driver))
      return status;
    int count = 0;
    if (gpRtStatus status =
            driver->check(driver->cuDeviceGetCount(&count), "cuDeviceGetCount"))
      return status;
    if (device < 0 || device >= count)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "gpRtProgramCreate: no cuda device " +
                      std::to_string(device) + " (the driver reports " +
                      std::to_string(count) + ")");
    if (gpRtStatus status = driver->check(
            driver->cuDeviceGet(&result->cuDevice, device), "cuDeviceGet"))
      return status;
    if (gpRtStatus status = driver->check(
            driver->cuDevicePrimaryCtxRetain(&result->cuContext,
                                             result->cuDevice),
            "cuDevicePrimaryCtxRetain"))
      return status;
    result->driver = driver;
  }

  if (const char *env = std::getenv("GP_CUDAGRAPH_CAPTURE_SIZES"); env && *env) {
    if (gpRtStatus status = parseCaptureSizes(env, result->captureSizes,
                                              result->captureKeyLength))
      return status;
    result->hasCaptureSizes = true;
  }
  if (const char *env = std::getenv("GP_CUDAGRAPH_OR_ERROR"))
    result->orError = std::string(env) != "" && std::string(env) != "0";
  if (const char *env = std::getenv("GP_CUDAGRAPH_SHAPE_WARNING_LIMIT");
      env && *env) {
    char *end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (*end != '\0' || value < 0)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "GP_CUDAGRAPH_SHAPE_WARNING_LIMIT must be a non-negative "
                  "integer");
    result->shapeWarningLimit = value;
  }

  if (logEnabled(GP_RT_LOG_PARTITIONS)) {
    int capturable = 0;
    for (const gpRtPartitionInfo &partition : result->partitions)
      capturable += partition.capturable ? 1 : 0;
    std::ostringstream os;
    os << result->name << ": " << result->partitions.size()
       << " partitions: " << capturable << " capturable, "
       << result->partitions.size() - capturable << " eager";
    log(GP_RT_LOG_PARTITIONS, os.str());
    for (size_t i = 0; i < result->partitions.size(); ++i)
      if (!result->partitions[i].capturable)
        log(GP_RT_LOG_PARTITIONS, result->name + ": partition " +
                                      std::to_string(i) + " is eager: " +
                                      result->reasons[i]);
  }
  ++livePrograms;
  *program = result.release();
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramDestroy(gpRtProgram *program) {
  if (!program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtProgramDestroy: null");
  delete program;
  --livePrograms;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramSetWarmupRuns(gpRtProgram *program,
                                                 int32_t runs) {
  if (!program || runs < 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramSetWarmupRuns: null program or negative count");
  program->warmupRuns = runs;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramSetCaptureSizes(gpRtProgram *program,
                                                   const int64_t *keys,
                                                   int32_t numKeys,
                                                   int32_t keyLength) {
  if (!program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramSetCaptureSizes: null program");
  if (numKeys < 0) {
    program->hasCaptureSizes = false;
    program->captureSizes.clear();
    return GP_RT_SUCCESS;
  }
  if (keyLength < 0 || (numKeys > 0 && keyLength > 0 && !keys))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramSetCaptureSizes: bad key list");
  program->captureSizes.clear();
  for (int32_t i = 0; i < numKeys; ++i)
    program->captureSizes.emplace_back(keys + i * keyLength,
                                       keys + (i + 1) * keyLength);
  program->captureKeyLength = keyLength;
  program->hasCaptureSizes = true;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramSetShapeWarningLimit(gpRtProgram *program,
                                                        int32_t limit) {
  if (!program || limit < 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramSetShapeWarningLimit: null program or negative "
                "limit");
  program->shapeWarningLimit = limit;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramSetOrError(gpRtProgram *program,
                                              int32_t enabled) {
  if (!program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramSetOrError: null program");
  program->orError = enabled != 0;
  return GP_RT_SUCCESS;
}

/// The calling thread's device arena or host arena.
static gpRtStatus threadArena(gpRtProgram *program, void **base, bool host,
                              const char *what) {
  if (!program || !base)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, std::string(what) + ": null");
  ThreadContext *context = nullptr;
  if (gpRtStatus status = program->context(context))
    return status;
  *base = host ? context->hostArena : context->arena;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramArena(gpRtProgram *program, void **base) {
  return threadArena(program, base, /*host=*/false, "gpRtProgramArena");
}

GP_RT_EXPORT gpRtStatus gpRtProgramHostArena(gpRtProgram *program,
                                             void **base) {
  return threadArena(program, base, /*host=*/true, "gpRtProgramHostArena");
}

/// A launch or allocation on `stream` must come from the thread running it
/// and, for launches, suit its backend.
static gpRtStatus checkStream(gpRtStream *stream, const char *what,
                              std::optional<gpRtBackend> backend) {
  if (stream->owner != std::this_thread::get_id())
    return fail(GP_RT_ERROR_WRONG_THREAD,
                std::string(what) + ": the stream belongs to another thread");
  if (backend && stream->backend != *backend)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": the stream belongs to a " +
                    gpRtBackendName(stream->backend) + " program");
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtAllocate(gpRtStream *stream, int64_t bytes,
                                     void **pointer) {
  if (!stream || !pointer || bytes < 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtAllocate: null stream or pointer, or negative size");
  if (gpRtStatus status = checkStream(stream, "gpRtAllocate", std::nullopt))
    return status;
  if (stream->pool) {
    auto &blocks = stream->pool->blocks;
    if (stream->poolCursor >= blocks.size() ||
        blocks[stream->poolCursor].second < bytes)
      return fail(GP_RT_ERROR_NOT_CAPTURED,
                  "gpRtAllocate: " + std::to_string(bytes) +
                      " bytes asked for during a capture that the warm-up "
                      "runs did not ask for (run at least one warm-up)");
    *pointer = blocks[stream->poolCursor++].first;
    return GP_RT_SUCCESS;
  }
  if (!stream->fresh)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtAllocate: called outside a partition body");
  if (stream->sizes)
    stream->sizes->push_back(bytes);
  return stream->fresh->allocate(bytes, *pointer);
}

/// A recorded host copy: params are (dst, src, bytes).
static void hostCopyKernel(void **params) {
  std::memcpy(*static_cast<void **>(params[0]),
              *static_cast<const void **>(params[1]),
              *static_cast<int64_t *>(params[2]));
}

GP_RT_EXPORT gpRtStatus gpRtCopy(gpRtStream *stream, void *dst,
                                 const void *src, int64_t bytes,
                                 gpRtCopyKind kind) {
  if (!stream || bytes < 0 || (bytes > 0 && (!dst || !src)) ||
      kind < GP_RT_COPY_HOST_TO_HOST || kind > GP_RT_COPY_PROGRAM_TO_PROGRAM)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtCopy: null stream or pointer, negative size or unknown "
                "kind");
  if (gpRtStatus status = checkStream(stream, "gpRtCopy", std::nullopt))
    return status;
  if (bytes == 0)
    return GP_RT_SUCCESS;
  bool capturing = streamIsCapturing(stream);
  if (capturing && kind != GP_RT_COPY_PROGRAM_TO_PROGRAM)
    return fail(GP_RT_ERROR_NOT_CAPTURED,
                "gpRtCopy: a copy to or from host memory cannot be captured");
  if (stream->backend == GP_RT_BACKEND_HOST) {
    if (!capturing) {
      std::memcpy(dst, src, bytes);
      return GP_RT_SUCCESS;
    }
    void *params[] = {&dst, const_cast<void **>(&src), &bytes};
    const int64_t sizes[] = {sizeof(void *), sizeof(void *), sizeof(int64_t)};
    return record(stream, HostLaunch{hostCopyKernel, {}}, params, sizes, 3,
                  "gpRtCopy");
  }
  const CudaDriver *driver = nullptr;
  if (gpRtStatus status = CudaDriver::get(driver))
    return status;
  auto device = [](const void *pointer) {
    return reinterpret_cast<CudaDriver::DevicePtr>(pointer);
  };
  switch (kind) {
  case GP_RT_COPY_HOST_TO_HOST:
    // Host memory the queued work may still write (an earlier device to
    // host copy is complete on return, so only order matters here).
    std::memcpy(dst, src, bytes);
    return GP_RT_SUCCESS;
  case GP_RT_COPY_HOST_TO_PROGRAM:
    return driver->check(driver->cuMemcpyHtoDAsync(device(dst), src, bytes,
                                                    stream->cuStream),
                         "cuMemcpyHtoDAsync");
  case GP_RT_COPY_PROGRAM_TO_HOST:
    if (gpRtStatus status = driver->check(
            driver->cuMemcpyDtoHAsync(dst, device(src), bytes,
                                      stream->cuStream),
            "cuMemcpyDtoHAsync"))
      return status;
    return driver->check(driver->cuStreamSynchronize(stream->cuStream),
                         "cuStreamSynchronize");
  default:
    return driver->check(driver->cuMemcpyDtoDAsync(device(dst), device(src),
                                                   bytes, stream->cuStream),
                         "cuMemcpyDtoDAsync");
  }
}

GP_RT_EXPORT gpRtStatus gpRtProgramSetCaptureEnabled(gpRtProgram *program,
                                                     int32_t enabled) {
  if (!program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramSetCaptureEnabled: null");
  program->captureEnabled = enabled != 0;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramAllocate(gpRtProgram *program,
                                            int64_t bytes, void **pointer) {
  if (!program || !pointer || bytes < 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramAllocate: null or negative size");
  int64_t rounded = std::max<int64_t>((bytes + 255) / 256 * 256, 256);
  if (!program->driver) {
    *pointer = std::aligned_alloc(256, rounded);
    return *pointer ? GP_RT_SUCCESS
                    : fail(GP_RT_ERROR_BACKEND,
                           "gpRtProgramAllocate: out of host memory");
  }
  const CudaDriver *driver = program->driver;
  if (gpRtStatus status = driver->check(
          driver->cuCtxSetCurrent(program->cuContext), "cuCtxSetCurrent"))
    return status;
  CudaDriver::DevicePtr device = 0;
  if (gpRtStatus status =
          driver->check(driver->cuMemAlloc(&device, rounded), "cuMemAlloc"))
    return status;
  *pointer = reinterpret_cast<void *>(device);
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramFree(gpRtProgram *program, void *pointer) {
  if (!program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtProgramFree: null");
  if (!pointer)
    return GP_RT_SUCCESS;
  if (!program->driver) {
    std::free(pointer);
    return GP_RT_SUCCESS;
  }
  const CudaDriver *driver = program->driver;
  if (gpRtStatus status = driver->check(
          driver->cuCtxSetCurrent(program->cuContext), "cuCtxSetCurrent"))
    return status;
  return driver->check(
      driver->cuMemFree(reinterpret_cast<CudaDriver::DevicePtr>(pointer)),
      "cuMemFree");
}

GP_RT_EXPORT gpRtStatus gpRtProgramSynchronize(gpRtProgram *program) {
  if (!program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtProgramSynchronize: null");
  ThreadContext *context = nullptr;
  if (gpRtStatus status = program->context(context))
    return status;
  return context->device->synchronize(context->stream);
}

/// Copies between host and program memory, in either direction.
static gpRtStatus copyProgram(gpRtProgram *program, void *dst,
                              const void *src, int64_t bytes, bool toProgram,
                              const char *what) {
  if (!program || bytes < 0 || (bytes > 0 && (!dst || !src)))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": null pointer or negative size");
  ThreadContext *context = nullptr;
  if (gpRtStatus status = program->context(context))
    return status;
  if (!program->driver) {
    std::memcpy(dst, src, bytes);
    return GP_RT_SUCCESS;
  }
  // On this thread's stream, after its queued work: never on the legacy
  // default stream, which would synchronise with (and so invalidate) a
  // capture another thread has open.
  const CudaDriver *driver = program->driver;
  CudaDriver::Handle stream = context->stream.cuStream;
  auto device = [](const void *pointer) {
    return reinterpret_cast<CudaDriver::DevicePtr>(pointer);
  };
  if (gpRtStatus status =
          toProgram ? driver->check(driver->cuMemcpyHtoDAsync(
                                        device(dst), src, bytes, stream),
                                    "cuMemcpyHtoDAsync")
                    : driver->check(driver->cuMemcpyDtoHAsync(
                                        dst, device(src), bytes, stream),
                                    "cuMemcpyDtoHAsync"))
    return status;
  // The caller may reuse or read host memory on return.
  return context->device->synchronize(context->stream);
}

GP_RT_EXPORT gpRtStatus gpRtCopyToProgram(gpRtProgram *program, void *dst,
                                          const void *src, int64_t bytes) {
  return copyProgram(program, dst, src, bytes, true, "gpRtCopyToProgram");
}

GP_RT_EXPORT gpRtStatus gpRtCopyFromProgram(gpRtProgram *program, void *dst,
                                            const void *src, int64_t bytes) {
  return copyProgram(program, dst, src, bytes, false, "gpRtCopyFromProgram");
}

GP_RT_EXPORT gpRtStatus gpRtCudaLoadModule(gpRtProgram *program,
                                           const void *image, void **module) {
  if (!program || !image || !module)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtCudaLoadModule: null");
  if (!program->driver)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtCudaLoadModule: the program runs on the host backend");
  const CudaDriver *driver = program->driver;
  if (gpRtStatus status = driver->check(
          driver->cuCtxSetCurrent(program->cuContext), "cuCtxSetCurrent"))
    return status;
  CudaDriver::Handle handle = nullptr;
  if (gpRtStatus status = driver->check(
          driver->cuModuleLoadData(&handle, image), "cuModuleLoadData"))
    return status;
  std::lock_guard<std::mutex> lock(program->mutex);
  program->modules.push_back(handle);
  *module = handle;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtCudaGetFunction(gpRtProgram *program,
                                            void *module, const char *name,
                                            void **function) {
  if (!program || !module || !name || !function)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtCudaGetFunction: null");
  if (!program->driver)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtCudaGetFunction: the program runs on the host backend");
  return program->driver->check(
      program->driver->cuModuleGetFunction(function, module, name),
      (std::string("cuModuleGetFunction(") + name + ")").c_str());
}

GP_RT_EXPORT gpRtStatus gpRtCudaGetKernel(gpRtProgram *program,
                                          const void *image, const char *name,
                                          void **function) {
  if (!program || !image || !name || !function)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtCudaGetKernel: null");
  {
    std::lock_guard<std::mutex> lock(program->mutex);
    auto found = program->kernels.find({image, name});
    if (found != program->kernels.end()) {
      *function = found->second;
      return GP_RT_SUCCESS;
    }
  }
  void *module = nullptr;
  {
    std::unique_lock<std::mutex> lock(program->mutex);
    auto loaded = program->imageModules.find(image);
    if (loaded != program->imageModules.end())
      module = loaded->second;
  }
  if (!module) {
    if (gpRtStatus status = gpRtCudaLoadModule(program, image, &module))
      return status;
    std::lock_guard<std::mutex> lock(program->mutex);
    program->imageModules[image] = module;
  }
  if (gpRtStatus status = gpRtCudaGetFunction(program, module, name, function))
    return status;
  std::lock_guard<std::mutex> lock(program->mutex);
  program->kernels[{image, name}] = *function;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtLaunchCudaKernel(gpRtStream *stream,
                                             void *function,
                                             const uint32_t grid[3],
                                             const uint32_t block[3],
                                             uint32_t sharedBytes,
                                             void **params) {
  if (!stream || !function || !grid || !block)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtLaunchCudaKernel: null stream, function or dimensions");
  if (gpRtStatus status =
          checkStream(stream, "gpRtLaunchCudaKernel", GP_RT_BACKEND_CUDA))
    return status;
  const CudaDriver *driver = nullptr;
  if (gpRtStatus status = CudaDriver::get(driver))
    return status;
  return driver->check(driver->cuLaunchKernel(function, grid[0], grid[1],
                                              grid[2], block[0], block[1],
                                              block[2], sharedBytes,
                                              stream->cuStream, params,
                                              nullptr),
                       "cuLaunchKernel");
}

GP_RT_EXPORT gpRtStatus gpRtLaunchHostKernel(gpRtStream *stream,
                                             gpRtHostKernel kernel,
                                             void **params,
                                             const int64_t *paramSizes,
                                             int32_t numParams) {
  if (!stream || !kernel || numParams < 0 ||
      (numParams > 0 && (!params || !paramSizes)))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtLaunchHostKernel: null stream, kernel or parameters");
  if (gpRtStatus status =
          checkStream(stream, "gpRtLaunchHostKernel", std::nullopt))
    return status;
  if (stream->backend == GP_RT_BACKEND_CUDA) {
    // A cpu kernel of a cuda program: host work, run in stream order (after
    // the queued device work) and never inside a capture.
    if (stream->capturing)
      return fail(GP_RT_ERROR_NOT_CAPTURED,
                  "gpRtLaunchHostKernel: a host kernel cannot be captured "
                  "into a CUDA graph");
    const CudaDriver *driver = nullptr;
    if (gpRtStatus status = CudaDriver::get(driver))
      return status;
    if (gpRtStatus status = driver->check(
            driver->cuStreamSynchronize(stream->cuStream), "cuStreamSynchronize"))
      return status;
    kernel(params);
    return GP_RT_SUCCESS;
  }
  if (!stream->recording) {
    kernel(params);
    return GP_RT_SUCCESS;
  }
  return record(stream, HostLaunch{kernel, {}}, params, paramSizes, numParams,
                "gpRtLaunchHostKernel");
}

/// Makes room for another graph of shape `shape`: drops its least recently
/// used one once kMaxAddressVariants are kept. Its executable stays with
/// the partition, free for in-place updates.
static void dropOldestVariant(PartitionState &state,
                              const std::vector<int64_t> &shape) {
  size_t variants = 0;
  auto oldest = state.keys.end();
  for (auto it = state.keys.lower_bound(GraphKeyView{shape, nullptr, 0});
       it != state.keys.end() && it->first.shape == shape; ++it) {
    ++variants;
    if (oldest == state.keys.end() || it->second.lastUse < oldest->second.lastUse)
      oldest = it;
  }
  if (variants < kMaxAddressVariants)
    return;
  if (oldest->second.executable)
    state.holder.erase(oldest->second.executable);
  state.keys.erase(oldest);
}

GP_RT_EXPORT gpRtStatus gpRtRunPartition(gpRtProgram *program,
                                         int32_t partition,
                                         const int64_t *shapeKey,
                                         gpRtPartitionBody body,
                                         void *userData) {
  return gpRtRunPartitionWithResults(program, partition, shapeKey, body,
                                     userData, nullptr, 0, nullptr, 0);
}

GP_RT_EXPORT gpRtStatus gpRtRunPartitionWithResults(
    gpRtProgram *program, int32_t partition, const int64_t *shapeKey,
    gpRtPartitionBody body, void *userData, void *results,
    int64_t resultBytes, void *const *inputs, int32_t numInputs) {
  if (!program || !body)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRunPartition: null program or body");
  if (resultBytes < 0 || (resultBytes > 0 && !results) || numInputs < 0 ||
      (numInputs > 0 && !inputs))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRunPartition: null or negative results or inputs");
  if (partition < 0 ||
      partition >= static_cast<int32_t>(program->partitions.size()))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRunPartition: no partition " + std::to_string(partition) +
                    " in " + program->name);
  const gpRtPartitionInfo &info = program->partitions[partition];
  if (info.numShapeSymbols > 0 && !shapeKey)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRunPartition: partition " + std::to_string(partition) +
                    " needs a shape key");
  std::vector<int64_t> key(shapeKey, shapeKey + info.numShapeSymbols);
  // Messages name the partition and key; built only when needed, so a
  // replay with logging off formats nothing.
  auto where = [&] {
    return program->name + ": partition " + std::to_string(partition) +
           " shape " + describeKey(key);
  };
  auto note = [&](const std::string &what) {
    if (logEnabled(GP_RT_LOG_CUDAGRAPHS))
      log(GP_RT_LOG_CUDAGRAPHS, where() + ": " + what);
  };

  ThreadContext *context = nullptr;
  if (gpRtStatus status = program->context(context))
    return status;
  gpRtStream &stream = context->stream;
  Device &device = *context->device;
  PartitionState &state = context->partitions[partition];
  // Runs the body now. Memory for run-time sizes lives until the next eager
  // run of the partition: the body's outputs may be read after it returns.
  auto runNow = [&](std::vector<int64_t> *recordSizes) -> gpRtStatus {
    if (!state.lastRunMemory)
      state.lastRunMemory = std::make_unique<DynamicMemory>(program->driver);
    DynamicMemory &memory = *state.lastRunMemory;
    if (!memory.blocks.empty()) {
      // Queued work may still use the memory about to be reused.
      if (gpRtStatus sync = device.synchronize(stream))
        return sync;
      memory.recycle();
    }
    stream.fresh = &memory;
    stream.sizes = recordSizes;
    gpRtStatus status = body(&stream, userData);
    stream.fresh = nullptr;
    stream.sizes = nullptr;
    memory.releaseSpare(); // What this run did not need.
    return status;
  };
  auto runEagerly = [&](const std::string &why) -> gpRtStatus {
    if (program->orError)
      return fail(GP_RT_ERROR_NOT_CAPTURED,
                  where() + " would run uncaptured (" + why +
                      ") and or-error mode is on");
    program->count(&gpRtStats::eagerRuns);
    note("eager run: " + why);
    return runNow(nullptr);
  };
  if (!info.capturable)
    return runEagerly("eager partition: " + program->reasons[partition]);
  if (!program->captureEnabled) {
    program->count(&gpRtStats::eagerRuns);
    return runNow(nullptr); // The eager reference run: not an or-error.
  }
  if (!program->inCaptureSizes(key))
    return runEagerly("shape not in the capture sizes");

  auto found = state.keys.find(
      GraphKeyView{key, inputs, static_cast<size_t>(numInputs)});
  if (found == state.keys.end()) {
    ShapeState &shape = state.shapes[key];
    if (shape.warmups < program->warmupRuns) {
      ++shape.warmups;
      program->count(&gpRtStats::warmupRuns);
      note("warm-up run");
      shape.allocationSizes.clear();
      return runNow(&shape.allocationSizes);
    }
    // The key's pool: what the warm-up asked for, allocated before the
    // capture (allocating while capturing is not allowed).
    auto pool = std::make_unique<DynamicMemory>(program->driver);
    for (int64_t bytes : shape.allocationSizes) {
      void *pointer = nullptr;
      if (gpRtStatus status = pool->allocate(bytes, pointer))
        return status;
    }
    if (gpRtStatus status = device.beginCapture(stream))
      return status;
    stream.pool = pool.get();
    stream.poolCursor = 0;
    gpRtStatus bodyStatus = body(&stream, userData);
    stream.pool = nullptr;
    std::unique_ptr<Captured> graph;
    gpRtStatus endStatus = device.endCapture(stream, graph);
    // A failed capture leaves nothing behind (its graph and pool are
    // dropped here): the next run of the key captures again.
    if (bodyStatus != GP_RT_SUCCESS)
      return bodyStatus;
    if (endStatus != GP_RT_SUCCESS)
      return fail(endStatus, where() + ": the capture failed (" +
                                 gpRtGetLastError() +
                                 "): nothing ran; the next run captures "
                                 "again");
    dropOldestVariant(state, key);
    found = state.keys
                .emplace(GraphKey{key, std::vector<void *>(
                                           inputs, inputs + numInputs)},
                         KeyState())
                .first;
    KeyState &made = found->second;
    made.graph = std::move(graph);
    made.pool = std::move(pool);
    const uint8_t *written = static_cast<const uint8_t *>(results);
    made.results.assign(written, written + resultBytes);
    program->count(&gpRtStats::captures);
    note(shape.captured ? "captured for new input addresses" : "captured");
    bool newShape = !shape.captured;
    shape.captured = true;
    if (newShape && ++state.recordedShapes > program->shapeWarningLimit) {
      program->count(&gpRtStats::shapeWarnings);
      warn(program->name + ": partition " + std::to_string(partition) +
           " has recorded " + std::to_string(state.recordedShapes) +
           " distinct shapes (limit " +
           std::to_string(program->shapeWarningLimit) +
           "): each new shape costs a capture; consider capture sizes or "
           "static shapes");
    }
  }

  KeyState &keyState = found->second;
  keyState.lastUse = ++state.uses;
  if (!keyState.executable) {
    // Update an executable of the same topology in place, if there is one.
    // Not one held by this shape at other input addresses: those graphs
    // take turns (a forward called on two batches), so each keeps its own.
    Executable *chosen = nullptr;
    for (std::unique_ptr<Executable> &executable : state.executables) {
      auto held = state.holder.find(executable.get());
      if (held != state.holder.end() && held->second.shape == key)
        continue;
      bool updated = false;
      if (gpRtStatus status =
              device.tryUpdate(*executable, *keyState.graph, updated))
        return status;
      if (updated) {
        chosen = executable.get();
        break;
      }
    }
    if (chosen) {
      auto previous = state.holder.find(chosen);
      if (previous != state.holder.end()) {
        auto holderKey = state.keys.find(previous->second);
        if (holderKey != state.keys.end())
          holderKey->second.executable = nullptr;
      }
      program->count(&gpRtStats::updates);
      note("updated an executable in place");
    } else {
      std::unique_ptr<Executable> made;
      if (gpRtStatus status = device.instantiate(*keyState.graph, made))
        return status;
      chosen = made.get();
      state.executables.push_back(std::move(made));
      program->count(&gpRtStats::instantiations);
      note("instantiated");
    }
    state.holder[chosen] = found->first;
    keyState.executable = chosen;
  }
  if (gpRtStatus status = device.launch(*keyState.executable, stream))
    return status;
  if (resultBytes > 0 &&
      static_cast<int64_t>(keyState.results.size()) == resultBytes)
    std::memcpy(results, keyState.results.data(), resultBytes);
  program->count(&gpRtStats::replays);
  note("replayed");
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtRngState(gpRtProgram *program, int32_t generator,
                                     int32_t backward, void *slot) {
  if (!program || !slot)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtRngState: null");
  uint64_t state[2] = {0, 0};
  {
    std::lock_guard<std::mutex> lock(program->mutex);
    gpRtStatus status =
        backward ? program->rng.latestBackward(generator, state[0], state[1])
                 : program->rng.forwardPending(generator, state[0], state[1]);
    if (status)
      return status;
  }
  ThreadContext *context = nullptr;
  if (gpRtStatus status = program->context(context))
    return status;
  return gpRtCopy(&context->stream, slot, state, sizeof(state),
                  GP_RT_COPY_HOST_TO_PROGRAM);
}

GP_RT_EXPORT gpRtStatus gpRtProgramGetStats(gpRtProgram *program,
                                            gpRtStats *stats) {
  if (!program || !stats)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtProgramGetStats: null");
  std::lock_guard<std::mutex> lock(program->mutex);
  *stats = program->stats;
  stats->liveGraphs = 0;
  stats->poolBytes = 0;
  stats->liveStreams = program->contexts.size();
  for (auto &[thread, context] : program->contexts) {
    stats->poolBytes += context->arena ? context->arenaBytes : 0;
    for (PartitionState &state : context->partitions) {
      stats->liveGraphs += state.executables.size();
      for (auto &[key, keyState] : state.keys) {
        stats->liveGraphs += keyState.graph ? 1 : 0;
        if (keyState.pool)
          for (auto &block : keyState.pool->blocks)
            stats->poolBytes += block.second;
      }
    }
  }
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtGetLiveCounts(int64_t *programs, int64_t *graphs,
                                          int64_t *streams,
                                          int64_t *poolBytes) {
  if (!programs || !graphs || !streams || !poolBytes)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtGetLiveCounts: null");
  *programs = livePrograms;
  *graphs = liveGraphs;
  *streams = liveStreams;
  *poolBytes = livePoolBytes;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtSetLog(int32_t mask, gpRtLogSink sink,
                                   void *userData) {
  LogState &state = logState();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.mask = mask;
  state.sink = sink;
  state.userData = userData;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtRngForward(gpRtProgram *program,
                                       int32_t generator, uint64_t *seed,
                                       uint64_t *offset, int64_t *invocation) {
  if (!program || !seed || !offset || !invocation)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtRngForward: null");
  std::lock_guard<std::mutex> lock(program->mutex);
  return program->rng.forward(generator, *seed, *offset, *invocation);
}

GP_RT_EXPORT gpRtStatus gpRtRngBackward(gpRtProgram *program,
                                        int32_t generator, int64_t invocation,
                                        uint64_t *seed, uint64_t *offset) {
  if (!program || !seed || !offset)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtRngBackward: null");
  std::lock_guard<std::mutex> lock(program->mutex);
  return program->rng.backward(generator, invocation, *seed, *offset);
}

} // extern "C"
