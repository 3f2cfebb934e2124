//===- ParameterTest.cpp - named parameters, bound once -------------------===//
//
// The `parameter <name>` manifest token, gpRtArtifactBindParameter and
// calls that pass NULL for parameters, on the hand-written host artifact of
// ParameterArtifact.cpp (and, with a GPU, the cuda one of
// ParameterCudaArtifact.cpp): the results, bindings seen in place and
// re-bound in captured graphs, every check a binding makes, and
// gpRtArtifactCallOnStream (ordering on a caller's stream, with a GPU). The
// test with threads rebinding while others call is in ProgramTest.cpp,
// whose tests ThreadSanitizer runs (scripts/sanitized-tests.sh).
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Runtime/GPRuntime.h"
#include "ParameterPtx.h"
#include "ParameterTestSupport.h"
#include "TensorTestSupport.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

using namespace gp::test;

namespace {

class ParameterTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(ParameterArtifactLibrary::get().setManifest)
        << ParameterArtifactLibrary::get().error;
    ParameterArtifactLibrary::get().setManifest(nullptr);
    ASSERT_EQ(gpRtArtifactLoad(kParameterArtifact, GP_RT_BACKEND_HOST, -1,
                               &artifact),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
  }
  void TearDown() override {
    if (artifact)
      EXPECT_EQ(gpRtArtifactUnload(artifact), GP_RT_SUCCESS);
  }

  int32_t entry(const char *name) {
    int32_t index = -1;
    EXPECT_EQ(gpRtArtifactFindEntry(artifact, name, &index), GP_RT_SUCCESS);
    return index;
  }
  /// Calls `name` with `args` and returns its f32 result's values (empty
  /// on failure, with the status in `status`).
  std::vector<float> call(const char *name, std::vector<void *> args,
                          gpRtStatus *status = nullptr) {
    Vec1 result{};
    void *results[] = {&result};
    gpRtStatus got = gpRtArtifactCall(artifact, entry(name), args.data(),
                                      results);
    if (status)
      *status = got;
    else
      EXPECT_EQ(got, GP_RT_SUCCESS) << gpRtGetLastError();
    if (got != GP_RT_SUCCESS)
      return {};
    return std::vector<float>(result.aligned + result.offset,
                              result.aligned + result.offset + result.size);
  }
  gpRtStatus bind(const char *name, const void *descriptor,
                  const char *type = "f32") {
    return gpRtArtifactBindParameter(artifact, name, type, descriptor);
  }
  gpRtStats stats() {
    gpRtProgram *program = nullptr;
    EXPECT_EQ(gpRtArtifactGetProgram(artifact, &program), GP_RT_SUCCESS);
    gpRtStats result{};
    EXPECT_EQ(gpRtProgramGetStats(program, &result), GP_RT_SUCCESS);
    return result;
  }

  gpRtArtifact *artifact = nullptr;
};

TEST_F(ParameterTest, TableListsEachNameOnceInFirstAppearanceOrder) {
  ASSERT_EQ(gpRtArtifactNumParameters(artifact), 4);
  const char *names[] = {"layer.weight", "layer.bias", "table", "matrix"};
  for (int32_t i = 0; i < 4; ++i) {
    gpRtParameterInfo info{};
    ASSERT_EQ(gpRtArtifactGetParameter(artifact, i, &info), GP_RT_SUCCESS);
    EXPECT_STREQ(info.name, names[i]);
    EXPECT_STREQ(info.elementType, "f32");
    EXPECT_STREQ(info.device, "cpu");
    EXPECT_EQ(info.bound, 0);
  }
  gpRtParameterInfo table{};
  ASSERT_EQ(gpRtArtifactGetParameter(artifact, 2, &table), GP_RT_SUCCESS);
  ASSERT_EQ(table.rank, 2);
  EXPECT_EQ(table.shape[0], -1);
  EXPECT_EQ(table.shape[1], 2);
  // Each argument says whether it is a parameter, and which.
  gpRtEntryInfo affine{};
  ASSERT_EQ(gpRtArtifactGetEntry(artifact, entry("affine"), &affine),
            GP_RT_SUCCESS);
  EXPECT_EQ(affine.args[0].parameter, nullptr);
  EXPECT_STREQ(affine.args[1].parameter, "layer.weight");
  EXPECT_STREQ(affine.args[2].parameter, "layer.bias");
  EXPECT_EQ(affine.results[0].parameter, nullptr);

  gpRtParameterInfo info{};
  EXPECT_INVALID(gpRtArtifactGetParameter(artifact, 4, &info),
                 "no such parameter");
  EXPECT_INVALID(gpRtArtifactGetParameter(artifact, -1, &info),
                 "no such parameter");
  EXPECT_INVALID(gpRtArtifactGetParameter(artifact, 0, nullptr), "null");
  EXPECT_EQ(gpRtArtifactNumParameters(nullptr), 0);
}

TEST_F(ParameterTest, BoundParametersFillNullSlots) {
  float x[4] = {1, 1, 1, 1}, w[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40};
  Vec1 xd = vec(x, 4), wd = vec(w, 4), bd = vec(b, 4);
  ASSERT_EQ(bind("layer.weight", &wd), GP_RT_SUCCESS) << gpRtGetLastError();
  ASSERT_EQ(bind("layer.bias", &bd), GP_RT_SUCCESS) << gpRtGetLastError();
  EXPECT_EQ(call("affine", {&xd, nullptr, nullptr}),
            (std::vector<float>{11, 22, 33, 44}));
  gpRtParameterInfo info{};
  ASSERT_EQ(gpRtArtifactGetParameter(artifact, 0, &info), GP_RT_SUCCESS);
  EXPECT_EQ(info.bound, 1);
  // The binding stores the caller's descriptor, not the descriptor's
  // memory: the caller may reuse its descriptor at once.
  wd = vec(b, 4);
  EXPECT_EQ(call("affine", {&xd, nullptr, nullptr}),
            (std::vector<float>{11, 22, 33, 44}));
}

TEST_F(ParameterTest, ValuesWrittenInPlaceAreSeenByTheNextCall) {
  float x[4] = {1, 2, 3, 4}, w[4] = {1, 1, 1, 1}, b[4] = {0, 0, 0, 0};
  Vec1 xd = vec(x, 4), wd = vec(w, 4), bd = vec(b, 4);
  ASSERT_EQ(bind("layer.weight", &wd), GP_RT_SUCCESS);
  ASSERT_EQ(bind("layer.bias", &bd), GP_RT_SUCCESS);
  // Warm-up, capture, then replays of the captured graph.
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(call("affine", {&xd, nullptr, nullptr}),
              (std::vector<float>{1, 2, 3, 4}));
  w[2] = 10; // No copy was made: the graph reads the caller's memory.
  b[0] = 5;
  EXPECT_EQ(call("affine", {&xd, nullptr, nullptr}),
            (std::vector<float>{6, 2, 30, 4}));
  gpRtStats s = stats();
  EXPECT_EQ(s.captures, 1);
  EXPECT_EQ(s.replays, 3); // The capturing call launches what it captured.
}

TEST_F(ParameterTest, RebindingIsSeenAndReBindsTheCapturedGraph) {
  float x[4] = {1, 2, 3, 4}, w[4] = {1, 1, 1, 1}, w2[4] = {2, 2, 2, 2},
        b[4] = {0, 0, 0, 0};
  Vec1 xd = vec(x, 4), wd = vec(w, 4), w2d = vec(w2, 4), bd = vec(b, 4);
  ASSERT_EQ(bind("layer.weight", &wd), GP_RT_SUCCESS);
  ASSERT_EQ(bind("layer.bias", &bd), GP_RT_SUCCESS);
  for (int i = 0; i < 3; ++i)
    call("affine", {&xd, nullptr, nullptr});
  int64_t rebinds = stats().rebinds;
  ASSERT_EQ(bind("layer.weight", &w2d), GP_RT_SUCCESS);
  EXPECT_EQ(call("affine", {&xd, nullptr, nullptr}),
            (std::vector<float>{2, 4, 6, 8}));
  gpRtStats s = stats();
  EXPECT_EQ(s.captures, 1) << "a rebinding must not capture again";
  EXPECT_EQ(s.rebinds, rebinds + 1);
  // And back: the old memory is bound again.
  ASSERT_EQ(bind("layer.weight", &wd), GP_RT_SUCCESS);
  EXPECT_EQ(call("affine", {&xd, nullptr, nullptr}),
            (std::vector<float>{1, 2, 3, 4}));
}

// Calls whose user input moves reuse the last call's graph key without
// placing every input again (GraphCache.cpp, samePlacement); a rebinding
// (a new address for a parameter) must still be seen by the next call,
// whichever way the user input moved, and an input that moves onto a
// parameter's memory must get a key of its own.
TEST_F(ParameterTest, RebindingIsSeenWhileTheUserInputMoves) {
  float x1[4] = {1, 2, 3, 4}, x2[4] = {10, 20, 30, 40};
  float w[4] = {1, 1, 1, 1}, w2[4] = {2, 2, 2, 2}, w3[4] = {3, 3, 3, 3};
  float b[4] = {0, 0, 0, 0};
  Vec1 x1d = vec(x1, 4), x2d = vec(x2, 4), wd = vec(w, 4), w2d = vec(w2, 4),
       w3d = vec(w3, 4), bd = vec(b, 4);
  ASSERT_EQ(bind("layer.weight", &wd), GP_RT_SUCCESS);
  ASSERT_EQ(bind("layer.bias", &bd), GP_RT_SUCCESS);
  // Warm-up and capture on x1, then x alternates.
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(call("affine", {&x1d, nullptr, nullptr}),
              (std::vector<float>{1, 2, 3, 4}));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(call("affine", {&x2d, nullptr, nullptr}),
              (std::vector<float>{10, 20, 30, 40}));
    EXPECT_EQ(call("affine", {&x1d, nullptr, nullptr}),
              (std::vector<float>{1, 2, 3, 4}));
  }
  // A new address for the weight, seen by the next call whether the user
  // input moved with it or not.
  ASSERT_EQ(bind("layer.weight", &w2d), GP_RT_SUCCESS);
  EXPECT_EQ(call("affine", {&x2d, nullptr, nullptr}),
            (std::vector<float>{20, 40, 60, 80}));
  EXPECT_EQ(call("affine", {&x2d, nullptr, nullptr}),
            (std::vector<float>{20, 40, 60, 80}));
  ASSERT_EQ(bind("layer.weight", &w3d), GP_RT_SUCCESS);
  EXPECT_EQ(call("affine", {&x2d, nullptr, nullptr}),
            (std::vector<float>{30, 60, 90, 120}));
  EXPECT_EQ(call("affine", {&x1d, nullptr, nullptr}),
            (std::vector<float>{3, 6, 9, 12}));
  ASSERT_EQ(bind("layer.weight", &wd), GP_RT_SUCCESS);
  EXPECT_EQ(call("affine", {&x2d, nullptr, nullptr}),
            (std::vector<float>{10, 20, 30, 40}));
  // The user input moved onto the bias's memory: the inputs overlap, a
  // placement of its own (captured at once: the shape had its warm-up),
  // then apart again.
  b[0] = 1, b[1] = 2, b[2] = 3, b[3] = 4;
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(call("affine", {&bd, nullptr, nullptr}),
              (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(call("affine", {&x1d, nullptr, nullptr}),
            (std::vector<float>{2, 4, 6, 8}));
  gpRtStats s = stats();
  EXPECT_EQ(s.captures, 2) << "captures: one per placement";
}

// A caller's own descriptor for a parameter is checked like any argument;
// bound ones were checked when bound.
TEST_F(ParameterTest, AnOverridingDescriptorIsChecked) {
  float x[4] = {1, 1, 1, 1}, w[4] = {1, 1, 1, 1}, b[4] = {0, 0, 0, 0};
  Vec1 xd = vec(x, 4), wd = vec(w, 4), bd = vec(b, 4), bad = vec(w, 3);
  ASSERT_EQ(bind("layer.weight", &wd), GP_RT_SUCCESS);
  ASSERT_EQ(bind("layer.bias", &bd), GP_RT_SUCCESS);
  gpRtStatus status = GP_RT_SUCCESS;
  call("affine", {&xd, &bad, nullptr}, &status);
  EXPECT_EQ(status, GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gpRtGetLastError()).find("argument 1 has sizes [3]"),
            std::string::npos)
      << gpRtGetLastError();
  // The next call without it uses the binding again.
  EXPECT_EQ(call("affine", {&xd, nullptr, nullptr}),
            (std::vector<float>{1, 1, 1, 1}));
}

TEST_F(ParameterTest, ANonNullSlotOverridesTheBindingForOneCall) {
  float x[4] = {1, 1, 1, 1}, w[4] = {1, 1, 1, 1}, other[4] = {3, 3, 3, 3},
        b[4] = {0, 0, 0, 0};
  Vec1 xd = vec(x, 4), wd = vec(w, 4), od = vec(other, 4), bd = vec(b, 4);
  ASSERT_EQ(bind("layer.weight", &wd), GP_RT_SUCCESS);
  ASSERT_EQ(bind("layer.bias", &bd), GP_RT_SUCCESS);
  EXPECT_EQ(call("affine", {&xd, &od, nullptr}),
            (std::vector<float>{3, 3, 3, 3}));
  EXPECT_EQ(call("affine", {&xd, nullptr, nullptr}),
            (std::vector<float>{1, 1, 1, 1}));
  // An older caller passing everything needs no binding at all.
  gpRtArtifact *fresh = nullptr;
  ASSERT_EQ(gpRtArtifactLoad(kParameterArtifact, GP_RT_BACKEND_HOST, -1,
                             &fresh),
            GP_RT_SUCCESS);
  Vec1 result{};
  void *args[] = {&xd, &od, &bd}, *results[] = {&result};
  EXPECT_EQ(gpRtArtifactCall(fresh, 0, args, results), GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(result.aligned[0], 3);
  gpRtArtifactUnload(fresh);
}

TEST_F(ParameterTest, AnUnboundNullSlotFails) {
  float x[4] = {1, 1, 1, 1}, w[4] = {1, 1, 1, 1};
  Vec1 xd = vec(x, 4), wd = vec(w, 4);
  ASSERT_EQ(bind("layer.weight", &wd), GP_RT_SUCCESS);
  gpRtStatus status = GP_RT_SUCCESS;
  call("affine", {&xd, nullptr, nullptr}, &status);
  EXPECT_EQ(status, GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gpRtGetLastError(),
               "entry 'affine': parameter 'layer.bias' (argument 2) is not "
               "bound; bind it with gpRtArtifactBindParameter");
  // A null user input is still an error of its own.
  call("affine", {nullptr, nullptr, &wd}, &status);
  EXPECT_EQ(status, GP_RT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(gpRtGetLastError(), "entry 'affine': argument 0 is null");
}

TEST_F(ParameterTest, BindingChecksNameTheParameter) {
  float data[16] = {};
  Vec1 four = vec(data, 4), five = vec(data, 5);
  EXPECT_INVALID(bind("layer.wieght", &four),
                 "no parameter 'layer.wieght' (parameters: 'layer.weight', "
                 "'layer.bias', 'table', 'matrix')");
  EXPECT_INVALID(bind("layer.weight", &four, "f16"),
                 "parameter 'layer.weight' is f32; f16 memory given");
  EXPECT_INVALID(bind("layer.weight", &five),
                 "parameter 'layer.weight' is [4]; the memory given has "
                 "sizes [5] (dimension 0 must be 4)");
  Vec1 strided = four;
  strided.stride = 2;
  EXPECT_INVALID(bind("layer.weight", &strided),
                 "parameter 'layer.weight': sizes [4] and strides [2]; the "
                 "program takes it row-major");
  Vec1 negative = four;
  negative.offset = -1;
  EXPECT_INVALID(bind("layer.weight", &negative),
                 "parameter 'layer.weight': negative offset -1");
  Vec1 null = four;
  null.aligned = nullptr;
  EXPECT_INVALID(bind("layer.weight", &null),
                 "parameter 'layer.weight': null memory for 4 element(s)");
  // Dynamic dimensions take any size, 0 included (then null memory is
  // fine); static ones must match; the layout must be row-major.
  Mat2 table = mat(data, 3, 2, 2, 1);
  EXPECT_EQ(bind("table", &table), GP_RT_SUCCESS) << gpRtGetLastError();
  Mat2 empty = mat(nullptr, 0, 2, 2, 1);
  EXPECT_EQ(bind("table", &empty), GP_RT_SUCCESS) << gpRtGetLastError();
  Mat2 wide = mat(data, 3, 3, 3, 1);
  EXPECT_INVALID(bind("table", &wide),
                 "parameter 'table' is [?, 2]; the memory given has sizes "
                 "[3, 3] (dimension 1 must be 2)");
  Mat2 negativeSize = mat(data, -1, 2, 2, 1);
  EXPECT_INVALID(bind("table", &negativeSize),
                 "(dimension 0 must be at least 0)");
  Mat2 transposed = mat(data, 3, 2, 1, 3);
  EXPECT_INVALID(bind("table", &transposed),
                 "parameter 'table': sizes [3, 2] and strides [1, 3]; the "
                 "program takes it row-major");
  // A failed binding leaves the parameter as it was.
  gpRtParameterInfo info{};
  ASSERT_EQ(gpRtArtifactGetParameter(artifact, 0, &info), GP_RT_SUCCESS);
  EXPECT_EQ(info.bound, 0);
  // Null pointers are errors, never crashes.
  EXPECT_INVALID(gpRtArtifactBindParameter(nullptr, "table", "f32", &table),
                 "null artifact");
  EXPECT_INVALID(gpRtArtifactBindParameter(artifact, nullptr, "f32", &table),
                 "null name");
  EXPECT_INVALID(gpRtArtifactBindParameter(artifact, "table", nullptr,
                                           &table),
                 "null element type (parameter 'table')");
  EXPECT_INVALID(gpRtArtifactBindParameter(artifact, "table", "f32", nullptr),
                 "null descriptor (parameter 'table')");
}

TEST_F(ParameterTest, DynamicAndStridedParameters) {
  float table[6] = {1, 2, 3, 4, 5, 6}; // [[1, 2], [3, 4], [5, 6]]
  Mat2 rows = mat(table, 3, 2, 2, 1);
  ASSERT_EQ(bind("table", &rows), GP_RT_SUCCESS);
  EXPECT_EQ(call("rowsum", {nullptr}), (std::vector<float>{9, 12}));
  // The entry needs no argument array when all it takes is parameters.
  Vec1 result{};
  void *results[] = {&result};
  EXPECT_EQ(gpRtArtifactCall(artifact, entry("rowsum"), nullptr, results),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  // A strided argument takes a view: the transpose of [[1, 2], [3, 4]].
  Mat2 transposed = mat(table, 2, 2, 1, 2);
  ASSERT_EQ(bind("matrix", &transposed), GP_RT_SUCCESS) << gpRtGetLastError();
  EXPECT_EQ(call("column", {nullptr}), (std::vector<float>{1, 2}));
}

TEST_F(ParameterTest, EntriesShareAParameter) {
  float x[4] = {1, 2, 3, 4}, w[4] = {2, 2, 2, 2}, b[4] = {1, 1, 1, 1};
  Vec1 xd = vec(x, 4), wd = vec(w, 4), bd = vec(b, 4);
  ASSERT_EQ(bind("layer.weight", &wd), GP_RT_SUCCESS);
  ASSERT_EQ(bind("layer.bias", &bd), GP_RT_SUCCESS);
  EXPECT_EQ(call("scale", {&xd, nullptr}), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(call("affine", {&xd, nullptr, nullptr}),
            (std::vector<float>{3, 5, 7, 9}));
  w[0] = 0; // Both see the one binding.
  EXPECT_EQ(call("scale", {&xd, nullptr})[0], 0);
  EXPECT_EQ(call("affine", {&xd, nullptr, nullptr})[0], 1);
}

TEST_F(ParameterTest, CallOnStreamOnTheHostTakesNoStream) {
  float x[4] = {1, 1, 1, 1}, w[4] = {5, 5, 5, 5}, b[4] = {0, 0, 0, 0};
  Vec1 xd = vec(x, 4), wd = vec(w, 4), bd = vec(b, 4);
  ASSERT_EQ(bind("layer.weight", &wd), GP_RT_SUCCESS);
  ASSERT_EQ(bind("layer.bias", &bd), GP_RT_SUCCESS);
  Vec1 result{};
  void *args[] = {&xd, nullptr, nullptr}, *results[] = {&result};
  ASSERT_EQ(gpRtArtifactCallOnStream(artifact, 0, args, results, nullptr),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(result.aligned[3], 5);
  int stream = 0;
  EXPECT_INVALID(gpRtArtifactCallOnStream(artifact, 0, args, results, &stream),
                 "a CUDA stream given for a program on the host backend");
  EXPECT_INVALID(gpRtArtifactCallOnStream(nullptr, 0, args, results, nullptr),
                 "null artifact or no such entry");
  EXPECT_INVALID(gpRtArtifactCallOnStream(artifact, 9, args, results, nullptr),
                 "null artifact or no such entry");
  EXPECT_INVALID(gpRtArtifactCallOnStream(artifact, 0, args, nullptr, nullptr),
                 "entry 'affine': null result array");
}

TEST_F(ParameterTest, InspectedArtifactsListParametersButDoNotBind) {
  gpRtArtifact *inspected = nullptr;
  ASSERT_EQ(gpRtArtifactInspect(kParameterArtifact, &inspected),
            GP_RT_SUCCESS);
  EXPECT_EQ(gpRtArtifactNumParameters(inspected), 4);
  float w[4] = {};
  Vec1 wd = vec(w, 4);
  EXPECT_INVALID(
      gpRtArtifactBindParameter(inspected, "layer.weight", "f32", &wd),
      "parameter 'layer.weight': the artifact was opened with "
      "gpRtArtifactInspect");
  gpRtArtifactUnload(inspected);
}

//===----------------------------------------------------------------------===//
// The manifest's `parameter <name>`
//===----------------------------------------------------------------------===//

/// Opens the artifact with its manifest's line `line` replaced by
/// `replacement` (the whole manifest when `line` is empty), for its
/// manifest only; returns the status and leaves the message.
gpRtStatus inspectWith(const std::string &line, const std::string &replacement,
                       gpRtArtifact **artifact) {
  ParameterArtifactLibrary &library = ParameterArtifactLibrary::get();
  std::string manifest = library.defaultManifest();
  if (line.empty()) {
    manifest = replacement;
  } else {
    size_t at = manifest.find(line + "\n");
    EXPECT_NE(at, std::string::npos) << line;
    manifest.replace(at, line.size(), replacement);
  }
  library.setManifest(manifest.c_str());
  gpRtStatus status = gpRtArtifactInspect(kParameterArtifact, artifact);
  library.setManifest(nullptr);
  return status;
}

TEST(ParameterManifest, GoodForms) {
  gpRtArtifact *artifact = nullptr;
  // strided, then parameter; a name is any token without whitespace.
  ASSERT_EQ(inspectWith("arg memref f32 1 4 cpu parameter layer.bias",
                        "arg memref f32 1 4 cpu strided parameter "
                        "h.0.attn.c_attn.weight[0]:x",
                        &artifact),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  gpRtParameterInfo info{};
  ASSERT_EQ(gpRtArtifactGetParameter(artifact, 1, &info), GP_RT_SUCCESS);
  EXPECT_STREQ(info.name, "h.0.attn.c_attn.weight[0]:x");
  gpRtArtifactUnload(artifact);
  // Without any parameter (an older artifact): none listed, all arguments
  // passed per call.
  ParameterArtifactLibrary &library = ParameterArtifactLibrary::get();
  std::string plain = library.defaultManifest();
  for (size_t at; (at = plain.find(" parameter ")) != std::string::npos;)
    plain.erase(at, plain.find('\n', at) - at);
  ASSERT_EQ(inspectWith("", plain, &artifact), GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(gpRtArtifactNumParameters(artifact), 0);
  gpRtEntryInfo entry{};
  ASSERT_EQ(gpRtArtifactGetEntry(artifact, 0, &entry), GP_RT_SUCCESS);
  EXPECT_EQ(entry.args[1].parameter, nullptr);
  gpRtArtifactUnload(artifact);
}

TEST(ParameterManifest, BadForms) {
  struct Case {
    const char *line, *replacement, *message;
  } cases[] = {
      {"arg memref f32 1 4 cpu parameter layer.bias",
       "arg memref f32 1 4 cpu parameter",
       "artifact manifest: 'parameter' without a name in 'arg memref f32 1 4 "
       "cpu parameter'"},
      {"arg memref f32 1 4 cpu parameter layer.bias",
       "arg memref f32 1 4 cpu parameter a b",
       "unexpected 'b' after the parameter's name"},
      {"arg memref f32 1 4 cpu parameter layer.bias",
       "arg memref f32 1 4 cpu parameter a strided",
       "'strided' out of place (the line ends in [strided] [parameter "
       "<name>])"},
      {"arg memref f32 1 4 cpu parameter layer.bias",
       "arg memref f32 1 4 cpu parameter a parameter b",
       "'parameter' out of place"},
      {"arg memref f32 1 4 cpu parameter layer.bias",
       "arg memref f32 1 4 cpu strided strided",
       "'strided' out of place"},
      {"arg memref f32 1 4 cpu parameter layer.bias", "arg index parameter a",
       "an index value cannot be a parameter (only buffer arguments can)"},
      {"arg memref f32 1 4 cpu parameter layer.bias",
       "arg memref f32 1 4 cpu banana", "unknown layout 'banana'"},
      {"result memref f32 1 2 cpu\nentry column 1 1",
       "result memref f32 1 2 cpu parameter y\nentry column 1 1",
       "a result cannot be a parameter"},
      // One name twice in one entry.
      {"arg memref f32 1 4 cpu parameter layer.bias",
       "arg memref f32 1 4 cpu parameter layer.weight",
       "artifact manifest: parameter 'layer.weight' is both argument 1 and "
       "argument 2 of entry 'affine'"},
      // Entries that disagree about one parameter.
      {"entry scale 2 1\narg memref f32 1 4 cpu\narg memref f32 1 4 cpu "
       "parameter layer.weight",
       "entry scale 2 1\narg memref f32 1 4 cpu\narg memref f16 1 4 cpu "
       "parameter layer.weight",
       "artifact manifest: parameter 'layer.weight' is f32 [4] on cpu in "
       "entry 'affine' argument 1 but f16 [4] on cpu in entry 'scale' "
       "argument 1"},
      {"entry scale 2 1\narg memref f32 1 4 cpu\narg memref f32 1 4 cpu "
       "parameter layer.weight",
       "entry scale 2 1\narg memref f32 1 4 cpu\narg memref f32 1 ? cpu "
       "parameter layer.weight",
       "is f32 [4] on cpu in entry 'affine' argument 1 but f32 [?] on cpu in "
       "entry 'scale' argument 1"},
      {"entry scale 2 1\narg memref f32 1 4 cpu\narg memref f32 1 4 cpu "
       "parameter layer.weight",
       "entry scale 2 1\narg memref f32 1 4 cpu\narg memref f32 1 4 cuda:0 "
       "parameter layer.weight",
       "but f32 [4] on cuda:0 in entry 'scale' argument 1"},
  };
  for (const Case &c : cases) {
    gpRtArtifact *artifact = nullptr;
    EXPECT_EQ(inspectWith(c.line, c.replacement, &artifact),
              GP_RT_ERROR_INVALID_ARGUMENT)
        << c.replacement;
    EXPECT_NE(std::string(gpRtGetLastError()).find(c.message),
              std::string::npos)
        << "for '" << c.replacement << "': " << gpRtGetLastError();
  }
}

TEST(ParameterManifest, SameNameInEntriesOfOneShapeIsOneParameter) {
  gpRtArtifact *artifact = nullptr;
  // Strided in one entry, row-major in the other: bindings must be
  // row-major (both read them).
  ASSERT_EQ(inspectWith("entry scale 2 1\narg memref f32 1 4 cpu\narg memref "
                        "f32 1 4 cpu parameter layer.weight",
                        "entry scale 2 1\narg memref f32 1 4 cpu\narg memref "
                        "f32 1 4 cpu strided parameter layer.weight",
                        &artifact),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(gpRtArtifactNumParameters(artifact), 4);
  gpRtArtifactUnload(artifact);
}

//===----------------------------------------------------------------------===//
// The cuda backend
//===----------------------------------------------------------------------===//

class ParameterCudaTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (gpRtBackendAvailable(GP_RT_BACKEND_CUDA) != GP_RT_SUCCESS)
      GTEST_SKIP() << "no usable CUDA device: " << gpRtGetLastError();
    ASSERT_TRUE(cuda.load()) << cuda.error;
    ASSERT_EQ(gpRtArtifactLoad(kParameterCudaArtifact, GP_RT_BACKEND_CUDA, 0,
                               &artifact),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
    ASSERT_EQ(gpRtArtifactGetProgram(artifact, &program), GP_RT_SUCCESS);
    ASSERT_EQ(cuda.cuDevicePrimaryCtxRetain(&context, 0), 0);
    ASSERT_EQ(cuda.cuCtxSetCurrent(context), 0);
    ASSERT_EQ(cuda.cuModuleLoadData(&module, kParameterPtx), 0);
    ASSERT_EQ(cuda.cuModuleGetFunction(&slowStoreKernel, module, "slow_store"), 0);
    for (void **buffer : {&x, &w, &w2})
      ASSERT_EQ(gpRtProgramAllocate(program, 8, buffer), GP_RT_SUCCESS);
    put(x, 0);
    put(w, 10);
    put(w2, 1000);
  }
  void TearDown() override {
    if (!artifact)
      return;
    for (void *buffer : {x, w, w2})
      gpRtProgramFree(program, buffer);
    gpRtArtifactUnload(artifact);
    if (module)
      cuda.cuModuleUnload(module);
    if (context)
      cuda.cuDevicePrimaryCtxRelease(0);
  }

  void put(void *device, int64_t value) {
    ASSERT_EQ(gpRtCopyToProgram(program, device, &value, 8), GP_RT_SUCCESS);
  }
  I64Vec desc(void *device) {
    auto *p = static_cast<int64_t *>(device);
    return {p, p, 0, 1, 1};
  }
  /// Queues slow_store(p, v, ns) on `stream`.
  void slowStore(void *stream, void *p, int64_t v, uint64_t ns) {
    void *params[] = {&p, &v, &ns};
    ASSERT_EQ(cuda.cuLaunchKernel(slowStoreKernel, 1, 1, 1, 1, 1, 1, 0, stream,
                                  params, nullptr),
              0);
  }
  /// Calls addw on `stream` with x and the bound w, then copies the result
  /// out on the same stream and waits for that stream only; returns it.
  int64_t callOn(void *stream, bool *returnedEarly = nullptr) {
    I64Vec xd = desc(x), result{};
    void *args[] = {&xd, nullptr}, *results[] = {&result};
    EXPECT_EQ(gpRtArtifactCallOnStream(artifact, 0, args, results, stream),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
    if (returnedEarly) // The work queued before is still running.
      *returnedEarly = cuda.cuStreamQuery(stream) == kNotReady;
    int64_t value = -1;
    EXPECT_EQ(cuda.cuMemcpyDtoHAsync(
                  &value, reinterpret_cast<CudaForTests::DevicePtr>(result.aligned),
                  8, stream),
              0);
    EXPECT_EQ(cuda.cuStreamSynchronize(stream), 0);
    return value;
  }

  static constexpr int kNotReady = 600; // CUDA_ERROR_NOT_READY
  CudaForTests cuda;
  gpRtArtifact *artifact = nullptr;
  gpRtProgram *program = nullptr;
  void *context = nullptr, *module = nullptr, *slowStoreKernel = nullptr;
  void *x = nullptr, *w = nullptr, *w2 = nullptr;
};

TEST_F(ParameterCudaTest, BindingsMustBeDeviceMemoryOfTheProgramsDevice) {
  int64_t host[1] = {10};
  I64Vec hostDesc{host, host, 0, 1, 1};
  EXPECT_INVALID(gpRtArtifactBindParameter(artifact, "w", "i64", &hostDesc),
                 "parameter 'w' is in host memory; the program runs on "
                 "cuda:0");
  void *pinned = nullptr;
  ASSERT_EQ(cuda.cuMemAllocHost(&pinned, 64), 0);
  I64Vec pinnedDesc = desc(pinned);
  EXPECT_INVALID(gpRtArtifactBindParameter(artifact, "w", "i64", &pinnedDesc),
                 "parameter 'w' is in host memory");
  cuda.cuMemFreeHost(pinned);
  unsigned long long managed = 0;
  ASSERT_EQ(cuda.cuMemAllocManaged(&managed, 64, 1), 0);
  I64Vec managedDesc = desc(reinterpret_cast<void *>(managed));
  EXPECT_EQ(gpRtArtifactBindParameter(artifact, "w", "i64", &managedDesc),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  cuda.cuMemFree(managed);
  I64Vec deviceDesc = desc(w);
  EXPECT_EQ(gpRtArtifactBindParameter(artifact, "w", "i64", &deviceDesc),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  int count = 0;
  ASSERT_EQ(gpRtCudaDeviceCount(&count), GP_RT_SUCCESS);
  if (count > 1) {
    unsigned long long other = 0;
    ASSERT_EQ(cuda.cuCtxSetCurrent(nullptr), 0);
    void *otherContext = nullptr;
    ASSERT_EQ(cuda.cuDevicePrimaryCtxRetain(&otherContext, 1), 0);
    ASSERT_EQ(cuda.cuCtxSetCurrent(otherContext), 0);
    ASSERT_EQ(cuda.cuMemAlloc(&other, 64), 0);
    I64Vec otherDesc = desc(reinterpret_cast<void *>(other));
    EXPECT_INVALID(gpRtArtifactBindParameter(artifact, "w", "i64", &otherDesc),
                   "parameter 'w' is in the memory of cuda:1; the program "
                   "runs on cuda:0");
    cuda.cuMemFree(other);
    cuda.cuDevicePrimaryCtxRelease(1);
    ASSERT_EQ(cuda.cuCtxSetCurrent(context), 0);
  }
}

TEST_F(ParameterCudaTest, CallOnStreamIsOrderedBothWaysWithoutWaiting) {
  I64Vec wd = desc(w);
  ASSERT_EQ(gpRtArtifactBindParameter(artifact, "w", "i64", &wd),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  void *stream = nullptr;
  constexpr unsigned kNonBlocking = 1;
  ASSERT_EQ(cuda.cuStreamCreate(&stream, kNonBlocking), 0);
  // Warm-up, capture, replay: then the calls below replay.
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(callOn(stream), 10);
  // Each call follows a 100 ms store into x queued on the caller's stream
  // (it must read the stored value), and the copy of its result queued
  // after it must wait for its own 20 ms kernel. Both on a stream of the
  // caller's and on the legacy default stream.
  for (void *caller : {stream, static_cast<void *>(nullptr)}) {
    for (int64_t value : {5, 7}) {
      slowStore(caller, x, value, 100'000'000);
      bool early = false;
      EXPECT_EQ(callOn(caller, &early), value + 10)
          << (caller ? "own stream" : "legacy stream");
      EXPECT_TRUE(early) << "the call waited on the host for the caller's "
                            "stream";
    }
  }
  gpRtStats stats{};
  ASSERT_EQ(gpRtProgramGetStats(program, &stats), GP_RT_SUCCESS);
  EXPECT_EQ(stats.captures, 1);
  EXPECT_GE(stats.replays, 5);
  cuda.cuStreamDestroy(stream);
}

TEST_F(ParameterCudaTest, RebindingOnTheDeviceReBindsTheCapturedGraph) {
  I64Vec wd = desc(w), w2d = desc(w2);
  ASSERT_EQ(gpRtArtifactBindParameter(artifact, "w", "i64", &wd),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(callOn(nullptr), 10);
  put(w, 20); // Written in place: seen by the replay.
  EXPECT_EQ(callOn(nullptr), 20);
  gpRtStats before{};
  ASSERT_EQ(gpRtProgramGetStats(program, &before), GP_RT_SUCCESS);
  ASSERT_EQ(gpRtArtifactBindParameter(artifact, "w", "i64", &w2d),
            GP_RT_SUCCESS);
  EXPECT_EQ(callOn(nullptr), 1000);
  gpRtStats after{};
  ASSERT_EQ(gpRtProgramGetStats(program, &after), GP_RT_SUCCESS);
  EXPECT_EQ(after.captures, before.captures);
  EXPECT_EQ(after.rebinds, before.rebinds + 1);
  // Unbound on a call: the error names it.
  gpRtArtifact *fresh = nullptr;
  ASSERT_EQ(gpRtArtifactLoad(kParameterCudaArtifact, GP_RT_BACKEND_CUDA, 0,
                             &fresh),
            GP_RT_SUCCESS);
  I64Vec xd = desc(x), result{};
  void *args[] = {&xd, nullptr}, *results[] = {&result};
  EXPECT_INVALID(gpRtArtifactCallOnStream(fresh, 0, args, results, nullptr),
                 "entry 'addw': parameter 'w' (argument 1) is not bound");
  gpRtArtifactUnload(fresh);
}

} // namespace
