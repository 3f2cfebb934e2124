/*===- GPRuntimeLowered.h - what compiled programs call -----------*- C -*-===*\
|*                                                                          *|
|* Part of the runtime's C API (GPRuntime.h includes it): what a compiled   *|
|* program's lowered code calls: programs, partitions (run, captured and    *|
|* replayed by the runtime), streams, arenas, copies, run-time checks, CUDA *|
|* modules and kernels, and the graph-safe RNG.                             *|
\*===----------------------------------------------------------------------===*/

#ifndef GRAPHPART_RUNTIME_GPRUNTIMELOWERED_H
#define GRAPHPART_RUNTIME_GPRUNTIMELOWERED_H

#include "GraphPart/Runtime/GPRuntimeBase.h"

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------------------------------------------===*\
|* Programs and partitions                                                *|
\*===------------------------------------------------------------------===*/

/* One partition of a program, as the compiler describes it. */
typedef struct gpRtPartitionInfo {
  /* Capture as a graph (1) or always run eagerly (0). */
  int32_t capturable;
  /* Length of the partition's shape key: its symint inputs, in order. */
  int32_t numShapeSymbols;
  /* Why it is eager ("cpu ops, device copy"); NULL or "" when capturable. */
  const char *reasons;
} gpRtPartitionInfo;

typedef struct gpRtProgramInfo {
  const char *name;
  int32_t numPartitions;
  const gpRtPartitionInfo *partitions;
  /* Bytes of the statically planned arena (gp.arenas) on the device. */
  int64_t arenaBytes;
  /* Number of RNG generators (gp.rng.generator) and the program seed. */
  int32_t numGenerators;
  uint64_t seed;
  /* Bytes of the statically planned host arena (buffers on #gp.device<cpu>);
   * host memory on every backend. */
  int64_t hostArenaBytes;
} gpRtProgramInfo;


/* Loads a program description. The policy starts from its defaults and the
 * environment: GP_CUDAGRAPH_CAPTURE_SIZES ("1,2,4" or "2x3,4x5"),
 * GP_CUDAGRAPH_OR_ERROR=1, GP_CUDAGRAPH_SHAPE_WARNING_LIMIT, GP_LOG. */
gpRtStatus gpRtProgramCreate(const gpRtProgramInfo *info, gpRtBackend backend,
                             int32_t device, gpRtProgram **program);

/* Releases the program and everything it holds: graphs, executables,
 * streams, pools. With GP_DEBUG_HANDLES=1 a destroyed program (or one whose
 * artifact was unloaded) and a pointer never returned as a program make
 * every function taking a program fail ("program handle 0x... was
 * destroyed", "0x... is not a live program") instead of reading freed
 * memory. */
gpRtStatus gpRtProgramDestroy(gpRtProgram *program);

/* Eager runs of a capturable partition, per shape key, before it is
 * captured (default 1). */
gpRtStatus gpRtProgramSetWarmupRuns(gpRtProgram *program, int32_t runs);

/* Only these shape keys are captured; others run eagerly. `keys` holds
 * numKeys keys of keyLength values each. numKeys < 0 lifts the list. */
gpRtStatus gpRtProgramSetCaptureSizes(gpRtProgram *program, const int64_t *keys,
                                      int32_t numKeys, int32_t keyLength);

/* Warn once a partition has recorded more than `limit` shapes (default 8),
 * then once per further new shape. */
gpRtStatus gpRtProgramSetShapeWarningLimit(gpRtProgram *program, int32_t limit);

/* Executables each partition keeps per thread (default 64;
 * GP_CUDAGRAPH_CACHE_CAPACITY): one per recorded key (shape and placement
 * of the inputs), so alternating keys replay without updating anything,
 * and more per key for sets of input addresses that recur, so rotating
 * buffers replay without re-binding. Past it the least recently used is
 * dropped (with its key when it was the key's last), and its executable is
 * updated in place for a new key when the topologies match. */
gpRtStatus gpRtProgramSetGraphCacheCapacity(gpRtProgram *program,
                                            int32_t capacity);

/* Or-error mode: running anything uncaptured (an eager partition, a shape
 * key outside the capture sizes) fails with GP_RT_ERROR_NOT_CAPTURED. */
gpRtStatus gpRtProgramSetOrError(gpRtProgram *program, int32_t enabled);

/* Where a partition's work goes: run now, or recorded into a graph. */

/* What work launched on `stream` must follow (for externs that launch
 * through another library, such as a Python extern running PyTorch ops):
 * its backend, whether a graph is being captured, and on the cuda backend
 * the driver stream (a CUstream; NULL on the host backend) that the work
 * must be ordered on and its device's ordinal (-1 on the host backend).
 * Any output pointer may be NULL. Fails on a null stream and on a stream
 * of another thread. */
gpRtStatus gpRtStreamGetInfo(gpRtStream *stream, gpRtBackend *backend,
                             int32_t *capturing, void **cudaStream,
                             int32_t *cudaDevice);

/* A partition body: launches the partition's work on `stream`. */
typedef gpRtStatus (*gpRtPartitionBody)(gpRtStream *stream, void *userData);

/* Runs partition `partition` for `shapeKey` (numShapeSymbols values): warm
 * up, capture, replay or run eagerly, as the policy says. Each thread that
 * runs a program gets its own pool and graphs, so threads running or
 * capturing at once never allocate into each other's pools. */
gpRtStatus gpRtRunPartition(gpRtProgram *program, int32_t partition,
                            const int64_t *shapeKey, gpRtPartitionBody body,
                            void *userData);

/* A host kernel: `params[i]` points to the i-th parameter's value. */
typedef void (*gpRtHostKernel)(void **params);

/* Launches a host kernel on `stream`. While capturing, the launch and a copy
 * of its parameter values (paramSizes[i] bytes each) are recorded. On the
 * cuda backend it is a cpu kernel: it runs after the stream's queued work,
 * and inside a capture it fails with GP_RT_ERROR_NOT_CAPTURED. A stream
 * belongs to the thread running the partition: a launch from another thread
 * fails with GP_RT_ERROR_WRONG_THREAD. */
gpRtStatus gpRtLaunchHostKernel(gpRtStream *stream, gpRtHostKernel kernel,
                                void **params, const int64_t *paramSizes,
                                int32_t numParams);

/* The calling thread's arena of the program (arenaBytes, 256-byte
 * aligned): planned buffers live at fixed offsets in it, so captured graphs
 * see the same addresses on every replay. On the cuda backend it is device
 * memory. */
gpRtStatus gpRtProgramArena(gpRtProgram *program, void **base);

/* Memory for a buffer whose size is known only at run time (symbolic
 * sizes), asked for from inside a partition body; 256-byte aligned. For a
 * capturable partition it is planned per shape key: the warm-up runs record
 * the sizes asked for, the capture gets a pool of exactly those, kept as
 * long as the key's graph, so replays see the same addresses. Eager and
 * warm-up runs get memory released when the run ends. */
gpRtStatus gpRtAllocate(gpRtStream *stream, int64_t bytes, void **pointer);
/* Tells the runtime the body no longer needs `pointer` (from gpRtAllocate
 * in this run): later allocations of the run may take its memory, and a
 * captured key's pool holds only what is live at once. Pointers the runtime
 * did not allocate are ignored. Compiled programs call it at the planned
 * free of every buffer sized at run time. */
gpRtStatus gpRtFree(gpRtStream *stream, void *pointer);

/* The calling thread's host arena (hostArenaBytes): planned buffers on the
 * cpu device. Always host memory. */
gpRtStatus gpRtProgramHostArena(gpRtProgram *program, void **base);

/* A buffer a partition reads or writes: `base` is the lowest address the
 * partition reaches through it (its descriptor's aligned pointer once the
 * offset is folded in) and `bytes` how far from `base` it reaches (0 for an
 * empty buffer; -1 when unknown, which keys the partition's graphs by this
 * input's address). */
typedef struct gpRtPartitionInput {
  void *base;
  int64_t bytes;
} gpRtPartitionInput;

/* Like gpRtRunPartition, for compiled programs whose partition bodies hand
 * values (buffer descriptors, sizes) back to the caller:
 *  - `results` (resultBytes) is what the body writes for its caller. A
 *    replay does not run the body, so the runtime keeps the bytes the
 *    capture wrote, per shape key, and writes them back on every replay.
 *  - `inputs` are the partition's input buffers. A graph holds their
 *    addresses; when a later run passes them elsewhere (a caller's fresh
 *    tensors), the runtime re-binds the executable to the new addresses
 *    before replaying it (kernel parameters, copy and memset nodes, the
 *    results above), without capturing again. Graphs are kept per shape
 *    key and per pattern of overlap between the inputs; a partition whose
 *    capture holds an address the runtime cannot re-bind (an extern
 *    registered with GP_RT_EXTERN_FIXED_ADDRESSES, say) keeps graphs per
 *    input address instead, with the reason in the log and in
 *    gpRtProgramGetBindingReport. */
gpRtStatus gpRtRunPartitionWithResults(gpRtProgram *program, int32_t partition,
                                       const int64_t *shapeKey,
                                       gpRtPartitionBody body, void *userData,
                                       void *results, int64_t resultBytes,
                                       const gpRtPartitionInput *inputs,
                                       int32_t numInputs);

/* A partition's buffer input as gpRtRunPartitionInContext finds it: its
 * descriptor (allocated, aligned, offset, sizes[rank], strides[rank], 64-bit
 * words) is the one `userData[contextSlot]` points to. The reach is what
 * gpRtPartitionInput says: base = aligned + (offset - staticOffset) *
 * elementBytes, bytes = (staticOffset + 1 + sum((sizes[i] - 1) *
 * strides[i])) * elementBytes, 0 when a size is 0; a staticOffset of -1
 * (a layout that is not strided) gives base = aligned and bytes = -1. All
 * four fields are 64-bit, so a compiled program keeps the table as one
 * constant array of integers. */
typedef struct gpRtPartitionInputLayout {
  int64_t contextSlot;
  int64_t rank;
  int64_t elementBytes;
  int64_t staticOffset;
} gpRtPartitionInputLayout;

/* gpRtRunPartitionWithResults whose `inputs` the runtime reads from the
 * descriptors in `userData` (an array of pointers, the body's context),
 * as `layouts` (usually a constant table in the artifact) says: an entry
 * point with hundreds of bound parameters then spends a few instructions
 * per parameter on a call, not a descriptor copy and an extent computation
 * each in straight-line code. */
gpRtStatus gpRtRunPartitionInContext(gpRtProgram *program, int32_t partition,
                                     const int64_t *shapeKey,
                                     gpRtPartitionBody body, void **userData,
                                     void *results, int64_t resultBytes,
                                     const gpRtPartitionInputLayout *layouts,
                                     int32_t numInputs);

/* How the calling thread's graphs of `program` bind their inputs, one line
 * per partition input that a graph holds ("partition 0 input 1: re-bound
 * (3 kernel parameters, 1 copy)", "... : keyed by address (extern 'x' ...)",
 * "... : in the program's arena"), as text owned by the program, valid
 * until the next call on it from this thread. */
gpRtStatus gpRtProgramGetBindingReport(gpRtProgram *program,
                                       const char **report);

/* Where gpRtCopy's source and destination live. */
typedef enum gpRtCopyKind {
  GP_RT_COPY_HOST_TO_HOST = 0,
  GP_RT_COPY_HOST_TO_PROGRAM = 1,
  GP_RT_COPY_PROGRAM_TO_HOST = 2,
  GP_RT_COPY_PROGRAM_TO_PROGRAM = 3,
  GP_RT_COPY_FORCE_32_BIT = 0x7fffffff
} gpRtCopyKind;

/* A copy of `bytes` in stream order ("program" memory is device memory on
 * the cuda backend). Copies into host memory are complete on return, so
 * host code may read the destination. Program-to-program copies may be
 * captured; the others run only eagerly. */
gpRtStatus gpRtCopy(gpRtStream *stream, void *dst, const void *src,
                    int64_t bytes, gpRtCopyKind kind);

/* capture enabled (default 1); 0 runs every partition eagerly, as the
 * reference an eager run is checked against (counted as eager runs). */
gpRtStatus gpRtProgramSetCaptureEnabled(gpRtProgram *program, int32_t enabled);

/* Memory in the program's address space (device memory on the cuda
 * backend) for a caller's inputs, 256-byte aligned; not part of the pool. */
gpRtStatus gpRtProgramAllocate(gpRtProgram *program, int64_t bytes,
                               void **pointer);
gpRtStatus gpRtProgramFree(gpRtProgram *program, void *pointer);

/* Waits for the work the calling thread queued on the program. */
gpRtStatus gpRtProgramSynchronize(gpRtProgram *program);

/* Compiled entry points check each symint that declares a range: fails
 * with GP_RT_ERROR_INVALID_ARGUMENT, naming the symint, its value and the
 * range, when `value` is outside [min, max]. */
gpRtStatus gpRtCheckSymInt(const char *name, int64_t value, int64_t min,
                           int64_t max);

/* Compiled entry points and partition bodies check each group of a dynamic
 * expand_shape where they make the view (gp.buffer.reshape's `expand`):
 * the `count` output sizes at `sizes`, of result dimensions `firstResultDim`
 * on, must be non-negative and multiply to `sourceSize`, the size of source
 * dimension `sourceDim`. Otherwise fails with GP_RT_ERROR_INVALID_ARGUMENT,
 * naming `op` (the op and its source location) and both sizes. */
gpRtStatus gpRtCheckExpandShape(const char *op, int64_t sourceDim,
                                int64_t sourceSize, int64_t firstResultDim,
                                const int64_t *sizes, int64_t count);

/* Checked mode (gp-pipeline checked=true): reads the bounds flag at `flag`
 * (program memory, after the calling thread's queued work) and fails when
 * a kernel set it, naming the kernel: line N of `kernels` for flag N. */
gpRtStatus gpRtCheckBoundsFlag(gpRtProgram *program, const void *flag,
                               const char *kernels);

/* Writes `bytes` of host memory at `src` into program memory `dst` in
 * stream order on the calling thread's stream, without waiting for the
 * device: `src` may be reused on return. Compiled programs write host
 * scalars into the slots their captured kernels read (gp.scalar.slot). */
gpRtStatus gpRtProgramWrite(gpRtProgram *program, void *dst, const void *src,
                            int64_t bytes);
/* Copies between host memory and the program's memory (device memory on
 * the cuda backend), waiting for the copy. */
gpRtStatus gpRtCopyToProgram(gpRtProgram *program, void *dst, const void *src,
                             int64_t bytes);
gpRtStatus gpRtCopyFromProgram(gpRtProgram *program, void *dst, const void *src,
                               int64_t bytes);

/* cuda backend: loads a module image (cubin or PTX, NUL-terminated for
 * PTX) into the program; modules are unloaded with the program. */
gpRtStatus gpRtCudaLoadModule(gpRtProgram *program, const void *image,
                              void **module);
gpRtStatus gpRtCudaGetFunction(gpRtProgram *program, void *module,
                               const char *name, void **function);

/* cuda backend: launches `function` on `stream` (recorded while
 * capturing). params[i] points to the i-th kernel parameter. */
gpRtStatus gpRtLaunchCudaKernel(gpRtStream *stream, void *function,
                                const uint32_t grid[3], const uint32_t block[3],
                                uint32_t sharedBytes, void **params);

/* cuda backend: the kernel `name` of the module image `image`, loaded into
 * the program on first use and cached by (image, name). */
gpRtStatus gpRtCudaGetKernel(gpRtProgram *program, const void *image,
                             const char *name, void **function);


/*===------------------------------------------------------------------===*\
|* Graph-safe RNG                                                         *|
\*===------------------------------------------------------------------===*/

/* The philox state a forward invocation of generator `generator` draws
 * from; `invocation` identifies it for the matching backward. */
gpRtStatus gpRtRngForward(gpRtProgram *program, int32_t generator,
                          uint64_t *seed, uint64_t *offset,
                          int64_t *invocation);

/* The state the backward of forward `invocation` draws from: the same as
 * that forward's, whatever the order of forwards and backwards. */
gpRtStatus gpRtRngBackward(gpRtProgram *program, int32_t generator,
                           int64_t invocation, uint64_t *seed,
                           uint64_t *offset);

/* The RNG state of one gp.rng.state op for this call: a forward draws a
 * fresh (seed, offset) of `generator`; a backward takes the state of the
 * most recent forward of `generator` that has no backward yet. The pair
 * is written to `slot` (two uint64 in program memory) in stream order, so a
 * captured fill kernel that reads the slot draws fresh numbers on every
 * replay. `backward` is 0 or 1. */
gpRtStatus gpRtRngState(gpRtProgram *program, int32_t generator,
                        int32_t backward, void *slot);

/* Fills `out` with `count` uniform floats in [0, 1) drawn from philox
 * (seed, offset): a pure function of its inputs. */
void gpRtPhiloxUniform(uint64_t seed, uint64_t offset, float *out,
                       int64_t count);

/*===------------------------------------------------------------------===*\
|* Collectives                                                            *|
\*===------------------------------------------------------------------===*/

/* The rank this program instance runs as, and the number of ranks (0 and 1
 * when it runs alone): gp.rank and gp.world_size. */
gpRtStatus gpRtProgramRank(gpRtProgram *program, int64_t *rank);
/* Makes the program rank `rank` of `communicator` (NULL: alone), before
 * its first run (gpRtArtifactSetCommunicator for a loaded artifact). */
gpRtStatus gpRtProgramSetCommunicator(gpRtProgram *program,
                                      gpRtCommunicator *communicator,
                                      int32_t rank);
gpRtStatus gpRtProgramWorldSize(gpRtProgram *program, int64_t *size);

/* A collective on `stream` among the program's ranks: `kind` 0 all-reduce,
 * 1 all-gather, 2 reduce-scatter (along the first dimension), 3 broadcast
 * from rank `root` (in place: target == source); `reduction` 0 sum, 1 max,
 * 2 min; counts in elements of `elementType` (gpRtElementType). Alone, it
 * copies source to target. Checks that the counts fit the number of ranks. */
gpRtStatus gpRtCollective(gpRtProgram *program, gpRtStream *stream,
                          int32_t kind, int32_t reduction, void *target,
                          const void *source, int64_t sourceElements,
                          int64_t targetElements, int32_t elementType,
                          int64_t root);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHPART_RUNTIME_GPRUNTIMELOWERED_H */
