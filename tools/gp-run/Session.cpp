//===- Session.cpp - run an artifact and report ---------------------------===//
//
// The Session (one loaded artifact and the calls of one step), results
// brought back to the host, --check against an eager instance of the same
// artifact, and the report: entries, partitions, latency, counters, and the
// results written with --output.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include "Describe.h"
#include "Diagnostics.h"
#include "Inputs.h"
#include "JsonReport.h"
#include "Npy.h"
#include "ParameterSource.h"

#include "GraphPart/Runtime/GPRuntime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sys/stat.h>

using namespace gp::run;

namespace {

/// Where the human-readable lines go: stdout, or stderr with --json (whose
/// document alone is stdout).
FILE *messages = stdout;

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

/// One call of an entry point in a step, with its arguments placed.
struct Call {
  int32_t entry = 0;
  gpRtEntryInfo info{};
  std::vector<Placed> args;
  /// --rotate: the arguments placed again, once per further set; a step
  /// uses `args` or one of these in turn.
  std::vector<std::vector<Placed>> rotation;
  std::vector<std::vector<uint8_t>> results;
};

/// One loaded artifact and the calls that make one step (one entry, or a
/// sequence such as forward then backward, on the same program so RNG
/// states pair up).
struct Session {
  gpRtArtifact *artifact = nullptr;
  gpRtProgram *program = nullptr;
  bool cudaBackend = false;
  std::vector<Call> calls;
  /// Steps run so far: with --rotate, which set of arguments is next.
  int64_t turn = 0;
  /// Named parameters are bound once (--parameters, or --weights for a
  /// program that names them) and calls pass NULL for them; otherwise they
  /// are arguments like any other, given with --input.
  bool bindsParameters = false;
  /// The memory the bound parameters live in.
  std::vector<Placed> parameterMemory;
  /// Parameters the runtime bound itself at load (a converted program's
  /// index-error flag): never an input, never read from --parameters.
  std::set<std::string> runtimeBound;

  /// Whether argument `info` is a bound parameter, not a user input.
  bool isBound(const gpRtValueInfo &info) const {
    return info.parameter &&
           (bindsParameters || runtimeBound.count(info.parameter));
  }

  void load(const std::string &path, gpRtBackend backend, int32_t device,
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
  /// Every call's user inputs' descriptions (its arguments but the bound
  /// parameters), in order.
  std::vector<gpRtValueInfo> argInfos() const {
    std::vector<gpRtValueInfo> infos;
    for (const Call &call : calls)
      for (int32_t i = 0; i < call.info.numArgs; ++i)
        if (!isBound(call.info.args[i]))
          infos.push_back(call.info.args[i]);
    return infos;
  }
  /// Binds every parameter of the program, by name, to memory holding its
  /// values from `source`, once; dies naming the parameter and the file
  /// when one is missing or of another element type or shape. Returns the
  /// names bound.
  std::set<std::string> bindParameters(ParameterSource &source,
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
            describe(info.elementType, shape) + "; '" + tensor.file +
            "' holds " + describe(tensor.elementType, tensor.shape));
      // Placed as an input of its type and shape would be, then bound.
      Input input;
      input.array.type = findElementType(tensor.elementType);
      if (!input.array.type)
        die(option + ": parameter '" + info.name + "': '" + tensor.file +
            "' holds element type " + tensor.elementType +
            ", which gp-run does not know");
      input.array.shape = std::move(tensor.shape);
      input.array.data = std::move(tensor.data);
      gpRtValueInfo where{1,         info.elementType, info.rank,
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
  std::string entryNames() const {
    std::string names;
    for (const Call &call : calls)
      names += (names.empty() ? "" : ",") + std::string(call.info.name);
    return names;
  }
  void place(const std::vector<Input> &inputs) {
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
  /// Places every argument anew, at addresses other than the current ones
  /// (the new memory is taken before the old is freed).
  void movePlaces(const std::vector<Input> &inputs) {
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
  /// Places and uploads `sets - 1` more copies of the arguments, each at
  /// addresses of its own, for steps to use in turn.
  void placeRotation(int64_t sets, const std::vector<Input> &inputs) {
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
          args.push_back(gp::run::place(program, inputs[next],
                                        call.info.args[i], cudaBackend));
          gp::run::upload(program, args.back(), inputs[next++]);
        }
        call.rotation.push_back(std::move(args));
      }
    }
  }
  void releaseRotation() {
    for (Call &call : calls) {
      for (std::vector<Placed> &args : call.rotation)
        for (Placed &arg : args)
          release(program, arg);
      call.rotation.clear();
    }
    turn = 0;
  }
  void upload(const std::vector<Input> &inputs) {
    size_t next = 0;
    for (Call &call : calls)
      for (Placed &arg : call.args)
        if (!arg.bound)
          gp::run::upload(program, arg, inputs[next++]);
  }
  /// Runs one step and returns the microseconds its calls took; with
  /// `fetched`, brings each call's results back right after it (a later
  /// call of the same entry reuses their memory), outside the timing.
  double step(std::vector<Array> *fetched = nullptr) {
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
      check(gpRtArtifactCallChecked(
                artifact, call.entry, argPointers.data(),
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
  ~Session() {
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
};

/// Compares results: exact for integers, |a-b| <= atol + rtol*|b| for
/// floats. Returns the number of mismatching elements, and prints the first
/// (`what` names the comparison, `gotName` and `wantName` the two sides).
int64_t compare(const std::vector<Array> &got, const std::vector<Array> &want,
                double rtol, double atol, const std::string &what,
                const char *gotName, const char *wantName) {
  int64_t mismatches = 0;
  if (got.size() != want.size()) {
    std::fprintf(messages, "%s: %zu result(s), but %zu to compare with\n", what.c_str(),
                got.size(), want.size());
    return 1;
  }
  for (size_t r = 0; r < got.size(); ++r) {
    if (got[r].shape != want[r].shape ||
        std::string(got[r].type->name) != want[r].type->name) {
      std::fprintf(messages, "%s: result %zu: shapes or element types differ\n",
                  what.c_str(), r);
      ++mismatches;
      continue;
    }
    bool tolerant = got[r].type->isFloat;
    for (int64_t i = 0; i < got[r].count(); ++i) {
      double a = element(got[r], i), b = element(want[r], i);
      bool same =
          tolerant ? a == b || (std::isnan(a) && std::isnan(b)) ||
                         std::fabs(a - b) <= atol + rtol * std::fabs(b)
                   : std::memcmp(got[r].data.data() + i * got[r].type->bytes,
                                 want[r].data.data() + i * want[r].type->bytes,
                                 got[r].type->bytes) == 0;
      if (!same && mismatches++ == 0)
        std::fprintf(messages, "%s: result %zu element %lld: %g (%s) vs %g (%s)\n",
                    what.c_str(), r, static_cast<long long>(i), a, gotName, b,
                    wantName);
    }
  }
  return mismatches;
}

void printReport(const Session &run, gpRtBackend backend,
                 const RunOptions &options, double median, double p90,
                 const gpRtStats &timed) {
  gpRtStats stats;
  check(gpRtProgramGetStats(run.program, &stats), "stats");
  std::printf("entry: %s  backend: %s  warmup: %lld  iterations: %lld\n",
              run.entryNames().c_str(), gpRtBackendName(backend),
              static_cast<long long>(options.warmup),
              static_cast<long long>(options.iterations));
  std::printf("latency per step: median %.2f us, p90 %.2f us\n", median, p90);
  if (options.rotate > 1)
    std::printf("inputs: %lld sets of buffers, used in turn\n",
                static_cast<long long>(options.rotate));
  // What the timed steps alone cost the runtime (warm-up and --check
  // excluded): after warm-up, captures should be 0.
  std::printf("timed steps: captures: %lld  instantiations: %lld  updates: "
              "%lld  rebinds: %lld  replays: %lld\n",
              static_cast<long long>(timed.captures),
              static_cast<long long>(timed.instantiations),
              static_cast<long long>(timed.updates),
              static_cast<long long>(timed.rebinds),
              static_cast<long long>(timed.replays));
  std::printf("captures: %lld  replays: %lld  updates: %lld  "
              "instantiations: %lld  eager runs: %lld  warm-up runs: %lld  "
              "shape warnings: %lld  evictions: %lld  rebinds: %lld  "
              "padded calls: %lld\n",
              static_cast<long long>(stats.captures),
              static_cast<long long>(stats.replays),
              static_cast<long long>(stats.updates),
              static_cast<long long>(stats.instantiations),
              static_cast<long long>(stats.eagerRuns),
              static_cast<long long>(stats.warmupRuns),
              static_cast<long long>(stats.shapeWarnings),
              static_cast<long long>(stats.evictions),
              static_cast<long long>(stats.rebinds),
              static_cast<long long>(stats.paddedCalls));
  if (options.printPartitions) {
    // How each captured partition's graphs follow the inputs they hold.
    const char *bindings = nullptr;
    check(gpRtProgramGetBindingReport(run.program, &bindings), "bindings");
    std::printf("input bindings:\n");
    for (const char *line = bindings; *line;) {
      const char *end = std::strchr(line, '\n');
      size_t length = end ? end - line : std::strlen(line);
      std::printf("  %.*s\n", static_cast<int>(length), line);
      line += length + (end ? 1 : 0);
    }
  }
  int64_t deviceArena = 0, hostArena = 0;
  check(gpRtArtifactGetArenaBytes(run.artifact, &deviceArena, &hostArena),
        "arena bytes");
  // The plan's arenas against what the runtime holds (arenas, the
  // partitions' pools) at the end, and what the largest shapes need.
  std::printf("pool bytes: %lld (planned arenas: %lld device, %lld host; "
              "largest shapes' pool plans: %lld)\n",
              static_cast<long long>(stats.poolBytes),
              static_cast<long long>(deviceArena),
              static_cast<long long>(hostArena),
              static_cast<long long>(stats.largestPlanBytes));
}

/// The --input specs with each entry's weight arguments after its own:
/// DIR/<entry>.weights (written by gp-import's weights-dir) names the .npy
/// file of each trailing weight argument, one per line; an entry without
/// the file has none. When the program names its weight arguments as
/// parameters (run.bindsParameters), they are bound by name instead
/// (DIR/<name>.npy) and only the entries' own inputs are returned.
std::vector<std::string> withWeights(const Session &run,
                                     const RunOptions &options) {
  if (options.weightsDir.empty())
    return options.inputSpecs;
  const std::string &dir = options.weightsDir;
  struct stat info;
  if (stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    die("--weights: '" + dir + "' is not a directory");
  std::vector<std::string> specs;
  size_t next = 0;
  for (const Call &call : run.calls) {
    std::string name = call.info.name;
    std::vector<std::string> files;
    std::ifstream list(dir + "/" + name + ".weights");
    for (std::string line; std::getline(list, line);)
      if (!line.empty())
        files.push_back(line);
    if (files.size() > static_cast<size_t>(call.info.numArgs))
      die("--weights: '" + dir + "/" + name + ".weights' lists " +
          std::to_string(files.size()) + " weights but entry '" + name +
          "' takes " + std::to_string(call.info.numArgs) + " argument(s)");
    size_t weights = files.size();
    if (run.bindsParameters) {
      weights = 0;
      for (int32_t i = 0; i < call.info.numArgs; ++i)
        weights += run.isBound(call.info.args[i]) ? 1 : 0;
    }
    size_t own = call.info.numArgs - weights;
    if (next + own > options.inputSpecs.size())
      die("entry '" + name + "' takes " + std::to_string(own) +
          " argument(s) besides its " + std::to_string(weights) +
          " weight(s) from '" + dir + "'; " +
          std::to_string(options.inputSpecs.size() - next) +
          " --input left for it");
    specs.insert(specs.end(), options.inputSpecs.begin() + next,
                 options.inputSpecs.begin() + next + own);
    next += own;
    if (!run.bindsParameters)
      for (const std::string &file : files)
        specs.push_back("@" + dir + "/" + file);
  }
  if (next != options.inputSpecs.size())
    die("entry '" + run.entryNames() + "' takes " + std::to_string(next) +
        " argument(s) besides the weights from '" + dir + "'; " +
        std::to_string(options.inputSpecs.size()) + " --input given");
  return specs;
}

/// Dies unless `sets` sets of `inputs` (--rotate) fit in kMaxRotateBytes:
/// the sets are placed, each a copy of every input, before anything runs.
void checkRotation(int64_t sets, const std::vector<Input> &inputs) {
  if (sets <= 1)
    return;
  int64_t bytes = 0;
  for (const Input &input : inputs)
    if (!input.isIndex)
      bytes += static_cast<int64_t>(input.array.data.size());
  // Each input is under 2^40 bytes (parseInput): the sum fits.
  int64_t total = 0;
  if (__builtin_mul_overflow(bytes, sets, &total) || total > kMaxRotateBytes)
    die("--rotate " + std::to_string(sets) + ": " + std::to_string(sets) +
        " sets of the inputs' " + std::to_string(bytes) + " bytes is more " +
        "than --rotate may place (1 GiB in all); use fewer sets");
}

} // namespace

int gp::run::runProgram(const RunOptions &options) {
  messages = options.json ? stderr : stdout;
  for (const std::string &lib : options.externLibs)
    check(gpRtLoadExternLibrary(lib.c_str()), "--extern-lib");

  // Entries need only the manifest: no backend, device or driver (a cuda
  // artifact can be inspected on a machine without a GPU).
  if (options.printEntries) {
    gpRtArtifact *artifact = nullptr;
    check(gpRtArtifactInspect(options.path.c_str(), &artifact), "load");
    printEntries(artifact);
    gpRtArtifactUnload(artifact);
    return 0;
  }

  // The backend: as asked, else the artifact's target (read from its
  // manifest, so that a load failing for another reason says that reason).
  gpRtBackend backend = gpRtDefaultBackend();
  if (!options.backendName.empty()) {
    check(gpRtParseBackend(options.backendName.c_str(), &backend), "--backend");
  } else {
    gpRtArtifact *inspected = nullptr;
    check(gpRtArtifactInspect(options.path.c_str(), &inspected),
          "load " + options.path);
    check(gpRtParseBackend(gpRtArtifactTarget(inspected), &backend),
          "load " + options.path);
    gpRtArtifactUnload(inspected);
  }
  Session run;
  run.load(options.path, backend, options.device, options.entryNames);
  if (options.noCapture)
    check(gpRtProgramSetCaptureEnabled(run.program, 0), "--no-capture");

  if (options.printPartitions)
    printPartitions(run.artifact, messages);

  // Named parameters are bound once, by name, from --parameters PATH (or
  // --weights DIR when the program names its weights); the calls then pass
  // only the user inputs. Without either, a parameter is an --input.
  std::string parameterOption =
      !options.parameterPaths.empty() ? "--parameters" : "--weights";
  run.bindsParameters =
      !options.parameterPaths.empty() ||
      (!options.weightsDir.empty() &&
       gpRtArtifactNumParameters(run.artifact) > 0);
  std::unique_ptr<ParameterSource> parameters;
  if (!options.parameterPaths.empty()) {
    std::string error;
    parameters = openParameterSources(options.parameterPaths, error);
    if (!parameters)
      die("--parameters: " + error);
  }
  std::vector<gpRtValueInfo> argInfos = run.argInfos();
  std::vector<std::string> inputSpecs = withWeights(run, options);
  if (inputSpecs.size() != argInfos.size()) {
    size_t bound = 0;
    for (const Call &call : run.calls)
      bound += call.info.numArgs;
    bound -= argInfos.size();
    die("entry '" + run.entryNames() + "' takes " +
        std::to_string(argInfos.size()) + " argument(s)" +
        (run.bindsParameters ? " besides its " + std::to_string(bound) +
                                   " parameter(s) from " + parameterOption
                             : std::string()) +
        "; " + std::to_string(inputSpecs.size()) + " --input given");
  }
  if (run.bindsParameters && !parameters) {
    // --weights DIR of a program that names its weights (withWeights
    // checked that DIR is a directory).
    std::string error;
    parameters = openParameterSource(options.weightsDir, error);
    if (!parameters)
      die("--weights: " + error);
  }
  std::mt19937_64 random(options.seed);
  std::vector<Input> inputs;
  for (size_t i = 0; i < argInfos.size(); ++i) {
    Input input;
    std::string error;
    if (!parseInput(inputSpecs[i], argInfos[i], i, random, input,
                    error))
      die(error);
    inputs.push_back(std::move(input));
  }
  if (parameters) {
    // All of them bound (and checked) before anything runs.
    std::set<std::string> bound =
        run.bindParameters(*parameters, parameterOption);
    size_t others = parameters->countOthers(bound);
    std::string ignored =
        others ? " (" + std::to_string(others) +
                     " other tensor(s) there, not taken by the program)"
               : std::string();
    std::fprintf(messages, "parameters: %zu bound by name from '%s'%s\n",
                 bound.size(), parameters->path().c_str(), ignored.c_str());
  }
  checkRotation(options.rotate, inputs);
  run.place(inputs);
  run.upload(inputs);
  run.placeRotation(options.rotate, inputs);

  for (int64_t i = 0; i < options.warmup; ++i)
    run.step();
  std::vector<double> micros;
  std::vector<Array> results;
  gpRtStats beforeTiming;
  check(gpRtProgramGetStats(run.program, &beforeTiming), "stats");
  for (int64_t i = 0; i < options.iterations; ++i) {
    // Without --check, the last step's results are the ones reported.
    bool last = i + 1 == options.iterations && !options.doCheck;
    micros.push_back(run.step(last ? &results : nullptr));
  }
  gpRtStats timed;
  check(gpRtProgramGetStats(run.program, &timed), "stats");
  for (int64_t gpRtStats::*field :
       {&gpRtStats::captures, &gpRtStats::instantiations, &gpRtStats::updates,
        &gpRtStats::rebinds, &gpRtStats::replays})
    timed.*field -= beforeTiming.*field;
  run.releaseRotation(); // --check compares the first set of inputs.
  std::sort(micros.begin(), micros.end());
  double median = micros[micros.size() / 2];
  double p90 = micros[std::min(micros.size() - 1, micros.size() * 9 / 10)];

  int status = 0;
  RunSummary summary;
  if (options.doCheck) {
    // Every check step runs the captured instance and an eager instance
    // (capture off) on the same values and compares: first the original
    // inputs, then --check-steps steps of fresh random values in the same
    // buffers (a replay must see new data), then one at new addresses.
    Session eager;
    eager.load(options.path, backend, options.device, options.entryNames);
    check(gpRtProgramSetCaptureEnabled(eager.program, 0), "eager run");
    // The same parameters, bound once; only the user inputs change below.
    eager.bindsParameters = run.bindsParameters;
    if (parameters)
      eager.bindParameters(*parameters, parameterOption);
    eager.place(inputs);
    // As many calls as the captured instance made, so stateful programs
    // (RNG offsets advance per call) are compared at the same call.
    for (int64_t i = 0; i < options.warmup + options.iterations; ++i) {
      eager.upload(inputs);
      eager.step();
    }
    int64_t steps = 2 + options.checkSteps, failed = 0;
    std::vector<Input> stepInputs = inputs;
    for (int64_t s = 0; s < steps; ++s) {
      bool moved = s + 1 == steps;
      if (s > 0)
        for (Input &input : stepInputs)
          if (!input.isIndex)
            freshValues(input.array, random);
      if (moved) {
        run.movePlaces(stepInputs);
        eager.movePlaces(stepInputs);
      }
      run.upload(stepInputs);
      eager.upload(stepInputs);
      std::vector<Array> got, expected;
      run.step(&got);
      eager.step(&expected);
      if (s == 0)
        results = got; // The original inputs' results are the reported ones.
      std::string what = "check: step " + std::to_string(s + 1) + " (" +
                         (s == 0  ? "the given inputs"
                          : moved ? "fresh values at new addresses"
                                  : "fresh values") +
                         ")";
      if (int64_t mismatches =
              compare(got, expected, options.rtol, options.atol, what,
                      "captured", "eager")) {
        std::fprintf(messages, "%s: %lld element(s) differ from the eager run\n",
                    what.c_str(), static_cast<long long>(mismatches));
        ++failed;
      }
    }
    summary.check = {steps, failed};
    if (failed) {
      std::fprintf(messages, "check: FAILED: %lld of %lld step(s) differ from the eager "
                  "run\n",
                  static_cast<long long>(failed),
                  static_cast<long long>(steps));
      status = 1;
    } else {
      std::fprintf(messages, "check: ok: %zu result(s) match the eager run in %lld "
                  "steps: the given inputs, %lld with fresh values in the "
                  "same buffers, 1 with fresh values at new addresses\n",
                  results.size(), static_cast<long long>(steps),
                  static_cast<long long>(options.checkSteps));
    }
  }

  if (!options.expectedOutputs.empty()) {
    std::vector<Array> references;
    for (const std::string &path : options.expectedOutputs) {
      std::string error;
      Array reference;
      if (!readNpy(path, reference, error))
        die(error);
      references.push_back(std::move(reference));
    }
    int64_t mismatches = compare(results, references, options.rtol,
                                 options.atol, "expected output", "computed",
                                 "expected");
    summary.expected = {static_cast<int64_t>(references.size()), mismatches};
    if (mismatches) {
      std::fprintf(messages, "expected output: FAILED: %lld element(s) differ\n",
                  static_cast<long long>(mismatches));
      status = 1;
    } else {
      std::fprintf(messages, "expected output: ok: %zu result(s) match\n", results.size());
    }
  }

  if (!options.output.empty())
    writeResults(options.output, results, summary.outputsWritten, messages);
  if (options.json) {
    for (const Call &call : run.calls)
      summary.entries.push_back(call.info.name);
    summary.backend = gpRtBackendName(backend);
    summary.warmup = options.warmup;
    summary.iterations = options.iterations;
    summary.rotate = options.rotate;
    summary.micros = micros;
    summary.timed = timed;
    check(gpRtProgramGetStats(run.program, &summary.total), "stats");
    check(gpRtArtifactGetArenaBytes(run.artifact, &summary.deviceArenaBytes,
                                    &summary.hostArenaBytes),
          "arena bytes");
    summary.status = status;
    printJsonReport(stdout, run.artifact, summary);
  } else {
    printReport(run, backend, options, median, p90, timed);
  }
  return status;
}
