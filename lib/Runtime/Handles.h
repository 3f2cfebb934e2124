//===- Handles.h - the handle debug mode ------------------------*- C++ -*-===//
//
// GP_DEBUG_HANDLES=1: the runtime keeps a registry of the artifact and
// program handles it hands out. Unloading or destroying one poisons it
// instead of freeing it: what it holds is released, but the object stays,
// empty, so its address is never handed out again and a later use is told
// apart from a new handle. Every C entry point that takes a handle checks
// it first and fails on one that is dead or was never handed out, where a
// caller's use after free would otherwise read freed memory. Off, a check
// is one predictable branch and handles are freed as usual.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHPART_LIB_RUNTIME_HANDLES_H
#define GRAPHPART_LIB_RUNTIME_HANDLES_H

#include "RuntimeInternal.h"

#include <atomic>
#include <cstdint>
#include <new>

namespace gp::rt {

enum class HandleKind : uint8_t { Artifact, Program };

/// The mode: -1 until GP_DEBUG_HANDLES is read (once, by the first check,
/// load or program creation of the process), then 0 (off) or 1 (on).
extern std::atomic<int8_t> handleMode;

/// Reads GP_DEBUG_HANDLES if nothing has yet; whether the mode is on.
bool readHandleMode();

/// Whether the mode is on.
inline bool handleChecksOn() {
  int8_t mode = handleMode.load(std::memory_order_relaxed);
  return mode >= 0 ? mode != 0 : readHandleMode();
}

/// The registry's side of checkHandle.
gpRtStatus checkHandleSlow(HandleKind kind, const void *handle,
                           const char *what);

/// Fails, naming the entry point `what`, when the mode is on and `handle`
/// is not a live handle of its kind ("artifact handle 0x... was unloaded",
/// "0x... is not a loaded artifact"). Null passes: each entry point reports
/// it in its own words.
inline gpRtStatus checkHandle(const gpRtArtifact *artifact, const char *what) {
  if (__builtin_expect(handleMode.load(std::memory_order_relaxed) == 0, 1))
    return GP_RT_SUCCESS;
  return checkHandleSlow(HandleKind::Artifact, artifact, what);
}
inline gpRtStatus checkHandle(const gpRtProgram *program, const char *what) {
  if (__builtin_expect(handleMode.load(std::memory_order_relaxed) == 0, 1))
    return GP_RT_SUCCESS;
  return checkHandleSlow(HandleKind::Program, program, what);
}

/// Records a handle about to be handed out as live (in the mode).
void registerHandle(HandleKind kind, const void *handle);

/// Marks a live handle dead; fails as checkHandle does when it is not live
/// (a second unload is caught here, not freed twice).
gpRtStatus retireHandle(HandleKind kind, const void *handle, const char *what);

/// Unloads or destroys `handle`: deletes it, or in the mode retires it and
/// releases what it holds, leaving an empty object in place for later
/// checks (an entry point reached with it anyway sees nothing to use).
template <typename Handle>
gpRtStatus releaseHandle(HandleKind kind, Handle *handle, const char *what) {
  if (!handleChecksOn()) {
    delete handle;
    return GP_RT_SUCCESS;
  }
  if (gpRtStatus status = retireHandle(kind, handle, what))
    return status;
  handle->~Handle();
  new (handle) Handle();
  return GP_RT_SUCCESS;
}

} // namespace gp::rt

#endif // GRAPHPART_LIB_RUNTIME_HANDLES_H
