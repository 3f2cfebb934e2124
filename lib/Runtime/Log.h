//===- Log.h - runtime logs, warnings and live counts -----------*- C++ -*-===//

#ifndef GRAPHPART_LIB_RUNTIME_LOG_H
#define GRAPHPART_LIB_RUNTIME_LOG_H

#include <atomic>
#include <cstdint>
#include <string>

namespace gp::rt {

/// Log lines of `kind` (GP_RT_LOG_*) go to the sink when enabled.
void log(int32_t kind, const std::string &line);
bool logEnabled(int32_t kind);
/// Warnings always go to the sink.
void warn(const std::string &line);

/// What is alive in the whole process (gpRtGetLiveCounts).
struct LiveCounts {
  std::atomic<int64_t> programs{0}, graphs{0}, streams{0}, poolBytes{0};
};
LiveCounts &liveCounts();

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_LOG_H
