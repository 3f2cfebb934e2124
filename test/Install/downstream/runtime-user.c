/* A C program on GraphPart's runtime: prints the runtime's version and,
 * given an artifact compiled for the host, loads it and prints its first
 * entry's signature. */
#include "GraphPart/Runtime/GPRuntime.h"

#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what) {
  fprintf(stderr, "runtime-user: %s: %s\n", what, gpRtGetLastError());
  return 1;
}

int main(int argc, char **argv) {
  printf("GraphPart runtime %s\n", gpRtVersion());
  if (argc < 2)
    return 0;
  gpRtArtifact *artifact = NULL;
  if (gpRtArtifactLoad(argv[1], GP_RT_BACKEND_HOST, -1, &artifact))
    return fail("load");
  if (gpRtArtifactNumEntries(artifact) < 1)
    return fail("entries");
  gpRtEntryInfo info;
  if (gpRtArtifactGetEntry(artifact, 0, &info))
    return fail("entry info");
  printf("entry %s: %d argument(s), %d result(s)\n", info.name, info.numArgs,
         info.numResults);
  gpRtArtifactUnload(artifact);
  return 0;
}
