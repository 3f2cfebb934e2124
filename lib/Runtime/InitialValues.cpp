//===- InitialValues.cpp - state the artifact gives initial values --------===//
//
// State a program keeps between calls that the caller does not own, such
// as the RNG seed torch-mlir keeps in a mutable `ml_program.global`: the
// compiler makes it a mutable parameter (gp-mutable-globals-to-parameters)
// and writes its initial value into the manifest (`initial <name> <hex>`).
// At load the runtime allocates it in the program's memory, fills it and
// binds it; calls then update it in place, call after call, and callers
// never bind it (gpRtArtifactGetParameter reports it bound).
//
//===----------------------------------------------------------------------===//

#include "ArtifactState.h"
#include "ElementTypes.h"

using namespace gp::rt;

gpRtStatus gp::rt::setUpInitialValues(gpRtArtifact &artifact) {
  ParameterTable &table = artifact.parameters;
  gpRtProgram *program = artifact.program;
  for (InitialValue &value : artifact.initialValues) {
    auto found = table.byName.find(value.name);
    if (found == table.byName.end())
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "artifact manifest: an initial value for '" + value.name +
                      "', which no entry takes as a parameter");
    const Parameter &parameter = table.parameters[found->second];
    int64_t elements = 1;
    for (int64_t size : parameter.shape)
      elements = size < 0 ? -1 : elements * size;
    int64_t bytes = elementTypeBytes(parameter.elementType) * elements;
    if (elements < 0 || bytes != static_cast<int64_t>(value.bytes.size()))
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "artifact manifest: the initial value of '" + value.name +
                      "' holds " + std::to_string(value.bytes.size()) +
                      " bytes; the parameter (" + parameter.elementType +
                      ", " + parameter.firstUse + ") takes " +
                      std::to_string(bytes));
    if (gpRtStatus status = gpRtProgramAllocate(
            program, std::max<int64_t>(bytes, 1), &value.memory))
      return status;
    if (gpRtStatus status = gpRtCopyToProgram(program, value.memory,
                                              value.bytes.data(), bytes))
      return status;
    // allocated, aligned, offset, sizes, row-major strides.
    auto address = static_cast<int64_t>(reinterpret_cast<uintptr_t>(
        value.memory));
    std::vector<int64_t> words = {address, address, 0};
    words.insert(words.end(), parameter.shape.begin(), parameter.shape.end());
    std::vector<int64_t> strides(parameter.shape.size(), 1);
    for (int64_t d = static_cast<int64_t>(strides.size()) - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * parameter.shape[d + 1];
    words.insert(words.end(), strides.begin(), strides.end());
    bindRuntimeParameter(artifact, found->second, std::move(words));
  }
  return GP_RT_SUCCESS;
}

void gp::rt::releaseInitialValues(gpRtArtifact &artifact) {
  if (!artifact.program || artifact.initialValues.empty())
    return;
  gpRtProgramSynchronize(artifact.program); // Calls may still use them.
  for (InitialValue &value : artifact.initialValues)
    if (value.memory) {
      gpRtProgramFree(artifact.program, value.memory);
      value.memory = nullptr;
    }
}
