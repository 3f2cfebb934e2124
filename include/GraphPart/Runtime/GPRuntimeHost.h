/*===- GPRuntimeHost.h - parameters and stream-ordered calls -----*- C -*-===*\
|*                                                                          *|
|* Part of the runtime's C API (GPRuntime.h includes it): what a host that  *|
|* embeds the runtime uses: artifacts (compiled programs) loaded and        *|
|* called, results kept, model parameters bound once by name, zero-copy,    *|
|* calls ordered on the framework's CUDA stream, statistics and logs.      *|
\*===----------------------------------------------------------------------===*/

#ifndef GRAPHPART_RUNTIME_GPRUNTIMEHOST_H
#define GRAPHPART_RUNTIME_GPRUNTIMEHOST_H

#include "GraphPart/Runtime/GPRuntimeExtern.h"
#include "GraphPart/Runtime/GPRuntimeLowered.h"

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------------------------------------------===*\
|* Artifacts: compiled programs (shared objects made by gp-compile)       *|
\*===------------------------------------------------------------------===*/

typedef struct gpRtArtifact gpRtArtifact;

/* One argument or result of an entry point. */
typedef struct gpRtValueInfo {
  int32_t isBuffer;        /* 1: a buffer (memref); 0: an index value */
  const char *elementType; /* "f32", "i64", "i1", ... (buffers) */
  int32_t rank;
  const int64_t *shape; /* rank sizes; -1 where dynamic */
  const char *device;   /* "cuda:0", "cpu", "meta" (buffers) */
  /* The parameter's name when the argument is a named parameter (bound
   * with gpRtArtifactBindParameter), else NULL. */
  const char *parameter;
} gpRtValueInfo;

typedef struct gpRtEntryInfo {
  const char *name;
  int32_t numArgs;
  const gpRtValueInfo *args;
  int32_t numResults;
  const gpRtValueInfo *results;
} gpRtEntryInfo;

/* Loads an artifact and creates its program on `backend` and `device` (< 0:
 * the cuda device the program names): the partition table, arenas,
 * generators, seed and policy defaults (warm-up runs, capture sizes, shape
 * warning limit, or-error; the GP_CUDAGRAPH_* environment overrides them)
 * come from the artifact, so a loaded artifact behaves as the program
 * compiled afresh. The artifact's target must suit the backend (host
 * artifacts run on host, cuda ones on cuda). */
gpRtStatus gpRtArtifactLoad(const char *path, gpRtBackend backend,
                            int32_t device, gpRtArtifact **artifact);
/* Opens an artifact for its manifest only: target, entries (their
 * arguments and results), partitions and arena sizes can be read, with no
 * backend, device or driver (a cuda artifact on a machine without a GPU),
 * but no program is created: gpRtArtifactCall and gpRtArtifactGetProgram
 * fail with GP_RT_ERROR_INVALID_ARGUMENT. Unload it as usual. */
gpRtStatus gpRtArtifactInspect(const char *path, gpRtArtifact **artifact);
/* Destroys the program and unloads the shared object. The handle, and the
 * program gpRtArtifactGetProgram gave for it, must not be used again. With
 * GP_DEBUG_HANDLES=1 in the environment (read once per process) such a use
 * is caught: an unloaded handle is kept, empty, instead of freed, and every
 * gpRtArtifact* function given it fails with GP_RT_ERROR_INVALID_ARGUMENT
 * ("gpRtArtifactCall: artifact handle 0x... was unloaded
 * (gpRtArtifactUnload)"; functions returning a count or text return 0 or
 * NULL with that as the last error), as does any given a pointer the
 * runtime never returned ("0x... is not a loaded artifact"). */
gpRtStatus gpRtArtifactUnload(gpRtArtifact *artifact);
gpRtStatus gpRtArtifactGetProgram(gpRtArtifact *artifact,
                                  gpRtProgram **program);
/* "host" or "cuda". */
const char *gpRtArtifactTarget(gpRtArtifact *artifact);
/* The arena bytes memory planning gave the program (every function's
 * share): device memory and host memory. */
gpRtStatus gpRtArtifactGetArenaBytes(gpRtArtifact *artifact,
                                     int64_t *deviceBytes, int64_t *hostBytes);
gpRtStatus gpRtArtifactGetPartition(gpRtArtifact *artifact, int32_t index,
                                    gpRtPartitionInfo *info);
int32_t gpRtArtifactNumPartitions(gpRtArtifact *artifact);
int32_t gpRtArtifactNumEntries(gpRtArtifact *artifact);
gpRtStatus gpRtArtifactGetEntry(gpRtArtifact *artifact, int32_t index,
                                gpRtEntryInfo *info);
/* The index of the entry point named `name` (the source function's name). */
gpRtStatus gpRtArtifactFindEntry(gpRtArtifact *artifact, const char *name,
                                 int32_t *index);
/* Calls entry `index` on the calling thread: args[i] points to the i-th
 * argument (a gpRtMemRef for buffers, an int64_t for index values; a
 * buffer with other than the entry's static sizes, or strided where the
 * entry takes a row-major buffer, and sizes the program uses as one that
 * differ (size classes, GPRuntimeHost.h) fail with
 * GP_RT_ERROR_INVALID_ARGUMENT);
 * results[i] to storage for the i-th result, filled in. Buffers returned
 * live in the program's memory until the entry runs again on this thread.
 *
 * args[i] may be NULL where argument i is a named parameter: the bound
 * descriptor is used (a NULL for an unbound parameter fails: "entry 'f':
 * parameter 'x' (argument 3) is not bound; bind it with
 * gpRtArtifactBindParameter"). A non-NULL args[i] for a parameter
 * overrides the binding for that call.
 *
 * Before anything runs, the call also fails with
 * GP_RT_ERROR_INVALID_ARGUMENT, naming the entry and the argument or
 * result, on: a NULL args (unless every argument is a bound parameter) or
 * results array, a NULL results[i], a NULL args[i] for an index argument or
 * a buffer that is not a bound parameter, a buffer with a negative offset,
 * a NULL aligned pointer with elements (a "meta" buffer has sizes only), or
 * sizes whose product overflows.
 *
 * gpRtArtifactCall trusts the lengths of the caller's arrays: it reads
 * exactly the entry's number of arguments and results from them
 * (gpRtArtifactGetEntry says how many), so shorter arrays are read past
 * their end and longer ones are silently ignored. A caller that does not
 * know the entry's counts for certain (arrays built from user input, an
 * FFI binding) calls gpRtArtifactCallChecked (GPRuntimeHost.h), which takes
 * the lengths and refuses any other than the entry's. */
gpRtStatus gpRtArtifactCall(gpRtArtifact *artifact, int32_t index, void **args,
                            void **results);


/* Keeping results. A buffer an entry returns lives in the program's memory
 * until the next call of that entry on the same thread, which writes there
 * again (a result that is one of the caller's own arguments is the
 * caller's). To keep one:
 *
 * gpRtArtifactCallWithOutputs calls the entry and copies each result i
 * with outputs[i] != NULL into that caller-owned memory, densely
 * (row-major), in stream order, rewriting results[i]'s descriptor to
 * describe it. outputs[i] is in the result's memory space (device memory
 * from gpRtProgramAllocate for a cuda program's buffers, host memory for
 * host-backend and cpu buffers) and holds outputBytes[i] >= the result's
 * dense size (gpRtArtifactResultBytes). The call checks args and results
 * as gpRtArtifactCall does, and trusts the lengths of all four arrays as
 * it does. */
gpRtStatus gpRtArtifactCallWithOutputs(gpRtArtifact *artifact, int32_t index,
                                       void **args, void **results,
                                       void *const *outputs,
                                       const int64_t *outputBytes);

/* The dense size of result `result` of entry `index`, whose descriptor
 * (results[result] of a call) is `descriptor`. A descriptor with a negative
 * size or offset, or sizes whose byte count overflows, fails with
 * GP_RT_ERROR_INVALID_ARGUMENT naming the result (so does
 * gpRtArtifactCopyResultToHost, which also refuses one with a NULL aligned
 * pointer and elements). */
gpRtStatus gpRtArtifactResultBytes(gpRtArtifact *artifact, int32_t index,
                                   int32_t result, const void *descriptor,
                                   int64_t *bytes);

/* Copies result `result` of entry `index` (its descriptor as a call filled
 * it) densely into host memory `dst` of `dstBytes` bytes, after the work
 * queued on the calling thread. In the overwrite debug mode it fails,
 * naming the output and the calls, when a later call of the entry has
 * overwritten the result. */
gpRtStatus gpRtArtifactCopyResultToHost(gpRtArtifact *artifact, int32_t index,
                                        int32_t result, const void *descriptor,
                                        void *dst, int64_t dstBytes);

/* The overwrite debug mode (also GP_DEBUG_OVERWRITE=1 at load): each call's
 * buffer results in program memory are handed out in storage of their own,
 * and the next call of the entry on the same thread poisons them (every
 * bit set: NaN for floats, -1 for integers) instead of silently showing the
 * next call's values; gpRtArtifactCopyResultToHost then reports "output i
 * of call N of entry 'f' was overwritten by call M". Costs a copy per
 * result and call: for debugging. */
gpRtStatus gpRtArtifactSetDebugOverwrite(gpRtArtifact *artifact,
                                         int32_t enabled);

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

/* Collectives: a program compiled once runs as N ranks, one artifact
 * (program instance) each. On the host backend a local communicator joins
 * `worldSize` ranks that are instances of this process, each called from
 * its own thread; set each artifact's rank before its first call. On the
 * cuda backend each rank joins NCCL (libnccl.so.2, or $GP_NCCL_LIBRARY):
 * one rank makes a unique id (gpRtNcclUniqueId) and hands it to the others
 * (a file, the environment), and every rank joins with it at once, each
 * artifact on its own GPU, which makes that artifact's communicator.
 * Every rank must then make the same calls. Abort fails every collective
 * waiting or to come (call it when a rank fails, so that the others do not
 * wait for it); destroy a communicator after every artifact that uses it
 * is unloaded. */
gpRtStatus gpRtCommunicatorCreateLocal(int32_t worldSize,
                                       gpRtCommunicator **communicator);
gpRtStatus gpRtCommunicatorAbort(gpRtCommunicator *communicator);
gpRtStatus gpRtCommunicatorDestroy(gpRtCommunicator *communicator);
gpRtStatus gpRtArtifactSetCommunicator(gpRtArtifact *artifact,
                                       gpRtCommunicator *communicator,
                                       int32_t rank);
gpRtStatus gpRtNcclUniqueId(uint8_t id[128]);
gpRtStatus gpRtArtifactJoinNccl(gpRtArtifact *artifact, const uint8_t id[128],
                                int32_t worldSize, int32_t rank,
                                gpRtCommunicator **communicator);

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

/*===------------------------------------------------------------------===*\
|* Statistics and logs                                                    *|
\*===------------------------------------------------------------------===*/

typedef struct gpRtStats {
  int64_t warmupRuns;     /* eager runs before a capture */
  int64_t captures;       /* graphs recorded */
  int64_t instantiations; /* executables made */
  int64_t updates;        /* executables updated in place */
  int64_t replays;        /* graph launches */
  int64_t eagerRuns;      /* runs never captured (eager partitions, sizes
                             outside the capture list) */
  int64_t shapeWarnings;  /* distinct-shape warnings issued */
  int64_t liveGraphs;     /* graphs and executables held */
  int64_t liveStreams;
  int64_t poolBytes;    /* bytes held by the program's arena and pools */
  int64_t evictions;    /* keys evicted from full graph caches */
  int64_t rebinds;      /* replays that re-bound moved inputs first */
  int64_t reboundSites; /* kernel parameters, copy and memset addresses
                           and result words those re-bindings wrote */
  int64_t largestPlanBytes; /* per partition, the pool plan of its largest
                               shape, summed: what its pools need at least
                               (each partition has one pool for all its
                               shapes) */
  int64_t paddedCalls; /* artifact calls run on arguments padded to the
                          capture sizes (gpRtArtifactSetPadding) */
} gpRtStats;

gpRtStatus gpRtProgramGetStats(gpRtProgram *program, gpRtStats *stats);

/* Objects alive across all programs: programs, graphs and executables,
 * streams, and pool bytes. All are zero once every program is destroyed. */
gpRtStatus gpRtGetLiveCounts(int64_t *programs, int64_t *graphs,
                             int64_t *streams, int64_t *poolBytes);

enum {
  GP_RT_LOG_PARTITIONS = 1, /* partition count and reasons at load */
  GP_RT_LOG_CUDAGRAPHS = 2  /* captures, replays, updates, eager runs, why */
};

/* Where log lines go (NULL: stderr). The mask starts from GP_LOG
 * ("partitions,cudagraphs"). */
typedef void (*gpRtLogSink)(const char *line, void *userData);
gpRtStatus gpRtSetLog(int32_t mask, gpRtLogSink sink, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHPART_RUNTIME_GPRUNTIMEHOST_H */
