/*===- GPRuntime.h - GraphPart runtime C API ---------------------*- C -*-===*\
|*                                                                          *|
|* The runtime that runs GraphPart programs. A plain C ABI with the `gpRt`   *|
|* prefix; it does not depend on LLVM or MLIR. Every call reports failure    *|
|* through a gpRtStatus; the message of the last failure on the calling      *|
|* thread is available from gpRtGetLastError. Nothing here aborts the       *|
|* process or throws.                                                        *|
|*                                                                          *|
|* An umbrella over the API's three audiences: what compiled programs call  *|
|* (GPRuntimeLowered.h), what extern authors use (GPRuntimeExtern.h) and     *|
|* what hosts embedding the runtime use (GPRuntimeHost.h), on the shared    *|
|* statuses and backends (GPRuntimeBase.h).                                 *|
\*===----------------------------------------------------------------------===*/

#ifndef GRAPHPART_RUNTIME_GPRUNTIME_H
#define GRAPHPART_RUNTIME_GPRUNTIME_H

#include "GraphPart/Runtime/GPRuntimeBase.h"
#include "GraphPart/Runtime/GPRuntimeExtern.h"
#include "GraphPart/Runtime/GPRuntimeHost.h"
#include "GraphPart/Runtime/GPRuntimeLowered.h"

#endif /* GRAPHPART_RUNTIME_GPRUNTIME_H */
