//===- SafeTensorsTest.cpp - gp-run's safetensors header reader -----------===//
//
// The strict header parser of tools/gp-run/SafeTensors.cpp (GPRunSupport),
// on headers that are right and on each way one can be wrong. Here rather
// than in unittests/Tools because it came with the runtime's parameters.
//
//===----------------------------------------------------------------------===//

#include "SafeTensors.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using gp::run::parseSafeTensorsHeader;
using gp::run::SafeTensor;

TEST(SafeTensors, ReadsTensorsAndMetadata) {
  std::map<std::string, SafeTensor> tensors;
  std::string error;
  ASSERT_TRUE(parseSafeTensorsHeader(
      R"( {"__metadata__": {"format": "pt"},
           "h.0.w": {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 12]},
           "b\u00e9\"\n": {"data_offsets": [12, 13], "shape": [], "dtype": "BOOL"},
           "q": {"dtype": "F8_E4M3", "shape": [5], "data_offsets": [13, 18]}}   )",
      18, tensors, error))
      << error;
  ASSERT_EQ(tensors.size(), 3u);
  EXPECT_EQ(tensors["h.0.w"].dtype, "BF16");
  EXPECT_EQ(tensors["h.0.w"].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(tensors["h.0.w"].end, 12u);
  EXPECT_EQ(tensors["b\xc3\xa9\"\n"].shape, std::vector<int64_t>{});
  // A dtype gp-run does not read is listed; only its offsets are checked.
  EXPECT_EQ(tensors["q"].dtype, "F8_E4M3");
  int bytes = 0;
  EXPECT_EQ(gp::run::safeTensorElementType("BF16", bytes), "bf16");
  EXPECT_EQ(bytes, 2);
  EXPECT_EQ(gp::run::safeTensorElementType("U8", bytes), "ui8");
  EXPECT_EQ(gp::run::safeTensorElementType("BOOL", bytes), "i1");
  EXPECT_EQ(gp::run::safeTensorElementType("F8_E4M3", bytes), "");
}

TEST(SafeTensors, RefusesWhatIsNotRight) {
  const char *t = R"("t": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]})";
  struct Case {
    std::string header, message;
  } cases[] = {
      {"", "the header ends early"},
      {"[]", "the header is not a JSON object"},
      {std::string("{") + t, "expected ',' or '}'"},
      {std::string("{") + t + "} x", "unexpected text after"},
      {std::string("{") + t + ", " + t + "}", "the key 't' appears twice"},
      {R"({"t": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "x": 1}})",
       "tensor 't': unknown key 'x'"},
      {R"({"t": {"dtype": "F32", "shape": [2]}})", "tensor 't': no 'data_offsets'"},
      {R"({"t": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})",
       "'shape' holds something other than sizes"},
      {R"({"t": {"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]}})",
       "'shape' holds something other than sizes"},
      {R"({"t": {"dtype": "F32", "shape": [2], "data_offsets": [0]}})",
       "'data_offsets' is not [begin, end]"},
      {R"({"t": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}})",
       "data_offsets [8, 0] are not within the 16 bytes of data"},
      {R"({"t": {"dtype": "F32", "shape": [2], "data_offsets": [8, 24]}})",
       "are not within the 16 bytes"},
      {R"({"t": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})",
       "F32 of that shape takes 12 bytes, data_offsets give 8"},
      {R"({"t": {"dtype": "F32", "shape": [4611686018427387904, 4], "data_offsets": [0, 8]}})",
       "more elements than can be counted"},
      {R"({"t": {"dtype": 7, "shape": [2], "data_offsets": [0, 8]}})",
       "'dtype' is not a string"},
      {R"({"__metadata__": {"a": 1}})", "__metadata__ 'a' is not a string"},
      {R"({"t": "x"})", "tensor 't': not an object"},
      {"{\"t\x01\": 1}", "a control character in a string"},
      {R"({"t\q": 1})", "a bad escape in a string"},
      {R"({"\ud800": 1})", "an unpaired surrogate"},
      {R"({"t": 01})", "a number with a leading zero"},
      {R"({"t": tru})", "not JSON"},
      {std::string(100, '[') + std::string(100, ']'), "nested too deeply"},
  };
  for (const Case &c : cases) {
    std::map<std::string, SafeTensor> tensors;
    std::string error;
    EXPECT_FALSE(parseSafeTensorsHeader(c.header, 16, tensors, error))
        << c.header;
    EXPECT_NE(error.find(c.message), std::string::npos)
        << "header " << c.header << ": " << error;
  }
}

} // namespace
