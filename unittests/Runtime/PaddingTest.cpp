//===- PaddingTest.cpp - size classes and padding to the capture sizes ----===//
//
// The manifest's `size` lines on the hand-written host artifact of
// PaddingArtifact.cpp: the check every call makes (arguments the program
// uses as one size must agree; a fixed size must be met), padding to the
// capture sizes (results exact against a reference computed here, result
// descriptors sliced back, captures bounded by the capture sizes, padded
// positions copies of the last real one, sizes above the largest capture
// size, the switches that turn it off, the `default` list), the
// description API, malformed lines, and the staging memory released at
// unload. gp-run's report of them is tested at the end.
//
//===----------------------------------------------------------------------===//

#include "TensorTestSupport.h"

#include "GraphPart/Runtime/GPRuntime.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <algorithm>
#include <vector>

namespace {

const char *kArtifact = GP_TEST_PADDING_ARTIFACT;
const char *kGpRun = GP_TEST_GP_RUN;

/// Descriptors (gpRtMemRef) of rank 0, 1 and 2.
struct Scalar {
  float *allocated, *aligned;
  int64_t offset;
};
template <typename T> struct Vec {
  T *allocated, *aligned;
  int64_t offset, size, stride;
  T at(int64_t i) const { return aligned[offset + i * stride]; }
};
struct Mat {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
  float at(int64_t i, int64_t j) const {
    return aligned[offset + i * strides[0] + j * strides[1]];
  }
};
template <typename T> Vec<T> vec(std::vector<T> &data) {
  return {data.data(), data.data(), 0, static_cast<int64_t>(data.size()), 1};
}
Mat mat(std::vector<float> &data, int64_t rows, int64_t cols) {
  return {data.data(), data.data(), 0, {rows, cols}, {cols, 1}};
}

/// The test artifact, opened once: its manifest can be replaced before
/// gpRtArtifactLoad opens it again (the same image).
struct Library {
  void *handle = nullptr;
  void (*setManifest)(const char *) = nullptr;
  const char *(*defaultManifest)() = nullptr;
  int64_t *calls = nullptr;

  static Library &get() {
    static Library library = [] {
      Library made;
      made.handle = dlopen(kArtifact, RTLD_NOW | RTLD_LOCAL);
      if (!made.handle)
        return made;
      made.setManifest = reinterpret_cast<void (*)(const char *)>(
          dlsym(made.handle, "gp_test_set_padding_manifest"));
      made.defaultManifest = reinterpret_cast<const char *(*)()>(
          dlsym(made.handle, "gp_test_default_padding_manifest"));
      made.calls =
          static_cast<int64_t *>(dlsym(made.handle, "gp_test_padding_calls"));
      return made;
    }();
    return library;
  }
};

/// Collects warnings.
struct Warnings {
  std::vector<std::string> lines;
  static void sink(const char *line, void *data) {
    static_cast<Warnings *>(data)->lines.push_back(line);
  }
  int count(const std::string &needle) const {
    int n = 0;
    for (const std::string &line : lines)
      n += line.find(needle) != std::string::npos;
    return n;
  }
};

/// The default manifest with `from` replaced by `to` (which must be there).
std::string replaced(const std::string &from, const std::string &to) {
  std::string text = Library::get().defaultManifest();
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

class PaddingTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(Library::get().setManifest && Library::get().calls)
        << "cannot open " << kArtifact;
    for (const char *var : {"GP_CUDAGRAPH_CAPTURE_SIZES",
                            "GP_PAD_TO_CAPTURE_SIZES", "GP_DEBUG_OVERWRITE"})
      unsetenv(var);
    gpRtSetLog(0, Warnings::sink, &warnings);
    load();
  }
  void TearDown() override {
    unload();
    Library::get().setManifest(nullptr);
    for (const char *var :
         {"GP_CUDAGRAPH_CAPTURE_SIZES", "GP_PAD_TO_CAPTURE_SIZES"})
      unsetenv(var);
    gpRtSetLog(0, nullptr, nullptr);
  }

  /// Loads the artifact with `manifest` (the default one when null).
  void load(const char *manifest = nullptr) {
    unload();
    Library::get().setManifest(manifest);
    ASSERT_EQ(gpRtArtifactLoad(kArtifact, GP_RT_BACKEND_HOST, -1, &artifact),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
    ASSERT_EQ(gpRtArtifactGetProgram(artifact, &program), GP_RT_SUCCESS);
  }
  void unload() {
    if (artifact)
      EXPECT_EQ(gpRtArtifactUnload(artifact), GP_RT_SUCCESS);
    artifact = nullptr;
    program = nullptr;
  }
  void setCaptureSizes(const char *sizes) {
    ASSERT_EQ(gpRtArtifactSetCaptureSizes(artifact, sizes), GP_RT_SUCCESS)
        << gpRtGetLastError();
  }
  int32_t entry(const char *name) {
    int32_t index = -1;
    EXPECT_EQ(gpRtArtifactFindEntry(artifact, name, &index), GP_RT_SUCCESS);
    return index;
  }
  gpRtStats stats() {
    gpRtStats result{};
    EXPECT_EQ(gpRtProgramGetStats(program, &result), GP_RT_SUCCESS);
    return result;
  }
  int64_t calls() const { return *Library::get().calls; }

  /// Calls affine on `x` (rows of 4) and checks its result against
  /// 2 * x + w, exactly, and its descriptor (rows sliced back).
  void checkAffine(std::vector<float> x, std::vector<float> &w) {
    checkAffineIn(x, w);
  }
  void checkAffineIn(std::vector<float> &x, std::vector<float> &w) {
    int64_t rows = x.size() / 4;
    Mat arg = mat(x, rows, 4), out{};
    Vec<float> weights = vec(w);
    void *args[] = {&arg, &weights}, *results[] = {&out};
    ASSERT_EQ(gpRtArtifactCall(artifact, entry("affine"), args, results),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
    ASSERT_EQ(out.sizes[0], rows);
    ASSERT_EQ(out.sizes[1], 4);
    EXPECT_EQ(out.strides[0], 4);
    EXPECT_EQ(out.strides[1], 1);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < 4; ++j)
        ASSERT_EQ(out.at(i, j), 2 * x[i * 4 + j] + w[j])
            << "rows " << rows << ", element " << i << ", " << j;
  }
  std::vector<float> random(int64_t count) {
    std::uniform_real_distribution<float> values(-8, 8);
    std::vector<float> data(count);
    for (float &value : data)
      value = values(generator);
    return data;
  }

  /// What peek saw of `x` (rows x cols, row-major), and its results.
  struct Peek {
    Mat plusOne{}, seen{};
    int64_t k = 0;
  };
  gpRtStatus peek(Mat x, Peek &peeked) {
    int64_t k = x.sizes[1];
    void *args[] = {&x, &k};
    void *results[] = {&peeked.plusOne, &peeked.seen, &peeked.k};
    return gpRtArtifactCall(artifact, entry("peek"), args, results);
  }

  gpRtArtifact *artifact = nullptr;
  gpRtProgram *program = nullptr;
  Warnings warnings;
  std::mt19937 generator{42};
};

//===----------------------------------------------------------------------===//
// The manifest and the description
//===----------------------------------------------------------------------===//

TEST_F(PaddingTest, SizeClassesAreReadAndDescribed) {
  const char *text = nullptr;
  ASSERT_EQ(gpRtArtifactDescribeSizes(artifact, entry("affine"), &text),
            GP_RT_SUCCESS);
  EXPECT_STREQ(text, "size rows (argument 0 dimension 0, result 0 dimension "
                     "0): padded to the capture sizes\n");
  // Argument members first, whatever the manifest's order.
  ASSERT_EQ(gpRtArtifactDescribeSizes(artifact, entry("peek"), &text),
            GP_RT_SUCCESS);
  EXPECT_STREQ(text, "size rows (argument 0 dimension 0, result 0 dimension "
                     "0): padded to the capture sizes\n"
                     "size cols (argument 0 dimension 1, argument 1, result 0 "
                     "dimension 1): padded to the capture sizes\n");
  ASSERT_EQ(gpRtArtifactDescribeSizes(artifact, entry("total"), &text),
            GP_RT_SUCCESS);
  EXPECT_STREQ(text, "size n (argument 0 dimension 0): not padded: "
                     "'linalg.generic' in kernel 'sum' reduces along it\n");
  ASSERT_EQ(gpRtArtifactDescribeSizes(artifact, entry("fixed16"), &text),
            GP_RT_SUCCESS);
  EXPECT_STREQ(text, "size x (argument 0 dimension 0, argument 1 dimension 0, "
                     "result 0 dimension 0): fixed at 16\n");
  ASSERT_EQ(gpRtArtifactDescribeSizes(artifact, entry("pair"), &text),
            GP_RT_SUCCESS);
  EXPECT_STREQ(text, "size s0 (argument 0 dimension 0, argument 1 dimension 0, "
                     "argument 2, result 0 dimension 0, result 1): padded to "
                     "the capture sizes\n");

  EXPECT_EQ(gpRtArtifactNumSizes(artifact, entry("peek")), 2);
  EXPECT_EQ(gpRtArtifactNumSizes(artifact, 99), 0);
  gpRtSizeInfo info{};
  ASSERT_EQ(gpRtArtifactGetSize(artifact, entry("peek"), 1, &info),
            GP_RT_SUCCESS);
  EXPECT_STREQ(info.name, "cols");
  EXPECT_EQ(info.fixed, -1);
  EXPECT_EQ(info.padded, 1);
  EXPECT_EQ(info.reason, nullptr);
  ASSERT_EQ(gpRtArtifactGetSize(artifact, entry("total"), 0, &info),
            GP_RT_SUCCESS);
  EXPECT_EQ(info.padded, 0);
  EXPECT_STREQ(info.reason,
               "'linalg.generic' in kernel 'sum' reduces along it");
  ASSERT_EQ(gpRtArtifactGetSize(artifact, entry("fixed16"), 0, &info),
            GP_RT_SUCCESS);
  EXPECT_EQ(info.fixed, 16);
  EXPECT_EQ(info.padded, 0); // A fixed size is one size: nothing to pad.
  EXPECT_EQ(info.reason, nullptr);
  EXPECT_INVALID(gpRtArtifactGetSize(artifact, entry("peek"), 2, &info),
                 "no such size of entry 'peek'");
  EXPECT_INVALID(gpRtArtifactDescribeSizes(artifact, 99, &text),
                 "no such entry");

  // Without size lines an entry has none, and loads and runs as before.
  std::string plain = Library::get().defaultManifest();
  for (size_t at; (at = plain.find("size ")) != std::string::npos;)
    plain.erase(at, plain.find('\n', at) + 1 - at);
  load(plain.c_str());
  ASSERT_EQ(gpRtArtifactDescribeSizes(artifact, entry("affine"), &text),
            GP_RT_SUCCESS);
  EXPECT_STREQ(text, "");
  setCaptureSizes("1,2,4,8");
  std::vector<float> w = {1, 2, 3, 4};
  checkAffine(random(3 * 4), w);
  EXPECT_EQ(stats().paddedCalls, 0);
  EXPECT_EQ(stats().eagerRuns, 1); // 3 rows: not a capture size.
}

// `pad <max>`: the entry accepts sizes up to max (a symint's declared
// bound, which compiled code checks), so a call is padded only to a
// capture size within it; past it, the call runs at its own size, warned
// once.
TEST_F(PaddingTest, PaddingStopsAtTheLargestSizeTheEntryAccepts) {
  unload();
  std::string manifest =
      replaced("size rows ? a0.0,r0.0 pad", "size rows ? a0.0,r0.0 pad 6");
  load(manifest.c_str());
  setCaptureSizes("1,2,4,8");
  std::vector<float> w = random(4);
  for (int64_t rows : {3, 5, 6, 5, 3})
    checkAffine(random(rows * 4), w);
  EXPECT_EQ(warnings.count("entry 'affine': size rows = 5 would be padded to "
                           "8, above the largest size the program accepts "
                           "(6): runs at its own size"),
            1);
  EXPECT_EQ(stats().paddedCalls, 2); // the 3s, to 4
}

TEST_F(PaddingTest, MalformedSizeLinesAreRejected) {
  struct Case {
    const char *line, *message;
  };
  const Case cases[] = {
      {"size rows ? a0.0,r0.0", "truncated"},
      {"size rows", "truncated"},
      {"size rows -1 a0.0,r0.0 pad", "'-1' is not a size"},
      {"size rows 4x a0.0,r0.0 pad", "'4x' is not a size"},
      {"size rows ? b0.0 pad", "'b0.0' is not a member"},
      {"size rows ? a0. pad", "'a0.' is not a member"},
      {"size rows ? a.0 pad", "'a.0' is not a member"},
      {"size rows ? a0.0,,r0.0 pad", "'' is not a member"},
      {"size rows ? a0.0, pad", "an empty member list"},
      {"size rows ? a99999999999.0 pad", "is not a member"},
      {"size rows ? a0.0,r0.0 maybe", "'maybe' is neither 'pad' nor 'nopad'"},
      {"size rows ? a0.0,r0.0 nopad", "'nopad' without a reason"},
      {"size rows ? a0.0,r0.0 pad now", "'now' after 'pad' is not a size"},
      {"size rows ? a0.0,r0.0 pad 8 9", "unexpected '9' after 'pad 8'"},
      {"size rows ? a2.0,r0.0 pad", "no argument 2 (the entry has 2)"},
      {"size rows ? a0.0,r3.0 pad", "no result 3 (the entry has 1)"},
      {"size rows ? a0.2,r0.0 pad", "argument 0 has rank 2, no dimension 2"},
      {"size rows ? a0.1,r0.0 pad",
       "argument 0 dimension 1 is static (4), not a dynamic size"},
      {"size rows ? a1.0,r0.0 pad",
       "argument 1 dimension 0 is static (4), not a dynamic size"},
      {"size rows ? a0,r0.0 pad", "argument 0 is a buffer; name one of its "
                                  "dimensions (a0.<d>)"},
      {"size rows ? a0.0,r0 pad", "result 0 is a buffer"},
      {"size rows ? r0.0 pad", "no argument among its members"},
      {"size rows ? a0.0,a0.0,r0.0 pad",
       "argument 0 dimension 0 is named twice"},
      {"size rows ? a0.0,r0.0 pad\nsize more ? r0.0,a0.0 pad",
       "result 0 dimension 0 is in size 'rows' too"},
      {"size rows ? a0.0 pad\nsize rows ? r0.0,a0.0 pad",
       "another size named 'rows'"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.line);
    std::string manifest =
        replaced("size rows ? a0.0,r0.0 pad", c.line);
    Library::get().setManifest(manifest.c_str());
    gpRtArtifact *bad = nullptr;
    EXPECT_INVALID(gpRtArtifactLoad(kArtifact, GP_RT_BACKEND_HOST, -1, &bad),
                   c.message);
    EXPECT_INVALID(gpRtArtifactInspect(kArtifact, &bad), "bad size line '");
    if (bad)
      gpRtArtifactUnload(bad);
  }
  // An index member must be an index value; a size line needs an entry.
  std::string manifest = replaced("size cols ? r0.1,a0.1,a1 pad",
                                  "size cols ? r0.1,a0.1,r2.0 pad");
  Library::get().setManifest(manifest.c_str());
  gpRtArtifact *bad = nullptr;
  EXPECT_INVALID(gpRtArtifactLoad(kArtifact, GP_RT_BACKEND_HOST, -1, &bad),
                 "result 2 is an index value, not a buffer with dimensions");
  manifest = replaced("partition 0 capturable 1 -",
                      "partition 0 capturable 1 -\nsize rows ? a0.0 pad");
  Library::get().setManifest(manifest.c_str());
  EXPECT_INVALID(gpRtArtifactLoad(kArtifact, GP_RT_BACKEND_HOST, -1, &bad),
                 "size line before any entry");
}

// Size lines cut short or with bytes changed anywhere are errors or load,
// never a crash (scripts/fuzz.sh fuzzes whole manifests; this keeps the
// size lines covered in every test run).
TEST_F(PaddingTest, DamagedSizeLinesNeverCrash) {
  std::string manifest = Library::get().defaultManifest();
  size_t begin = manifest.find("size rows");
  const char replacements[] = {'?', ',', '.', ' ', '\n', '0', '9', 'a', 'r',
                               'x'};
  int loaded = 0;
  for (size_t at = begin; at < manifest.size(); ++at) {
    for (char c : replacements) {
      std::string damaged = manifest;
      damaged[at] = c;
      Library::get().setManifest(damaged.c_str());
      gpRtArtifact *opened = nullptr;
      if (gpRtArtifactLoad(kArtifact, GP_RT_BACKEND_HOST, -1, &opened) ==
          GP_RT_SUCCESS) {
        ++loaded;
        gpRtArtifactUnload(opened);
      }
    }
    std::string cut = manifest.substr(0, at);
    Library::get().setManifest(cut.c_str());
    gpRtArtifact *opened = nullptr;
    if (gpRtArtifactInspect(kArtifact, &opened) == GP_RT_SUCCESS)
      gpRtArtifactUnload(opened);
  }
  EXPECT_GT(loaded, 0); // Some changes (a name's letter) still load.
}

//===----------------------------------------------------------------------===//
// The check every call makes
//===----------------------------------------------------------------------===//

TEST_F(PaddingTest, ArgumentsThatDisagreeFailNamingBothAndRunNothing) {
  std::vector<float> a = {1, 2, 3}, b = {10, 20, 30, 40}, out(4);
  Vec<float> va = vec(a), vb = vec(b), result{};
  int64_t n = 3, nOut = 0;
  void *args[] = {&va, &vb, &n}, *results[] = {&result, &nOut};
  int64_t before = calls();
  EXPECT_INVALID(gpRtArtifactCall(artifact, entry("pair"), args, results),
                 "entry 'pair': argument 1 dimension 0 is 4, but argument 0 "
                 "dimension 0 is 3: the program uses them as one size (s0)");
  b.pop_back();
  vb = vec(b);
  n = 5;
  EXPECT_INVALID(gpRtArtifactCall(artifact, entry("pair"), args, results),
                 "entry 'pair': argument 2 is 5, but argument 0 dimension 0 "
                 "is 3: the program uses them as one size (s0)");
  args[2] = nullptr;
  EXPECT_INVALID(gpRtArtifactCall(artifact, entry("pair"), args, results),
                 "entry 'pair': argument 2 is null");
  EXPECT_EQ(calls(), before); // Nothing ran.

  // The same with padding on, and on a stream-ordered call.
  setCaptureSizes("1,2,4,8");
  args[2] = &n;
  EXPECT_INVALID(gpRtArtifactCallOnStream(artifact, entry("pair"), args,
                                          results, nullptr),
                 "argument 2 is 5, but argument 0 dimension 0 is 3");
  EXPECT_EQ(calls(), before);
  EXPECT_EQ(stats().paddedCalls, 0);

  n = 3;
  ASSERT_EQ(gpRtArtifactCall(artifact, entry("pair"), args, results),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  EXPECT_EQ(calls(), before + 1);
  ASSERT_EQ(result.size, 3);
  EXPECT_EQ(nOut, 3); // An index result of the class, set back too.
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_EQ(result.at(i), a[i] + b[i]);
  EXPECT_EQ(stats().paddedCalls, 1);
}

TEST_F(PaddingTest, AFixedSizeMustBeMet) {
  std::vector<float> a = random(3), b = random(3);
  Vec<float> va = vec(a), vb = vec(b), result{};
  void *args[] = {&va, &vb}, *results[] = {&result};
  int64_t before = calls();
  EXPECT_INVALID(gpRtArtifactCall(artifact, entry("fixed16"), args, results),
                 "entry 'fixed16': argument 0 dimension 0 is 3, but the "
                 "program fixes size 'x' at 16");
  a = random(16);
  va = vec(a);
  EXPECT_INVALID(gpRtArtifactCall(artifact, entry("fixed16"), args, results),
                 "entry 'fixed16': argument 1 dimension 0 is 3, but the "
                 "program fixes size 'x' at 16");
  EXPECT_EQ(calls(), before);
  b = random(16);
  vb = vec(b);
  setCaptureSizes("1,2,4,8"); // 16 is above them: a fixed size never pads.
  ASSERT_EQ(gpRtArtifactCall(artifact, entry("fixed16"), args, results),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  ASSERT_EQ(result.size, 16);
  for (int64_t i = 0; i < 16; ++i)
    EXPECT_EQ(result.at(i), a[i] + b[i]);
  EXPECT_EQ(stats().paddedCalls, 0);
  EXPECT_EQ(warnings.count("above the largest capture size"), 0);
}

//===----------------------------------------------------------------------===//
// Padding
//===----------------------------------------------------------------------===//

// Sizes 1..8, then 3, 5, 7 in rotation, fresh values every call: every call
// runs captured at a capture size, the results are exact and sliced back.
TEST_F(PaddingTest, CallsArePaddedToTheCaptureSizes) {
  setCaptureSizes("1,2,4,8");
  std::vector<float> w = random(4);
  std::vector<int64_t> sizes = {1, 2, 3, 4, 5, 6, 7, 8};
  for (int round = 0; round < 4; ++round)
    sizes.insert(sizes.end(), {3, 5, 7});
  int64_t padded = 0, rebinds = 0;
  // Every call's input at an address of its own (all kept alive).
  std::vector<std::vector<float>> inputs;
  inputs.reserve(sizes.size());
  for (size_t call = 0; call < sizes.size(); ++call) {
    int64_t rows = sizes[call];
    SCOPED_TRACE("rows " + std::to_string(rows));
    inputs.push_back(random(rows * 4));
    checkAffineIn(inputs.back(), w);
    padded += rows != 1 && rows != 2 && rows != 4 && rows != 8;
    if (call == 10) // Both keys captured, the pool at its largest.
      rebinds = stats().rebinds;
  }
  gpRtStats s = stats();
  EXPECT_EQ(s.paddedCalls, padded);
  // Keys 1 and 2 ran once (a warm-up each); 4 and 8 were captured once
  // each (a warm-up, a capture), then replayed.
  EXPECT_EQ(s.warmupRuns, 4);
  EXPECT_EQ(s.captures, 2);
  EXPECT_EQ(s.eagerRuns, 0);
  EXPECT_EQ(s.warmupRuns + s.replays, static_cast<int64_t>(sizes.size()));
  // The padded inputs are the staging buffers, which keep their addresses:
  // the callers' buffers at new addresses re-bind nothing.
  EXPECT_EQ(s.rebinds, rebinds);
  EXPECT_EQ(warnings.lines.size(), 0u);
}

// The same calls unpadded run eagerly at the sizes outside the list: what
// padding is for (and what the test above would see if it did nothing).
TEST_F(PaddingTest, PaddingOffRunsOtherSizesEagerly) {
  setCaptureSizes("1,2,4,8");
  ASSERT_EQ(gpRtArtifactSetPadding(artifact, 0), GP_RT_SUCCESS);
  std::vector<float> w = random(4);
  for (int64_t rows : {3, 5, 8, 3})
    checkAffine(random(rows * 4), w);
  EXPECT_EQ(stats().paddedCalls, 0);
  EXPECT_EQ(stats().eagerRuns, 3);
  ASSERT_EQ(gpRtArtifactSetPadding(artifact, 1), GP_RT_SUCCESS);
  checkAffine(random(3 * 4), w);
  EXPECT_EQ(stats().paddedCalls, 1);
  EXPECT_EQ(stats().eagerRuns, 3);
  EXPECT_INVALID(gpRtArtifactSetPadding(nullptr, 1), "null");

  // GP_PAD_TO_CAPTURE_SIZES=0 at load.
  setenv("GP_PAD_TO_CAPTURE_SIZES", "0", 1);
  load();
  setCaptureSizes("1,2,4,8");
  checkAffine(random(3 * 4), w);
  EXPECT_EQ(stats().paddedCalls, 0);
  EXPECT_EQ(stats().eagerRuns, 1);
  setenv("GP_PAD_TO_CAPTURE_SIZES", "on", 1);
  load();
  setCaptureSizes("1,2,4,8");
  checkAffine(random(3 * 4), w);
  EXPECT_EQ(stats().paddedCalls, 1);

  // Without capture sizes, or with capture off (an eager reference run),
  // nothing is padded.
  load();
  checkAffine(random(3 * 4), w);
  EXPECT_EQ(stats().paddedCalls, 0);
  setCaptureSizes("1,2,4,8");
  ASSERT_EQ(gpRtProgramSetCaptureEnabled(program, 0), GP_RT_SUCCESS);
  checkAffine(random(3 * 4), w);
  EXPECT_EQ(stats().paddedCalls, 0);
  // Capture sizes of two values are for partitions of two symbols.
  ASSERT_EQ(gpRtProgramSetCaptureEnabled(program, 1), GP_RT_SUCCESS);
  setCaptureSizes("2x3,4x5");
  checkAffine(random(3 * 4), w);
  EXPECT_EQ(stats().paddedCalls, 0);
}

// A padded position holds the last real position along its dimension, in
// every padded dimension (their corner too); the index argument of the
// class gets the padded size; results are views of the first positions.
TEST_F(PaddingTest, PaddedPositionsCopyTheLastRealOne) {
  struct Case {
    int64_t rows, cols, paddedRows, paddedCols;
  };
  int64_t padded = 0;
  for (Case c : {Case{3, 5, 4, 8}, Case{4, 3, 4, 4}, Case{1, 7, 1, 8},
                 Case{6, 1, 8, 1}, Case{5, 6, 8, 8}, Case{2, 2, 2, 2}}) {
    SCOPED_TRACE(std::to_string(c.rows) + "x" + std::to_string(c.cols));
    // A fresh staging buffer each: its first fill replicates.
    padded += stats().paddedCalls;
    unload();
    load();
    setCaptureSizes("1,2,4,8");
    std::vector<float> x = random(c.rows * c.cols);
    Peek peeked;
    ASSERT_EQ(peek(mat(x, c.rows, c.cols), peeked), GP_RT_SUCCESS)
        << gpRtGetLastError();
    ASSERT_EQ(peeked.seen.sizes[0], c.paddedRows);
    ASSERT_EQ(peeked.seen.sizes[1], c.paddedCols);
    EXPECT_EQ(peeked.k, c.paddedCols);
    for (int64_t i = 0; i < c.paddedRows; ++i)
      for (int64_t j = 0; j < c.paddedCols; ++j)
        ASSERT_EQ(peeked.seen.at(i, j),
                  x[std::min(i, c.rows - 1) * c.cols + std::min(j, c.cols - 1)])
            << "position " << i << ", " << j;
    ASSERT_EQ(peeked.plusOne.sizes[0], c.rows);
    ASSERT_EQ(peeked.plusOne.sizes[1], c.cols);
    EXPECT_EQ(peeked.plusOne.strides[0], c.paddedCols);
    EXPECT_EQ(peeked.plusOne.strides[1], 1);
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < c.cols; ++j)
        ASSERT_EQ(peeked.plusOne.at(i, j), x[i * c.cols + j] + 1);
  }
  padded += stats().paddedCalls;
  EXPECT_EQ(padded, 5); // 2x2 is at the capture sizes.
}

// Once a staging buffer's padded positions were filled, later calls leave
// what is there: elements earlier callers passed (as safe as copies of
// this call's, since positions are computed apart), with no copies to make
// them; the results are this call's.
TEST_F(PaddingTest, LaterCallsKeepEarlierElementsInPaddedPositions) {
  setCaptureSizes("1,2,4,8");
  std::vector<float> seenValues;
  for (auto [rows, cols] : {std::pair{5, 6}, std::pair{3, 5},
                            std::pair{4, 3}, std::pair{7, 7}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    std::vector<float> x = random(rows * cols);
    seenValues.insert(seenValues.end(), x.begin(), x.end());
    Peek peeked;
    ASSERT_EQ(peek(mat(x, rows, cols), peeked), GP_RT_SUCCESS)
        << gpRtGetLastError();
    int64_t paddedRows = peeked.seen.sizes[0], paddedCols = peeked.seen.sizes[1];
    for (int64_t i = 0; i < paddedRows; ++i)
      for (int64_t j = 0; j < paddedCols; ++j) {
        float value = peeked.seen.at(i, j);
        if (i < rows && j < cols)
          ASSERT_EQ(value, x[i * cols + j]);
        else
          ASSERT_NE(std::find(seenValues.begin(), seenValues.end(), value),
                    seenValues.end())
              << "position " << i << ", " << j << " holds " << value
              << ", which no call passed";
      }
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        ASSERT_EQ(peeked.plusOne.at(i, j), x[i * cols + j] + 1);
  }
}

// Empty along a padded dimension: the padding is zeros.
TEST_F(PaddingTest, AnEmptySizeIsPaddedWithZeros) {
  setCaptureSizes("1,2,4,8");
  std::vector<float> none;
  Peek peeked;
  ASSERT_EQ(peek(Mat{nullptr, nullptr, 0, {0, 3}, {3, 1}}, peeked),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  ASSERT_EQ(peeked.seen.sizes[0], 1);
  ASSERT_EQ(peeked.seen.sizes[1], 4);
  for (int64_t j = 0; j < 4; ++j)
    EXPECT_EQ(peeked.seen.at(0, j), 0.0f);
  EXPECT_EQ(peeked.plusOne.sizes[0], 0);
  EXPECT_EQ(peeked.plusOne.sizes[1], 3);
}

// Edge padding keeps a program from doing what no real position would:
// divide's padding is a copy of the last divisor, never a zero.
TEST_F(PaddingTest, EdgePaddingCannotDivideByZero) {
  setCaptureSizes("1,2,4,8");
  for (int64_t n : {3, 5, 6, 7}) {
    std::vector<int32_t> x(n), d(n);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = static_cast<int32_t>(100 * (i + 1));
      d[i] = static_cast<int32_t>(i + 1);
    }
    Vec<int32_t> vx = vec(x), vd = vec(d), result{};
    void *args[] = {&vx, &vd}, *results[] = {&result};
    ASSERT_EQ(gpRtArtifactCall(artifact, entry("divide"), args, results),
              GP_RT_SUCCESS)
        << gpRtGetLastError();
    ASSERT_EQ(result.size, n);
    for (int64_t i = 0; i < n; ++i)
      EXPECT_EQ(result.at(i), 100);
  }
  EXPECT_EQ(stats().paddedCalls, 4);
}

TEST_F(PaddingTest, AboveTheLargestCaptureSizeWarnsOnceAndRuns) {
  setCaptureSizes("1,2,4,8");
  std::vector<float> w = random(4);
  for (int64_t rows : {9, 10, 9, 3})
    checkAffine(random(rows * 4), w);
  EXPECT_EQ(warnings.count("entry 'affine': size rows = 9 is above the "
                           "largest capture size 8: runs at its own size"),
            1);
  EXPECT_EQ(warnings.count("above the largest capture size"), 1);
  EXPECT_EQ(stats().paddedCalls, 1);
  EXPECT_EQ(stats().eagerRuns, 3);
  // Once per entry and size class: peek's rows and cols each warn.
  std::vector<float> x = random(9 * 10);
  Peek peeked;
  ASSERT_EQ(peek(mat(x, 9, 10), peeked), GP_RT_SUCCESS);
  ASSERT_EQ(peek(mat(x, 10, 9), peeked), GP_RT_SUCCESS);
  EXPECT_EQ(warnings.count("entry 'peek': size rows = 9"), 1);
  EXPECT_EQ(warnings.count("entry 'peek': size cols = 10"), 1);
  EXPECT_EQ(warnings.count("above the largest capture size"), 3);
  // A size above the list pads nothing, but another size of the call may.
  std::vector<float> y = random(9 * 3);
  ASSERT_EQ(peek(mat(y, 9, 3), peeked), GP_RT_SUCCESS);
  EXPECT_EQ(peeked.seen.sizes[0], 9);
  EXPECT_EQ(peeked.seen.sizes[1], 4);
  EXPECT_EQ(peeked.plusOne.sizes[1], 3);
}

TEST_F(PaddingTest, AStridedArgumentRunsUnpaddedWithOneWarning) {
  setCaptureSizes("1,2,4,8");
  std::vector<float> x = random(5 * 3);
  // x transposed: 3 rows of 5, column-major.
  Mat transposed{x.data(), x.data(), 0, {3, 5}, {1, 3}};
  Peek peeked;
  for (int call = 0; call < 2; ++call) {
    ASSERT_EQ(peek(transposed, peeked), GP_RT_SUCCESS) << gpRtGetLastError();
    ASSERT_EQ(peeked.seen.sizes[0], 3);
    ASSERT_EQ(peeked.seen.sizes[1], 5);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 5; ++j)
        ASSERT_EQ(peeked.seen.at(i, j), x[j * 3 + i]);
  }
  EXPECT_EQ(warnings.count("entry 'peek': argument 0 is not row-major (sizes "
                           "[3, 5], strides [1, 3]): calls whose sizes would "
                           "be padded to a capture size run at their own "
                           "sizes"),
            1);
  EXPECT_EQ(warnings.lines.size(), 1u);
  EXPECT_EQ(stats().paddedCalls, 0);
  // A row-major view with an offset pads.
  Mat inner{x.data(), x.data(), 5, {2, 5}, {5, 1}};
  ASSERT_EQ(peek(inner, peeked), GP_RT_SUCCESS);
  EXPECT_EQ(peeked.seen.sizes[1], 8);
  EXPECT_EQ(peeked.seen.at(1, 7), x[14]);
  EXPECT_EQ(stats().paddedCalls, 1);
}

TEST_F(PaddingTest, ANopadSizeIsNeverPadded) {
  setCaptureSizes("1,2,4,8");
  std::vector<float> x = {1, 2, 3};
  Vec<float> vx = vec(x);
  Scalar result{};
  void *args[] = {&vx}, *results[] = {&result};
  ASSERT_EQ(gpRtArtifactCall(artifact, entry("total"), args, results),
            GP_RT_SUCCESS);
  EXPECT_EQ(result.aligned[result.offset], 6.0f); // Not 9: no padded 3.
  EXPECT_EQ(stats().paddedCalls, 0);
}

// A meta buffer carries its size only: padded without reading its data.
TEST_F(PaddingTest, MetaArgumentsArePaddedInSizeOnly) {
  setCaptureSizes("1,2,4,8");
  std::vector<float> x = random(5);
  Vec<float> vx = vec(x), meta{nullptr, nullptr, 0, 5, 1}, result{};
  void *args[] = {&vx, &meta}, *results[] = {&result};
  ASSERT_EQ(gpRtArtifactCall(artifact, entry("masked"), args, results),
            GP_RT_SUCCESS)
      << gpRtGetLastError();
  ASSERT_EQ(result.size, 5);
  for (int64_t i = 0; i < 5; ++i)
    EXPECT_EQ(result.at(i), 3 * x[i]);
  EXPECT_EQ(stats().paddedCalls, 1);
}

TEST_F(PaddingTest, DefaultCaptureSizes) {
  std::vector<float> x = random(300 * 9);
  Peek peeked;
  // The API, the environment and the manifest all take the word.
  setCaptureSizes("default");
  ASSERT_EQ(peek(mat(x, 300, 9), peeked), GP_RT_SUCCESS);
  EXPECT_EQ(peeked.seen.sizes[0], 304); // Multiples of 16 past 256.
  EXPECT_EQ(peeked.seen.sizes[1], 16);  // Multiples of 8 up to 256.
  setenv("GP_CUDAGRAPH_CAPTURE_SIZES", "default", 1);
  load();
  ASSERT_EQ(peek(mat(x, 9, 300), peeked), GP_RT_SUCCESS);
  EXPECT_EQ(peeked.seen.sizes[0], 16);
  EXPECT_EQ(peeked.seen.sizes[1], 304);
  unsetenv("GP_CUDAGRAPH_CAPTURE_SIZES");
  std::string manifest =
      replaced("capture-sizes -", "capture-sizes default");
  load(manifest.c_str());
  std::vector<float> small = random(3 * 255);
  ASSERT_EQ(peek(mat(small, 3, 255), peeked), GP_RT_SUCCESS);
  EXPECT_EQ(peeked.seen.sizes[0], 4);
  EXPECT_EQ(peeked.seen.sizes[1], 256);
  std::vector<float> large = random(513);
  ASSERT_EQ(peek(mat(large, 513, 1), peeked), GP_RT_SUCCESS);
  EXPECT_EQ(peeked.seen.sizes[0], 513);
  EXPECT_EQ(warnings.count("size rows = 513 is above the largest capture "
                           "size 512"),
            1);
  // Mixed with other sizes of one value; not with tuples.
  setCaptureSizes("default,1024");
  std::vector<float> big = random(600);
  ASSERT_EQ(peek(mat(big, 600, 1), peeked), GP_RT_SUCCESS);
  EXPECT_EQ(peeked.seen.sizes[0], 1024);
  EXPECT_INVALID(gpRtArtifactSetCaptureSizes(artifact, "2x3,default"),
                 "gpRtArtifactSetCaptureSizes: capture sizes '2x3,default': "
                 "'default' has 1 size but the entries before it have 2");
  ASSERT_EQ(gpRtArtifactSetCaptureSizes(artifact, "-"), GP_RT_SUCCESS);
  ASSERT_EQ(peek(mat(small, 3, 255), peeked), GP_RT_SUCCESS);
  EXPECT_EQ(peeked.seen.sizes[0], 3);
}

// The manifest's list is read with the same parser as the option and the
// environment (CaptureSizes.h): a malformed one fails the load, naming it.
TEST_F(PaddingTest, MalformedManifestCaptureSizesFailTheLoad) {
  unload();
  for (const char *bad : {"capture-sizes 4,x", "capture-sizes 1,2x3"}) {
    std::string manifest = replaced("capture-sizes -", bad);
    Library::get().setManifest(manifest.c_str());
    gpRtArtifact *loaded = nullptr;
    EXPECT_INVALID(
        gpRtArtifactLoad(kArtifact, GP_RT_BACKEND_HOST, -1, &loaded),
        "artifact manifest: capture-sizes: capture sizes '");
    EXPECT_EQ(loaded, nullptr);
  }
  Library::get().setManifest(nullptr);
}

TEST_F(PaddingTest, StagingMemoryIsReleasedAtUnload) {
  unload();
  int64_t programs0, graphs0, streams0, pool0;
  ASSERT_EQ(gpRtGetLiveCounts(&programs0, &graphs0, &streams0, &pool0),
            GP_RT_SUCCESS);
  load();
  setCaptureSizes("1,2,4,8");
  std::vector<float> w = random(4);
  checkAffine(random(3 * 4), w);
  std::vector<float> x = random(5 * 7);
  Peek peeked;
  ASSERT_EQ(peek(mat(x, 5, 7), peeked), GP_RT_SUCCESS);
  std::thread other([&] {
    std::vector<float> y = random(3 * 3);
    Peek theirs;
    EXPECT_EQ(peek(mat(y, 3, 3), theirs), GP_RT_SUCCESS);
    EXPECT_EQ(theirs.seen.sizes[0], 4);
  });
  other.join();
  int64_t programs, graphs, streams, pool;
  gpRtGetLiveCounts(&programs, &graphs, &streams, &pool);
  // The arena and the partition's pool, and the staging buffers (x of
  // affine; x of peek on two threads).
  EXPECT_GE(pool, pool0 + 256 + 3 * 256);
  unload();
  gpRtGetLiveCounts(&programs, &graphs, &streams, &pool);
  EXPECT_EQ(pool, pool0);
  EXPECT_EQ(programs, programs0);
}

// Threads padding the same entry at once each use their own staging.
TEST_F(PaddingTest, ThreadsPadIntoTheirOwnStaging) {
  setCaptureSizes("1,2,4,8");
  std::vector<float> w = random(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::mt19937 local(t);
      std::uniform_real_distribution<float> values(-8, 8);
      for (int call = 0; call < 50; ++call) {
        int64_t rows = 1 + (call * 7 + t) % 8;
        std::vector<float> x(rows * 4);
        for (float &value : x)
          value = values(local);
        Mat arg = mat(x, rows, 4), out{};
        Vec<float> weights = vec(w);
        void *args[] = {&arg, &weights}, *results[] = {&out};
        ASSERT_EQ(gpRtArtifactCall(artifact, entry("affine"), args, results),
                  GP_RT_SUCCESS);
        ASSERT_EQ(out.sizes[0], rows);
        for (int64_t i = 0; i < rows * 4; ++i)
          ASSERT_EQ(out.aligned[out.offset + i], 2 * x[i] + w[i % 4]);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_GT(stats().paddedCalls, 0);
  EXPECT_EQ(stats().eagerRuns, 0);
}

// The overwrite debug mode sees the sliced results.
TEST_F(PaddingTest, DebugOverwriteKeepsTheSlicedResult) {
  setCaptureSizes("1,2,4,8");
  ASSERT_EQ(gpRtArtifactSetDebugOverwrite(artifact, 1), GP_RT_SUCCESS);
  std::vector<float> w = random(4);
  std::vector<float> x = random(3 * 4);
  Mat arg = mat(x, 3, 4), out{};
  Vec<float> weights = vec(w);
  void *args[] = {&arg, &weights}, *results[] = {&out};
  ASSERT_EQ(gpRtArtifactCall(artifact, entry("affine"), args, results),
            GP_RT_SUCCESS);
  int64_t bytes = 0;
  ASSERT_EQ(gpRtArtifactResultBytes(artifact, entry("affine"), 0, &out, &bytes),
            GP_RT_SUCCESS);
  EXPECT_EQ(bytes, 3 * 4 * 4);
  std::vector<float> copied(12);
  ASSERT_EQ(gpRtArtifactCopyResultToHost(artifact, entry("affine"), 0, &out,
                                         copied.data(), bytes),
            GP_RT_SUCCESS);
  for (int64_t i = 0; i < 12; ++i)
    EXPECT_EQ(copied[i], 2 * x[i] + w[i % 4]);
}

//===----------------------------------------------------------------------===//
// gp-run
//===----------------------------------------------------------------------===//

/// Runs gp-run with `arguments` (a shell command line's tail) and returns
/// its stdout; `status` gets the exit status.
std::string runGpRun(const std::string &environment,
                     const std::string &arguments, int &status) {
  std::string command = environment + " " + kGpRun + " " + kArtifact + " " +
                        arguments + " 2>&1";
  FILE *pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof(buffer), pipe))
    out.append(buffer, n);
  int raw = pclose(pipe);
  status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

TEST_F(PaddingTest, GpRunReportsSizesAndPaddedCalls) {
  int status = 0;
  std::string out =
      runGpRun("GP_CUDAGRAPH_CAPTURE_SIZES=1,2,4,8",
               "--entry affine --input 3x4xf32=random --input 4xf32=random "
               "--iterations 5 --check --print-partitions",
               status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("entry affine sizes:\n  size rows (argument 0 dimension "
                     "0, result 0 dimension 0): padded to the capture sizes\n"
                     "entry peek sizes:\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  size n (argument 0 dimension 0): not padded: "
                     "'linalg.generic' in kernel 'sum' reduces along it\n"),
            std::string::npos)
      << out;
  // One warm-up step, five timed, five check steps (the eager instance
  // runs unpadded: it checks the padded calls).
  EXPECT_NE(out.find("check: ok"), std::string::npos) << out;
  EXPECT_NE(out.find("  padded calls: 11\n"), std::string::npos) << out;

  out = runGpRun("GP_CUDAGRAPH_CAPTURE_SIZES=1,2,4,8",
                 "--entry peek --entry total --input 3x5xf32=random --input 5 "
                 "--input 3xf32=random --iterations 2 --json",
                 status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("\"sizes\": {\"peek\": [{\"name\": \"rows\", \"padded\": "
                     "true, \"reason\": null, \"fixed\": null}, {\"name\": "
                     "\"cols\", \"padded\": true, \"reason\": null, "
                     "\"fixed\": null}], \"total\": [{\"name\": \"n\", "
                     "\"padded\": false, \"reason\": \"'linalg.generic' in "
                     "kernel 'sum' reduces along it\", \"fixed\": null}]},"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\"paddedCalls\": 3}"), std::string::npos) << out;

  // Sizes the program uses as one, given apart: the call fails naming both.
  out = runGpRun("", "--entry pair --input 3xf32=1 --input 4xf32=2 --input 3",
                 status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("entry 'pair': argument 1 dimension 0 is 4, but argument "
                     "0 dimension 0 is 3: the program uses them as one size "
                     "(s0)"),
            std::string::npos)
      << out;
}

} // namespace
