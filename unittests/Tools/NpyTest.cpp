//===- NpyTest.cpp - tests of GPRunSupport's .npy files and types ---------===//
//
// Round trips of every element type through .npy files, headers as NumPy
// writes them, and malformed files rejected with a message (not a crash).
//
//===----------------------------------------------------------------------===//

#include "Npy.h"
#include "ElementType.h"

#include <gtest/gtest.h>

#include <cmath>

#include <cstring>
#include <fstream>
#include <sstream>

using namespace gp::run;

namespace {

/// The element types a .npy file can hold, each with the dtype it is
/// written as.
const std::pair<const char *, const char *> kNpyTypes[] = {
    {"f32", "<f4"}, {"f64", "<f8"}, {"f16", "<f2"}, {"i64", "<i8"},
    {"i32", "<i4"}, {"i16", "<i2"}, {"i8", "|i1"},  {"i1", "|b1"},
    {"bf16", "<u2"},
};

/// A path in the test's temporary directory, unique per test.
std::string tempPath(const std::string &suffix) {
  const testing::TestInfo *test =
      testing::UnitTest::GetInstance()->current_test_info();
  return testing::TempDir() + "gp-npy-" + test->test_suite_name() + "-" +
         test->name() + suffix;
}

/// An array of `type` and `shape` whose bytes count up from `seed`.
Array makeArray(const char *type, std::vector<int64_t> shape, int seed = 1) {
  Array array;
  array.type = findElementType(type);
  array.shape = std::move(shape);
  array.data.resize(array.count() * array.type->bytes);
  for (size_t i = 0; i < array.data.size(); ++i)
    array.data[i] = static_cast<uint8_t>(seed + i * 7);
  return array;
}

/// A .npy file's bytes: magic, version, header length, header, data.
std::string npyBytes(const std::string &header, const std::string &data = "",
                     int major = 1) {
  std::string bytes = std::string("\x93NUMPY", 6) + char(major) + '\0';
  if (major == 1) {
    uint16_t length = header.size();
    bytes.append(reinterpret_cast<const char *>(&length), 2);
  } else {
    uint32_t length = header.size();
    bytes.append(reinterpret_cast<const char *>(&length), 4);
  }
  return bytes + header + data;
}

/// Reads `bytes` as a .npy stream; returns the error, empty on success.
std::string readError(const std::string &bytes, Array *array = nullptr) {
  std::istringstream in(bytes);
  Array scratch;
  std::string error;
  bool ok = readNpy(in, "x.npy", array ? *array : scratch, error);
  EXPECT_EQ(ok, error.empty()) << error;
  return ok ? "" : error;
}

std::string writeToString(const Array &array) {
  std::ostringstream out;
  writeNpy(out, array);
  return out.str();
}

TEST(ElementTypeTest, FindsRuntimeNamesAndNpyDescrs) {
  for (auto [name, npy] : kNpyTypes) {
    const ElementType *type = findElementType(name);
    ASSERT_NE(type, nullptr) << name;
    EXPECT_STREQ(type->npy, npy);
    EXPECT_EQ(findNpyElementType(npy), type) << npy;
  }
  EXPECT_EQ(findElementType("f8E4M3FN")->bytes, 1);
  EXPECT_EQ(findElementType("bf16")->bytes, 2);
  EXPECT_EQ(findElementType("<f4"), nullptr);
  // f8 results are written as their bytes ('|u1') but not read back as f8.
  EXPECT_STREQ(findElementType("f8E4M3FN")->npy, "|u1");
  EXPECT_EQ(findNpyElementType("|u1"), nullptr);
  // bf16 is its raw bits ('<u2') both ways: numpy has no bf16.
  EXPECT_STREQ(findElementType("bf16")->npy, "<u2");
  EXPECT_EQ(findNpyElementType("<u2"), findElementType("bf16"));
  // Only little-endian (or byte-sized) dtypes.
  EXPECT_EQ(findNpyElementType(">f4"), nullptr);
  EXPECT_EQ(findNpyElementType("=f4"), nullptr);
  EXPECT_EQ(findNpyElementType("f32"), nullptr);
}

TEST(ElementTypeTest, SetAndGetElements) {
  for (const char *name : {"f32", "f64", "i64", "i32", "i16", "i8"}) {
    Array array = makeArray(name, {3});
    setElement(array, 0, -5);
    setElement(array, 1, 0);
    setElement(array, 2, 100);
    EXPECT_EQ(element(array, 0), -5) << name;
    EXPECT_EQ(element(array, 1), 0) << name;
    EXPECT_EQ(element(array, 2), 100) << name;
  }
  Array f32 = makeArray("f32", {1});
  setElement(f32, 0, 0.25);
  EXPECT_EQ(element(f32, 0), 0.25);
  Array i32 = makeArray("i32", {1});
  setElement(i32, 0, 2.75); // Truncated, as a C++ conversion does.
  EXPECT_EQ(element(i32, 0), 2);
  Array i1 = makeArray("i1", {2});
  setElement(i1, 0, 0.5);
  setElement(i1, 1, 0);
  EXPECT_EQ(i1.data, (std::vector<uint8_t>{1, 0}));
  // f16 and bf16 store the nearest value (ties to even) and read it back.
  Array f16 = makeArray("f16", {8});
  const double halfIn[] = {3, -0.1, 65504, 65519, 65520, 1.0 / (1 << 24),
                           1.0 / (1 << 25), 1 + 1.0 / 2048};
  const double halfOut[] = {3,
                            -0.0999755859375,
                            65504,
                            65504,
                            INFINITY,
                            1.0 / (1 << 24),
                            0, // a tie between 0 and the smallest: even
                            1};
  const uint16_t halfBits[] = {0x4200, 0xAE66, 0x7BFF, 0x7BFF,
                               0x7C00, 0x0001, 0x0000, 0x3C00};
  for (int i = 0; i < 8; ++i) {
    setElement(f16, i, halfIn[i]);
    EXPECT_EQ(element(f16, i), halfOut[i]) << halfIn[i];
    uint16_t bits;
    std::memcpy(&bits, f16.data.data() + 2 * i, 2);
    EXPECT_EQ(bits, halfBits[i]) << halfIn[i];
  }
  Array bf16 = makeArray("bf16", {3});
  setElement(bf16, 0, 3);
  setElement(bf16, 1, 1 + 1.0 / 256); // a tie: to 1 (even)
  setElement(bf16, 2, -1 - 3.0 / 256); // a tie: to -1 - 4/256 (even)
  EXPECT_EQ(element(bf16, 0), 3);
  EXPECT_EQ(element(bf16, 1), 1);
  EXPECT_EQ(element(bf16, 2), -1 - 4.0 / 256);
  // f8E4M3FN takes the value as its raw byte.
  Array f8 = makeArray("f8E4M3FN", {1});
  setElement(f8, 0, 7);
  EXPECT_EQ(f8.data[0], 7);
  EXPECT_EQ(element(f8, 0), 7);
}

// What setElement may be given (gp-run checks constants with it; scripts/
// fuzz.sh found an i64 constant of 1.1e43, whose conversion was undefined).
TEST(ElementTypeTest, RepresentableValues) {
  const ElementType &i64 = *findElementType("i64");
  const ElementType &i8 = *findElementType("i8");
  const ElementType &f32 = *findElementType("f32");
  const ElementType &f8 = *findElementType("f8E4M3FN");
  EXPECT_TRUE(representable(i64, -9.2e18));
  EXPECT_FALSE(representable(i64, 1.1e43));
  EXPECT_FALSE(representable(i64, 9223372036854775808.0));
  EXPECT_FALSE(representable(i64, std::nan("")));
  EXPECT_TRUE(representable(i8, 127.9)); // Truncates to 127.
  EXPECT_FALSE(representable(i8, 128));
  EXPECT_TRUE(representable(i8, -128));
  EXPECT_TRUE(representable(f32, 3e38));
  EXPECT_FALSE(representable(f32, 1e300));
  EXPECT_TRUE(representable(f32, INFINITY));
  EXPECT_TRUE(representable(f8, 255));
  EXPECT_FALSE(representable(f8, -1));
}

TEST(NpyTest, RoundTripsEveryTypeAndRank) {
  const std::vector<std::vector<int64_t>> shapes = {{},        {5}, {2, 3},
                                                    {2, 1, 4}, {0}, {3, 0}};
  for (auto [name, npy] : kNpyTypes) {
    for (const std::vector<int64_t> &shape : shapes) {
      SCOPED_TRACE(std::string(name) + " rank " + std::to_string(shape.size()));
      Array array = makeArray(name, shape);
      std::string path = tempPath(std::string(".") + name + ".npy");
      std::string error;
      ASSERT_TRUE(writeNpy(path, array, error)) << error;
      Array back;
      ASSERT_TRUE(readNpy(path, back, error)) << error;
      EXPECT_EQ(back.type, array.type);
      EXPECT_EQ(back.shape, array.shape);
      EXPECT_EQ(back.data, array.data);
      std::remove(path.c_str());
    }
  }
}

TEST(NpyTest, WritesNumPyHeaders) {
  // Version 1.0, a dict NumPy parses, padded with spaces and a newline so
  // that the data starts on a 64-byte boundary.
  auto header = [](const Array &array) {
    std::string bytes = writeToString(array);
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    uint16_t length;
    std::memcpy(&length, bytes.data() + 8, 2);
    EXPECT_EQ((10 + length) % 64, 0);
    EXPECT_EQ(bytes.size(), 10 + length + array.data.size());
    std::string text = bytes.substr(10, length);
    EXPECT_EQ(text.back(), '\n');
    return text.substr(0, text.find_last_not_of(" \n") + 1);
  };
  EXPECT_EQ(header(makeArray("f32", {2, 3})),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,3), }");
  EXPECT_EQ(header(makeArray("i8", {5})),
            "{'descr': '|i1', 'fortran_order': False, 'shape': (5,), }");
  EXPECT_EQ(header(makeArray("i1", {})),
            "{'descr': '|b1', 'fortran_order': False, 'shape': (), }");
  EXPECT_EQ(header(makeArray("f8E4M3FN", {4})),
            "{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }");
}

TEST(NpyTest, ReadsNumPyWrittenFiles) {
  // NumPy's own spacing, key order and padding.
  std::string data(2 * 3 * 4, '\x11');
  Array array;
  EXPECT_EQ(readError(npyBytes("{'descr': '<i4', 'fortran_order': False, "
                               "'shape': (2, 3), }          \n",
                               data),
                      &array),
            "");
  EXPECT_EQ(array.type, findElementType("i32"));
  EXPECT_EQ(array.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(array.data, std::vector<uint8_t>(data.begin(), data.end()));
  // Keys in another order, a version 2.0 header (4-byte length).
  EXPECT_EQ(readError(npyBytes("{'shape': (4,), 'fortran_order': False, "
                               "'descr': '<f8'}\n",
                               std::string(32, '\0'), 2),
                      &array),
            "");
  EXPECT_EQ(array.type, findElementType("f64"));
  EXPECT_EQ(array.shape, (std::vector<int64_t>{4}));
  // Python 2's long literals.
  EXPECT_EQ(readError(npyBytes("{'descr': '|b1', 'fortran_order': False, "
                               "'shape': (2L, 1L), }\n",
                               std::string("\x01\x00", 2)),
                      &array),
            "");
  EXPECT_EQ(array.shape, (std::vector<int64_t>{2, 1}));
  // Data beyond the array's size is ignored.
  EXPECT_EQ(readError(npyBytes("{'descr': '|i1', 'fortran_order': False, "
                               "'shape': (1,), }\n",
                               "\x05\x06"),
                      &array),
            "");
  EXPECT_EQ(array.data, (std::vector<uint8_t>{5}));
}

TEST(NpyTest, RejectsWhatItCannotRead) {
  const std::string good = "{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (2,), }\n";
  const std::string data(8, '\0');
  EXPECT_EQ(readError(npyBytes(good, data)), "");

  EXPECT_EQ(readError(""), "'x.npy' is not a .npy file");
  EXPECT_EQ(readError("\x93NUMP"), "'x.npy' is not a .npy file");
  EXPECT_EQ(readError("PK\x03\x04 a zip file"), "'x.npy' is not a .npy file");
  // Fortran order and big-endian data are refused, not misread.
  EXPECT_EQ(readError(npyBytes("{'descr': '<f4', 'fortran_order': True, "
                               "'shape': (2,), }\n",
                               data)),
            "'x.npy': fortran order is not supported");
  EXPECT_EQ(readError(npyBytes("{'descr': '>f4', 'fortran_order': False, "
                               "'shape': (2,), }\n",
                               data)),
            "'x.npy': unsupported dtype >f4");
  EXPECT_EQ(readError(npyBytes("{'descr': '<c8', 'fortran_order': False, "
                               "'shape': (2,), }\n",
                               data)),
            "'x.npy': unsupported dtype <c8");
  EXPECT_EQ(readError(npyBytes("{'descr': '|u1', 'fortran_order': False, "
                               "'shape': (2,), }\n",
                               data)),
            "'x.npy': unsupported dtype |u1");
  // Data shorter than the shape says.
  EXPECT_EQ(readError(npyBytes(good, data.substr(0, 7))),
            "'x.npy': truncated data");
}

TEST(NpyTest, RejectsMalformedHeaders) {
  const std::string data(8, '\0');
  EXPECT_EQ(
      readError(npyBytes("{'fortran_order': False, 'shape': (2,), }\n", data)),
      "'x.npy': header lacks descr");
  EXPECT_EQ(readError(npyBytes("{'descr': '<f4', 'shape': (2,), }\n", data)),
            "'x.npy': header lacks fortran_order");
  EXPECT_EQ(
      readError(npyBytes("{'descr': '<f4', 'fortran_order': False}\n", data)),
      "'x.npy': header lacks shape");
  // A header cut short by the end of the file.
  EXPECT_EQ(readError(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (2,), }\n")
                          .substr(0, 30)),
            "'x.npy': header lacks fortran_order");
  // Magic and version only: no header length.
  EXPECT_EQ(readError(std::string("\x93NUMPY\x01\x00", 8)),
            "'x.npy': header lacks descr");
  // A header length far beyond the file is a short read, not an allocation.
  std::string huge = std::string("\x93NUMPY\x02\x00", 8) + "\xff\xff\xff\xff";
  EXPECT_EQ(readError(huge), "'x.npy': header lacks descr");
  // Dimensions that are not non-negative integers in range.
  auto withShape = [&](const std::string &shape) {
    return readError(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                              "'shape': " +
                                  shape + ", }\n",
                              data));
  };
  EXPECT_EQ(withShape("(x5,)"), "'x.npy': bad shape (x5,)");
  EXPECT_EQ(withShape("(-2,)"), "'x.npy': bad shape (-2,)");
  EXPECT_EQ(withShape("(99999999999999999999,)"),
            "'x.npy': bad shape (99999999999999999999,)");
  EXPECT_EQ(withShape("(4294967296, 4294967296)"),
            "'x.npy': bad shape (4294967296, 4294967296)");
  // A shape far larger than the file fails as truncated data without
  // allocating its size first.
  EXPECT_EQ(withShape("(1000000000000,)"), "'x.npy': truncated data");
}

TEST(NpyTest, ReportsFilesItCannotOpen) {
  std::string error;
  Array array;
  std::string missing = tempPath(".missing.npy");
  EXPECT_FALSE(readNpy(missing, array, error));
  EXPECT_EQ(error, "cannot open '" + missing + "'");
  std::string inNoDirectory = tempPath(".no-such-dir/out.npy");
  EXPECT_FALSE(writeNpy(inNoDirectory, makeArray("f32", {1}), error));
  EXPECT_EQ(error, "cannot write '" + inNoDirectory + "'");
}

} // namespace
