//===- gp-run.cpp - run GraphPart programs --------------------------------===//
//
// The runner only loads and runs: all lowering happens in gp-opt. This
// version reports the runtime's backends; loading compiled programs comes
// with the lowering pipeline (see docs/GettingStarted.md).
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Runtime/GPRuntime.h"

#include <cstdio>
#include <cstring>
#include <string>

static void printUsage(FILE *out) {
  std::fprintf(out,
               "usage: gp-run [--version] [--list-backends] [--help]\n"
               "\n"
               "  --list-backends  list the runtime's backends, whether each\n"
               "                   can run here, and the default (best) one\n"
               "  --version        print the runtime version\n");
}

static int listBackends() {
  for (gpRtBackend backend : {GP_RT_BACKEND_HOST, GP_RT_BACKEND_CUDA}) {
    const char *name = gpRtBackendName(backend);
    if (gpRtBackendAvailable(backend) == GP_RT_SUCCESS)
      std::printf("%s: available\n", name);
    else
      std::printf("%s: unavailable (%s)\n", name, gpRtGetLastError());
  }
  std::printf("default: %s\n", gpRtBackendName(gpRtDefaultBackend()));
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printUsage(stderr);
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      printUsage(stdout);
    } else if (arg == "--version") {
      std::printf("gp-run (GraphPart runtime %s)\n", gpRtVersion());
    } else if (arg == "--list-backends") {
      listBackends();
    } else {
      std::fprintf(stderr, "gp-run: unknown argument '%s'\n", arg.c_str());
      printUsage(stderr);
      return 2;
    }
  }
  return 0;
}
