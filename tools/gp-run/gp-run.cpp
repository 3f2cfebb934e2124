//===- gp-run.cpp - run GraphPart programs --------------------------------===//
//
// Loads an artifact made by gp-compile, creates its inputs, runs an entry
// point (captured partitions replay after their warm-up), reports per-step
// latency and the runtime's counters, and with --check compares the results
// against an eager run of the same artifact. Needs only the runtime.
//
// This file holds the command line; Inputs.cpp the --input specs,
// Session.cpp the runs and the report, GPRunSupport the .npy files.
//
//===----------------------------------------------------------------------===//

#include "Diagnostics.h"
#include "Session.h"

#include "GraphPart/Runtime/GPRuntime.h"

#include <getopt.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace gp::run;

namespace {

void printUsage(FILE *out) {
  std::fprintf(
      out,
      "usage: gp-run PROGRAM.so [options]\n"
      "       gp-run --list-backends | --version | --help\n"
      "\n"
      "  --entry NAME          entry point (default: the first); repeat it\n"
      "                        to make a step of several calls (forward,\n"
      "                        backward), their inputs given in order;\n"
      "                        --function is the same\n"
      "  --input SPEC          one per argument, in order:\n"
      "                          8x256xf32=random   random values (--seed)\n"
      "                          2x2xf32=1.5        a constant\n"
      "                          2x2xf32=1,2,3,4    each element, row-major\n"
      "                          2x2xf32=@file.npy  from a .npy file of that\n"
      "                                             shape and type\n"
      "                          @file.npy          from a .npy file\n"
      "                          5                  an index argument\n"
      "  --backend host|cuda   (default: the artifact's target)\n"
      "  --device N            cuda device index, also cuda:N or cuda://N\n"
      "                        (default: the program's)\n"
      "  --warmup W            untimed calls first (default 1)\n"
      "  --iterations N        timed calls (default 10)\n"
      "  --rotate K            place the inputs in K sets of buffers and call\n"
      "                        with them in turn, as a caller passing fresh\n"
      "                        tensors does (default 1; at most 4096 sets\n"
      "                        and 1 GiB of inputs in all)\n"
      "  --check               compare with an eager run of the program,\n"
      "                        step by step: the given inputs, fresh random\n"
      "                        values in the same buffers (integers: the\n"
      "                        given ones shuffled, so indices stay in\n"
      "                        range), then at new addresses\n"
      "  --check-steps N       steps of fresh values for --check (default 3)\n"
      "  --expected-output @R.npy  a reference result (repeat it, one per\n"
      "                        result in order), e.g. from numpy or PyTorch\n"
      "  --no-capture          run every partition eagerly (a baseline)\n"
      "  --rtol R --atol A     float tolerance for --check and\n"
      "                        --expected-output (1e-5, 1e-6)\n"
      "  --output PATH.npy     write the results (PATH.N.npy when several);\n"
      "                        a leading @ is not part of the path\n"
      "  --ranks N             run the program as N ranks (its collectives\n"
      "                        among them), each an instance of its own on\n"
      "                        its own thread, all with the same inputs;\n"
      "                        on cuda rank R on device --device + R, the\n"
      "                        ranks joined through NCCL; --output writes\n"
      "                        PATH.rankR.npy per rank and --expected-output\n"
      "                        checks every rank\n"
      "  --extern-lib PATH     load user externs (gp_register_externs)\n"
      "  --parameters PATH     bind each named parameter of the program\n"
      "                        (--print-entries marks them parameter=NAME)\n"
      "                        once, by name, before the runs: PATH is a\n"
      "                        directory (parameter N from PATH/N.npy) or a\n"
      "                        .safetensors file (repeatable: each name\n"
      "                        from the first PATH holding it); --input\n"
      "                        then gives only\n"
      "                        the other arguments (without --parameters, a\n"
      "                        parameter is an --input like any argument)\n"
      "  --weights DIR         the weight arguments gp-compile --weights\n"
      "                        wrote: bound by name from DIR/<name>.npy when\n"
      "                        the program names them as parameters, else\n"
      "                        each entry's follow its --input values, from\n"
      "                        DIR/<entry>.weights\n"
      "  --print-partitions    print the partition table and each entry's "
      "size\n"
      "                        classes (padded to the capture sizes or not),\n"
      "                        and after the run how each captured partition\n"
      "                        binds its inputs\n"
      "  --json                print the report as one JSON document "
      "(partitions,\n"
      "                        latency percentiles, counters; "
      "docs/Reports.md);\n"
      "                        other lines go to stderr\n"
      "  --print-entries       print each entry's arguments and results, an\n"
      "                        --input template per argument, and exit\n"
      "  --seed S              seed of random inputs (default 0)\n"
      "  --list-backends       list the runtime's backends\n"
      "  --version             print the runtime version\n");
}

int listBackends() {
  for (gpRtBackend backend : {GP_RT_BACKEND_HOST, GP_RT_BACKEND_CUDA}) {
    const char *name = gpRtBackendName(backend);
    if (gpRtBackendAvailable(backend) == GP_RT_SUCCESS)
      std::printf("%s: available\n", name);
    else
      std::printf("%s: unavailable (%s)\n", name, gpRtGetLastError());
  }
  std::printf("default: %s\n", gpRtBackendName(gpRtDefaultBackend()));
  return 0;
}

/// getopt_long's codes for the long options; 'h' is --help and -h.
enum OptionCode {
  OptVersion = 256,
  OptListBackends,
  OptEntry,
  OptInput,
  OptBackend,
  OptDevice,
  OptWarmup,
  OptIterations,
  OptCheck,
  OptCheckSteps,
  OptExpectedOutput,
  OptNoCapture,
  OptRtol,
  OptAtol,
  OptOutput,
  OptExternLib,
  OptPrintPartitions,
  OptRotate,
  OptPrintEntries,
  OptSeed,
  OptWeights,
  OptParameters,
  OptJson,
  OptRanks,
};

const option kOptions[] = {
    {"help", no_argument, nullptr, 'h'},
    {"version", no_argument, nullptr, OptVersion},
    {"list-backends", no_argument, nullptr, OptListBackends},
    {"entry", required_argument, nullptr, OptEntry},
    {"function", required_argument, nullptr, OptEntry},
    {"json", no_argument, nullptr, OptJson},
    {"input", required_argument, nullptr, OptInput},
    {"backend", required_argument, nullptr, OptBackend},
    {"device", required_argument, nullptr, OptDevice},
    {"warmup", required_argument, nullptr, OptWarmup},
    {"iterations", required_argument, nullptr, OptIterations},
    {"check", no_argument, nullptr, OptCheck},
    {"check-steps", required_argument, nullptr, OptCheckSteps},
    {"expected-output", required_argument, nullptr, OptExpectedOutput},
    {"no-capture", no_argument, nullptr, OptNoCapture},
    {"rtol", required_argument, nullptr, OptRtol},
    {"atol", required_argument, nullptr, OptAtol},
    {"output", required_argument, nullptr, OptOutput},
    {"extern-lib", required_argument, nullptr, OptExternLib},
    {"print-partitions", no_argument, nullptr, OptPrintPartitions},
    {"rotate", required_argument, nullptr, OptRotate},
    {"print-entries", no_argument, nullptr, OptPrintEntries},
    {"seed", required_argument, nullptr, OptSeed},
    {"weights", required_argument, nullptr, OptWeights},
    {"parameters", required_argument, nullptr, OptParameters},
    {"ranks", required_argument, nullptr, OptRanks},
    {nullptr, 0, nullptr, 0},
};

/// Whether `arg` spells the option of `code` in full (`--name`, or
/// `--name=value` for options that take one): gp-run takes neither
/// abbreviations (--ent) nor grouped short options (-hh), which
/// getopt_long would.
bool spellsOption(const std::string &arg, int code) {
  if (code == 'h' && arg == "-h")
    return true;
  for (const option *o = kOptions; o->name; ++o) {
    if (o->val != code)
      continue;
    std::string name = std::string("--") + o->name;
    if (arg == name || (o->has_arg == required_argument &&
                        arg.compare(0, name.size() + 1, name + "=") == 0))
      return true;
  }
  return false;
}

int unknownArgument(const std::string &arg) {
  std::fprintf(stderr, "gp-run: unknown argument '%s'\n", arg.c_str());
  printUsage(stderr);
  return 2;
}

/// What parseCount made of a number.
enum class Count { Ok, NotANumber, OutOfRange };

/// Reads `text`, decimal digits only, as a number in [0, max]. strtoull
/// alone would take "-1" as 2^64 - 1 and clamp what is past 2^64 to it;
/// strtoll clamps past 2^63: a count typed one digit too long must be an
/// error, not the largest count.
Count parseCount(const std::string &text, uint64_t max, uint64_t &value) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return Count::NotANumber;
  errno = 0;
  unsigned long long n = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE || n > max)
    return Count::OutOfRange;
  value = n;
  return Count::Ok;
}

[[noreturn]] void outOfRange(const std::string &arg, const std::string &text,
                             uint64_t max) {
  die(arg + ": " + text + " is out of range (at most " + std::to_string(max) +
      ")");
}

/// The value of option `arg`, an integer in [0, max].
uint64_t nonNegativeInteger(const std::string &arg, const std::string &text,
                            uint64_t max = INT64_MAX) {
  uint64_t n = 0;
  switch (parseCount(text, max, n)) {
  case Count::Ok:
    return n;
  case Count::NotANumber:
    die(arg + " takes a non-negative integer, not '" + text + "'");
  case Count::OutOfRange:
    outOfRange(arg, text, max);
  }
  return n;
}

/// A device as `N`, `cuda:N` or `cuda://N` (iree-run-module's form).
int32_t deviceIndex(const std::string &arg, std::string text) {
  for (const char *prefix : {"cuda://", "cuda:"})
    if (text.rfind(prefix, 0) == 0) {
      text = text.substr(std::strlen(prefix));
      break;
    }
  uint64_t n = 0;
  switch (parseCount(text, INT32_MAX, n)) {
  case Count::Ok:
    break;
  case Count::NotANumber:
    die(arg + " takes a cuda device index (N, cuda:N or cuda://N), not '" +
        text + "'");
  case Count::OutOfRange:
    outOfRange(arg, text, INT32_MAX);
  }
  return static_cast<int32_t>(n);
}

double nonNegativeNumber(const std::string &arg, const std::string &text) {
  char *end = nullptr;
  double n = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || n < 0)
    die(arg + " takes a non-negative number, not '" + text + "'");
  return n;
}

} // namespace

static int run(int argc, char **argv);

int main(int argc, char **argv) {
  // Whatever goes wrong is a message and an exit status, never an abort.
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc &) {
    die("out of host memory");
  } catch (const std::exception &error) {
    die(std::string("unexpected error: ") + error.what());
  }
  return 1;
}

static int run(int argc, char **argv) {
  RunOptions options;
  if (argc < 2) {
    printUsage(stderr);
    return 2;
  }
  // "-": arguments come back in command-line order, the program path as
  // code 1, so every error is the first one on the line. ":": a missing
  // value is ':', told apart from an unknown option. Errors are ours.
  opterr = 0;
  while (true) {
    int at = optind; // The argument getopt_long looks at next.
    int code = getopt_long(argc, argv, "-:h", kOptions, nullptr);
    if (code == -1) {
      // The end, or "--", which gp-run does not take.
      if (at < argc)
        return unknownArgument(argv[at]);
      break;
    }
    std::string arg = argv[at];
    if (code == 1) {
      if (!arg.empty() && arg[0] == '-') // "-" alone.
        return unknownArgument(arg);
      if (options.path.empty())
        options.path = arg;
      else
        die("more than one program given ('" + options.path + "', '" + arg +
            "')");
      continue;
    }
    if (code == '?' || !spellsOption(arg, code == ':' ? optopt : code))
      return unknownArgument(arg);
    if (code == ':')
      die(arg + " needs a value");
    arg = arg.substr(0, arg.find('=')); // Messages name the option.
    switch (code) {
    case 'h':
      printUsage(stdout);
      return 0;
    case OptVersion:
      std::printf("gp-run (GraphPart runtime %s)\n", gpRtVersion());
      return 0;
    case OptListBackends:
      return listBackends();
    case OptEntry:
      options.entryNames.push_back(optarg);
      break;
    case OptInput:
      options.inputSpecs.push_back(optarg);
      break;
    case OptBackend:
      options.backendName = optarg;
      break;
    case OptDevice:
      options.device = deviceIndex(arg, optarg);
      break;
    case OptWarmup:
      options.warmup = nonNegativeInteger(arg, optarg);
      break;
    case OptIterations:
      options.iterations = nonNegativeInteger(arg, optarg);
      break;
    case OptCheck:
      options.doCheck = true;
      break;
    case OptCheckSteps:
      // Steps are counted with the two fixed ones in an int64_t.
      options.checkSteps = nonNegativeInteger(arg, optarg, INT32_MAX);
      break;
    case OptRotate:
      options.rotate = nonNegativeInteger(arg, optarg);
      if (options.rotate < 1)
        die("--rotate: expected at least 1 set of inputs, got " +
            std::string(optarg));
      // Each set is a copy of every input (Session.cpp bounds their bytes).
      if (options.rotate > kMaxRotate)
        die("--rotate: " + std::string(optarg) + " sets of inputs is more " +
            "than " + std::to_string(kMaxRotate) +
            " (each set is a copy of every input)");
      break;
    case OptExpectedOutput: {
      std::string path = optarg;
      options.expectedOutputs.push_back(path.rfind('@', 0) == 0 ? path.substr(1)
                                                                : path);
      break;
    }
    case OptNoCapture:
      options.noCapture = true;
      break;
    case OptRtol:
      options.rtol = nonNegativeNumber(arg, optarg);
      break;
    case OptAtol:
      options.atol = nonNegativeNumber(arg, optarg);
      break;
    case OptOutput: {
      std::string path = optarg;
      options.output = path.rfind('@', 0) == 0 ? path.substr(1) : path;
      // An empty path would read as no --output: nothing written, exit 0.
      if (options.output.empty())
        die("--output needs a path, not '" + path + "'");
      break;
    }
    case OptExternLib:
      options.externLibs.push_back(optarg);
      break;
    case OptPrintPartitions:
      options.printPartitions = true;
      break;
    case OptPrintEntries:
      options.printEntries = true;
      break;
    case OptSeed:
      options.seed = nonNegativeInteger(arg, optarg, UINT64_MAX);
      break;
    case OptWeights:
      options.weightsDir = optarg;
      break;
    case OptParameters:
      options.parameterPaths.push_back(optarg);
      break;
    case OptJson:
      options.json = true;
      break;
    case OptRanks:
      options.ranks = nonNegativeInteger(arg, optarg, 1024);
      if (options.ranks < 1)
        die("--ranks: expected at least 1 rank, got " + std::string(optarg));
      break;
    }
  }
  if (options.path.empty())
    die("no program given");
  // dlopen searches the library path for a name without a slash; a
  // program named on the command line is a file here.
  if (options.path.find('/') == std::string::npos)
    options.path = "./" + options.path;
  if (options.iterations < 1)
    die("--iterations must be at least 1");
  if (options.ranks > 0) {
    for (auto [given, name] :
         {std::pair(options.doCheck, "--check"),
          std::pair(options.rotate > 1, "--rotate"),
          std::pair(options.json, "--json"),
          std::pair(options.printEntries, "--print-entries")})
      if (given)
        die(std::string("--ranks and ") + name + " cannot be given together");
  }
  if (!options.parameterPaths.empty() && !options.weightsDir.empty())
    die("--parameters and --weights cannot be given together (both bind the "
        "program's weights)");
  return runProgram(options);
}
