//===- Npy.cpp - read and write .npy files --------------------------------===//
//
// The .npy reader and writer. The header is a Python dict literal; it is
// read by looking for its three keys rather than parsed in full, which is
// enough for the files NumPy (and gp-run) write.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace gp::run;

namespace {

/// Appends up to `count` bytes of `in` to `out`. Reads in bounded chunks so
/// that a corrupt length in a file fails as a short read instead of
/// allocating the claimed size first.
template <typename Bytes>
void readAtMost(std::istream &in, uint64_t count, Bytes &out) {
  char chunk[1 << 16];
  while (count > 0 && in) {
    in.read(chunk, std::min<uint64_t>(count, sizeof(chunk)));
    out.insert(out.end(), chunk, chunk + in.gcount());
    count -= in.gcount();
  }
}

/// Parses one dimension of a header's shape tuple (" 3" or NumPy 1.x's
/// Python 2 "3L"): leading digits, non-negative, in range.
bool parseDimension(const std::string &text, int64_t &size) {
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || errno == ERANGE || value < 0)
    return false;
  size = value;
  return true;
}

} // namespace

bool gp::run::readNpy(std::istream &in, const std::string &path, Array &array,
                      std::string &error) {
  auto fail = [&](const std::string &message) {
    error = message;
    return false;
  };
  char magic[8];
  in.read(magic, 8);
  if (in.gcount() != 8 || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    return fail("'" + path + "' is not a .npy file");
  // Version 1 stores the header's length in 2 bytes, versions 2 and 3 in 4.
  uint32_t headerLength = 0;
  if (magic[6] == 1) {
    uint16_t length = 0;
    in.read(reinterpret_cast<char *>(&length), 2);
    headerLength = length;
  } else {
    in.read(reinterpret_cast<char *>(&headerLength), 4);
  }
  std::string header;
  readAtMost(in, headerLength, header);
  // The text after `key`'s colon, to the end of the header.
  auto field = [&](const std::string &key, std::string &value) {
    size_t at = header.find("'" + key + "'");
    if (at == std::string::npos)
      return fail("'" + path + "': header lacks " + key);
    value = header.substr(header.find(':', at) + 1);
    return true;
  };
  std::string descr, fortranOrder, shape;
  if (!field("descr", descr))
    return false;
  descr = descr.substr(descr.find('\'') + 1);
  descr = descr.substr(0, descr.find('\''));
  if (!field("fortran_order", fortranOrder))
    return false;
  // " True, 'shape': ...": the value is the first word after the colon.
  if (fortranOrder.find("True") < 6)
    return fail("'" + path + "': fortran order is not supported");
  array = Array();
  array.type = findNpyElementType(descr);
  if (!array.type)
    return fail("'" + path + "': unsupported dtype " + descr);
  if (!field("shape", shape))
    return false;
  shape =
      shape.substr(shape.find('(') + 1, shape.find(')') - shape.find('(') - 1);
  // Entries without a digit are the empty ones of "(5,)" and "()".
  std::stringstream dims(shape);
  std::string dim;
  uint64_t bytes = array.type->bytes;
  while (std::getline(dims, dim, ',')) {
    if (dim.find_first_of("0123456789") == std::string::npos)
      continue;
    int64_t size = 0;
    if (!parseDimension(dim, size) ||
        __builtin_mul_overflow(bytes, static_cast<uint64_t>(size), &bytes))
      return fail("'" + path + "': bad shape (" + shape + ")");
    array.shape.push_back(size);
  }
  readAtMost(in, bytes, array.data);
  if (array.data.size() != bytes)
    return fail("'" + path + "': truncated data");
  return true;
}

bool gp::run::readNpy(const std::string &path, Array &array,
                      std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  return readNpy(in, path, array, error);
}

void gp::run::writeNpy(std::ostream &out, const Array &array) {
  std::string shape = "(";
  for (int64_t d : array.shape)
    shape += std::to_string(d) + ",";
  if (array.shape.size() > 1)
    shape.pop_back(); // "(5,)" keeps its comma, as in Python.
  shape += ")";
  std::string header = std::string("{'descr': '") + array.type->npy +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic, version, length, header and its newline end on a 64-byte
  // boundary, so the data is aligned when mapped.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t length = header.size();
  out.write(reinterpret_cast<const char *>(&length), 2);
  out << header;
  out.write(reinterpret_cast<const char *>(array.data.data()),
            array.data.size());
}

bool gp::run::writeNpy(const std::string &path, const Array &array,
                       std::string &error) {
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  writeNpy(out, array);
  // A path that opens but cannot hold the data (a full disk, /dev/full)
  // fails only here, when the buffered bytes go out.
  errno = 0;
  out.close();
  if (!out) {
    error = "cannot write '" + path + "'" +
            (errno ? std::string(": ") + std::strerror(errno) : std::string());
    return false;
  }
  return true;
}
