//===- RunSession.cpp - one loaded artifact and its calls -----------------===//
//
// The Session's work (RunSession.h): loading, binding parameters, placing
// and uploading arguments, running a step's calls and bringing their
// results back.
//
//===----------------------------------------------------------------------===//

#include "RunSession.h"

#include "Diagnostics.h"

#include <chrono>
#include <cstring>

using namespace gp::run;

namespace {

/// A result brought back to the host.
Array download(gpRtProgram *program, const std::vector<uint8_t> &storage,
               const gpRtValueInfo &info, bool cudaBackend) {
  Array array;
  if (!info.isBuffer) {
    array.type = findElementType("i64");
    array.data = storage;
    array.data.resize(8);
    return array;
  }
  array.type = findElementType(info.elementType);
  if (!array.type)
    die(std::string("results of element type ") + info.elementType +
        " are not supported");
  auto *ref = reinterpret_cast<const gpRtMemRef *>(storage.data());
  int32_t rank = info.rank;
  array.shape.assign(ref->shape, ref->shape + rank);
  array.data.resize(array.count() * array.type->bytes);
  if (array.count() == 0 || isMetaDevice(info.device))
    return array;
  // The elements the view spans, then gathered in row-major order.
  int64_t span = 1;
  for (int32_t d = 0; d < rank; ++d)
    span += (ref->shape[d] - 1) * ref->shape[rank + d];
  int bytes = array.type->bytes;
  std::vector<uint8_t> raw(span * bytes);
  const uint8_t *first =
      static_cast<const uint8_t *>(ref->aligned) + ref->offset * bytes;
  if (cudaBackend && !isHostDevice(info.device))
    check(gpRtCopyFromProgram(program, raw.data(), first, raw.size()),
          "copy result");
  else
    std::memcpy(raw.data(), first, raw.size());
  for (int64_t i = 0; i < array.count(); ++i) {
    int64_t rest = i, at = 0;
    for (int32_t d = rank - 1; d >= 0; --d) {
      at += (rest % ref->shape[d]) * ref->shape[rank + d];
      rest /= ref->shape[d];
    }
    std::memcpy(array.data.data() + i * bytes, raw.data() + at * bytes, bytes);
  }
  return array;
}

} // namespace

bool Session::isBound(const gpRtValueInfo &info) const {
  return info.parameter &&
         (bindsParameters || runtimeBound.count(info.parameter));
}

void Session::load(const std::string &path, gpRtBackend backend, int32_t device,
                   const std::vector<std::string> &entryNames) {
  check(gpRtArtifactLoad(path.c_str(), backend, device, &artifact),
        "load " + path);
  check(gpRtArtifactGetProgram(artifact, &program), "program");
  cudaBackend = backend == GP_RT_BACKEND_CUDA;
  for (int32_t p = 0, e = gpRtArtifactNumParameters(artifact); p < e; ++p) {
    gpRtParameterInfo info;
    check(gpRtArtifactGetParameter(artifact, p, &info), "parameters");
    if (info.bound)
      runtimeBound.insert(info.name);
  }
  std::vector<std::string> names = entryNames;
  if (names.empty())
    names.push_back(""); // The first entry.
  for (const std::string &name : names) {
    Call call;
    if (!name.empty())
      check(gpRtArtifactFindEntry(artifact, name.c_str(), &call.entry),
            "--entry");
    check(gpRtArtifactGetEntry(artifact, call.entry, &call.info), "entry");
    for (int32_t i = 0; i < call.info.numResults; ++i)
      call.results.emplace_back(
          call.info.results[i].isBuffer
              ? GP_RT_MEMREF_BYTES(call.info.results[i].rank)
              : 8);
    calls.push_back(std::move(call));
  }
}

std::vector<gpRtValueInfo> Session::argInfos() const {
  std::vector<gpRtValueInfo> infos;
  for (const Call &call : calls)
    for (int32_t i = 0; i < call.info.numArgs; ++i)
      if (!isBound(call.info.args[i]))
        infos.push_back(call.info.args[i]);
  return infos;
}

std::set<std::string> Session::bindParameters(ParameterSource &source,
                                              const std::string &option) {
  std::set<std::string> names;
  int32_t count = gpRtArtifactNumParameters(artifact);
  for (int32_t p = 0; p < count; ++p) {
    gpRtParameterInfo info;
    check(gpRtArtifactGetParameter(artifact, p, &info), option);
    if (runtimeBound.count(info.name))
      continue;
    HostTensor tensor;
    std::string error;
    if (!source.load(info.name, tensor, error))
      die(option + ": " + error);
    std::vector<int64_t> shape(info.shape, info.shape + info.rank);
    bool fits = tensor.elementType == info.elementType &&
                tensor.shape.size() == shape.size();
    for (size_t d = 0; fits && d < shape.size(); ++d)
      fits = shape[d] < 0 || shape[d] == tensor.shape[d];
    auto describe = [](const std::string &type,
                       const std::vector<int64_t> &sizes) {
      std::string text;
      for (size_t d = 0; d < sizes.size(); ++d)
        text += (d ? ", " : "") +
                (sizes[d] < 0 ? std::string("?") : std::to_string(sizes[d]));
      return type + " [" + text + "]";
    };
    if (!fits)
      die(option + ": parameter '" + info.name + "' is " +
          describe(info.elementType, shape) + "; '" + tensor.file + "' holds " +
          describe(tensor.elementType, tensor.shape));
    // Placed as an input of its type and shape would be, then bound.
    Input input;
    input.array.type = findElementType(tensor.elementType);
    if (!input.array.type)
      die(option + ": parameter '" + info.name + "': '" + tensor.file +
          "' holds element type " + tensor.elementType +
          ", which gp-run does not know");
    input.array.shape = std::move(tensor.shape);
    input.array.data = std::move(tensor.data);
    gpRtValueInfo where{1,          info.elementType, info.rank,
                        info.shape, info.device,      info.name};
    parameterMemory.push_back(
        gp::run::place(program, input, where, cudaBackend));
    gp::run::upload(program, parameterMemory.back(), input);
    check(gpRtArtifactBindParameter(artifact, info.name, info.elementType,
                                    parameterMemory.back().storage.data()),
          option + ": bind parameter '" + info.name + "'");
    names.insert(info.name);
  }
  return names;
}

std::string Session::entryNames() const {
  std::string names;
  for (const Call &call : calls)
    names += (names.empty() ? "" : ",") + std::string(call.info.name);
  return names;
}

void Session::place(const std::vector<Input> &inputs) {
  size_t next = 0;
  for (Call &call : calls)
    for (int32_t i = 0; i < call.info.numArgs; ++i) {
      if (isBound(call.info.args[i])) {
        Placed slot;
        slot.bound = true;
        call.args.push_back(std::move(slot));
        continue;
      }
      call.args.push_back(gp::run::place(program, inputs[next++],
                                         call.info.args[i], cudaBackend));
    }
}

void Session::movePlaces(const std::vector<Input> &inputs) {
  std::vector<std::vector<Placed>> old;
  for (Call &call : calls) {
    old.push_back(std::move(call.args));
    call.args.clear();
  }
  place(inputs);
  for (std::vector<Placed> &args : old)
    for (Placed &arg : args)
      release(program, arg);
}

void Session::placeRotation(int64_t sets, const std::vector<Input> &inputs) {
  for (int64_t set = 1; set < sets; ++set) {
    size_t next = 0;
    for (Call &call : calls) {
      std::vector<Placed> args;
      for (int32_t i = 0; i < call.info.numArgs; ++i) {
        if (isBound(call.info.args[i])) {
          Placed slot;
          slot.bound = true;
          args.push_back(std::move(slot));
          continue;
        }
        args.push_back(gp::run::place(program, inputs[next], call.info.args[i],
                                      cudaBackend));
        gp::run::upload(program, args.back(), inputs[next++]);
      }
      call.rotation.push_back(std::move(args));
    }
  }
}

void Session::releaseRotation() {
  for (Call &call : calls) {
    for (std::vector<Placed> &args : call.rotation)
      for (Placed &arg : args)
        release(program, arg);
    call.rotation.clear();
  }
  turn = 0;
}

void Session::upload(const std::vector<Input> &inputs) {
  size_t next = 0;
  for (Call &call : calls)
    for (Placed &arg : call.args)
      if (!arg.bound)
        gp::run::upload(program, arg, inputs[next++]);
}

double Session::step(std::vector<Array> *fetched) {
  double micros = 0;
  int64_t set = turn++ % static_cast<int64_t>(1 + calls[0].rotation.size());
  for (Call &call : calls) {
    auto start = std::chrono::steady_clock::now();
    std::vector<void *> argPointers, resultPointers;
    // NULL for a bound parameter: the runtime passes its binding.
    for (Placed &arg : set == 0 ? call.args : call.rotation[set - 1])
      argPointers.push_back(arg.bound ? nullptr : arg.storage.data());
    for (auto &result : call.results)
      resultPointers.push_back(result.data());
    // The checked form: the arrays are as long as gpRtArtifactGetEntry
    // said, and the runtime verifies it.
    check(gpRtArtifactCallChecked(artifact, call.entry, argPointers.data(),
                                  static_cast<int32_t>(argPointers.size()),
                                  resultPointers.data(),
                                  static_cast<int32_t>(resultPointers.size())),
          std::string("run ") + call.info.name);
    check(gpRtProgramSynchronize(program), "synchronize");
    micros += std::chrono::duration<double, std::micro>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    if (fetched)
      for (int32_t i = 0; i < call.info.numResults; ++i)
        fetched->push_back(download(program, call.results[i],
                                    call.info.results[i], cudaBackend));
  }
  return micros;
}

Session::~Session() {
  releaseRotation();
  for (Call &call : calls)
    for (Placed &arg : call.args)
      release(program, arg);
  // Every step waited for its calls: nothing reads the parameters now.
  for (Placed &memory : parameterMemory)
    release(program, memory);
  if (artifact)
    gpRtArtifactUnload(artifact);
}
