//===- Parameters.cpp - named parameters, bound once ----------------------===//
//
// Model parameters (weights) are entry arguments the manifest names
// (`arg memref ... parameter <name>`). A caller binds each name once, to its
// own memory (zero-copy: the runtime keeps the caller's descriptor), and
// each call then passes NULL in the parameters' slots: only the user
// inputs change from call to call.
//
// The bindings are one immutable set, replaced as a whole by each
// gpRtArtifactBindParameter: a call takes the current set (one lock and a
// reference count, whatever the number of parameters) and keeps it for its
// duration, so a rebinding on another thread is seen entirely or not at
// all, and the descriptors a call uses stay alive while it runs. The
// descriptor checks a call makes of its arguments are made once, at bind
// time; on the cuda backend the memory is checked to be on the program's
// device then too, so a call makes no driver call per parameter.
//
//===----------------------------------------------------------------------===//

#include "ArtifactState.h"
#include "ElementTypes.h"
#include "Handles.h"
#include "ProgramState.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

using namespace gp::rt;

namespace {

std::string describeShape(const std::vector<int64_t> &shape) {
  std::string text;
  for (size_t d = 0; d < shape.size(); ++d)
    text += (d ? ", " : "") +
            (shape[d] < 0 ? std::string("?") : std::to_string(shape[d]));
  return "[" + text + "]";
}

std::string describeValue(const std::string &elementType,
                          const std::vector<int64_t> &shape,
                          const std::string &device) {
  return elementType + " " + describeShape(shape) + " on " + device;
}

/// A few of the program's parameter names, for a message.
std::string someNames(const ParameterTable &table) {
  if (table.parameters.empty())
    return "the program takes none";
  constexpr size_t kListed = 5;
  std::string names;
  for (size_t i = 0; i < table.parameters.size() && i < kListed; ++i)
    names += (i ? ", '" : "'") + table.parameters[i].name + "'";
  if (table.parameters.size() > kListed)
    names +=
        " and " + std::to_string(table.parameters.size() - kListed) + " more";
  return "parameters: " + names;
}

/// On the cuda backend: fails unless the memory at `pointer` is where
/// parameter `parameter` must be (device memory of the program's device or
/// managed memory; host memory for a cpu argument).
gpRtStatus checkMemory(gpRtProgram &program, const Parameter &parameter,
                       const void *pointer) {
  const CudaDriver *driver = program.driver;
  if (!driver || parameter.device == "meta")
    return GP_RT_SUCCESS;
  if (gpRtStatus status = driver->check(
          driver->cuCtxSetCurrent(program.cuContext), "cuCtxSetCurrent"))
    return status;
  // cuda.h: CU_POINTER_ATTRIBUTE_MEMORY_TYPE, _IS_MANAGED, _DEVICE_ORDINAL;
  // CU_MEMORYTYPE_DEVICE; CUDA_ERROR_INVALID_VALUE for memory the driver
  // does not know (plain host memory).
  constexpr int kMemoryType = 2, kIsManaged = 8, kDeviceOrdinal = 9;
  constexpr unsigned kDeviceMemory = 2;
  constexpr int kInvalidValue = 1;
  auto address = reinterpret_cast<CudaDriver::DevicePtr>(pointer);
  auto attribute = [&](int which, uint64_t &value) {
    value = 0; // Wide enough for any of them; the driver writes the low part.
    return driver->cuPointerGetAttribute(&value, which, address);
  };
  std::string programDevice = "cuda:" + std::to_string(program.device);
  uint64_t type = 0, managed = 0, ordinal = 0;
  CudaDriver::Result result = attribute(kMemoryType, type);
  if (result != 0 && result != kInvalidValue)
    return driver->check(result, "cuPointerGetAttribute");
  bool known = result == 0;
  if (known)
    if (gpRtStatus status = driver->check(attribute(kIsManaged, managed),
                                          "cuPointerGetAttribute"))
      return status;
  bool onDevice =
      known && (managed || static_cast<unsigned>(type) == kDeviceMemory);
  if (parameter.device == "cpu") {
    if (onDevice && !managed)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "gpRtArtifactBindParameter: parameter '" + parameter.name +
                      "' is in device memory; the program takes it on the "
                      "host (cpu)");
    return GP_RT_SUCCESS;
  }
  if (!onDevice)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtArtifactBindParameter: parameter '" + parameter.name +
                    "' is in host memory; the program runs on " +
                    programDevice +
                    " (bind device memory, e.g. from gpRtProgramAllocate)");
  if (managed)
    return GP_RT_SUCCESS;
  if (gpRtStatus status = driver->check(attribute(kDeviceOrdinal, ordinal),
                                        "cuPointerGetAttribute"))
    return status;
  if (static_cast<int32_t>(ordinal) != program.device)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtArtifactBindParameter: parameter '" + parameter.name +
                    "' is in the memory of cuda:" +
                    std::to_string(static_cast<int32_t>(ordinal)) +
                    "; the program runs on " + programDevice);
  return GP_RT_SUCCESS;
}

/// The checks gpRtArtifactCall makes of a buffer argument, made of a
/// binding of `parameter`, and the descriptor's words when they pass.
gpRtStatus checkBinding(gpRtArtifact &artifact, const Parameter &parameter,
                        const char *elementType, const void *descriptor,
                        std::vector<int64_t> &words) {
  std::string what =
      "gpRtArtifactBindParameter: parameter '" + parameter.name + "'";
  if (parameter.elementType != elementType)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                what + " is " + parameter.elementType + "; " + elementType +
                    " memory given");
  const auto *ref = static_cast<const gpRtMemRef *>(descriptor);
  size_t rank = parameter.shape.size();
  const int64_t *sizes = ref->shape, *strides = ref->shape + rank;
  auto describe = [&](const int64_t *values) {
    return describeShape(std::vector<int64_t>(values, values + rank));
  };
  for (size_t d = 0; d < rank; ++d)
    if (sizes[d] < 0 ||
        (parameter.shape[d] >= 0 && sizes[d] != parameter.shape[d]))
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  what + " is " + describeShape(parameter.shape) +
                      "; the memory given has sizes " + describe(sizes) +
                      " (dimension " + std::to_string(d) + " must be " +
                      (parameter.shape[d] >= 0
                           ? std::to_string(parameter.shape[d])
                           : std::string("at least 0")) +
                      ")");
  if (ref->offset < 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                what + ": negative offset " + std::to_string(ref->offset));
  int64_t elements = 1;
  for (size_t d = 0; d < rank; ++d)
    if (__builtin_mul_overflow(elements, sizes[d], &elements))
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  what + ": sizes " + describe(sizes) +
                      ", whose product overflows");
  // A meta tensor has sizes only.
  if (elements > 0 && !ref->aligned && parameter.device != "meta")
    return fail(GP_RT_ERROR_INVALID_ARGUMENT, what + ": null memory for " +
                                                  std::to_string(elements) +
                                                  " element(s)");
  if (parameter.rowMajor) {
    int64_t expected = 1;
    for (size_t d = rank; d-- > 0;) {
      if (sizes[d] > 1 && strides[d] != expected)
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    what + ": sizes " + describe(sizes) + " and strides " +
                        describe(strides) +
                        "; the program takes it row-major (copy it to a "
                        "contiguous buffer)");
      // A zero size makes the whole product fit but not a partial one.
      if (__builtin_mul_overflow(expected, sizes[d], &expected))
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    what + ": sizes " + describe(sizes) +
                        ", whose product overflows");
    }
  }
  if (elements > 0 && artifact.program) {
    const auto *first =
        static_cast<const uint8_t *>(ref->aligned) +
        ref->offset * std::max<int64_t>(1, elementTypeBytes(elementType));
    if (gpRtStatus status = checkMemory(*artifact.program, parameter, first))
      return status;
  }
  const auto *begin = static_cast<const int64_t *>(descriptor);
  words.assign(begin, begin + 3 + 2 * rank);
  return GP_RT_SUCCESS;
}

/// A set of bindings for `numEntries` entries, with no argument array made.
std::shared_ptr<ParameterBindings> newSet(size_t numEntries) {
  auto set = std::make_shared<ParameterBindings>();
  set->numEntries = numEntries;
  set->entryArgs =
      std::make_unique<std::atomic<const BoundArguments *>[]>(numEntries);
  for (size_t e = 0; e < numEntries; ++e)
    set->entryArgs[e].store(nullptr, std::memory_order_relaxed);
  return set;
}

/// Makes `words` parameter `index`'s binding: a new set with this one
/// binding replaced (the old set stays with the calls that hold it). The
/// new set's per-entry argument arrays are made by the calls that use it,
/// so a call never sees an array of an older set.
void publish(gpRtArtifact &artifact, int32_t index,
             std::shared_ptr<const std::vector<int64_t>> words) {
  ParameterTable &table = artifact.parameters;
  std::shared_ptr<ParameterBindings> next = newSet(artifact.entries.size());
  std::lock_guard<std::mutex> lock(table.mutex);
  if (table.bindings)
    next->descriptors = table.bindings->descriptors;
  else
    next->descriptors.resize(table.parameters.size());
  next->descriptors[index] = std::move(words);
  table.bindings = std::move(next);
}

/// Entry `index`'s argument array as `bindings` fills it.
std::unique_ptr<BoundArguments>
makeBoundArguments(gpRtArtifact &artifact, int32_t index,
                   const ParameterBindings *bindings) {
  const Entry &entry = artifact.entries[index];
  auto made = std::make_unique<BoundArguments>();
  size_t count = entry.args.size();
  made->slots.assign(count, nullptr);
  made->kinds.assign(count, BoundArguments::User);
  made->parameterMask.assign(count, 0);
  for (size_t i = 0; i < count; ++i) {
    int32_t parameter = entry.argParameters[i];
    if (parameter < 0)
      continue;
    bool runtime = artifact.parameters.parameters[parameter].runtimeOwned;
    made->kinds[i] =
        runtime ? BoundArguments::Runtime : BoundArguments::Parameter;
    made->parameterMask[i] = runtime ? 0 : ~uintptr_t(0);
    const std::vector<int64_t> *bound =
        bindings ? bindings->descriptors[parameter].get() : nullptr;
    // The entry reads descriptors, never writes them.
    made->slots[i] = bound ? const_cast<int64_t *>(bound->data()) : nullptr;
    made->complete &= bound != nullptr;
  }
  return made;
}

/// The calling thread's scratch argument arrays, one per call in progress
/// on it (a call's extern may call an entry), kept for later calls.
struct Scratch {
  std::deque<std::vector<void *>> arrays;
  size_t depth = 0;
};
thread_local Scratch scratch;

gpRtStatus bindParameter(gpRtArtifact &artifact, const char *name,
                         const char *elementType, const void *descriptor) {
  ParameterTable &table = artifact.parameters;
  auto found = table.byName.find(name);
  if (found == table.byName.end())
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("gpRtArtifactBindParameter: no parameter '") +
                    name + "' (" + someNames(table) + ")");
  const Parameter &parameter = table.parameters[found->second];
  if (parameter.runtimeOwned)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("gpRtArtifactBindParameter: parameter '") + name +
                    "' is the program's own state, which the runtime binds "
                    "itself");
  auto words = std::make_shared<std::vector<int64_t>>();
  if (gpRtStatus status =
          checkBinding(artifact, parameter, elementType, descriptor, *words))
    return status;
  publish(artifact, found->second, std::move(words));
  return GP_RT_SUCCESS;
}

} // namespace

gpRtStatus gp::rt::collectParameters(gpRtArtifact &artifact) {
  ParameterTable &table = artifact.parameters;
  for (Entry &entry : artifact.entries) {
    entry.argParameters.assign(entry.args.size(), -1);
    for (size_t i = 0; i < entry.args.size(); ++i) {
      const Value &value = entry.args[i];
      if (value.parameter.empty())
        continue;
      std::string use =
          "entry '" + entry.name + "' argument " + std::to_string(i);
      for (size_t j = 0; j < i; ++j)
        if (entry.args[j].parameter == value.parameter)
          return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                      "artifact manifest: parameter '" + value.parameter +
                          "' is both argument " + std::to_string(j) +
                          " and argument " + std::to_string(i) + " of entry '" +
                          entry.name + "'");
      auto [at, added] = table.byName.emplace(
          value.parameter, static_cast<int32_t>(table.parameters.size()));
      if (added) {
        table.parameters.push_back({value.parameter, value.elementType,
                                    value.device, value.shape, false, use});
      } else {
        const Parameter &known = table.parameters[at->second];
        if (known.elementType != value.elementType ||
            known.shape != value.shape || known.device != value.device)
          return fail(
              GP_RT_ERROR_INVALID_ARGUMENT,
              "artifact manifest: parameter '" + value.parameter + "' is " +
                  describeValue(known.elementType, known.shape, known.device) +
                  " in " + known.firstUse + " but " +
                  describeValue(value.elementType, value.shape, value.device) +
                  " in " + use);
      }
      table.parameters[at->second].rowMajor |= !value.strided;
      entry.argParameters[i] = at->second;
      entry.takesParameters = true;
    }
    entry.userArgs.clear();
    for (size_t i = 0; i < entry.args.size(); ++i)
      if (entry.argParameters[i] < 0)
        entry.userArgs.push_back(static_cast<int32_t>(i));
    entry.onlyParameters = entry.userArgs.empty();
  }
  // An empty set to start from, so that calls of callers that pass every
  // parameter themselves also find their argument arrays made once.
  if (!table.parameters.empty()) {
    std::shared_ptr<ParameterBindings> none = newSet(artifact.entries.size());
    none->descriptors.resize(table.parameters.size());
    std::lock_guard<std::mutex> lock(table.mutex);
    table.bindings = std::move(none);
  }
  return GP_RT_SUCCESS;
}

void gp::rt::bindRuntimeParameter(gpRtArtifact &artifact, int32_t index,
                                  std::vector<int64_t> words) {
  artifact.parameters.parameters[index].runtimeOwned = true;
  publish(artifact, index,
          std::make_shared<std::vector<int64_t>>(std::move(words)));
}

gp::rt::ResolvedArguments::~ResolvedArguments() {
  if (leased)
    --scratch.depth;
}

gpRtStatus gp::rt::resolveParameters(gpRtArtifact &artifact, int32_t index,
                                     void **args, ResolvedArguments &resolved) {
  const Entry &entry = artifact.entries[index];
  size_t count = entry.args.size();
  resolved.bindings = artifact.parameters.current();
  const ParameterBindings *bindings = resolved.bindings.get();
  // Without any binding there is no set to keep the array in: made for
  // this call alone (it fails unless the caller passes every parameter).
  std::unique_ptr<BoundArguments> unbound;
  const BoundArguments *bound = nullptr;
  if (!bindings) {
    unbound = makeBoundArguments(artifact, index, nullptr);
    bound = unbound.get();
  } else {
    std::atomic<const BoundArguments *> &slot = bindings->entryArgs[index];
    bound = slot.load(std::memory_order_acquire);
    if (!bound) {
      std::unique_ptr<BoundArguments> made =
          makeBoundArguments(artifact, index, bindings);
      const BoundArguments *expected = nullptr;
      // Another thread may have made it first: its array is the same.
      if (slot.compare_exchange_strong(expected, made.get(),
                                       std::memory_order_acq_rel))
        bound = made.release();
      else
        bound = expected;
    }
  }
  if (scratch.depth == scratch.arrays.size())
    scratch.arrays.emplace_back();
  std::vector<void *> &array = scratch.arrays[scratch.depth++];
  resolved.leased = true;
  if (array.size() < count)
    array.resize(count);
  void **out = array.data();
  void *const *slots = bound->slots.data();
  const uint8_t *kinds = bound->kinds.data();
  bool overridden = false;
  if (count > 0)
    std::memcpy(out, slots, count * sizeof(void *));
  if (args) {
    for (int32_t i : entry.userArgs)
      out[i] = args[i];
    // Whether the caller passed a parameter itself: one AND-OR pass with no
    // branch per argument (it vectorizes), then the slots it passed.
    const uintptr_t *mask = bound->parameterMask.data();
    uintptr_t given = 0;
    for (size_t i = 0; i < count; ++i)
      given |= reinterpret_cast<uintptr_t>(args[i]) & mask[i];
    overridden = given != 0;
    for (size_t i = 0; overridden && i < count; ++i)
      if (kinds[i] == BoundArguments::Parameter && args[i])
        out[i] = args[i];
  }
  if (!bound->complete)
    for (size_t i = 0; i < count; ++i)
      if (kinds[i] != BoundArguments::User && !out[i])
        return fail(
            GP_RT_ERROR_INVALID_ARGUMENT,
            "entry '" + entry.name + "': parameter '" +
                entry.args[i].parameter + "' (argument " + std::to_string(i) +
                ") is not bound; bind it with gpRtArtifactBindParameter");
  resolved.bound = bound;
  resolved.args = out;
  resolved.overridden = overridden;
  return GP_RT_SUCCESS;
}

extern "C" {

GP_RT_EXPORT int32_t gpRtArtifactNumParameters(gpRtArtifact *artifact) {
  if (checkHandle(artifact, "gpRtArtifactNumParameters"))
    return 0;
  return artifact ? static_cast<int32_t>(artifact->parameters.parameters.size())
                  : 0;
}

GP_RT_EXPORT gpRtStatus gpRtArtifactGetParameter(gpRtArtifact *artifact,
                                                 int32_t index,
                                                 gpRtParameterInfo *info) {
  if (gpRtStatus status = checkHandle(artifact, "gpRtArtifactGetParameter"))
    return status;
  if (!artifact || !info || index < 0 ||
      index >= static_cast<int32_t>(artifact->parameters.parameters.size()))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtArtifactGetParameter: null or no such parameter");
  const Parameter &parameter = artifact->parameters.parameters[index];
  std::shared_ptr<const ParameterBindings> bindings =
      artifact->parameters.current();
  *info = {parameter.name.c_str(),
           parameter.elementType.c_str(),
           static_cast<int32_t>(parameter.shape.size()),
           parameter.shape.data(),
           parameter.device.c_str(),
           bindings && bindings->descriptors[index] ? 1 : 0};
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtArtifactBindParameter(gpRtArtifact *artifact,
                                                  const char *name,
                                                  const char *elementType,
                                                  const void *descriptor) {
  if (gpRtStatus status = checkHandle(artifact, "gpRtArtifactBindParameter"))
    return status;
  if (!artifact || !name || !elementType || !descriptor)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("gpRtArtifactBindParameter: null ") +
                    (!artifact      ? "artifact"
                     : !name        ? "name"
                     : !elementType ? "element type"
                                    : "descriptor") +
                    (name ? std::string(" (parameter '") + name + "')"
                          : std::string()));
  if (!artifact->program)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string("gpRtArtifactBindParameter: parameter '") + name +
                    "': the artifact was opened with gpRtArtifactInspect and "
                    "cannot run; load it with gpRtArtifactLoad");
  return guarded("gpRtArtifactBindParameter", [&] {
    return bindParameter(*artifact, name, elementType, descriptor);
  });
}

} // extern "C"
