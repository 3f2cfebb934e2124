//===- Program.cpp - the program C ABI ------------------------------------===//
//
// The C ABI of a program: creation and release, policy setters, arenas,
// program memory and copies, cuda modules, running a partition (the graph
// cache does the work), RNG state and statistics. Arguments are checked
// here; the work is done by the files that own it.
//
//===----------------------------------------------------------------------===//

#include "Handles.h"
#include "Memory.h"
#include "PartitionRunner.h"
#include "ProgramState.h"
#include "RuntimeInternal.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>

using namespace gp::rt;

extern "C" {

GP_RT_EXPORT gpRtStatus gpRtProgramCreate(const gpRtProgramInfo *info,
                                          gpRtBackend backend, int32_t device,
                                          gpRtProgram **program) {
  if (!info || !program || (info->numPartitions > 0 && !info->partitions) ||
      info->numPartitions < 0 || info->arenaBytes < 0 ||
      info->hostArenaBytes < 0 || info->numGenerators < 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramCreate: missing or negative program description");
  if (info->arenaBytes > kMaxBlockBytes ||
      info->hostArenaBytes > kMaxBlockBytes)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramCreate: an arena of more than 2^56 bytes");
  // One per RNG op of the program; more is a corrupt description, not a
  // reason to take the host's memory (found by scripts/fuzz.sh).
  constexpr int32_t kMaxGenerators = 1 << 20;
  if (info->numGenerators > kMaxGenerators)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramCreate: " + std::to_string(info->numGenerators) +
                    " RNG generators (at most 2^20)");
  if (backend != GP_RT_BACKEND_HOST && backend != GP_RT_BACKEND_CUDA)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramCreate: unknown backend " +
                    std::to_string(backend));
  for (int32_t i = 0; i < info->numPartitions; ++i)
    if (info->partitions[i].numShapeSymbols < 0)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "gpRtProgramCreate: partition " + std::to_string(i) +
                      " has a negative shape-key length");

  auto result = std::make_unique<gpRtProgram>();
  result->name = info->name ? info->name : "program";
  result->partitions.assign(info->partitions,
                            info->partitions + info->numPartitions);
  for (const gpRtPartitionInfo &partition : result->partitions)
    result->reasons.push_back(partition.reasons ? partition.reasons : "");
  result->arenaBytes = info->arenaBytes;
  result->hostArenaBytes = info->hostArenaBytes;
  result->backend = backend;
  result->device = device;
  result->rng.init(info->seed, info->numGenerators);
  if (backend == GP_RT_BACKEND_CUDA) {
    const CudaDriver *driver = nullptr;
    if (gpRtStatus status = CudaDriver::get(driver))
      return status;
    int count = 0;
    if (gpRtStatus status =
            driver->check(driver->cuDeviceGetCount(&count), "cuDeviceGetCount"))
      return status;
    if (device < 0 || device >= count)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "gpRtProgramCreate: no cuda device " +
                      std::to_string(device) + " (the driver reports " +
                      std::to_string(count) + ")");
    if (gpRtStatus status = driver->check(
            driver->cuDeviceGet(&result->cuDevice, device), "cuDeviceGet"))
      return status;
    if (gpRtStatus status =
            driver->check(driver->cuDevicePrimaryCtxRetain(&result->cuContext,
                                                           result->cuDevice),
                          "cuDevicePrimaryCtxRetain"))
      return status;
    result->driver = driver;
  }

  if (gpRtStatus status = result->policy.applyEnvironment())
    return status;
  result->policy.warnAboutKeyLengths(result->name, result->partitions);

  if (logEnabled(GP_RT_LOG_PARTITIONS)) {
    int capturable = 0;
    for (const gpRtPartitionInfo &partition : result->partitions)
      capturable += partition.capturable ? 1 : 0;
    std::ostringstream os;
    os << result->name << ": " << result->partitions.size()
       << " partitions: " << capturable << " capturable, "
       << result->partitions.size() - capturable << " eager";
    log(GP_RT_LOG_PARTITIONS, os.str());
    for (size_t i = 0; i < result->partitions.size(); ++i)
      if (!result->partitions[i].capturable)
        log(GP_RT_LOG_PARTITIONS, result->name + ": partition " +
                                      std::to_string(i) +
                                      " is eager: " + result->reasons[i]);
  }
  registerHandle(HandleKind::Program, result.get());
  ++liveCounts().programs;
  *program = result.release();
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramDestroy(gpRtProgram *program) {
  if (!program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtProgramDestroy: null");
  if (gpRtStatus status =
          releaseHandle(HandleKind::Program, program, "gpRtProgramDestroy"))
    return status;
  --liveCounts().programs;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramSetWarmupRuns(gpRtProgram *program,
                                                 int32_t runs) {
  if (gpRtStatus status = checkHandle(program, "gpRtProgramSetWarmupRuns"))
    return status;
  if (!program || runs < 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramSetWarmupRuns: null program or negative count");
  program->policy.warmupRuns = runs;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramSetCaptureSizes(gpRtProgram *program,
                                                   const int64_t *keys,
                                                   int32_t numKeys,
                                                   int32_t keyLength) {
  if (gpRtStatus status = checkHandle(program, "gpRtProgramSetCaptureSizes"))
    return status;
  if (!program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramSetCaptureSizes: null program");
  if (numKeys < 0) {
    program->policy.hasCaptureSizes = false;
    program->policy.captureSizes = gp::CaptureSizes();
    return GP_RT_SUCCESS;
  }
  if (keyLength < 0 || (numKeys > 0 && keyLength > 0 && !keys))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramSetCaptureSizes: bad key list");
  program->policy.captureSizes.sizes.assign(
      keys, keys + static_cast<int64_t>(numKeys) * keyLength);
  program->policy.captureSizes.keyLength = keyLength;
  program->policy.hasCaptureSizes = true;
  program->policy.warnAboutKeyLengths(program->name, program->partitions);
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramSetShapeWarningLimit(gpRtProgram *program,
                                                        int32_t limit) {
  if (gpRtStatus status =
          checkHandle(program, "gpRtProgramSetShapeWarningLimit"))
    return status;
  if (!program || limit < 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramSetShapeWarningLimit: null program or negative "
                "limit");
  program->policy.shapeWarningLimit = limit;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramSetGraphCacheCapacity(gpRtProgram *program,
                                                         int32_t capacity) {
  if (gpRtStatus status =
          checkHandle(program, "gpRtProgramSetGraphCacheCapacity"))
    return status;
  if (!program || capacity < 1)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramSetGraphCacheCapacity: null program or a "
                "capacity below 1");
  program->policy.graphCacheCapacity = capacity;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramSetOrError(gpRtProgram *program,
                                              int32_t enabled) {
  if (gpRtStatus status = checkHandle(program, "gpRtProgramSetOrError"))
    return status;
  if (!program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramSetOrError: null program");
  program->policy.orError = enabled != 0;
  return GP_RT_SUCCESS;
}

/// The calling thread's device arena or host arena.
static gpRtStatus threadArena(gpRtProgram *program, void **base, bool host,
                              const char *what) {
  if (gpRtStatus status = checkHandle(program, what))
    return status;
  if (!program || !base)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, std::string(what) + ": null");
  ThreadContext *context = nullptr;
  if (gpRtStatus status = program->context(context))
    return status;
  *base = host ? context->hostArena : context->arena;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramArena(gpRtProgram *program, void **base) {
  return threadArena(program, base, /*host=*/false, "gpRtProgramArena");
}

GP_RT_EXPORT gpRtStatus gpRtProgramHostArena(gpRtProgram *program,
                                             void **base) {
  return threadArena(program, base, /*host=*/true, "gpRtProgramHostArena");
}

GP_RT_EXPORT gpRtStatus gpRtProgramSetCaptureEnabled(gpRtProgram *program,
                                                     int32_t enabled) {
  if (gpRtStatus status = checkHandle(program, "gpRtProgramSetCaptureEnabled"))
    return status;
  if (!program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramSetCaptureEnabled: null");
  program->policy.captureEnabled = enabled != 0;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtProgramAllocate(gpRtProgram *program, int64_t bytes,
                                            void **pointer) {
  if (gpRtStatus status = checkHandle(program, "gpRtProgramAllocate"))
    return status;
  if (!program || !pointer || bytes < 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramAllocate: null or negative size");
  if (const CudaDriver *driver = program->driver)
    if (gpRtStatus status = driver->check(
            driver->cuCtxSetCurrent(program->cuContext), "cuCtxSetCurrent"))
      return status;
  if (gpRtStatus status = checkBlockSize(bytes, "gpRtProgramAllocate"))
    return status;
  return allocateBlock(program->driver, roundToBlock(bytes), *pointer,
                       "gpRtProgramAllocate");
}

GP_RT_EXPORT gpRtStatus gpRtProgramFree(gpRtProgram *program, void *pointer) {
  if (gpRtStatus status = checkHandle(program, "gpRtProgramFree"))
    return status;
  if (!program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtProgramFree: null");
  if (!pointer)
    return GP_RT_SUCCESS;
  if (!program->driver) {
    std::free(pointer);
    return GP_RT_SUCCESS;
  }
  const CudaDriver *driver = program->driver;
  if (gpRtStatus status = driver->check(
          driver->cuCtxSetCurrent(program->cuContext), "cuCtxSetCurrent"))
    return status;
  return driver->check(
      driver->cuMemFree(reinterpret_cast<CudaDriver::DevicePtr>(pointer)),
      "cuMemFree");
}

GP_RT_EXPORT gpRtStatus gpRtProgramSynchronize(gpRtProgram *program) {
  if (gpRtStatus status = checkHandle(program, "gpRtProgramSynchronize"))
    return status;
  if (!program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtProgramSynchronize: null");
  ThreadContext *context = nullptr;
  if (gpRtStatus status = program->context(context))
    return status;
  return context->device->synchronize(context->stream);
}

/// Copies between host and program memory, in either direction.
static gpRtStatus copyProgram(gpRtProgram *program, void *dst, const void *src,
                              int64_t bytes, bool toProgram, const char *what) {
  if (gpRtStatus status = checkHandle(program, what))
    return status;
  if (!program || bytes < 0 || (bytes > 0 && (!dst || !src)))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": null pointer or negative size");
  ThreadContext *context = nullptr;
  if (gpRtStatus status = program->context(context))
    return status;
  if (!program->driver) {
    std::memcpy(dst, src, bytes);
    return GP_RT_SUCCESS;
  }
  // On this thread's stream, after its queued work: never on the legacy
  // default stream, which would synchronise with (and so invalidate) a
  // capture another thread has open.
  const CudaDriver *driver = program->driver;
  CudaDriver::Handle stream = context->stream.cuStream;
  auto device = [](const void *pointer) {
    return reinterpret_cast<CudaDriver::DevicePtr>(pointer);
  };
  if (gpRtStatus status =
          toProgram ? driver->check(driver->cuMemcpyHtoDAsync(device(dst), src,
                                                              bytes, stream),
                                    "cuMemcpyHtoDAsync")
                    : driver->check(driver->cuMemcpyDtoHAsync(dst, device(src),
                                                              bytes, stream),
                                    "cuMemcpyDtoHAsync"))
    return status;
  // The caller may reuse or read host memory on return.
  return context->device->synchronize(context->stream);
}

GP_RT_EXPORT gpRtStatus gpRtCheckBoundsFlag(gpRtProgram *program,
                                            const void *flag,
                                            const char *kernels) {
  if (gpRtStatus status = checkHandle(program, "gpRtCheckBoundsFlag"))
    return status;
  if (!program || !flag || !kernels)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtCheckBoundsFlag: null");
  int64_t code = 0;
  if (gpRtStatus status =
          gpRtCopyFromProgram(program, &code, flag, sizeof(code)))
    return status;
  if (code == 0)
    return GP_RT_SUCCESS;
  std::string name = "#" + std::to_string(code);
  std::istringstream lines(kernels);
  std::string line;
  for (int64_t n = 1; std::getline(lines, line); ++n)
    if (n == code)
      name = line;
  return fail(GP_RT_ERROR_INVALID_ARGUMENT,
              program->name + ": kernel '" + name +
                  "' indexed a buffer out of bounds (checked=true); the "
                  "access was skipped and the call fails");
}

GP_RT_EXPORT gpRtStatus gpRtProgramWrite(gpRtProgram *program, void *dst,
                                         const void *src, int64_t bytes) {
  if (gpRtStatus status = checkHandle(program, "gpRtProgramWrite"))
    return status;
  if (!program || bytes < 0 || (bytes > 0 && (!dst || !src)))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramWrite: null pointer or negative size");
  ThreadContext *context = nullptr;
  if (gpRtStatus status = program->context(context))
    return status;
  const CudaDriver *driver = program->driver;
  if (!driver) {
    std::memcpy(dst, src, bytes);
    return GP_RT_SUCCESS;
  }
  // Small writes (scalars) become memsets, whose value travels with the
  // call: no host memory to keep alive and, unlike a copy from pageable
  // memory, no wait for the stream's queued work.
  auto address = reinterpret_cast<uintptr_t>(dst);
  CudaDriver::Handle stream = context->stream.cuStream;
  if (bytes > 16 || address % 4 != 0)
    return gpRtCopy(&context->stream, dst, src, bytes,
                    GP_RT_COPY_HOST_TO_PROGRAM);
  const auto *source = static_cast<const uint8_t *>(src);
  int64_t at = 0;
  for (; at + 4 <= bytes; at += 4) {
    unsigned word = 0;
    std::memcpy(&word, source + at, 4);
    if (gpRtStatus status = driver->check(
            driver->cuMemsetD32Async(address + at, word, 1, stream),
            "cuMemsetD32Async"))
      return status;
  }
  for (; at < bytes; ++at)
    if (gpRtStatus status = driver->check(
            driver->cuMemsetD8Async(address + at, source[at], 1, stream),
            "cuMemsetD8Async"))
      return status;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtCopyToProgram(gpRtProgram *program, void *dst,
                                          const void *src, int64_t bytes) {
  return copyProgram(program, dst, src, bytes, true, "gpRtCopyToProgram");
}

GP_RT_EXPORT gpRtStatus gpRtCopyFromProgram(gpRtProgram *program, void *dst,
                                            const void *src, int64_t bytes) {
  return copyProgram(program, dst, src, bytes, false, "gpRtCopyFromProgram");
}

GP_RT_EXPORT gpRtStatus gpRtCudaLoadModule(gpRtProgram *program,
                                           const void *image, void **module) {
  if (gpRtStatus status = checkHandle(program, "gpRtCudaLoadModule"))
    return status;
  if (!program || !image || !module)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtCudaLoadModule: null");
  if (!program->driver)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtCudaLoadModule: the program runs on the host backend");
  const CudaDriver *driver = program->driver;
  if (gpRtStatus status = driver->check(
          driver->cuCtxSetCurrent(program->cuContext), "cuCtxSetCurrent"))
    return status;
  CudaDriver::Handle handle = nullptr;
  if (gpRtStatus status = driver->check(
          driver->cuModuleLoadData(&handle, image), "cuModuleLoadData"))
    return status;
  std::lock_guard<std::mutex> lock(program->mutex);
  program->modules.push_back(handle);
  *module = handle;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtCudaGetFunction(gpRtProgram *program, void *module,
                                            const char *name, void **function) {
  if (gpRtStatus status = checkHandle(program, "gpRtCudaGetFunction"))
    return status;
  if (!program || !module || !name || !function)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtCudaGetFunction: null");
  if (!program->driver)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtCudaGetFunction: the program runs on the host backend");
  return program->driver->check(
      program->driver->cuModuleGetFunction(function, module, name),
      (std::string("cuModuleGetFunction(") + name + ")").c_str());
}

GP_RT_EXPORT gpRtStatus gpRtCudaGetKernel(gpRtProgram *program,
                                          const void *image, const char *name,
                                          void **function) {
  if (gpRtStatus status = checkHandle(program, "gpRtCudaGetKernel"))
    return status;
  if (!program || !image || !name || !function)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtCudaGetKernel: null");
  {
    std::lock_guard<std::mutex> lock(program->mutex);
    auto found = program->kernels.find({image, name});
    if (found != program->kernels.end()) {
      *function = found->second;
      return GP_RT_SUCCESS;
    }
  }
  void *module = nullptr;
  {
    std::unique_lock<std::mutex> lock(program->mutex);
    auto loaded = program->imageModules.find(image);
    if (loaded != program->imageModules.end())
      module = loaded->second;
  }
  if (!module) {
    if (gpRtStatus status = gpRtCudaLoadModule(program, image, &module))
      return status;
    std::lock_guard<std::mutex> lock(program->mutex);
    program->imageModules[image] = module;
  }
  if (gpRtStatus status = gpRtCudaGetFunction(program, module, name, function))
    return status;
  std::lock_guard<std::mutex> lock(program->mutex);
  program->kernels[{image, name}] = *function;
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtRunPartition(gpRtProgram *program,
                                         int32_t partition,
                                         const int64_t *shapeKey,
                                         gpRtPartitionBody body,
                                         void *userData) {
  return gpRtRunPartitionWithResults(program, partition, shapeKey, body,
                                     userData, nullptr, 0, nullptr, 0);
}

GP_RT_EXPORT gpRtStatus gpRtRunPartitionWithResults(
    gpRtProgram *program, int32_t partition, const int64_t *shapeKey,
    gpRtPartitionBody body, void *userData, void *results, int64_t resultBytes,
    const gpRtPartitionInput *inputs, int32_t numInputs) {
  if (gpRtStatus status = checkHandle(program, "gpRtRunPartition"))
    return status;
  if (!program || !body)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRunPartition: null program or body");
  if (resultBytes < 0 || (resultBytes > 0 && !results) || numInputs < 0 ||
      (numInputs > 0 && !inputs))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRunPartition: null or negative results or inputs");
  if (partition < 0 ||
      partition >= static_cast<int32_t>(program->partitions.size()))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRunPartition: no partition " + std::to_string(partition) +
                    " in " + program->name);
  const gpRtPartitionInfo &info = program->partitions[partition];
  if (info.numShapeSymbols > 0 && !shapeKey)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtRunPartition: partition " +
                                                  std::to_string(partition) +
                                                  " needs a shape key");
  // Every run checks every input (a bound parameter's included): an OR of
  // bytes + 1, whose sign bit is set for bytes < -1 (and, harmlessly, for
  // the largest value), reduces without a branch per input; the exact
  // check finds the failing one after.
  uint64_t sign = 0;
  for (int32_t i = 0; i < numInputs; ++i)
    sign |= static_cast<uint64_t>(inputs[i].bytes) + 1;
  for (int32_t i = 0; (sign >> 63) && i < numInputs; ++i)
    if (inputs[i].bytes < -1)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "gpRtRunPartition: input " + std::to_string(i) +
                      " reaches a negative number of bytes");
  return runPartition(*program, partition, shapeKey, body, userData, results,
                      resultBytes, inputs, numInputs);
}

GP_RT_EXPORT gpRtStatus gpRtRunPartitionInContext(
    gpRtProgram *program, int32_t partition, const int64_t *shapeKey,
    gpRtPartitionBody body, void **userData, void *results,
    int64_t resultBytes, const gpRtPartitionInputLayout *layouts,
    int32_t numInputs) {
  if (numInputs < 0 || (numInputs > 0 && (!layouts || !userData)))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtRunPartitionInContext: null or negative inputs");
  // The reach of each input, computed here in one loop rather than in
  // the entry's code, input by input.
  // On the stack up to 256 inputs (4 KiB): a model's bound parameters.
  constexpr int32_t kInline = 256;
  gpRtPartitionInput inlineInputs[kInline];
  std::unique_ptr<gpRtPartitionInput[]> manyInputs;
  gpRtPartitionInput *inputs = inlineInputs;
  if (numInputs > kInline) {
    manyInputs.reset(new gpRtPartitionInput[numInputs]);
    inputs = manyInputs.get();
  }
  for (int32_t i = 0; i < numInputs; ++i) {
    const gpRtPartitionInputLayout &layout = layouts[i];
    const auto *words =
        static_cast<const int64_t *>(userData[layout.contextSlot]);
    auto *aligned = reinterpret_cast<char *>(words[1]);
    if (layout.staticOffset < 0) {
      inputs[i] = {aligned, -1};
      continue;
    }
    int64_t last = layout.staticOffset;
    bool empty = false;
    for (int64_t d = 0; d < layout.rank; ++d) {
      int64_t size = words[3 + d], stride = words[3 + layout.rank + d];
      last += (size - 1) * stride;
      empty |= size <= 0;
    }
    inputs[i] = {aligned + (words[2] - layout.staticOffset) *
                               layout.elementBytes,
                 empty ? 0 : (last + 1) * layout.elementBytes};
  }
  return gpRtRunPartitionWithResults(program, partition, shapeKey, body,
                                     userData, results, resultBytes, inputs,
                                     numInputs);
}

GP_RT_EXPORT gpRtStatus gpRtProgramGetBindingReport(gpRtProgram *program,
                                                    const char **report) {
  if (gpRtStatus status = checkHandle(program, "gpRtProgramGetBindingReport"))
    return status;
  if (!program || !report)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtProgramGetBindingReport: null");
  ThreadContext *context = nullptr;
  if (gpRtStatus status = program->context(context))
    return status;
  context->bindingReport =
      describeBindings(context->partitions, context->arena, context->arenaBytes,
                       context->hostArena, context->hostArenaBytes);
  *report = context->bindingReport.c_str();
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtRngState(gpRtProgram *program, int32_t generator,
                                     int32_t backward, void *slot) {
  if (gpRtStatus status = checkHandle(program, "gpRtRngState"))
    return status;
  if (!program || !slot)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtRngState: null");
  uint64_t state[2] = {0, 0};
  {
    std::lock_guard<std::mutex> lock(program->mutex);
    gpRtStatus status =
        backward ? program->rng.latestBackward(generator, state[0], state[1])
                 : program->rng.forwardPending(generator, state[0], state[1]);
    if (status)
      return status;
  }
  ThreadContext *context = nullptr;
  if (gpRtStatus status = program->context(context))
    return status;
  return gpRtCopy(&context->stream, slot, state, sizeof(state),
                  GP_RT_COPY_HOST_TO_PROGRAM);
}

GP_RT_EXPORT gpRtStatus gpRtProgramGetStats(gpRtProgram *program,
                                            gpRtStats *stats) {
  if (gpRtStatus status = checkHandle(program, "gpRtProgramGetStats"))
    return status;
  if (!program || !stats)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtProgramGetStats: null");
  std::lock_guard<std::mutex> lock(program->mutex);
  *stats = program->stats;
  stats->liveGraphs = 0;
  stats->poolBytes = 0;
  stats->liveStreams = program->contexts.size();
  for (auto &[thread, context] : program->contexts) {
    stats->poolBytes += context->arena ? context->arenaBytes : 0;
    for (PartitionState &state : context->partitions)
      addGraphStats(state, *stats);
  }
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtRngForward(gpRtProgram *program, int32_t generator,
                                       uint64_t *seed, uint64_t *offset,
                                       int64_t *invocation) {
  if (gpRtStatus status = checkHandle(program, "gpRtRngForward"))
    return status;
  if (!program || !seed || !offset || !invocation)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtRngForward: null");
  std::lock_guard<std::mutex> lock(program->mutex);
  return program->rng.forward(generator, *seed, *offset, *invocation);
}

GP_RT_EXPORT gpRtStatus gpRtRngBackward(gpRtProgram *program, int32_t generator,
                                        int64_t invocation, uint64_t *seed,
                                        uint64_t *offset) {
  if (gpRtStatus status = checkHandle(program, "gpRtRngBackward"))
    return status;
  if (!program || !seed || !offset)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, "gpRtRngBackward: null");
  std::lock_guard<std::mutex> lock(program->mutex);
  return program->rng.backward(generator, invocation, *seed, *offset);
}

} // extern "C"
