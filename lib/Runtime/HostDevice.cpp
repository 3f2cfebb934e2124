//===- HostDevice.cpp - the host backend ----------------------------------===//
//
// Owns the host backend: a "graph" is the list of launches (host kernels and
// extern calls) a partition body issued while recording, with copies of
// their parameter values; replay calls them in order, and re-binding to
// moved inputs rewrites the copies. Work runs at once when nothing is
// recorded.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <cstring>

using namespace gp::rt;

namespace gp::rt {

/// Host backend: a graph is the list of recorded launches, with parameter
/// values by copy.
struct HostLaunch {
  gpRtHostKernel kernel;
  std::vector<std::vector<uint8_t>> params;
  /// A recorded extern call instead of a kernel.
  gpRtExternFn externFn = nullptr;
  gpRtStream *stream = nullptr;
  /// What each of the extern's arguments is.
  std::vector<gpRtExternArg> externArgs;
};

inline bool sameArg(const gpRtExternArg &a, const gpRtExternArg &b) {
  return a.bytes == b.bytes && a.kind == b.kind &&
         a.elementType == b.elementType && a.rank == b.rank &&
         a.isResult == b.isResult;
}

struct HostGraph : Captured {
  std::vector<HostLaunch> launches;

  bool sameTopology(const HostGraph &other) const {
    if (launches.size() != other.launches.size())
      return false;
    for (size_t i = 0; i < launches.size(); ++i) {
      const HostLaunch &a = launches[i], &b = other.launches[i];
      if (a.kernel != b.kernel || a.externFn != b.externFn ||
          a.params.size() != b.params.size() ||
          a.externArgs.size() != b.externArgs.size() ||
          !std::equal(a.externArgs.begin(), a.externArgs.end(),
                      b.externArgs.begin(), sameArg))
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

} // namespace gp::rt

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
                                    void **args, const gpRtExternArg *argInfo,
                                    int32_t numArgs) {
  std::vector<int64_t> sizes(numArgs);
  for (int32_t i = 0; i < numArgs; ++i)
    sizes[i] = argInfo[i].bytes;
  return record(
      stream, HostLaunch{nullptr, {}, fn, stream, {argInfo, argInfo + numArgs}},
      args, sizes.data(), numArgs, "gpRtCallExtern");
}

gpRtStatus gp::rt::recordHostKernel(gpRtStream *stream, gpRtHostKernel kernel,
                                    void **params, const int64_t *sizes,
                                    int32_t count, const char *what) {
  return record(stream, HostLaunch{kernel, {}, nullptr, nullptr, {}}, params,
                sizes, count, what);
}

namespace {

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
    pending->fixedReason = std::move(stream.fixedReason);
    stream.fixedReason.clear();
    graph = std::move(pending);
    return GP_RT_SUCCESS;
  }
  gpRtStatus
  findInputAddresses(Captured &graph,
                     const std::vector<InputRange> &inputs) override {
    auto &host = static_cast<HostGraph &>(graph);
    for (size_t i = 0; i < host.launches.size(); ++i) {
      const HostLaunch &launch = host.launches[i];
      for (size_t p = 0; p < launch.params.size(); ++p)
        findSites(launch.params[p].data(), launch.params[p].size(), inputs,
                  SiteKind::KernelParameter, static_cast<uint32_t>(i),
                  static_cast<uint32_t>(p), graph.sites);
    }
    return GP_RT_SUCCESS;
  }
  gpRtStatus clone(Executable &exec,
                   std::unique_ptr<Executable> &copy) override {
    auto made = std::make_unique<HostExecutable>();
    made->assign(static_cast<HostExecutable &>(exec).graph);
    copy = std::move(made);
    return GP_RT_SUCCESS;
  }
  gpRtStatus rebind(Executable &exec, const std::vector<InputRange> &inputs,
                    int64_t &written) override {
    auto &host = static_cast<HostExecutable &>(exec);
    written += rewriteSites(
        exec.sites, inputs, exec.bound, [&](const BindingSite &site) {
          return host.graph.launches[site.node].params[site.field].data();
        });
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
                                launch.externArgs.data(),
                                static_cast<int32_t>(host.pointers[i].size())))
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

} // namespace

std::unique_ptr<Device> gp::rt::makeHostDevice() {
  return std::make_unique<HostDevice>();
}
