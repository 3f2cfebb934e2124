/*===- GPRuntimeExtern.h - the extern ABI -------------------------*- C -*-===*\
|*                                                                          *|
|* Part of the runtime's C API (GPRuntime.h includes it): what authors of   *|
|* externs (the ops a program calls as gp.fallback) use: buffer             *|
|* descriptors, element types, registration, and the built-in matmuls.      *|
\*===----------------------------------------------------------------------===*/

#ifndef GRAPHPART_RUNTIME_GPRUNTIMEEXTERN_H
#define GRAPHPART_RUNTIME_GPRUNTIMEEXTERN_H

#include "GraphPart/Runtime/GPRuntimeBase.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* GRAPHPART_RUNTIME_GPRUNTIMEEXTERN_H */
