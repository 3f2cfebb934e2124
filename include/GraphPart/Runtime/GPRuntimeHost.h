/*===- GPRuntimeHost.h - parameters and stream-ordered calls -----*- C -*-===*\
|*                                                                          *|
|* Part of the runtime's C API (GPRuntime.h includes it): what a host that  *|
|* embeds the runtime uses to run a loaded artifact as a framework op:      *|
|* model parameters bound once by name, zero-copy, and calls ordered on the *|
|* framework's CUDA stream.                                                 *|
\*===----------------------------------------------------------------------===*/

#ifndef GRAPHPART_RUNTIME_GPRUNTIMEHOST_H
#define GRAPHPART_RUNTIME_GPRUNTIMEHOST_H

#include "GraphPart/Runtime/GPRuntime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Calls entry `index` ordered on the caller's CUDA stream `cudaStream` (a
 * CUstream; 0 is the legacy default stream): the call's work starts after
 * the work queued on cudaStream before the call, and work queued on
 * cudaStream after this returns runs after the call's work. The ordering
 * goes through two events of the calling thread's context (made once, with
 * timing disabled): one recorded on cudaStream and waited for by the
 * program's stream for this thread, then one recorded on the program's
 * stream after the call and waited for by cudaStream; nothing waits on the
 * host for it (what the program itself waits for, such as a cpu kernel
 * after device work, still waits). cudaStream must belong to the program's
 * device (its primary context) and must not be capturing a graph. Results
 * are as gpRtArtifactCall's. On the host backend cudaStream must be NULL
 * and this is gpRtArtifactCall. */
gpRtStatus gpRtArtifactCallOnStream(gpRtArtifact *artifact, int32_t index,
                                    void **args, void **results,
                                    void *cudaStream);

/* Checked calls: gpRtArtifactCall and gpRtArtifactCallOnStream with the
 * lengths of the caller's arrays. gpRtArtifactCall trusts the caller to
 * pass arrays of the entry's lengths (it cannot tell a short array from a
 * long one); these take numArgs and numResults and, before anything runs,
 * fail with GP_RT_ERROR_INVALID_ARGUMENT unless they are the entry's
 * ("gpRtArtifactCallChecked: entry 'f' takes 3 arguments, got 2"; a bound
 * parameter's NULL slot counts as an argument). Otherwise they are
 * gpRtArtifactCall and gpRtArtifactCallOnStream, with the same checks of
 * the arrays' contents. Use them from callers that build the arrays from
 * input they do not control (FFI bindings, command lines, other
 * languages). */
gpRtStatus gpRtArtifactCallChecked(gpRtArtifact *artifact, int32_t index,
                                   void **args, int32_t numArgs,
                                   void **results, int32_t numResults);
gpRtStatus gpRtArtifactCallOnStreamChecked(gpRtArtifact *artifact,
                                           int32_t index, void **args,
                                           int32_t numArgs, void **results,
                                           int32_t numResults,
                                           void *cudaStream);

/* Named parameters: entry arguments the manifest names (`parameter
 * <name>`), model weights bound once by name instead of passed per call.
 * The same name may be an argument of several entries (one element type,
 * shape and device). */
typedef struct gpRtParameterInfo {
  const char *name;
  const char *elementType;
  int32_t rank;
  const int64_t *shape; /* rank sizes; -1 where dynamic */
  const char *device;   /* "cuda:0", "cpu" */
  int32_t bound;        /* 1 once bound */
} gpRtParameterInfo;

/* The program's parameters, every entry's, each name once, in order of
 * first appearance (entry by entry, argument by argument); 0 for NULL. */
int32_t gpRtArtifactNumParameters(gpRtArtifact *artifact);
gpRtStatus gpRtArtifactGetParameter(gpRtArtifact *artifact, int32_t index,
                                    gpRtParameterInfo *info);

/* Binds parameter `name` to the caller's memory: `descriptor` is a
 * gpRtMemRef of the parameter's rank (allocated, aligned, offset,
 * sizes[rank], strides[rank] as int64 words: the layout gpRtArtifactCall
 * takes). No copy is made: the caller keeps the memory alive and unchanged
 * in place while it is bound and while calls that used it may still run;
 * values written there in place are seen by the next call. Checks, each
 * failing with GP_RT_ERROR_INVALID_ARGUMENT and a message naming the
 * parameter: an unknown name (a few known ones are listed), `elementType`
 * (a manifest element type name: "f32", "bf16", "i64", "i1", ...) other
 * than the parameter's, sizes other than the static ones (a dynamic
 * dimension takes any size >= 0), strides that are not row-major (unless
 * every entry takes the argument strided), a null aligned pointer with
 * elements, a negative offset; on the cuda backend the memory must be
 * device memory of the program's device, or managed memory ("parameter 'x'
 * is in host memory; the program runs on cuda:0"). Binding a name again
 * replaces its binding; a call running on another thread at the same time
 * uses either the old or the new binding, entirely. Captured graphs that
 * hold a parameter's address are re-bound to a new one like any moved
 * input. */
gpRtStatus gpRtArtifactBindParameter(gpRtArtifact *artifact, const char *name,
                                     const char *elementType,
                                     const void *descriptor);

/* Size classes and padding to the capture sizes. The compiler states, per
 * entry, which dynamic dimensions the program uses as one size (a size
 * class: the manifest's `size` lines), whether it fixes that size, and
 * whether padding along it is safe (every element along it is computed
 * independently). Every call checks the classes: arguments that disagree
 * fail with GP_RT_ERROR_INVALID_ARGUMENT, naming both ("entry 'f':
 * argument 2 dimension 0 is 1, but argument 0 dimension 0 is 100000: the
 * program uses them as one size (s0)"), and nothing runs.
 *
 * Padding: while capture sizes of one value are set (capture on; e.g.
 * GP_CUDAGRAPH_CAPTURE_SIZES=1,2,4,8 or `default`), a call whose size n of
 * a paddable class is not a capture size but is below the largest runs on
 * copies of its arguments padded to the smallest capture size above n
 * (index arguments of the class get that size), each padded position a
 * copy of the last real one along its dimension (zeros when n is 0), and
 * its results' dimensions of the class are set back to n (same strides: a
 * view of the padded result's first n positions). The copies are
 * runtime-owned buffers per thread, entry and argument, reused by every
 * call; on the cuda backend they are made in stream order on the calling
 * thread's program stream. Only row-major arguments are padded (a call
 * with another one runs at its own sizes, warning once per entry), and a
 * size above the largest capture size runs at its own size (warning once
 * per entry and class). gpRtStats.paddedCalls counts padded calls. */

/* Padding on (default; GP_PAD_TO_CAPTURE_SIZES=0 at load turns it off) or
 * off (calls run at their own sizes; the checks stay). */
gpRtStatus gpRtArtifactSetPadding(gpRtArtifact *artifact, int32_t enabled);

/* Sets the program's capture sizes from text as GP_CUDAGRAPH_CAPTURE_SIZES
 * takes it ("1,2,4,8", "2x3,4x5", "default": 1, 2, 4, 8, every multiple of
 * 8 up to 256, every multiple of 16 up to 512); NULL, "" or "-" lifts the
 * list (gpRtProgramSetCaptureSizes). */
gpRtStatus gpRtArtifactSetCaptureSizes(gpRtArtifact *artifact,
                                       const char *sizes);

/* One size class of an entry. */
typedef struct gpRtSizeInfo {
  const char *name;   /* the program's name for it ("s0", "arg0_dim0") */
  int64_t fixed;      /* the size the program fixes it at, or -1 */
  int32_t padded;     /* 1: calls are padded along it to the capture sizes */
  const char *reason; /* why padding is not safe (the compiler's words), or
                         NULL when it is */
} gpRtSizeInfo;

/* The size classes of entry `entry` (0 for NULL or no such entry). */
int32_t gpRtArtifactNumSizes(gpRtArtifact *artifact, int32_t entry);
gpRtStatus gpRtArtifactGetSize(gpRtArtifact *artifact, int32_t entry,
                               int32_t index, gpRtSizeInfo *info);

/* The size classes of entry `entry`, one line each ("size arg0_dim0
 * (argument 0 dimension 0, result 0 dimension 0): padded to the capture
 * sizes", "...: not padded: <reason>", "...: fixed at 16"), each ending in
 * a newline; "" when it has none. Text owned by the artifact, valid until
 * it is unloaded. */
gpRtStatus gpRtArtifactDescribeSizes(gpRtArtifact *artifact, int32_t entry,
                                     const char **text);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHPART_RUNTIME_GPRUNTIMEHOST_H */
