//===- Handles.cpp - the handle debug mode --------------------------------===//
//
// The registry of handles GP_DEBUG_HANDLES=1 keeps (Handles.h): every
// artifact and program handed out while the mode is on, live or retired.
// Retired handles are never freed, so an address in it names one handle for
// the life of the process.
//
//===----------------------------------------------------------------------===//

#include "Handles.h"
#include "Policy.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

using namespace gp::rt;

std::atomic<int8_t> gp::rt::handleMode{-1};

namespace {

struct HandleState {
  HandleKind kind;
  bool live;
};

struct Registry {
  // Shared for checks: every entry point of every thread checks in the mode.
  std::shared_mutex mutex;
  std::unordered_map<const void *, HandleState> handles;
};

Registry &registry() {
  // Never destroyed: handles may be checked or released during exit.
  static Registry *instance = new Registry;
  return *instance;
}

std::string address(const void *handle) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", handle);
  return text;
}

/// Why `handle` is not a live handle of kind `kind` (`found` is what the
/// registry holds of it, or null).
gpRtStatus refuse(HandleKind kind, const void *handle, const HandleState *found,
                  const char *what) {
  bool artifact = kind == HandleKind::Artifact;
  std::string message = std::string(what) + ": ";
  if (found && found->kind == kind)
    message += artifact ? "artifact handle " + address(handle) +
                              " was unloaded (gpRtArtifactUnload)"
                        : "program handle " + address(handle) +
                              " was destroyed (gpRtProgramDestroy, or "
                              "gpRtArtifactUnload of its artifact)";
  else
    message += address(handle) +
               (artifact ? " is not a loaded artifact (no gpRtArtifactLoad "
                           "or gpRtArtifactInspect returned it"
                         : " is not a live program (no gpRtProgramCreate or "
                           "gpRtArtifactGetProgram returned it") +
               (found ? std::string(artifact ? "; it is a program handle"
                                             : "; it is an artifact handle")
                      : std::string()) +
               ")";
  return fail(GP_RT_ERROR_INVALID_ARGUMENT,
              message + "; caught by GP_DEBUG_HANDLES");
}

} // namespace

bool gp::rt::readHandleMode() {
  static const bool on = [] {
    const char *env = std::getenv("GP_DEBUG_HANDLES");
    return env && *env && parseBoolean("GP_DEBUG_HANDLES", env, false);
  }();
  handleMode.store(on ? 1 : 0, std::memory_order_relaxed);
  return on;
}

gpRtStatus gp::rt::checkHandleSlow(HandleKind kind, const void *handle,
                                   const char *what) {
  if (!handle || !handleChecksOn())
    return GP_RT_SUCCESS;
  Registry &handles = registry();
  std::shared_lock<std::shared_mutex> lock(handles.mutex);
  auto found = handles.handles.find(handle);
  const HandleState *state =
      found == handles.handles.end() ? nullptr : &found->second;
  if (state && state->kind == kind && state->live)
    return GP_RT_SUCCESS;
  return refuse(kind, handle, state, what);
}

void gp::rt::registerHandle(HandleKind kind, const void *handle) {
  if (!handleChecksOn())
    return;
  Registry &handles = registry();
  std::unique_lock<std::shared_mutex> lock(handles.mutex);
  handles.handles[handle] = {kind, true};
}

gpRtStatus gp::rt::retireHandle(HandleKind kind, const void *handle,
                                const char *what) {
  Registry &handles = registry();
  std::unique_lock<std::shared_mutex> lock(handles.mutex);
  auto found = handles.handles.find(handle);
  HandleState *state =
      found == handles.handles.end() ? nullptr : &found->second;
  if (!state || state->kind != kind || !state->live)
    return refuse(kind, handle, state, what);
  state->live = false;
  return GP_RT_SUCCESS;
}
