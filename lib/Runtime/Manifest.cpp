//===- Manifest.cpp - the artifact manifest, read --------------------------===//
//
// What gp-compile writes into every artifact as `gp_manifest`, read into
// the gpRtArtifact (ArtifactState.h) when it is loaded or inspected. The
// format, and every word of it, is GraphPart/Runtime/ManifestSchema.h.
//
//===----------------------------------------------------------------------===//

#include "ArtifactState.h"
#include "Policy.h"
#include "RuntimeInternal.h"

#include "GraphPart/Runtime/ManifestSchema.h"

#include <optional>
#include <sstream>
#include <string>

using namespace gp::rt;
namespace manifest = gp::manifest;

static gpRtStatus parseValue(std::istringstream &line, Value &value,
                             const std::string &text, bool isArgument) {
  auto bad = [&](const std::string &why) {
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "artifact manifest: " + why + " in '" + text + "'");
  };
  std::string kind;
  line >> kind;
  if (kind == manifest::kIndex) {
    std::string extra;
    if (line >> extra)
      return extra == manifest::kParameter
                 ? bad("an index value cannot be a parameter (only buffer "
                       "arguments can)")
                 : bad("unexpected '" + extra + "'");
    return GP_RT_SUCCESS;
  }
  if (kind != manifest::kMemref)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "artifact manifest: bad value line '" + text + "'");
  value.isBuffer = true;
  int rank = -1;
  line >> value.elementType >> rank;
  if (rank < 0)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "artifact manifest: bad rank in '" + text + "'");
  for (int i = 0; i < rank; ++i) {
    std::string dim;
    line >> dim;
    if (dim == manifest::kDynamic) {
      value.shape.push_back(-1);
      continue;
    }
    char *end = nullptr;
    errno = 0;
    long long size = std::strtoll(dim.c_str(), &end, 10);
    if (dim.empty() || *end || errno || size < 0)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "artifact manifest: bad dimension '" + dim + "' in '" + text +
                      "'");
    value.shape.push_back(size);
  }
  line >> value.device;
  if (!line)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "artifact manifest: truncated line '" + text + "'");
  // [strided] [parameter <name>], in that order.
  std::string token;
  bool named = false;
  while (line >> token) {
    if (token == manifest::kStrided && !value.strided && !named) {
      value.strided = true;
    } else if (token == manifest::kParameter && !named) {
      if (!isArgument)
        return bad("a result cannot be a parameter");
      if (!(line >> value.parameter))
        return bad("'parameter' without a name");
      named = true;
    } else if (token == manifest::kStrided || token == manifest::kParameter) {
      return bad("'" + token + "' out of place (the line ends in [strided] "
                               "[parameter <name>])");
    } else {
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  named ? "artifact manifest: unexpected '" + token +
                              "' after the parameter's name in '" + text + "'"
                        : "artifact manifest: unknown layout '" + token +
                              "' in '" + text + "'");
    }
  }
  return GP_RT_SUCCESS;
}

/// A hex digit's value, or -1.
static int hexDigit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

gpRtStatus gp::rt::parseManifest(gpRtArtifact &artifact, const char *text) {
  std::istringstream lines(text);
  std::string header;
  std::getline(lines, header);
  // Another version of the format: the artifact, not the file, is stale.
  std::string version = std::to_string(manifest::kFormatVersion);
  if (header.rfind(std::string(manifest::kFormatName) + " ", 0) == 0 &&
      header != manifest::kHeader)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "artifact manifest '" + header +
                    "': this runtime reads version " + version +
                    "; compile the program again with this release's "
                    "gp-compile");
  if (header != manifest::kHeader)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "not a GraphPart artifact manifest (version " + version + ")");
  std::string text_;
  Entry *entry = nullptr;
  while (std::getline(lines, text_)) {
    std::istringstream line(text_);
    std::string key;
    line >> key;
    // A number that does not parse or does not fit fails the line (the
    // stream would leave a clamped or zero value behind).
    bool bad = false;
    auto read = [&](auto &value) { bad = !(line >> value); };
    if (key == manifest::kTarget) {
      line >> artifact.target;
    } else if (key == manifest::kArena) {
      read(artifact.arenaBytes);
    } else if (key == manifest::kHostArena) {
      read(artifact.hostArenaBytes);
    } else if (key == manifest::kGenerators) {
      read(artifact.generators);
    } else if (key == manifest::kSeed) {
      read(artifact.seed);
    } else if (key == manifest::kDevice) {
      read(artifact.device);
    } else if (key == manifest::kWarmupRuns) {
      read(artifact.warmupRuns);
    } else if (key == manifest::kCaptureSizes) {
      std::string sizes;
      line >> sizes;
      if (sizes != manifest::kNone)
        if (gpRtStatus status = parseCaptureSizes(
                "artifact manifest: capture-sizes", sizes,
                artifact.captureSizes))
          return status;
    } else if (key == manifest::kGraphCacheCapacity) {
      read(artifact.graphCacheCapacity);
    } else if (key == manifest::kShapeWarningLimit) {
      read(artifact.shapeWarningLimit);
    } else if (key == manifest::kOrError) {
      int flag = 0;
      read(flag);
      artifact.orError = flag != 0;
    } else if (key == manifest::kPartition) {
      int index = 0, keyLength = 0;
      std::string kind, reasons;
      line >> index >> kind >> keyLength;
      std::getline(line >> std::ws, reasons);
      artifact.partitions.push_back(
          {kind == manifest::kCapturable ? 1 : 0, keyLength, nullptr});
      artifact.reasons.push_back(reasons == manifest::kNone ? "" : reasons);
    } else if (key == manifest::kExtern) {
      ExternStatement statement;
      std::string safety, mutates, aliases;
      line >> statement.name >> safety >> mutates >> aliases;
      std::getline(line >> std::ws, statement.location);
      auto list = [](const std::string &text, bool allowFresh) {
        return text.size() >= 2 && text.front() == '[' && text.back() == ']'
                   ? parseIndexList(text.substr(1, text.size() - 2), allowFresh)
                   : std::nullopt;
      };
      std::optional<std::vector<int64_t>> mutated = list(mutates, false),
                                          aliased = list(aliases, true);
      if (!line.eof() || statement.name.empty() ||
          (safety != manifest::kCapturable && safety != manifest::kUnsafe) ||
          !mutated || !aliased || statement.location.empty())
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    "artifact manifest: bad extern line '" + text_ + "'");
      statement.capturable = safety == manifest::kCapturable;
      statement.mutates = std::move(*mutated);
      statement.aliases = std::move(*aliased);
      artifact.externs.push_back(std::move(statement));
    } else if (key == manifest::kEntry) {
      artifact.entries.emplace_back();
      entry = &artifact.entries.back();
      line >> entry->name;
    } else if (key == manifest::kArg || key == manifest::kResult) {
      if (!entry)
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    "artifact manifest: value before any entry");
      Value value;
      if (gpRtStatus status =
              parseValue(line, value, text_, key == manifest::kArg))
        return status;
      (key == manifest::kArg ? entry->args : entry->results).push_back(value);
    } else if (key == manifest::kInitial) {
      InitialValue value;
      std::string hex, extra;
      line >> value.name >> hex;
      if (value.name.empty() || hex.empty() || hex.size() % 2 != 0 ||
          (line >> extra))
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    "artifact manifest: bad initial line '" +
                        text_.substr(0, 200) + "'");
      value.bytes.reserve(hex.size() / 2);
      for (size_t i = 0; i < hex.size(); i += 2) {
        int high = hexDigit(hex[i]), low = hexDigit(hex[i + 1]);
        if (high < 0 || low < 0)
          return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                      "artifact manifest: initial value of '" + value.name +
                          "' is not hex");
        value.bytes.push_back(static_cast<char>(high * 16 + low));
      }
      artifact.initialValues.push_back(std::move(value));
    } else if (key == manifest::kCheck) {
      if (!entry)
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    "artifact manifest: check line before any entry");
      size_t number = 0;
      std::string description;
      bool numbered = static_cast<bool>(line >> number);
      if (numbered)
        std::getline(line >> std::ws, description);
      if (!numbered || number != entry->checks.size() + 1 ||
          description.empty())
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    "artifact manifest: bad check line '" + text_ +
                        "' (checks are numbered from 1, in order)");
      entry->checks.push_back(std::move(description));
    } else if (key == manifest::kSize) {
      if (!entry)
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    "artifact manifest: size line before any entry");
      SizeClass size;
      if (gpRtStatus status = parseSizeLine(line, text_, size))
        return status;
      entry->sizes.push_back(std::move(size));
    } else if (!key.empty()) {
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "artifact manifest: unknown line '" + text_ + "'");
    }
    if (bad)
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "artifact manifest: bad number in '" + text_ + "'");
  }
  for (size_t i = 0; i < artifact.partitions.size(); ++i)
    artifact.partitions[i].reasons = artifact.reasons[i].c_str();
  for (Entry &e : artifact.entries) {
    // Against the entry's values, all read by now.
    if (gpRtStatus status = finishSizes(e))
      return status;
    for (auto [values, infos] : {std::pair{&e.args, &e.argInfos},
                                 std::pair{&e.results, &e.resultInfos}})
      for (Value &v : *values)
        infos->push_back({v.isBuffer ? 1 : 0, v.elementType.c_str(),
                          static_cast<int32_t>(v.shape.size()), v.shape.data(),
                          v.device.c_str(),
                          v.parameter.empty() ? nullptr : v.parameter.c_str()});
  }
  return collectParameters(artifact);
}
