//===- SafeTensors.cpp - read .safetensors files --------------------------===//
//
// A strict reader of the safetensors header: a small JSON parser (objects,
// arrays, strings with escapes, numbers, true, false, null; nesting
// bounded), then the layout checked against the file: every tensor's
// offsets inside the data, and its size what its dtype and shape say.
//
//===----------------------------------------------------------------------===//

#include "SafeTensors.h"

#include "GraphPart/Runtime/ElementTypeTable.h"

#include <cstdint>
#include <fstream>
#include <memory>
#include <new>
#include <string>
#include <utility>

using namespace gp::run;

namespace {

struct Json {
  enum Kind { Null, Boolean, Number, String, Array, Object } kind = Null;
  /// A string's value, or a number's literal text.
  std::string text;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;
};

class JsonParser {
public:
  explicit JsonParser(const std::string &text) : text(text) {}

  bool parseDocument(Json &value, std::string &error) {
    if (!parseValue(value, 0))
      return fail(error);
    skipSpace();
    if (at != text.size()) {
      why = "unexpected text after the header's object";
      return fail(error);
    }
    return true;
  }

private:
  static constexpr int kMaxDepth = 64;
  const std::string &text;
  size_t at = 0;
  std::string why;

  bool fail(std::string &error) {
    error = why + " (at byte " + std::to_string(at) + " of the header)";
    return false;
  }
  bool bad(const std::string &reason) {
    if (why.empty())
      why = reason;
    return false;
  }
  void skipSpace() {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' ||
                                text[at] == '\n' || text[at] == '\r'))
      ++at;
  }
  bool literal(const char *word) {
    size_t length = std::char_traits<char>::length(word);
    if (text.compare(at, length, word) != 0)
      return bad("not JSON");
    at += length;
    return true;
  }
  bool parseValue(Json &value, int depth) {
    if (depth > kMaxDepth)
      return bad("nested too deeply");
    skipSpace();
    if (at >= text.size())
      return bad("the header ends early");
    switch (text[at]) {
    case '{':
      return parseObject(value, depth);
    case '[':
      return parseArray(value, depth);
    case '"':
      value.kind = Json::String;
      return parseString(value.text);
    case 't':
      value.kind = Json::Boolean;
      value.text = "true";
      return literal("true");
    case 'f':
      value.kind = Json::Boolean;
      value.text = "false";
      return literal("false");
    case 'n':
      value.kind = Json::Null;
      return literal("null");
    default:
      value.kind = Json::Number;
      return parseNumber(value.text);
    }
  }
  bool parseObject(Json &value, int depth) {
    value.kind = Json::Object;
    ++at; // '{'
    skipSpace();
    if (at < text.size() && text[at] == '}') {
      ++at;
      return true;
    }
    while (true) {
      skipSpace();
      std::string key;
      if (at >= text.size() || text[at] != '"')
        return bad("expected a string key");
      if (!parseString(key))
        return false;
      for (const auto &member : value.members)
        if (member.first == key)
          return bad("the key '" + key + "' appears twice");
      skipSpace();
      if (at >= text.size() || text[at] != ':')
        return bad("expected ':'");
      ++at;
      Json member;
      if (!parseValue(member, depth + 1))
        return false;
      value.members.emplace_back(std::move(key), std::move(member));
      skipSpace();
      if (at < text.size() && text[at] == ',') {
        ++at;
        continue;
      }
      if (at < text.size() && text[at] == '}') {
        ++at;
        return true;
      }
      return bad("expected ',' or '}'");
    }
  }
  bool parseArray(Json &value, int depth) {
    value.kind = Json::Array;
    ++at; // '['
    skipSpace();
    if (at < text.size() && text[at] == ']') {
      ++at;
      return true;
    }
    while (true) {
      Json item;
      if (!parseValue(item, depth + 1))
        return false;
      value.items.push_back(std::move(item));
      skipSpace();
      if (at < text.size() && text[at] == ',') {
        ++at;
        continue;
      }
      if (at < text.size() && text[at] == ']') {
        ++at;
        return true;
      }
      return bad("expected ',' or ']'");
    }
  }
  static void appendUtf8(std::string &out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  bool hex4(uint32_t &code) {
    if (at + 4 > text.size())
      return bad("a \\u escape ends early");
    code = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text[at++];
      code <<= 4;
      if (c >= '0' && c <= '9')
        code |= c - '0';
      else if (c >= 'a' && c <= 'f')
        code |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        code |= c - 'A' + 10;
      else
        return bad("a bad \\u escape");
    }
    return true;
  }
  bool parseString(std::string &out) {
    ++at; // '"'
    while (true) {
      if (at >= text.size())
        return bad("a string is not closed");
      auto c = static_cast<unsigned char>(text[at++]);
      if (c == '"')
        return true;
      if (c < 0x20)
        return bad("a control character in a string");
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (at >= text.size())
        return bad("a string is not closed");
      char escape = text[at++];
      switch (escape) {
      case '"':
      case '\\':
      case '/':
        out += escape;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t code = 0;
        if (!hex4(code))
          return false;
        if (code >= 0xD800 && code < 0xDC00) {
          uint32_t low = 0;
          if (text.compare(at, 2, "\\u") != 0)
            return bad("an unpaired surrogate in a \\u escape");
          at += 2;
          if (!hex4(low))
            return false;
          if (low < 0xDC00 || low >= 0xE000)
            return bad("an unpaired surrogate in a \\u escape");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code < 0xE000) {
          return bad("an unpaired surrogate in a \\u escape");
        }
        appendUtf8(out, code);
        break;
      }
      default:
        return bad("a bad escape in a string");
      }
    }
  }
  bool parseNumber(std::string &out) {
    size_t start = at;
    auto digits = [&] {
      size_t first = at;
      while (at < text.size() && text[at] >= '0' && text[at] <= '9')
        ++at;
      return at > first;
    };
    if (at < text.size() && text[at] == '-')
      ++at;
    size_t integer = at;
    if (!digits())
      return bad("not JSON");
    if (text[integer] == '0' && at - integer > 1)
      return bad("a number with a leading zero");
    if (at < text.size() && text[at] == '.') {
      ++at;
      if (!digits())
        return bad("a bad number");
    }
    if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
      ++at;
      if (at < text.size() && (text[at] == '+' || text[at] == '-'))
        ++at;
      if (!digits())
        return bad("a bad number");
    }
    out = text.substr(start, at - start);
    return true;
  }
};

/// A JSON number that is a non-negative integer below 2^63.
bool asCount(const Json &value, int64_t &count) {
  if (value.kind != Json::Number || value.text.empty() ||
      value.text.size() > 19)
    return false;
  uint64_t n = 0;
  for (char c : value.text) {
    if (c < '0' || c > '9')
      return false;
    n = n * 10 + (c - '0');
  }
  if (n > static_cast<uint64_t>(INT64_MAX))
    return false;
  count = static_cast<int64_t>(n);
  return true;
}

} // namespace

std::string gp::run::safeTensorElementType(const std::string &dtype,
                                           int &bytes) {
  for (const gp::elements::ElementInfo &info : gp::elements::kElementTable)
    if (info.safetensors && dtype == info.safetensors) {
      bytes = info.bytes;
      return info.name;
    }
  bytes = 0;
  return "";
}

bool gp::run::parseSafeTensorsHeader(const std::string &json,
                                     uint64_t dataBytes,
                                     std::map<std::string, SafeTensor> &tensors,
                                     std::string &error) {
  Json root;
  if (!JsonParser(json).parseDocument(root, error))
    return false;
  if (root.kind != Json::Object) {
    error = "the header is not a JSON object";
    return false;
  }
  for (const auto &member : root.members) {
    const std::string &name = member.first;
    const Json &value = member.second;
    auto reject = [&](const std::string &why) {
      error = "tensor '" + name + "': " + why;
      return false;
    };
    if (name == "__metadata__") {
      if (value.kind != Json::Object) {
        error = "__metadata__ is not an object";
        return false;
      }
      for (const auto &[key, item] : value.members)
        if (item.kind != Json::String) {
          error = "__metadata__ '" + key + "' is not a string";
          return false;
        }
      continue;
    }
    if (value.kind != Json::Object)
      return reject("not an object");
    const Json *dtype = nullptr, *shape = nullptr, *offsets = nullptr;
    for (const auto &[key, item] : value.members) {
      if (key == "dtype")
        dtype = &item;
      else if (key == "shape")
        shape = &item;
      else if (key == "data_offsets")
        offsets = &item;
      else
        return reject("unknown key '" + key + "'");
    }
    if (!dtype || !shape || !offsets)
      return reject(std::string("no '") +
                    (!dtype ? "dtype" : !shape ? "shape" : "data_offsets") +
                    "'");
    SafeTensor tensor;
    if (dtype->kind != Json::String || dtype->text.empty())
      return reject("'dtype' is not a string");
    tensor.dtype = dtype->text;
    if (shape->kind != Json::Array)
      return reject("'shape' is not a list");
    for (const Json &item : shape->items) {
      int64_t size = 0;
      if (!asCount(item, size))
        return reject("'shape' holds something other than sizes");
      tensor.shape.push_back(size);
    }
    int64_t begin = 0, end = 0;
    if (offsets->kind != Json::Array || offsets->items.size() != 2 ||
        !asCount(offsets->items[0], begin) || !asCount(offsets->items[1], end))
      return reject("'data_offsets' is not [begin, end]");
    if (begin > end || static_cast<uint64_t>(end) > dataBytes)
      return reject("data_offsets [" + std::to_string(begin) + ", " +
                    std::to_string(end) + "] are not within the " +
                    std::to_string(dataBytes) + " bytes of data");
    tensor.begin = begin;
    tensor.end = end;
    int bytes = 0;
    if (!safeTensorElementType(tensor.dtype, bytes).empty()) {
      int64_t expected = bytes;
      for (int64_t size : tensor.shape)
        if (__builtin_mul_overflow(expected, size, &expected))
          return reject("its shape has more elements than can be counted");
      if (expected != end - begin)
        return reject(tensor.dtype + " of that shape takes " +
                      std::to_string(expected) + " bytes, data_offsets give " +
                      std::to_string(end - begin));
    }
    tensors.emplace(name, std::move(tensor));
  }
  return true;
}

bool gp::run::readSafeTensorsHeader(const std::string &path,
                                    SafeTensorsFile &file, std::string &error) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  auto size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  unsigned char length[8];
  if (size < 8 || !in.read(reinterpret_cast<char *>(length), 8)) {
    error = "'" + path + "' is not a safetensors file (shorter than its "
                         "8-byte header length)";
    return false;
  }
  uint64_t headerBytes = 0;
  for (int i = 7; i >= 0; --i)
    headerBytes = headerBytes << 8 | length[i];
  // The format's own limit on the header (100 MB).
  constexpr uint64_t kMaxHeader = 100'000'000;
  if (headerBytes > size - 8 || headerBytes > kMaxHeader) {
    error = "'" + path + "' is not a safetensors file: its header length (" +
            std::to_string(headerBytes) + " bytes) reaches past the end of " +
            "the file (" + std::to_string(size) + " bytes)";
    return false;
  }
  std::string json(headerBytes, '\0');
  if (!in.read(json.data(), static_cast<std::streamsize>(headerBytes))) {
    error = "cannot read the header of '" + path + "'";
    return false;
  }
  file.path = path;
  file.dataOffset = 8 + headerBytes;
  file.dataBytes = size - file.dataOffset;
  file.tensors.clear();
  std::string why;
  if (!parseSafeTensorsHeader(json, file.dataBytes, file.tensors, why)) {
    error = "'" + path + "': bad safetensors header: " + why;
    return false;
  }
  return true;
}

bool gp::run::readSafeTensorData(const SafeTensorsFile &file,
                                 const SafeTensor &tensor,
                                 std::vector<uint8_t> &data,
                                 std::string &error) {
  std::ifstream in(file.path, std::ios::binary);
  uint64_t bytes = tensor.end - tensor.begin;
  try {
    data.resize(bytes);
  } catch (const std::bad_alloc &) {
    error = "cannot hold " + std::to_string(bytes) + " bytes of '" +
            file.path + "' in host memory";
    return false;
  }
  in.seekg(static_cast<std::streamoff>(file.dataOffset + tensor.begin));
  if (!in || !in.read(reinterpret_cast<char *>(data.data()),
                      static_cast<std::streamsize>(bytes))) {
    error = "cannot read " + std::to_string(bytes) + " bytes of '" +
            file.path + "'";
    return false;
  }
  return true;
}
