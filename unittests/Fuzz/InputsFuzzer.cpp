//===- InputsFuzzer.cpp - gp-run's input specs and .npy files -------------===//
//
// libFuzzer target for what gp-run reads from its user. The first byte
// picks the reader:
//  - odd: the rest is a .npy file (readNpy);
//  - even: the rest is "TYPE RANK D0 D1 ...\nSPEC": an --input spec checked
//    against an argument of that element type and shape (-1: dynamic), an
//    index argument when TYPE is "index".
// Errors are expected; a crash or a sanitizer report is a finding. Inputs
// are limited to 1 MiB so that a large but valid shape is not taken for a
// leak. scripts/fuzz.sh builds and runs it.
//
//===----------------------------------------------------------------------===//

#include "Inputs.h"
#include "Npy.h"

#include <sstream>
#include <string>
#include <vector>

using namespace gp::run;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  uint8_t mode = data[0];
  std::string text(reinterpret_cast<const char *>(data) + 1, size - 1);
  if (mode & 1) {
    std::istringstream in(text);
    Array array;
    std::string error;
    (void)readNpy(in, "fuzz.npy", array, error);
    return 0;
  }
  size_t newline = text.find('\n');
  if (newline == std::string::npos)
    return 0;
  std::istringstream header(text.substr(0, newline));
  std::string spec = text.substr(newline + 1);
  if (!spec.empty() && spec[0] == '@')
    return 0; // Files are fuzzed as bytes above, not opened by name.
  std::string type;
  int32_t rank = 0;
  if (!(header >> type >> rank) || rank < 0 || rank > 8)
    return 0;
  std::vector<int64_t> shape(rank, -1);
  for (int64_t &dim : shape)
    if (!(header >> dim))
      return 0;
  gpRtValueInfo info{};
  info.isBuffer = type != "index";
  info.elementType = type.c_str();
  info.rank = rank;
  info.shape = shape.data();
  info.device = "cpu";
  std::mt19937_64 random(0);
  Input input;
  std::string error;
  (void)parseInput(spec, info, 0, random, input, error, int64_t(1) << 20);
  return 0;
}
