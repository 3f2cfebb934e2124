//===- Session.cpp - run an artifact and report ---------------------------===//
//
// A run of an artifact with gp-run's options: steps of the Session
// (RunSession.h), --check against an eager instance of the same artifact,
// --expected-output, and the report: entries, partitions, latency,
// counters, and the results written with --output.
//
//===----------------------------------------------------------------------===//

#include "Session.h"
#include "RunSession.h"

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
#include <thread>

using namespace gp::run;

namespace {

/// Where the human-readable lines go: stdout, or stderr with --json (whose
/// document alone is stdout).
FILE *messages = stdout;

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

/// --expected-output's arrays, in order; dies naming a file it cannot read.
static std::vector<Array> readReferences(const RunOptions &options) {
  std::vector<Array> references;
  for (const std::string &path : options.expectedOutputs) {
    std::string error;
    Array reference;
    if (!readNpy(path, reference, error))
      die(error);
    references.push_back(std::move(reference));
  }
  return references;
}

/// The --input values of `argInfos` (random ones from `random`); dies on a
/// spec that does not fit its argument.
static std::vector<Input>
parseInputs(const std::vector<std::string> &specs,
            const std::vector<gpRtValueInfo> &argInfos,
            std::mt19937_64 &random) {
  std::vector<Input> inputs;
  for (size_t i = 0; i < argInfos.size(); ++i) {
    Input input;
    std::string error;
    if (!parseInput(specs[i], argInfos[i], i, random, input, error))
      die(error);
    inputs.push_back(std::move(input));
  }
  return inputs;
}

/// --output PATH for rank `rank`: PATH.rankR.npy (PATH without its .npy).
static std::string rankOutput(const std::string &output, int64_t rank) {
  std::string stem = output;
  if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".npy") == 0)
    stem.resize(stem.size() - 4);
  return stem + ".rank" + std::to_string(rank) + ".npy";
}

/// --ranks N: N instances of the program, each stepped on a thread of its
/// own with the same inputs (and parameters): on the host backend the
/// ranks of one local communicator; on cuda rank R runs on device
/// --device + R and joins NCCL. Every rank must make the same collectives,
/// so every rank runs the same steps.
static int runRanks(const RunOptions &options, gpRtBackend backend) {
  int32_t count = static_cast<int32_t>(options.ranks);
  bool cuda = backend == GP_RT_BACKEND_CUDA;
  gpRtCommunicator *local = nullptr;
  if (!cuda)
    check(gpRtCommunicatorCreateLocal(count, &local), "--ranks");
  std::vector<std::unique_ptr<Session>> ranks;
  for (int32_t rank = 0; rank < count; ++rank) {
    ranks.push_back(std::make_unique<Session>());
    Session &run = *ranks.back();
    int32_t device =
        cuda ? std::max<int32_t>(options.device, 0) + rank : options.device;
    run.load(options.path, backend, device, options.entryNames);
    if (!cuda)
      check(gpRtArtifactSetCommunicator(run.artifact, local, rank), "--ranks");
    if (options.noCapture)
      check(gpRtProgramSetCaptureEnabled(run.program, 0), "--no-capture");
  }
  // NCCL: every rank joins at once (each join waits for the others).
  std::vector<gpRtCommunicator *> joined(count, nullptr);
  if (cuda) {
    uint8_t id[128];
    check(gpRtNcclUniqueId(id), "--ranks");
    std::vector<gpRtStatus> statuses(count, GP_RT_SUCCESS);
    std::vector<std::string> errors(count);
    std::vector<std::thread> joining;
    for (int32_t rank = 0; rank < count; ++rank)
      joining.emplace_back([&, rank] {
        statuses[rank] = gpRtArtifactJoinNccl(ranks[rank]->artifact, id, count,
                                              rank, &joined[rank]);
        if (statuses[rank])
          errors[rank] = gpRtGetLastError();
      });
    for (std::thread &thread : joining)
      thread.join();
    for (int32_t rank = 0; rank < count; ++rank)
      if (statuses[rank])
        die("--ranks: rank " + std::to_string(rank) + ": " + errors[rank]);
  }
  Session &first = *ranks.front();
  std::string parameterOption =
      !options.parameterPaths.empty() ? "--parameters" : "--weights";
  bool bindsParameters = !options.parameterPaths.empty() ||
                         (!options.weightsDir.empty() &&
                          gpRtArtifactNumParameters(first.artifact) > 0);
  std::unique_ptr<ParameterSource> parameters;
  if (bindsParameters) {
    std::string error;
    parameters = options.parameterPaths.empty()
                     ? openParameterSource(options.weightsDir, error)
                     : openParameterSources(options.parameterPaths, error);
    if (!parameters)
      die(parameterOption + ": " + error);
  }
  for (std::unique_ptr<Session> &run : ranks)
    run->bindsParameters = bindsParameters;
  std::vector<gpRtValueInfo> argInfos = first.argInfos();
  std::vector<std::string> inputSpecs = withWeights(first, options);
  if (inputSpecs.size() != argInfos.size())
    die("entry '" + first.entryNames() + "' takes " +
        std::to_string(argInfos.size()) + " argument(s)" +
        (bindsParameters ? " besides its parameters from " + parameterOption
                         : std::string()) +
        "; " + std::to_string(inputSpecs.size()) + " --input given");
  std::mt19937_64 random(options.seed);
  std::vector<Input> inputs = parseInputs(inputSpecs, argInfos, random);
  for (std::unique_ptr<Session> &run : ranks) {
    if (parameters)
      run->bindParameters(*parameters, parameterOption);
    run->place(inputs);
    run->upload(inputs);
  }
  std::vector<std::vector<Array>> results(count);
  std::vector<std::vector<double>> micros(count);
  std::vector<std::thread> threads;
  for (int32_t rank = 0; rank < count; ++rank)
    threads.emplace_back([&, rank] {
      Session &run = *ranks[rank];
      for (int64_t i = 0; i < options.warmup; ++i)
        run.step();
      for (int64_t i = 0; i < options.iterations; ++i)
        micros[rank].push_back(
            run.step(i + 1 == options.iterations ? &results[rank] : nullptr));
    });
  for (std::thread &thread : threads)
    thread.join();

  std::printf("entry: %s  backend: %s  ranks: %d  warmup: %lld  "
              "iterations: %lld\n",
              first.entryNames().c_str(), gpRtBackendName(backend), count,
              static_cast<long long>(options.warmup),
              static_cast<long long>(options.iterations));
  for (int32_t rank = 0; rank < count; ++rank) {
    std::sort(micros[rank].begin(), micros[rank].end());
    gpRtStats stats;
    check(gpRtProgramGetStats(ranks[rank]->program, &stats), "stats");
    std::printf("rank %d: latency per step: median %.2f us  captures: %lld  "
                "replays: %lld  eager runs: %lld\n",
                rank, micros[rank][micros[rank].size() / 2],
                static_cast<long long>(stats.captures),
                static_cast<long long>(stats.replays),
                static_cast<long long>(stats.eagerRuns));
  }
  int status = 0;
  if (!options.expectedOutputs.empty()) {
    std::vector<Array> references = readReferences(options);
    int64_t failed = 0;
    for (int32_t rank = 0; rank < count; ++rank) {
      std::string what = "expected output (rank " + std::to_string(rank) + ")";
      if (compare(results[rank], references, options.rtol, options.atol, what,
                  "computed", "expected"))
        ++failed;
    }
    if (failed) {
      std::printf("expected output: FAILED on %lld of %d rank(s)\n",
                  static_cast<long long>(failed), count);
      status = 1;
    } else {
      std::printf("expected output: ok: %zu result(s) match on every rank\n",
                  references.size());
    }
  }
  if (!options.output.empty())
    for (int32_t rank = 0; rank < count; ++rank) {
      std::vector<std::string> written;
      writeResults(rankOutput(options.output, rank), results[rank], written,
                   stdout);
    }
  // NCCL's communicators go while their GPUs' contexts are held; a local
  // one after every artifact that meets through it is unloaded.
  for (gpRtCommunicator *communicator : joined)
    if (communicator)
      check(gpRtCommunicatorDestroy(communicator), "--ranks");
  ranks.clear();
  if (local)
    gpRtCommunicatorDestroy(local);
  return status;
}

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
  if (options.ranks > 0)
    return runRanks(options, backend);
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
  std::vector<Input> inputs = parseInputs(inputSpecs, argInfos, random);
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
    std::vector<Array> references = readReferences(options);
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
