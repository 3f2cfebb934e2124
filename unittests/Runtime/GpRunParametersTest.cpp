//===- GpRunParametersTest.cpp - gp-run --parameters, end to end ----------===//
//
// Runs gp-run on the hand-written host artifact of ParameterArtifact.cpp,
// whose entries take named parameters, with --parameters from a directory
// of .npy files and from a .safetensors file, and checks the results, the
// report line and every error a user can hit (a missing parameter, another
// dtype or shape, a truncated or malformed file), each naming the
// parameter and the file with exit status 1. test/Runtime/gp-run-
// parameters*.test do the same with programs gp-compile compiles.
//
//===----------------------------------------------------------------------===//

#include "ElementType.h"
#include "Npy.h"

#include "GraphPart/Runtime/GPRuntime.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

using gp::run::Array;

const char *kArtifact = GP_TEST_PARAMETER_ARTIFACT;
const char *kGpRun = GP_TEST_GP_RUN;

Array f32(std::vector<int64_t> shape, std::vector<float> values,
          const char *type = "f32") {
  Array array;
  array.type = gp::run::findElementType(type);
  array.shape = std::move(shape);
  array.data.resize(array.count() * array.type->bytes);
  for (size_t i = 0; i < values.size(); ++i)
    gp::run::setElement(array, i, values[i]);
  return array;
}

/// The parameters the artifact takes, good values.
std::map<std::string, Array> goodParameters() {
  return {{"layer.weight", f32({4}, {1, 2, 3, 4})},
          {"layer.bias", f32({4}, {10, 20, 30, 40})},
          {"table", f32({3, 2}, {1, 2, 3, 4, 5, 6})},
          {"matrix", f32({2, 2}, {1, 2, 3, 4})}};
}

/// A safetensors file of `tensors` (dtype from the element type), with
/// `extraHeader` spliced into the JSON.
std::string safetensors(const std::map<std::string, Array> &tensors) {
  std::string json = "{\"__metadata__\": {\"format\": \"pt\"}", data;
  for (const auto &[name, array] : tensors) {
    std::string dtype = std::string(array.type->name) == "f64" ? "F64"
                        : std::string(array.type->name) == "i64" ? "I64"
                                                                 : "F32";
    std::string shape;
    for (int64_t size : array.shape)
      shape += (shape.empty() ? "" : ", ") + std::to_string(size);
    json += ", \"" + name + "\": {\"dtype\": \"" + dtype + "\", \"shape\": [" +
            shape + "], \"data_offsets\": [" + std::to_string(data.size()) +
            ", " + std::to_string(data.size() + array.data.size()) + "]}";
    data.append(array.data.begin(), array.data.end());
  }
  json += "}";
  while (json.size() % 8)
    json += ' '; // Padding, as the format allows.
  std::string file(8, '\0');
  uint64_t length = json.size();
  for (int i = 0; i < 8; ++i)
    file[i] = static_cast<char>(length >> (8 * i));
  return file + json + data;
}

class GpRunParametersTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "gp-run-parameters-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    ASSERT_TRUE(mkdtemp(buffer.data()));
    dir = buffer.data();
  }
  void TearDown() override {
    std::string command = "rm -rf '" + dir + "'";
    EXPECT_EQ(std::system(command.c_str()), 0);
  }

  void writeNpyDir(const std::string &sub,
                   const std::map<std::string, Array> &tensors) {
    ASSERT_EQ(mkdir((dir + "/" + sub).c_str(), 0755), 0);
    for (const auto &[name, array] : tensors) {
      std::string error;
      ASSERT_TRUE(
          gp::run::writeNpy(dir + "/" + sub + "/" + name + ".npy", array, error))
          << error;
    }
  }
  std::string writeFile(const std::string &name, const std::string &bytes) {
    std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  /// Runs gp-run on the artifact with `arguments`; its exit status in
  /// `status`, its stdout and stderr returned.
  std::string run(const std::string &arguments, int &status,
                  const char *artifact = kArtifact) {
    std::string command = std::string("'") + kGpRun + "' '" + artifact +
                          "' --iterations 2 " + arguments + " 2>&1";
    FILE *pipe = popen(command.c_str(), "r");
    std::string output;
    char chunk[4096];
    while (size_t n = std::fread(chunk, 1, sizeof(chunk), pipe))
      output.append(chunk, n);
    int raw = pclose(pipe);
    status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    return output;
  }
  std::vector<float> result(const std::string &path) {
    Array array;
    std::string error;
    EXPECT_TRUE(gp::run::readNpy(path, array, error)) << error;
    std::vector<float> values;
    for (int64_t i = 0; i < array.count(); ++i)
      values.push_back(gp::run::element(array, i));
    return values;
  }

  std::string dir;
};

#define EXPECT_CONTAINS(text, needle)                                          \
  EXPECT_NE((text).find(needle), std::string::npos) << (text)

TEST_F(GpRunParametersTest, FromADirectoryOfNpyFiles) {
  writeNpyDir("p", goodParameters());
  int status = 0;
  std::string out = run("--entry affine --parameters " + dir +
                            "/p --input 4xf32=1 --output " + dir + "/y.npy",
                        status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_CONTAINS(out, "parameters: 4 bound by name from '" + dir + "/p'\n");
  EXPECT_EQ(result(dir + "/y.npy"), (std::vector<float>{11, 22, 33, 44}));
  // An entry that takes only parameters needs no --input; a strided one
  // takes the row-major copy.
  out = run("--entry column --parameters " + dir + "/p --output " + dir +
                "/c.npy",
            status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(result(dir + "/c.npy"), (std::vector<float>{1, 3}));
  // --check: fresh user inputs, the parameters stay bound.
  out = run("--entry affine --parameters " + dir +
                "/p --input 4xf32=random --check",
            status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_CONTAINS(out, "check: ok");
  // --weights DIR binds the same way, by name, when the program names them.
  out = run("--entry affine --weights " + dir + "/p --input 4xf32=1 --output " +
                dir + "/w.npy",
            status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(result(dir + "/w.npy"), (std::vector<float>{11, 22, 33, 44}));
}

TEST_F(GpRunParametersTest, FromASafetensorsFile) {
  std::map<std::string, Array> tensors = goodParameters();
  tensors["unused.weight"] = f32({2}, {0, 0});
  std::string path = writeFile("p.safetensors", safetensors(tensors));
  int status = 0;
  std::string out = run("--entry scale --parameters " + path +
                            " --input 4xf32=2 --output " + dir + "/y.npy",
                        status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_CONTAINS(out, "parameters: 4 bound by name from '" + path +
                           "' (1 other tensor(s) there, not taken by the "
                           "program)");
  EXPECT_EQ(result(dir + "/y.npy"), (std::vector<float>{2, 4, 6, 8}));
  out = run("--entry rowsum --parameters=" + path + " --output " + dir +
                "/r.npy",
            status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(result(dir + "/r.npy"), (std::vector<float>{9, 12}));
}

TEST_F(GpRunParametersTest, WithoutParametersTheyAreInputs) {
  int status = 0;
  std::string out = run("--entry affine --input 4xf32=1 --input 4xf32=2 "
                        "--input 4xf32=3 --output " +
                            dir + "/y.npy",
                        status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(result(dir + "/y.npy"), (std::vector<float>{5, 5, 5, 5}));
  out = run("--print-entries", status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_CONTAINS(out, "entry affine\narg 4xf32=random cpu\n"
                       "arg 4xf32=random cpu parameter=layer.weight\n"
                       "arg 4xf32=random cpu parameter=layer.bias\n");
  EXPECT_CONTAINS(out, "arg 8x2xf32=random cpu dynamic-dims=0 "
                       "parameter=table\n");
}

TEST_F(GpRunParametersTest, ErrorsNameTheParameterAndTheFile) {
  std::map<std::string, Array> good = goodParameters();
  auto expectError = [&](const std::string &arguments,
                         const std::string &message) {
    int status = 0;
    std::string out = run(arguments, status);
    EXPECT_EQ(status, 1) << arguments << "\n" << out;
    EXPECT_CONTAINS(out, "gp-run: error: " + message);
    EXPECT_EQ(out.find("latency"), std::string::npos) << "nothing may run";
  };
  // Missing.
  std::map<std::string, Array> missing = good;
  missing.erase("table");
  writeNpyDir("missing", missing);
  expectError("--entry affine --input 4xf32=1 --parameters " + dir +
                  "/missing",
              "--parameters: parameter 'table' of the program: no file '" +
                  dir + "/missing/table.npy'");
  std::string file = writeFile("missing.safetensors", safetensors(missing));
  expectError("--entry affine --input 4xf32=1 --parameters " + file,
              "--parameters: parameter 'table' of the program: '" + file +
                  "' holds no tensor of that name");
  // Another dtype, another shape.
  std::map<std::string, Array> wrongType = good;
  wrongType["layer.bias"] = f32({4}, {1, 2, 3, 4}, "f64");
  file = writeFile("type.safetensors", safetensors(wrongType));
  expectError("--entry affine --input 4xf32=1 --parameters " + file,
              "--parameters: parameter 'layer.bias' is f32 [4]; '" + file +
                  "' holds f64 [4]");
  writeNpyDir("type", wrongType);
  expectError("--entry affine --input 4xf32=1 --parameters " + dir + "/type",
              "--parameters: parameter 'layer.bias' is f32 [4]; '" + dir +
                  "/type/layer.bias.npy' holds f64 [4]");
  std::map<std::string, Array> wrongShape = good;
  wrongShape["table"] = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  file = writeFile("shape.safetensors", safetensors(wrongShape));
  expectError("--entry affine --input 4xf32=1 --parameters " + file,
              "--parameters: parameter 'table' is f32 [?, 2]; '" + file +
                  "' holds f32 [2, 3]");
  // Files that are not safetensors, or not whole.
  std::string whole = safetensors(good);
  file = writeFile("short.safetensors", whole.substr(0, 4));
  expectError("--parameters " + file,
              "--parameters: '" + file +
                  "' is not a safetensors file (shorter than its 8-byte "
                  "header length)");
  file = writeFile("truncated.safetensors", whole.substr(0, 40));
  expectError("--parameters " + file,
              "--parameters: '" + file +
                  "' is not a safetensors file: its header length");
  file = writeFile("cut.safetensors", whole.substr(0, whole.size() - 4));
  expectError("--parameters " + file,
              "--parameters: '" + file + "': bad safetensors header: tensor '");
  std::string bad = whole;
  bad[8] = '['; // Not an object.
  file = writeFile("bad.safetensors", bad);
  expectError("--parameters " + file, "--parameters: '" + file +
                                          "': bad safetensors header: ");
  expectError("--parameters " + dir + "/nothing",
              "--parameters: '" + dir + "/nothing' does not exist");
  // Inputs are counted without the parameters.
  writeNpyDir("good", good);
  expectError("--entry affine --parameters " + dir +
                  "/good --input 4xf32=1 --input 4xf32=1",
              "entry 'affine' takes 1 argument(s) besides its 2 parameter(s) "
              "from --parameters; 2 --input given");
  expectError("--parameters " + dir + "/good --weights " + dir + "/good",
              "--parameters and --weights cannot be given together");
}

// On the cuda backend the parameters go into device memory, which the
// runtime checks when they are bound.
TEST_F(GpRunParametersTest, IntoDeviceMemoryOnCuda) {
  if (gpRtBackendAvailable(GP_RT_BACKEND_CUDA) != GP_RT_SUCCESS)
    GTEST_SKIP() << "no usable CUDA device: " << gpRtGetLastError();
  Array w;
  w.type = gp::run::findElementType("i64");
  w.shape = {1};
  w.data.resize(8);
  gp::run::setElement(w, 0, 10);
  writeNpyDir("w", {{"w", w}});
  int status = 0;
  std::string out = run("--parameters " + dir + "/w --input 1xi64=5 --check " +
                            "--output " + dir + "/y.npy",
                        status, GP_TEST_PARAMETER_CUDA_ARTIFACT);
  EXPECT_EQ(status, 0) << out;
  EXPECT_CONTAINS(out, "check: ok");
  EXPECT_EQ(result(dir + "/y.npy"), std::vector<float>{15});
}

} // namespace
