/*===- GPRuntime.h - GraphPart runtime C API ---------------------*- C -*-===*\
|*                                                                          *|
|* The runtime that runs GraphPart programs. A plain C ABI with the `gpRt`   *|
|* prefix; it does not depend on LLVM or MLIR. Every call reports failure    *|
|* through a gpRtStatus; the message of the last failure on the calling      *|
|* thread is available from gpRtGetLastError. Nothing here aborts the       *|
|* process or throws.                                                        *|
\*===----------------------------------------------------------------------===*/

#ifndef GRAPHPART_RUNTIME_GPRUNTIME_H
#define GRAPHPART_RUNTIME_GPRUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gpRtStatus {
  GP_RT_SUCCESS = 0,
  /* A caller passed something invalid (null pointer, unknown name). */
  GP_RT_ERROR_INVALID_ARGUMENT = 1,
  /* What was asked for does not exist on this machine or in this build. */
  GP_RT_ERROR_UNAVAILABLE = 2,
  /* The backend (e.g. the CUDA driver) reported an error. */
  GP_RT_ERROR_BACKEND = 3,
  /* Or-error mode: something would have run without being captured. */
  GP_RT_ERROR_NOT_CAPTURED = 4,
  /* A stream is used from a thread other than the one running it. */
  GP_RT_ERROR_WRONG_THREAD = 5,
  /* Keeps the enum 32 bits wide, so any int32 value is a valid one. */
  GP_RT_STATUS_FORCE_32_BIT = 0x7fffffff
} gpRtStatus;

typedef enum gpRtBackend {
  /* Kernels run as host loops; always available. */
  GP_RT_BACKEND_HOST = 0,
  /* Kernels run on an NVIDIA GPU through the CUDA driver. */
  GP_RT_BACKEND_CUDA = 1,
  GP_RT_BACKEND_FORCE_32_BIT = 0x7fffffff
} gpRtBackend;

/* The runtime's version, e.g. "0.1.0". */
const char *gpRtVersion(void);

/* A fixed description of a status code. */
const char *gpRtStatusString(gpRtStatus status);

/* The message of the last failing call on this thread ("" if none). */
const char *gpRtGetLastError(void);

/* "host" or "cuda" for a backend; NULL for an invalid value. */
const char *gpRtBackendName(gpRtBackend backend);

/* Parses "host" or "cuda". */
gpRtStatus gpRtParseBackend(const char *name, gpRtBackend *backend);

/* GP_RT_SUCCESS when `backend` can run programs here; otherwise
 * GP_RT_ERROR_UNAVAILABLE, with the reason in gpRtGetLastError. */
gpRtStatus gpRtBackendAvailable(gpRtBackend backend);

/* Number of CUDA devices the driver reports. Fails with
 * GP_RT_ERROR_UNAVAILABLE when there is no CUDA driver. */
gpRtStatus gpRtCudaDeviceCount(int *count);

/* The best backend present: cuda when a CUDA device is usable, else host. */
gpRtBackend gpRtDefaultBackend(void);

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

typedef struct gpRtProgram gpRtProgram;

/* Loads a program description. The policy starts from its defaults and the
 * environment: GP_CUDAGRAPH_CAPTURE_SIZES ("1,2,4" or "2x3,4x5"),
 * GP_CUDAGRAPH_OR_ERROR=1, GP_CUDAGRAPH_SHAPE_WARNING_LIMIT, GP_LOG. */
gpRtStatus gpRtProgramCreate(const gpRtProgramInfo *info, gpRtBackend backend,
                             int32_t device, gpRtProgram **program);

/* Releases the program and everything it holds: graphs, executables,
 * streams, pools. */
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
typedef struct gpRtStream gpRtStream;

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
|* Extern registry: fallback ops                                          *|
\*===------------------------------------------------------------------===*/

/* How compiled code passes a buffer to externs and entry points: MLIR's
 * ranked memref descriptor. `shape` holds rank sizes, then rank strides
 * (in elements); the first element is at aligned + offset. */
typedef struct gpRtMemRef {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t shape[];
} gpRtMemRef;

/* Bytes of a rank-`rank` descriptor. */
#define GP_RT_MEMREF_BYTES(rank)                                               \
  ((int64_t)sizeof(gpRtMemRef) + 2 * (int64_t)(rank) * (int64_t)sizeof(int64_t))

/* Element types, of buffers and scalars passed to externs (gpRtExternArg)
 * and of the built-in "gp::matmul" (its elementType argument). Integers are
 * MLIR's signless or signed integers of that width; ui8 is U8. */
typedef enum gpRtElementType {
  GP_RT_ELEMENT_F32 = 0,
  GP_RT_ELEMENT_F16 = 1,
  GP_RT_ELEMENT_BF16 = 2,
  GP_RT_ELEMENT_F64 = 3,
  GP_RT_ELEMENT_F8E4M3FN = 4,
  GP_RT_ELEMENT_F8E5M2 = 5,
  GP_RT_ELEMENT_I1 = 6,
  GP_RT_ELEMENT_I8 = 7,
  GP_RT_ELEMENT_U8 = 8,
  GP_RT_ELEMENT_I16 = 9,
  GP_RT_ELEMENT_I32 = 10,
  GP_RT_ELEMENT_I64 = 11,
  GP_RT_ELEMENT_INDEX = 12,
  /* Anything else (complex, other widths): no extern reads it blindly. */
  GP_RT_ELEMENT_OTHER = 255,
  GP_RT_ELEMENT_FORCE_32_BIT = 0x7fffffff
} gpRtElementType;

/* "f32", "bf16", "i1", "index", ... for an element type; "other" for
 * GP_RT_ELEMENT_OTHER and NULL for a value not in the enum. */
const char *gpRtElementTypeName(gpRtElementType type);

/* The version of the extern ABI this header describes: how compiled code
 * calls externs (gpRtExternFn, gpRtExternArg) and how externs register
 * (gpRtExternSpec). The runtime refuses registrations and extern libraries
 * built against another version. Version 1 passed no argument types. */
#define GP_RT_EXTERN_ABI_VERSION 2

/* What one argument of an extern call is. */
typedef enum gpRtExternArgKind {
  /* args[i] points to a gpRtMemRef of `rank`. */
  GP_RT_EXTERN_ARG_BUFFER = 0,
  /* args[i] points to the scalar: int64_t for index and integers (i1 to
   * i64, widened), float for f32, double for f64. */
  GP_RT_EXTERN_ARG_SCALAR = 1,
  GP_RT_EXTERN_ARG_KIND_FORCE_32_BIT = 0x7fffffff
} gpRtExternArgKind;

typedef struct gpRtExternArg {
  int64_t bytes;       /* size of the value args[i] points to */
  int32_t kind;        /* gpRtExternArgKind */
  int32_t elementType; /* gpRtElementType of the elements or the scalar */
  int32_t rank;        /* a buffer's rank; 0 for a scalar */
  int32_t isResult;    /* 1 for the op's results, which follow its operands */
} gpRtExternArg;

/* An external op, bound by name to gp.fallback ops ("ns::op" or
 * "ns::op.overload"). args[i] points to the i-th argument's value and
 * argInfo[i] says what it is; an extern checks both and refuses (with
 * GP_RT_ERROR_INVALID_ARGUMENT and a message through gpRtSetError) element
 * types, ranks and counts it does not implement. It launches its work on
 * `stream` (with gpRtLaunchCudaKernel, a library's stream-ordered calls, or
 * directly on the host). */
typedef gpRtStatus (*gpRtExternFn)(gpRtStream *stream, void **args,
                                   const gpRtExternArg *argInfo,
                                   int32_t numArgs);

/* What gpRtExternSpec's `flags` may say of an extern. */
enum {
  /* It may run while a graph is being captured: the IR's gp.fallback must
   * not carry the "cudagraph_unsafe" tag. Without this flag it must. */
  GP_RT_EXTERN_CAPTURABLE = 1,
  /* What it captures holds addresses the runtime cannot find and re-bind
   * (pointers it keeps in device memory or in its own state): partitions
   * that call it keep graphs per input address. */
  GP_RT_EXTERN_FIXED_ADDRESSES = 2
};

/* One extern as it registers. Zero-initialise it and set the fields: */
typedef struct gpRtExternSpec {
  int32_t abiVersion; /* GP_RT_EXTERN_ABI_VERSION */
  int32_t flags;      /* GP_RT_EXTERN_* */
  const char *name;   /* "ns::op" or "ns::op.overload" */
  gpRtExternFn fn;
  /* Optionally, the schema it implements, in the IR's terms: `mutates`,
   * the operands it writes ("0,2"; "" for none), and `aliases`, per result
   * "-" (fresh) or the operand it is a view of ("-,0"). NULL: not stated.
   * What is stated is compared with the IR when an artifact loads. */
  const char *mutates;
  const char *aliases;
} gpRtExternSpec;

/* Registers an extern (replacing one of the same name). Fails, with the
 * reason, on another abiVersion, unknown flags, a malformed name, mutates
 * or aliases, or a null function. */
gpRtStatus gpRtRegisterExtern(const gpRtExternSpec *spec);

/* Loads a shared library of externs. It must export
 *   int32_t gp_extern_abi_version(void);   (GP_RT_EXTERN_ABI_VERSION)
 *   gpRtStatus gp_register_externs(gpRtStatus (*reg)(const gpRtExternSpec *));
 * (GP_RT_DEFINE_EXTERN_ABI_VERSION defines the first): the version is
 * checked before the second is called, and a failing registration fails
 * the load. */
gpRtStatus gpRtLoadExternLibrary(const char *path);

#ifdef __cplusplus
#define GP_RT_EXTERN_C extern "C"
#else
#define GP_RT_EXTERN_C
#endif
/* Defines gp_extern_abi_version in an extern library (at file scope). */
#define GP_RT_DEFINE_EXTERN_ABI_VERSION                                        \
  GP_RT_EXTERN_C __attribute__((visibility("default"))) int32_t              \
  gp_extern_abi_version(void) {                                                \
    return GP_RT_EXTERN_ABI_VERSION;                                           \
  }

/* Reports `message` as the calling thread's last error (gpRtGetLastError)
 * and returns `status`: how an extern says why it failed. */
gpRtStatus gpRtSetError(gpRtStatus status, const char *message);

/* Calls the extern `name` on `stream` with argInfo[i] describing args[i].
 * While capturing, a capturable extern is recorded into the graph (on the
 * host backend with copies of its arguments); a non-capturable one fails
 * with GP_RT_ERROR_NOT_CAPTURED.
 *
 * Compiled gp.fallback ops pass their operands, then their results: a
 * buffer as a pointer to its gpRtMemRef, a scalar as a pointer to its
 * value. A result descriptor arrives filled in when the compiler knows its
 * shape (memory allocated); otherwise `allocated` is NULL and the extern
 * fills the descriptor (allocating with gpRtAllocate, or pointing into an
 * operand it aliases).
 *
 * When an artifact loads, every extern its program calls must be
 * registered, and what the IR states of it (capturable, or tagged
 * "cudagraph_unsafe"; mutates and aliases where the registration states
 * them) must agree with the registration: otherwise the load fails naming
 * the op, its location and both statements.
 *
 * Built in (and their overloads, "aten::mm.default"): the matmuls below,
 * capturable, their captured work following moved inputs. */
gpRtStatus gpRtCallExtern(gpRtStream *stream, const char *name, void **args,
                          const gpRtExternArg *argInfo, int32_t numArgs);

/* The built-in matmuls. Each is cuBLAS on the cuda backend
 * (cublasGemmEx, or cublasGemmStridedBatchedEx for a batch, computed in f32:
 * CUBLAS_COMPUTE_32F with f32 scale factors, whatever the element type) and
 * a loop on the host backend (f32 sums; f16 and bf16 read exactly and
 * written rounded to nearest even), with the same results up to the order
 * of the sums, and the same operands accepted and refused.
 *
 * "gp::matmul", args (A, B, C, elementType, accumulate), what the compiler
 * lowers linalg contractions to (matmul, batch_matmul, matmul_transpose_a/b,
 * contraction generics):
 *  - A, B, C: buffers, all of rank 2, [M,K] x [K,N] -> [M,N], or all of
 *    rank 3, [batch,M,K] x [batch,K,N] -> [batch,M,N]. Sizes and strides as the
 *    descriptor carries them (in elements; the first element at aligned +
 *    offset). The batch extents agree (no broadcast by size 1); A's or B's
 *    batch stride may be 0 to use one matrix for every product.
 *  - elementType: an int64 scalar, the gpRtElementType of A, B and C
 *    alike (F32, F16 or BF16; argInfo must say the same of each).
 *  - accumulate: an int64 scalar, 1: C += A B (linalg's semantics: C's
 *    contents are added), 0: C = A B (C is not read).
 *  Layouts: each matrix of A and B needs a unit stride in one of its two
 *  dimensions and, in the other, a stride >= max(1, size of the unit-stride
 *  dimension): row-major or column-major, with any leading dimension (a
 *  slice of a larger matrix, a transposed view). C likewise, and its
 *  elements must not share memory with each other (batches included) nor
 *  with A's or B's. A dimension of size 1 takes any stride. Anything else
 *  (no unit stride, a negative stride, overlapping elements of C) fails
 *  with GP_RT_ERROR_INVALID_ARGUMENT naming the operand, its sizes and
 *  strides; so do shapes that do not agree, an unknown elementType, an
 *  accumulate other than 0 or 1, memory not aligned to the element type,
 *  and sizes or leading dimensions above INT_MAX. M, N or batch 0: nothing
 *  to do; K = 0: C = 0 (accumulate 0) or C unchanged (accumulate 1).
 *
 * "aten::mm", args (A, B, C): C = A B, rank 2, layouts as above, all of
 *  one element type: f32, f16 or bf16 (others are refused).
 * "aten::bmm", args (A, B, C): the same at rank 3.
 * "aten::addmm", args (bias, A, B, C): C = bias + A B, f32 only, rank-2
 *  A, B and C; the bias of rank 0 to 2 broadcasts to [M,N] by PyTorch's
 *  rules ([N], [1,N], [M,1], [M,N] with any strides, a stride of 0
 *  included). It must
 *  not share memory with C, unless it is C itself (in place). beta and
 *  alpha are 1: a call passing them is refused. On the cuda backend the
 *  bias is written into C by a small kernel of the runtime, then cuBLAS
 *  adds A B. */

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
/* Destroys the program and unloads the shared object. */
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

/* Named parameters bound once, and calls ordered on a caller's CUDA stream:
 * what hosts embedding the runtime (graphpart.load, gp-run) use. */
#include "GraphPart/Runtime/GPRuntimeHost.h"

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

#endif /* GRAPHPART_RUNTIME_GPRUNTIME_H */
