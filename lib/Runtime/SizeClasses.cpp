//===- SizeClasses.cpp - an entry's run-time sizes, checked at each call --===//
//
// The compiler states, per entry, which dynamic dimensions the program uses
// as one size (a size class: the manifest's `size` lines), whether the
// program fixes it, and whether padding along it is safe. Owns reading and
// checking the `size` lines, their description (gpRtArtifactDescribeSizes,
// gpRtArtifactGetSize), and the check every call makes: the members of a
// class are equal (and equal to the size the program fixes, if it does);
// otherwise compiled code would read past the smaller buffer. Padding.cpp
// pads calls along the classes proven safe.
//
//===----------------------------------------------------------------------===//


#include "ArtifactState.h"
#include "Handles.h"
#include "Log.h"
#include "Memory.h"
#include "Policy.h"
#include "ProgramState.h"
#include "RuntimeInternal.h"

#include "GraphPart/Runtime/ManifestSchema.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

using namespace gp::rt;
namespace manifest = gp::manifest;

//===----------------------------------------------------------------------===//
// The manifest's size lines
//===----------------------------------------------------------------------===//

/// A non-negative decimal number that fits `limit`, or -1.
static int64_t parseCount(const std::string &text, int64_t limit) {
  if (text.empty() || text.size() > 18 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  int64_t value = std::strtoll(text.c_str(), nullptr, 10);
  return value <= limit ? value : -1;
}

/// `a<i>.<d>`, `a<i>`, `r<j>.<d>` or `r<j>`.
static bool parseMember(const std::string &text, SizeMember &member) {
  if (text.size() < 2 || (text[0] != manifest::kArgumentMember &&
                          text[0] != manifest::kResultMember))
    return false;
  bool argument = text[0] == manifest::kArgumentMember;
  size_t dot = text.find('.');
  int64_t index = parseCount(text.substr(1, dot == std::string::npos
                                                ? std::string::npos
                                                : dot - 1),
                             INT32_MAX);
  if (index < 0)
    return false;
  member.index = static_cast<int32_t>(index);
  if (dot == std::string::npos) {
    member.kind =
        argument ? SizeMember::IndexArgument : SizeMember::IndexResult;
    return true;
  }
  int64_t dim = parseCount(text.substr(dot + 1), INT32_MAX);
  if (dim < 0)
    return false;
  member.kind = argument ? SizeMember::ArgumentDim : SizeMember::ResultDim;
  member.dim = static_cast<int32_t>(dim);
  return true;
}

gpRtStatus gp::rt::parseSizeLine(std::istringstream &line,
                                 const std::string &text, SizeClass &size) {
  auto bad = [&](const std::string &why) {
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "artifact manifest: bad size line '" + text + "': " + why +
                    " (expected 'size <name> <fixed size or ?> "
                    "<members> pad [<max>]|nopad <reason>')");
  };
  std::string fixed, members, kind;
  if (!(line >> size.name >> fixed >> members >> kind))
    return bad("truncated");
  if (fixed != manifest::kDynamic &&
      (size.fixed = parseCount(fixed, INT64_MAX / 2)) < 0)
    return bad("'" + fixed + "' is not a size");
  std::stringstream list(members);
  std::string item;
  while (std::getline(list, item, ',')) {
    SizeMember member;
    if (!parseMember(item, member))
      return bad("'" + item +
                 "' is not a member (a<i>.<d>, a<i>, r<j>.<d> or r<j>)");
    size.members.push_back(member);
  }
  if (size.members.empty() || members.back() == ',')
    return bad("an empty member list");
  if (kind == manifest::kPad) {
    std::string maximum, extra;
    if (line >> maximum &&
        (size.maximum = parseCount(maximum, INT64_MAX / 2)) < 0)
      return bad("'" + maximum + "' after 'pad' is not a size");
    if (line >> extra)
      return bad("unexpected '" + extra + "' after 'pad " + maximum + "'");
    size.paddable = true;
  } else if (kind == manifest::kNoPad) {
    std::getline(line >> std::ws, size.reason);
    if (size.reason.empty())
      return bad("'nopad' without a reason");
  } else {
    return bad("'" + kind + "' is neither 'pad' nor 'nopad'");
  }
  size.line = text;
  return GP_RT_SUCCESS;
}

/// "argument 2 dimension 0", "argument 1" (an index), "result 0
/// dimension 1", "result 2" (an index).
static std::string describeMember(const SizeMember &member) {
  std::string value = (member.isResult() ? "result " : "argument ") +
                      std::to_string(member.index);
  if (member.kind == SizeMember::IndexArgument ||
      member.kind == SizeMember::IndexResult)
    return value;
  return value + " dimension " + std::to_string(member.dim);
}

/// Fails unless `member` is a dynamic dimension of a buffer value or an
/// index value of `entry`.
static gpRtStatus checkMember(const Entry &entry, const SizeClass &size,
                              const SizeMember &member) {
  auto bad = [&](const std::string &why) {
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "artifact manifest: bad size line '" + size.line +
                    "' of entry '" + entry.name + "': " + why);
  };
  bool result = member.isResult();
  const std::vector<Value> &values = result ? entry.results : entry.args;
  std::string what = result ? "result " : "argument ";
  if (member.index >= static_cast<int32_t>(values.size()))
    return bad("no " + what + std::to_string(member.index) +
               " (the entry has " + std::to_string(values.size()) + ")");
  const Value &value = values[member.index];
  if (member.kind == SizeMember::IndexArgument ||
      member.kind == SizeMember::IndexResult)
    return value.isBuffer ? bad(what + std::to_string(member.index) +
                                " is a buffer; name one of its dimensions "
                                "(" +
                                (result ? manifest::kResultMember
                                        : manifest::kArgumentMember) +
                                std::to_string(member.index) + ".<d>)")
                          : GP_RT_SUCCESS;
  if (!value.isBuffer)
    return bad(what + std::to_string(member.index) +
               " is an index value, not a buffer with dimensions");
  if (member.dim >= static_cast<int32_t>(value.shape.size()))
    return bad(what + std::to_string(member.index) + " has rank " +
               std::to_string(value.shape.size()) + ", no dimension " +
               std::to_string(member.dim));
  if (value.shape[member.dim] >= 0)
    return bad(describeMember(member) + " is static (" +
               std::to_string(value.shape[member.dim]) +
               "), not a dynamic size");
  return GP_RT_SUCCESS;
}

/// One line of gpRtArtifactDescribeSizes: `size NAME (MEMBERS): WHAT`.
static std::string describeSize(const SizeClass &size) {
  std::string members;
  for (const SizeMember &member : size.members)
    members += (members.empty() ? "" : ", ") + describeMember(member);
  std::string what =
      size.fixed >= 0 ? "fixed at " + std::to_string(size.fixed)
      : size.paddable ? std::string("padded to the capture sizes")
                      : "not padded: " + size.reason;
  return "size " + size.name + " (" + members + "): " + what + "\n";
}

gpRtStatus gp::rt::finishSizes(Entry &entry) {
  entry.sizesText.clear();
  entry.pads = false;
  for (size_t c = 0; c < entry.sizes.size(); ++c) {
    SizeClass &size = entry.sizes[c];
    auto bad = [&](const std::string &why) {
      return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                  "artifact manifest: bad size line '" + size.line +
                      "' of entry '" + entry.name + "': " + why);
    };
    for (size_t other = 0; other < c; ++other)
      if (entry.sizes[other].name == size.name)
        return bad("the entry has another size named '" + size.name + "'");
    for (const SizeMember &member : size.members)
      if (gpRtStatus status = checkMember(entry, size, member))
        return status;
    // A dimension in two places would be padded twice, or be two sizes.
    auto same = [](const SizeMember &a, const SizeMember &b) {
      return a.kind == b.kind && a.index == b.index && a.dim == b.dim;
    };
    for (size_t m = 0; m < size.members.size(); ++m) {
      const SizeMember &member = size.members[m];
      for (size_t n = 0; n < m; ++n)
        if (same(member, size.members[n]))
          return bad(describeMember(member) + " is named twice");
      for (size_t other = 0; other < c; ++other)
        for (const SizeMember &taken : entry.sizes[other].members)
          if (same(member, taken))
            return bad(describeMember(member) + " is in size '" +
                       entry.sizes[other].name + "' too");
    }
    // Arguments first: a call reads the size from its first member.
    std::vector<SizeMember> ordered;
    for (bool results : {false, true})
      for (const SizeMember &member : size.members)
        if (member.isResult() == results)
          ordered.push_back(member);
    size.members = std::move(ordered);
    size.numArgumentMembers = static_cast<int32_t>(std::count_if(
        size.members.begin(), size.members.end(),
        [](const SizeMember &m) { return !m.isResult(); }));
    if (size.numArgumentMembers == 0)
      return bad("no argument among its members (a call could not tell the "
                 "size)");
    entry.pads = entry.pads || size.pads();
    entry.sizesText += describeSize(size);
  }
  return GP_RT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// The check every call makes
//===----------------------------------------------------------------------===//

int64_t gp::rt::memberValue(void *const *args, const SizeMember &member) {
  if (member.kind == SizeMember::IndexArgument)
    return *static_cast<const int64_t *>(args[member.index]);
  return static_cast<const gpRtMemRef *>(args[member.index])->shape[member.dim];
}

gpRtStatus gp::rt::checkSizes(const Entry &entry, void *const *args) {
  for (const SizeClass &size : entry.sizes) {
    int64_t first = 0;
    for (int32_t m = 0; m < size.numArgumentMembers; ++m) {
      const SizeMember &member = size.members[m];
      // Buffers were checked non-null with the other argument checks.
      if (member.kind == SizeMember::IndexArgument && !args[member.index])
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    "entry '" + entry.name + "': argument " +
                        std::to_string(member.index) + " is null");
      int64_t value = memberValue(args, member);
      if (size.fixed >= 0 && value != size.fixed)
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    "entry '" + entry.name + "': " + describeMember(member) +
                        " is " + std::to_string(value) +
                        ", but the program fixes size '" + size.name +
                        "' at " + std::to_string(size.fixed));
      if (m == 0) {
        first = value;
        continue;
      }
      if (value != first)
        return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                    "entry '" + entry.name + "': " + describeMember(member) +
                        " is " + std::to_string(value) + ", but " +
                        describeMember(size.members[0]) + " is " +
                        std::to_string(first) +
                        ": the program uses them as one size (" + size.name +
                        ")");
    }
  }
  return GP_RT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// The C ABI
//===----------------------------------------------------------------------===//

/// Entry `index` of `artifact`, or a failure naming `what`.
static gpRtStatus findEntry(gpRtArtifact *artifact, int32_t index,
                            const char *what, const Entry *&entry) {
  if (!artifact || index < 0 ||
      index >= static_cast<int32_t>(artifact->entries.size()))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": null artifact or no such entry");
  entry = &artifact->entries[index];
  return GP_RT_SUCCESS;
}

extern "C" {

GP_RT_EXPORT int32_t gpRtArtifactNumSizes(gpRtArtifact *artifact,
                                          int32_t index) {
  if (checkHandle(artifact, "gpRtArtifactNumSizes"))
    return 0;
  if (!artifact || index < 0 ||
      index >= static_cast<int32_t>(artifact->entries.size()))
    return 0;
  return static_cast<int32_t>(artifact->entries[index].sizes.size());
}

GP_RT_EXPORT gpRtStatus gpRtArtifactGetSize(gpRtArtifact *artifact,
                                            int32_t index, int32_t size,
                                            gpRtSizeInfo *info) {
  if (gpRtStatus status = checkHandle(artifact, "gpRtArtifactGetSize"))
    return status;
  const Entry *entry = nullptr;
  if (gpRtStatus status =
          findEntry(artifact, index, "gpRtArtifactGetSize", entry))
    return status;
  if (!info || size < 0 || size >= static_cast<int32_t>(entry->sizes.size()))
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtArtifactGetSize: null or no such size of entry '" +
                    entry->name + "'");
  const SizeClass &found = entry->sizes[size];
  *info = {found.name.c_str(), found.fixed, found.pads() ? 1 : 0,
           found.paddable ? nullptr : found.reason.c_str()};
  return GP_RT_SUCCESS;
}

GP_RT_EXPORT gpRtStatus gpRtArtifactDescribeSizes(gpRtArtifact *artifact,
                                                  int32_t index,
                                                  const char **text) {
  if (gpRtStatus status = checkHandle(artifact, "gpRtArtifactDescribeSizes"))
    return status;
  const Entry *entry = nullptr;
  if (gpRtStatus status =
          findEntry(artifact, index, "gpRtArtifactDescribeSizes", entry))
    return status;
  if (!text)
    return fail(GP_RT_ERROR_INVALID_ARGUMENT,
                "gpRtArtifactDescribeSizes: null");
  *text = entry->sizesText.c_str();
  return GP_RT_SUCCESS;
}

} // extern "C"
