//===- Log.cpp - runtime logs, warnings and live counts -------------------===//
//
// Owns where the runtime's log lines and warnings go (GP_LOG, gpRtSetLog)
// and the process-wide counts of live programs, graphs, streams and pool
// memory (gpRtGetLiveCounts).
//
//===----------------------------------------------------------------------===//

#include "Log.h"
#include "RuntimeInternal.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

using namespace gp::rt;

namespace {
struct LogState {
  std::mutex mutex;
  int32_t mask = 0;
  gpRtLogSink sink = nullptr;
  void *userData = nullptr;

  LogState() {
    const char *env = std::getenv("GP_LOG");
    if (!env)
      return;
    // Words separated by commas or spaces. The sink cannot be set yet, so
    // an unknown word is reported on stderr directly.
    std::string word;
    std::string text = std::string(env) + ",";
    for (char c : text) {
      if (c != ',' && c != ' ') {
        word += c;
        continue;
      }
      if (word == "partitions")
        mask |= GP_RT_LOG_PARTITIONS;
      else if (word == "cudagraphs")
        mask |= GP_RT_LOG_CUDAGRAPHS;
      else if (word == "all")
        mask |= GP_RT_LOG_PARTITIONS | GP_RT_LOG_CUDAGRAPHS;
      else if (!word.empty())
        std::fprintf(stderr,
                     "[graphpart] warning: GP_LOG: unknown word '%s' "
                     "(valid: partitions, cudagraphs, all)\n",
                     word.c_str());
      word.clear();
    }
  }
};

LogState &logState() {
  static LogState state;
  return state;
}
} // namespace

LiveCounts &gp::rt::liveCounts() {
  static LiveCounts counts;
  return counts;
}

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

extern "C" {

GP_RT_EXPORT gpRtStatus gpRtSetLog(int32_t mask, gpRtLogSink sink,
                                   void *userData) {
  LogState &state = logState();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.mask = mask;
  state.sink = sink;
  state.userData = userData;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtGetLiveCounts(int64_t *programs, int64_t *graphs,
                                          int64_t *streams,
                                          int64_t *poolBytes) {
  if (!programs || !graphs || !streams || !poolBytes)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtGetLiveCounts: null");
  LiveCounts &counts = liveCounts();
  *programs = counts.programs;
  *graphs = counts.graphs;
  *streams = counts.streams;
  *poolBytes = counts.poolBytes;
  return GP_RT_SUCCESS;
}

} // extern "C"
