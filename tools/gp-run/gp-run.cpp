//===- gp-run.cpp - run GraphPart programs --------------------------------===//
//
// Loads an artifact made by gp-compile, creates its inputs, runs an entry
// point (captured partitions replay after their warm-up), reports per-step
// latency and the runtime's counters, and with --check compares the results
// against an eager run of the same artifact. Needs only the runtime.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Runtime/GPRuntime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

void printUsage(FILE *out) {
  std::fprintf(
      out,
      "usage: gp-run PROGRAM.so [options]\n"
      "       gp-run --list-backends | --version | --help\n"
      "\n"
      "  --entry NAME          entry point (default: the first); repeat it\n"
      "                        to make a step of several calls (forward,\n"
      "                        backward), their inputs given in order\n"
      "  --input SPEC          one per argument, in order:\n"
      "                          8x256xf32=random   random values (--seed)\n"
      "                          2x2xf32=1.5        a constant\n"
      "                          @file.npy          from a .npy file\n"
      "                          5                  an index argument\n"
      "  --backend host|cuda   (default: the artifact's target)\n"
      "  --device N            cuda device index (default: the program's)\n"
      "  --warmup W            untimed calls first (default 1)\n"
      "  --iterations N        timed calls (default 10)\n"
      "  --check               compare with an eager run of the program\n"
      "  --no-capture          run every partition eagerly (a baseline)\n"
      "  --rtol R --atol A     float tolerance for --check (1e-5, 1e-6)\n"
      "  --output PATH.npy     write the results (PATH.N.npy when several)\n"
      "  --extern-lib PATH     load user externs (gp_register_externs)\n"
      "  --print-partitions    print the partition table\n"
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

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "gp-run: error: %s\n", message.c_str());
  std::exit(1);
}

void check(gpRtStatus status, const std::string &what) {
  if (status != GP_RT_SUCCESS)
    die(what + ": " + gpRtStatusString(status) + ": " + gpRtGetLastError());
}

/// Element types gp-run can create and compare, with their .npy names.
struct ElementType {
  const char *name, *npy;
  int bytes;
  bool isFloat;
};
const ElementType kElementTypes[] = {
    {"f32", "<f4", 4, true},  {"f64", "<f8", 8, true},
    {"f16", "<f2", 2, true},  {"i64", "<i8", 8, false},
    {"i32", "<i4", 4, false}, {"i16", "<i2", 2, false},
    {"i8", "|i1", 1, false},  {"i1", "|b1", 1, false},
    {"f8E4M3FN", "|u1", 1, false},
};
const ElementType *findElementType(const std::string &name) {
  for (const ElementType &type : kElementTypes)
    if (name == type.name)
      return &type;
  return nullptr;
}

/// A host-side array: an argument's or a result's values.
struct Array {
  const ElementType *type = nullptr;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
};

double element(const Array &a, int64_t i) {
  const uint8_t *p = a.data.data() + i * a.type->bytes;
  std::string n = a.type->name;
  if (n == "f32") { float v; std::memcpy(&v, p, 4); return v; }
  if (n == "f64") { double v; std::memcpy(&v, p, 8); return v; }
  if (n == "i64") { int64_t v; std::memcpy(&v, p, 8); return v; }
  if (n == "i32") { int32_t v; std::memcpy(&v, p, 4); return v; }
  if (n == "i16") { int16_t v; std::memcpy(&v, p, 2); return v; }
  if (n == "i8") { int8_t v; std::memcpy(&v, p, 1); return v; }
  if (n == "f16") { uint16_t v; std::memcpy(&v, p, 2); return v; } // bits
  return *p;
}

void setElement(Array &a, int64_t i, double value) {
  uint8_t *p = a.data.data() + i * a.type->bytes;
  std::string n = a.type->name;
  if (n == "f32") { float v = value; std::memcpy(p, &v, 4); }
  else if (n == "f64") { std::memcpy(p, &value, 8); }
  else if (n == "i64") { int64_t v = value; std::memcpy(p, &v, 8); }
  else if (n == "i32") { int32_t v = value; std::memcpy(p, &v, 4); }
  else if (n == "i16") { int16_t v = value; std::memcpy(p, &v, 2); }
  else if (n == "i8") { int8_t v = value; std::memcpy(p, &v, 1); }
  else if (n == "i1") { *p = value != 0; }
  else if (n == "f16") { uint16_t v = 0x3C00; std::memcpy(p, &v, 2); } // 1.0
  else { *p = static_cast<uint8_t>(value); }
}

Array readNpy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    die("cannot open '" + path + "'");
  char magic[8];
  in.read(magic, 8);
  if (in.gcount() != 8 || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    die("'" + path + "' is not a .npy file");
  uint32_t headerLength = 0;
  if (magic[6] == 1) {
    uint16_t length;
    in.read(reinterpret_cast<char *>(&length), 2);
    headerLength = length;
  } else {
    in.read(reinterpret_cast<char *>(&headerLength), 4);
  }
  std::string header(headerLength, '\0');
  in.read(header.data(), headerLength);
  auto field = [&](const std::string &key) {
    size_t at = header.find("'" + key + "'");
    if (at == std::string::npos)
      die("'" + path + "': header lacks " + key);
    return header.substr(header.find(':', at) + 1);
  };
  std::string descr = field("descr");
  descr = descr.substr(descr.find('\'') + 1);
  descr = descr.substr(0, descr.find('\''));
  if (field("fortran_order").find("True") < 6)
    die("'" + path + "': fortran order is not supported");
  Array array;
  for (const ElementType &type : kElementTypes)
    if (descr == type.npy && std::string(type.name) != "f8E4M3FN")
      array.type = &type;
  if (!array.type)
    die("'" + path + "': unsupported dtype " + descr);
  std::string shape = field("shape");
  shape = shape.substr(shape.find('(') + 1, shape.find(')') - shape.find('(') - 1);
  std::stringstream dims(shape);
  std::string dim;
  while (std::getline(dims, dim, ','))
    if (dim.find_first_of("0123456789") != std::string::npos)
      array.shape.push_back(std::stoll(dim));
  array.data.resize(array.count() * array.type->bytes);
  in.read(reinterpret_cast<char *>(array.data.data()), array.data.size());
  if (in.gcount() != static_cast<std::streamsize>(array.data.size()))
    die("'" + path + "': truncated data");
  return array;
}

void writeNpy(const std::string &path, const Array &array) {
  std::string shape = "(";
  for (int64_t d : array.shape)
    shape += std::to_string(d) + ",";
  if (array.shape.size() > 1)
    shape.pop_back();
  shape += ")";
  std::string header = std::string("{'descr': '") + array.type->npy +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(path, std::ios::binary);
  if (!out)
    die("cannot write '" + path + "'");
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t length = header.size();
  out.write(reinterpret_cast<const char *>(&length), 2);
  out << header;
  out.write(reinterpret_cast<const char *>(array.data.data()),
            array.data.size());
}

/// An argument as given on the command line.
struct Input {
  bool isIndex = false;
  int64_t index = 0;
  Array array;
};

Input parseInput(const std::string &spec, const gpRtValueInfo &info,
                 int position, std::mt19937_64 &random) {
  std::string where = "--input " + std::to_string(position) + " ('" + spec + "')";
  Input input;
  if (!info.isBuffer) {
    char *end = nullptr;
    input.index = std::strtoll(spec.c_str(), &end, 10);
    if (spec.empty() || *end)
      die(where + ": argument " + std::to_string(position) +
          " is an index; give an integer");
    input.isIndex = true;
    return input;
  }
  if (!spec.empty() && spec[0] == '@') {
    input.array = readNpy(spec.substr(1));
  } else {
    size_t eq = spec.find('=');
    if (eq == std::string::npos)
      die(where + ": expected SHAPExTYPE=VALUE or @file.npy");
    std::string type = spec.substr(0, eq), value = spec.substr(eq + 1);
    std::vector<std::string> parts;
    std::stringstream stream(type);
    std::string part;
    while (std::getline(stream, part, 'x'))
      parts.push_back(part);
    if (parts.empty())
      die(where + ": no element type");
    input.array.type = findElementType(parts.back());
    if (!input.array.type)
      die(where + ": unknown element type '" + parts.back() + "'");
    parts.pop_back();
    for (const std::string &dim : parts) {
      char *end = nullptr;
      long long size = std::strtoll(dim.c_str(), &end, 10);
      if (dim.empty() || *end || size < 0)
        die(where + ": bad dimension '" + dim + "'");
      input.array.shape.push_back(size);
    }
    input.array.data.resize(input.array.count() * input.array.type->bytes);
    bool isRandom = value == "random";
    double constant = 0;
    if (!isRandom) {
      char *end = nullptr;
      constant = std::strtod(value.c_str(), &end);
      if (value.empty() || *end)
        die(where + ": the value must be 'random' or a number");
    }
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::uniform_int_distribution<int> small(0, 7);
    for (int64_t i = 0; i < input.array.count(); ++i)
      setElement(input.array, i,
                 !isRandom                    ? constant
                 : input.array.type->isFloat  ? uniform(random)
                                              : small(random));
  }
  if (input.array.type->name != std::string(info.elementType))
    die(where + ": element type " + input.array.type->name +
        ", but the entry takes " + info.elementType);
  if (static_cast<int32_t>(input.array.shape.size()) != info.rank)
    die(where + ": rank " + std::to_string(input.array.shape.size()) +
        ", but the entry takes rank " + std::to_string(info.rank));
  for (int32_t d = 0; d < info.rank; ++d)
    if (info.shape[d] >= 0 && info.shape[d] != input.array.shape[d])
      die(where + ": dimension " + std::to_string(d) + " is " +
          std::to_string(input.array.shape[d]) + ", but the entry takes " +
          std::to_string(info.shape[d]));
  return input;
}

/// An argument placed in a program's memory, as the entry point takes it.
struct Placed {
  std::vector<uint8_t> storage; // a gpRtMemRef or an int64_t
  void *memory = nullptr;
  bool inProgramMemory = false;
};

bool isHostDevice(const char *device) { return std::string(device) == "cpu"; }
bool isMetaDevice(const char *device) { return std::string(device) == "meta"; }

Placed place(gpRtProgram *program, const Input &input,
             const gpRtValueInfo &info, bool cudaBackend) {
  Placed placed;
  if (input.isIndex) {
    placed.storage.resize(8);
    std::memcpy(placed.storage.data(), &input.index, 8);
    return placed;
  }
  int32_t rank = info.rank;
  placed.storage.resize(GP_RT_MEMREF_BYTES(rank));
  auto *ref = reinterpret_cast<gpRtMemRef *>(placed.storage.data());
  int64_t stride = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    ref->shape[d] = input.array.shape[d];
    ref->shape[rank + d] = stride;
    stride *= input.array.shape[d];
  }
  ref->offset = 0;
  if (isMetaDevice(info.device)) // Sizes only: meta tensors have no data.
    return placed;
  int64_t bytes = input.array.data.size();
  if (isHostDevice(info.device) || !cudaBackend) {
    placed.memory = std::aligned_alloc(256, std::max<int64_t>(256, (bytes + 255) / 256 * 256));
  } else {
    check(gpRtProgramAllocate(program, bytes, &placed.memory), "allocate input");
    placed.inProgramMemory = true;
  }
  ref->allocated = ref->aligned = placed.memory;
  return placed;
}

void upload(gpRtProgram *program, Placed &placed, const Input &input) {
  if (input.isIndex || !placed.memory)
    return;
  if (placed.inProgramMemory)
    check(gpRtCopyToProgram(program, placed.memory, input.array.data.data(),
                            input.array.data.size()),
          "copy input");
  else
    std::memcpy(placed.memory, input.array.data.data(), input.array.data.size());
}

void release(gpRtProgram *program, Placed &placed) {
  if (placed.inProgramMemory)
    gpRtProgramFree(program, placed.memory);
  else
    std::free(placed.memory);
  placed.memory = nullptr;
}

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

  void load(const std::string &path, gpRtBackend backend, int32_t device,
            const std::vector<std::string> &entryNames) {
    check(gpRtArtifactLoad(path.c_str(), backend, device, &artifact),
          "load " + path);
    check(gpRtArtifactGetProgram(artifact, &program), "program");
    cudaBackend = backend == GP_RT_BACKEND_CUDA;
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
  /// Every call's argument descriptions, in order.
  std::vector<gpRtValueInfo> argInfos() const {
    std::vector<gpRtValueInfo> infos;
    for (const Call &call : calls)
      infos.insert(infos.end(), call.info.args,
                   call.info.args + call.info.numArgs);
    return infos;
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
      for (int32_t i = 0; i < call.info.numArgs; ++i, ++next)
        call.args.push_back(::place(program, inputs[next], call.info.args[i],
                                    cudaBackend));
  }
  void upload(const std::vector<Input> &inputs) {
    size_t next = 0;
    for (Call &call : calls)
      for (Placed &arg : call.args)
        ::upload(program, arg, inputs[next++]);
  }
  /// Runs one step and returns the microseconds its calls took; with
  /// `fetched`, brings each call's results back right after it (a later
  /// call of the same entry reuses their memory), outside the timing.
  double step(std::vector<Array> *fetched = nullptr) {
    double micros = 0;
    for (Call &call : calls) {
      auto start = std::chrono::steady_clock::now();
      std::vector<void *> argPointers, resultPointers;
      for (Placed &arg : call.args)
        argPointers.push_back(arg.storage.data());
      for (auto &result : call.results)
        resultPointers.push_back(result.data());
      check(gpRtArtifactCall(artifact, call.entry, argPointers.data(),
                             resultPointers.data()),
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
    for (Call &call : calls)
      for (Placed &arg : call.args)
        release(program, arg);
    if (artifact)
      gpRtArtifactUnload(artifact);
  }
};

/// Compares results: exact for integers, |a-b| <= atol + rtol*|b| for
/// floats. Returns the number of mismatching elements, and prints the first.
int64_t compare(const std::vector<Array> &got, const std::vector<Array> &want,
                double rtol, double atol) {
  int64_t mismatches = 0;
  for (size_t r = 0; r < got.size(); ++r) {
    if (got[r].shape != want[r].shape) {
      std::printf("check: result %zu: shapes differ\n", r);
      ++mismatches;
      continue;
    }
    for (int64_t i = 0; i < got[r].count(); ++i) {
      double a = element(got[r], i), b = element(want[r], i);
      bool same = got[r].type->isFloat && std::string(got[r].type->name) != "f16"
                      ? a == b || (std::isnan(a) && std::isnan(b)) ||
                            std::fabs(a - b) <= atol + rtol * std::fabs(b)
                      : std::memcmp(got[r].data.data() + i * got[r].type->bytes,
                                    want[r].data.data() + i * want[r].type->bytes,
                                    got[r].type->bytes) == 0;
      if (!same && mismatches++ == 0)
        std::printf("check: result %zu element %lld: %g (captured) vs %g "
                    "(eager)\n",
                    r, static_cast<long long>(i), a, b);
    }
  }
  return mismatches;
}

} // namespace

int main(int argc, char **argv) {
  std::string path, output, backendName;
  std::vector<std::string> inputSpecs, externLibs, entryNames;
  int32_t device = -1; // The artifact's.
  int64_t warmup = 1, iterations = 10;
  uint64_t seed = 0;
  double rtol = 1e-5, atol = 1e-6;
  bool doCheck = false, printPartitions = false, noCapture = false,
       printEntries = false;
  if (argc < 2) {
    printUsage(stderr);
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        die(arg + " needs a value");
      return argv[++i];
    };
    auto number = [&]() -> long long {
      std::string text = value();
      char *end = nullptr;
      long long n = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end || n < 0)
        die(arg + " takes a non-negative integer, not '" + text + "'");
      return n;
    };
    auto real = [&]() -> double {
      std::string text = value();
      char *end = nullptr;
      double n = std::strtod(text.c_str(), &end);
      if (text.empty() || *end || n < 0)
        die(arg + " takes a non-negative number, not '" + text + "'");
      return n;
    };
    if (arg == "--help" || arg == "-h") {
      printUsage(stdout);
      return 0;
    } else if (arg == "--version") {
      std::printf("gp-run (GraphPart runtime %s)\n", gpRtVersion());
      return 0;
    } else if (arg == "--list-backends") {
      return listBackends();
    } else if (arg == "--entry") {
      entryNames.push_back(value());
    } else if (arg == "--input") {
      inputSpecs.push_back(value());
    } else if (arg == "--backend") {
      backendName = value();
    } else if (arg == "--device") {
      device = number();
    } else if (arg == "--warmup") {
      warmup = number();
    } else if (arg == "--iterations") {
      iterations = number();
    } else if (arg == "--check") {
      doCheck = true;
    } else if (arg == "--no-capture") {
      noCapture = true;
    } else if (arg == "--rtol") {
      rtol = real();
    } else if (arg == "--atol") {
      atol = real();
    } else if (arg == "--output") {
      output = value();
    } else if (arg == "--extern-lib") {
      externLibs.push_back(value());
    } else if (arg == "--print-partitions") {
      printPartitions = true;
    } else if (arg == "--print-entries") {
      printEntries = true;
    } else if (arg == "--seed") {
      seed = number();
    } else if (!arg.empty() && arg[0] == '-') {
      std::fprintf(stderr, "gp-run: unknown argument '%s'\n", arg.c_str());
      printUsage(stderr);
      return 2;
    } else if (path.empty()) {
      path = arg;
    } else {
      die("more than one program given ('" + path + "', '" + arg + "')");
    }
  }
  if (path.empty())
    die("no program given");
  if (iterations < 1)
    die("--iterations must be at least 1");
  for (const std::string &lib : externLibs)
    check(gpRtLoadExternLibrary(lib.c_str()), "--extern-lib");

  // The backend: as asked, else the artifact's target.
  gpRtBackend backend = gpRtDefaultBackend();
  bool backendGiven = !backendName.empty();
  if (backendGiven)
    check(gpRtParseBackend(backendName.c_str(), &backend), "--backend");
  Session run;
  {
    gpRtArtifact *probe = nullptr;
    if (!backendGiven &&
        gpRtArtifactLoad(path.c_str(), backend, device, &probe) !=
            GP_RT_SUCCESS)
      backend = backend == GP_RT_BACKEND_CUDA ? GP_RT_BACKEND_HOST
                                              : GP_RT_BACKEND_CUDA;
    if (probe)
      gpRtArtifactUnload(probe);
  }
  run.load(path, backend, device, entryNames);
  if (noCapture)
    check(gpRtProgramSetCaptureEnabled(run.program, 0), "--no-capture");

  if (printEntries) {
    // One line per value: `entry NAME`, then `arg SPEC DEVICE` where SPEC
    // is an --input template (8 for dynamic sizes), `result TYPE DEVICE`
    // (? for dynamic sizes).
    auto describe = [](const gpRtValueInfo &value, bool asInput) {
      if (!value.isBuffer)
        return std::string(asInput ? "4 index" : "index");
      std::string spec;
      for (int32_t d = 0; d < value.rank; ++d)
        spec += value.shape[d] < 0 && !asInput
                    ? std::string("?x")
                    : std::to_string(value.shape[d] < 0 ? 8 : value.shape[d]) +
                          "x";
      return spec + value.elementType + (asInput ? "=random " : " ") +
             value.device;
    };
    for (int32_t e = 0; e < gpRtArtifactNumEntries(run.artifact); ++e) {
      gpRtEntryInfo info;
      check(gpRtArtifactGetEntry(run.artifact, e, &info), "entry");
      std::printf("entry %s\n", info.name);
      for (int32_t i = 0; i < info.numArgs; ++i)
        std::printf("arg %s\n", describe(info.args[i], true).c_str());
      for (int32_t i = 0; i < info.numResults; ++i)
        std::printf("result %s\n", describe(info.results[i], false).c_str());
    }
    return 0;
  }

  if (printPartitions) {
    int32_t count = gpRtArtifactNumPartitions(run.artifact);
    std::printf("partitions: %d (target %s)\n", count,
                gpRtArtifactTarget(run.artifact));
    for (int32_t i = 0; i < count; ++i) {
      gpRtPartitionInfo info;
      check(gpRtArtifactGetPartition(run.artifact, i, &info), "partition");
      std::printf("  partition %d: %s, shape key of %d symbol(s)%s%s\n", i,
                  info.capturable ? "capturable" : "eager",
                  info.numShapeSymbols,
                  info.capturable ? "" : ": ", info.capturable ? "" : info.reasons);
    }
  }

  std::vector<gpRtValueInfo> argInfos = run.argInfos();
  if (inputSpecs.size() != argInfos.size())
    die("entry '" + run.entryNames() + "' takes " +
        std::to_string(argInfos.size()) + " argument(s); " +
        std::to_string(inputSpecs.size()) + " --input given");
  std::mt19937_64 random(seed);
  std::vector<Input> inputs;
  for (size_t i = 0; i < argInfos.size(); ++i)
    inputs.push_back(parseInput(inputSpecs[i], argInfos[i], i, random));
  run.place(inputs);
  run.upload(inputs);

  for (int64_t i = 0; i < warmup; ++i)
    run.step();
  std::vector<double> micros;
  std::vector<Array> results;
  for (int64_t i = 0; i < iterations; ++i) {
    // Without --check, the last step's results are the ones reported.
    bool last = i + 1 == iterations && !doCheck;
    micros.push_back(run.step(last ? &results : nullptr));
  }
  std::sort(micros.begin(), micros.end());
  double median = micros[micros.size() / 2];
  double p90 = micros[std::min(micros.size() - 1, micros.size() * 9 / 10)];

  int status = 0;
  if (doCheck) {
    // The captured run from the original inputs (replays: same addresses),
    // then an eager instance's run, at the same call, from the same inputs.
    run.upload(inputs);
    run.step(&results);
    Session eager;
    eager.load(path, backend, device, entryNames);
    check(gpRtProgramSetCaptureEnabled(eager.program, 0), "eager run");
    eager.place(inputs);
    // As many calls as the captured instance made, so stateful programs
    // (RNG offsets advance per call) are compared at the same call.
    for (int64_t i = 0; i < warmup + iterations; ++i) {
      eager.upload(inputs);
      eager.step();
    }
    eager.upload(inputs);
    std::vector<Array> expected;
    eager.step(&expected);
    int64_t mismatches = compare(results, expected, rtol, atol);
    if (mismatches) {
      std::printf("check: FAILED: %lld element(s) differ from the eager run\n",
                  static_cast<long long>(mismatches));
      status = 1;
    } else {
      std::printf("check: ok: %zu result(s) match the eager run\n",
                  results.size());
    }
  }

  gpRtStats stats;
  check(gpRtProgramGetStats(run.program, &stats), "stats");
  std::printf("entry: %s  backend: %s  warmup: %lld  iterations: %lld\n",
              run.entryNames().c_str(), gpRtBackendName(backend),
              static_cast<long long>(warmup),
              static_cast<long long>(iterations));
  std::printf("latency per step: median %.2f us, p90 %.2f us\n", median, p90);
  std::printf("captures: %lld  replays: %lld  updates: %lld  "
              "instantiations: %lld  eager runs: %lld  warm-up runs: %lld  "
              "shape warnings: %lld\n",
              static_cast<long long>(stats.captures),
              static_cast<long long>(stats.replays),
              static_cast<long long>(stats.updates),
              static_cast<long long>(stats.instantiations),
              static_cast<long long>(stats.eagerRuns),
              static_cast<long long>(stats.warmupRuns),
              static_cast<long long>(stats.shapeWarnings));
  std::printf("pool bytes: %lld\n", static_cast<long long>(stats.poolBytes));

  if (!output.empty()) {
    for (size_t i = 0; i < results.size(); ++i) {
      std::string file = output;
      if (results.size() > 1) {
        size_t dot = file.rfind(".npy");
        std::string index = "." + std::to_string(i);
        file = dot == std::string::npos ? file + index + ".npy"
                                        : file.substr(0, dot) + index + ".npy";
      }
      writeNpy(file, results[i]);
      std::printf("wrote %s\n", file.c_str());
    }
  }
  return status;
}
