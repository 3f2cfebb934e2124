//===- TestArtifact.h - what hand-written test artifacts share --*- C++ -*-===//
//
// The runtime's tests load hand-written artifacts (shared modules with a
// `gp_manifest` and `gp_entry_<name>` functions, as gp-compile makes them):
// the export attribute they need, and a manifest that a test may replace
// before loading, starting from the artifact's own.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_UNITTESTS_RUNTIME_TESTARTIFACT_H
#define GRAPHPART_UNITTESTS_RUNTIME_TESTARTIFACT_H

#include <cstring>

#define GP_EXPORT extern "C" __attribute__((visibility("default")))

/// Defines the exported `gp_manifest` as a buffer holding `defaultText`
/// when the library loads, `setter(const char *text)` (NULL: the default
/// again) and `getter()` returning the default, for tests that load the
/// artifact with a manifest of their own.
#define GP_TEST_REPLACEABLE_MANIFEST(defaultText, setter, getter)             \
  GP_EXPORT char gp_manifest[8192] = {};                                       \
  GP_EXPORT void setter(const char *text) {                                    \
    std::strncpy(gp_manifest, text ? text : defaultText,                       \
                 sizeof(gp_manifest) - 1);                                     \
  }                                                                            \
  GP_EXPORT const char *getter() { return defaultText; }                       \
  namespace {                                                                  \
  /* The default manifest, in place before anything loads the library. */    \
  struct SetDefaultManifest {                                                  \
    SetDefaultManifest() { setter(nullptr); }                                  \
  } setDefaultManifest;                                                        \
  }

#endif // GRAPHPART_UNITTESTS_RUNTIME_TESTARTIFACT_H
