//===- Diagnostics.h - gp-run's fatal errors --------------------*- C++ -*-===//
//
// How gp-run reports an error: one "gp-run: error:" line on stderr and exit
// status 1. Shared by the option, input and session code; GPRunSupport does
// not use it (a library returns its errors).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_TOOLS_GPRUN_DIAGNOSTICS_H
#define GRAPHPART_TOOLS_GPRUN_DIAGNOSTICS_H

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace gp::run {

[[noreturn]] inline void die(const std::string &message) {
  std::fprintf(stderr, "gp-run: error: %s\n", message.c_str());
  std::exit(1);
}

/// Dies unless a runtime call succeeded, with the runtime's own message.
inline void check(gpRtStatus status, const std::string &what) {
  if (status != GP_RT_SUCCESS)
    die(what + ": " + gpRtStatusString(status) + ": " + gpRtGetLastError());
}

} // namespace gp::run

#endif // GRAPHPART_TOOLS_GPRUN_DIAGNOSTICS_H
