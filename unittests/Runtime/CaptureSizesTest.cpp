//===- CaptureSizesTest.cpp - the one capture-size syntax -----------------===//
//
// CaptureSizes.h is what the compiler's options, the manifest, the
// environment and the API all read: the syntax, the `default` list, the
// canonical form the manifest carries, and what is refused.
//
//===----------------------------------------------------------------------===//

#include "GraphPart/Runtime/CaptureSizes.h"

#include <gtest/gtest.h>

namespace {

gp::CaptureSizes parsed(const char *text) {
  gp::CaptureSizes sizes;
  std::string problem = gp::parseCaptureSizes(text, sizes);
  EXPECT_EQ(problem, "") << text;
  return sizes;
}

std::string problemWith(const char *text) {
  gp::CaptureSizes sizes;
  std::string problem = gp::parseCaptureSizes(text, sizes);
  EXPECT_TRUE(sizes.empty() || !problem.empty());
  return problem;
}

TEST(CaptureSizesTest, KeysOfOneOrMoreSizes) {
  gp::CaptureSizes one = parsed("1,2,4");
  EXPECT_EQ(one.keyLength, 1);
  EXPECT_EQ(one.numKeys(), 3);
  EXPECT_EQ(one.sizes, (std::vector<int64_t>{1, 2, 4}));
  gp::CaptureSizes two = parsed("2x3,4x5,0x7");
  EXPECT_EQ(two.keyLength, 2);
  EXPECT_EQ(two.numKeys(), 3);
  EXPECT_EQ(two.key(1), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(two.key(2), (std::vector<int64_t>{0, 7}));
  EXPECT_EQ(parsed("999999999999999999").sizes[0], 999999999999999999);
}

TEST(CaptureSizesTest, DefaultList) {
  std::vector<int64_t> defaults = gp::defaultCaptureSizes();
  ASSERT_EQ(defaults.size(), 4u + 31u + 16u);
  EXPECT_EQ(defaults.front(), 1);
  EXPECT_EQ(defaults[4], 16);
  EXPECT_EQ(defaults[34], 256);
  EXPECT_EQ(defaults[35], 272);
  EXPECT_EQ(defaults.back(), 512);
  EXPECT_EQ(parsed("default").sizes, defaults);
  gp::CaptureSizes more = parsed("default,1024");
  EXPECT_EQ(more.numKeys(), static_cast<int32_t>(defaults.size()) + 1);
  EXPECT_EQ(more.sizes.back(), 1024);
  EXPECT_EQ(parsed("3,default").sizes.front(), 3);
}

// What the manifest carries reads back as the same list.
TEST(CaptureSizesTest, FormattedListParsesBack) {
  for (const char *text : {"1,2,4", "2x3,4x5", "7", "1x2x3,4x5x6"})
    EXPECT_EQ(gp::formatCaptureSizes(parsed(text)), text);
  gp::CaptureSizes defaults = parsed("default");
  EXPECT_EQ(parsed(gp::formatCaptureSizes(defaults).c_str()).sizes,
            defaults.sizes);
  EXPECT_EQ(gp::formatCaptureSizes(gp::CaptureSizes()), "");
}

TEST(CaptureSizesTest, MalformedListsNameTheEntry) {
  EXPECT_EQ(problemWith(""), "the list is empty");
  for (const char *text :
       {"1,,2", "1,", ",1", "1,x", "2x", "x3", "-1", "+3", " 4", "4 ", "0xA",
        "1.5", "9999999999999999999", "defaults", "Default"})
    EXPECT_NE(problemWith(text).find("is not a size or a size tuple"),
              std::string::npos)
        << text;
  EXPECT_EQ(problemWith("1,2x3"),
            "'2x3' has 2 sizes but the entries before it have 1: every "
            "entry must have the same number");
  EXPECT_NE(problemWith("2x3,default").find("'default' has 1 size"),
            std::string::npos);
  EXPECT_NE(problemWith("default,2x3").find("'2x3' has 2 sizes"),
            std::string::npos);
}

} // namespace
