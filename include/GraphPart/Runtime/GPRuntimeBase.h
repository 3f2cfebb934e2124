/*===- GPRuntimeBase.h - statuses and backends --------------------*- C -*-===*\
|*                                                                          *|
|* Part of the runtime's C API (GPRuntime.h includes it): status codes, the *|
|* last error, backends, and the opaque program and stream types every      *|
|* other part uses.                                                         *|
\*===----------------------------------------------------------------------===*/

#ifndef GRAPHPART_RUNTIME_GPRUNTIMEBASE_H
#define GRAPHPART_RUNTIME_GPRUNTIMEBASE_H

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

/* The value of one of the C ABI's constants, by its C name: the enumerators
 * of gpRtStatus, gpRtBackend, gpRtElementType and gpRtExternArgKind, the
 * GP_RT_EXTERN_* flags and GP_RT_EXTERN_ABI_VERSION ("GP_RT_BACKEND_CUDA",
 * ...); and GP_RT_SIZEOF_<struct>, the sizeof of each struct such callers
 * mirror (gpRtMemRef without its sizes, gpRtValueInfo, gpRtEntryInfo,
 * gpRtParameterInfo, gpRtExternArg, gpRtExternSpec), for them to check
 * their layouts. For callers that cannot include these headers (Python's
 * ctypes), so that they hold no copies of the numbers.
 * GP_RT_ERROR_INVALID_ARGUMENT for a name that is not one of them. */
gpRtStatus gpRtGetAbiConstant(const char *name, int64_t *value);

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


/* A loaded program (GPRuntimeLowered.h) and the stream one thread's work
 * of it goes to. */
typedef struct gpRtProgram gpRtProgram;
/* Ranks that run one program together (gp.all_reduce and its kin). */
typedef struct gpRtCommunicator gpRtCommunicator;
typedef struct gpRtStream gpRtStream;

#ifdef __cplusplus
}
#endif

#endif /* GRAPHPART_RUNTIME_GPRUNTIMEBASE_H */
