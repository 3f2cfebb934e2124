//===- ManifestFuzzer.cpp - artifact manifests ----------------------------===//
//
// libFuzzer target: the input is an artifact's manifest (the `gp_manifest`
// string gp-compile writes). It is read and the program it describes is
// created on the host backend, as gpRtArtifactLoad does once the library
// is open; then unloaded. Errors are expected; a crash, a sanitizer report
// or an exception (gpRtArtifactLoad would turn it into an error, but the
// reader should not throw) is a finding. scripts/fuzz.sh builds and runs
// it.
//
//===----------------------------------------------------------------------===//

#include "ArtifactState.h"

#include <cstdlib>
#include <memory>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string manifest(reinterpret_cast<const char *>(data), size);
  auto artifact = std::make_unique<gpRtArtifact>();
  (void)gp::rt::loadManifest(*artifact, manifest.c_str(), GP_RT_BACKEND_HOST,
                             -1, "fuzz");
  return 0;
}
